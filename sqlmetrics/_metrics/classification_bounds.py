"""Approximate metrics with guaranteed error bounds: ROC AUC from a score histogram."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from .._core.params import Arg, Function
from .._core.registry import Inference, MetricSpec, Number, ParamSpec, Role, declare_param, register
from .._engine.run import compute, undefined
from .._inference.intervals import CiMethod, ci_request, to_interval
from .classification import EXAMPLE_AUC, HANLEY, RAISES_COLUMNS, RAISES_SOURCE

#: the public function is declared at the end of this module (API) and generated into
#: ``_api_classification_bounds.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

MAX_BINS = 2**31 - 1


check_bins = Number(
    f"an integer between 1 and {MAX_BINS} (a power of two, e.g. 65536, makes the bounds nest "
    "as it grows)",
    kind="int",
    low=1,
    high=MAX_BINS,
)

declare_param(
    ParamSpec(
        "bins",
        65536,
        check_bins,
        "number of equal-width score buckets per slice, between min and max score",
    )
)

register(
    MetricSpec(
        "auc_bounds",
        "classification/auc_bounds.sql",
        "classification",
        "ROC AUC from a histogram of `bins` score buckets, with bounds that contain the exact AUC",
        (Role("label", "binary"), Role("score", "score"), Role("weight", "weight", required=False)),
        params=("bins", "pos_label"),
        undefined="only one class present (P = 0 or N = 0)",
        kernel="auc_bounds_kernel",
        inference=Inference(intervals=False),  # two bounds, not one number
    )
)


class AucBounds(NamedTuple):
    """Result of :func:`auc_bounds`: ``lower <= exact AUC <= upper``, ``estimate`` midway."""

    estimate: float
    lower: float
    upper: float

    @property
    def half_width(self) -> float:
        """The guaranteed error of ``estimate``: ``(upper - lower) / 2``."""
        return (self.upper - self.lower) / 2


def pd_isna(value: Any) -> bool:
    try:
        return bool(math.isnan(value))
    except TypeError:
        return False


def _auc_bounds(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    bins: int,
    weight: str | None,
    pos_label: Any,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
) -> AucBounds:
    """The body of auc_bounds: the three numbers of the binned AUC (``ci=`` refused)."""
    iv_request = ci_request(name, ci, ci_method, n_boot, seed)
    frame = compute(
        name,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={"bins": bins, "pos_label": pos_label, "convention": convention},
        ci=iv_request,  # served as before; the call then refuses it (two bounds)
    )
    row = frame.iloc[0]
    values = [row[name], row["lower"], row["upper"]]
    if any(v is None or pd_isna(v) for v in values):
        nan = undefined(name, "only one class present (P = 0 or N = 0)")
        bounds = AucBounds(nan, nan, nan)
    else:
        bounds = AucBounds(float(values[0]), float(values[1]), float(values[2]))
    if iv_request is not None:  # two bounds, not one number: raises
        to_interval(name, bounds, iv_request)
    return bounds


# ----------------------------------------------------------------------------- the function
# Declared (decision 0013): ``python -m tools.api`` writes it into _api_classification_bounds.py.
_INTERVAL = ("ci", "ci_method", "n_boot", "seed", "convention", "con")

_BINS = Arg(
    "bins",
    "int",
    65536,
    """
    bins : int, default 65536
        Number of buckets, between 1 and 2**31 - 1. More bins give tighter bounds (for powers
        of two the interval for ``2 * bins`` lies inside the one for ``bins``); the cost grows
        little with ``bins`` as long as the buckets fit in memory.
    """,
)


_CI = Arg(
    "ci",
    "float | None",
    None,
    """
    ci : float, optional
        Not available here: this function returns two bounds (:class:`~sqlmetrics.AucBounds`),
        not one number, so ``ci=`` raises InvalidParameterError (the bounds already are guaranteed
        error bounds of the binned AUC; for an interval of the exact AUC: ``auc(..., ci=0.95)``).
    """,
)


_N_BOOT = Arg(
    "n_boot",
    "int",
    200,
    """
    n_boot : int, default 200
        Not available here (see ``ci``).
    """,
)


_SEED = Arg(
    "seed",
    "int",
    0,
    """
    seed : int, default 0
        Not available here (see ``ci``).
    """,
)


_AUC_BOUNDS = Function(
    "auc_bounds",
    takes=("data", "label", "score", "bins", "weight", "pos_label", *_INTERVAL),
    call=_auc_bounds,
    summary="""
    Approximate ROC AUC with lower and upper bounds that contain the exact AUC.

    Scores are put into ``bins`` equal-width buckets between their minimum and maximum, and
    positives and negatives are counted per bucket in one aggregation: no sort of the rows.
    Pairs in different buckets are ordered correctly and counted exactly; pairs in the same
    bucket count 1/2 in the estimate, 0 in ``lower`` and 1 in ``upper``. The exact AUC (as
    :func:`sqlmetrics.auc` computes it, ties counting 1/2) always lies in ``[lower, upper]``.
    """,
    returns="""
    AucBounds
        A named tuple ``(estimate, lower, upper)`` of floats with
        ``lower <= estimate <= upper`` and ``lower <= auc(data) <= upper``; its property
        ``half_width`` is the guaranteed error of ``estimate``. All three are NaN when
        undefined.
    """,
    raises=RAISES_COLUMNS
    + """    InvalidParameterError
        ``bins`` is not an integer between 1 and 2**31 - 1.
"""
    + RAISES_SOURCE,
    warns="""
    UndefinedMetricWarning
        When only one class is present; ``(nan, nan, nan)`` is returned.
    """,
    see_also="""
    auc : the exact AUC (one sort of all rows).
    """,
    notes=r"""
    With :math:`p_b, n_b` the positives and negatives in bucket :math:`b`, :math:`P, N` their
    totals and :math:`n_{<b} = \sum_{c<b} n_c`,

    .. math::

        D = \sum_b p_b n_{<b}, \quad S = \sum_b p_b n_b, \quad
        \widehat{AUC} = \frac{D + S/2}{PN}, \quad
        \frac{D}{PN} \le AUC \le \frac{D + S}{PN}.

    The half-width :math:`S / (2PN)` is the share of positive/negative pairs that fall in the
    same bucket, halved: about ``1 / bins`` times how concentrated the scores are, so it
    shrinks quickly unless many rows share nearly the same score (at most the share of pairs
    with exactly tied scores, which the exact AUC also counts 1/2 and which no number of bins
    separates). Bucketing is ``floor((s/2 - lo/2) / (hi/2 - lo/2) * bins)`` clamped to
    ``bins - 1``: monotone in floating point, so equal scores share a bucket and a higher
    score never lands in a lower bucket. Without weights the counts are exact integers, so
    the bounds hold for the returned doubles, not only in exact arithmetic; with weights they
    hold up to the rounding of the weighted sums. The SQL is
    ``sql/classification/auc_bounds.sql``; :func:`render` shows it.
    """,
    references=HANLEY
    + """    .. [2] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters
       27(8), 861-874 (ROC AUC from score counts; ties as a trapezoid).
    """,
    examples=EXAMPLE_AUC
    + """    >>> b = sqlmetrics.auc_bounds(df, bins=2)
    >>> [round(v, 4) for v in b]
    [0.6667, 0.4444, 0.8889]
    >>> b.lower <= sqlmetrics.auc(df) <= b.upper
    True
    >>> [round(v, 4) for v in sqlmetrics.auc_bounds(df)]  # 65536 bins: only the tie is left
    [0.7222, 0.6667, 0.7778]
    """,
    own=(_BINS, _CI, _N_BOOT, _SEED),
    returns_type="AucBounds",
    interval=False,
)


#: the public function of this module, generated into _api_classification_bounds.py
API = (_AUC_BOUNDS,)
