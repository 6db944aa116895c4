{#
  fbeta_micro: fbeta of a multiclass classifier, micro-averaged over the classes.
     fbeta_micro = (1 + b^2) sum tp / (b^2 sum n_true + sum n_pred) (= accuracy for single-label data)
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  beta (> 0): recall counts beta times as much as precision.
  Undefined: never (no rows is rejected before the query runs; the weights sum to 0 -> NULL).
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's fbeta_score(average="micro", beta=beta).
  Output (multiclass_kernel): one row per slice; columns fbeta_micro, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro fbeta_micro_value(columns, options) -%}
{{ sqlmetrics.multiclass_micro_value('fbeta', options.beta, columns.weight) }}
{%- endmacro %}
