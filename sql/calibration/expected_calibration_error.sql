{#
  expected_calibration_error: the weighted mean gap between confidence and accuracy over
  probability bins (Naeini, Cooper & Hauskrecht 2015; Guo et al. 2017), for a binary label.
     ECE = sum_b (W_b / W) |ybar_b - pbar_b|
     W_b = sum_{i in b} w_i,  ybar_b = sum_{i in b} w_i y_i / W_b,  pbar_b = sum_{i in b} w_i p_i / W_b
  Bins: n_bins (default 10) bins of p (the predicted probability of label 1), by `strategy`:
  uniform (equal width on [0, 1]) | quantile (equal mass: edges at the unweighted quantiles of
  p), with scikit-learn's calibration_curve's edges and rule exactly (sql/_macros/kernels/calibration.sql:
  p on an edge falls in the lower bin). Empty bins add nothing. w_i = 1 without weight.
  Ties: rows of equal p fall in the same bin; no order is involved. Float sums are exact_sums
  (decision 0006), the bins' weight total W too: shuffled input gives bit-identical results.
  Computed as sum_b |sum_{i in b} w_i (y_i - p_i)| / W (the same sum, one division).
  Undefined: the weights sum to 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns expected_calibration_error, n (rows).
  Oracle: tests/oracle/calibration.py::expected_calibration_error
#}
{% macro expected_calibration_error_kernel(relation, by, columns, options, entries) -%}
with source as (
{{ sqlmetrics.calibration_source(relation, by, columns, options) }}
),
{{ sqlmetrics.calibration_binned_ctes(by, options, columns.get('multiplicity') is not none) }}
{{ sqlmetrics.calibration_per_bin_ctes(by, columns.weight is not none, columns.get('multiplicity') is not none) }}
gaps as (
    select
        per_bin.*,
        abs(wy_sum - wp_sum) as gap
    from per_bin
    where w_sum > 0
),
scaled_gaps as (
    select
        gaps.*,
        {{ sqlmetrics.sum_exponent('gap', by) }} as gap_exp
    from gaps
),
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.exact_sum('gap', 'gap_exp') }} as gap_sum
    from scaled_gaps
    {{ sqlmetrics.group_by(by) }}
),
{% if columns.weight %}
-- the bins' weight sums added exactly too (a plain float sum of them depends on the order the
-- engine meets the bins in: the last bit moved under shuffles, issue 39)
scaled_bins as (
    select
        per_bin.*,
        {{ sqlmetrics.sum_exponent('w_sum', by) }} as w_sum_exp
    from per_bin
),
totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        sum(n_rows) as n,
        {{ sqlmetrics.exact_sum('w_sum', 'w_sum_exp') }} as w_total
    from scaled_bins
    {{ sqlmetrics.group_by(by) }}
),
{% else %}
totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        sum(n_rows) as n,
        sum(w_sum) as w_total
    from per_bin
    {{ sqlmetrics.group_by(by) }}
),
{% endif %}
final as (
    select
        {% for col in by %}totals.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

{% for entry in entries %}
        per_slice.gap_sum / nullif(totals.w_total, 0) as {{ entry.alias }},
{% endfor %}
        totals.n as n
    from totals
    left join per_slice on {{ sqlmetrics.calibration_join_on('totals', 'per_slice', by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
