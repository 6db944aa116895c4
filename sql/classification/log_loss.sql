{#
  log_loss: binary cross-entropy (logistic loss) of predicted probabilities, mean over rows.
     log_loss = sum_i w_i l_i / sum_i w_i
     l_i = -ln(q_i) if label_i = 1,  -ln(1 - p_i clipped) if label_i = 0
  q_i = p_i clipped to [eps, 1 - eps] (for label 1) and 1 - p_i clipped the same way (label 0),
  as scikit-learn's log_loss clips, so a confident wrong probability of 0 or 1 costs
  -ln(eps) instead of infinity. eps = machine epsilon of double (2.220446049250313e-16,
  scikit-learn's choice) unless given. Natural logarithm (nats). w_i = 1 without weight.
  Probabilities must lie in [0, 1] (checked before the query runs).
  Ties: none (a mean of per-row terms). The float sums are exact_sums (fixed point, decision
  0006): shuffled input and any thread count give bit-identical results.
  Undefined: sum of weights 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns log_loss, n (rows, or sum of weights).
  Oracle: tests/oracle/curves.py::log_loss
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/labels.sql" as lab %}
{% set lo = eps | double %}
{% set hi = (1.0 - eps) | double %}
with source as (
    select
        {{ c.slice_source(by) }}
        {{ lab.binary_label(label, pos_label) }} as label,
        cast({{ score }} as double) as p,
        {{ 'cast(' ~ weight ~ ' as double)' if weight else 'cast(1 as double)' }} as w
    from {{ relation }}
),
per_row as (
    select
        {{ c.slice_cols(by) }}
        w,
        w * -ln(
            case
                when label = 1 then greatest(least(p, {{ hi }}), {{ lo }})
                else greatest(least(1 - p, {{ hi }}), {{ lo }})
            end
        ) as wloss
    from source
),
scaled as (
    select
        per_row.*,
        {{ c.sum_exponent('w', by) }} as w_exp,
        {{ c.sum_exponent('wloss', by) }} as wloss_exp
    from per_row
),
final as (
    select
        {{ c.slice_cols(by) }}
        {{ c.exact_sum('wloss', 'wloss_exp') }}
            / nullif({{ c.exact_sum('w', 'w_exp') }}, 0) as log_loss,
        {{ c.exact_sum('w', 'w_exp') }} as n
    from scaled
    {{ c.group_by(by) }}
)
select * from final
{{ c.order_by(by) }}
