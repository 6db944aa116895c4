{#
  fbeta: weighted harmonic mean of precision and recall (van Rijsbergen).
     fbeta = (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)
  beta >= 0: recall counts beta times as much as precision (beta = 1 gives f1; beta = 0 gives
  precision, tp / (tp + fp), as scikit-learn's fbeta_score(beta=0)).
  tp, fp, tn, fn: the confusion-matrix counts (sql/_macros/kernels/confusion.sql), predicted 1 when
  score >= threshold (default 0.5) or from a 0/1 prediction column; with weight, sums of
  sample weights.
  Undefined: tp + fp + fn = 0 (with beta = 0: tp + fp = 0) -> NULL (NaN +
  UndefinedMetricWarning, or the zero_division value).
  Output (confusion_kernel): one row per slice; the value under its entry's alias, then
  tp, fp, tn, fn.
  Oracle: tests/oracle/classification.py::threshold_metric
#}
{% macro fbeta_value(options) -%}
{% set b2 = sqlmetrics.float_literal(options.beta * options.beta) %}
{{ sqlmetrics.safe_div('(1 + ' ~ b2 ~ ') * tp', '(1 + ' ~ b2 ~ ') * tp + ' ~ b2 ~ ' * fn + fp') }}
{%- endmacro %}
