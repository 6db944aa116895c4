{#
  ks_statistic: the Kolmogorov-Smirnov statistic of the scores of positives against those of
  negatives: the largest gap between the true and false positive rates over thresholds.
     KS = max_t |TPR(t) - FPR(t)|,  TPR(t) = sum_{s_i >= t} w_i y_i / P,
                                    FPR(t) = sum_{s_i >= t} w_i (1 - y_i) / N
  t over the distinct scores (sql/_macros/score_points.sql). Equal to the two-sample statistic
  sup_x |F_pos(x) - F_neg(x)| of the empirical distribution functions (scipy.stats.ks_2samp)
  for unit weights. The threshold reported is the largest score t where the maximum is
  reached (predict 1 for score >= t), with TPR(t) and FPR(t) there.
  The gap is compared as |tp N - fp P| (integers without weights: exact, so two thresholds
  of equal gap are recognised as equal), KS = max gap / (P N).
  Ties: rows of equal score form one threshold. w_i = 1 without weight.
  Undefined: no positive or no negative label (P = 0 or N = 0) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; ks_statistic (or one column per entry alias), threshold, tpr,
  fpr.
  ks_point: the same kernel called as a table (no entry): ks_statistic with its threshold,
  tpr and fpr, one row per slice.
  Oracle: tests/oracle/separation.py::ks_statistic
#}
{% macro ks_statistic_kernel(relation, by, columns, options, entries) -%}
with {{ score_points_ctes(relation, by, columns, options) }}
gaps as (
    select
        points.*,
        abs(tp * n_total - fp * p_total) as gap
    from points
),
best as (
    select
        gaps.*,
        max(gap) over ({{ partition_by(by) }}) as max_gap
    from gaps
),
at_best as (
    select
        {{ slice_cols(by) }}
        max(max_gap) / nullif(max(p_total) * max(n_total), 0) as ks,
        max(case when gap = max_gap then s end) as threshold
    from best
    {{ group_by(by) }}
),
final as (
    select
        {% for col in by %}at_best.slice_{{ loop.index0 }}, {% endfor %}

{% for entry in entries %}
        at_best.ks as {{ entry.alias }},
{% else %}
        at_best.ks as ks_statistic,
{% endfor %}
        at_best.threshold,
        points.tpr,
        points.fpr
    from at_best
    left join points
        on {{ calibration_join_on('at_best', 'points', by) }}
        and points.s = at_best.threshold
)
select * from final
{{ order_by(by) }}
{%- endmacro %}
