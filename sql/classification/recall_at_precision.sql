{#
  recall_at_precision: the largest recall among the operating points whose precision reaches
  min_precision, and the threshold reaching it (torchmetrics' BinaryRecallAtFixedPrecision).
  Operating points: one per distinct score t of the slice (predict 1 for score >= t), as
  scikit-learn's precision_recall_curve (sql/_macros/kernels/score_points.sql):
     tp(t) = sum_{s_i >= t} w_i y_i,  fp(t) = sum_{s_i >= t} w_i (1 - y_i),  P = tp(min s)
     recall(t) = tp(t) / P,  precision(t) = tp(t) / (tp(t) + fp(t))
  A point is eligible when precision(t) >= min_precision (a point with tp + fp = 0, only zero
  weights at or above t, has no precision and is never eligible).
     recall_at_precision = max over eligible t of recall(t)
  Threshold: torchmetrics' lexicographic argmax (_lexargmax in
  torchmetrics/functional/classification/recall_fixed_precision.py) over (recall, precision,
  threshold) of the eligible points: the largest recall, then the largest precision, then the
  largest threshold. Ties: rows of equal score form one point. w_i = 1 without weight.
  Undefined: no positive label (P = 0), or no eligible point -> NULL (NaN +
  UndefinedMetricWarning), the repository's convention for a value the data do not define;
  torchmetrics returns recall 0 with threshold NaN there (keras' RecallAtPrecision 0): a 0
  would read as a measured recall of 0 at that precision, which no threshold gives.
  Output: one row per slice; one column per entry alias; recall_at_precision_threshold.
  Kernel: score_points_kernel (sql/_macros/kernels/score_points.sql); the best point picked
  by operating_point_ctes there.
  Oracle: tests/oracle/separation.py::recall_at_precision
#}
{# the CTEs after score_points_ctes' `points` (each followed by a comma): the best point of
   each slice in `recall_at_precision_best` (its slice keys renamed `<prefix>slice_0..`) #}
{% macro recall_at_precision_ctes(by, options, prefix='') -%}
{% set m_sql = sqlmetrics.float_literal(options.min_precision | float) %}
{{ sqlmetrics.operating_point_ctes(
    'recall_at_precision', by, prefix,
    'p_total > 0 and tp / nullif(tp + fp, 0) >= ' ~ m_sql,
    ['tp', 'tp / nullif(tp + fp, 0)'],
    'tpr') }}
{%- endmacro %}

{# an entry's value in the row of `recall_at_precision_best` #}
{% macro recall_at_precision_value(options) -%}
recall_at_precision_v
{%- endmacro %}
