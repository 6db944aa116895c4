"""The ClickHouse backend: metrics run on in-process ClickHouse, a ``chdb`` session or
connection (``con=chdb.session.Session()`` or ``chdb.connect()``).

``data`` is a table or view of the session (``db.table`` allowed), looked up in
``system.tables``. Nothing is written: no table, no view, no setting. Templates render with
dialect ``clickhouse``; each statement carries the settings the templates need in its own
``SETTINGS`` clause (:data:`SETTINGS`), so the session's settings are the user's before, during
and after the call. Results come back as DataFrames (one row per slice, never the data).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._templating.quoting import quote_ident, quote_literal
from ..errors import ColumnNotFoundError, DataSourceError, InvalidDataError, SqlMetricsError
from .base import PREFIX, Backend, engine_failed

if TYPE_CHECKING:
    import pandas as pd

#: the settings each statement runs with (standard SQL where ClickHouse's default differs):
#: an unmatched outer-join row holds NULL, not the type's default (0, ''), which anti-joins and
#: `missing` policies read; ``cast(NULL as T)`` is NULL, not an error; an aggregate over no row
#: (``sum``, ``max``) is NULL, not 0
SETTINGS = {
    "join_use_nulls": 1,
    "cast_keep_nullable": 1,
    "aggregate_functions_null_for_empty": 1,
}

#: ClickHouse error codes and the error class sqlmetrics raises for them (as on DuckDB)
_CODES: dict[int, type[SqlMetricsError]] = {
    47: ColumnNotFoundError,  # UNKNOWN_IDENTIFIER
    16: ColumnNotFoundError,  # NO_SUCH_COLUMN_IN_TABLE
    60: DataSourceError,  # UNKNOWN_TABLE
    81: DataSourceError,  # UNKNOWN_DATABASE
    6: InvalidDataError,  # CANNOT_PARSE_TEXT
    27: InvalidDataError,  # CANNOT_PARSE_INPUT_ASSERTION_FAILED
    70: InvalidDataError,  # CANNOT_CONVERT_TYPE
    72: InvalidDataError,  # CANNOT_PARSE_NUMBER
}


def is_chdb(con: Any) -> bool:
    """Whether ``con`` is a chdb session or connection (by type: chdb is not imported)."""
    return any(
        c.__module__.startswith("chdb.") and c.__name__ in ("Session", "Connection")
        for c in type(con).__mro__
    )


def clickhouse_code(exc: BaseException) -> int | None:
    """The ClickHouse error code of ``exc`` (``Code: 47. DB::Exception: ...``), or None."""
    match = re.search(r"Code: (\d+)\.", str(exc))
    return int(match.group(1)) if match else None


def clickhouse_message(exc: BaseException) -> str:
    """The engine's message on one line, without the code prefix, the echoed query scope and
    the stack trace.
    """
    text = str(exc)
    text = re.sub(r"^.*?Code: \d+\. DB::Exception: ", "", text, flags=re.S)
    for marker in (" In scope ", ": In scope ", "Stack trace", " (version "):
        text = text.split(marker)[0]
    return " ".join(text.split()).rstrip(". :;")


class ClickHouseBackend(Backend):
    """ClickHouse SQL on the chdb session or connection passed as ``con=``."""

    name = "clickhouse"
    dialect = "clickhouse"

    def __init__(self, con: Any) -> None:
        from chdb._exceptions import ChdbError

        self.con = con
        self.errors = (ChdbError,)
        self.interrupts = ()

    # ---------------------------------------------------------------- running statements
    def _sql(self, sql: str) -> str:
        settings = ", ".join(f"{k} = {v}" for k, v in SETTINGS.items())
        return f"{sql.rstrip().rstrip(';')}\nSETTINGS {settings}"

    def query(self, sql: str) -> pd.DataFrame:
        import pandas as pd

        frame = self.con.query(self._sql(sql), "DataFrame")
        if not isinstance(frame, pd.DataFrame):  # a statement without a result
            return pd.DataFrame()
        return as_duckdb_frame(frame)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        frame = self.query(sql)
        return [
            tuple(None if _is_missing(v) else v for v in row)
            for row in frame.itertuples(index=False, name=None)
        ]

    # ---------------------------------------------------------------- relations and types
    def columns(self, relation: str) -> dict[str, str]:
        frame = self.con.query(f"DESCRIBE (SELECT * FROM {relation})", "DataFrame")
        return {str(n): str(t) for n, t in zip(frame["name"], frame["type"])}

    def _tables(self, where: str) -> list[tuple[str, str]]:
        frame = self.con.query(
            f"SELECT database, name FROM system.tables WHERE {where} ORDER BY database, name",
            "DataFrame",
        )
        if frame is None or not len(frame):
            return []
        return [(str(d), str(n)) for d, n in zip(frame["database"], frame["name"])]

    def resolve_table(self, name: str) -> str | None:
        lit = quote_literal(name, self.dialect)
        found = self._tables(f"database = currentDatabase() AND name = {lit}")
        if not found and "." in name:
            database, _, table = name.partition(".")
            d, t = quote_literal(database, self.dialect), quote_literal(table, self.dialect)
            found = self._tables(f"database = {d} AND name = {t}")
        if not found:
            return None
        database, table = found[0]
        return f"{quote_ident(database, self.dialect)}.{quote_ident(table, self.dialect)}"

    def table_names(self) -> list[str]:
        return [
            n for _, n in self._tables("database = currentDatabase()") if not n.startswith(PREFIX)
        ]

    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        raise DataSourceError(
            f"{metric}: {arg}= is a {type(obj).__name__}; with con= a chdb session "
            f"(clickhouse), {arg}= must be the name of a table or view of that session "
            f"(db.table allowed): sqlmetrics writes nothing there. Load the data into a table "
            f"first (CREATE TABLE t ENGINE = Memory AS SELECT * FROM Python(frame)), or leave "
            f"con= out to compute on an in-memory DuckDB database"
        )
        yield ""  # pragma: no cover

    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        raise DataSourceError(
            f"{metric}: {arg}={list(paths)!r} names files; with con= a chdb session "
            f"(clickhouse), {arg}= must be the name of a table or view of that session. Load "
            f"the files into a table first (CREATE TABLE t ENGINE = Memory AS SELECT * FROM "
            f"file('path')), or leave con= out to read them with DuckDB"
        )

    # ---------------------------------------------------------------- check expressions
    def is_not_finite(self, expr: str) -> str:
        return f"(isNaN({expr}) or isInfinite({expr}))"

    def as_text(self, expr: str) -> str:
        return f"cast({expr} as Nullable(String))"

    def tuple_text(self, exprs: Sequence[str]) -> str:
        parts = ", ".join(f"coalesce({self.as_text(e)}, 'NULL')" for e in exprs)
        return f"concat('(', arrayStringConcat([{parts}], ', '), ')')"

    # ---------------------------------------------------------------- errors
    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        where = " / ".join(labels) or "data"
        if " on clickhouse" not in where:
            where += " on clickhouse"
        kind = _CODES.get(clickhouse_code(exc) or -1)
        message = clickhouse_message(exc)
        if kind is ColumnNotFoundError:
            return ColumnNotFoundError(
                f"{metric}: {where}: a column is missing: {message}; pass the "
                f"column names the data have"
            )
        if kind is DataSourceError:
            return DataSourceError(f"{metric}: {where} cannot be read: {message}")
        if kind is InvalidDataError:
            return InvalidDataError(
                f"{metric}: {where} holds a value of the wrong type: {message}; "
                f"fix or drop that value, or cast the column in a view and pass the view"
            )
        return engine_failed(self, metric, labels, exc)


def as_duckdb_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with DuckDB's dtypes where ClickHouse's differ: ClickHouse counts in unsigned
    integers (``count()``: UInt64; a literal ``1``: UInt8), DuckDB in signed ones, so an unsigned
    column is int64 (Int64 when it holds a NULL). Strings, booleans, signed integers and NULLs
    are left as chdb gives them, which is DuckDB's way: ``str`` with NaN, ``boolean`` and
    ``Int32`` with NA.
    """
    import pandas as pd

    for column in frame.columns:
        dtype = frame[column].dtype
        if dtype.kind != "u":
            continue
        largest = frame[column].max()  # NA: no row, or only NULLs
        if pd.isna(largest) or largest < 2**63:
            nullable = isinstance(dtype, pd.api.extensions.ExtensionDtype)
            frame[column] = frame[column].astype("Int64" if nullable else "int64")
    return frame


def _is_missing(value: Any) -> bool:
    try:
        return bool(value is None or value != value)
    except (TypeError, ValueError):  # pandas' NA compares to nothing
        return True
