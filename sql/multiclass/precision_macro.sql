{#
  precision_macro: precision of a multiclass classifier, macro-averaged over the classes.
     precision_macro = unweighted mean over classes: sum_c v_c / K,  v_c = tp_c / (tp_c + fp_c) = tp_c / n_pred_c
  Per slice and class c (the union of the values of label and prediction; any type):
     tp_c = rows with label = c and prediction = c,  n_true_c = rows with label = c (support),
     n_pred_c = rows with prediction = c; with weight, sums of sample weights.
  Undefined per class: class c never predicted (n_pred_c = 0) -> v_c NULL: left out of the average
  (zero_division 'warn' or nan, with UndefinedMetricWarning for 'warn'), or replaced by
  zero_division 0.0 / 1.0 (scikit-learn's zero_division). All classes undefined -> NULL.
  Ties: none (counts of exact matches). Float sums are exact_sums.
  Equals scikit-learn's precision_score(average="macro", zero_division=nan).
  Output (multiclass_kernel): one row per slice; columns precision_macro, n_classes, n_undefined.
  Oracle: tests/oracle/multiclass.py::averaged
#}
{# this metric's average over the classes of multiclass_kernel's per-class values #}
{% macro precision_macro_value(columns, options) -%}
{{ sqlmetrics.multiclass_macro_average('precision') }}
{%- endmacro %}
