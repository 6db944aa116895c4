{#
  calibration_ratio: predicted over observed positives (He et al. 2014: "the ratio of the
  average estimated CTR and the empirical CTR").
     calibration_ratio = sum_i w_i p_i / sum_i w_i y_i
  1 is calibrated on the whole; > 1 over-predicts. w_i = 1 without weight.
  Ties: none. Float sums are exact_sums (decision 0006).
  Undefined: no positive label with weight (sum_i w_i y_i = 0) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; columns calibration_ratio, n (sum of weights).
  Oracle: tests/oracle/calibration.py::calibration_ratio
#}
{% macro calibration_ratio_kernel(relation, by, columns, options, entries) -%}
with source as (
{{ sqlmetrics.calibration_source(relation, by, columns, options) }}
),
scaled_rows as (
    select
        source.*,
        w * p as wp,
        w * label as wy
    from source
),
-- the slice's exponents of w, wp, wy: per-slice aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'scaled_rows', by, [('w_exp', 'w'), ('wp_exp', 'wp'), ('wy_exp', 'wy')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('wp', 'wp_exp', sqlmetrics.multiplicity(columns)) }} / nullif({{ sqlmetrics.exact_sum('wy', 'wy_exp', sqlmetrics.multiplicity(columns)) }}, 0) as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }} as n
    from scaled
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
