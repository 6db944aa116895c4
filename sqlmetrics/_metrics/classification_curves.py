"""Metrics of a score over its whole range: ROC and precision-recall curves, average
precision, and the probabilistic losses (log loss, Brier score).

Curves are computed in SQL (``sql/classification/roc_curve.sql``, ``pr_curve.sql``): one
point per distinct score, so they work on tables of any size; ``max_points`` keeps at most N
exact points of the curve, chosen at score quantiles, so a curve over 100M rows stays
plottable.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.conventions import resolved
from .._core.params import WARNS_NO_WEIGHT, Arg, Function
from .._core.registry import (
    Flag,
    Inference,
    MetricSpec,
    Number,
    ParamSpec,
    Role,
    declare_param,
    register,
)
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import UndefinedMetricWarning, warn

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_classification_curves.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

LABEL = Role("label", "binary")
SCORE = Role("score", "score")
PROBABILITY = Role("score", "probability")
WEIGHT = Role("weight", "weight", required=False)

#: scikit-learn's clipping of probabilities in log_loss: machine epsilon of float64
DOUBLE_EPS = sys.float_info.epsilon


# --------------------------------------------------------------------------- parameters
_check_drop_intermediate = Flag(none=True)

_check_max_points = Number(
    "an integer >= 2 (the curve's two ends), or None for every point", kind="int", low=2, none=True
)

_check_eps = Number(
    f"'auto' (machine epsilon, {DOUBLE_EPS!r}, as scikit-learn) or a number with 0 < eps < 0.5",
    low=0,
    low_in=False,
    high=0.5,
    high_in=False,
    words=(("auto", DOUBLE_EPS),),
)

declare_param(
    ParamSpec(
        "drop_intermediate",
        None,
        _check_drop_intermediate,
        "drop curve points that change no corner: True | False (roc_curve: True, pr_curve: "
        "False, as scikit-learn)",
    )
)
declare_param(
    ParamSpec(
        "max_points",
        None,
        _check_max_points,
        "at most this many points per curve (>= 2), chosen at score quantiles; None = all",
    )
)
declare_param(
    ParamSpec("eps", "auto", _check_eps, "log loss clips probabilities to [eps, 1 - eps]")
)

# --------------------------------------------------------------------------- registry
register(
    MetricSpec(
        "roc_curve",
        "classification/roc_curve.sql",
        "classification",
        "ROC curve: (fpr, tpr) at every distinct score as threshold",
        (LABEL, SCORE, WEIGHT),
        params=("drop_intermediate", "max_points", "pos_label"),
        undefined="fpr when no negative label, tpr when no positive label",
        output="table",
        defaults={"drop_intermediate": True},
        kernel="roc_curve_kernel",
    )
)
register(
    MetricSpec(
        "pr_curve",
        "classification/pr_curve.sql",
        "classification",
        "precision-recall curve: (recall, precision) at every distinct score as threshold",
        (LABEL, SCORE, WEIGHT),
        params=("drop_intermediate", "max_points", "pos_label"),
        undefined="recall when no positive label",
        output="table",
        defaults={"drop_intermediate": False},
        aliases=("precision_recall_curve",),
        kernel="pr_curve_kernel",
    )
)
register(
    MetricSpec(
        "average_precision",
        "classification/average_precision.sql",
        "classification",
        "average precision: sum_n (R_n - R_{n-1}) P_n over distinct scores (step-wise)",
        (LABEL, SCORE, WEIGHT),
        params=("zero_division", "pos_label"),
        undefined="no positive label (P = 0)",
        aliases=("average_precision_score",),
        kernel="average_precision_kernel",
        rank_based=True,
    )
)
register(
    MetricSpec(
        "log_loss",
        "classification/log_loss.sql",
        "classification",
        "mean binary cross-entropy -[y ln p + (1 - y) ln(1 - p)], p clipped to [eps, 1 - eps]",
        (LABEL, PROBABILITY, WEIGHT),
        params=("eps", "pos_label"),
        undefined="the weights sum to 0",
        aliases=("cross_entropy",),
        kernel="log_loss_kernel",
        inference=Inference(
            ci_methods=("t", "bootstrap"),
            paired="losses",
            tests=("t",),
            loss="ll",
            row_mean="ll",
        ),
        better="lower",
    )
)
register(
    MetricSpec(
        "brier_score",
        "classification/brier_score.sql",
        "classification",
        "Brier score: mean of (p - y)^2",
        (LABEL, PROBABILITY, WEIGHT),
        params=("pos_label",),
        undefined="the weights sum to 0",
        aliases=("brier_score_loss",),
        kernel="brier_score_kernel",
        inference=Inference(
            ci_methods=("t", "bootstrap"),
            paired="losses",
            tests=("t",),
            loss="sq",
            row_mean="sq",
        ),
        better="lower",
    )
)


# --------------------------------------------------------------------------- helpers
def _counts(frame: pd.DataFrame, columns: Sequence[str], weighted: bool) -> pd.DataFrame:
    for col in columns:
        frame[col] = frame[col].astype("float64" if weighted else "int64")
    return frame


def _warn_nan(frame: pd.DataFrame, metric: str, column: str, reason: str) -> None:
    if frame[column].isna().any():
        warn(
            f"{metric}: {column} is undefined ({reason}); returning NaN for it",
            UndefinedMetricWarning,
        )


def _scalar(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
    **params: Any,
) -> float | Interval:
    """A scalar binary metric's function body (this family's, calibration's and
    classification_separation's): its value, or with ``ci=`` its interval. ``params`` are
    the metric's options as passed (``pos_label`` and its own); a ``zero_division`` among them
    also gives the value of an undefined result (the convention's where None).
    """
    iv_request = ci_request(metric, ci, ci_method, n_boot, seed)
    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={**params, "convention": convention},
        ci=iv_request,
    )
    zero_division = "warn"
    if "zero_division" in params:
        zero_division = resolved(metric, "zero_division", params["zero_division"], convention)
    return ci_result(metric, scalar(frame, metric, zero_division), iv_request)


def _curve(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    drop_intermediate: bool,
    max_points: int | None,
    by: str | Sequence[str] | None,
    pos_label: Any,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    return compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={
            "drop_intermediate": drop_intermediate,
            "max_points": max_points,
            "pos_label": pos_label,
            "convention": convention,
        },
        by=by,
    )


def _roc_curve(metric: str, data: Any, **arguments: Any) -> pd.DataFrame:
    """roc_curve's body: the curve, a warning for a slice of one class, integer counts
    unweighted.
    """
    frame = _curve(metric, data, **arguments)
    _warn_nan(frame, metric, "fpr", "a slice has no negative label")
    _warn_nan(frame, metric, "tpr", "a slice has no positive label")
    return _counts(frame, ["tp", "fp", "tn", "fn"], arguments["weight"] is not None)


def _pr_curve(metric: str, data: Any, **arguments: Any) -> pd.DataFrame:
    """pr_curve's body: the curve, a warning for a slice without a positive label (recall 1
    there with ``convention="sklearn"``, 0 at the ``+inf`` point), integer counts unweighted.
    """
    frame = _curve(metric, data, **arguments)
    _warn_nan(frame, metric, "recall", "a slice has no positive label")
    if arguments["convention"] == "sklearn":  # recall 1 where no positive (0 at +inf)
        empty = frame["recall"].isna()
        frame.loc[empty, "recall"] = (frame.loc[empty, "fp"] > 0).astype(float)
    return _counts(frame, ["tp", "fp", "fn"], arguments["weight"] is not None)


# --------------------------------------------------------------------------- functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_classification_curves.py. The
# parameter tuples and the section texts below are shared with calibration.py and
# classification_separation.py.
_COLUMNS = ("label", "score", "weight")
_INTERVAL = ("ci", "ci_method", "n_boot", "seed", "convention", "con")
_ENGINE = ("convention", "con")

#: the examples' first lines: the same six rows for every binary metric
_DATA = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})"""

# Raises and Warns entries of several functions, here and in calibration.py (each ends without
# a newline: ``+`` joins them)
_BAD_PROBABILITIES_COUNTED = """
    InvalidDataError
        Probabilities outside [0, 1] (the message gives how many rows), NULLs, labels outside
        {0, 1}, negative weights, no rows."""
_BAD_EPS = """
    InvalidParameterError
        ``eps`` is not "auto" or a number in (0, 0.5)."""
_AS_ROC_CURVE = """
    ColumnNotFoundError, DataSourceError
        As in :func:`roc_curve`."""
_ROC_CURVE_DROP_INTERMEDIATE = Arg(
    "drop_intermediate",
    "bool",
    True,
    """
    drop_intermediate : bool, default True
        Drop points in the middle of a straight run of equal steps (scikit-learn's rule);
        they change no corner of the plotted curve and not its area.
    """,
)

_ROC_CURVE_MAX_POINTS = Arg(
    "max_points",
    "int | None",
    None,
    """
    max_points : int, optional
        Keep at most this many points (>= 2) per slice: the ``+inf`` point and
        ``max_points - 1`` exact points of the curve at score quantiles (see Notes). None
        keeps every point.
    """,
)

_ROC_CURVE = Function(
    "roc_curve",
    takes=("data", *_COLUMNS, "drop_intermediate", "max_points", "by", "pos_label", *_ENGINE),
    call=_roc_curve,
    summary="""
    Receiver operating characteristic (ROC) curve, computed in SQL.

    One point per distinct score: predicted positive when ``score >= threshold``. The first
    point has threshold ``+inf`` (nothing predicted positive, ``fpr = tpr = 0``). Equal to
    scikit-learn's ``roc_curve`` (same points, same order), with and without weights.
    """,
    returns="""
    pandas.DataFrame
        Columns ``[*by,] threshold, fpr, tpr, tp, fp, tn, fn``, ordered by slice, then
        threshold descending. Counts are ints, or floats (sums of weights) with ``weight``.
    """,
    raises="""
    ColumnNotFoundError
        A named column is missing (the message lists the columns present).
    InvalidDataError
        No rows; NULL labels, scores or weights; labels outside {0, 1}; NaN or infinite
        scores; negative weights; a non-numeric score.
    InvalidParameterError
        ``max_points`` is not an integer >= 2, or ``drop_intermediate`` not a bool.
    DataSourceError
        ``data`` names no existing table or file.
    """,
    warns="""
    UndefinedMetricWarning
        When a slice has no negative label (its ``fpr`` is NaN) or no positive label (its
        ``tpr`` is NaN), as scikit-learn.
    """,
    see_also="""
    auc : the area under this curve.
    pr_curve : the precision-recall curve.
    sqlmetrics.plot.roc : draw it.
    """,
    notes=r"""
    For a distinct score :math:`s`, :math:`tp(s)` and :math:`fp(s)` are the (weighted)
    positives and negatives with score :math:`\ge s`; :math:`tpr = tp / P`,
    :math:`fpr = fp / N`, :math:`tn = N - fp`, :math:`fn = P - tp`. Tied scores are one
    threshold, so a tie is one diagonal step of the curve (never split into an optimistic or
    pessimistic order).

    ``max_points``: a point whose cumulative (weighted) row count ``tp + fp`` is ``c`` out of
    ``n`` rows falls in bucket ``ceil(c (max_points - 1) / n)``, and the last point of each
    bucket is kept: the k-th kept point is the lowest threshold at which at most a share
    ``k / (max_points - 1)`` of the rows is predicted positive (score quantiles, as Spark's
    ``BinaryClassificationMetrics(numBins)`` down-sampling). Every kept point lies on the
    exact curve; the last (1, 1) point is always kept. A heavy tie spans several buckets and
    gives one point, so fewer points may come back. ``drop_intermediate`` applies first.
    """,
    references="""
    .. [1] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters
       27(8), 861-874.
    """,
    examples=_DATA
    + """
    >>> sqlmetrics.roc_curve(df)
       threshold       fpr       tpr  tp  fp  tn  fn
    0        inf  0.000000  0.000000   0   0   3   3
    1       0.80  0.000000  0.333333   1   0   3   2
    2       0.50  0.333333  0.666667   2   1   2   1
    3       0.40  0.666667  0.666667   2   2   1   1
    4       0.35  0.666667  1.000000   3   2   1   0
    5       0.10  1.000000  1.000000   3   3   0   0
    """,
    own=(
        _ROC_CURVE_DROP_INTERMEDIATE,
        _ROC_CURVE_MAX_POINTS,
    ),
    returns_type="pd.DataFrame",
    interval=False,
)

_PR_CURVE_DROP_INTERMEDIATE = Arg(
    "drop_intermediate",
    "bool",
    False,
    """
    drop_intermediate : bool, default False
        Drop points whose tp equals that of both neighbours (the inside of a vertical run at
        one recall), as scikit-learn's option of the same name.
    """,
)

_PR_CURVE_MAX_POINTS = Arg(
    "max_points",
    "int | None",
    None,
    """
    max_points : int, optional
        At most this many points (>= 2) per slice, chosen at score quantiles as in
        :func:`roc_curve`; the ``+inf`` point is one of them.
    """,
)

_PR_CURVE = Function(
    "pr_curve",
    takes=("data", *_COLUMNS, "drop_intermediate", "max_points", "by", "pos_label", *_ENGINE),
    call=_pr_curve,
    summary="""
    Precision-recall curve, computed in SQL.

    One point per distinct score: predicted positive when ``score >= threshold``, in
    ascending threshold order, then a last point at threshold ``+inf`` with recall 0 and
    precision 1. Equal to scikit-learn's ``precision_recall_curve`` (its ``thresholds`` are
    this frame's thresholds without the last row).
    """,
    returns="""
    pandas.DataFrame
        Columns ``[*by,] threshold, precision, recall, tp, fp, fn``, ordered by slice, then
        threshold ascending. Counts are ints, or floats with ``weight``.
    """,
    raises="""
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`roc_curve`.
    """,
    warns="""
    UndefinedMetricWarning
        When a slice has no positive label: its recall is NaN, or with
        ``convention="sklearn"`` 1 (0 at the ``+inf`` point), as scikit-learn.
    """,
    see_also="""
    average_precision : the step-wise area under this curve.
    sqlmetrics.plot.pr : draw it.
    """,
    notes=r"""
    :math:`precision = tp / (tp + fp)`, :math:`recall = tp / P`, :math:`fn = P - tp`, with
    :math:`tp, fp` the (weighted) positives and negatives with score :math:`\ge` threshold.
    Ties are one threshold. The ``+inf`` point has ``tp = fp = 0``; its precision 0/0 is
    set to 1 by convention (scikit-learn's). ``tp + fp > 0`` at every other point.
    """,
    references="""
    .. [1] Davis, J. and Goadrich, M. (2006). The relationship between precision-recall and
       ROC curves. ICML 2006.
    """,
    examples=_DATA
    + """
    >>> sqlmetrics.pr_curve(df)
       threshold  precision    recall  tp  fp  fn
    0       0.10   0.500000  1.000000   3   3   0
    1       0.35   0.600000  1.000000   3   2   0
    2       0.40   0.500000  0.666667   2   2   1
    3       0.50   0.666667  0.666667   2   1   1
    4       0.80   1.000000  0.333333   1   0   2
    5        inf   1.000000  0.000000   0   0   3
    """,
    own=(
        _PR_CURVE_DROP_INTERMEDIATE,
        _PR_CURVE_MAX_POINTS,
    ),
    returns_type="pd.DataFrame",
    interval=False,
)

_AVERAGE_PRECISION_ZERO_DIVISION = Arg(
    "zero_division",
    "float | str | None",
    None,
    """
    zero_division : {"warn", 0.0, 1.0, nan}, default "warn"
        Value when no label is positive: "warn" returns NaN with an UndefinedMetricWarning;
        scikit-learn returns 0 (``convention="sklearn"`` sets 0.0).
    """,
)

_AVERAGE_PRECISION = Function(
    "average_precision",
    takes=("data", *_COLUMNS, "pos_label", "zero_division", *_INTERVAL),
    call=_scalar,
    summary="""
    Average precision (AP): the step-wise area under the precision-recall curve.

    Not interpolated: scikit-learn's ``average_precision_score``.
    """,
    returns="""
    float
        AP in [0, 1], or NaN when there is no positive label.
    """,
    raises="""
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`roc_curve`.
    """,
    warns="""
    UndefinedMetricWarning
        When no label is positive; NaN is returned (scikit-learn returns 0 with a warning).
    """,
    see_also="""
    pr_curve : the curve it summarises.
    """,
    notes=r"""
    .. math:: AP = \sum_n (R_n - R_{n-1}) P_n

    over the distinct scores in descending order (:math:`R_0 = 0`), with :math:`P_n, R_n`
    the precision and recall at threshold :math:`s_n`. Equivalently, the mean over the
    (weighted) positives of the precision at their own score. Tied scores are one threshold:
    every positive of a tie gets the precision of the whole tie. Unlike the 11-point or
    all-point *interpolated* AP of PASCAL VOC, precision is not made monotone first.
    """,
    references="""
    .. [1] Manning, C. D., Raghavan, P. and Schütze, H. (2008). Introduction to Information
       Retrieval, section 8.4. Cambridge University Press.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.average_precision(df), 4)
    0.7556
    """,
    own=(_AVERAGE_PRECISION_ZERO_DIVISION,),
)

_LOG_LOSS_EPS = Arg(
    "eps",
    "float | str",
    "auto",
    """
    eps : "auto" or float, default "auto"
        Probabilities are clipped to ``[eps, 1 - eps]`` so that a confident mistake costs
        ``-ln(eps)``, not infinity. "auto" is the machine epsilon of a double
        (2.220446049250313e-16), as scikit-learn (>= 1.5) does; a number must satisfy
        ``0 < eps < 0.5``.
    """,
)

_LOG_LOSS = Function(
    "log_loss",
    takes=("data", *_COLUMNS, "eps", "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Log loss (binary cross-entropy) of predicted probabilities, in nats.

    Equal to scikit-learn's ``log_loss`` for a binary target.
    """,
    returns="""
    float
        The mean loss, >= 0 (0 is perfect; ln 2 = 0.693 for a constant 0.5).
    """,
    raises=_BAD_PROBABILITIES_COUNTED + _BAD_EPS + _AS_ROC_CURVE,
    warns=WARNS_NO_WEIGHT,
    see_also="""
    brier_score : the quadratic counterpart.
    """,
    notes=r"""
    .. math:: L = -\frac{\sum_i w_i [y_i \ln q_i + (1 - y_i) \ln(1 - q_i)]}{\sum_i w_i}

    with :math:`q_i` the probability clipped to :math:`[\epsilon, 1 - \epsilon]` (for label
    0, :math:`1 - p_i` is clipped). No ties are involved; never undefined with rows of
    positive weight.
    """,
    references="""
    .. [1] Bishop, C. M. (2006). Pattern Recognition and Machine Learning, section 4.3.2.
       Springer.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.log_loss(df), 4)
    0.5459
    """,
    own=(_LOG_LOSS_EPS,),
)

_BRIER_SCORE = Function(
    "brier_score",
    takes=("data", *_COLUMNS, "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Brier score: the mean squared difference between probability and label.

    Equal to scikit-learn's ``brier_score_loss`` for a binary target.
    """,
    returns="""
    float
        In [0, 1]; 0 is perfect, 0.25 is a constant 0.5.
    """,
    raises=_BAD_PROBABILITIES_COUNTED + _AS_ROC_CURVE,
    warns=WARNS_NO_WEIGHT,
    see_also="""
    log_loss : the logarithmic counterpart.
    """,
    notes=r"""
    .. math:: BS = \frac{\sum_i w_i (p_i - y_i)^2}{\sum_i w_i}

    No ties are involved; never undefined with rows of positive weight.
    """,
    references="""
    .. [1] Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
       Monthly Weather Review 78(1), 1-3.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.brier_score(df), 4)
    0.1888
    """,
)

#: the public functions of this module, generated into _api_classification_curves.py
API = (
    _ROC_CURVE,
    _PR_CURVE,
    _AVERAGE_PRECISION,
    _LOG_LOSS,
    _BRIER_SCORE,
)
