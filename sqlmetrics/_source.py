"""Turn whatever the user calls ``data`` into something a SQL ``from`` clause can read.

Accepted: a table or view name in ``con``; a path, glob or list of Parquet / CSV files; a pandas
DataFrame; a pyarrow Table; a DuckDB relation. Objects are registered on the connection under a
unique temporary name and unregistered afterwards, also when the query fails. Nothing is ever
written to the user's database; a database given by path is opened ``read_only=True``.
"""

from __future__ import annotations

import glob
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import duckdb

from .errors import DataSourceError

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")
GLOB_CHARS = ("*", "?", "[")


def quote_ident(name: str) -> str:
    """Quote one SQL identifier: double quotes around it, embedded double quotes doubled."""
    if not isinstance(name, str) or name == "":
        raise TypeError(f"an identifier must be a non-empty string, got {name!r}")
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """Quote a SQL string literal: single quotes around it, embedded single quotes doubled."""
    return "'" + value.replace("'", "''") + "'"


def quote_table(name: str) -> str:
    """Quote a possibly qualified table name ``db.schema.table``, part by part."""
    return ".".join(quote_ident(part) for part in name.split("."))


@dataclass
class Source:
    """A readable relation: the SQL text to put after ``from`` and what it holds."""

    con: duckdb.DuckDBPyConnection
    sql: str
    label: str
    columns: dict[str, str] = field(default_factory=dict)

    def describe(self) -> None:
        rows = self.con.execute(f"describe select * from {self.sql}").fetchall()
        self.columns = {str(r[0]): str(r[1]) for r in rows}


def _is_path_like(data: Any) -> bool:
    if isinstance(data, os.PathLike):
        return True
    if isinstance(data, str):
        lower = data.lower()
        return (
            lower.endswith(PARQUET_SUFFIXES + CSV_SUFFIXES)
            or any(ch in data for ch in GLOB_CHARS)
            or os.sep in data
            or os.path.isfile(data)
        )
    return False


def _file_sql(metric: str, arg: str, paths: Sequence[str]) -> str:
    matched: list[str] = []
    for p in paths:
        hits = sorted(glob.glob(p)) if any(ch in p for ch in GLOB_CHARS) else [p]
        hits = [h for h in hits if os.path.isfile(h)]
        if not hits:
            raise DataSourceError(
                f"{metric}: {arg}={p!r} matches no file; pass an existing Parquet or CSV path, "
                f"a glob such as 'logs/*.parquet', a table name with con=, or a DataFrame"
            )
        matched.extend(hits)
    kinds = {"parquet" if h.lower().endswith(PARQUET_SUFFIXES) else "csv" for h in matched}
    if len(kinds) > 1:
        raise DataSourceError(
            f"{metric}: {arg}={list(paths)!r} mixes Parquet and CSV files; pass one kind at a time"
        )
    listing = "[" + ", ".join(quote_literal(h) for h in matched) + "]"
    if kinds == {"parquet"}:
        return f"read_parquet({listing})"
    return f"read_csv({listing}, header = true)"


@cache
def _private_database() -> duckdb.DuckDBPyConnection:
    """sqlmetrics' own in-memory database; each call works on a cursor of it (cheap, isolated)."""
    return duckdb.connect(":memory:")


@contextmanager
def open_connection(
    con: duckdb.DuckDBPyConnection | str | os.PathLike[str] | None, data: Any = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Yield a connection: the user's own, a database file opened read-only, or in-memory.

    A DuckDB relation given without ``con`` is read on DuckDB's default connection, where
    ``duckdb.sql(...)`` creates relations.
    """
    if isinstance(con, duckdb.DuckDBPyConnection):
        yield con
        return
    if con is None and isinstance(data, duckdb.DuckDBPyRelation):
        yield duckdb.default_connection()
        return
    if con is None:
        own = _private_database().cursor()
    elif isinstance(con, (str, os.PathLike)):
        if not os.path.isfile(con):
            raise DataSourceError(
                f"con={str(con)!r} is not an existing DuckDB database file; pass a "
                f"duckdb.connect(...) connection, a database path, or None for in-memory"
            )
        own = duckdb.connect(str(con), read_only=True)
    else:
        raise DataSourceError(
            f"con= must be a duckdb connection, a database file path or None; "
            f"got {type(con).__name__}"
        )
    try:
        yield own
    finally:
        own.close()


@contextmanager
def open_source(
    data: Any, con: duckdb.DuckDBPyConnection, metric: str, arg: str = "data"
) -> Iterator[Source]:
    """Resolve ``data`` into a :class:`Source` on ``con``; clean up whatever was registered."""
    registered: str | None = None
    try:
        if _is_path_like(data):
            source = Source(con, _file_sql(metric, arg, [os.fspath(data)]), repr(os.fspath(data)))
        elif isinstance(data, (list, tuple)) and data and all(_is_path_like(d) for d in data):
            paths = [os.fspath(d) for d in data]
            source = Source(con, _file_sql(metric, arg, paths), repr(paths))
        elif isinstance(data, str):
            source = Source(con, quote_table(data), repr(data))
            try:
                source.describe()
            except duckdb.Error:
                tables = sorted(
                    str(r[0])
                    for r in con.execute(
                        "select distinct table_name from information_schema.tables"
                    ).fetchall()
                    if not str(r[0]).startswith("__sqlmetrics_")
                )
                raise DataSourceError(
                    f"{metric}: {arg}={data!r} is neither an existing file nor a table or view "
                    f"in con; tables present: {', '.join(tables) or '(none)'}. Pass con= the "
                    f"connection that holds the table, or a path to a Parquet or CSV file"
                ) from None
        else:
            registered = f"__sqlmetrics_{uuid.uuid4().hex}"
            if not isinstance(data, duckdb.DuckDBPyRelation) and not _is_frame(data):
                raise DataSourceError(
                    f"{metric}: {arg}= must be a table name, a Parquet/CSV path or glob, a pandas "
                    f"DataFrame, a pyarrow Table or a DuckDB relation; got {type(data).__name__}"
                )
            try:
                con.register(registered, data)
            except duckdb.InvalidInputException as exc:
                registered = None
                raise DataSourceError(
                    f"{metric}: {arg}= is a DuckDB relation of another connection; pass that "
                    f"connection as con= ({exc})"
                ) from None
            source = Source(con, quote_ident(registered), type(data).__name__)
        if not source.columns:
            try:
                source.describe()
            except duckdb.Error as exc:
                raise DataSourceError(
                    f"{metric}: {arg}={source.label} cannot be read: {exc}"
                ) from None
        yield source
    finally:
        if registered is not None:
            con.unregister(registered)


def _is_frame(data: Any) -> bool:
    module = type(data).__module__
    return module.startswith(("pandas", "pyarrow", "polars"))
