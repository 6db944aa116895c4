{#
  normalized_entropy: log loss divided by the entropy of the base rate (He et al. 2014,
  "Practical lessons from predicting clicks on ads at Facebook"), the ads/CTR metric.
     NE = L / H(pbar)
     L  = sum_i w_i l_i / sum_i w_i, l_i the log loss term of log_loss (p clipped to
          [eps, 1 - eps], natural logarithm)
     pbar = sum_i w_i y_i / sum_i w_i (the weighted base rate, the CTR)
     H(pbar) = -(pbar ln pbar + (1 - pbar) ln(1 - pbar))
  NE < 1: better than always predicting the base rate; NE = 1 for the constant pbar.
  w_i = 1 without weight. Ties: none (sums of per-row terms). Float sums are exact_sums
  (decision 0006).
  Undefined: the weights sum to 0, or pbar is 0 or 1 (H = 0: one class only) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; columns normalized_entropy, n (sum of weights).
  Oracle: tests/oracle/calibration.py::normalized_entropy
#}
{% macro normalized_entropy_kernel(relation, by, columns, options, entries) -%}
{% set lo = sqlmetrics.float_literal(options.eps) %}
{% set hi = sqlmetrics.float_literal(1.0 - options.eps) %}
with source as (
{{ sqlmetrics.calibration_source(relation, by, columns, options) }}
),
per_row as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if columns.get('multiplicity') %}
        m,
{% endif %}
        w,
        w * label as wy,
        w * -ln(
            case
                when label = 1 then greatest(least(p, {{ hi }}), {{ lo }})
                else greatest(least(1 - p, {{ hi }}), {{ lo }})
            end
        ) as wloss
    from source
),
-- the slice's exponents of w, wy, wloss: per-slice aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'per_row', by, [('w_exp', 'w'), ('wy_exp', 'wy'), ('wloss_exp', 'wloss')]) }},
sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }} as w_sum,
        {{ sqlmetrics.exact_sum('wy', 'wy_exp', sqlmetrics.multiplicity(columns)) }} as wy_sum,
        {{ sqlmetrics.exact_sum('wloss', 'wloss_exp', sqlmetrics.multiplicity(columns)) }} as wloss_sum
    from scaled
    {{ sqlmetrics.group_by(by) }}
),
rates as (
    select
        sums.*,
        wy_sum / nullif(w_sum, 0) as base_rate
    from sums
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        (wloss_sum / nullif(w_sum, 0)) / nullif(
            case
                when base_rate > 0 and base_rate < 1
                    then -(base_rate * ln(base_rate) + (1 - base_rate) * ln(1 - base_rate))
            end,
            0
        ) as {{ entry.alias }},
{% endfor %}
        w_sum as n
    from rates
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
