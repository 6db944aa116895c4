{#
  recall: true positive rate (TPR, sensitivity).
     recall = tp / (tp + fn)
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined: no positive label (tp + fn = 0) -> NULL (NaN + UndefinedMetricWarning, or the zero_division value).
  Output: one row per slice; columns recall, tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/confusion.sql" as cm with context %}
{% macro value() -%}
{{ c.safe_div('tp', 'tp + fn') }}
{%- endmacro %}
{{ cm.query('recall', value()) }}
