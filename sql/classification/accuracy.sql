{#
  accuracy: share of rows classified correctly.
     accuracy = (tp + tn) / (tp + fp + tn + fn)
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/kernels/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined (NULL) when the weights sum to 0 (weight=); empty input is rejected before the
  query runs.
  Output (confusion_kernel): one row per slice; the value under its entry's alias, then
  tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% macro accuracy_value(options) -%}
{{ sqlmetrics.safe_div('tp + tn', 'tp + fp + tn + fn') }}
{%- endmacro %}
