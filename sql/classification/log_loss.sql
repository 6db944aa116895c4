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
{% macro log_loss_kernel(relation, by, columns, options, entries) -%}
{% set lo = sqlmetrics.float_literal(options.eps) %}
{% set hi = sqlmetrics.float_literal(1.0 - options.eps) %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as p,
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w
    from {{ relation }}
),
per_row as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if columns.get('multiplicity') %}
        m,
{% endif %}
        w,
        w * -ln(
            case
                when label = 1 then greatest(least(p, {{ hi }}), {{ lo }})
                else greatest(least(1 - p, {{ hi }}), {{ lo }})
            end
        ) as wloss
    from source
),
-- the slice's exponents of w and wloss: per-slice aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'per_row', by, [('w_exp', 'w'), ('wloss_exp', 'wloss')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('wloss', 'wloss_exp', sqlmetrics.multiplicity(columns)) }}
            / nullif({{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }}, 0) as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }} as n
    from scaled
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
