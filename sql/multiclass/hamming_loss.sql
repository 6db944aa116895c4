{#
  hamming_loss: the (weighted) fraction of rows whose prediction differs from the label, as
  scikit-learn's hamming_loss for multiclass targets (= 1 - accuracy).
     hamming_loss = sum_i w_i [y_i != yhat_i] / sum_i w_i
  Classes of any type (label and prediction compared with =). w_i = 1 without weight.
  Ties: none. Float sums are exact_sums (decision 0006).
  Undefined: the weights sum to 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns hamming_loss, n (rows, or sum of weights).
  Oracle: tests/oracle/agreement.py::hamming_loss
#}
{% macro hamming_loss_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        case when {{ columns.label }} = {{ columns.prediction }} then 0 else 1 end as miss,
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w
    from {{ relation }}
),
scaled_rows as (
    select
        source.*,
        w * miss as wmiss
    from source
),
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'scaled_rows', by, [('w_exp', 'w')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('wmiss', 'w_exp', sqlmetrics.multiplicity(columns)) }} / nullif({{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }}, 0) as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.exact_sum('w', 'w_exp', sqlmetrics.multiplicity(columns)) }} as n
    from scaled
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
