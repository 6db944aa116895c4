{#
  fbeta: weighted harmonic mean of precision and recall (van Rijsbergen).
     fbeta = (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)
  beta > 0: recall counts beta times as much as precision (beta = 1 gives f1).
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined: tp + fp + fn = 0 -> NULL (NaN + UndefinedMetricWarning, or the zero_division value).
  Output: one row per slice; columns fbeta, tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/confusion.sql" as cm with context %}
{% set b2 = (beta * beta) | double %}
{% macro value() -%}
{{ c.safe_div('(1 + ' ~ b2 ~ ') * tp', '(1 + ' ~ b2 ~ ') * tp + ' ~ b2 ~ ' * fn + fp') }}
{%- endmacro %}
{{ cm.query('fbeta', value()) }}
