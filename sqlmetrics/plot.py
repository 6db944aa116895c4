"""ROC, precision-recall, calibration and gains plots (optional extra:
``pip install 'sqlmetrics[plot]'``).

The curves are computed in SQL (:func:`sqlmetrics.roc_curve`, :func:`sqlmetrics.pr_curve`),
thinned to ``max_points`` exact points at score quantiles, then drawn with matplotlib, which
is imported only here, when a plot is made (``import sqlmetrics`` never imports it). The
figures are built without pyplot, so no global state or GUI backend is touched.
"""

from ._evaluate._api_plot import calibration, gains, pr, roc

__all__ = ["calibration", "gains", "pr", "roc"]
