"""Where a metric's SQL runs: one small interface per engine (decision 0008).

The execution layer (``_source``, ``_engine``, ``_validate`` and the few functions that run a
query of their own) talks to a :class:`Backend` only; nothing else knows which engine runs.
:func:`backend_for` picks it from the type of ``con=``:

- None, a database file path, a ``duckdb`` connection, or an object with DuckDB's
  ``execute``/``register``/``unregister`` API (dbt-duckdb's cursor wrapper in a dbt Python
  model; unwrapped when it exposes the real connection): :class:`DuckDBBackend`;
- a SQLAlchemy ``Engine`` or ``Connection``: ``sqlmetrics._sqlalchemy.SQLAlchemyBackend``
  (PostgreSQL tested; Snowflake, BigQuery, Trino and DuckDB dialects mapped, untested);
- a ``pyspark.sql.SparkSession``: ``sqlmetrics._spark.SparkBackend``.

SQLAlchemy and pyspark are optional extras (``postgres``, ``spark``), imported on first use.

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
:meth:`~Backend.is_not_finite`, :meth:`~Backend.as_text`, :meth:`~Backend.tuple_text`
    the few check expressions that differ between engines.

Nothing a backend runs writes to the user's database; a Spark temporary view with the
``__sqlmetrics_`` prefix, dropped afterwards, is the one exception.
"""

from __future__ import annotations

import abc
import os
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb
import pandas as pd

from .errors import (
    DataSourceError,
    EngineError,
    InvalidDataError,
    SqlMetricsError,
)

#: a prefix no user object has: every name sqlmetrics registers or creates starts with it
PREFIX = "__sqlmetrics_"

#: the dialects a SQLAlchemy engine may speak, by SQLAlchemy dialect name
SQLALCHEMY_DIALECTS = {
    "postgresql": "postgres",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "trino": "trino",
    "duckdb": "duckdb",
}

SUPPORTED_CON = (
    "None (an in-memory DuckDB database), a DuckDB database file path, a duckdb connection, a "
    "SQLAlchemy Engine or Connection (PostgreSQL; Snowflake, BigQuery, Trino untested) or a "
    "pyspark.sql.SparkSession"
)

_NUMERIC = {
    "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
    "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC",
    "DOUBLE PRECISION", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8", "BYTE", "SHORT", "LONG",
    "INT64", "FLOAT64", "NUMBER", "BIGNUMERIC",
}  # fmt: skip
_FLOATING = {"FLOAT", "DOUBLE", "REAL", "DOUBLE PRECISION", "FLOAT4", "FLOAT8", "FLOAT64"}
_TEXT = {"VARCHAR", "STRING", "TEXT", "CHAR", "CHARACTER", "CHARACTER VARYING", "BPCHAR", "NAME"}


def unique_name() -> str:
    """A fresh name for something sqlmetrics registers: ``__sqlmetrics_<32 hex digits>``."""
    return f"{PREFIX}{uuid.uuid4().hex}"


def base_type(sql_type: str) -> str | None:
    """The bare upper-case type name of a scalar type (``NUMERIC(10, 2)`` -> ``NUMERIC``), or
    None for a list, array, struct or map (``DOUBLE[]``, ``STRUCT(a DOUBLE)``, ``array<int>``).
    """
    upper = sql_type.strip().upper()
    match = re.fullmatch(
        r"([A-Z][A-Z0-9_]*(?: [A-Z][A-Z0-9_]*)*)(\(\s*\d+(\s*,\s*\d+)?\s*\))?", upper
    )
    return match.group(1) if match else None


def type_family(sql_type: str) -> str:
    """What a value of this engine type compares with: ``"number"``, ``"text"``,
    ``"date/time"``, or, for anything else (booleans included), the type name upper-cased.
    """
    upper = sql_type.strip().upper()
    base = base_type(upper)
    if base in _NUMERIC:
        return "number"
    if base in _TEXT or upper.startswith("ENUM("):
        return "text"
    if upper.startswith(("TIMESTAMP", "DATE", "TIME")):
        return "date/time"
    return upper


class Backend(abc.ABC):
    """One engine that runs sqlmetrics' SQL (see the module docstring for the contract)."""

    name: str = ""
    dialect: str = ""
    errors: tuple[type[BaseException], ...] = ()
    interrupts: tuple[type[BaseException], ...] = ()

    # ---------------------------------------------------------------- running statements
    @abc.abstractmethod
    def query(self, sql: str) -> pd.DataFrame:
        """Run ``sql``; its result as a DataFrame (column names as the statement gives them)."""

    @abc.abstractmethod
    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql``; its result as a list of tuples of Python values."""

    # ---------------------------------------------------------------- relations and types
    @abc.abstractmethod
    def columns(self, relation: str) -> dict[str, str]:
        """The columns of ``relation`` (SQL after ``from``), in order, with their engine types."""

    def family(self, sql_type: str) -> str:
        """``"number"``, ``"boolean"``, ``"text"``, ``"date/time"`` or the type upper-cased."""
        if sql_type.strip().upper() in ("BOOLEAN", "BOOL"):
            return "boolean"
        return type_family(sql_type)

    def is_floating(self, sql_type: str) -> bool:
        """Whether a column of this type can hold NaN or infinities (checked before running)."""
        return base_type(sql_type) in _FLOATING

    @abc.abstractmethod
    def resolve_table(self, name: str) -> str | None:
        """The quoted SQL name of table or view ``name`` (schema-qualified allowed), or None;
        looked up in the catalog, never by a query that could fail.
        """

    @abc.abstractmethod
    def table_names(self) -> list[str]:
        """Names of the tables and views the user could pass (for the "not found" message)."""

    @abc.abstractmethod
    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        """Relation SQL for an in-memory object, removed on exit (also after an error); an
        engine that cannot take one raises :class:`DataSourceError` naming the fix.
        """

    @abc.abstractmethod
    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        """Relation SQL reading the Parquet/CSV files or globs ``paths``."""

    # ---------------------------------------------------------------- check expressions
    def ident(self, name: str) -> str:
        """``name`` quoted as an identifier of the backend's dialect."""
        from ._source import quote_ident

        return quote_ident(name, self.dialect)

    @abc.abstractmethod
    def is_not_finite(self, expr: str) -> str:
        """A boolean SQL expression: the floating value ``expr`` is NaN or infinite."""

    def as_text(self, expr: str) -> str:
        """``expr`` cast to the engine's string type."""
        return f"cast({expr} as varchar)"

    def tuple_text(self, exprs: Sequence[str]) -> str:
        """One string showing the values of ``exprs`` (a duplicated key in a message)."""
        return self.as_text("row(" + ", ".join(exprs) + ")")

    # ---------------------------------------------------------------- errors
    @abc.abstractmethod
    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        """Our error for engine error ``exc`` raised while checking or computing ``metric``
        on the inputs ``labels`` (``["data='events'"]``): the engine's name and message kept.
        """

    def close(self, failed: bool = False) -> None:  # noqa: B027 (optional: most open nothing)
        """Release what the backend opened for this call (not the user's connection), and
        leave the user's connection as it was; ``failed``: the call ended with an error.
        """


def engine_failed(
    backend: Backend, metric: str, labels: Sequence[str], exc: BaseException
) -> EngineError:
    """The generic wrap: ``<metric>: the engine failed on <inputs> on <engine>: <class>:
    <message>``, the message's first line (a driver's query excerpt left out).
    """
    where = " / ".join(labels) or "data"
    if f" on {backend.name}" not in where:
        where += f" on {backend.name}"
    lines = str(exc).strip().splitlines()
    message = lines[0].strip() if lines else ""
    return EngineError(f"{metric}: the engine failed on {where}: {type(exc).__name__}: {message}")


# --------------------------------------------------------------------------- DuckDB
_LOCKS_GUARD = threading.Lock()


def _lock_of(con: Any) -> threading.RLock:
    from ._source import _LOCKS

    with _LOCKS_GUARD:
        lock = _LOCKS.get(con)
        if lock is None:
            lock = _LOCKS[con] = threading.RLock()
        return lock


class DuckDBBackend(Backend):
    """DuckDB: the default engine. ``con`` is a connection or an object with its API."""

    name = "duckdb"
    dialect = "duckdb"
    errors = (duckdb.Error,)
    interrupts = (duckdb.InterruptException,)

    def __init__(self, con: Any, owned: bool = False) -> None:
        self.con = con
        self.owned = owned

    def query(self, sql: str) -> pd.DataFrame:
        return self.con.execute(sql).df()

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return list(self.con.execute(sql).fetchall())

    def columns(self, relation: str) -> dict[str, str]:
        rows = self.con.execute(f"describe select * from {relation}").fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def resolve_table(self, name: str) -> str | None:
        from ._source import resolve_table

        return resolve_table(self.con, name)

    def table_names(self) -> list[str]:
        from ._source import table_names

        return table_names(self.con)

    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        from ._source import _is_frame, _readable_many_times, quote_ident

        if not isinstance(obj, duckdb.DuckDBPyRelation) and not _is_frame(obj):
            raise DataSourceError(
                f"{metric}: {arg}= must be a table name, a Parquet/CSV path or glob, a pandas "
                f"DataFrame, a pyarrow Table or a DuckDB relation; got {type(obj).__name__}"
            )
        obj = _readable_many_times(metric, arg, obj)
        name = unique_name()
        try:
            self.con.register(name, obj)
        except duckdb.InvalidInputException as exc:
            raise DataSourceError(
                f"{metric}: {arg}= is a DuckDB relation of another connection; pass that "
                f"connection as con= ({exc})"
            ) from None
        try:
            yield quote_ident(name, self.dialect)
        finally:
            self.con.unregister(name)

    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        from ._source import _file_sql

        return _file_sql(metric, arg, paths)

    def is_not_finite(self, expr: str) -> str:
        return f"not isfinite({expr})"

    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        from ._source import engine_message

        where = " / ".join(labels) or "data"
        message = engine_message(exc)
        if isinstance(exc, (duckdb.ConversionException, duckdb.OutOfRangeException)):
            fix = (
                "the column type was detected from the first rows of the CSV: fix or drop that "
                "value, or load the file into a table with explicit column types and pass the "
                "table"
                if "CSV Error" in message
                else "fix or drop that value, or give the column one type in every file (e.g. "
                "load the files into a table with the column cast, and pass the table)"
            )
            return InvalidDataError(
                f"{metric}: {where} holds a value of the wrong type: {message}; {fix}"
            )
        if isinstance(exc, duckdb.InvalidInputException) and "schema mismatch" in message:
            return InvalidDataError(
                f"{metric}: {where}: the files do not have the same columns: {message}. Pass "
                f"only files with the same columns, or load them into one table first"
            )
        if isinstance(exc, (duckdb.IOException, duckdb.InvalidInputException)):
            return DataSourceError(f"{metric}: {where} cannot be read: {message}")
        return EngineError(
            f"{metric}: the engine failed on {where}: {type(exc).__name__}: {message}"
        )

    def close(self, failed: bool = False) -> None:
        if self.owned:
            self.con.close()


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
    connection runs one statement at a time and a result belongs to the connection).
    """
    from ._source import _open_database_file, _private_database

    if con is None:
        if isinstance(data, duckdb.DuckDBPyRelation):
            default = duckdb.default_connection()
            with _lock_of(default):
                yield DuckDBBackend(default)
            return
        backend: Backend = DuckDBBackend(_private_database().cursor(), owned=True)
    elif isinstance(con, (str, os.PathLike)):
        backend = DuckDBBackend(_open_database_file(os.fspath(con)), owned=True)
    elif _is_sqlalchemy(con):
        from ._sqlalchemy import SQLAlchemyBackend

        backend = SQLAlchemyBackend(con)
    elif _is_spark_session(con):
        from ._spark import SparkBackend  # type: ignore[import-not-found,unused-ignore]

        backend = SparkBackend(con)
    else:
        found = _duckdb_like(con)
        if found is None:
            raise DataSourceError(
                f"con= must be a duckdb connection, a database file path or None, a SQLAlchemy "
                f"Engine or Connection, or a pyspark.sql.SparkSession; got {type(con).__name__}"
            )
        with _lock_of(found):
            yield DuckDBBackend(found)
        return
    failed = False
    try:
        yield backend
    except BaseException:
        failed = True
        raise
    finally:
        backend.close(failed)
