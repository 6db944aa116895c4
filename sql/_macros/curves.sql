{#
  Shared CTEs of the score curves (roc_curve, pr_curve, average_precision).

  curve_points(relation, by, columns, options): CTEs (columns: label, score, weight or none;
  options: pos_label) source -> per_score -> cumulated
    source:     canonical columns, the score in its own type (ordered exactly: integers above
                2^53 stay distinct; thresholds are cast to double only for output); with
                weight, rows of weight 0 are dropped (they move no
                point of a curve but would add a threshold; scikit-learn drops them too).
    per_score:  one row per distinct score s of a slice: w_pos, w_neg = (weighted) number of
                positive / negative rows with score = s.
    cumulated:  per_score plus, in descending score order (distinct scores: a total order),
                tp, fp = (weighted) number of positive / negative rows with score >= s, and
                n_pos, n_neg = their slice totals (the last, largest cumulative values: a max,
                so no float sum depends on row order); w_pos_exp = sum_exponent of w_pos over
                the slice.
  Float sums of weights are exact_sums (decision 0006); the cumulative window sums run over
  distinct scores in a total order, so shuffled input gives bit-identical results.
#}

{% macro curve_points(relation, by, columns, options) -%}
source as (
    select
        {{ slice_source(by) }}
        {{ binary_label(columns.label, options.pos_label) }} as label,
        {{ columns.score }} as score,
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ float_type() ~ ')' if columns.weight else '1' }} as w{{ ',' if columns.weight }}
{% if columns.weight %}
        {{ source_sum_exponent('cast(' ~ columns.weight ~ ' as ' ~ float_type() ~ ')', by) }} as w_exp
{% endif %}
    from {{ relation }}
{% if columns.weight %}
    where {{ columns.weight }} > 0
{% endif %}
),
per_score as (
    select
        {{ slice_cols(by) }}
        score,
{% if columns.weight %}
        {{ exact_sum('case when label = 1 then w else 0 end', 'w_exp') }} as w_pos,
        {{ exact_sum('case when label = 0 then w else 0 end', 'w_exp') }} as w_neg
{% else %}
        sum(label) as w_pos,
        count(*) - sum(label) as w_neg
{% endif %}
    from source
    {{ group_by(by, ['score']) }}
),
cumulative as (
    select
        {{ slice_cols(by) }}
        score,
        w_pos,
        w_neg,
        sum(w_pos) over (
            {{ window(by, 'score desc') }} rows between unbounded preceding and current row
        ) as tp,
        sum(w_neg) over (
            {{ window(by, 'score desc') }} rows between unbounded preceding and current row
        ) as fp
    from per_score
),
cumulated as (
    select
        {{ slice_cols(by) }}
        score,
        w_pos,
        w_neg,
        tp,
        fp,
        max(tp) over ({{ partition_by(by) }}) as n_pos,
        max(fp) over ({{ partition_by(by) }}) as n_neg,
        {{ sum_exponent('w_pos', by) }} as w_pos_exp
    from cumulative
)
{%- endmacro %}

{#
  `neighbours`: cumulated plus the previous / next point's tp and fp in descending score order
  (NULL at the ends), for the drop_intermediate rules.
#}
{% macro curve_neighbours(by) -%}
neighbours as (
    select
        {{ slice_cols(by) }}
        score, tp, fp, n_pos, n_neg,
        lag(tp) over ({{ window(by, 'score desc') }}) as prev_tp,
        lead(tp) over ({{ window(by, 'score desc') }}) as next_tp,
        lag(fp) over ({{ window(by, 'score desc') }}) as prev_fp,
        lead(fp) over ({{ window(by, 'score desc') }}) as next_fp
    from cumulated
)
{%- endmacro %}

{#
  `thinned`: at most `slots` of the rows of `kept` per slice, chosen by score quantiles.
  A point with cumulative (weighted) row count tp + fp = c out of n = n_pos + n_neg falls in
  bucket ceil(c * slots / n) (1..slots); the point with the largest c of each bucket is kept.
  So the k-th kept point is the lowest threshold at which at most a share k / slots of the rows
  is predicted positive: thresholds at the row quantiles 1/slots, 2/slots, ..., 1 of the score.
  Every kept point is an exact point of the full curve; the last point (all rows predicted
  positive) is always kept. Without slots (max_points = none) `thinned` is `kept`.
#}
{% macro curve_thinned(by, slots) -%}
{% if slots is none %}
thinned as (
    select * from kept
)
{% else %}
bucketed as (
    select
        {{ slice_cols(by) }}
        score, tp, fp, n_pos, n_neg,
        ceil(cast(tp + fp as {{ float_type() }}) * {{ slots }} / cast(n_pos + n_neg as {{ float_type() }})) as bucket
    from kept
),
thinned as (
    select {{ slice_cols(by) }} score, tp, fp, n_pos, n_neg
    from (
        select
            {{ slice_cols(by) }}
            score, tp, fp, n_pos, n_neg, bucket,
            lead(bucket) over ({{ window(by, 'score desc') }}) as next_bucket
        from bucketed
    ) as b
    where next_bucket is null or next_bucket <> bucket
)
{% endif %}
{%- endmacro %}

{# one row per slice: its totals, for the point at threshold +infinity #}
{% macro curve_totals(by) -%}
totals as (
    select
        {{ slice_cols(by) }}
        max(n_pos) as n_pos,
        max(n_neg) as n_neg
    from cumulated
    {{ group_by(by) }}
)
{%- endmacro %}
