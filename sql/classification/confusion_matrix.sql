{#
  confusion_matrix: counts of a binary classifier at a threshold.
     tp = #{label = 1, predicted 1}   fp = #{label = 0, predicted 1}
     tn = #{label = 0, predicted 0}   fn = #{label = 1, predicted 0}
  Predicted 1 when score >= threshold (default 0.5), or from a 0/1 prediction column.
  With weight: sums of sample weights instead of counts.
  Undefined: never (empty input is rejected before the query runs).
  Output: one row per slice; columns tp, fp, tn, fn: the rows of confusion_kernel
  (sql/_macros/kernels/confusion.sql) called with no metric entry. No macro of its own.
  Oracle: tests/oracle/classification.py::confusion
#}
