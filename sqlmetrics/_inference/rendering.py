"""``render(..., ci=)``: the SQL of a metric, with its interval when asked (the engine's
``render`` writes the metric; the interval's statement is this layer's, ``intervals.interval_sql``).
"""

from __future__ import annotations

import os
from typing import Any

from .._engine.render import render as render_metric
from .._engine.render import render_call
from .._engine.run import render_sql
from .intervals import CiMethod, check_ci, ci_request, interval_sql

__all__ = ["render"]


def render(
    metric: str,
    data: str | os.PathLike[str] = "source_table",
    *,
    by: str | list[str] | None = None,
    dialect: str = "duckdb",
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    **params: Any,
) -> str:
    """Return the SQL that ``metric`` runs, without running it, in the SQL of ``dialect``.

    Parameters
    ----------
    metric : str
        A metric name as :func:`evaluate` takes it (``"auc"``, ``"ndcg@10"``) or a registered
        name (``"ndcg"``, with ``k=``; curves too), see :func:`metric_names`.
    data : str or path, default "source_table"
        A table name (quoted as an identifier) or a Parquet/CSV path (read with DuckDB's
        ``read_parquet`` / ``read_csv``).
    by : str or list of str, optional
        Slice columns: one output row per distinct combination.
    dialect : str, default "duckdb"
        One of ``duckdb``, ``postgres``, ``spark``, ``bigquery``, ``snowflake``, ``trino``,
        ``clickhouse``: the SQL dialect written: its float and exact integer types,
        identifier quoting and file reader (``sql/_macros/shared/dialect.sql``). DuckDB,
        PostgreSQL, Spark SQL and ClickHouse run in the tests; BigQuery, Snowflake and Trino
        are rendered and parsed back only. A file path renders for DuckDB (any file) and
        Spark (Parquet) only. ClickHouse SQL runs with ``join_use_nulls = 1,
        cast_keep_nullable = 1, aggregate_functions_null_for_empty = 1`` (standard NULLs;
        ``con=`` a chdb session sets them per statement).
    **params
        Column names (``label="click"``, ``score="pctr"``, ``weight=``, ``group=``, ...),
        ``qrels=`` (ranking metrics: a table name or Parquet/CSV path of judgments, with the
        ``group``/``item``/``label`` columns), ``train=`` (beyond-accuracy metrics: a table name
        or path of interactions with the ``item`` column) and the metric's options (``threshold=``,
        ``weighting=``, ``k=``, ...).
    ci : float, optional
        A confidence level in (0, 1): the statement gives the metric's interval too, computed
        in the warehouse, as the metric function's ``ci=`` computes it (the same bounds, bit
        for bit, on the same engine). Methods written as SQL: ``"bootstrap"`` (every scalar
        metric), ``"delong"`` (AUC), ``"wilson"`` (the proportions, unweighted; hit_rate) and
        ``"t"`` (the means over groups: ranking metrics, GAUC; its t factor is an exact
        literal table for df = 1..1000 and the Cornish-Fisher expansion above, as Python's);
        weighted Wilson finishes in Python and is refused (the error names the methods that
        render).
    ci_method, n_boot, seed
        As for the metric functions: the method (None: the metric's default), the bootstrap's
        replicates and seed.

    Returns
    -------
    str
        The SQL text of the metric's own template. Slice columns come out as ``slice_0``,
        ``slice_1``, ...; :func:`render_evaluate` names them and composes several metrics.
        With ``ci=``: the slices, the value under the metric's name, then ``<metric>_lo`` and
        ``<metric>_hi`` (NULL where the value or the interval is undefined).

    Raises
    ------
    UnknownMetricError
        ``metric`` is not registered (the message suggests the nearest name).
    InvalidParameterError
        An option the metric does not accept, or a value out of range; an unknown
        ``dialect`` (the message names the nearest one), a file path for a dialect that
        reads no file; ``ci=`` with a method that is not SQL alone (weighted ``"wilson"``),
        or on a metric that returns a table.

    Examples
    --------
    >>> import sqlmetrics
    >>> print(sqlmetrics.render("precision", "events", label="click", threshold=0.3))
    ... # doctest: +ELLIPSIS
    with source as (...
    >>> "cast(0.3e0 as float64)" in sqlmetrics.render("precision", "events", threshold=0.3,
    ...                                                dialect="bigquery")
    True
    >>> sql = sqlmetrics.render("auc", "events", label="click", score="pctr", ci=0.95)
    >>> "ci_method" not in sql and '"auc_lo"' in sql
    True
    """
    if ci is None:
        ci_request("render", None, ci_method, n_boot, seed)  # ci_method= needs ci=
        return render_metric(metric, data, by=by, dialect=dialect, **params)
    call = render_call(metric, data, by, dialect, params)
    request = check_ci(call.spec.name, ci, ci_method, n_boot, seed)
    metric_sql = render_sql(
        call.spec, call.relation, call.columns, call.params, call.by, call.extra,
        dialect=call.dialect,
    )  # fmt: skip
    return interval_sql(request, call, metric_sql)
