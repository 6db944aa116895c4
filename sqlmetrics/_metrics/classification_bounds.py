"""Approximate metrics with guaranteed error bounds: ROC AUC from a score histogram."""

from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

from .._core.registry import Inference, MetricSpec, ParamSpec, Role, declare_param, register
from .._engine.run import compute, undefined
from .._inference.intervals import CiMethod, ci_request, to_interval
from ..errors import InvalidParameterError

__all__ = ["auc_bounds"]

MAX_BINS = 2**31 - 1


def check_bins(metric: str, name: str, value: Any) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Integral)
        or not 1 <= int(value) <= MAX_BINS
    ):
        raise InvalidParameterError(
            f"{metric}: {name}= must be an integer between 1 and {MAX_BINS} (a power of two, "
            f"e.g. 65536, makes the bounds nest as it grows); got {value!r}"
        )
    return int(value)


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


def auc_bounds(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    bins: int = 65536,
    weight: str | None = None,
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> AucBounds:
    r"""Approximate ROC AUC with lower and upper bounds that contain the exact AUC.

    Scores are put into ``bins`` equal-width buckets between their minimum and maximum, and
    positives and negatives are counted per bucket in one aggregation: no sort of the rows.
    Pairs in different buckets are ordered correctly and counted exactly; pairs in the same
    bucket count 1/2 in the estimate, 0 in ``lower`` and 1 in ``upper``. The exact AUC (as
    :func:`sqlmetrics.auc` computes it, ties counting 1/2) always lies in ``[lower, upper]``.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two values
        with ``pos_label``.
    score : str, default "score"
        Column of scores, any finite numbers; higher means label 1 more likely.
    bins : int, default 65536
        Number of buckets, between 1 and 2**31 - 1. More bins give tighter bounds (for powers
        of two the interval for ``2 * bins`` lies inside the one for ``bins``); the cost grows
        little with ``bins`` as long as the buckets fit in memory.
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight. None (default) weighs
        every row 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Not available here: this function returns two bounds (:class:`~sqlmetrics.AucBounds`),
        not one number, so ``ci=`` raises InvalidParameterError (the bounds already are guaranteed
        error bounds of the binned AUC; for an interval of the exact AUC: ``auc(..., ci=0.95)``).
    ci_method : str, optional
        Not available here (see ``ci``).
    n_boot : int, default 200
        Not available here (see ``ci``).
    seed : int, default 0
        Not available here (see ``ci``).
    convention : str, optional
        Follow another tool's definition: ``"trec_eval"``, ``"trec_eval_c"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` or ``"ir_measures"``
        (the README's conventions table lists what each sets). Options left out take the tool's
        values; an option passed explicitly wins where the tool can produce it, else it is an
        error.
    con : duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, optional
        The engine that runs the statement and holds ``data`` (and ``qrels=``, ``train=``) when
        they are table names. None (default): a fresh in-memory DuckDB connection. DuckDB: a
        ``duckdb`` connection, or a database file path (opened read-only). PostgreSQL: a
        SQLAlchemy ``Engine`` or ``Connection``. Spark: a ``pyspark.sql.SparkSession``.
        ClickHouse: a ``chdb`` session or connection (in process) or a ``clickhouse_connect``
        client (over HTTP). README, "Other engines".

    Returns
    -------
    AucBounds
        A named tuple ``(estimate, lower, upper)`` of floats with
        ``lower <= estimate <= upper`` and ``lower <= auc(data) <= upper``; its property
        ``half_width`` is the guaranteed error of ``estimate``. All three are NaN when
        undefined.

    Raises
    ------
    ColumnNotFoundError
        A named column is missing (the message lists the columns present).
    InvalidDataError
        No rows; NULL labels, scores or weights; labels outside {0, 1}; NaN or infinite
        scores; negative weights; a non-numeric score.
    InvalidParameterError
        ``bins`` is not an integer between 1 and 2**31 - 1.
    DataSourceError
        ``data`` names no existing table or file.

    Warns
    -----
    UndefinedMetricWarning
        When only one class is present; ``(nan, nan, nan)`` is returned.

    See Also
    --------
    auc : the exact AUC (one sort of all rows).

    Notes
    -----
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

    References
    ----------
    .. [1] Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a
       receiver operating characteristic (ROC) curve. Radiology 143(1), 29-36.
    .. [2] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters
       27(8), 861-874 (ROC AUC from score counts; ties as a trapezoid).

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> b = sqlmetrics.auc_bounds(df, bins=2)
    >>> [round(v, 4) for v in b]
    [0.6667, 0.4444, 0.8889]
    >>> b.lower <= sqlmetrics.auc(df) <= b.upper
    True
    >>> [round(v, 4) for v in sqlmetrics.auc_bounds(df)]  # 65536 bins: only the tie is left
    [0.7222, 0.6667, 0.7778]
    """
    iv_request = ci_request("auc_bounds", ci, ci_method, n_boot, seed)
    frame = compute(
        "auc_bounds",
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={"bins": bins, "pos_label": pos_label, "convention": convention},
        ci=iv_request,  # served as before; the call then refuses it (two bounds)
    )
    row = frame.iloc[0]
    values = [row["auc_bounds"], row["lower"], row["upper"]]
    if any(v is None or pd_isna(v) for v in values):
        nan = undefined("auc_bounds", "only one class present (P = 0 or N = 0)")
        bounds = AucBounds(nan, nan, nan)
    else:
        bounds = AucBounds(float(values[0]), float(values[1]), float(values[2]))
    if iv_request is not None:  # two bounds, not one number: raises
        to_interval("auc_bounds", bounds, iv_request)
    return bounds


def pd_isna(value: Any) -> bool:
    try:
        return bool(math.isnan(value))
    except TypeError:
        return False
