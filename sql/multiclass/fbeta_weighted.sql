{#
  fbeta_weighted: fbeta of a multiclass classifier, weighted-averaged over the classes.
     fbeta_weighted = mean over classes weighted by support: sum_c n_true_c v_c / sum_c n_true_c,  v_c = (1 + b^2) tp_c / ((1 + b^2) tp_c + b^2 fn_c + fp_c) = (1 + b^2) tp_c / (b^2 n_true_c + n_pred_c)
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  beta (> 0): recall counts beta times as much as precision.
  Undefined per class: never (every class is seen in label or prediction).
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's fbeta_score(average="weighted", beta=beta, zero_division=nan).
  Output (multiclass_kernel): one row per slice; columns fbeta_weighted, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro fbeta_weighted_value(columns, options) -%}
{{ sqlmetrics.multiclass_weighted_average('fbeta', columns.weight) }}
{%- endmacro %}
