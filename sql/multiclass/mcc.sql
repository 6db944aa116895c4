{#
  mcc: Matthews correlation coefficient (binary or multiclass; Gorodkin's R_K).
     mcc = (c s - sum_k t_k p_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2))
  over the classes k of the slice (the union of the values of label and prediction):
  t_k = n_true_k (rows with label k), p_k = n_pred_k (rows with prediction k),
  c = sum_k tp_k (rows predicted correctly), s = rows; with weight, sums of sample weights.
  For two classes this is (tp tn - fp fn) / sqrt((tp + fp)(tp + fn)(tn + fp)(tn + fn)).
  Equals scikit-learn's matthews_corrcoef where defined. mcc() with score= and threshold=
  (binary) applies the two-class formula to the counts of sql/classification/confusion_matrix.sql.
  Undefined: a zero factor under the root (one class only in label or in prediction) -> NULL
  (NaN + UndefinedMetricWarning, or the zero_division value; scikit-learn returns 0).
  Ties: none. Float sums are exact_sums (decision 0006). With weight, tp, n_true and n_pred are
  first divided by 2^k, k = the exponent of the slice's largest n_true or n_pred (exact; MCC
  does not change when every count is scaled), so that products of weight sums near 1e200
  stay finite.
  Output: one row per slice; columns mcc, n_classes.
  Oracle: tests/oracle/multiclass.py::mcc
#}
{% macro mcc_kernel(relation, by, columns, options, entries) -%}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns) }},
{% if columns.weight %}
scaled as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.ldexp('tp', '-k') }} as tp,
        {{ sqlmetrics.ldexp('n_true', '-k') }} as n_true,
        {{ sqlmetrics.ldexp('n_pred', '-k') }} as n_pred
    from (
        select
            per_class.*,
            coalesce(greatest(n_true_exp, n_pred_exp), 0) as k
        from per_class
    ) as exponents
),
-- the slice's exponents of the scaled per-class sums: aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('counts', 'scaled', by, [('tp_exp', 'tp'), ('n_true_exp', 'n_true'), ('n_pred_exp', 'n_pred')]) }},
{% endif %}
sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast({{ sqlmetrics.multiclass_total('tp', 'tp_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as correct,
        cast({{ sqlmetrics.multiclass_total('n_true', 'n_true_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as s,
        cast({{ sqlmetrics.multiclass_total('n_true * n_pred', 'n_true_exp + n_pred_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as sum_tp,
        cast({{ sqlmetrics.multiclass_total('n_pred * n_pred', 'n_pred_exp + n_pred_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as sum_pp,
        cast({{ sqlmetrics.multiclass_total('n_true * n_true', 'n_true_exp + n_true_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as sum_tt,
        count(*) as n_classes
    from {{ 'counts' if columns.weight else 'per_class' }}
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        (correct * s - sum_tp)
            / nullif(sqrt(greatest((s * s - sum_pp) * (s * s - sum_tt), 0)), 0) as {{ entry.alias }},
{% endfor %}
        n_classes
    from sums
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
