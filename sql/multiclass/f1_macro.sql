{#
  f1_macro: f1 of a multiclass classifier, macro-averaged over the classes.
     f1_macro = unweighted mean over classes: sum_c v_c / K,  v_c = 2 tp_c / (2 tp_c + fp_c + fn_c) = 2 tp_c / (n_true_c + n_pred_c)
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  Undefined per class: never (every class is seen in label or prediction).
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's f1_score(average="macro", zero_division=nan).
  Output (multiclass_kernel): one row per slice; columns f1_macro, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro f1_macro_value(columns, options) -%}
{{ sqlmetrics.multiclass_macro_average('f1') }}
{%- endmacro %}
