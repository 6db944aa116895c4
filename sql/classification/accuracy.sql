{#
  accuracy: share of rows classified correctly.
     accuracy = (tp + tn) / (tp + fp + tn + fn)
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined: never (empty input is rejected before the query runs).
  Output: one row per slice; columns accuracy, tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/confusion.sql" as cm with context %}
{% macro value() -%}
{{ c.safe_div('tp + tn', 'tp + fp + tn + fn') }}
{%- endmacro %}
{{ cm.query('accuracy', value()) }}
