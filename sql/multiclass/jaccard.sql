{#
  jaccard: the Jaccard index (intersection over union) of label and prediction per class,
  averaged as scikit-learn's jaccard_score(average=) for multiclass targets.
     J_c = tp_c / (n_true_c + n_pred_c - tp_c)
  (tp_c, n_true_c, n_pred_c from multiclass_per_class; sums of weights with a weight column)
     macro    = mean over classes of J_c
     weighted = sum_c n_true_c J_c / sum_c n_true_c
     micro    = sum_c tp_c / sum_c (n_true_c + n_pred_c - tp_c)
  Classes: the union of the values of label and prediction in the slice; a class whose rows
  all have weight 0 has a union of 0 and J_c = 0 (scikit-learn's zero_division default).
  labels (scikit-learn's labels=): the classes averaged are the listed ones, counts from every
  row; a listed class absent from the slice has J_c = 0 (see sql/_macros/kernels/multiclass.sql).
  Ties: none. Float sums are exact_sums (decision 0006).
  Undefined: weighted with every support 0, or the weights sum to 0 -> NULL (NaN +
  UndefinedMetricWarning).
  jaccard_macro:, jaccard_micro:, jaccard_weighted: the three averages above, each a
  jaccard_<average>_value of multiclass_kernel (sql/_macros/kernels/multiclass.sql), which computes the
  per-class counts once for every averaged multiclass metric of a call.
  Output (multiclass_kernel): one row per slice; one column per entry alias, n_classes,
  n_undefined (0).
  Oracle: tests/oracle/agreement.py::jaccard
#}
{% macro jaccard_macro_value(columns, options) -%}
case when max(n_union) > 0 then {{ sqlmetrics.exact_sum('v_jaccard', '0') }} / nullif(count(*), 0) end
{%- endmacro %}

{% macro jaccard_micro_value(columns, options) -%}
{{ sqlmetrics.multiclass_micro_value('jaccard', none, columns.weight) }}
{%- endmacro %}

{% macro jaccard_weighted_value(columns, options) -%}
{{ sqlmetrics.exact_sum('n_true * v_jaccard', 'n_true_exp') }}
            / nullif(cast({{ sqlmetrics.multiclass_total('n_true', 'n_true_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}), 0)
{%- endmacro %}
