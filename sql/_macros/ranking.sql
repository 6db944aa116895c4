{#
  Shared query of the ranking family (decision 0001, and 0002 for the SQL choices).

  query(metrics) renders one statement computing several ranking metrics over one sort.
  metrics: a list of entries, each a mapping with
     name           output column (a generated alias such as m0_ndcg or the metric's name)
     k              cut-off: an integer >= 1, or none for the whole list
     group_columns  macro (p, k): aggregates over the `ranked` rows of one group, each aliased
                    with the prefix p (e.g. `sum(...) as {{ p }}dcg`), comma separated; sums of
                    non-integer terms are c.exact_sum (exponent 0 for terms in [0, 1],
                    gain_exp for gain terms), so that a group's rows split between threads
                    give the same bits
     value          macro (p, k): an aggregate over the per-group rows giving the metric; it
                    may read its own columns and n_rel, n_ret (see below); it must count a
                    per-group 0/0 as 0 (empty="zero" keeps such groups; "skip" never sees one).
                    Float sums over groups are c.exact_sum: with exponent 0 for values in
                    [0, 1]; otherwise group_columns also emits {p}exp, c.sum_exponent of its
                    per-group column over the slice's grouped rows (dcg, cg, idcg)
     ideal_columns  optional macro (p, k): aggregates over the `ideal` rows of one group
                    (ipos, gain), e.g. the ideal DCG; only metrics that need it define it
  Each entry gets the prefix m<i>_ (i = its index in the list).

  Context read (the template context of any ranking metric; optional ones have defaults):
     relation, group, item, score, label (none when qrels is given), by,
     qrels_relation, qrels_group, qrels_item, qrels_label (optional: the judgments),
     relevance_level (default 1), ties (default 'item_desc'), gain (default 'exponential'),
     empty (default 'skip'), missing (required with qrels: skip | zero | error; its default
     lives in Python only), duplicates (default 'error': the Python layer has checked that
     (group, item) pairs do not repeat; 'max' | 'sum' merge repeated pairs of the run in
     `source`: highest score, highest | summed label).

  Scores are ordered in their own type (never cast): integers above 2^53 keep their order.
  CTE chain: source -> [judged, judged_groups] -> labelled -> ranked -> run_groups
             -> [ideal -> ideal_groups] -> per_group -> kept -> aggregated -> final.
  Per row of `ranked` (one row per retrieved item; `pos` its 1-based position):
     rel      relevance (label >= relevance_level) at pos: 0/1, or its expectation (ties average)
     gain     gain of the label at pos (exponential 2^label - 1 | linear label), or its expectation
     gain_exp ceil(log2 max gain) of the group (c.sum_exponent), only when a metric's
              group_columns mention it: the exponent of its exact_sum of gain terms
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
       error = the Python layer raises (first_empty names one).
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
{% import "_macros/common.sql" as c %}

{# `pos <= k`, or a true condition for the whole list #}
{% macro within(k, column='pos') -%}
{% if k is none %}1 = 1{% else %}{{ column }} <= {{ k }}{% endif %}
{%- endmacro %}

{# the gain of a label: exponential 2^label - 1 (Burges et al. 2005) or linear #}
{% macro gain_of(expr, kind) -%}
{% if kind == 'linear' %}{{ expr }}{% else %}(power(2.0, {{ expr }}) - 1){% endif %}
{%- endmacro %}

{# slice columns qualified by a table alias: `s.slice_0, s.slice_1, ` #}
{% macro slice_cols_of(alias, by) -%}
{% for col in by %}{{ alias }}.slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{# `slice_0, slice_1, grp` for using (...) #}
{% macro keys(by, with_group=true) -%}
{% set cols = [] %}
{% for col in by %}{% do cols.append('slice_' ~ loop.index0) %}{% endfor %}
{% if with_group %}{% do cols.append('grp') %}{% endif %}
{{ cols | join(', ') }}
{%- endmacro %}

{% macro query(metrics) -%}
{% set has_qrels = qrels_relation is defined and qrels_relation is not none %}
{% set level = relevance_level if relevance_level is defined else 1 %}
{% set tie_policy = ties if ties is defined else 'item_desc' %}
{% set gain_kind = gain if gain is defined else 'exponential' %}
{% set empty_policy = empty if empty is defined else 'skip' %}
{% set merge = duplicates if duplicates is defined and duplicates != 'error' else none %}
{% set item_order = 'item asc' if tie_policy == 'item_asc' else 'item desc' %}
{% set part = c.partition_by(by, ['grp']) %}
{% set has_ideal = [] %}
{% for m in metrics %}{% if m.ideal_columns is defined and m.ideal_columns is not none %}{% do has_ideal.append(1) %}{% endif %}{% endfor %}
{# per-row columns are computed only when a metric reads them (a window costs ~1-2 s on 10M rows) #}
{% set used_text = [] %}
{% for m in metrics %}{% do used_text.append(m.group_columns('m' ~ loop.index0 ~ '_', m.k)) %}{% endfor %}
{% set used = used_text | join(' ') %}
{% set need_cum = 'ap_term' in used or 'p_first' in used %}
{% set need_n_rel = 'n_rel' in used %}
{% set need_gain = 'gain_exp' in used %}
with {{ 'impressions' if merge else 'source' }} as (
    select
        {{ c.slice_source(by) }}
        {{ group }} as grp,
        {{ item }} as item,
        {{ score }} as score{{ ',' if not has_qrels }}
{% if not has_qrels %}
        cast({{ label }} as double) as label
{% endif %}
    from {{ relation }}
),
{% if merge %}
-- duplicates='{{ merge }}': repeated (group, item) rows become one item with the highest
-- score and the {{ 'highest' if merge == 'max' else 'summed' }} label
source as (
    select
        {{ c.slice_cols(by) }}
        grp,
        item,
        max(score) as score{{ ',' if not has_qrels }}
{% if not has_qrels %}
        {{ merge }}(label) as label
{% endif %}
    from impressions
    {{ c.group_by(by, ['grp', 'item']) }}
),
{% endif %}
{% if has_qrels %}
-- judgments; a run item absent from them has label 0; run groups absent from them are not
-- evaluated (nothing is judged), as trec_eval
judged as (
    select
        {{ qrels_group }} as grp,
        {{ qrels_item }} as item,
        cast({{ qrels_label }} as double) as label
    from {{ qrels_relation }}
),
judged_groups as (
    select
        grp,
        sum(case when label >= {{ level }} then 1 else 0 end) as n_rel
    from judged
    group by grp
),
labelled as (
    select
        {{ slice_cols_of('s', by) }}
        s.grp,
        s.item,
        s.score,
        coalesce(j.label, 0) as label,
        g.n_rel
    from source as s
    join judged_groups as g on g.grp = s.grp
    left join judged as j on j.grp = s.grp and j.item = s.item
),
{% else %}
labelled as (
    select
        {{ c.slice_cols(by) }}
        grp,
        item,
        score,
        label{{ ',' if need_n_rel }}
{% if need_n_rel %}
        sum(case when label >= {{ level }} then 1 else 0 end) over ({{ part }}) as n_rel
{% endif %}
    from source
),
{% endif %}
{% if tie_policy != 'average' %}
-- one sort per group: score desc, then item ({{ tie_policy }}): a total order
ordered as (
    select
        {{ c.slice_cols(by) }}
        grp,
{% if need_n_rel or has_qrels %}
        n_rel,
{% endif %}
        case when label >= {{ level }} then 1 else 0 end as relevant,
        {{ gain_of('label', gain_kind) }} as gain,
{% if need_cum %}
        sum(case when label >= {{ level }} then 1.0 else 0.0 end) over (
            {{ part }} order by score desc, {{ item_order }}
            rows between unbounded preceding and current row
        ) as cum_rel,
{% endif %}
        row_number() over ({{ part }} order by score desc, {{ item_order }}) as pos
    from labelled
),
ranked as (
    select
        {{ c.slice_cols(by) }}
        grp,
{% if need_n_rel or has_qrels %}
        n_rel,
{% endif %}
        pos,
        relevant,
        cast(relevant as double) as rel,
        gain,
{% if need_gain %}
        {{ c.sum_exponent('gain', by, ['grp']) }} as gain_exp,
{% endif %}
        ln(2.0) / ln(pos + 1.0) as disc,
{% if need_cum %}
        relevant * cum_rel as ap_term,
        case when relevant = 1 and cum_rel = 1 then 1.0 else 0.0 end as p_first,
{% endif %}
        1.0 - relevant as miss
    from ordered
),
{% else %}
-- tie groups: n = tied items, r = relevant among them; upto = items scored >= this one
tied as (
    select
        {{ c.slice_cols(by) }}
        grp,
        score,
{% if need_n_rel or has_qrels %}
        n_rel,
{% endif %}
        case when label >= {{ level }} then 1 else 0 end as relevant,
        row_number() over ({{ part }} order by score desc, item desc) as pos,
        count(*) over ({{ part }} order by score desc) as upto,
        sum(case when label >= {{ level }} then 1.0 else 0.0 end) over (
            {{ part }} order by score desc
        ) as rel_upto,
        count(*) over ({{ c.partition_by(by, ['grp', 'score']) }}) as tie_n,
        sum(case when label >= {{ level }} then 1.0 else 0.0 end) over (
            {{ c.partition_by(by, ['grp', 'score']) }}
        ) as tie_r,
        -- summed in label order: the same bits whatever the input order
        avg({{ gain_of('label', gain_kind) }}) over (
            {{ c.partition_by(by, ['grp', 'score']) }} order by label
            rows between unbounded preceding and unbounded following
        ) as tie_gain
    from labelled
),
-- t = offset of pos in its tie group; rel_above = relevant items scored strictly higher
tie_terms as (
    select
        {{ c.slice_cols(by) }}
        grp,
        score,
{% if need_n_rel or has_qrels %}
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
        {{ c.slice_cols(by) }}
        grp,
{% if need_n_rel or has_qrels %}
        n_rel,
{% endif %}
        pos,
        relevant,
        tie_r / tie_n as rel,
        tie_gain as gain,
{% if need_gain %}
        {{ c.sum_exponent('tie_gain', by, ['grp']) }} as gain_exp,
{% endif %}
        ln(2.0) / ln(pos + 1.0) as disc,
        tie_r / tie_n * (1 + rel_above)
            + case when tie_n > 1 then t * tie_r * (tie_r - 1) / (tie_n * (tie_n - 1)) else 0 end
            as ap_term,
        case
            when rel_above = 0 and tie_r > 0 and coalesce(zero_before, 0) = 0
                then exp(coalesce(ln_miss_before, 0)) * tie_r / (tie_n - t)
            else 0.0
        end as p_first,
        miss
    from (
        -- over the whole group in position order: tie groups above the first one holding a
        -- relevant item have miss = 1 (ln 0), so for the rows where p_first can be > 0 this
        -- is the product over the earlier positions of their own tie group. Being the last
        -- window, it also hands each group's rows to run_groups in position order, so the
        -- per-group float sums are the same whatever the input order.
        select
            sum(ln(case when miss > 0 then miss else 1.0 end)) over (
                {{ part }} order by pos rows between unbounded preceding and 1 preceding
            ) as ln_miss_before,
            sum(case when miss <= 0 then 1 else 0 end) over (
                {{ part }} order by pos rows between unbounded preceding and 1 preceding
            ) as zero_before,
            tie_terms.*
        from tie_terms
    ) as survival
),
{% endif %}
run_groups as (
    select
        {{ c.slice_cols(by) }}
        grp,
{% if not has_qrels %}
        sum(relevant) as n_rel,
{% endif %}
{% for m in metrics %}
{% set cols = m.group_columns('m' ~ loop.index0 ~ '_', m.k) %}
{% if cols | trim %}
        {{ cols }},
{% endif %}
{% endfor %}
        count(*) as n_ret
    from ranked
    {{ c.group_by(by, ['grp']) }}
),
{% if has_ideal %}
-- the judged items of positive gain in ideal order (label desc, then item: a total order)
ideal as (
    select
{% if not has_qrels %}
        {{ c.slice_cols(by) }}
{% endif %}
        grp,
        {{ gain_of('label', gain_kind) }} as gain,
        {{ c.sum_exponent(gain_of('label', gain_kind), by if not has_qrels else [], ['grp']) }}
            as gain_exp,
        row_number() over (
            {{ c.partition_by(by if not has_qrels else [], ['grp']) }} order by label desc, item
        ) as ipos
    from {{ 'judged' if has_qrels else 'source' }}
    where label > 0
),
ideal_groups as (
    select
{% if not has_qrels %}
        {{ c.slice_cols(by) }}
{% endif %}
{% for m in metrics %}
{% if m.ideal_columns is defined and m.ideal_columns is not none %}
        {{ m.ideal_columns('m' ~ loop.index0 ~ '_', m.k) }},
{% endif %}
{% endfor %}
        grp
    from ideal
    {{ c.group_by(by if not has_qrels else [], ['grp']) }}
),
{% endif %}
{% if has_qrels %}
-- judged groups the run has no row for (the header says which slice, if any, they enter)
absent as (
    select
        g.grp
    from judged_groups as g
    where not exists (select 1 from run_groups as r where r.grp = g.grp)
),
absent_count as (
    select
{% if missing == 'error' %}
        min(cast(grp as varchar)) as first_missing,
{% endif %}
        count(*) as n_missing
    from absent
),
-- each slice's judged groups (present in that slice's rows); with missing = 'zero' also the
-- absent ones (n_ret NULL): in the one slice, or in their own when the slice is the group
universe as (
    select
        {{ slice_cols_of('u', by) }}
        u.grp,
        cast(g.n_rel as double) as n_rel
    from (
        select
            {{ keys(by) }}
        from run_groups
{% if missing == 'zero' and (not by or (by | length == 1 and by[0] == group)) %}
        union all
        select
            {{ 'grp as slice_0, ' if by }}grp
        from absent
{% endif %}
    ) as u
    join judged_groups as g on g.grp = u.grp
),
per_group as (
    select *
    from universe
    left join run_groups using ({{ keys(by) }})
{% if has_ideal %}
    left join ideal_groups using (grp)
{% endif %}
),
{% else %}
per_group as (
    select *
    from run_groups
{% if has_ideal %}
    left join ideal_groups using ({{ keys(by) }})
{% endif %}
),
{% endif %}
flagged as (
    select
        per_group.*,
        case when n_rel = 0 then 1 else 0 end as is_empty
    from per_group
),
kept as (
    select *
    from flagged
{% if empty_policy == 'skip' %}
    where is_empty = 0
{% endif %}
),
aggregated as (
    select
        {{ c.slice_cols(by) }}
{% for m in metrics %}
        case when count(*) > 0 then {{ m.value('m' ~ loop.index0 ~ '_', m.k) }} end
            as {{ m.name }},
{% endfor %}
        count(*) as n_groups
    from kept
    {{ c.group_by(by) }}
),
counted as (
    select
        {{ c.slice_cols(by) }}
{% if empty_policy == 'error' %}
        min(case when is_empty = 1 then cast(grp as varchar) end) as first_empty,
{% endif %}
        sum(is_empty) as n_empty
    from flagged
    {{ c.group_by(by) }}
),
final as (
    select
        {{ slice_cols_of('counted', by) }}
{% for m in metrics %}
        aggregated.{{ m.name }},
{% endfor %}
        coalesce(aggregated.n_groups, 0) as n_groups,
{% if empty_policy == 'error' %}
        counted.first_empty,
{% endif %}
{% if has_qrels %}
{% if missing == 'error' %}
        absent_count.first_missing,
{% endif %}
        absent_count.n_missing,
{% endif %}
        counted.n_empty
    from counted
{% if by %}
    left join aggregated using ({{ keys(by, false) }})
{% else %}
    cross join aggregated
{% endif %}
{% if has_qrels %}
    cross join absent_count
{% endif %}
)
select * from final
{{ c.order_by(by) }}
{%- endmacro %}
