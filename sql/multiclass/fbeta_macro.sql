{#
  fbeta_macro: fbeta of a multiclass classifier, macro-averaged over the classes.
     fbeta_macro = unweighted mean over classes: sum_c v_c / K,  v_c = (1 + b^2) tp_c / ((1 + b^2) tp_c + b^2 fn_c + fp_c) = (1 + b^2) tp_c / (b^2 n_true_c + n_pred_c)
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  beta (> 0): recall counts beta times as much as precision.
  Undefined per class: never (every class is seen in label or prediction).
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's fbeta_score(average="macro", beta=beta, zero_division=nan).
  Output (multiclass_kernel): one row per slice; columns fbeta_macro, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro fbeta_macro_value(columns, options) -%}
{{ sqlmetrics.multiclass_macro_average('fbeta') }}
{%- endmacro %}
