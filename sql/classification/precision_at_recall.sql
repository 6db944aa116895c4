{#
  precision_at_recall: the largest precision among the operating points whose recall reaches
  min_recall, and the threshold reaching it (torchmetrics' BinaryPrecisionAtFixedRecall).
  Operating points: one per distinct score t of the slice (predict 1 for score >= t), as
  scikit-learn's precision_recall_curve (sql/_macros/kernels/score_points.sql):
     tp(t) = sum_{s_i >= t} w_i y_i,  fp(t) = sum_{s_i >= t} w_i (1 - y_i),  P = tp(min s)
     recall(t) = tp(t) / P,  precision(t) = tp(t) / (tp(t) + fp(t))
  A point is eligible when recall(t) >= min_recall and tp + fp > 0.
     precision_at_recall = max over eligible t of precision(t)
  Threshold: torchmetrics' _precision_at_recall (torchmetrics/functional/classification/
  precision_fixed_recall.py: Python's max over the tuples (precision, recall, threshold)) of the
  eligible points: the largest precision, then the largest recall, then the largest
  threshold. Ties: rows of equal score form one point. w_i = 1 without weight.
  Undefined: no positive label (P = 0: no recall) -> NULL (NaN + UndefinedMetricWarning), the
  repository's convention; torchmetrics returns 0 with threshold 1e6 there. With P > 0 the
  lowest score's point has recall 1, so some point is eligible.
  Output: one row per slice; one column per entry alias; precision_at_recall_threshold.
  Kernel: score_points_kernel (sql/_macros/kernels/score_points.sql); the best point picked
  by operating_point_ctes there.
  Oracle: tests/oracle/separation.py::precision_at_recall
#}
{# the CTEs after score_points_ctes' `points` (each followed by a comma): the best point of
   each slice in `precision_at_recall_best` (its slice keys renamed `<prefix>slice_0..`) #}
{% macro precision_at_recall_ctes(by, options, prefix='') -%}
{% set m_sql = sqlmetrics.float_literal(options.min_recall | float) %}
{{ sqlmetrics.operating_point_ctes(
    'precision_at_recall', by, prefix,
    'tp + fp > 0 and tpr >= ' ~ m_sql,
    ['tp / nullif(tp + fp, 0)', 'tp'],
    'tp / nullif(tp + fp, 0)') }}
{%- endmacro %}

{# an entry's value in the row of `precision_at_recall_best` #}
{% macro precision_at_recall_value(options) -%}
precision_at_recall_v
{%- endmacro %}
