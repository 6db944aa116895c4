{#
  average_precision: area under the precision-recall step function, not interpolated.
     AP = sum_n (R_n - R_{n-1}) P_n
  over the distinct scores s_1 > s_2 > ... of the slice (R_0 = 0), with P_n, R_n the precision
  and recall when predicted positive means score >= s_n (see sql/classification/pr_curve.sql).
  R_n - R_{n-1} = w_pos(s_n) / P, so AP = sum_s w_pos(s) precision(s) / P: the mean over the
  (weighted) positives of the precision at their own score. Equals scikit-learn's
  average_precision_score.
  Ties: tied scores are one threshold: every positive of a tie gets the precision of the whole
  tie (no optimistic or pessimistic order inside it). Weight 0 rows are dropped. The sum over
  scores is an exact_sum (decision 0006): bit-identical under any row order.
  Undefined: P = 0 -> NULL (NaN + UndefinedMetricWarning); scikit-learn returns 0 there.
  Output: one row per slice; columns average_precision, n_pos, n_neg (weighted: sums of
  weights).
  Oracle: tests/oracle/curves.py::average_precision
#}
{% macro average_precision_kernel(relation, by, columns, options, entries) -%}
with {{ sqlmetrics.curve_points(relation, by, columns, options) }},
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.exact_sum('w_pos * (cast(tp as ' ~ sqlmetrics.float_type() ~ ') / nullif(cast(tp + fp as ' ~ sqlmetrics.float_type() ~ '), 0))', 'w_pos_exp') }}
            as ap_sum,
        max(n_pos) as n_pos,
        max(n_neg) as n_neg
    from cumulated
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.safe_div('ap_sum', 'n_pos') }} as {{ entry.alias }},
{% endfor %}
        n_pos,
        n_neg
    from per_slice
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
