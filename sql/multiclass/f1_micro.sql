{#
  f1_micro: f1 of a multiclass classifier, micro-averaged over the classes.
     f1_micro = 2 sum tp / (sum n_true + sum n_pred) (= accuracy for single-label data)
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  Undefined: never (no rows is rejected before the query runs; the weights sum to 0 -> NULL).
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's f1_score(average="micro").
  Output (multiclass_kernel): one row per slice; columns f1_micro, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro f1_micro_value(columns, options) -%}
{{ sqlmetrics.multiclass_micro_value('f1', options.beta, columns.weight) }}
{%- endmacro %}
