"""Where a metric's SQL runs: one small interface per engine (decision 0008).

The execution layer (``source``, ``_engine``, ``_validate`` and the few functions that run a
query of their own) talks to a :class:`Backend` only; nothing else knows which engine runs.
:func:`backend_for` picks it from the type of ``con=``:

- None, a database file path, a ``duckdb`` connection, or an object with DuckDB's
  ``execute``/``register``/``unregister`` API (dbt-duckdb's cursor wrapper in a dbt Python
  model; unwrapped when it exposes the real connection): :class:`DuckDBBackend`;
- a SQLAlchemy ``Engine`` or ``Connection``: ``sqlalchemy_backend.SQLAlchemyBackend``
  (PostgreSQL tested; Snowflake, BigQuery, Trino and DuckDB dialects mapped, untested);
- a ``pyspark.sql.SparkSession``: ``spark_backend.SparkBackend``;
- a ``chdb`` session or connection (in-process ClickHouse) or a ``clickhouse_connect`` client
  (a ClickHouse server over HTTP): ``clickhouse_backend.ClickHouseBackend``, one backend with a
  thin transport for each;
- an Ibis backend of one of those engines (or, without ``con=``, an Ibis table expression's
  own backend): the connection it holds, run as above (``ibis_source``).

SQLAlchemy, pyspark, chdb and clickhouse_connect are optional extras (``postgres``, ``spark``,
``clickhouse``), imported on first use.

A backend provides, and the rest of sqlmetrics uses nothing else:

``name``
    the engine's name in messages (``"duckdb"``, ``"postgres"``, ``"spark"``);
``dialect``
    the render dialect handed to the templates;
``errors`` / ``interrupts``
    the engine's exception classes: the first are wrapped by :meth:`Backend.wrap_error`, the
    second (a user's Ctrl-C inside the engine) are re-raised as they are;
:meth:`~Backend.query` / :meth:`~Backend.rows`
    run a statement, as a DataFrame or as tuples;
:meth:`~Backend.columns`, :meth:`~Backend.family`, :meth:`~Backend.is_floating`
    a relation's columns and their engine type names, and what a type holds;
:meth:`~Backend.resolve_table` / :meth:`~Backend.table_names`
    a table or view name looked up in the catalog (never a failing probe query, which would
    abort the user's open transaction);
:meth:`~Backend.register` / :meth:`~Backend.files`
    the relation SQL of an in-memory object (registered under a unique ``__sqlmetrics_`` name
    and removed afterwards, also on failure) or of data files; an engine that cannot read them
    refuses with the fix;
:meth:`~Backend.derived`
    a select statement as a relation (``where=``'s filtered rows; PostgreSQL's differs);
:meth:`~Backend.message`
    an engine error's message on one line (``where=``'s cause);
:meth:`~Backend.is_not_finite`, :meth:`~Backend.as_text`, :meth:`~Backend.tuple_text`
    the few check expressions that differ between engines.

Nothing a backend runs writes to the user's database; a Spark temporary view with the
``__sqlmetrics_`` prefix, dropped afterwards, is the one exception.

The modules: ``base`` (the interface), ``files`` (paths, globs, folders), ``duckdb_backend``,
``sqlalchemy_backend``, ``spark_backend`` and ``clickhouse_backend`` (one per engine),
``config`` (the limits of the private DuckDB database), ``source`` (``data=`` resolved on a
backend), and here :func:`backend_for`, which picks the engine. SQLAlchemy, pyspark, chdb and
clickhouse_connect are imported on first use: lazy on purpose.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import duckdb

from ..errors import DataSourceError, SqlMetricsError
from .base import Backend, closing
from .clickhouse_backend import ClickHouseBackend, is_chdb, is_clickhouse_connect
from .config import with_progress
from .duckdb_backend import DuckDBBackend, lock_of, open_database_file, private_database
from .ibis_source import default_backend, expression_backend, is_ibis_backend, is_ibis_table
from .ibis_source import native_connection as ibis_native_connection
from .source import Filtered, Replayed, Source, open_source

__all__ = ["Backend", "DuckDBBackend", "backend_for", "on_source"]

T = TypeVar("T")


def _duckdb_like(con: Any) -> Any:
    """The DuckDB connection behind ``con``, ``con`` itself if it only behaves as one (has
    ``execute``, ``register`` and ``unregister``), or None.

    dbt-duckdb hands a Python model a cursor wrapper (``DuckDBCursorWrapper``, itself inside a
    ``DuckDBConnectionWrapper``) that keeps the real cursor in ``_cursor``; the real one is
    used when it can be found, a few wrappers deep.
    """
    inner = con
    for _ in range(4):
        if isinstance(inner, duckdb.DuckDBPyConnection):
            return inner
        inner = next(
            (
                found
                for attribute in ("_cursor", "_conn", "_connection", "connection")
                if (found := getattr(inner, attribute, None)) is not None
            ),
            None,
        )
        if inner is None:
            break
    if all(callable(getattr(con, m, None)) for m in ("execute", "register", "unregister")):
        return con
    return None


def _is_spark_session(con: Any) -> bool:
    cls = type(con)
    return cls.__name__ == "SparkSession" and cls.__module__.startswith("pyspark.")


def _is_sqlalchemy(con: Any) -> bool:
    return any(
        c.__module__.startswith("sqlalchemy.") and c.__name__ in ("Engine", "Connection")
        for c in type(con).__mro__
    )


@contextmanager
def backend_for(con: Any, data: Any = None) -> Iterator[Backend]:
    """The backend that runs on ``con`` for one call; what it opened is closed on exit.

    A connection the user passed is held under a lock of its own for the whole call (a DuckDB
    connection runs one statement at a time and a result belongs to the connection); so is a
    ClickHouse one: a ClickHouse server runs one query at a time per HTTP session and refuses a
    second (SESSION_IS_LOCKED), a clickhouse_connect client keeps one session and refuses
    concurrent queries itself; chdb documents its sessions as safe to share between threads,
    and is held the same way for one rule on every engine.
    """
    while isinstance(data, (Filtered, Replayed)):  # the engine of the data it reads
        data = data.data
    if con is None and is_ibis_table(data):  # the expression's own backend (ibis_source)
        con = expression_backend(data) or default_backend()
    if is_ibis_backend(con):  # its connection, run by that engine's backend
        with ibis_native_connection(con) as native, backend_for(native, data) as held:
            held.ibis = con
            yield held
        return
    if con is None:
        if isinstance(data, duckdb.DuckDBPyRelation):
            default = duckdb.default_connection()
            with lock_of(default), closing(DuckDBBackend(default)) as held:
                yield held
            return
        backend: Backend = DuckDBBackend(with_progress(private_database().cursor()), owned=True)
    elif isinstance(con, (str, os.PathLike)):
        backend = DuckDBBackend(with_progress(open_database_file(os.fspath(con))), owned=True)
    elif _is_sqlalchemy(con):
        from .sqlalchemy_backend import SQLAlchemyBackend

        backend = SQLAlchemyBackend(con)
    elif _is_spark_session(con):
        from .spark_backend import SparkBackend  # type: ignore[import-not-found,unused-ignore]

        backend = SparkBackend(con)
    elif is_chdb(con) or is_clickhouse_connect(con):
        with lock_of(con):
            yield ClickHouseBackend(con)
        return
    else:
        found = _duckdb_like(con)
        if found is None:
            raise DataSourceError(
                f"con= must be a duckdb connection, a database file path or None, a SQLAlchemy "
                f"Engine or Connection, a pyspark.sql.SparkSession, a chdb session or "
                f"connection, a clickhouse_connect client, or an Ibis backend of one of "
                f"them; got {type(con).__name__}"
            )
        with lock_of(found), closing(DuckDBBackend(found)) as held:
            yield held
        return
    with closing(backend) as held:
        yield held


def on_source(caller: str, data: Any, con: Any, body: Callable[[Source], T]) -> T:
    """``body(source)`` on the engine that holds ``data`` (``con``; None: DuckDB), its engine
    errors wrapped as the library's, naming ``caller`` and the data (an interrupt and the
    library's own errors pass as they are).
    """
    labels: list[str] = []
    with backend_for(con, data) as backend:
        try:
            with open_source(data, backend, caller) as source:
                labels.append(f"data={source.label}")
                return body(source)
        except SqlMetricsError:
            raise
        except backend.errors as exc:
            if isinstance(exc, backend.interrupts):
                raise
            raise backend.wrap_error(caller, labels, exc) from None
