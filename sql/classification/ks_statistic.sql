{#
  ks_statistic: the Kolmogorov-Smirnov statistic of the scores of positives against those of
  negatives: the largest gap between the true and false positive rates over thresholds.
     KS = max_t |TPR(t) - FPR(t)|,  TPR(t) = sum_{s_i >= t} w_i y_i / P,
                                    FPR(t) = sum_{s_i >= t} w_i (1 - y_i) / N
  t over the distinct scores (sql/_macros/kernels/score_points.sql). Equal to the two-sample statistic
  sup_x |F_pos(x) - F_neg(x)| of the empirical distribution functions (scipy.stats.ks_2samp)
  for unit weights. The threshold reported is the largest score t where the maximum is
  reached (predict 1 for score >= t), with TPR(t) and FPR(t) there.
  tpr and fpr at the threshold: the smallest of those of the largest gap's points (both
  decrease as the threshold rises), so no join back to the points. The slice's largest gap
  is a window over its points; on Spark (spark__ks_statistic_at_best), where such a window
  moves every point of a slice into one partition, one aggregate: the largest
  (gap, threshold) struct of the slice, which carries its tpr and fpr.
  The gap is compared as |tp N - fp P| (integers without weights: exact, so two thresholds
  of equal gap are recognised as equal), KS = max gap / (P N).
  Ties: rows of equal score form one threshold. w_i = 1 without weight.
  Undefined: no positive or no negative label (P = 0 or N = 0) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; ks_statistic (or one column per entry alias), threshold, tpr,
  fpr.
  ks_point: the same kernel called as a table (no entry): ks_statistic with its threshold,
  tpr and fpr, one row per slice.
  Kernel: score_points_kernel (sql/_macros/kernels/score_points.sql), which computes partial_auc
  from the same pass over the score points when both are requested.
  Oracle: tests/oracle/separation.py::ks_statistic
#}
{# the CTEs of ks_statistic after score_points_ctes' `points` (each followed by a comma):
   `gaps`, then `at_best` (per slice ks, threshold, tpr, fpr) #}
{% macro ks_statistic_ctes(by) -%}
gaps as (
    select
        points.*,
        abs(tp * n_total - fp * p_total) as gap
    from points
),
{{ sqlmetrics.ks_statistic_at_best(by) }},
{%- endmacro %}

{# an entry's value in the row of `at_best` #}
{% macro ks_statistic_value(options) -%}
ks
{%- endmacro %}


{# the `at_best` CTE (and those it needs) of ks_statistic, after `gaps`: per slice ks, threshold, tpr, fpr #}
{% macro ks_statistic_at_best(by) -%}
{{ adapter.dispatch('ks_statistic_at_best', 'sqlmetrics')(by) }}
{%- endmacro %}

{% macro default__ks_statistic_at_best(by) -%}
best as (
    select
        gaps.*,
        max(gap) over ({{ sqlmetrics.partition_by(by) }}) as max_gap
    from gaps
),
-- tp and fp do not decrease as the threshold falls, so the point of the largest threshold
-- among those of the largest gap has the smallest tpr and fpr of them: a min, no join back
at_best as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(max_gap) / nullif(max(p_total) * max(n_total), 0) as ks,
        max(case when gap = max_gap then s end) as threshold,
        min(case when gap = max_gap then tpr end) as tpr,
        min(case when gap = max_gap then fpr end) as fpr
    from best
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{% macro spark__ks_statistic_at_best(by) -%}
-- one aggregate, no window over the slice and no join back: the largest (gap, s) of a slice
-- is its largest gap at the largest threshold reaching it (structs compare field by field)
best_points as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(named_struct('gap', gap, 's', s, 'tpr', tpr, 'fpr', fpr)) as best,
        max(p_total) as p_total,
        max(n_total) as n_total
    from gaps
    {{ sqlmetrics.group_by(by) }}
),
at_best as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        best.gap / nullif(p_total * n_total, 0) as ks,
        best.s as threshold,
        best.tpr as tpr,
        best.fpr as fpr
    from best_points
)
{%- endmacro %}
