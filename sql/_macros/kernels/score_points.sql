{#
  score_points_kernel(relation, by, columns, options, entries): ks_statistic, partial_auc and
  the operating points recall_at_precision, precision_at_recall, tpr_at_fpr
  (sql/classification/), every requested one over one pass of the score points below
  (decision 0007). Each metric's file holds its CTEs after `points` (<metric>_ctes) and its
  value (<metric>_value); score_points_value calls them by name. Output: one row per slice;
  one column per entry alias, then ks_statistic's threshold, tpr, fpr when it is requested,
  partial_auc's n_pos, n_neg when it is, and <metric>_threshold for each operating point
  requested. No entry (ks_point): ks_statistic, threshold, tpr, fpr. Several: the first
  one's per-slice CTE (`at_best`, `areas`, `<metric>_best`) joined with the others' on the
  slices (one row per slice each, NULL slices included).

  score_points_ctes(relation, by, columns, options): the ROC points of a binary score, one
  per slice and distinct score. CTEs (each followed by a comma) `points_source`, `per_score`,
  `points`:
     tp(s) = sum_{score_i >= s} w_i y_i,  fp(s) = sum_{score_i >= s} w_i (1 - y_i)
     P = tp at the lowest score, N = fp at the lowest score
     tpr = tp / P, fpr = fp / N (NULL when P = 0, resp. N = 0)
     prev_tpr, prev_fpr: the point of the next higher distinct score, (0, 0) above the top.
  Rows of equal score form one point (a threshold cannot separate them). The running sums run
  over distinct scores in descending order (a total order within a slice); the per-score sums
  of weights are exact_sums, counts are integers: shuffled input gives identical bits.
  With columns.multiplicity (merge's count per state row, sql/_macros/shared/state.sql) the per-score
  sums count each row m times (integer sums times m, exact_sum with m): the same integers as
  over the rows replayed, so the same bits.

  Spark (spark__score_points_ctes): no window over a whole slice. The running sums are those
  of the curves (spark__curve_points, sql/_macros/kernels/curves.sql): per-score integers (counts;
  with weights fixed point, units of 2^(e - 80), e = the slice's greatest(sum_exponent(w),
  -940), exactly exact_sum's terms) summed over score buckets (auc_prefixed,
  sql/_macros/kernels/auc.sql), exact, converted to double once; P, N are the slice totals and the
  previous point's rates come from the sums over the higher scores. Without weights every
  value equals the default's; with weights tp and fp are the exact running sums where the
  default adds doubles in score order (they agree to about 1e-16 relative).
#}
{% macro score_points_ctes(relation, by, columns, options) -%}
{{ adapter.dispatch('score_points_ctes', 'sqlmetrics')(relation, by, columns, options) }}
{%- endmacro %}

{% macro default__score_points_ctes(relation, by, columns, options) -%}
points_source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s
        {{- ', cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ') as w' if columns.weight }}
        {{- ', ' ~ columns.multiplicity ~ ' as m' if columns.get('multiplicity') }}
    from {{ relation }}
),
{% if columns.weight %}
scaled_points as (
    select
        points_source.*,
        w * label as wp,
        w * (1 - label) as wn,
        {{ sqlmetrics.sum_exponent('w', by, [sqlmetrics.float_key('s')]) }} as w_exp
    from points_source
),
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s,
        {{ sqlmetrics.exact_sum('wp', 'w_exp', sqlmetrics.multiplicity(columns)) }} as pos,
        {{ sqlmetrics.exact_sum('wn', 'w_exp', sqlmetrics.multiplicity(columns)) }} as neg
    from scaled_points
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{% else %}
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s,
{% if columns.get('multiplicity') %}
        cast(sum(label * m) as {{ sqlmetrics.float_type() }}) as pos,
        cast(sum((1 - label) * m) as {{ sqlmetrics.float_type() }}) as neg
{% else %}
        cast(sum(label) as {{ sqlmetrics.float_type() }}) as pos,
        cast(sum(1 - label) as {{ sqlmetrics.float_type() }}) as neg
{% endif %}
    from points_source
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{% endif %}
cumulated as (
    select
        per_score.*,
        sum(pos) over ({{ sqlmetrics.window(by, 's desc') }} rows between unbounded preceding and current row) as tp,
        sum(neg) over ({{ sqlmetrics.window(by, 's desc') }} rows between unbounded preceding and current row) as fp
    from per_score
),
totals as (
    select
        cumulated.*,
        max(tp) over ({{ sqlmetrics.partition_by(by) }}) as p_total,
        max(fp) over ({{ sqlmetrics.partition_by(by) }}) as n_total
    from cumulated
),
rates as (
    select
        totals.*,
        tp / nullif(p_total, 0) as tpr,
        fp / nullif(n_total, 0) as fpr
    from totals
),
points as (
    select
        rates.*,
        coalesce(lag(tpr) over ({{ sqlmetrics.window(by, 's desc') }}), cast(0 as {{ sqlmetrics.float_type() }})) as prev_tpr,
        coalesce(lag(fpr) over ({{ sqlmetrics.window(by, 's desc') }}), cast(0 as {{ sqlmetrics.float_type() }})) as prev_fpr
    from rates
),
{%- endmacro %}


{% macro spark__score_points_ctes(relation, by, columns, options) -%}
{% set weighted = columns.weight is not none %}
points_source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s
        {{- ', cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ') as w' if weighted }}
        {{- ', ' ~ columns.multiplicity ~ ' as m' if columns.get('multiplicity') }}
    from {{ relation }}
),
{% if weighted %}
-- e = the slice's sum_exponent of the weights: an aggregate joined back
points_exponents as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as e_slice_{{ loop.index0 }}, {% endfor %}

        greatest({{ sqlmetrics.auc_exponent('max(abs(w))') }}, -940) as e
    from points_source
    {{ sqlmetrics.group_by(by) }}
),
per_score as (
    select {{ sqlmetrics.auc_broadcast('points_exponents') }}
        {{ sqlmetrics.slice_cols(by) }}
        s as score,
        max(e) as e,
{% set times = ' * m' if columns.get('multiplicity') else '' %}
        sum({{ sqlmetrics.exact_int_of('round(w * label * power(' ~ sqlmetrics.float_literal(2) ~ ', 80 - e))') }}{{ times }}) as pos,
        sum({{ sqlmetrics.exact_int_of('round(w * (1 - label) * power(' ~ sqlmetrics.float_literal(2) ~ ', 80 - e))') }}{{ times }}) as neg
    from points_source
{% if by %}
    join points_exponents on {{ sqlmetrics.auc_join_slices(by, 'e_') }}
{% else %}
    cross join points_exponents
{% endif %}
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{% else %}
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s as score,
{% if columns.get('multiplicity') %}
        sum(label * m) as pos,
        sum((1 - label) * m) as neg
{% else %}
        sum(label) as pos,
        sum(1 - label) as neg
{% endif %}
    from points_source
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{% endif %}
{{ sqlmetrics.auc_prefixed('per_score', by, ['pos', 'neg'], [], [], 'desc') }},
totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score as s,
        {{ sqlmetrics.points_units('pos', weighted) }} as pos,
        {{ sqlmetrics.points_units('neg', weighted) }} as neg,
        {{ sqlmetrics.points_units('pos_before + pos', weighted) }} as tp,
        {{ sqlmetrics.points_units('neg_before + neg', weighted) }} as fp,
        {{ sqlmetrics.points_units('pos_before', weighted) }} as tp_before,
        {{ sqlmetrics.points_units('neg_before', weighted) }} as fp_before,
        {{ sqlmetrics.points_units('pos_total', weighted) }} as p_total,
        {{ sqlmetrics.points_units('neg_total', weighted) }} as n_total
    from prefixed
),
rates as (
    select
        totals.*,
        tp / nullif(p_total, 0) as tpr,
        fp / nullif(n_total, 0) as fpr
    from totals
),
points as (
    select
        rates.*,
        coalesce(tp_before / nullif(p_total, 0), cast(0 as {{ sqlmetrics.float_type() }})) as prev_tpr,
        coalesce(fp_before / nullif(n_total, 0), cast(0 as {{ sqlmetrics.float_type() }})) as prev_fpr
    from rates
),
{%- endmacro %}

{# a running sum of spark__score_points_ctes as a double (units of 2^(e - 80) with weights) #}
{% macro points_units(x, weighted) -%}
{% if weighted %}{{ sqlmetrics.curve_units(x, true) }}{% else %}cast({{ x }} as {{ sqlmetrics.float_type() }}){% endif %}
{%- endmacro %}

{% macro score_points_kernel(relation, by, columns, options, entries) -%}
{% set metrics = entries | map(attribute='metric') | list %}
{% set ks = 'ks_statistic' in metrics or not entries %}
{% set pauc = 'partial_auc' in metrics %}
{% set ops = [] %}
{% for name in ['recall_at_precision', 'precision_at_recall', 'tpr_at_fpr'] %}{% if name in metrics %}{% do ops.append(name) %}{% endif %}{% endfor %}
{# the per-slice CTEs: the first is `final`'s base, the others are joined on the slices, their
   slice keys renamed by their prefix #}
{% set parts = [] %}
{% set columns_out = [] %}
{% if ks %}{% do parts.append(['at_best', '']) %}{% do columns_out.extend(['threshold', 'tpr', 'fpr']) %}{% endif %}
{% if pauc %}{% do parts.append(['areas', 'a_' if parts else '']) %}{% do columns_out.extend(['n_pos', 'n_neg']) %}{% endif %}
{% set op_prefixes = {} %}
{% for name in ops %}
{% do op_prefixes.update({name: ('o' ~ loop.index0 ~ '_') if parts else ''}) %}
{% do parts.append([name ~ '_best', op_prefixes[name]]) %}
{% do columns_out.append(name ~ '_threshold') %}
{% endfor %}
with {{ sqlmetrics.score_points_ctes(relation, by, columns, options) }}
{% if ks %}
{{ sqlmetrics.ks_statistic_ctes(by) }}
{% endif %}
{% if pauc %}
{{ sqlmetrics.partial_auc_ctes(by, options, 'a_' if ks else '') }}
{% endif %}
{% for name in ops %}
{{ sqlmetrics.score_points_ctes_of(name, by, options, op_prefixes[name]) }}
{% endfor %}
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.score_points_value(entry.metric, options) }} as {{ entry.alias }},
{% else %}
        ks as ks_statistic,
{% endfor %}
        {{ columns_out | join(',\n        ') }}
    from {{ parts[0][0] }}
{% for part in parts[1:] %}
    join {{ part[0] }} on {{ sqlmetrics.join_on_slices(parts[0][0], part[0], by, prefix=part[1]) }}
{% endfor %}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{#
  operating_points_kernel(relation, by, columns, options, entries): the operating_points table
  (sql/classification/operating_points.sql): score_points_kernel with the three operating
  points as its entries, so each value and its threshold, one row per slice.
#}
{% macro operating_points_kernel(relation, by, columns, options, entries) -%}
{% set points = [] %}
{% for name in ['recall_at_precision', 'precision_at_recall', 'tpr_at_fpr'] %}
{% do points.append({'alias': name, 'metric': name, 'k': none, 'needs': []}) %}
{% endfor %}
{{ sqlmetrics.score_points_kernel(relation, by, columns, options, points) }}
{%- endmacro %}

{# the CTEs of an operating point metric after `points`: <metric>_ctes of its file #}
{% macro score_points_ctes_of(metric, by, options, prefix) -%}
{%- if metric == 'recall_at_precision' -%}{{ sqlmetrics.recall_at_precision_ctes(by, options, prefix) }}
{%- elif metric == 'precision_at_recall' -%}{{ sqlmetrics.precision_at_recall_ctes(by, options, prefix) }}
{%- elif metric == 'tpr_at_fpr' -%}{{ sqlmetrics.tpr_at_fpr_ctes(by, options, prefix) }}
{%- else -%}{{ exceptions.raise_compiler_error('score_points_ctes_of: the metric ' ~ metric ~ ' has no <metric>_ctes(by, options, prefix) here; define it in its file and add its line to score_points_ctes_of (sql/_macros/kernels/score_points.sql)') }}
{%- endif -%}
{%- endmacro %}

{#
  operating_point_ctes(metric, by, prefix, eligible, keys, value): the best operating point of
  each slice among the score points (`points`) where `eligible` holds: the lexicographic
  largest (keys..., s) (each key larger is better; s, the threshold, decides last: a total
  order, since the scores of a slice's points are distinct). CTEs `<metric>_ranked`,
  `<metric>_best`; the latter one row per slice: <metric>_v (`value` at the best point, NULL
  when no point is eligible), <metric>_threshold (its score), <metric>_p and <metric>_n (P
  and N), its slice keys renamed `<prefix>slice_0..`.
  Default: a row_number over the slice's points (the eligible first) and one aggregate, no
  join back. Spark (spark__operating_point_ctes), where such a window moves every point of a
  slice into one partition: one aggregate, the largest struct (keys..., s, value) of the
  slice's eligible points (structs compare field by field), as spark__ks_statistic_at_best.
#}
{% macro operating_point_ctes(metric, by, prefix, eligible, keys, value) -%}
{{ adapter.dispatch('operating_point_ctes', 'sqlmetrics')(metric, by, prefix, eligible, keys, value) }}
{%- endmacro %}

{% macro default__operating_point_ctes(metric, by, prefix, eligible, keys, value) -%}
{{ metric }}_ranked as (
    select
        points.*,
        case when {{ eligible }} then 1 else 0 end as eligible,
        row_number() over ({{ sqlmetrics.window(by, 'case when ' ~ eligible ~ ' then 0 else 1 end, ' ~ (keys | join(' desc, ')) ~ ' desc, s desc') }}) as best_rank
    from points
),
{{ metric }}_best as (
    select
        {{ sqlmetrics.slice_cols_as(by, prefix) if prefix else sqlmetrics.slice_cols(by) }}
        max(p_total) as {{ metric }}_p,
        max(n_total) as {{ metric }}_n,
        max(case when best_rank = 1 and eligible = 1 then {{ value }} end) as {{ metric }}_v,
        max(case when best_rank = 1 and eligible = 1 then s end) as {{ metric }}_threshold
    from {{ metric }}_ranked
    {{ sqlmetrics.group_by(by) }}
),
{%- endmacro %}

{% macro spark__operating_point_ctes(metric, by, prefix, eligible, keys, value) -%}
{{ metric }}_ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(p_total) as p_total,
        max(n_total) as n_total,
        max(case when {{ eligible }} then named_struct({% for key in keys %}'k{{ loop.index0 }}', {{ key }}, {% endfor %}'s', s, 'v', {{ value }}) end) as best
    from points
    {{ sqlmetrics.group_by(by) }}
),
{{ metric }}_best as (
    select
        {{ sqlmetrics.slice_cols_as(by, prefix) if prefix else sqlmetrics.slice_cols(by) }}
        p_total as {{ metric }}_p,
        n_total as {{ metric }}_n,
        best.v as {{ metric }}_v,
        best.s as {{ metric }}_threshold
    from {{ metric }}_ranked
),
{%- endmacro %}

{# an entry's value: the macro <metric>_value(options) of the metric's file #}
{% macro score_points_value(metric, options) -%}
{%- if metric == 'ks_statistic' -%}{{ sqlmetrics.ks_statistic_value(options) }}
{%- elif metric == 'partial_auc' -%}{{ sqlmetrics.partial_auc_value(options) }}
{%- elif metric == 'recall_at_precision' -%}{{ sqlmetrics.recall_at_precision_value(options) }}
{%- elif metric == 'precision_at_recall' -%}{{ sqlmetrics.precision_at_recall_value(options) }}
{%- elif metric == 'tpr_at_fpr' -%}{{ sqlmetrics.tpr_at_fpr_value(options) }}
{%- else -%}{{ exceptions.raise_compiler_error('score_points_value: the metric ' ~ metric ~ ' has no <metric>_value(options) here; define it in its file and add its line to score_points_value (sql/_macros/kernels/score_points.sql)') }}
{%- endif -%}
{%- endmacro %}
