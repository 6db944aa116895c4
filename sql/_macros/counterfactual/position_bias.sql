{#
  Position bias in click logs (issue 43): the examination propensities of the positions
  (sqlmetrics.position_propensities) and click metrics of a new ranking weighted by their
  inverses (sqlmetrics.click_metrics).

  Model (the examination hypothesis, Richardson et al. 2007; Joachims, Swaminathan & Schnabel
  2017): an item shown at position k is clicked iff it is examined and relevant,
     P(click | item d at k) = p_k * P(relevant d),
  examination independent of relevance; p_k depends on the position alone (not on the query,
  the item, the user or the other items shown). A click is 0 or 1.

  position_propensities: the RandTop-n estimator (Wang, Bendersky, Metzler & Najork 2016,
  "Learning to Rank with Selection Bias in Personal Search"; Joachims et al. 2017).
  The log's rows are impressions (one item at one position); `intervention` marks the rows
  of the randomised impressions, whose top n = max_position items were shown in a uniformly
  random order (every row when no intervention column is given). Over those rows with
  position <= n, per slice (a NULL slice is a slice) and position k:
     impressions_k = rows at k,   clicks_k = clicked rows at k,   ctr_k = clicks_k / impressions_k
     propensity_k  = ctr_k / ctr_1            (p_k relative to p_1: p_1 = 1)
  Why: under the randomisation the item at k is a uniform draw from the impression's top n,
  so E[P(relevant)] is the same at every k <= n, and E[ctr_k] = p_k E[rel]: the ratio cancels
  E[rel]. Assumptions beyond the model: the order of the top n is uniform and independent
  of everything else; every randomised impression shows at least n items (else the lists
  that reach k differ from those that do not); the randomised traffic is representative.
  Interval (lo, hi at level L, options.z = Phi^-1((1 + L) / 2)): the log (Katz) interval of a
  ratio of two proportions, taking positions k and 1 as independent binomials:
     se = sqrt(1 / clicks_k - 1 / impressions_k + 1 / clicks_1 - 1 / impressions_1)
     lo, hi = propensity_k exp(-+ z se);   position 1: [1, 1]
  Undefined (NULL): every propensity of a slice with no click at position 1 (or no
  impression there); lo and hi when clicks_k = 0. A position with impressions and no click
  has propensity 0. Positions with no randomised impression have no row.
  Output, ordered by the slices (NULL last) and position: slice_0.., position, propensity,
  lo, hi, clicks, impressions, ctr.

  click_metrics: inverse propensity scoring (Joachims et al. 2017; Agarwal, Wang, Li,
  Bendersky & Najork 2019, "Estimating Position Bias without Intrusive Interventions"). The
  log's rows are (group, item) impressions with their logged position, click and p = the
  propensity of the logged position. A new ranker's score reorders each group's logged
  items: rank r = 1, 2, ... by score descending. Per group g, w = click / p (0 unclicked):
     hits_g   = sum_{r <= k} w               clicks_g = sum w
     ctr@k_g    = hits_g / k   (k = None: / the group's rows; a short list still / k)
     dcg@k_g    = sum_{r <= k} w / log2(1 + r)
     recall@k_g = hits_g / clicks_g          (undefined when the group has no click)
  Under the model, with p the true propensities, E[w] = P(relevant): ctr@k is the unbiased
  estimate of precision@k, dcg@k of the DCG@k with binary (linear) gain, for the relevance
  the clicks reveal; recall@k is a ratio estimate (consistent, not unbiased). It needs
  p > 0 at every position that has a click (an item never examined has no estimate).
  Ties in the new score: the expected value over every order of the tied items, all equally
  likely (the library's ties="average", McSherry & Najork 2008): a tie group of n items
  takes the positions a+1..a+n (a = items scored strictly higher) and each of its rows
  counts the group's mean weight W/n at one of them (W = sum of the group's w).
  Mean over groups, per slice: ctr@k and dcg@k over every group (a group with no click
  counts 0: the estimator averages over all logged queries); recall@k over the groups with a
  click (NULL when the slice has none). Every float sum is an exact_sum (decision 0006): per
  slice one exponent of w and one of each per-group value, so shuffles and thread counts
  change no bit.
  Output, ordered by the slices (NULL last): slice_0.., the metrics asked for (mean_ctr,
  mean_dcg, mean_recall: ClickHouse reads an alias equal to a column inside the aggregate
  of that column as the alias), n_groups, n_clicked_groups, n_rows, n_clicks.

  The macros are named after their estimators, not after the Python functions: the dbt
  macros sqlmetrics.position_propensities and sqlmetrics.click_metrics (dbt/macros/api/
  position_bias.sql) take the Python names, check the arguments and call these.
  rand_top_n_propensities(relation, by, columns, options)     (position_propensities)
     columns  position, click, intervention (quoted; intervention none: every row)
     options  max_position (none: every position), z, intervention_bool (the intervention
              column is a boolean: the rows where it is true; else the rows where it is 1)
  ips_click_metrics(relation, by, columns, options)           (click_metrics)
     columns  group, position, click, score, propensity (a quoted column, or none)
     options  k (none: the whole list), metrics (names), propensities (with no propensity
              column: a list of [position, p], rendered as literals)
#}

{% macro rand_top_n_propensities(relation, by, columns, options) -%}
{% set f = sqlmetrics.float_type() %}
with src as (
    select {{ sqlmetrics.slice_source(by) }}cast({{ columns.position }} as bigint) as pos,
        cast({{ columns.click }} as bigint) as c
    from {{ relation }}
    where 1 = 1
{% if columns.intervention %}
        and {{ columns.intervention ~ ('' if options.intervention_bool else ' = 1') }}
{% endif %}
{% if options.max_position is not none %}
        and {{ columns.position }} <= {{ options.max_position }}
{% endif %}
),
counts as (
    select {{ sqlmetrics.slice_cols(by) }}pos, count(*) as n, sum(c) as clicks
    from src
    {{ sqlmetrics.group_by(by, ['pos']) }}
),
tops as (
    select {{ sqlmetrics.slice_cols_as(by, 't_') }}n as n1, clicks as clicks1
    from counts
    where pos = 1
),
rated as (
    select counts.*, tops.n1, tops.clicks1,
        cast(counts.clicks as {{ f }}) / counts.n as ctr,
        case when tops.clicks1 > 0 then (cast(counts.clicks as {{ f }}) / counts.n) / (cast(tops.clicks1 as {{ f }}) / tops.n1) end as rr,
        case when counts.clicks > 0 and tops.clicks1 > 0 then sqrt(
            {{ sqlmetrics.float_literal(1) }} / counts.clicks - {{ sqlmetrics.float_literal(1) }} / counts.n
            + {{ sqlmetrics.float_literal(1) }} / tops.clicks1 - {{ sqlmetrics.float_literal(1) }} / tops.n1) end as se
    from counts
    left join tops on {{ sqlmetrics.join_on_slices('counts', 'tops', by, prefix='t_') }}
)
select {{ sqlmetrics.slice_cols(by) }}pos as position,
    rr as propensity,
    case when pos = 1 then rr when se is not null then rr * exp(-{{ sqlmetrics.float_literal(options.z) }} * se) end as lo,
    case when pos = 1 then rr when se is not null then rr * exp({{ sqlmetrics.float_literal(options.z) }} * se) end as hi,
    clicks,
    n as impressions,
    ctr
from rated
order by {{ sqlmetrics.slice_order(by) }}pos
{%- endmacro %}

{% macro position_propensity_of(columns, options) -%}
{% if columns.propensity %}
cast({{ columns.propensity }} as {{ sqlmetrics.float_type() }})
{%- else %}
case{% for pos, p in options.propensities %} when {{ columns.position }} = {{ pos }} then {{ sqlmetrics.float_literal(p) }}{% endfor %} end
{%- endif %}
{%- endmacro %}

{% macro ips_click_metrics(relation, by, columns, options) -%}
{% set f = sqlmetrics.float_type() %}
{% set within = sqlmetrics.ranking_within(options.k, 'r') %}
with src as (
    select {{ sqlmetrics.slice_source(by) }}{{ columns.group }} as grp, {{ columns.score }} as score,
        cast({{ columns.click }} as bigint) as c,
        case when {{ columns.click }} = 1 then {{ sqlmetrics.float_literal(1) }} / {{ sqlmetrics.position_propensity_of(columns, options) }} else {{ sqlmetrics.float_literal(0) }} end as w
    from {{ relation }}
),
{{ sqlmetrics.with_slice_exponents('weighted', 'src', by, [('e_w', 'w')]) }},
ties as (
    select {{ sqlmetrics.slice_cols_as(by, 't_') }}grp as t_grp, score as t_score,
        {{ sqlmetrics.exact_sum('w', 'e_w') }} / count(*) as tw
    from weighted
    {{ sqlmetrics.group_by(by, ['grp', 'score']) }}
),
ranked as (
    select weighted.*, ties.tw,
        row_number() over ({{ sqlmetrics.window(by, 'score desc', ['grp']) }}) as r
    from weighted
    join ties on {{ sqlmetrics.join_on_slices('weighted', 'ties', by, ['grp', 'score'], prefix='t_') }}
),
per_group as (
    select {{ sqlmetrics.slice_cols(by) }}grp, count(*) as n_items, sum(c) as clicks,
        {{ sqlmetrics.exact_sum('w', 'e_w') }} as tot,
        {{ sqlmetrics.exact_sum('case when ' ~ within ~ ' then tw else ' ~ sqlmetrics.float_literal(0) ~ ' end', 'e_w') }} as hits,
        {{ sqlmetrics.exact_sum('case when ' ~ within ~ ' then tw * ln(' ~ sqlmetrics.float_literal(2) ~ ') / ln(r + 1) else ' ~ sqlmetrics.float_literal(0) ~ ' end', 'e_w') }} as dcg
    from ranked
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
valued as (
    select {{ sqlmetrics.slice_cols(by) }}n_items, clicks, dcg,
        hits / {{ options.k if options.k is not none else 'n_items' }} as ctr,
        case when clicks > 0 then hits / tot end as recall
    from per_group
),
{{ sqlmetrics.with_slice_exponents('groups', 'valued', by, [('e_ctr', 'ctr'), ('e_dcg', 'dcg')]) }}
select {{ sqlmetrics.slice_cols(by) }}
{% for m in options.metrics %}
{% if m == 'recall' %}
    {{ sqlmetrics.exact_sum('recall', 0) }} / nullif(count(recall), 0) as mean_recall,
{% else %}
    {{ sqlmetrics.exact_sum(m, 'e_' ~ m) }} / count(*) as mean_{{ m }},
{% endif %}
{% endfor %}
    count(*) as n_groups,
    count(recall) as n_clicked_groups,
    sum(n_items) as n_rows,
    sum(clicks) as n_clicks
from groups
{{ sqlmetrics.group_by(by) }}
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
