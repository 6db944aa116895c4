"""Turn whatever the user calls ``data`` into something a SQL ``from`` clause can read.

:func:`open_source` resolves ``data`` on a backend (``_backends``: DuckDB, a SQLAlchemy
database, Spark), which decides what it accepts. On DuckDB: a table or view name in ``con``; a
path, glob or list of Parquet / CSV files; a pandas DataFrame; a pyarrow Table; a DuckDB
relation. Objects are registered under a unique temporary name and unregistered afterwards,
also when the query fails. Nothing is ever written to the user's database; a database given by
path is opened ``read_only=True``.

A path naming an existing file is that file, whatever characters its name holds; a path naming
no file is a glob when it holds ``*``, ``?`` or ``[`` (its leading directories that exist are
taken literally). Table names are looked up in the catalog, on every engine,
never by a query that could fail (and so abort the user's open transaction).
The DuckDB-specific pieces (its catalog query, its private in-memory database, the read-only
opening of a database file, the locks of shared connections) live here too.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import duckdb

from .errors import DataSourceError, InvalidParameterError

if TYPE_CHECKING:
    from ._backends import Backend

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")
GLOB_CHARS = ("*", "?", "[")


#: dialects whose identifiers are quoted with backticks (the others: double quotes)
_BACKTICK_DIALECTS = ("spark", "bigquery")
#: dialects whose string literals read a backslash as an escape character
_BACKSLASH_DIALECTS = ("spark", "bigquery", "snowflake")


def quote_ident(name: str, dialect: str = "duckdb") -> str:
    """Quote one SQL identifier for ``dialect``: double quotes around it, embedded double quotes
    doubled; backticks on Spark (embedded backticks doubled) and BigQuery (backslash-escaped).

    >>> print(quote_ident('a"b'), quote_ident("a`b", "spark"))
    "a""b" `a``b`
    """
    if not isinstance(name, str) or name == "":
        raise TypeError(f"an identifier must be a non-empty string, got {name!r}")
    if dialect == "bigquery":
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
    if dialect in _BACKTICK_DIALECTS:
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str, dialect: str = "duckdb") -> str:
    """Quote a SQL string literal for ``dialect``: single quotes around it, embedded single
    quotes doubled; where a backslash escapes (Spark, BigQuery, Snowflake), backslashes
    doubled and quotes escaped with one.

    >>> quote_literal("it's")
    "'it''s'"
    """
    if dialect in _BACKSLASH_DIALECTS:
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + value.replace("'", "''") + "'"


def quote_table(name: str, dialect: str = "duckdb") -> str:
    """Quote a possibly qualified table name ``db.schema.table``, part by part."""
    return ".".join(quote_ident(part, dialect) for part in name.split("."))


@dataclass
class Source:
    """A readable relation on a backend: the SQL text to put after ``from`` and what it holds."""

    backend: Backend
    sql: str
    label: str
    columns: dict[str, str] = field(default_factory=dict)

    def describe(self) -> None:
        self.columns = self.backend.columns(self.sql)


def is_path_like(data: Any) -> bool:
    """Whether ``data`` names files (a path, glob or Parquet/CSV name) rather than a table.

    A path-like object; a string with a data-file suffix, a glob character or a path
    separator; or a string naming an existing file. Running and rendering both decide here.
    """
    if isinstance(data, os.PathLike):
        return True
    if isinstance(data, str):
        lower = data.lower()
        return (
            lower.endswith(PARQUET_SUFFIXES + CSV_SUFFIXES)
            or any(ch in data for ch in GLOB_CHARS)
            or os.sep in data
            or os.path.isfile(data)
            or os.path.isdir(data)
        )
    return False


def directory_files(directory: str) -> list[str]:
    """The data files under ``directory``, recursively and sorted: a warehouse export, with or
    without Hive partitions (``day=2026-11-01/part-0.parquet``), whose partition columns DuckDB
    reads from the paths. Its Parquet files, or, when it has none, its CSV files; ``[]`` when
    it holds neither.
    """
    found = sorted(
        path
        for path in glob.glob(os.path.join(glob.escape(directory), "**", "*"), recursive=True)
        if os.path.isfile(path)
    )
    parquet = [p for p in found if p.lower().endswith(PARQUET_SUFFIXES)]
    return parquet or [p for p in found if p.lower().endswith(CSV_SUFFIXES)]


def file_kind(path: str) -> str:
    """How a data file is read: ``"parquet"`` by its suffix, else ``"csv"`` (any delimiter); a
    directory as the files :func:`directory_files` finds in it (Parquet when it has none).
    """
    if os.path.isdir(path):
        files = directory_files(path)
        return file_kind(files[0]) if files else "parquet"
    return "parquet" if path.lower().endswith(PARQUET_SUFFIXES) else "csv"


def data_kind(data: Any) -> str:
    """How ``data=`` is read: ``"parquet"`` or ``"csv"`` (files: see :func:`is_path_like`),
    ``"table"`` (any other string: a table or view name) or ``"object"`` (a DataFrame, an
    Arrow table, a DuckDB relation, a list of paths). :func:`open_source` (running) and
    ``render`` both use it, so a name is rendered the way it is read.
    """
    if is_path_like(data):
        return file_kind(os.fspath(data))
    if isinstance(data, str):
        return "table"
    return "object"


def reader_sql(kind: str, paths_sql: str, dialect: str = "duckdb") -> str:
    """The SQL reading files of ``kind`` (``"parquet"``/``"csv"``) in ``dialect``.

    ``paths_sql``: the path as ``dialect`` names a file, a quoted string literal (or a list
    of them) for DuckDB (``read_parquet('p')``), a quoted identifier for Spark (``parquet.`p```,
    Parquet only: Spark's CSV source reads no header this way). Other dialects read no file
    in SQL: :class:`~sqlmetrics.errors.InvalidParameterError` asks for a table name.
    """
    if dialect == "duckdb":
        if kind == "parquet":
            return f"read_parquet({paths_sql})"
        return f"read_csv({paths_sql}, header = true)"
    if dialect == "spark" and kind == "parquet":
        return f"parquet.{paths_sql}"
    what = "a CSV file" if kind == "csv" else "a Parquet file"
    raise InvalidParameterError(
        f"render: data= is {what}, which dialect {dialect!r} cannot read in a query; render a "
        f"table name for dialect {dialect} (load the file into a table first)"
        + ("; Spark reads Parquet paths only" if dialect == "spark" else "")
    )


def escape_glob(path: str) -> str:
    """``path`` as a DuckDB glob matching only itself: ``*``, ``?`` and ``[`` as classes."""
    return re.sub(r"[*?\[]", lambda m: f"[{m.group(0)}]", path)


def literal_directories(pattern: str) -> str:
    """``pattern`` with its longest leading run of existing directories taken literally.

    ``exports[eu]/*.parquet`` is the Parquet files of the directory ``exports[eu]`` when that
    directory exists (never those of ``exportse/`` or ``exportsu/``): the rule for file names,
    applied to the directories a pattern walks through. A glob in a directory part that names no
    directory stays a glob.
    """
    parts = pattern.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        prefix = os.sep.join(parts[:i])
        if prefix and os.path.isdir(prefix):
            return os.sep.join([glob.escape(prefix), *parts[i:]])
    return pattern


def _file_sql(metric: str, arg: str, paths: Sequence[str]) -> str:
    """``read_parquet``/``read_csv`` of the files ``paths`` name.

    A path naming an existing file is that file, even if it holds ``*``, ``?`` or ``[``; any
    other path with those characters is a pattern, expanded here. DuckDB gets the exact files
    with their glob characters escaped, so it never widens the set.
    """
    matched: list[str] = []
    for p in paths:
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
            hits = [h for h in sorted(glob.glob(literal_directories(p))) if os.path.isfile(h)]
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
    listing = "[" + ", ".join(quote_literal(escape_glob(h)) for h in matched) + "]"
    return reader_sql(kinds.pop(), listing)


def spill_directory() -> str:
    """Default spill directory of the databases sqlmetrics opens: a folder of the system temp."""
    user = os.getuid() if hasattr(os, "getuid") else "spill"
    return os.path.join(tempfile.gettempdir(), f"sqlmetrics-{user}")


_PRIVATE: list[duckdb.DuckDBPyConnection] = []
_PRIVATE_GUARD = threading.Lock()


def _private_database() -> duckdb.DuckDBPyConnection:
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


# the lock of each user connection, held for a whole call (see _backends.backend_for): a
# DuckDB connection runs one statement at a time and a result belongs to the connection, so
# two threads sharing it would fetch each other's results. A cursor would be thread-safe but
# is a separate connection: it sees neither the connection's temporary views and registered
# DataFrames nor its uncommitted rows (see docs/decisions).
_LOCKS: weakref.WeakKeyDictionary[Any, threading.RLock] = weakref.WeakKeyDictionary()


@contextmanager
def open_connection(con: Any, data: Any = None) -> Iterator[Backend]:
    """The backend running on ``con`` for one call (:func:`sqlmetrics._backends.backend_for`)."""
    from ._backends import backend_for

    with backend_for(con, data) as backend:
        yield backend


def _open_database_file(path: str) -> duckdb.DuckDBPyConnection:
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
        for d, s, n, on_path, local in con.execute(_CATALOG).fetchall()
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
    names = {str(r[2]) for r in con.execute(_CATALOG).fetchall()}
    return sorted(n for n in names if not n.startswith("__sqlmetrics_"))


@contextmanager
def open_source(data: Any, backend: Any, metric: str, arg: str = "data") -> Iterator[Source]:
    """Resolve ``data`` into a :class:`Source` on ``backend`` (a DuckDB connection is taken as
    one); clean up whatever was registered, also after an error.
    """
    from ._backends import Backend, DuckDBBackend

    if not isinstance(backend, Backend):
        backend = DuckDBBackend(backend)
    on = "" if backend.name == "duckdb" else f" on {backend.name}"
    with ExitStack() as stack:
        if is_path_like(data):
            path = os.fspath(data)
            source = Source(backend, backend.files(metric, arg, [path]), repr(path) + on)
        elif isinstance(data, (list, tuple)) and data and all(is_path_like(d) for d in data):
            paths = [os.fspath(d) for d in data]
            source = Source(backend, backend.files(metric, arg, paths), repr(paths) + on)
        elif isinstance(data, str):
            found = backend.resolve_table(data)
            if found is None:
                present = ", ".join(backend.table_names()) or "(none)"
                if backend.name == "duckdb":
                    raise DataSourceError(
                        f"{metric}: {arg}={data!r} is neither an existing file nor a table or "
                        f"view in con; tables present: {present}. Pass con= the connection "
                        f"that holds the table, or a path to a Parquet or CSV file (a dotted "
                        f"name is a table of that exact name if there is one, else "
                        f"schema.table, database.table or database.schema.table)"
                    )
                raise DataSourceError(
                    f"{metric}: {arg}={data!r} is not a table or view in con ({backend.name}); "
                    f"tables present: {present}. Pass the name of a table or view of that "
                    f"database (schema.table for another schema)"
                )
            source = Source(backend, found, repr(data) + on)
        else:
            label = type(data).__name__ + on
            source = Source(
                backend, stack.enter_context(backend.register(data, metric, arg)), label
            )
        if not source.columns:
            try:
                source.describe()
            except backend.errors as exc:
                if isinstance(exc, backend.interrupts):
                    raise
                if backend.name == "duckdb":
                    message = engine_message(exc)
                else:
                    message = " ".join(str(getattr(exc, "orig", None) or exc).split())
                raise DataSourceError(
                    f"{metric}: {arg}={source.label} cannot be read: {message}"
                ) from None
        yield source


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


def _is_frame(data: Any) -> bool:
    module = type(data).__module__
    return module.startswith(("pandas", "pyarrow", "polars"))
