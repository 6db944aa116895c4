{#
  operating_points: the three operating points of a binary score with the thresholds
  reaching them, one row per slice:
     recall_at_precision at min_precision  (sql/classification/recall_at_precision.sql)
     precision_at_recall at min_recall     (sql/classification/precision_at_recall.sql)
     tpr_at_fpr at max_fpr                 (sql/classification/tpr_at_fpr.sql)
  Each value and its threshold are defined in its own file (ties, weights, the tie-break of
  the threshold, when it is undefined); a threshold is NULL (NaN) where its value is
  undefined, and tpr_at_fpr's where only the point above the highest score qualifies.
  Output: one row per slice; recall_at_precision, precision_at_recall, tpr_at_fpr,
  recall_at_precision_threshold, precision_at_recall_threshold, tpr_at_fpr_threshold.
  Kernel: operating_points_kernel (sql/_macros/kernels/score_points.sql): score_points_kernel
  with the three as its entries, one pass over the score points.
  Oracle: tests/oracle/separation.py::operating_points
#}
