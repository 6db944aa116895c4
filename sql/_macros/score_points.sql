{#
  score_points_ctes(relation, by, columns, options): the ROC points of a binary score, one
  per slice and distinct score, for ks_statistic and partial_auc. CTEs (each followed by a
  comma) `points_source`, `per_score`, `points`:
     tp(s) = sum_{score_i >= s} w_i y_i,  fp(s) = sum_{score_i >= s} w_i (1 - y_i)
     P = tp at the lowest score, N = fp at the lowest score
     tpr = tp / P, fpr = fp / N (NULL when P = 0, resp. N = 0)
     prev_tpr, prev_fpr: the point of the next higher distinct score, (0, 0) above the top.
  Rows of equal score form one point (a threshold cannot separate them). The running sums run
  over distinct scores in descending order (a total order within a slice); the per-score sums
  of weights are exact_sums, counts are integers: shuffled input gives identical bits.
#}
{% macro score_points_ctes(relation, by, columns, options) -%}
points_source as (
    select
        {{ slice_source(by) }}
        {{ binary_label(columns.label, options.pos_label) }} as label,
        cast({{ columns.score }} as {{ float_type() }}) as s
        {{- ', cast(' ~ columns.weight ~ ' as ' ~ float_type() ~ ') as w' if columns.weight }}
    from {{ relation }}
),
{% if columns.weight %}
scaled_points as (
    select
        points_source.*,
        w * label as wp,
        w * (1 - label) as wn,
        {{ sum_exponent('w', by, ['s']) }} as w_exp
    from points_source
),
per_score as (
    select
        {{ slice_cols(by) }}
        s,
        {{ exact_sum('wp', 'w_exp') }} as pos,
        {{ exact_sum('wn', 'w_exp') }} as neg
    from scaled_points
    {{ group_by(by, ['s']) }}
),
{% else %}
per_score as (
    select
        {{ slice_cols(by) }}
        s,
        cast(sum(label) as {{ float_type() }}) as pos,
        cast(sum(1 - label) as {{ float_type() }}) as neg
    from points_source
    {{ group_by(by, ['s']) }}
),
{% endif %}
cumulated as (
    select
        per_score.*,
        sum(pos) over ({{ window(by, 's desc') }} rows between unbounded preceding and current row) as tp,
        sum(neg) over ({{ window(by, 's desc') }} rows between unbounded preceding and current row) as fp
    from per_score
),
totals as (
    select
        cumulated.*,
        max(tp) over ({{ partition_by(by) }}) as p_total,
        max(fp) over ({{ partition_by(by) }}) as n_total
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
        coalesce(lag(tpr) over ({{ window(by, 's desc') }}), cast(0 as {{ float_type() }})) as prev_tpr,
        coalesce(lag(fpr) over ({{ window(by, 's desc') }}), cast(0 as {{ float_type() }})) as prev_fpr
    from rates
),
{%- endmacro %}
