{#
  The ranking family's kernel (decision 0001, and 0002 for the SQL choices; 0007 for the
  contract): one statement computing several ranking metrics over one sort.

  ranking_kernel(relation, by, columns, options, entries):
    relation  the run (SQL after `from`); by: quoted slice identifiers (may be empty)
    columns   group, item, score, label (none when qrels is given); with judgments also
              qrels_relation (their SQL after `from`), qrels_group, qrels_item, qrels_label;
              optional weight (per item: rax's weighted gains, w on the rows: `gain` is
              gain(label) * w and the ideal order is by that weighted gain, every item
              sorted; never with qrels, nor with merged duplicates: Python refuses both) and
              group_weight (per group, gw, constant within a group: Python checks it; each
              value macro's mean over groups is then sum_g W_g v_g / sum_g W_g through
              ranking_mean, W_g joined from `group_weights`; not with empty = 'one' nor
              missing = 'zero'). weight= on the other means over groups (not dcg/ndcg:
              ctx.list_weight) is TF-Ranking's per-list weight (metrics_impl.py,
              _per_example_weights_to_per_list_weights(weights, relevance)): W_g =
              sum_i w_i rel_i / sum_i rel_i (rel_i = 1 when label >= relevance_level), a list
              without a relevant item the mean W_g of its slice's lists that have one (0 when
              none has), times gw with group_weight; the mean over groups is ranking_mean's
              weighted one over lw (`list_weights`, ranking_list_weights; not with empty =
              'one'). Without them the SQL is the unweighted one, byte for byte.
    options   relevance_level, ties, gain, empty, missing, duplicates, judged_only,
              ap_denominator, log_base, precision_denominator: all
              given (Python fills the defaults; none lives here); gains (a map level ->
              gain, replacing gain) and max_grade (err) when a metric takes them.
              judged_only: with qrels, the run's items absent from them are removed
              before ranking (the condensed list, Sakai 2007; `labelled`). duplicates 'error': the
              Python layer has checked that (group, item) pairs do not repeat; 'max' | 'sum'
              merge repeated pairs of the run in `source` (highest score, highest | summed label)
    entries   list of {alias, metric, k, needs}: output column, metric name, cut-off (an
              integer >= 1, or none for the whole list) and what the metric reads from the
              shared sort beyond the basics, as the registry declares it (MetricSpec.needs):
                 cum       cum_rel, ap_term, p_first (one more window; always there with
                           ties = 'average')
                 n_rel     n_rel on every `ranked` row (else only per group, in run_groups)
                 gain_exp  the group's gain exponent on every `ranked` row
                 ideal     the ideal ordering (CTEs ideal, ideal_groups)
                 judged    cum_judged (judged items at positions <= pos: pos without qrels)
                           and n_nonrel (the group's judged non-relevant items) on every
                           `ranked` row; not with ties = 'average' (bpref)
                 err       err_r = (2^label - 1) / 2^max_grade, the probability that the
                           item at pos satisfies the user, and err_reach = prod_{j < pos}
                           (1 - err_r_j) on every `ranked` row; not with ties = 'average'
  Each entry's metric file defines these pieces (p: the entry's column prefix `<alias>_`),
  which the kernel reaches through the metric table of sql/_macros/kernels/ranking_metrics.sql
  (ranking_group_columns(metric, ...), ranking_value, ranking_mean_exponent,
  ranking_ideal_columns: one line per metric and piece, no lookup by a computed name):
     <metric>_group_columns(p, k, by, options)  aggregates over the `ranked` rows of one
                    group, each aliased with the prefix p (e.g. `sum(...) as {{ p }}dcg`),
                    comma separated (may be empty); sums of non-integer terms are exact_sum
                    (exponent 0 for terms in [0, 1], gain_exp for gain terms), so that a
                    group's rows split between threads give the same bits
     <metric>_value(p, k, options)  an aggregate over the per-group rows giving the metric;
                    it may read its own columns and n_rel, n_ret (see below); it must count a
                    per-group 0/0 as 0 (empty="zero" keeps such groups; "skip" never sees one).
                    Float sums over groups are exact_sum: with exponent 0 for values in
                    [0, 1]; otherwise the file defines <metric>_mean_exponent(p), the name
                    of its per-group column, and the kernel joins back {p}exp, that column's
                    sum_exponent over the slice's kept groups (dcg, cg, idcg; a per-slice
                    aggregate, not a window: with_slice_exponents, sql/_macros/shared/common.sql)
     <metric>_ideal_columns(p, k, by, options)  (metrics that need `ideal`): aggregates over
                    the `ideal` rows of one group (ipos, gain, gain_exp), e.g. the ideal DCG;
                    `by` is the slicing of `ideal` (none with qrels: judgments have no slice)

  Scores are ordered in their own type (never cast): integers above 2^53 keep their order.
  CTE chain: source -> [judged, judged_groups] -> labelled -> ranked -> run_groups
             -> [[ideal_runs ->] ideal -> ideal_groups] -> per_group -> kept -> aggregated
             -> final,
  written by the kernel's stages, one macro each (below):
     ranking_source        source (impressions when duplicates are merged)
     ranking_labelled      [judged, judged_groups], labelled
     ranking_rank          rank: ordered, ranked (one sort, a total order), or with
     ranking_rank_average  ties = 'average' tied, tie_terms, ranked (the expectations)
     ranking_group_terms   per-group terms: run_groups (each metric cut at its k, by its
                           <metric>_group_columns with ranking_within)
     ranking_ideal         [ideal_runs], ideal, ideal_groups (when an entry needs them): the
                           ideal positions from per-label counts (k <= 100) or a sort
     ranking_groups        which groups: [absent, absent_count, universe], per_group, flagged
     ranking_aggregate     aggregate: kept, aggregated, counted, final
  Per row of `ranked` (one row per retrieved item; `pos` its 1-based position):
     rel      relevance (label >= relevance_level) at pos: 0/1, or its expectation (ties average)
     gain     gain of the label at pos (exponential 2^label - 1 | linear label), or its expectation
     gain_exp ceil(log2 max gain) of the group (sum_exponent), only when an entry
              needs it: the exponent of its exact_sum of gain terms
     disc     1 / log2(pos + 1), written ln(2) / ln(pos + 1)
     ap_term  E[rel_pos * hits_pos], hits_pos = relevant items at positions <= pos
     miss     P(position pos is not relevant | no relevant item before it in its tie group):
              1 - rel with a total order; (n - r - t) / (n - t) for tie averaging
     p_first  P(the first relevant item is at pos)
     n_rel    relevant items of the group (judged: qrels if given, else the group's rows)
  With ties = 'average' a tie group of n items (r relevant, t = offset of pos in the group,
  a = items scored strictly higher, R_a = relevant among them) gives rel = r / n, gain = mean
  gain of the group, ap_term = rel (1 + R_a) + t r (r - 1) / (n (n - 1)), and p_first =
  [R_a = 0] prod_{t' < t} miss(t') * r / (n - t): expectations over every order of the tied
  items, all equally likely (McSherry & Najork 2008).
  Per group (`per_group`): n_ret (retrieved rows, NULL for a qrels group absent from the
  run), n_rel, the metric columns, the ideal columns.
  Which groups a slice averages over (`universe`, `kept`):
     - its groups: the (slice, group) pairs of the run; with qrels only the judged ones (a run
       group absent from the qrels is not evaluated, as trec_eval). A group whose rows fall
       into several slices is a group of each, with that slice's rows; n_rel is always the
       whole group's (with qrels: the judged relevant items, retrieved or not).
     - empty group: n_rel = 0. `empty`: skip = left out | zero = kept (its 0/0 counts 0) |
       one = counted with the value 1 (torchmetrics' empty_target_action='pos'): the mean of
       the other groups, m, becomes (m * n_groups + n_empty) / (n_groups + n_empty) in
       `final` | error = the Python layer raises (first_empty names one).
     - missing group (qrels only): judged, but no row in the run. `missing`: skip = left out
       (trec_eval) | zero = kept, every metric 0 for it except idcg, which is the judgments'
       own (trec_eval -c) | error = the Python layer raises (first_missing names one).
       Without slices it belongs to the one overall slice. When the one slice column is the
       group column it forms its own slice (slice_0 = its id), as trec_eval -q -c prints a
       line for it. With other slices it has no slice value (those come from the run's rows)
       and enters no slice; the Python layer refuses missing = 'zero' there.
     A missing group with n_rel = 0 is kept only when both policies keep it.
  Output (`final`): slice columns, one column per entry (its name), n_groups (groups in the
  means), n_empty (empty groups of the slice) and, with empty = 'error', first_empty (text id
  of one empty group); with qrels also n_missing (missing groups of the whole run, the same
  on every row) and, with missing = 'error', first_missing, for the Python layer to raise.
#}

{#
  ranking rules (each ranking metric's header stands for them with its one line "Ranking
  rules: sql/_macros/kernels/ranking.sql (...)"; `sqlmetrics list <metric>` prints them there):

  Per group (user, query): items ordered by score desc; equal scores by item desc in its own
  type (ties="item_desc"), item asc ("item_asc"), item as text in byte order desc
  ("text_desc": trec_eval's strcmp, also for integer ids), or every order of the tied items
  equally likely ("average": the expected value, McSherry & Najork 2008; refused by the
  metrics without a closed form, as their headers say).
  Relevant: label >= relevance_level (default 1). Judged items: qrels if given (a run item
  absent from qrels has label 0; a run group absent from qrels is not evaluated), else the
  group's rows. n_rel = relevant judged items of the group, retrieved or not.
  judged_only=True (qrels only): the run's unjudged items are removed before ranking, the
  condensed list of Sakai (2007); a group left with no item is then missing.
  Empty group: n_rel = 0. empty: skip = left out of the mean (default) | zero = kept, a
  per-group 0/0 counting 0 (trec_eval) | error = raise.
  Missing group (qrels only): judged, no row in the run. missing: skip = left out (default;
  trec_eval) | zero = kept as a group that retrieved nothing (trec_eval -c) | error = raise.
  With by= the group column, a kept missing group is a slice of its own; with other slices it
  has no slice value and enters none (sql/_macros/kernels/ranking.sql).
  Each slice averages over its own groups: the groups of its rows (judged ones with qrels).
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  group_weight=: the mean over groups is sum_g W_g v_g / sum_g W_g (exact sums; W_g >= 0,
  one value per group); a slice whose kept groups all weigh 0 -> NULL (NaN). A kept group
  whose weight column varies within it (or is NULL on some of its rows: Python refuses both,
  dbt cannot check) has no weight, and its slice's values are NULL, never the mean with one
  of its values.
  Shared SQL: sql/_macros/kernels/ranking.sql (one row_number() sort per group for every metric).
#}

{# `pos <= k`, or a true condition for the whole list: the cut at k, applied by each metric's
   per-group terms (its <metric>_group_columns) #}
{% macro ranking_within(k, column='pos') -%}
{% if k is none %}1 = 1{% else %}{{ column }} <= {{ k }}{% endif %}
{%- endmacro %}

{# a mean over the kept groups of the per-group value `expr` (its exact_sum exponent `e`):
   sum_g v_g / n_groups; with group weights (options.group_weighted: the kernel's
   group_weight column gw, constant per group) sum_g W_g v_g / sum_g W_g, both sums exact
   (the exponent of W_g v_g is at most e + gw_exp, gw_exp the slice's largest weight's); a
   slice whose kept groups all weigh 0 has no value (NULL) #}
{% macro ranking_mean(expr, e, options) -%}
{% if options.get('group_weighted') -%}
{% set gw = options.get('weight_column', 'gw') %}
{{ sqlmetrics.exact_sum(gw ~ ' * (' ~ expr ~ ')', e ~ ' + ' ~ gw ~ '_exp') }} / nullif({{ sqlmetrics.exact_sum(gw, gw ~ '_exp') }}, 0)
{%- else -%}
{{ sqlmetrics.exact_sum(expr, e) }} / count(*)
{%- endif %}
{%- endmacro %}

{# the gain of a label: exponential 2^label - 1 (Burges et al. 2005) or linear; with
   options.gains (a map level -> gain, trec_eval's gain map) the mapped gain, a level not in
   the map keeping its own value as gain #}
{% macro ranking_gain(expr, options) -%}
{% if options.get('gains') %}(case {{ expr }}{% for level, value in options.gains.items() %} when {{ sqlmetrics.float_literal(level) }} then {{ sqlmetrics.float_literal(value) }}{% endfor %} else {{ expr }} end)
{%- elif options.gain == 'linear' %}{{ expr }}{% else %}(power({{ sqlmetrics.float_literal(2) }}, {{ expr }}) - 1){% endif %}
{%- endmacro %}

{# weight= on a mean over groups other than dcg/ndcg: the CTEs ending in `list_weights`
   (l_slice_i, l_grp, lw), from `source` (slice_i, grp, label, w and, with group_weighted, gw);
   the kernel's and the intervals' (ci_group_weights kind 'tfr') #}
{% macro ranking_list_weights(by, level, group_weighted) -%}
-- weight= on a mean over groups other than dcg/ndcg: TF-Ranking's per-list weight
-- (metrics_impl.py, _per_example_weights_to_per_list_weights(weights, relevance)):
--   W_g = sum_i w_i rel_i / sum_i rel_i over the list's items (rel_i = 1 when label >= the
--   relevance level), and a list with no relevant item gets the mean of W_g over the lists
--   of its slice that have one (0 when none has); with group_weight= the list's weight is
--   W_g times its group weight. Sums exact (exact_sum): the same bits in any row order.
list_items as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% if group_weighted %}
        gw,
{% endif %}
        case when label >= {{ level }} then w else 0 end as rw,
        case when label >= {{ level }} then 1 else 0 end as rel,
        {{ sqlmetrics.sum_exponent('case when label >= ' ~ level ~ ' then w else 0 end', by, ['grp']) }} as rw_exp
    from source
),
list_sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% if group_weighted %}
        max(gw) as gw,
{% endif %}
        {{ sqlmetrics.exact_sum('rw', 'rw_exp') }} as rw_sum,
        sum(rel) as n_rel_w
    from list_items
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
list_ratio_rows as (
    select list_sums.*, case when n_rel_w > 0 then rw_sum / n_rel_w end as lw_g
    from list_sums
),
{{ sqlmetrics.with_slice_exponents('list_ratios', 'list_ratio_rows', by, [('lw_g_exp', 'lw_g')]) }},
list_means as (
    select
        {{ sqlmetrics.slice_cols_as(by, 'm_') }}
        coalesce({{ sqlmetrics.exact_sum('lw_g', 'lw_g_exp') }} / nullif(count(lw_g), 0), 0) as lw_mean
    from list_ratios
    {{ sqlmetrics.group_by(by) }}
),
list_weights as (
    select {{ sqlmetrics.auc_broadcast('list_means') }}
        {{ sqlmetrics.slice_cols_as(by, 'l_') }}
        grp as l_grp,
        coalesce(lw_g, lw_mean){{ ' * gw' if group_weighted }} as lw
    from list_ratios
{% if by %}
    join list_means on {{ sqlmetrics.join_on_slices('list_ratios', 'list_means', by, [], 'm_') }}
{% else %}
    cross join list_means
{% endif %}
),
{%- endmacro %}


{# slice columns qualified by a table alias, named: `s.slice_0 as slice_0, ` (ClickHouse keeps the
   prefix in the name of an unnamed qualified column of a select over several joins) #}
{% macro slice_cols_of(alias, by) -%}
{% for col in by %}{{ alias }}.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}


{# The kernel: its stages in CTE order. `ctx` holds what the stages share, computed once from
   the columns, the options and the entries' needs. #}
{# what the weights cannot do (the Python layer refuses it first, with the same words:
   sqlmetrics/_metrics/ranking.py, check_weights; dbt meets these) #}
{% macro ranking_weight_checks(options, ctx) -%}
{% if (ctx.weight or ctx.list_weight) and (ctx.has_qrels or ctx.merge) %}
{{ exceptions.raise_compiler_error('ranking: weight= (per-item weights) is not supported with qrels= or duplicates merged (max, sum)') }}
{% endif %}
{% if ctx.list_weight and options.empty == 'one' %}
{{ exceptions.raise_compiler_error("ranking: weight= on a mean other than dcg/ndcg is not supported with empty='one'") }}
{% endif %}
{% if ctx.group_weight and (options.empty == 'one' or (ctx.has_qrels and options.missing == 'zero')) %}
{{ exceptions.raise_compiler_error("ranking: group_weight= is not supported with empty='one' nor with qrels= and missing='zero'") }}
{% endif %}
{%- endmacro %}

{% macro ranking_kernel(relation, by, columns, options, entries) -%}
{% set needs = [] %}{% for m in entries %}{% do needs.extend(m.needs) %}{% endfor %}
{# equal scores: by item in its own type (numbers as numbers), or with text_desc as text in
   byte order, descending (trec_eval's strcmp of docnos; an integer id as its digits).
   Per-row columns are computed only when an entry needs them (a window costs ~1-2 s on
   10M rows). #}
{% set ctx = {
    'has_qrels': columns.qrels_relation is defined and columns.qrels_relation is not none,
    'level': options.relevance_level,
    'merge': options.duplicates if options.duplicates != 'error' else none,
    'item_order': {'item_asc': 'item asc', 'text_desc': sqlmetrics.binary_text('item') ~ ' desc'}.get(options.ties, 'item desc'),
    'part': sqlmetrics.partition_by(by, ['grp']),
    'has_ideal': 'ideal' in needs,
    'need_cum': 'cum' in needs,
    'need_n_rel': 'n_rel' in needs,
    'need_gain': 'gain_exp' in needs,
    'need_judged': 'judged' in needs,
    'need_err': 'err' in needs,
    'judged_only': options.judged_only and columns.qrels_relation is defined and columns.qrels_relation is not none,
    'weight': columns.weight if columns.weight is defined and (entries | selectattr('metric', 'in', ['dcg', 'ndcg']) | list) else none,
    'list_weight': columns.weight if columns.weight is defined and (entries | rejectattr('metric', 'in', ['dcg', 'ndcg']) | list) else none,
    'group_weight': columns.group_weight if columns.group_weight is defined else none,
} %}
{{ sqlmetrics.ranking_weight_checks(options, ctx) }}
{# group weights: the value macros read options.group_weighted (ranking_mean) #}
{% if ctx.group_weight %}{% set weighted = {} %}{% do weighted.update(options) %}{% do weighted.update({'group_weighted': true}) %}{% set options = weighted %}{% endif %}
with {{ sqlmetrics.ranking_source(relation, by, columns, ctx) }}
{{ sqlmetrics.ranking_labelled(by, columns, ctx) }}
{% if options.ties != 'average' %}
{{ sqlmetrics.ranking_rank(by, options, ctx) }}
{% else %}
{{ sqlmetrics.ranking_rank_average(by, options, ctx) }}
{% endif %}
{{ sqlmetrics.ranking_group_terms(by, options, entries, ctx) }}
{% if ctx.has_ideal %}
{{ sqlmetrics.ranking_ideal(by, options, entries, ctx) }}
{% endif %}
{{ sqlmetrics.ranking_groups(by, columns, options, ctx) }}
{{ sqlmetrics.ranking_aggregate(by, options, entries, ctx) }}
{%- endmacro %}


{# Stage 1, the input: `source`, one row per retrieved item (slices, grp, item, score and,
   without qrels, label); with duplicates 'max' | 'sum' the rows as given are `impressions`
   and `source` merges repeated (group, item) pairs #}
{% macro ranking_source(relation, by, columns, ctx) -%}
{{ 'impressions' if ctx.merge else 'source' }} as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as grp,
        {{ columns.item }} as item,
{% if ctx.weight or ctx.list_weight %}
        cast({{ columns.weight }} as {{ sqlmetrics.float_type() }}) as w,
{% endif %}
{% if ctx.group_weight %}
        cast({{ columns.group_weight }} as {{ sqlmetrics.float_type() }}) as gw,
{% endif %}
        {{ sqlmetrics.score_value(columns.score) }} as score{{ ',' if not ctx.has_qrels }}
{% if not ctx.has_qrels %}
        cast({{ columns.label }} as {{ sqlmetrics.float_type() }}) as label
{% endif %}
    from {{ relation }}
),
{% if ctx.merge %}
-- duplicates='{{ ctx.merge }}': repeated (group, item) rows become one item with the highest
-- score and the {{ 'highest' if ctx.merge == 'max' else 'summed' }} label
source as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        item,
{% if ctx.group_weight %}
        max(gw) as gw,
{% endif %}
        max(score) as score{{ ',' if not ctx.has_qrels }}
{% if not ctx.has_qrels %}
        {{ ctx.merge }}(label) as label
{% endif %}
    from impressions
    {{ sqlmetrics.group_by(by, ['grp', 'item']) }}
),
{% endif %}
{%- endmacro %}


{# Stage 2, the judgments: `labelled`, the run's rows with their label and, as the entries
   need them, n_rel and n_nonrel; with qrels also `judged` and `judged_groups` #}
{% macro ranking_labelled(by, columns, ctx) -%}
{% if ctx.has_qrels %}
-- judgments; a run item absent from them has label 0; run groups absent from them are not
-- evaluated (nothing is judged), as trec_eval
judged as (
    select
        {{ columns.qrels_group }} as grp,
        {{ columns.qrels_item }} as item,
        cast({{ columns.qrels_label }} as {{ sqlmetrics.float_type() }}) as label
    from {{ columns.qrels_relation }}
),
judged_groups as (
    select
        grp,
        sum(case when label >= {{ ctx.level }} then 1 else 0 end) as n_rel{{ ',' if ctx.need_judged }}
{% if ctx.need_judged %}
        sum(case when label < {{ ctx.level }} then 1 else 0 end) as n_nonrel
{% endif %}
    from judged
    group by grp
),
labelled as (
    select
        {{ sqlmetrics.slice_cols_of('s', by) }}
        s.grp as grp,
        s.item as item,
        s.score as score,
        coalesce(j.label, 0) as label,
{% if ctx.need_judged %}
        case when j.item is null then 0 else 1 end as judged,
        g.n_nonrel as n_nonrel,
{% endif %}
        g.n_rel as n_rel
    from source as s
    join judged_groups as g on g.grp = s.grp
    left join judged as j on j.grp = s.grp and j.item = s.item
{% if ctx.judged_only %}
    -- judged_only: the condensed list, the unjudged items removed before ranking
    where j.item is not null
{% endif %}
),
{% else %}
labelled as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        item,
{% if ctx.weight %}
        w,
{% endif %}
        score,
        label{{ ',' if ctx.need_n_rel or ctx.need_judged }}
{% if ctx.need_judged %}
        sum(case when label < {{ ctx.level }} then 1 else 0 end) over ({{ ctx.part }}) as n_nonrel{{ ',' if ctx.need_n_rel }}
{% endif %}
{% if ctx.need_n_rel %}
        sum(case when label >= {{ ctx.level }} then 1 else 0 end) over ({{ ctx.part }}) as n_rel
{% endif %}
    from source
),
{% endif %}
{%- endmacro %}

{# Stage 3, rank (a total order: ties item_desc | item_asc | text_desc): `ordered` sorts each
   group once (score desc, then item) and `ranked` gives each row its per-position terms
   (the header's list: rel, gain, disc, ap_term, miss, p_first, ...) #}
{% macro ranking_rank(by, options, ctx) -%}
-- one sort per group: score desc, then item ({{ options.ties }}): a total order
ordered as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% if ctx.need_n_rel or ctx.has_qrels %}
        n_rel,
{% endif %}
{% if ctx.need_judged %}
        n_nonrel,
{% if ctx.has_qrels %}
        sum(judged) over (
            {{ ctx.part }} order by score desc, {{ ctx.item_order }}
            rows between unbounded preceding and current row
        ) as cum_judged,
{% endif %}
{% endif %}

        case when label >= {{ ctx.level }} then 1 else 0 end as relevant,
{% if ctx.weight %}
        -- weight=: the item's weight times its gain (rax's weighted gains)
        {{ sqlmetrics.ranking_gain('label', options) }} * w as gain,
{% else %}
        {{ sqlmetrics.ranking_gain('label', options) }} as gain,
{% endif %}
{% if ctx.need_err %}
        (power({{ sqlmetrics.float_literal(2) }}, label) - 1) / power({{ sqlmetrics.float_literal(2) }}, {{ sqlmetrics.float_literal(options.max_grade) }}) as err_r,
{% endif %}
{% if ctx.need_cum %}
        sum(case when label >= {{ ctx.level }} then {{ sqlmetrics.float_literal(1) }} else {{ sqlmetrics.float_literal(0) }} end) over (
            {{ ctx.part }} order by score desc, {{ ctx.item_order }}
            rows between unbounded preceding and current row
        ) as cum_rel,
{% endif %}
{% if ctx.need_gain %}
        {{ sqlmetrics.sum_exponent(sqlmetrics.ranking_gain('label', options) ~ (' * w' if ctx.weight else ''), by, ['grp'], 'score desc, ' ~ ctx.item_order) }}
            as gain_exp,
{% endif %}
        row_number() over ({{ ctx.part }} order by score desc, {{ ctx.item_order }}) as pos
    from labelled
),
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% if ctx.need_n_rel or ctx.has_qrels %}
        n_rel,
{% endif %}
{% if ctx.need_judged %}
        n_nonrel,
        {{ 'cum_judged' if ctx.has_qrels else 'pos as cum_judged' }},
{% endif %}
        pos,
        relevant,
        cast(relevant as {{ sqlmetrics.float_type() }}) as rel,
        gain,
{% if ctx.need_gain %}
        gain_exp,
{% endif %}
        ln({{ sqlmetrics.float_literal(2) }}) / ln(pos + {{ sqlmetrics.float_literal(1) }}) as disc,
{% if ctx.need_err %}
        err_r,
        exp(coalesce(sum(ln(1 - err_r)) over (
            {{ ctx.part }} order by pos rows between unbounded preceding and 1 preceding
        ), 0)) as err_reach,
{% endif %}
{% if ctx.need_cum %}
        relevant * cum_rel as ap_term,
        case when relevant = 1 and cum_rel = 1 then {{ sqlmetrics.float_literal(1) }} else {{ sqlmetrics.float_literal(0) }} end as p_first,
{% endif %}
        {{ sqlmetrics.float_literal(1) }} - relevant as miss
    from ordered
),
{%- endmacro %}

{# Stage 3, rank (ties = 'average'): `tied` finds each row's tie group, `tie_terms` its offset
   in it, and `ranked` the expectations over every order of the tied items (the header) #}
{% macro ranking_rank_average(by, options, ctx) -%}
-- tie groups: n = tied items, r = relevant among them; upto = items scored >= this one
tied as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        score,
{% if ctx.need_n_rel or ctx.has_qrels %}
        n_rel,
{% endif %}
        case when label >= {{ ctx.level }} then 1 else 0 end as relevant,
        row_number() over ({{ ctx.part }} order by score desc, item desc) as pos,
        count(*) over ({{ ctx.part }} order by score desc) as upto,
        sum(case when label >= {{ ctx.level }} then {{ sqlmetrics.float_literal(1) }} else {{ sqlmetrics.float_literal(0) }} end) over (
            {{ ctx.part }} order by score desc
        ) as rel_upto,
        count(*) over ({{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('score')]) }}) as tie_n,
        sum(case when label >= {{ ctx.level }} then {{ sqlmetrics.float_literal(1) }} else {{ sqlmetrics.float_literal(0) }} end) over (
            {{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('score')]) }}
        ) as tie_r,
{% if ctx.weight %}
        -- weight=: the mean weighted gain, summed in its own order: the same bits whatever
        -- the input order
        avg({{ sqlmetrics.ranking_gain('label', options) }} * w) over (
            {{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('score')]) }} order by {{ sqlmetrics.ranking_gain('label', options) }} * w
            rows between unbounded preceding and unbounded following
        ) as tie_gain
{% else %}
        -- summed in label order: the same bits whatever the input order
        avg({{ sqlmetrics.ranking_gain('label', options) }}) over (
            {{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('score')]) }} order by label
            rows between unbounded preceding and unbounded following
        ) as tie_gain
{% endif %}
    from labelled
),
-- t = offset of pos in its tie group; rel_above = relevant items scored strictly higher
tie_terms as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        score,
{% if ctx.need_n_rel or ctx.has_qrels %}
        n_rel,
{% endif %}
        pos,
        tie_n,
        tie_r,
        tie_gain,
        relevant,
        rel_upto - tie_r as rel_above,
        pos - (upto - tie_n) - 1 as t,
        (tie_n - tie_r - (pos - (upto - tie_n) - 1)) / (tie_n - (pos - (upto - tie_n) - 1))
            as miss
    from tied
),
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% if ctx.need_n_rel or ctx.has_qrels %}
        n_rel,
{% endif %}
        pos,
        relevant,
        tie_r / tie_n as rel,
        tie_gain as gain,
{% if ctx.need_gain %}
        {{ sqlmetrics.sum_exponent('tie_gain', by, ['grp']) }} as gain_exp,
{% endif %}
        ln({{ sqlmetrics.float_literal(2) }}) / ln(pos + {{ sqlmetrics.float_literal(1) }}) as disc,
        tie_r / tie_n * (1 + rel_above)
            + case when tie_n > 1 then t * tie_r * (tie_r - 1) / (tie_n * (tie_n - 1)) else 0 end
            as ap_term,
        case
            when rel_above = 0 and tie_r > 0 and coalesce(zero_before, 0) = 0
                then exp(coalesce(ln_miss_before, 0)) * tie_r / (tie_n - t)
            else {{ sqlmetrics.float_literal(0) }}
        end as p_first,
        miss
    from (
        -- over the whole group in position order: tie groups above the first one holding a
        -- relevant item have miss = 1 (ln 0), so for the rows where p_first can be > 0 this
        -- is the product over the earlier positions of their own tie group. Being the last
        -- window, it also hands each group's rows to run_groups in position order, so the
        -- per-group float sums are the same whatever the input order.
        select
            sum(ln(case when miss > 0 then miss else {{ sqlmetrics.float_literal(1) }} end)) over (
                {{ ctx.part }} order by pos rows between unbounded preceding and 1 preceding
            ) as ln_miss_before,
            sum(case when miss <= 0 then 1 else 0 end) over (
                {{ ctx.part }} order by pos rows between unbounded preceding and 1 preceding
            ) as zero_before,
            tie_terms.*
        from tie_terms
    ) as survival
),
{%- endmacro %}

{# Stage 4, per-group terms: `run_groups`, one row per (slice, group) with n_rel, n_ret and
   each entry's aggregates over its rows (cut at its k: ranking_within). With qrels its keys
   are r_slice_0, ..., r_grp: per_group joins it to `universe`, which has slice_0, ..., grp
   (join_on_slices: a NULL slice is a slice) #}
{% macro ranking_group_terms(by, options, entries, ctx) -%}
run_groups as (
    select
{% if ctx.has_qrels %}
        {{ sqlmetrics.slice_cols_as(by, 'r_') }}
        grp as r_grp,
{% else %}
        {{ sqlmetrics.slice_cols(by) }}
        grp,
{% endif %}
{# with n_rel on every row (need_n_rel, constant per group) it is a key: an aggregate named
   n_rel would shadow the column in the entries' aggregates on ClickHouse, where an alias wins
   over a column of the same name #}
{% if not ctx.has_qrels %}
        {{ 'n_rel' if ctx.need_n_rel else 'sum(relevant) as n_rel' }},
{% endif %}
{% for m in entries %}
{% set cols = sqlmetrics.ranking_group_columns(m.metric, m.alias ~ '_', m.k, by, options) %}
{% if cols | trim %}
        {{ cols }},
{% endif %}
{% endfor %}
        count(*) as n_ret
    from ranked
    {{ sqlmetrics.group_by(by, ['grp', 'n_rel'] if ctx.need_n_rel and not ctx.has_qrels else ['grp']) }}
),
{%- endmacro %}

{# Stage 4b, the ideal ordering (entries that need it): `ideal`, the judged items of positive
   gain in ideal order, one row per ideal position (ipos, gain, gain_exp), and `ideal_groups`,
   each entry's aggregates over them. With every such entry cut at k <= 100 (kmax, the
   largest), the items are counted per (group, label) instead of sorted: in the ideal order
   each label's items fill one run of positions, and only positions <= kmax are written out
   (ranking_ideal_counted); with a larger k or none, every item is sorted (ranking_ideal_sorted).
   Both give the same rows but for which item is at a position, and the same gains there. #}
{% macro ranking_ideal(by, options, entries, ctx) -%}
{% set cuts = [] %}
{% for m in entries if 'ideal' in m.needs %}{% do cuts.append(m.k) %}{% endfor %}
{% set by_ideal = by if not ctx.has_qrels else [] %}
{# with gains= the ideal order is by the mapped gain first (trec_eval's gain map) #}
{% set gain = sqlmetrics.ranking_gain('label', options) %}
{% set order = (gain ~ ' desc, ' if options.get('gains') else '') ~ 'label desc' %}
{% set positive = gain ~ ' > 0' if options.get('gains') else 'label > 0' %}
{% if ctx.weight %}
{# weight=: the ideal order is by weighted gain (rax's ideal DCG), every item sorted #}
{% set gain = gain ~ ' * w' %}
{% set order = gain ~ ' desc, label desc' %}
{% set positive = gain ~ ' > 0' %}
{% endif %}
{% if none not in cuts and cuts | max <= 100 and not ctx.weight %}
{{ sqlmetrics.ranking_ideal_counted(by_ideal, gain, positive, order, cuts | max, ctx) }}
{% else %}
{{ sqlmetrics.ranking_ideal_sorted(by_ideal, gain, positive, order ~ ', item', ctx) }}
{% endif %}
ideal_groups as (
    select
{% if not ctx.has_qrels %}
        {{ sqlmetrics.slice_cols_as(by, 'i_') }}
{% endif %}
{% for m in entries %}
{% if 'ideal' in m.needs %}
        {{ sqlmetrics.ranking_ideal_columns(m.metric, m.alias ~ '_', m.k, by_ideal, options) }},
{% endif %}
{% endfor %}
        grp as i_grp
    from ideal
    {{ sqlmetrics.group_by(by_ideal, ['grp']) }}
),
{%- endmacro %}

{# the ideal positions 1..kmax from counts: `ideal_runs`, one row per (group, label) of
   positive gain with its items' count and the positions before its run (in `order`), then
   `ideal`, each run's positions up to kmax joined from the integers 1..kmax #}
{% macro ranking_ideal_counted(by, gain, positive, order, kmax, ctx) -%}
-- the judged items of positive gain counted per label: in the ideal order ({{ order | replace('\n', ' ') }}) each
-- label's items fill one run of positions; only the first {{ kmax }} positions are needed
ideal_runs as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        gain,
        n_items,
        coalesce(sum(n_items) over (
            {{ sqlmetrics.partition_by(by, ['grp']) }} order by {{ order }}
            rows between unbounded preceding and 1 preceding
        ), 0) as before,
        {{ sqlmetrics.sum_exponent('gain', by, ['grp'], order) }}
            as gain_exp
    from (
        select
            {{ sqlmetrics.slice_cols(by) }}
            grp,
            label,
            {{ gain }} as gain,
            count(*) as n_items
        from {{ 'judged' if ctx.has_qrels else 'source' }}
        where {{ positive }}
        {{ sqlmetrics.group_by(by, ['grp', 'label']) }}
    ) as label_counts
),
ideal as (
    select
        {{ sqlmetrics.slice_cols_of('r', by) }}
        r.grp as grp,
        r.gain as gain,
        r.gain_exp as gain_exp,
        r.before + p.b as ipos
    from ideal_runs as r
    {# a cross join filtered, not `join ... on` inequalities: ClickHouse needs an equality in ON #}
    cross join ({{ sqlmetrics.integers(kmax) }}) as p
    where p.b <= r.n_items and r.before + p.b <= {{ kmax }}
),
{%- endmacro %}

{# every ideal position: the judged items of positive gain sorted (`order`: a total order) #}
{% macro ranking_ideal_sorted(by, gain, positive, order, ctx) -%}
-- the judged items of positive gain in ideal order ({{ order | replace('\n', ' ') }}: a total order)
ideal as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        {{ gain }} as gain,
        {{ sqlmetrics.sum_exponent(gain, by, ['grp'], order) }}
            as gain_exp,
        row_number() over (
            {{ sqlmetrics.partition_by(by, ['grp']) }} order by {{ order }}
        ) as ipos
    from {{ 'judged' if ctx.has_qrels else 'source' }}
    where {{ positive }}
),
{%- endmacro %}

{% macro ranking_group_weights(by) -%}
-- group_weight=: each (slice, group)'s weight W_g (the Python layer checked it is constant
-- within the group; dbt cannot: a weight that varies within its group, or is NULL on some
-- of its rows, is no weight: NULL here, and its slice's values are NULL in `aggregated`)
group_weights as (
    select
        {{ sqlmetrics.slice_cols_as(by, 'w_') }}
        grp as w_grp,
        case when min(gw) = max(gw) and count(gw) = count(*) then max(gw) end as gw
    from source
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
{%- endmacro %}

{# Stage 5, which groups: `per_group` (with qrels the judged groups of each slice, and the
   absent ones as `missing` says: `absent`, `absent_count`, `universe`) and `flagged`, each
   group marked empty (n_rel = 0) or not #}
{% macro ranking_groups(by, columns, options, ctx) -%}
{% if ctx.list_weight %}
{{ sqlmetrics.ranking_list_weights(by, ctx.level, ctx.group_weight) }}
{% endif %}
{% if ctx.group_weight %}
{{ sqlmetrics.ranking_group_weights(by) }}
{% endif %}
{% if ctx.has_qrels %}
-- judged groups the run has no row for (the header says which slice, if any, they enter)
absent as (
    select
        g.grp as grp
    from judged_groups as g
    where not exists (select 1 from run_groups as r where r.r_grp = g.grp)
),
absent_count as (
    select
{% if options.missing == 'error' %}
        min(cast(grp as {{ sqlmetrics.string_type() }})) as first_missing,
{% endif %}
        count(*) as n_missing
    from absent
),
-- each slice's judged groups (present in that slice's rows); with missing = 'zero' also the
-- absent ones (n_ret NULL): in the one slice, or in their own when the slice is the group
universe as (
    select
        {{ sqlmetrics.slice_cols_of('u', by) }}
        u.grp as grp,
        cast(g.n_rel as {{ sqlmetrics.float_type() }}) as n_rel
    from (
        select
{% for col in by %}
            r_slice_{{ loop.index0 }} as slice_{{ loop.index0 }},
{% endfor %}
            r_grp as grp
        from run_groups
{% if options.missing == 'zero' and (not by or (by | length == 1 and by[0] == columns.group)) %}
        union all
        select
            {{ 'grp as slice_0, ' if by }}grp
        from absent
{% endif %}
    ) as u
    join judged_groups as g on g.grp = u.grp
),
per_group as (
    select
        universe.*,
        run_groups.*{{ ',' if ctx.has_ideal }}
{% if ctx.has_ideal %}
        ideal_groups.*
{% endif %}
{% if ctx.group_weight %}
        , group_weights.gw as gw
{% endif %}
    from universe
    left join run_groups on {{ sqlmetrics.join_on_slices('universe', 'run_groups', by, ['grp'], 'r_') }}
{% if ctx.group_weight %}
    left join group_weights on {{ sqlmetrics.join_on_slices('universe', 'group_weights', by, ['grp'], 'w_') }}
{% endif %}
{% if ctx.has_ideal %}
    left join ideal_groups on universe.grp = ideal_groups.i_grp
{% endif %}
),
{% else %}
per_group as (
    select
        run_groups.*{{ ',' if ctx.has_ideal }}
{% if ctx.has_ideal %}
        ideal_groups.*
{% endif %}
{% if ctx.group_weight %}
        , group_weights.gw as gw
{% endif %}
{% if ctx.list_weight %}
        , list_weights.lw as lw
{% endif %}
    from run_groups
{% if ctx.has_ideal %}
    left join ideal_groups on {{ sqlmetrics.join_on_slices('run_groups', 'ideal_groups', by, ['grp'], 'i_') }}
{% endif %}
{% if ctx.group_weight %}
    join group_weights on {{ sqlmetrics.join_on_slices('run_groups', 'group_weights', by, ['grp'], 'w_') }}
{% endif %}
{% if ctx.list_weight %}
    join list_weights on {{ sqlmetrics.join_on_slices('run_groups', 'list_weights', by, ['grp'], 'l_') }}
{% endif %}
),
{% endif %}
flagged as (
    select
        per_group.*,
        case when n_rel = 0 then 1 else 0 end as is_empty
    from per_group
),
{%- endmacro %}

{# Stage 6, aggregate: `kept` (the groups the means average over, as `empty` says), each
   entry's value over them (`aggregated`), the empty groups (`counted`) and `final` #}
{% macro ranking_aggregate(by, options, entries, ctx) -%}
{% set exps = [] %}
{% for m in entries %}
{% set exp = sqlmetrics.ranking_mean_exponent(m.metric, m.alias ~ '_') | trim %}
{% if exp %}
{% do exps.append((m.alias ~ '_exp', exp)) %}
{% endif %}
{% endfor %}
{% if ctx.group_weight %}
{% do exps.append(('gw_exp', 'gw')) %}
{% endif %}
{% if ctx.list_weight %}
{% do exps.append(('lw_exp', 'lw')) %}
{% endif %}
{{ 'kept_rows' if exps else 'kept' }} as (
    select *
    from flagged
{% if options.empty in ('skip', 'one') %}
    where is_empty = 0
{% endif %}
),
{% if exps %}
-- {p}exp: the slice's largest per-group value's exponent (<metric>_mean_exponent)
{{ sqlmetrics.with_slice_exponents('kept', 'kept_rows', by, exps) }},
{% endif %}
aggregated as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for m in entries %}
{% if ctx.list_weight and m.metric not in ('dcg', 'ndcg') %}
{# weight=: the mean weighted by the list's TF-Ranking weight (lw, times group_weight's) #}
{% set m_options = {} %}
{% do m_options.update(options) %}
{% do m_options.update({'group_weighted': true, 'weight_column': 'lw'}) %}
{% else %}
{% set m_options = options %}
{% endif %}
        case when count(*) > 0{{ ' and count(gw) = count(*)' if ctx.group_weight }} then {{ sqlmetrics.ranking_value(m.metric, m.alias ~ '_', m.k, m_options) }} end
            as {{ m.alias }},
{% endfor %}
        count(*) as n_groups
    from kept
    {{ sqlmetrics.group_by(by) }}
),
counted as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if options.empty == 'error' %}
        min(case when is_empty = 1 then cast(grp as {{ sqlmetrics.string_type() }}) end) as first_empty,
{% endif %}
        sum(is_empty) as n_empty
    from flagged
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols_of('counted', by) }}
{% for m in entries %}
{% if options.empty == 'one' %}
        -- empty='one': each empty group adds a value of 1 to the mean of the others
        (coalesce(aggregated.{{ m.alias }}, 0) * coalesce(aggregated.n_groups, 0)
            + cast(counted.n_empty as {{ sqlmetrics.float_type() }}))
            / nullif(coalesce(aggregated.n_groups, 0) + counted.n_empty, 0) as {{ m.alias }},
{% else %}
        aggregated.{{ m.alias }},
{% endif %}
{% endfor %}
{% if options.empty == 'one' %}
        coalesce(aggregated.n_groups, 0) + counted.n_empty as n_groups,
{% else %}
        coalesce(aggregated.n_groups, 0) as n_groups,
{% endif %}
{% if options.empty == 'error' %}
        counted.first_empty as first_empty,
{% endif %}
{% if ctx.has_qrels %}
{% if options.missing == 'error' %}
        absent_count.first_missing as first_missing,
{% endif %}
        absent_count.n_missing as n_missing,
{% endif %}
        counted.n_empty as n_empty
    from counted
{% if by %}
    left join aggregated on {{ sqlmetrics.join_on_slices('counted', 'aggregated', by) }}
{% else %}
    cross join aggregated
{% endif %}
{% if ctx.has_qrels %}
    cross join absent_count
{% endif %}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
