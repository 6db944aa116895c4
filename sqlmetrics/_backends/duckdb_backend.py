"""DuckDB, the default engine: its backend, sqlmetrics' private in-memory database, the
read-only opening of a database file, the catalog lookup of table names, the locks of shared
connections, and the reading of data files.
"""

from __future__ import annotations

import bisect
import functools
import glob
import math
import os
import re
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import duckdb

from .._templating.quoting import quote_ident, quote_literal
from ..errors import DataSourceError, EngineError, InvalidDataError, SqlMetricsError
from .base import Backend, unique_name
from .files import (
    CSV_SUFFIXES,
    GLOB_CHARS,
    PARQUET_SUFFIXES,
    cached_schema,
    check_path_text,
    check_same_schema,
    directory_files,
    duckdb_type_family,
    escape_glob,
    file_kind,
    literal_directories,
    parquet_schema,
    reader_sql,
)

if TYPE_CHECKING:
    import pandas as pd


def spill_directory() -> str:
    """Default spill directory of the databases sqlmetrics opens: a folder of the system temp."""
    user = os.getuid() if hasattr(os, "getuid") else "spill"
    return os.path.join(tempfile.gettempdir(), f"sqlmetrics-{user}")


_PRIVATE: list[duckdb.DuckDBPyConnection] = []
_PRIVATE_GUARD = threading.Lock()


def private_database() -> duckdb.DuckDBPyConnection:
    """Sqlmetrics' own in-memory database; each call works on a cursor of it (cheap, isolated).

    Created once, under a lock (two threads' first calls must not make two databases). It
    spills to :func:`spill_directory` (not DuckDB's default ``.tmp`` in the current directory)
    unless ``configure(temp_directory=)`` says otherwise.
    """
    with _PRIVATE_GUARD:
        if not _PRIVATE:
            _PRIVATE.append(
                duckdb.connect(":memory:", config={"temp_directory": spill_directory()})
            )
        return _PRIVATE[0]


# the lock of each user connection, held for a whole call (see sqlmetrics._backends.backend_for): a
# DuckDB connection runs one statement at a time and a result belongs to the connection, so
# two threads sharing it would fetch each other's results. A cursor would be thread-safe but
# is a separate connection: it sees neither the connection's temporary views and registered
# DataFrames nor its uncommitted rows (see docs/decisions).
_LOCKS: weakref.WeakKeyDictionary[Any, threading.RLock] = weakref.WeakKeyDictionary()


_LOCKS_GUARD = threading.Lock()


def lock_of(con: Any) -> threading.RLock:
    with _LOCKS_GUARD:
        lock = _LOCKS.get(con)
        if lock is None:
            lock = _LOCKS[con] = threading.RLock()
        return lock


#: the settings of a user's connection that change what sqlmetrics' SQL computes, with the
#: value its SQL is written for (DuckDB's default) and the spellings DuckDB shows for it:
#: ``default_order='descending'`` turns every ``order by x`` around (AUC 0.0 for 1.0);
#: ``default_collation='nocase'`` makes 'A' and 'a' one slice, one class, one label; the
#: others change a division, a subquery, an ``order by`` or the engine's error messages.
#: Measured one by one on the registry-wide suite (tests/test_invariance_session.py); the
#: rest of ``duckdb_settings()`` changes a plan, a limit or a file reader, not a value.
PINNED_SETTINGS: dict[str, tuple[str, ...]] = {
    "default_order": ("ascending", "asc"),
    "default_null_order": ("nulls_last", "nulls last"),
    "default_collation": ("",),
    "integer_division": ("false",),
    "ieee_floating_point_ops": ("true",),
    "scalar_subquery_error_on_multiple_rows": ("true",),
    "order_by_non_integer_literal": ("false",),
    "errors_as_json": ("false",),
}


#: DuckDB's functions whose name is also syntax with a form a qualified call does not take
#: (``position('a' in s)``, ``substring(s from 1)``, ``trim(both from s)``, ...)
_SYNTAX_FUNCTIONS = frozenset({"position", "substring", "trim", "overlay", "extract"})


@functools.cache
def _builtin_functions() -> frozenset[str]:
    """The names of DuckDB's own functions (catalog ``system``, schema ``main``), read once
    from a fresh in-memory database: the names a user's macro can shadow.
    """
    with duckdb.connect() as con:
        rows = con.execute(
            "select distinct lower(function_name) from duckdb_functions() "
            "where database_name = 'system' and schema_name = 'main'"
        ).fetchall()
    return frozenset(str(r[0]) for r in rows) - _SYNTAX_FUNCTIONS


#: a word followed by ``(``: a candidate call (confirmed by DuckDB's tokenizer)
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@functools.lru_cache(maxsize=512)  # a pure function of ``sql``: the recurring statements
def builtin_calls(sql: str) -> str:
    """``sql`` with each call of a DuckDB built-in function qualified as ``system.main.f(``.

    An unqualified ``ln(x)`` calls the user's macro ``ln`` when the connection has one
    (``create [temp] macro ln(x) as 0``: DuckDB looks a function up in the temporary and the
    user's schemas before its own), which changed sqlmetrics' numbers silently; the
    qualified name reaches DuckDB's function whatever the user defined. A call is a word
    that DuckDB's own tokenizer reads as a name or a keyword (never inside a string literal,
    a quoted identifier or a comment), followed by ``(``, and not after ``as`` (an alias's
    column list), ``::`` (a type's parameters), ``.`` (already qualified) or ``)``
    (``filter (where ...)``).
    """
    builtins = _builtin_functions()
    hits = [m.start(1) for m in _CALL.finditer(sql) if m.group(1).lower() in builtins]
    if not hits:
        return sql
    tokens = duckdb.tokenize(sql)
    starts = [pos for pos, _ in tokens]
    names = (duckdb.token_type.identifier, duckdb.token_type.keyword)
    out: list[str] = []
    last = 0
    for pos in hits:
        i = bisect.bisect_left(starts, pos)
        if i + 1 >= len(starts) or starts[i] != pos or tokens[i][1] not in names:
            continue  # inside a literal, a quoted name or a comment
        if not sql.startswith("(", starts[i + 1]):
            continue
        if i and sql[starts[i - 1] : pos].rstrip().lower() in ("as", "::", ".", ")"):
            continue
        out += [sql[last:pos], "system.main."]
        last = pos
    out.append(sql[last:])
    return "".join(out)


class DuckDBBackend(Backend):
    """DuckDB: the default engine. ``con`` is a connection or an object with its API.

    A connection the user passes keeps its settings: those of :data:`PINNED_SETTINGS` that
    differ from what sqlmetrics' SQL is written for are set for this connection alone
    (``SET SESSION``, never the database's other connections) on the first statement, and
    put back as they were (their session value, or the database's) by :meth:`close`, also
    after an error.
    """

    name = "duckdb"
    dialect = "duckdb"
    NOT_FINITE = "not isfinite({0})"
    errors = (duckdb.Error,)
    interrupts = (duckdb.InterruptException,)

    def __init__(self, con: Any, owned: bool = False) -> None:
        self.con = con
        self.owned = owned
        #: (memory_limit, database) of an owned connection closed after an error, for the
        #: advice of an out-of-memory error (wrapped after the connection is closed)
        self.memory: tuple[str | None, str | None] | None = None
        # setting -> (its value, whether this connection set it itself) before the call
        self._restore: dict[str, tuple[str, bool]] | None = None

    def _pin(self) -> None:
        """Set the pinned settings that differ, once per call (see the class docstring)."""
        if self._restore is not None:
            return
        self._restore = {}
        names = list(PINNED_SETTINGS)
        values = self.con.execute(
            builtin_calls(
                "select " + ", ".join(f"current_setting({quote_literal(n)})" for n in names)
            )
        ).fetchone()
        differ = [
            n
            for n, v in zip(names, values or ())
            if ("" if v is None else str(v)).lower() not in PINNED_SETTINGS[n]
        ]
        if not differ:  # the usual case: one cheap statement
            return
        listed = ", ".join(quote_literal(n) for n in differ)
        rows = self.con.execute(
            builtin_calls(
                f"select name, value, scope from duckdb_settings() where name in ({listed})"
            )
        ).fetchall()
        for name, value, scope in rows:
            text = "" if value is None else str(value)
            if text.lower() in PINNED_SETTINGS[name]:
                continue
            try:
                self.con.execute(f"set session {name} = {quote_literal(PINNED_SETTINGS[name][0])}")
            except duckdb.Error as exc:
                self._unpin()
                raise EngineError(
                    f"the DuckDB connection passed as con= has {name}={text!r}, which changes "
                    f"sqlmetrics' results, and it cannot be set for the call ({exc}); "
                    f"set {name} = {quote_literal(PINNED_SETTINGS[name][0])} on it first"
                ) from None
            self._restore[name] = (text, str(scope).upper() == "LOCAL")

    def _unpin(self) -> None:
        for name, (value, local) in (self._restore or {}).items():
            if local:
                self.con.execute(f"set session {name} = {quote_literal(value)}")
            else:
                self.con.execute(f"reset session {name}")
        self._restore = None

    def query(self, sql: str) -> pd.DataFrame:
        self._pin()
        return self.con.execute(builtin_calls(sql)).df()

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        self._pin()
        return list(self.con.execute(builtin_calls(sql)).fetchall())

    def columns(self, relation: str) -> dict[str, str]:
        self._pin()
        rows = self.con.execute(builtin_calls(f"describe select * from {relation}")).fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def resolve_table(self, name: str) -> str | None:
        return resolve_table(self.con, name)

    def table_names(self) -> list[str]:
        return table_names(self.con)

    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
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
        return _file_sql(metric, arg, paths)

    def message(self, exc: BaseException) -> str:
        return engine_message(exc)

    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
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
        if isinstance(exc, duckdb.OutOfMemoryException):
            return EngineError(
                f"{metric}: the engine failed on {where}: {type(exc).__name__}: {message}; "
                f"{memory_advice(self.memory or memory_of(self.con), self.con, self.owned)}"
            )
        return EngineError(
            f"{metric}: the engine failed on {where}: {type(exc).__name__}: {message}"
        )

    def close(self, failed: bool = False) -> None:
        if self.owned:
            if failed:
                self.memory = memory_of(self.con)
            self.con.close()
            return
        try:
            self._unpin()
        except duckdb.Error:
            if not failed:
                raise
            # the error that ended the call is the one to see


def open_database_file(path: str) -> duckdb.DuckDBPyConnection:
    if not os.path.isfile(path):
        raise DataSourceError(
            f"con={path!r} is not an existing DuckDB database file; pass a "
            f"duckdb.connect(...) connection, a database path, or None for in-memory"
        )
    if path.lower().endswith(PARQUET_SUFFIXES + CSV_SUFFIXES):
        raise DataSourceError(
            f"con={path!r} is a data file, not a DuckDB database; pass it as data "
            f"(e.g. auc({path!r})) and leave con= out"
        )
    try:
        return duckdb.connect(path, read_only=True)
    except duckdb.ConnectionException as exc:
        raise DataSourceError(
            f"con={path!r} is already open in this process (read-write, or with other "
            f"settings), and DuckDB opens a file once per configuration; pass that connection "
            f"as con= instead of the path ({exc})"
        ) from None
    except duckdb.Error as exc:
        raise DataSourceError(
            f"con={path!r} cannot be opened as a DuckDB database: {exc}; pass a "
            f"duckdb.connect(...) connection, a database path, or None for in-memory"
        ) from None


def database_files(con: Any) -> list[str]:
    """The files of the databases ``con`` reads: a database path given as ``con=``, or the
    files attached to a DuckDB connection (asked on a cursor: the connection's own pending
    result is left alone); ``[]`` for anything else.
    """
    if isinstance(con, (str, os.PathLike)):
        return [os.fspath(con)]
    if not isinstance(con, duckdb.DuckDBPyConnection):
        return []
    try:
        cursor = con.cursor()
        try:
            rows = cursor.execute(
                "select path from duckdb_databases() where path is not null"
            ).fetchall()
        finally:
            cursor.close()
    except duckdb.Error:  # a closed connection: the call itself will say so
        return []
    return [str(r[0]) for r in rows if r[0]]


# (database, schema, name) of every table and view the connection sees, temporary ones first;
# `on_path`: reachable by its bare name; `local`: in the temp or current database.
_CATALOG = """
    select database_name, schema_name, name,
        local and list_contains(current_schemas(true), schema_name) as on_path, local
    from (
        select database_name, schema_name, table_name as name from duckdb_tables()
        union all
        select database_name, schema_name, view_name from duckdb_views() where not internal
    ), (select database_name in ('temp', current_database()) as local) as _
    order by database_name <> 'temp', database_name <> current_database(), 1, 2, 3
"""


def resolve_table(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """The fully qualified, quoted SQL name of table or view ``name`` in ``con``, or None.

    Looked up in the catalog, so a missing name runs no failing query (which would abort the
    user's open transaction). Names compare case-insensitively, as DuckDB's do. A name with
    dots is first a table of that exact name (``"my.table"``); then it is split into
    ``schema.table`` or ``database.table``, or ``database.schema.table``.
    """
    rows = [
        (str(d), str(s), str(n), bool(on_path), bool(local))
        for d, s, n, on_path, local in con.execute(builtin_calls(_CATALOG)).fetchall()
    ]
    wanted = name.lower()
    parts = tuple(wanted.split("."))

    def exact(d: str, s: str, n: str, on_path: bool, local: bool) -> bool:
        return on_path and n.lower() == wanted

    def split(d: str, s: str, n: str, on_path: bool, local: bool) -> bool:
        here = (d.lower(), s.lower(), n.lower())
        if len(parts) == 2:
            return (local and here[1:] == parts) or (s == "main" and (here[0], here[2]) == parts)
        return here == parts

    for rule in (exact, split):
        for row in rows:
            if rule(*row):
                return ".".join(quote_ident(x) for x in row[:3])
    return None


def table_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the tables and views ``con`` sees (sqlmetrics' own registrations left out)."""
    names = {str(r[2]) for r in con.execute(builtin_calls(_CATALOG)).fetchall()}
    return sorted(n for n in names if not n.startswith("__sqlmetrics_"))


def _readable_many_times(metric: str, arg: str, data: Any) -> Any:
    """A pyarrow RecordBatchReader (read once) as a Table; our checks read the data twice."""
    if type(data).__name__ != "RecordBatchReader":
        return data
    table = data.read_all()
    if table.num_rows == 0:
        raise DataSourceError(
            f"{metric}: {arg}= is a pyarrow RecordBatchReader that yields no rows: a reader can "
            f"be read only once, so it was probably consumed already; pass a new reader or a "
            f"pyarrow Table"
        )
    return table


def engine_message(exc: BaseException) -> str:
    """The useful part of a DuckDB error: what failed, where, on which value.

    Dropped: the query excerpt, and the engine's "possible solutions", which name options of
    its own readers (``types=``, ``union_by_name``, ``COPY``) that sqlmetrics' callers do not
    pass. The file DuckDB names at the end of a CSV error is kept.
    """
    text = str(exc)
    csv_file = re.search(r"^\s*file = (.+)$", text, re.MULTILINE)
    text = text.split("Possible solutions")[0]
    keep = [
        line.strip()
        for line in text.splitlines()
        if line.strip()
        and not line.startswith("LINE ")
        and not set(line.strip()) <= {"^"}
        and "union_by_name" not in line
    ]
    message = " ".join(keep).rstrip(". ")
    if csv_file and csv_file.group(1).strip() not in message:
        message += f" (file {csv_file.group(1).strip()})"
    return message


#: DuckDB's units in its memory_limit setting as it reports it ('15.2 MiB', '1.8 GiB')
_REPORTED_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_REPORTED_UNITS.update({"PiB": 2**50, "EiB": 2**60})


def memory_of(con: Any) -> tuple[str | None, str | None]:
    """``con``'s ``memory_limit`` as DuckDB reports it ('15.2 MiB') and its database's name
    (``memory`` for an in-memory one), or Nones where it cannot say (closed, or no ``con``).
    """
    if con is None:
        return None, None
    try:
        row = con.execute("select current_setting('memory_limit'), current_database()").fetchone()
    except duckdb.Error:
        return None, None
    return (str(row[0]), str(row[1])) if row else (None, None)


def memory_advice(memory: tuple[str | None, str | None], con: Any, owned: bool) -> str:
    """What to do when DuckDB ran out of memory on ``con``: its ``memory_limit`` now
    (``memory``: :func:`memory_of`), and the setting that raises it for this kind of
    connection: ``sqlmetrics.configure`` (and the command line's ``--memory-limit``) for
    sqlmetrics' own database, the connection's own for one the caller passed or a database
    file sqlmetrics opened.
    """
    limit, database = memory
    larger = None
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(\w+)", limit or "")
    if found and found.group(2) in _REPORTED_UNITS:
        twice = 2 * float(found.group(1)) * _REPORTED_UNITS[found.group(2)]
        unit, size = ("GB", 10**9) if twice >= 10**9 else ("MB", 10**6)
        larger = f"{math.ceil(twice / size)}{unit}"
    example = larger or "8GB"
    now = f"memory_limit={limit!r}" if limit else "memory_limit"
    if con is not None and owned and database == "memory":
        return (
            f"sqlmetrics' database ran out of its {now}: raise it with "
            f"sqlmetrics.configure(memory_limit={example!r}) (on the command line: "
            f"sqlmetrics --memory-limit {example} <command> ...), or pass fewer rows or slices"
        )
    if con is not None and owned and database is not None:
        return (
            f"the database file sqlmetrics opened has DuckDB's default {now}, which "
            f"sqlmetrics.configure() does not set: open it yourself with "
            f"duckdb.connect(path, read_only=True, config={{'memory_limit': {example!r}}}) and "
            f"pass that connection as con=, or pass fewer rows or slices"
        )
    if con is not None:
        return (
            f"the connection passed as con= has {now}: raise it on that connection, "
            f"con.execute(\"set memory_limit = '{example}'\") (sqlmetrics.configure() sets only "
            f"the database sqlmetrics uses when con= is omitted), or pass fewer rows or slices"
        )
    return (
        "raise DuckDB's memory_limit: sqlmetrics.configure(memory_limit='8GB') when con= is "
        "omitted (on the command line: sqlmetrics --memory-limit 8GB <command> ...), or "
        "con.execute(\"set memory_limit = '8GB'\") on the connection passed as con="
    )


def _is_frame(data: Any) -> bool:
    module = type(data).__module__
    return module.startswith(("pandas", "pyarrow", "polars"))


def _file_sql(metric: str, arg: str, paths: Sequence[str]) -> str:
    """``read_parquet``/``read_csv`` of the files ``paths`` name.

    A path naming an existing file is that file, even if it holds ``*``, ``?`` or ``[``; any
    other path with those characters is a pattern, expanded here. DuckDB gets the exact files
    with their glob characters escaped, so it never widens the set.
    """
    matched: list[str] = []
    for p in paths:
        check_path_text(metric, arg, p)
        if os.path.isfile(p):
            hits = [p]
        elif os.path.isdir(p):
            hits = directory_files(p)
            if not hits:
                raise DataSourceError(
                    f"{metric}: {arg}={p!r} is a directory with no Parquet or CSV file in it; "
                    f"pass a directory of Parquet (or CSV) files, such as a Hive-partitioned "
                    f"export, a file, or a glob such as '{p.rstrip(os.sep)}/*.parquet'"
                )
        elif any(ch in p for ch in GLOB_CHARS):
            # `**` is any depth of folders (none too), as DuckDB's own globs read it
            pattern = literal_directories(p)
            hits = [h for h in sorted(glob.glob(pattern, recursive=True)) if os.path.isfile(h)]
        else:
            hits = []
        if not hits:
            raise DataSourceError(
                f"{metric}: {arg}={p!r} matches no file; pass an existing Parquet or CSV path, "
                f"a glob such as 'logs/*.parquet', a table name with con=, or a DataFrame"
            )
        matched.extend(hits)
    for h in matched:
        if os.path.getsize(h) == 0:
            raise DataSourceError(
                f"{metric}: {arg}={h!r} is an empty file (0 bytes); pass a file with a header "
                f"and at least one row, or leave the empty file out"
            )
    kinds = {file_kind(h) for h in matched}
    if len(kinds) > 1:
        raise DataSourceError(
            f"{metric}: {arg}={list(paths)!r} mixes Parquet and CSV files; pass one kind at a time"
        )
    kind = kinds.pop()
    listing = "[" + ", ".join(quote_literal(escape_glob(h)) for h in matched) + "]"
    shown = f"{arg}={paths[0]!r}" if len(paths) == 1 else f"{arg}={list(paths)!r}"
    if len(matched) > 1 and _widen(metric, shown, kind, matched):
        listing += ", union_by_name = true"
    return reader_sql(kind, listing)


def _widen(metric: str, shown: str, kind: str, files: list[str]) -> bool:
    """Check that ``files`` (read for ``shown``, e.g. ``data='exports/'``) agree on their
    columns and column types (see ``files.check_same_schema``, which names the file, the column
    and both types otherwise); return whether numbers of different widths must be widened
    (``union_by_name``).

    Cheap: Parquet files are compared by their metadata, CSV files by DuckDB's type detection
    of each (in the dialect detected in the first, as DuckDB reads them), each remembered
    while the file is unchanged. Runs on sqlmetrics' private database, never on ``con``.
    """
    if kind == "parquet":
        schemas = {f: cached_schema(kind, f, "", parquet_schema) for f in files}
        return check_same_schema(metric, shown, schemas)
    cursor = private_database().cursor()
    try:
        dialect = str(cached_schema("csv dialect", files[0], "", lambda f: _csv_dialect(cursor, f)))

        def read(path: str) -> dict[str, tuple[str, str]] | None:
            try:
                rows = cursor.execute(
                    f"describe select * from {_csv_reader(path, dialect)}"
                ).fetchall()
            except duckdb.Error:  # unreadable: the engine's own error names it later
                return None
            return {str(r[0]): (str(r[1]), duckdb_type_family(str(r[1]))) for r in rows}

        def is_empty(path: str, column: str) -> bool:
            sql = f"select count({quote_ident(column)}) from {_csv_reader(path, dialect)}"
            try:
                return bool(cursor.execute(sql).fetchall()[0][0] == 0)
            except duckdb.Error:
                return False

        schemas = {f: cached_schema(kind, f, dialect, read) for f in files}
        return check_same_schema(metric, shown, schemas, is_empty)
    finally:
        cursor.close()


def _csv_dialect(cursor: duckdb.DuckDBPyConnection, path: str) -> str:
    """The reader options of the dialect DuckDB detects in ``path`` (delimiter, quote and
    escape), as SQL text; empty when it detects none.
    """
    try:
        rows = cursor.execute(
            f"select Delimiter, Quote, Escape from sniff_csv({quote_literal(escape_glob(path))}, "
            f"header = true)"
        ).fetchall()
    except duckdb.Error:
        return ""
    if not rows:
        return ""
    # sniff_csv shows a dialect without quotes or escapes as '(empty)'
    delim, quote, escape = ("" if v is None or str(v) == "(empty)" else str(v) for v in rows[0])
    return (
        f", delim = {quote_literal(delim)}, quote = {quote_literal(quote)}, "
        f"escape = {quote_literal(escape)}"
    )


def _csv_reader(path: str, dialect: str) -> str:
    """One CSV file's own columns (not the partition columns of its Hive folders)."""
    path_sql = quote_literal(escape_glob(path))
    return f"read_csv({path_sql}, header = true, hive_partitioning = false{dialect})"
