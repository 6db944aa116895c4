"""How well a binary score separates the classes: the KS statistic, the partial ROC AUC
(McClish-standardised, as scikit-learn's ``roc_auc_score(max_fpr=)``) and the lift / gains
table by score deciles.

Templates: ``sql/classification/ks_statistic.sql``, ``partial_auc.sql``, ``lift_table.sql``;
the ROC points shared by the first two in ``sql/_macros/kernels/score_points.sql``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.params import Arg, Function
from .._core.registry import (
    REGISTRY,
    MetricSpec,
    Number,
    ParamSpec,
    Role,
    declare_param,
    register,
)
from .._engine.run import compute
from ..errors import UndefinedMetricWarning, warn
from . import calibration as _calibration  # noqa: F401  (declares n_bins=)
from .classification_curves import _COLUMNS, _DATA, _ENGINE, _INTERVAL, _scalar

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_classification_separation.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

LABEL = Role("label", "binary")
SCORE = Role("score", "score")
WEIGHT = Role("weight", "weight", required=False)


_check_max_fpr = Number(
    "a number with 0 < max_fpr <= 1 (the false positive rate the area stops at; 1 is the "
    "whole ROC AUC)",
    low=0,
    low_in=False,
    high=1,
)

declare_param(
    ParamSpec(
        "max_fpr",
        1.0,
        _check_max_fpr,
        "the partial area stops at this false positive rate, 0 < max_fpr <= 1",
    )
)

register(
    MetricSpec(
        "ks_statistic",
        "classification/ks_statistic.sql",
        "classification",
        "Kolmogorov-Smirnov statistic: max over thresholds of |TPR - FPR|",
        (LABEL, SCORE, WEIGHT),
        params=("pos_label",),
        undefined="no positive or no negative label",
        aliases=("ks",),
        kernel="score_points_kernel",
        rank_based=True,
    )
)
register(
    MetricSpec(
        "ks_point",
        "classification/ks_statistic.sql",
        "classification",
        "the KS statistic with the threshold where it occurs and TPR, FPR there",
        (LABEL, SCORE, WEIGHT),
        params=("pos_label",),
        undefined="no positive or no negative label",
        output="table",
        kernel="score_points_kernel",
    )
)
register(
    MetricSpec(
        "partial_auc",
        "classification/partial_auc.sql",
        "classification",
        "ROC AUC up to FPR = max_fpr, McClish-standardised (scikit-learn roc_auc_score(max_fpr=))",
        (LABEL, SCORE, WEIGHT),
        params=("max_fpr", "pos_label"),
        undefined="no positive or no negative label",
        kernel="score_points_kernel",
        rank_based=True,
    )
)
_check_min_precision = Number(
    "a number with 0 <= min_precision <= 1 (the precision an operating point must reach)",
    low=0,
    high=1,
)
_check_min_recall = Number(
    "a number with 0 <= min_recall <= 1 (the recall an operating point must reach)",
    low=0,
    high=1,
)
declare_param(
    ParamSpec(
        "min_precision",
        0.5,
        _check_min_precision,
        "recall_at_precision: the precision an operating point must reach, 0 <= min_precision <= 1",
    )
)
declare_param(
    ParamSpec(
        "min_recall",
        0.5,
        _check_min_recall,
        "precision_at_recall: the recall an operating point must reach, 0 <= min_recall <= 1",
    )
)

# the operating points: the best point of the precision-recall or ROC curve under a constraint
register(
    MetricSpec(
        "recall_at_precision",
        "classification/recall_at_precision.sql",
        "classification",
        "largest recall over thresholds whose precision >= min_precision (torchmetrics "
        "BinaryRecallAtFixedPrecision)",
        (LABEL, SCORE, WEIGHT),
        params=("min_precision", "pos_label"),
        undefined="no positive label, or no threshold reaches min_precision",
        kernel="score_points_kernel",
        rank_based=True,
    )
)
register(
    MetricSpec(
        "precision_at_recall",
        "classification/precision_at_recall.sql",
        "classification",
        "largest precision over thresholds whose recall >= min_recall (torchmetrics "
        "BinaryPrecisionAtFixedRecall)",
        (LABEL, SCORE, WEIGHT),
        params=("min_recall", "pos_label"),
        undefined="no positive label",
        kernel="score_points_kernel",
        rank_based=True,
    )
)
register(
    MetricSpec(
        "tpr_at_fpr",
        "classification/tpr_at_fpr.sql",
        "classification",
        "largest true positive rate over ROC points whose FPR <= max_fpr",
        (LABEL, SCORE, WEIGHT),
        params=("max_fpr", "pos_label"),
        undefined="no positive or no negative label",
        # partial_auc's max_fpr=1.0 (the whole curve) would make this 1 by definition
        defaults={"max_fpr": 0.1},
        kernel="score_points_kernel",
        rank_based=True,
    )
)
register(
    MetricSpec(
        "operating_points",
        "classification/operating_points.sql",
        "classification",
        "recall_at_precision, precision_at_recall and tpr_at_fpr with the thresholds reaching them",
        (LABEL, SCORE, WEIGHT),
        params=("min_precision", "min_recall", "max_fpr", "pos_label"),
        undefined="as each of the three (NaN value and threshold there)",
        defaults={"max_fpr": 0.1},
        output="table",
        kernel="operating_points_kernel",
    )
)
register(
    MetricSpec(
        "lift_table",
        "classification/lift_table.sql",
        "classification",
        "lift and cumulative gains per score bin (deciles), ties kept in one bin",
        (LABEL, SCORE),
        params=("n_bins", "pos_label"),
        undefined="lift and gain when no positive label",
        output="table",
        aliases=("gains_table",),
        kernel="lift_table_kernel",
    )
)


def _ks_point(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    pos_label: Any,
    by: str | Sequence[str] | None,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    """ks_point's body: the table, and a warning for the slices of one class."""
    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={"pos_label": pos_label, "convention": convention},
        by=by,
    )
    if frame["ks_statistic"].isna().any():
        warn(
            f"{metric}: ks_statistic is undefined (no positive or no negative label) in "
            f"{int(frame['ks_statistic'].isna().sum())} slice(s); NaN there",
            UndefinedMetricWarning,
        )
    return frame


#: the operating points, each with the reason it may be undefined (its spec's), in order
_OPERATING = ("recall_at_precision", "precision_at_recall", "tpr_at_fpr")


def _operating_points(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    min_precision: float,
    min_recall: float,
    max_fpr: float,
    pos_label: Any,
    by: str | Sequence[str] | None,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    """operating_points' body: the table with each value beside its threshold, and a
    warning for each value undefined in a slice.
    """
    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={
            "min_precision": min_precision,
            "min_recall": min_recall,
            "max_fpr": max_fpr,
            "pos_label": pos_label,
            "convention": convention,
        },
        by=by,
    )
    for name in _OPERATING:
        undefined = int(frame[name].isna().sum())
        if undefined:
            warn(
                f"{metric}: {name} is undefined ({REGISTRY[name].undefined}) in {undefined} "
                f"slice(s); NaN there",
                UndefinedMetricWarning,
            )
    slices = [c for c in frame.columns if c not in _OPERATING and not c.endswith("_threshold")]
    ordered = [c for name in _OPERATING for c in (name, f"{name}_threshold")]
    return frame[[*slices, *ordered]]


def _lift_table(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    n_bins: int,
    pos_label: Any,
    by: str | Sequence[str] | None,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    """lift_table's body: the table with integer counts, and a warning for a slice without a
    positive label.
    """
    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score},
        params={"n_bins": n_bins, "pos_label": pos_label, "convention": convention},
        by=by,
    )
    for col in ("bin", "n", "n_pos", "cumulative_n", "cumulative_pos"):
        frame[col] = frame[col].astype("int64")
    if frame["gain"].isna().any():
        warn(
            f"{metric}: lift and gain are undefined (no positive label) in a slice; NaN there",
            UndefinedMetricWarning,
        )
    return frame


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_classification_separation.py.
_BAD_SCORES = """
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, negative weights, no rows."""
_WARNS_ONE_CLASS = """
    UndefinedMetricWarning
        When only one class is present; NaN is returned."""


_KS_STATISTIC = Function(
    "ks_statistic",
    takes=("data", *_COLUMNS, "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Kolmogorov-Smirnov statistic: the largest gap between TPR and FPR over thresholds.
    """,
    returns="""
    float
        In [0, 1]; 1 when a threshold separates the classes perfectly.
    """,
    raises=_BAD_SCORES,
    warns=_WARNS_ONE_CLASS,
    see_also="""
    ks_point : the same with the threshold where the maximum occurs.
    """,
    notes=r"""
    .. math:: KS = \max_t |TPR(t) - FPR(t)|

    over the distinct scores ``t`` as thresholds (predict 1 for ``score >= t``); rows of
    equal score form one threshold. For unit weights this is the two-sample statistic
    :math:`\sup_x |F_1(x) - F_0(x)|` of the scores of the positives and of the negatives
    (``scipy.stats.ks_2samp``).
    """,
    references="""
    .. [1] Smirnov, N. (1948). Table for estimating the goodness of fit of empirical
       distributions. Annals of Mathematical Statistics 19(2), 279-281.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.ks_statistic(df), 4)
    0.3333
    """,
)

_KS_POINT = Function(
    "ks_point",
    takes=("data", *_COLUMNS, "pos_label", "by", *_ENGINE),
    call=_ks_point,
    summary="""
    The KS statistic with the threshold where it occurs, per slice.
    """,
    returns="""
    pandas.DataFrame
        One row per slice: ``ks_statistic``, ``threshold`` (the largest score ``t`` where
        ``|TPR(t) - FPR(t)|`` is largest; predict 1 for ``score >= t``), ``tpr``, ``fpr``
        (the rates at that threshold).
    """,
    raises=_BAD_SCORES,
    warns="""
    UndefinedMetricWarning
        When a slice holds one class only (NaN there).
    """,
    see_also="""
    ks_statistic : the statistic alone (usable in :func:`sqlmetrics.evaluate`).
    """,
    notes="""
    The definition is :func:`ks_statistic`'s; of several thresholds reaching the maximum the
    highest is reported.
    """,
    examples=_DATA
    + """
    >>> sqlmetrics.ks_point(df).round(4)
       ks_statistic  threshold     tpr  fpr
    0        0.3333        0.8  0.3333  0.0
    """,
    returns_type="pd.DataFrame",
    interval=False,
)

_PARTIAL_AUC_MAX_FPR = Arg(
    "max_fpr",
    "float",
    1.0,
    """
    max_fpr : float, default 1.0
        The area is taken over ``0 <= FPR <= max_fpr``, ``0 < max_fpr <= 1``; 1 gives the
        plain ROC AUC.
    """,
)

_PARTIAL_AUC = Function(
    "partial_auc",
    takes=("data", *_COLUMNS, "max_fpr", "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Partial ROC AUC up to a false positive rate, McClish-standardised.

    Equal to scikit-learn's ``roc_auc_score(y, s, max_fpr=max_fpr)``.
    """,
    returns="""
    float
        In [0, 1] (standardised: 0.5 for a random score, 1 for a perfect one).
    """,
    raises=_BAD_SCORES
    + """
    InvalidParameterError
        ``max_fpr`` not a number in (0, 1].""",
    warns=_WARNS_ONE_CLASS,
    see_also="""
    auc : the whole area.
    """,
    notes=r"""
    .. math:: pAUC = \frac{1}{2}\left(1 + \frac{A_m - m^2/2}{m - m^2/2}\right),
              \quad A_m = \int_0^m TPR \, d(FPR)

    with the ROC curve's trapezoids (rows of equal score form one point, so a tied
    positive/negative pair counts one half) and the segment crossing ``FPR = m`` cut there by
    linear interpolation, as scikit-learn does.
    """,
    references="""
    .. [1] McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision
       Making 9(3), 190-195.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.partial_auc(df, max_fpr=0.5), 4)
    0.7037
    """,
    own=(_PARTIAL_AUC_MAX_FPR,),
)

_LIFT_TABLE_N_BINS = Arg(
    "n_bins",
    "int",
    10,
    """
    n_bins : int, default 10
        Number of bins (10: deciles), 1 to 1000.
    """,
)

_LIFT_TABLE = Function(
    "lift_table",
    takes=("data", "label", "score", "n_bins", "pos_label", "by", *_ENGINE),
    call=_lift_table,
    summary="""
    Lift and cumulative gains per score bin (deciles by default), highest scores first.
    """,
    returns="""
    pandas.DataFrame
        One row per non-empty bin, bin 1 holding the highest scores: ``bin``, ``n``,
        ``n_pos``, ``min_score``, ``max_score``, ``response_rate`` (positives / rows),
        ``lift`` (response rate / overall rate), ``cumulative_n``, ``cumulative_pos``,
        ``gain`` (share of all positives in bins 1..b) and ``cumulative_lift``.
    """,
    raises="""
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, no rows.
    InvalidParameterError
        ``n_bins`` not an integer in [1, 1000].
    """,
    warns="""
    UndefinedMetricWarning
        When a slice has no positive label (its lift and gain are NaN).
    """,
    see_also="""
    sqlmetrics.plot.gains : the cumulative gains and lift plot.
    """,
    notes="""
    A row's bin is ``1 + floor(n_bins * r / n)``, ``r`` the number of rows with a strictly
    higher score and ``n`` the rows of the slice: rows of equal score are never split between
    bins, each bin holds ``n / n_bins`` rows when the scores are distinct, and heavy ties make
    some bins larger and leave others empty (not listed).
    """,
    references="""
    .. [1] Ling, C. X. and Li, C. (1998). Data mining for direct marketing: problems and
       solutions. KDD'98.
    """,
    examples=_DATA
    + """
    >>> sqlmetrics.lift_table(df, n_bins=3)[["bin", "n", "n_pos", "lift", "gain"]].round(4)
       bin  n  n_pos    lift    gain
    0    1  3      2  1.3333  0.6667
    1    2  1      0  0.0000  0.6667
    2    3  2      1  1.0000  1.0000
    """,
    own=(_LIFT_TABLE_N_BINS,),
    returns_type="pd.DataFrame",
    interval=False,
)


def _operating_point(
    name: str, level: str, levels: str, entry: str, default: float, example: str, **sections: Any
) -> Function:
    """A declaration of an operating point: one rate, in [0, 1], at the thresholds where another
    reaches ``level`` (a number in ``levels``, its entry's description ``entry``).
    """
    return Function(
        name,
        takes=("data", *_COLUMNS, level, "pos_label", *_INTERVAL),
        call=_scalar,
        returns="""
    float
        In [0, 1].
    """,
        raises=_BAD_SCORES
        + f"""
    InvalidParameterError
        ``{level}`` not a number in {levels}.""",
        examples=_DATA + example,
        own=(Arg(level, "float", default, f"\n    {level} : float, default {default}{entry}"),),
        **sections,
    )


_RECALL_AT_PRECISION = _operating_point(
    "recall_at_precision",
    "min_precision",
    "[0, 1]",
    """
        The precision a threshold must reach, ``0 <= min_precision <= 1``.
    """,
    0.5,
    """
    >>> round(sqlmetrics.recall_at_precision(df, min_precision=0.65), 4)
    0.6667
    """,
    summary="""
    The largest recall among the thresholds whose precision reaches ``min_precision``.

    torchmetrics' ``BinaryRecallAtFixedPrecision`` (its value; NaN where it gives 0, below).
    """,
    warns="""
    UndefinedMetricWarning
        When there is no positive label or no threshold reaches ``min_precision``; NaN is
        returned (torchmetrics returns 0 there).
    """,
    see_also="""
    operating_points : the value with the threshold reaching it, per slice.
    precision_at_recall, tpr_at_fpr : the other operating points.
    """,
    notes="""
    Over the distinct scores ``t`` as thresholds (predict 1 for ``score >= t``; rows of equal
    score form one threshold), with ``recall(t) = tp(t) / P`` and
    ``precision(t) = tp(t) / (tp(t) + fp(t))`` (weighted counts), as scikit-learn's
    ``precision_recall_curve``: the largest ``recall(t)`` with ``precision(t) >=
    min_precision``. Its threshold (:func:`operating_points`) is torchmetrics' lexicographic
    argmax: the largest recall, then the largest precision, then the largest threshold.
    """,
)

_PRECISION_AT_RECALL = _operating_point(
    "precision_at_recall",
    "min_recall",
    "[0, 1]",
    """
        The recall a threshold must reach, ``0 <= min_recall <= 1``.
    """,
    0.5,
    """
    >>> round(sqlmetrics.precision_at_recall(df, min_recall=0.9), 4)
    0.6
    """,
    summary="""
    The largest precision among the thresholds whose recall reaches ``min_recall``.

    torchmetrics' ``BinaryPrecisionAtFixedRecall`` (its value).
    """,
    warns="""
    UndefinedMetricWarning
        When there is no positive label; NaN is returned.
    """,
    see_also="""
    operating_points : the value with the threshold reaching it, per slice.
    recall_at_precision, tpr_at_fpr : the other operating points.
    """,
    notes="""
    Over the distinct scores ``t`` as thresholds, as :func:`recall_at_precision`: the largest
    ``precision(t)`` with ``recall(t) >= min_recall``. Its threshold
    (:func:`operating_points`): the largest precision, then the largest recall, then the
    largest threshold (torchmetrics' lexicographic argmax).
    """,
)

_TPR_AT_FPR = _operating_point(
    "tpr_at_fpr",
    "max_fpr",
    "(0, 1]",
    """
        The largest false positive rate allowed, ``0 < max_fpr <= 1`` (1 allows every point:
        TPR 1). In :func:`sqlmetrics.evaluate` a ``max_fpr=`` passed applies to
        :func:`partial_auc` too; left out, each takes its own default (0.1 here, 1.0 there).
    """,
    0.1,
    """
    >>> round(sqlmetrics.tpr_at_fpr(df, max_fpr=0.5), 4)
    0.6667
    """,
    summary="""
    The largest true positive rate among the ROC points whose false positive rate is at most
    ``max_fpr``.
    """,
    warns=_WARNS_ONE_CLASS,
    see_also="""
    operating_points : the value with the threshold reaching it, per slice.
    partial_auc : the area of the same part of the ROC curve.
    """,
    notes="""
    Over the points of scikit-learn's ``roc_curve(drop_intermediate=False)``: one per
    distinct score ``t`` (predict 1 for ``score >= t``) and ``(0, 0)`` above the highest
    score, with weighted rates: the largest ``TPR(t)`` with ``FPR(t) <= max_fpr`` (0 when
    only ``(0, 0)`` qualifies). Its threshold (:func:`operating_points`): the largest TPR,
    then the smallest FPR, then the largest threshold.
    """,
)

_OPERATING_POINTS = Function(
    "operating_points",
    takes=(
        "data",
        *_COLUMNS,
        "min_precision",
        "min_recall",
        "max_fpr",
        "pos_label",
        "by",
        *_ENGINE,
    ),
    call=_operating_points,
    summary="""
    Recall at a precision, precision at a recall and TPR at an FPR, each with the threshold
    reaching it, per slice.

    torchmetrics' ``BinaryRecallAtFixedPrecision`` and ``BinaryPrecisionAtFixedRecall``
    (value and threshold) and the ROC curve's read-off, in one pass over the score points.
    """,
    returns="""
    pandas.DataFrame
        One row per slice: ``recall_at_precision``, ``recall_at_precision_threshold``,
        ``precision_at_recall``, ``precision_at_recall_threshold``, ``tpr_at_fpr``,
        ``tpr_at_fpr_threshold`` (predict 1 for ``score >= threshold``). A threshold is NaN
        where its value is, and ``tpr_at_fpr_threshold`` where only the ROC point above the
        highest score (scikit-learn's threshold ``inf``) meets ``max_fpr``.
    """,
    raises=_BAD_SCORES
    + """
    InvalidParameterError
        ``min_precision`` or ``min_recall`` not a number in [0, 1], ``max_fpr`` not one in
        (0, 1].""",
    warns="""
    UndefinedMetricWarning
        For each value undefined in a slice (NaN there), as in its own function.
    """,
    see_also="""
    recall_at_precision, precision_at_recall, tpr_at_fpr : each value alone (usable in
        :func:`sqlmetrics.evaluate`, with intervals).
    """,
    notes="""
    The definitions, ties and tie-breaks of the thresholds are those of the three functions:
    the threshold of recall_at_precision is that of the largest recall, then the largest
    precision, then the largest score (torchmetrics' lexicographic argmax); of
    precision_at_recall the largest precision, then recall, then score; of tpr_at_fpr the
    largest TPR, then the smallest FPR, then the largest score.
    """,
    examples=_DATA
    + """
    >>> op = sqlmetrics.operating_points(df, min_precision=0.65, min_recall=0.9, max_fpr=0.5)
    >>> op.round(4).T
                                        0
    recall_at_precision            0.6667
    recall_at_precision_threshold  0.5000
    precision_at_recall            0.6000
    precision_at_recall_threshold  0.3500
    tpr_at_fpr                     0.6667
    tpr_at_fpr_threshold           0.5000
    """,
    own=(
        Arg(
            "min_precision",
            "float",
            0.5,
            """
    min_precision : float, default 0.5
        The precision recall_at_precision's threshold must reach, ``0 <= min_precision <= 1``.
    """,
        ),
        Arg(
            "min_recall",
            "float",
            0.5,
            """
    min_recall : float, default 0.5
        The recall precision_at_recall's threshold must reach, ``0 <= min_recall <= 1``.
    """,
        ),
        Arg(
            "max_fpr",
            "float",
            0.1,
            """
    max_fpr : float, default 0.1
        The largest false positive rate tpr_at_fpr allows, ``0 < max_fpr <= 1``.
    """,
        ),
    ),
    returns_type="pd.DataFrame",
    interval=False,
)

#: the public functions of this module, generated into _api_classification_separation.py
API = (
    _KS_STATISTIC,
    _KS_POINT,
    _PARTIAL_AUC,
    _LIFT_TABLE,
    _RECALL_AT_PRECISION,
    _PRECISION_AT_RECALL,
    _TPR_AT_FPR,
    _OPERATING_POINTS,
)
