"""The ClickHouse backend: metrics run on ClickHouse through one of two thin transports, in-process
``chdb`` (``con=chdb.session.Session()`` or ``chdb.connect()``) or a ``clickhouse_connect``
client (``con=clickhouse_connect.get_client(...)``: a ClickHouse server over HTTP, or
clickhouse_connect's own in-process chdb client).

The backend is one: the same SQL, the same settings, the same checks and the same errors on
both; a transport only sends a statement and hands back a DataFrame. ``data`` is a table or view
of the database (``db.table`` allowed), looked up in ``system.tables``; in process (chdb, or
clickhouse_connect's chdb client) also a pandas DataFrame or pyarrow Table, read in place by
chdb's ``Python()`` table function (the process's memory is the engine's). Data files are
refused with the fix (load them into a table): ClickHouse's ``file()`` expands ``*``, ``?``,
``{a,b}`` and ``{1..3}`` in any path with no escape, so a file name holding them would widen the
set that DuckDB reads exactly; Hive partition columns and CSV type inference differ between the
two engines; and a server reads its own disk, not the caller's. Nothing is written: no table, no
view, no setting. Templates render with dialect ``clickhouse``; each statement carries the
settings the templates need in its own ``SETTINGS`` clause (:data:`SETTINGS`), so the session's
(or the client's) settings are the user's before, during and after the call. Results come back
as DataFrames (one row per slice, never the data).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._templating.quoting import quote_ident, quote_literal
from ..errors import (
    ColumnNotFoundError,
    DataSourceError,
    EngineError,
    InvalidDataError,
    SqlMetricsError,
)
from .base import PREFIX, Backend, engine_failed, unique_name

if TYPE_CHECKING:
    import pandas as pd

#: the settings each statement runs with, in its own ``SETTINGS`` clause (nothing is set on the
#: session or the client): every ClickHouse setting that can change a result of sqlmetrics' SQL,
#: at the value its SQL is written and tested for, so that a session's or a client's own values
#: (``SET limit = 10``, ``get_client(settings=...)``) cannot change a number (issue 39). By what
#: they would change (tests/test_clickhouse_settings.py sets each to its worst value):
SETTINGS: dict[str, int | str] = {
    # standard SQL where ClickHouse's default differs: an unmatched outer-join row holds NULL,
    # not the type's default (0, ''), which anti-joins and `missing` policies read;
    # ``cast(NULL as T)`` is NULL, not an error; an aggregate over no row (``sum``, ``max``)
    # is NULL, not 0
    "join_use_nulls": 1,
    "cast_keep_nullable": 1,
    "aggregate_functions_null_for_empty": 1,
    # a plain join is every matching row (ALL), not one (ANY: GAUC's groups collapse), and
    # not ANY's distinct right keys
    "join_default_strictness": "'ALL'",
    "any_join_distinct_right_table_keys": 0,
    # a column of a join's one side found by its bare name, as the templates write it (0:
    # "cannot be resolved", the confusion matrix's grid)
    "single_join_prefer_left_table": 1,
    # the result is the query's rows: no extremes rows appended (a state() would carry them
    # into merge as data), no LIMIT/OFFSET applied to it, no filter on it
    "extremes": 0,
    "limit": 0,
    "offset": 0,
    "additional_result_filter": "''",
    # a limit on rows read, sorted, grouped, joined, kept in a set or a DISTINCT, transferred,
    # returned, or on time raises rather than stopping early with part of the rows ('break')
    # or grouping only the first keys ('any'): the user's limits hold, as errors (the _leaf
    # and transfer modes act on a Distributed table's shards)
    "read_overflow_mode": "'throw'",
    "read_overflow_mode_leaf": "'throw'",
    "sort_overflow_mode": "'throw'",
    "group_by_overflow_mode": "'throw'",
    "join_overflow_mode": "'throw'",
    "set_overflow_mode": "'throw'",
    "distinct_overflow_mode": "'throw'",
    "transfer_overflow_mode": "'throw'",
    "result_overflow_mode": "'throw'",
    "timeout_overflow_mode": "'throw'",
    "timeout_overflow_mode_leaf": "'throw'",
    # count(distinct) is exact, not an estimate (uniq, uniqHLL12, ...)
    "count_distinct_implementation": "'uniqExact'",
    # never an earlier result of the same text from the query cache (a changed table's
    # metrics would be stale)
    "use_query_cache": 0,
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


def is_clickhouse_connect(con: Any) -> bool:
    """Whether ``con`` is a clickhouse_connect client (by type: clickhouse_connect is not
    imported): ``get_client(...)`` over HTTP, or its in-process chdb client.
    """
    return any(
        c.__module__.startswith("clickhouse_connect.") and c.__name__ == "Client"
        for c in type(con).__mro__
    )


def clickhouse_code(exc: BaseException) -> int | None:
    """The ClickHouse error code of ``exc`` (``Code: 47. DB::Exception: ...``), or None."""
    match = re.search(r"Code: (\d+)\.", str(exc))
    return int(match.group(1)) if match else None


def clickhouse_message(exc: BaseException) -> str:
    """The engine's message on one line, without the code prefix, the echoed query scope, the
    stack trace, the server's version and the client's URL.
    """
    text = str(exc)
    text = re.sub(r"^.*?Code: \d+\. DB::Exception: ", "", text, flags=re.S)
    for marker in (" In scope ", ": In scope ", "Stack trace", " (version ", " (for url "):
        text = text.split(marker)[0]
    return " ".join(text.split()).rstrip(". :;")


class Transport:
    """How statements reach ClickHouse: :meth:`frame` runs one and gives its DataFrame."""

    #: what ``con=`` is, in messages
    kind = ""
    #: the exceptions :meth:`frame` raises for a failed statement
    errors: tuple[type[BaseException], ...] = ()
    #: whether the engine runs in this process and so reads Python objects in place
    in_process = False

    def __init__(self, con: Any) -> None:
        self.con = con

    def frame(self, sql: str) -> pd.DataFrame | None:  # pragma: no cover (abstract)
        raise NotImplementedError


class ChdbTransport(Transport):
    """In-process ClickHouse: a chdb session or connection, ``con.query(sql, "DataFrame")``."""

    kind = "a chdb session"
    in_process = True

    def __init__(self, con: Any) -> None:
        from chdb._exceptions import ChdbError

        super().__init__(con)
        self.errors = (ChdbError,)

    def frame(self, sql: str) -> pd.DataFrame | None:
        import pandas as pd

        result = self.con.query(sql, "DataFrame")
        return result if isinstance(result, pd.DataFrame) else None


class ClickHouseConnectTransport(Transport):
    """A clickhouse_connect client: ``client.query(sql)``, over HTTP to a server (or to
    clickhouse_connect's in-process chdb engine). The client's settings and session are the
    user's: nothing is set on them.
    """

    kind = "a clickhouse_connect client"

    def __init__(self, con: Any) -> None:
        from clickhouse_connect.driver.exceptions import Error

        if any(c.__name__ == "AsyncClient" for c in type(con).__mro__):
            raise DataSourceError(
                "con= is a clickhouse_connect AsyncClient; sqlmetrics' calls are synchronous: "
                "pass a client of clickhouse_connect.get_client(...) (run the call in a thread, "
                "e.g. asyncio.to_thread, from async code)"
            )
        limit = getattr(con, "query_limit", 0)
        if limit:
            raise DataSourceError(
                f"con= is a clickhouse_connect client with query_limit={limit}, which appends "
                f"LIMIT {limit} to the queries sqlmetrics sends (a syntax error after their "
                f"SETTINGS clause, or a cut result); pass a client made with query_limit=0 (the "
                f"default)"
            )
        super().__init__(con)
        self.errors = (Error,)
        # clickhouse_connect's chdb client runs the engine in this process: Python() reads
        self.in_process = any(c.__name__ == "ChdbClient" for c in type(con).__mro__)

    def frame(self, sql: str) -> pd.DataFrame | None:
        """The result as a DataFrame built column by column from the client's Python values:
        not ``query_df``, which keys the columns by name and so drops all but the last of
        columns of the same name (our checks count ``x is null`` once per role of ``x``).
        A repeated name gets ``_1``, ``_2``, ... as chdb's DataFrame gives it. An empty result
        comes in the Native format without its columns: their names are then the statement's
        ``DESCRIBE``.
        """
        import pandas as pd

        result = self.con.query(sql)
        names = list(result.column_names)
        if not names:
            described = self.con.query(with_settings(f"DESCRIBE ({sql})"))
            names = [row[0] for row in described.result_rows]
        names = unique_column_names(names)
        columns = result.result_columns if result.row_count else [[] for _ in names]
        return pd.DataFrame({name: list(values) for name, values in zip(names, columns)})


def with_settings(sql: str) -> str:
    """``sql`` with the :data:`SETTINGS` clause every statement sqlmetrics sends carries."""
    settings = ", ".join(f"{k} = {v}" for k, v in SETTINGS.items())
    return f"{sql.rstrip().rstrip(';')}\nSETTINGS {settings}"


def unique_column_names(names: Sequence[str]) -> list[str]:
    """``names`` with a repeated one suffixed ``_1``, ``_2``, ... (as chdb names them).

    >>> unique_column_names(["n", "sum(x)", "sum(x)", "sum(x)"])
    ['n', 'sum(x)', 'sum(x)_1', 'sum(x)_2']
    """
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        unique.append(f"{name}_{count}" if count else name)
    return unique


def transport_for(con: Any) -> Transport:
    """The transport of ``con``: a chdb session or connection, or a clickhouse_connect client."""
    if is_chdb(con):
        return ChdbTransport(con)
    return ClickHouseConnectTransport(con)


class ClickHouseBackend(Backend):
    """ClickHouse SQL on the chdb session or connection, or the clickhouse_connect client,
    passed as ``con=``.
    """

    name = "clickhouse"
    dialect = "clickhouse"
    NOT_FINITE = "(isNaN({0}) or isInfinite({0}))"
    TEXT = "cast({0} as Nullable(String))"
    TUPLE_TEXT = "concat('(', arrayStringConcat([{0}], ', '), ')')"

    def __init__(self, con: Any) -> None:
        self.con = con
        self.transport = transport_for(con)
        self.errors = self.transport.errors
        self.interrupts = ()

    # ---------------------------------------------------------------- running statements
    def _sql(self, sql: str) -> str:
        return with_settings(sql)

    def _frame(self, sql: str) -> pd.DataFrame:
        import pandas as pd

        frame = self.transport.frame(sql)
        return pd.DataFrame() if frame is None else frame

    def query(self, sql: str) -> pd.DataFrame:
        return as_duckdb_frame(self._frame(self._sql(sql)))

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        frame = self.query(sql)
        return [
            tuple(None if _is_missing(v) else v for v in row)
            for row in frame.itertuples(index=False, name=None)
        ]

    # ---------------------------------------------------------------- relations and types
    def columns(self, relation: str) -> dict[str, str]:
        frame = self._frame(self._sql(f"DESCRIBE (SELECT * FROM {relation})"))
        return {str(n): str(t) for n, t in zip(frame["name"], frame["type"])}

    def _tables(self, where: str) -> list[tuple[str, str]]:
        frame = self._frame(
            self._sql(
                f"SELECT database, name FROM system.tables WHERE {where} ORDER BY database, name"
            )
        )
        if not len(frame):
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
        """A pandas DataFrame or pyarrow Table read in place by chdb's ``Python()`` table
        function, under a unique name bound in this module's globals for the call (where
        chdb looks the name up, as chdb's own agent tool does); a server cannot read it.
        """
        if not self.transport.in_process:
            raise DataSourceError(
                f"{metric}: {arg}= is a {type(obj).__name__}; with con= {self.transport.kind} "
                f"(clickhouse), {arg}= must be the name of a table or view of that database "
                f"(db.table allowed): the server cannot read this process's memory, and "
                f"sqlmetrics writes nothing there. Insert the data into a table first "
                f"(client.insert_df), or leave con= out to compute on an in-memory DuckDB "
                f"database"
            )
        module = type(obj).__module__
        if not (
            (module.startswith("pandas") and type(obj).__name__ == "DataFrame")
            or (module.startswith("pyarrow") and type(obj).__name__ == "Table")
        ):
            raise DataSourceError(
                f"{metric}: {arg}= is a {type(obj).__name__}; with con= {self.transport.kind} "
                f"(clickhouse), {arg}= must be the name of a table or view of that session, a "
                f"pandas DataFrame or a pyarrow Table"
            )
        name = unique_name()
        namespace = globals()
        namespace[name] = obj
        try:
            yield f"Python({name})"
        finally:
            namespace.pop(name, None)

    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        """Refused with the fix (see the module docstring for why)."""
        raise DataSourceError(
            f"{metric}: {arg}={list(paths)!r} names files; with con= {self.transport.kind} "
            f"(clickhouse), {arg}= must be the name of a table or view of that database. Load "
            f"the files into a table first (CREATE TABLE t ENGINE = Memory AS SELECT * FROM "
            f"file('path')), or leave con= out to read them with DuckDB"
        )

    # ---------------------------------------------------------------- errors
    def message(self, exc: BaseException) -> str:
        return clickhouse_message(exc)

    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        where = " / ".join(labels) or "data"
        if " on clickhouse" not in where:
            where += " on clickhouse"
        code = clickhouse_code(exc)
        kind = _CODES.get(code or -1)
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
        if code is not None:  # the engine's message, without a client's preamble or URL
            return EngineError(
                f"{metric}: the engine failed on {where}: {type(exc).__name__}: Code: {code}. "
                f"DB::Exception: {message}"
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
