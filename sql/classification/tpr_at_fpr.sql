{#
  tpr_at_fpr: the largest true positive rate among the ROC points whose false positive rate
  is at most max_fpr, and the threshold reaching it: the read-off of scikit-learn's
  roc_curve(drop_intermediate=False), and torchmetrics' BinarySensitivityAtSpecificity at
  specificity 1 - max_fpr (compared as fpr <= max_fpr here, no 1 - x rounding).
  ROC points: one per distinct score t of the slice (predict 1 for score >= t;
  sql/_macros/kernels/score_points.sql), and (0, 0) above the highest score:
     tpr(t) = tp(t) / P,  fpr(t) = fp(t) / N,  tp, fp the weighted counts at or above t
  A point is eligible when fpr(t) <= max_fpr; (0, 0) always is.
     tpr_at_fpr = max over eligible points of tpr
  Threshold: the largest tpr, then the smallest fpr, then the largest threshold; the same
  point as torchmetrics' _sensitivity_at_specificity (torchmetrics/functional/classification/
  sensitivity_specificity.py: torch.argmax, the first of the largest tpr in its descending
  threshold order). When no scored point is eligible with tp > 0 the value is 0, reached above
  the highest score (scikit-learn's threshold inf; torchmetrics 0 with threshold 1e6): the
  threshold reported is NULL (NaN).
  Ties: rows of equal score form one point. w_i = 1 without weight.
  Undefined: no positive or no negative label (P = 0 or N = 0) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; one column per entry alias; tpr_at_fpr_threshold.
  Kernel: score_points_kernel (sql/_macros/kernels/score_points.sql); the best point picked
  by operating_point_ctes there.
  Oracle: tests/oracle/separation.py::tpr_at_fpr
#}
{# the CTEs after score_points_ctes' `points` (each followed by a comma): the best point of
   each slice in `tpr_at_fpr_best` (its slice keys renamed `<prefix>slice_0..`) #}
{% macro tpr_at_fpr_ctes(by, options, prefix='') -%}
{% set m_sql = sqlmetrics.float_literal(options.max_fpr | float) %}
{{ sqlmetrics.operating_point_ctes(
    'tpr_at_fpr', by, prefix,
    'tp > 0 and fpr <= ' ~ m_sql,
    ['tp', '-fp'],
    'tpr') }}
{%- endmacro %}

{# an entry's value in the row of `tpr_at_fpr_best`: 0 (the point above the top score) when
   no scored point is eligible #}
{% macro tpr_at_fpr_value(options) -%}
case when tpr_at_fpr_p > 0 and tpr_at_fpr_n > 0 then coalesce(tpr_at_fpr_v, cast(0 as {{ sqlmetrics.float_type() }})) end
{%- endmacro %}
