{#
  brier_score: mean squared difference between predicted probability and label (Brier 1950).
     brier_score = sum_i w_i (p_i - label_i)^2 / sum_i w_i
  p_i: predicted probability of label 1, in [0, 1] (checked before the query runs); w_i = 1
  without weight. Lower is better; 0 is perfect, 0.25 is a constant 0.5. Equals
  scikit-learn's brier_score_loss for a binary target.
  Ties: none (a mean of per-row terms). The float sums are exact_sums (fixed point, decision
  0006): shuffled input and any thread count give bit-identical results.
  Undefined: sum of weights 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns brier_score, n (rows, or sum of weights).
  Oracle: tests/oracle/curves.py::brier_score
#}
{% macro brier_score_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        cast({{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as {{ sqlmetrics.float_type() }}) as label,
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
        w * (p - label) * (p - label) as wsq
    from source
),
-- the slice's exponents of w and wsq: per-slice aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'per_row', by, [('w_exp', 'w'), ('wsq_exp', 'wsq')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('wsq', 'wsq_exp', sqlmetrics.multiplicity(columns)) }}
            / nullif({{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }}, 0) as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }} as n
    from scaled
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
