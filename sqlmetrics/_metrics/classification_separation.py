"""How well a binary score separates the classes: the KS statistic, the partial ROC AUC
(McClish-standardised, as scikit-learn's ``roc_auc_score(max_fpr=)``) and the lift / gains
table by score deciles.

Templates: ``sql/classification/ks_statistic.sql``, ``partial_auc.sql``, ``lift_table.sql``;
the ROC points shared by the first two in ``sql/_macros/kernels/score_points.sql``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from .._core.registry import MetricSpec, ParamSpec, Role, declare_param, register
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import InvalidParameterError, UndefinedMetricWarning, warn
from . import calibration as _calibration  # noqa: F401  (declares n_bins=)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ks_point", "ks_statistic", "lift_table", "partial_auc"]

LABEL = Role("label", "binary")
SCORE = Role("score", "score")
WEIGHT = Role("weight", "weight", required=False)


def _check_max_fpr(metric: str, name: str, value: Any) -> float:
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < float(value) <= 1
    ):
        return float(value)
    raise InvalidParameterError(
        f"{metric}: {name}= must be a number with 0 < max_fpr <= 1 (the false positive rate "
        f"the area stops at; 1 is the whole ROC AUC); got {value!r}"
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


def _columns(label: str, score: str, weight: str | None) -> dict[str, str | None]:
    return {"label": label, "score": score, "weight": weight}


@overload
def ks_statistic(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def ks_statistic(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def ks_statistic(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Kolmogorov-Smirnov statistic: the largest gap between TPR and FPR over thresholds.

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
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight. None (default) weighs
        every row 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` ``(value,
        lo, hi, level, method)`` instead of a float. None (default): the float alone.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The interval's method; None: this metric's default, 'bootstrap' (the methods that apply:
        'bootstrap'; README, "How sure is the number?").
    n_boot : int, default 200
        Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives the
        same interval on every engine and under any row order.
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
    float
        In [0, 1]; 1 when a threshold separates the classes perfectly.

    Raises
    ------
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, negative weights, no rows.

    Warns
    -----
    UndefinedMetricWarning
        When only one class is present; NaN is returned.

    See Also
    --------
    ks_point : the same with the threshold where the maximum occurs.

    Notes
    -----
    .. math:: KS = \max_t |TPR(t) - FPR(t)|

    over the distinct scores ``t`` as thresholds (predict 1 for ``score >= t``); rows of
    equal score form one threshold. For unit weights this is the two-sample statistic
    :math:`\sup_x |F_1(x) - F_0(x)|` of the scores of the positives and of the negatives
    (``scipy.stats.ks_2samp``).

    References
    ----------
    .. [1] Smirnov, N. (1948). Table for estimating the goodness of fit of empirical
       distributions. Annals of Mathematical Statistics 19(2), 279-281.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.ks_statistic(df), 4)
    0.3333
    """
    iv_request = ci_request("ks_statistic", ci, ci_method, n_boot, seed)
    frame = compute(
        "ks_statistic",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={"pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result("ks_statistic", scalar(frame, "ks_statistic"), iv_request)


def ks_point(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    by: str | Sequence[str] | None = None,
    convention: str | None = None,
    con: Any = None,
) -> pd.DataFrame:
    r"""The KS statistic with the threshold where it occurs, per slice.

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
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight. None (default) weighs
        every row 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    by : str or list of str, optional
        Slice columns: one result (curve, row or table) per distinct combination of their
        values, the slice columns first.
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
    pandas.DataFrame
        One row per slice: ``ks_statistic``, ``threshold`` (the largest score ``t`` where
        ``|TPR(t) - FPR(t)|`` is largest; predict 1 for ``score >= t``), ``tpr``, ``fpr``
        (the rates at that threshold).

    Raises
    ------
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, negative weights, no rows.

    Warns
    -----
    UndefinedMetricWarning
        When a slice holds one class only (NaN there).

    See Also
    --------
    ks_statistic : the statistic alone (usable in :func:`sqlmetrics.evaluate`).

    Notes
    -----
    The definition is :func:`ks_statistic`'s; of several thresholds reaching the maximum the
    highest is reported.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> sqlmetrics.ks_point(df).round(4)
       ks_statistic  threshold     tpr  fpr
    0        0.3333        0.8  0.3333  0.0
    """
    frame = compute(
        "ks_point",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={"pos_label": pos_label, "convention": convention},
        by=by,
    )
    if frame["ks_statistic"].isna().any():
        warn(
            "ks_point: ks_statistic is undefined (no positive or no negative label) in "
            f"{int(frame['ks_statistic'].isna().sum())} slice(s); NaN there",
            UndefinedMetricWarning,
        )
    return frame


@overload
def partial_auc(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    max_fpr: float = 1.0,
    pos_label: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def partial_auc(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    max_fpr: float = 1.0,
    pos_label: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def partial_auc(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    max_fpr: float = 1.0,
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Partial ROC AUC up to a false positive rate, McClish-standardised.

    Equal to scikit-learn's ``roc_auc_score(y, s, max_fpr=max_fpr)``.

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
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight. None (default) weighs
        every row 1.
    max_fpr : float, default 1.0
        The area is taken over ``0 <= FPR <= max_fpr``, ``0 < max_fpr <= 1``; 1 gives the
        plain ROC AUC.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` ``(value,
        lo, hi, level, method)`` instead of a float. None (default): the float alone.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The interval's method; None: this metric's default, 'bootstrap' (the methods that apply:
        'bootstrap'; README, "How sure is the number?").
    n_boot : int, default 200
        Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives the
        same interval on every engine and under any row order.
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
    float
        In [0, 1] (standardised: 0.5 for a random score, 1 for a perfect one).

    Raises
    ------
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, negative weights, no rows.
    InvalidParameterError
        ``max_fpr`` not a number in (0, 1].

    Warns
    -----
    UndefinedMetricWarning
        When only one class is present; NaN is returned.

    See Also
    --------
    auc : the whole area.

    Notes
    -----
    .. math:: pAUC = \frac{1}{2}\left(1 + \frac{A_m - m^2/2}{m - m^2/2}\right),
              \quad A_m = \int_0^m TPR \, d(FPR)

    with the ROC curve's trapezoids (rows of equal score form one point, so a tied
    positive/negative pair counts one half) and the segment crossing ``FPR = m`` cut there by
    linear interpolation, as scikit-learn does.

    References
    ----------
    .. [1] McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision
       Making 9(3), 190-195.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.partial_auc(df, max_fpr=0.5), 4)
    0.7037
    """
    iv_request = ci_request("partial_auc", ci, ci_method, n_boot, seed)
    frame = compute(
        "partial_auc",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={"max_fpr": max_fpr, "pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result("partial_auc", scalar(frame, "partial_auc"), iv_request)


def lift_table(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    n_bins: int = 10,
    pos_label: Any = None,
    by: str | Sequence[str] | None = None,
    convention: str | None = None,
    con: Any = None,
) -> pd.DataFrame:
    r"""Lift and cumulative gains per score bin (deciles by default), highest scores first.

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
    n_bins : int, default 10
        Number of bins (10: deciles), 1 to 1000.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    by : str or list of str, optional
        Slice columns: one result (curve, row or table) per distinct combination of their
        values, the slice columns first.
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
    pandas.DataFrame
        One row per non-empty bin, bin 1 holding the highest scores: ``bin``, ``n``,
        ``n_pos``, ``min_score``, ``max_score``, ``response_rate`` (positives / rows),
        ``lift`` (response rate / overall rate), ``cumulative_n``, ``cumulative_pos``,
        ``gain`` (share of all positives in bins 1..b) and ``cumulative_lift``.

    Raises
    ------
    InvalidDataError
        NULLs, non-finite scores, labels outside {0, 1}, no rows.
    InvalidParameterError
        ``n_bins`` not an integer in [1, 1000].

    Warns
    -----
    UndefinedMetricWarning
        When a slice has no positive label (its lift and gain are NaN).

    See Also
    --------
    sqlmetrics.plot.gains : the cumulative gains and lift plot.

    Notes
    -----
    A row's bin is ``1 + floor(n_bins * r / n)``, ``r`` the number of rows with a strictly
    higher score and ``n`` the rows of the slice: rows of equal score are never split between
    bins, each bin holds ``n / n_bins`` rows when the scores are distinct, and heavy ties make
    some bins larger and leave others empty (not listed).

    References
    ----------
    .. [1] Ling, C. X. and Li, C. (1998). Data mining for direct marketing: problems and
       solutions. KDD'98.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> sqlmetrics.lift_table(df, n_bins=3)[["bin", "n", "n_pos", "lift", "gain"]].round(4)
       bin  n  n_pos    lift    gain
    0    1  3      2  1.3333  0.6667
    1    2  1      0  0.0000  0.6667
    2    3  2      1  1.0000  1.0000
    """
    frame = compute(
        "lift_table",
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
            "lift_table: lift and gain are undefined (no positive label) in a slice; NaN there",
            UndefinedMetricWarning,
        )
    return frame
