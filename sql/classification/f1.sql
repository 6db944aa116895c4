{#
  f1: harmonic mean of precision and recall.
     f1 = 2 tp / (2 tp + fp + fn)
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/kernels/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined: no positive label and no predicted positive (tp + fp + fn = 0) -> NULL (NaN + UndefinedMetricWarning, or the zero_division value).
  Output (confusion_kernel): one row per slice; the value under its entry's alias, then
  tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% macro f1_value(options) -%}
{{ sqlmetrics.safe_div('2 * tp', '2 * tp + fp + fn') }}
{%- endmacro %}
