"""Beyond-accuracy metrics of recommendations: catalog coverage, distributional coverage
(entropy), the Gini index of item exposure, novelty.

``data`` holds the recommendations, one row per recommended (user, item), e.g. each user's
top k; only the ``item`` column enters these metrics. ``train=`` (a second input of any kind,
like ``qrels=``) holds the interactions that define the catalog and the items' popularity.
The definitions follow Microsoft Recommenders' ``python_evaluation`` (catalog_coverage,
distributional_coverage, novelty) and Shani & Gunawardana (2011) for the Gini index; the SQL
is ``sql/beyond/``.
"""

from __future__ import annotations

from typing import Any, overload

from .._core.registry import MetricSpec, Role, register
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, CiRequest, Interval, ci_request, ci_result
from ..errors import InvalidParameterError

__all__ = ["catalog_coverage", "distributional_coverage", "gini_index", "novelty"]

ITEM = Role("item", "key")

_SPECS = {
    # name: (summary, undefined)
    "catalog_coverage": ("distinct recommended items / distinct items of train= (Recommenders)",
                         "never"),
    "distributional_coverage": ("entropy (bits) of the items' recommendation frequencies "
                                "(Recommenders)", "never"),
    "gini_index": ("Gini index of the items' recommendation counts, over train='s catalog if "
                   "given", "a single item (no inequality to measure)"),
    "novelty": ("mean -log2 popularity in train= of the recommended items (Recommenders)",
                "never"),
}  # fmt: skip

for _name, (_summary, _undefined) in _SPECS.items():
    register(
        MetricSpec(
            _name,
            f"beyond/{_name}.sql",
            "beyond",
            _summary,
            (ITEM,),
            undefined=_undefined,
            kernel=f"{_name}_kernel",
            # a Gini index of 0: every item recommended as often (the diverse end)
            better="lower" if _name == "gini_index" else "higher",
        )
    )


def _beyond(
    name: str,
    data: Any,
    item: str,
    train: Any,
    con: Any,
    needs_train: bool,
    convention: str | None,
    ci: CiRequest | None = None,
) -> float:
    if needs_train and train is None:
        raise InvalidParameterError(
            f"{name}: train= is required: the interactions (one row per user-item event, with "
            f"the item column {item!r}) that define the catalog and the items' popularity"
        )
    extra = None if train is None else {"train": (train, [(ITEM, item)])}
    frame = compute(
        name,
        data,
        con=con,
        columns={"item": item},
        params={"convention": convention},
        extra_sources=extra,
        ci=ci,
    )
    return scalar(frame, name)


@overload
def catalog_coverage(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def catalog_coverage(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def catalog_coverage(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Catalog coverage: the share of the catalog's items recommended at least once.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation: the recommendations, one row per
        recommended (user, item), e.g. every user's top k.
    item : str, default "item"
        The item column, in ``data`` (and in ``train`` where the function takes it). No NULL.
    train : same kinds as ``data``
        The interactions (e.g. the training set) whose distinct items are the catalog.
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
        The coverage, in [0, 1] when every recommended item is in ``train``.

    Raises
    ------
    ColumnNotFoundError
        The item column is missing from ``data`` or ``train``.
    InvalidDataError
        No rows; NULL items; item ids that are numbers on one side and text on the other.
    InvalidParameterError
        ``train`` not given.
    DataSourceError
        ``data`` or ``train`` names no existing table or file.

    Notes
    -----
    .. math:: CC = \frac{|\{i : i \text{ recommended}\}|}{|\{i : i \in train\}|}

    As Microsoft Recommenders' ``catalog_coverage``: a recommended item absent from ``train``
    counts in the numerator. The SQL is ``sql/beyond/catalog_coverage.sql``.

    References
    ----------
    .. [1] Shani, G. and Gunawardana, A. (2011). Evaluating recommendation systems.
       Recommender Systems Handbook, 257-297.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> reco = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"]})
    >>> train = pd.DataFrame({"user": [1, 2, 2, 3, 3, 3], "item": list("abcdea")})
    >>> sqlmetrics.catalog_coverage(reco, train=train)
    0.6
    """
    iv_request = ci_request("catalog_coverage", ci, ci_method, n_boot, seed)
    return ci_result(
        "catalog_coverage",
        _beyond(
            "catalog_coverage",
            data,
            item,
            train,
            con,
            needs_train=True,
            convention=convention,
            ci=iv_request,
        ),
        iv_request,
    )


@overload
def distributional_coverage(
    data: Any,
    *,
    item: str = "item",
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def distributional_coverage(
    data: Any,
    *,
    item: str = "item",
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def distributional_coverage(
    data: Any,
    *,
    item: str = "item",
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Distributional coverage: the entropy, in bits, of how often each item is recommended.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation: the recommendations, one row per
        recommended (user, item), e.g. every user's top k.
    item : str, default "item"
        The item column, in ``data`` (and in ``train`` where the function takes it). No NULL.
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
        The entropy, >= 0: 0 when one item takes every recommendation, :math:`\log_2 m`
        when :math:`m` items are recommended equally often.

    Raises
    ------
    ColumnNotFoundError
        The item column is missing.
    InvalidDataError
        No rows; NULL items.
    DataSourceError
        ``data`` names no existing table or file.

    Notes
    -----
    .. math:: DC = -\sum_i p_i \log_2 p_i, \quad p_i = c_i / n

    with :math:`c_i` the rows recommending item :math:`i` and :math:`n` all rows: Microsoft
    Recommenders' ``distributional_coverage``. The SQL is
    ``sql/beyond/distributional_coverage.sql``.

    References
    ----------
    .. [1] Shani, G. and Gunawardana, A. (2011). Evaluating recommendation systems.
       Recommender Systems Handbook, 257-297 (eq. 21).

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> reco = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"]})
    >>> round(sqlmetrics.distributional_coverage(reco), 4)
    1.4591
    """
    iv_request = ci_request("distributional_coverage", ci, ci_method, n_boot, seed)
    return ci_result(
        "distributional_coverage",
        _beyond(
            "distributional_coverage",
            data,
            item,
            None,
            con,
            needs_train=False,
            convention=convention,
            ci=iv_request,
        ),
        iv_request,
    )


@overload
def gini_index(
    data: Any,
    *,
    item: str = "item",
    train: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def gini_index(
    data: Any,
    *,
    item: str = "item",
    train: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def gini_index(
    data: Any,
    *,
    item: str = "item",
    train: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Gini index of item exposure: how unequally the recommendations spread over the items.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation: the recommendations, one row per
        recommended (user, item), e.g. every user's top k.
    item : str, default "item"
        The item column, in ``data`` (and in ``train`` where the function takes it). No NULL.
    train : same kinds as ``data``, optional
        Interactions whose distinct items complete the catalog: items never recommended
        count with 0 recommendations. None: the recommended items only.
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
        The index in [0, 1): 0 when every item is recommended equally often; NaN for a
        single item.

    Raises
    ------
    ColumnNotFoundError
        The item column is missing from ``data`` or ``train``.
    InvalidDataError
        No rows; NULL items; item ids that are numbers on one side and text on the other.
    DataSourceError
        ``data`` or ``train`` names no existing table or file.

    Warns
    -----
    UndefinedMetricWarning
        When the catalog holds a single item; NaN is returned.

    Notes
    -----
    .. math:: G = \frac{\sum_{j=1}^{m} (2j - m - 1)\, c_{(j)}}{(m - 1)\, n}

    with :math:`c_{(1)} \le \dots \le c_{(m)}` the recommendation counts of the :math:`m`
    items and :math:`n` their sum (Shani & Gunawardana, eq. 20). The SQL is
    ``sql/beyond/gini_index.sql``.

    References
    ----------
    .. [1] Shani, G. and Gunawardana, A. (2011). Evaluating recommendation systems.
       Recommender Systems Handbook, 257-297 (eq. 20).

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> reco = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"]})
    >>> train = pd.DataFrame({"user": [1, 2, 2, 3, 3, 3], "item": list("abcdea")})
    >>> round(sqlmetrics.gini_index(reco), 4)
    0.3333
    >>> round(sqlmetrics.gini_index(reco, train=train), 4)
    0.6667
    """
    iv_request = ci_request("gini_index", ci, ci_method, n_boot, seed)
    return ci_result(
        "gini_index",
        _beyond(
            "gini_index",
            data,
            item,
            train,
            con,
            needs_train=False,
            convention=convention,
            ci=iv_request,
        ),
        iv_request,
    )


@overload
def novelty(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def novelty(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def novelty(
    data: Any,
    *,
    item: str = "item",
    train: Any,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Novelty: the mean self-information of the recommended items under train's popularity.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation: the recommendations, one row per
        recommended (user, item), e.g. every user's top k.
    item : str, default "item"
        The item column, in ``data`` (and in ``train`` where the function takes it). No NULL.
    train : same kinds as ``data``
        The interactions, one row per event: an item's popularity is its share of the rows.
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
        The novelty in bits, >= 0: higher for recommendations from the long tail.

    Raises
    ------
    ColumnNotFoundError
        The item column is missing from ``data`` or ``train``.
    InvalidDataError
        No rows; NULL items; item ids that are numbers on one side and text on the other.
    InvalidParameterError
        ``train`` not given.
    DataSourceError
        ``data`` or ``train`` names no existing table or file.

    Notes
    -----
    .. math:: novelty = \frac{1}{n} \sum_{r} -\log_2 \frac{t_{i_r}}{T}

    over the :math:`n` recommendation rows :math:`r` of item :math:`i_r`, with :math:`t_i`
    the rows of item :math:`i` in ``train`` and :math:`T` all its rows: Microsoft
    Recommenders' ``novelty`` (Castells et al.'s choice model). A recommended item absent
    from ``train`` adds 0 but counts in :math:`n`, as there. The SQL is
    ``sql/beyond/novelty.sql``.

    References
    ----------
    .. [1] Castells, P., Vargas, S. and Wang, J. (2011). Novelty and diversity metrics for
       recommender systems: choice, discovery and relevance. ECIR 2011 workshop DDR.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> reco = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"]})
    >>> train = pd.DataFrame({"user": [1, 2, 2, 3, 3, 3], "item": list("abcdea")})
    >>> round(sqlmetrics.novelty(reco, train=train), 4)
    2.085
    """
    iv_request = ci_request("novelty", ci, ci_method, n_boot, seed)
    return ci_result(
        "novelty",
        _beyond(
            "novelty",
            data,
            item,
            train,
            con,
            needs_train=True,
            convention=convention,
            ci=iv_request,
        ),
        iv_request,
    )
