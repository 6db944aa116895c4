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
  Ties: none. Float sums are exact_sums (decision 0005).
  Output: one row per slice; columns mcc, n_classes.
  Oracle: tests/oracle/multiclass.py::mcc
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/multiclass.sql" as mc with context %}
with {{ mc.per_class() }},
sums as (
    select
        {{ c.slice_cols(by) }}
        cast({{ mc.total('tp', 'tp_exp') }} as double) as correct,
        cast({{ mc.total('n_true', 'n_true_exp') }} as double) as s,
        cast({{ mc.total('n_true * n_pred', 'n_true_exp + n_pred_exp') }} as double) as sum_tp,
        cast({{ mc.total('n_pred * n_pred', 'n_pred_exp + n_pred_exp') }} as double) as sum_pp,
        cast({{ mc.total('n_true * n_true', 'n_true_exp + n_true_exp') }} as double) as sum_tt,
        count(*) as n_classes
    from per_class
    {{ c.group_by(by) }}
),
final as (
    select
        {{ c.slice_cols(by) }}
        (correct * s - sum_tp)
            / nullif(sqrt(greatest((s * s - sum_pp) * (s * s - sum_tt), 0)), 0) as mcc,
        n_classes
    from sums
)
select * from final
{{ c.order_by(by) }}
