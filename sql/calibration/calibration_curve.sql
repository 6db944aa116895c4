{#
  calibration_curve: the reliability diagram as a table, as scikit-learn's calibration_curve.
  One row per non-empty bin of p (the predicted probability of label 1):
     fraction_positive = sum_{i in b} w_i y_i / W_b    (scikit-learn's prob_true)
     mean_predicted    = sum_{i in b} w_i p_i / W_b    (scikit-learn's prob_pred)
     W_b = sum_{i in b} w_i (w_i = 1 without weight)
  Bins: n_bins bins by `strategy` uniform | quantile, with scikit-learn's edges and
  searchsorted rule exactly (sql/_macros/kernels/calibration.sql); empty bins are left out, as
  scikit-learn leaves them out. bin_lower / bin_upper: the bin's edges (uniform: i / n_bins;
  quantile: the percentiles of p, the first and last being min and max p).
  Ties: rows of equal p share a bin; no order is involved. Float sums are exact_sums.
  Undefined: a bin whose weights sum to 0 -> NULL fraction and mean (NaN + warning).
  Output: one row per slice and bin, ordered by slices then bin; columns bin (0-based),
  bin_lower, bin_upper, n (rows), weight (sum of weights), mean_predicted, fraction_positive.
  Oracle: tests/oracle/calibration.py::calibration_curve
#}
{% macro calibration_curve_kernel(relation, by, columns, options, entries) -%}
with source as (
{{ sqlmetrics.calibration_source(relation, by, columns, options) }}
),
{{ sqlmetrics.calibration_binned_ctes(by, options) }}
{{ sqlmetrics.calibration_per_bin_ctes(by, columns.weight is not none) }}
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        bin_lower,
        bin_upper,
        n_rows as n,
        w_sum as weight,
        wp_sum / nullif(w_sum, 0) as mean_predicted,
        wy_sum / nullif(w_sum, 0) as fraction_positive
    from per_bin
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}bin
{%- endmacro %}
