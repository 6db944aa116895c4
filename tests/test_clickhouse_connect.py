"""ClickHouse through a ``clickhouse_connect`` client (issue 25): ``con=`` a client.

No ClickHouse server can be installed here (Debian's ``clickhouse-server`` is 18.16, from
2018: no window functions; neither chdb's wheels nor the Python registry ship a server
binary), so the HTTP client is tested against :class:`ClickHouseHTTP`, a small local HTTP
server implementing the part of ClickHouse's HTTP interface clickhouse_connect uses: the query
in the POST body (or the ``query`` URL parameter), the output format it asks for (``FORMAT
Native``, written by the engine itself), settings as URL parameters applied to that query only,
sessions by ``session_id`` (one query at a time per session, ``SESSION_IS_LOCKED`` otherwise),
and ClickHouse's error reply (status, ``X-ClickHouse-Exception-Code``, ``Code: N.
DB::Exception: ...``). The engine answering is real ClickHouse (chdb 4.4, ClickHouse 26.9),
but the HTTP layer is ours: what this proves is that sqlmetrics' SQL, settings and error
mapping work through clickhouse_connect's real client code and wire format; not that a
production server's HTTP handler, authentication, compression or proxies behave the same.
clickhouse_connect's own in-process chdb client (``interface="chdb"``) runs the same tests.
"""

from __future__ import annotations

import re
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table, duckdb_tables

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import with_settings
from sqlmetrics._templating.quoting import quote_literal
from sqlmetrics.errors import ColumnNotFoundError, DataSourceError, EngineError

pytestmark = pytest.mark.clickhouse

RNG = np.random.default_rng(2025)
N = 600
EVENTS = pd.DataFrame(
    {
        "click": (RNG.random(N) < 0.3).astype("int64"),
        "pctr": np.round(RNG.random(N), 1),  # heavy ties
        "w": np.round(RNG.random(N) * 2 + 0.1, 2),
        "day": np.array(["mon", "tue", None], dtype=object)[np.arange(N) % 3],  # a NULL slice
    }
)
#: names that need quoting: a backslash, both quotes, a space and clickhouse_connect's own
#: parameter marker ``%``
ODD = pd.DataFrame({'la"b\\el%s': EVENTS["click"], "sc'o re%": EVENTS["pctr"]})

# ---------------------------------------------------------------------------------------------
# a minimal ClickHouse HTTP interface over the chdb engine

#: URL parameters of the HTTP interface that are not query settings
_NOT_SETTINGS = {
    "query", "query_id", "session_id", "session_timeout", "session_check", "database",
    "default_format", "user", "password", "compress", "decompress", "wait_end_of_query",
    "send_progress_in_http_headers", "http_headers_progress_interval_ms",
    "cancel_http_readonly_queries_on_client_close", "enable_http_compression",
    "client_protocol_version",
}  # fmt: skip
#: ClickHouse's HTTP status of an error code (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp, for
#: the codes these tests meet: unknown identifier, function, table, database 404; syntax,
#: parse and type-mismatch errors 400); every other code is 500
_STATUS = {47: 404, 46: 404, 60: 404, 81: 404, 62: 400, 6: 400, 27: 400, 72: 400, 53: 400}


class ClickHouseHTTP:
    """A local HTTP server speaking enough of ClickHouse's HTTP interface for
    clickhouse_connect, answered by the chdb engine of this process (see the module
    docstring for what it leaves out).
    """

    def __init__(self, keep_alive: bool = True) -> None:
        import chdb

        self._chdb = chdb
        self._sessions: dict[str, tuple[Any, threading.Lock]] = {}
        self._guard = threading.Lock()
        self.queries: list[str] = []
        handler = self._handler(keep_alive)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        for con, _ in self._sessions.values():
            con.close()

    def _session(self, session_id: str | None) -> tuple[Any, threading.Lock, bool]:
        """The session's connection (its own settings), its lock, whether it is temporary."""
        if session_id is None:
            return self._chdb.connect(), threading.Lock(), True
        with self._guard:
            if session_id not in self._sessions:
                self._sessions[session_id] = (self._chdb.connect(), threading.Lock())
            con, lock = self._sessions[session_id]
        return con, lock, False

    def run(self, params: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        """One request: (status, headers, body) as ClickHouse's HTTP handler answers it."""
        query = "\n".join(p for p in (params.get("query", ""), body.decode()) if p)
        self.queries.append(query)
        session_id = params.get("session_id")
        con, lock, temporary = self._session(session_id)
        if not lock.acquire(blocking=False):
            return self._error(
                f"Code: 373. DB::Exception: Session {session_id} is locked by a concurrent "
                f"client. (SESSION_IS_LOCKED)"
            )
        try:
            settings = {k: v for k, v in params.items() if k not in _NOT_SETTINGS}
            saved = self._apply(con, settings)
            try:
                result = con.query(query, params.get("default_format", "TabSeparated"))
            finally:
                self._apply(con, saved)
        except Exception as exc:  # the engine's error, as the server sends it
            return self._error(str(exc))
        finally:
            lock.release()
            if temporary:
                con.close()
        return 200, {}, result.bytes()

    def _apply(self, con: Any, settings: dict[str, str]) -> dict[str, str]:
        """Set ``settings`` for one query; the values they had, to set back afterwards."""
        if not settings:
            return {}
        names = list(settings)
        assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names), names
        read = ", ".join(f"toString(getSetting('{n}'))" for n in names)
        old = con.query(f"SELECT {read}", "TabSeparatedRaw").bytes().decode().rstrip("\n")
        assigned = ", ".join(f"{n} = {quote_literal(v, 'clickhouse')}" for n, v in settings.items())
        con.query(f"SET {assigned}")
        return dict(zip(names, old.split("\t")))

    @staticmethod
    def _error(message: str) -> tuple[int, dict[str, str], bytes]:
        match = re.search(r"Code: (\d+)\.", message)
        code = int(match.group(1)) if match else 1001
        text = f"{message} (version 26.9.1.1)\n"
        return _STATUS.get(code, 500), {"X-ClickHouse-Exception-Code": str(code)}, text.encode()

    def _handler(self, keep_alive: bool) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def do_POST(self) -> None:
                url = urllib.parse.urlparse(self.path)
                params = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, data = server.run(params, body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture(scope="module")
def http_server(chdb_session: Any) -> Iterator[ClickHouseHTTP]:
    chdb_table(chdb_session, "cc_events", EVENTS)
    chdb_table(chdb_session, "cc_odd", ODD)
    server = ClickHouseHTTP()
    yield server
    server.close()


def _http_client(server: ClickHouseHTTP, **kwargs: Any) -> Any:
    import clickhouse_connect

    return clickhouse_connect.get_client(host="127.0.0.1", port=server.port, **kwargs)


@pytest.fixture(params=["http", "chdb"], scope="module")
def client(request: pytest.FixtureRequest, http_server: ClickHouseHTTP) -> Iterator[Any]:
    """A clickhouse_connect client: over HTTP to :class:`ClickHouseHTTP`, or
    clickhouse_connect's in-process chdb client; both see the chdb session's tables."""
    import clickhouse_connect

    if request.param == "http":
        con = _http_client(http_server)
    else:
        con = clickhouse_connect.get_client(interface="chdb")
    yield con
    con.close()


def _duckdb(name: str, frame: pd.DataFrame) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.register(name, frame)
    return con


# ---------------------------------------------------------------------------------------------
# values


def test_the_server_fixture_runs_the_real_engine(http_server: ClickHouseHTTP) -> None:
    """The HTTP fixture answers with the engine: its version is chdb's ClickHouse."""
    import chdb

    con = _http_client(http_server)
    try:
        version = con.command("SELECT version()")
    finally:
        con.close()
    assert version == chdb.query("SELECT version()", "TabSeparatedRaw").bytes().decode().strip()


def test_evaluate_by_a_slice_equals_duckdb(client: Any) -> None:
    kwargs: dict[str, Any] = {"label": "click", "score": "pctr", "by": "day", "weight": "w"}
    metrics = ["auc", "precision", "log_loss", "brier_score"]
    frame = sqlmetrics.evaluate("cc_events", metrics, con=client, **kwargs)
    expected = sqlmetrics.evaluate(EVENTS, metrics, **kwargs)
    assert frame["day"].tolist()[:2] == ["mon", "tue"] and pd.isna(frame["day"].iloc[2])
    assert repr(frame["day"].iloc[2]) == repr(expected["day"].iloc[2])  # DuckDB's NULL
    for column in [*metrics, "n_rows"]:
        assert frame[column].tolist() == pytest.approx(expected[column].tolist(), rel=1e-12)
    assert frame["n_rows"].dtype == np.dtype("int64")


def test_weighted_auc_equals_duckdb_bit_for_bit(client: Any) -> None:
    got = sqlmetrics.auc("cc_events", label="click", score="pctr", weight="w", con=client)
    con = _duckdb("cc_events", EVENTS)
    assert got == sqlmetrics.auc("cc_events", label="click", score="pctr", weight="w", con=con)


def test_a_curve_by_a_slice_equals_duckdb(client: Any) -> None:
    got = sqlmetrics.roc_curve("cc_events", label="click", score="pctr", by="day", con=client)
    expected = sqlmetrics.roc_curve(EVENTS, label="click", score="pctr", by="day")
    assert list(got.columns) == list(expected.columns) and len(got) == len(expected)
    for column in expected.columns:
        for a, b in zip(expected[column], got[column]):
            if isinstance(a, float) and not pd.isna(a):
                assert b == pytest.approx(a, rel=1e-12), (column, a, b)
            else:
                assert (pd.isna(a) and pd.isna(b)) or a == b, (column, a, b)


def test_names_that_need_quoting(client: Any) -> None:
    """``%`` too: clickhouse_connect formats ``%s`` only when parameters are passed."""
    value = sqlmetrics.auc("cc_odd", label='la"b\\el%s', score="sc'o re%", con=client)
    assert value == sqlmetrics.auc(ODD, label='la"b\\el%s', score="sc'o re%")


def test_the_same_sql_as_chdb_with_its_settings_clause(http_server: ClickHouseHTTP) -> None:
    """The client sends the statements the chdb transport runs: each with our SETTINGS."""
    con = _http_client(http_server)
    try:
        before = len(http_server.queries)
        sqlmetrics.auc("cc_events", label="click", score="pctr", con=con)
        sent = http_server.queries[before:]
    finally:
        con.close()
    clause = with_settings("").strip()  # every pinned setting (issue 39)
    computed = [q for q in sent if "SETTINGS join_use_nulls = 1" in q]
    assert computed and all(q.rstrip().endswith(f"{clause}\n FORMAT Native") for q in computed)
    assert all("SETTINGS" in q for q in sent if "FORMAT Native" in q)
    assert not [q for q in sent if re.match(r"\s*(SET|CREATE|INSERT|DROP)\b", q, re.I)]


def _setting(client: Any, name: str) -> Any:
    return client.command(f"SELECT toString(getSetting({quote_literal(name, 'clickhouse')}))")


def test_the_users_settings_are_unchanged(http_server: ClickHouseHTTP) -> None:
    """The client's settings (sent with every query) and its session's settings (SET) are the
    opposite of ours: the values are still DuckDB's, and both are the user's afterwards."""
    con = _http_client(http_server, settings={"join_use_nulls": 0})
    try:
        con.command("SET aggregate_functions_null_for_empty = 0")
        frame = sqlmetrics.evaluate(
            "cc_events", ["auc", "precision"], label="click", score="pctr", by="day", con=con
        )
        assert con.get_client_setting("join_use_nulls") == 0
        assert _setting(con, "join_use_nulls") == "false"
        assert _setting(con, "aggregate_functions_null_for_empty") == "false"
        assert _setting(con, "cast_keep_nullable") == "false"
    finally:
        con.close()
    expected = sqlmetrics.evaluate(
        EVENTS, ["auc", "precision"], label="click", score="pctr", by="day"
    )
    for column in ("auc", "precision", "n_rows"):
        assert frame[column].tolist() == pytest.approx(expected[column].tolist(), rel=1e-12)


RUN = pd.DataFrame(
    {
        "group": np.repeat(np.arange(20), 10),
        "item": np.tile(np.arange(10), 20),
        "score": np.round(RNG.random(200), 1),
    }
)
#: judged items the run did not retrieve (items 10 to 14): the anti-joins read them
QRELS = pd.DataFrame(
    {
        "group": np.repeat(np.arange(20), 5),
        "item": RNG.integers(0, 15, 100),
        "label": RNG.integers(0, 3, 100),
    }
).drop_duplicates(["group", "item"])


@pytest.mark.parametrize(
    ("metric", "k"), [("bpref", None), ("infap", None), ("judged", 5), ("ndcg", 5)]
)
@pytest.mark.parametrize("interface", ["http", "chdb"])
def test_ranking_with_the_clients_settings_against_ours(
    http_server: ClickHouseHTTP, chdb_session: Any, interface: str, metric: str, k: int | None
) -> None:
    """A client whose settings are ClickHouse's defaults (``join_use_nulls=0``: an unmatched
    outer-join row holds 0, not NULL), sent with every query: bpref, infAP and judged read
    that NULL, and still equal DuckDB because our SETTINGS clause wins over the client's
    (without it, all three differ)."""
    import clickhouse_connect

    chdb_table(chdb_session, "cc_run", RUN)
    chdb_table(chdb_session, "cc_qrels", QRELS)
    settings = {"join_use_nulls": 0, "aggregate_functions_null_for_empty": 0}
    if interface == "http":
        con = _http_client(http_server, settings=settings)
    else:
        con = clickhouse_connect.get_client(interface="chdb", settings=settings)
    function = getattr(sqlmetrics, metric)
    kwargs = {} if k is None else {"k": k}
    try:
        got = function("cc_run", qrels="cc_qrels", con=con, **kwargs)
    finally:
        con.close()
    assert got == pytest.approx(function(RUN, qrels=QRELS, **kwargs), rel=1e-12)


def test_calls_from_threads_share_one_client(http_server: ClickHouseHTTP) -> None:
    """A server runs one query at a time per HTTP session and refuses a concurrent one
    (SESSION_IS_LOCKED), and a client keeps one session: sqlmetrics holds the client's lock
    for a call, so threads sharing it wait for each other instead of failing."""
    con = _http_client(http_server)
    expected = sqlmetrics.auc(EVENTS, label="click", score="pctr", weight="w")
    results: list[Any] = []

    def work() -> None:
        for _ in range(3):
            try:
                results.append(
                    sqlmetrics.auc("cc_events", label="click", score="pctr", weight="w", con=con)
                )
            except Exception as exc:  # collected, asserted below
                results.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        con.close()
    assert results == [pytest.approx(expected, rel=1e-12)] * 12


# ---------------------------------------------------------------------------------------------
# errors


def test_the_chdb_client_reads_a_dataframe_in_place() -> None:
    """clickhouse_connect's chdb client runs the engine in this process: a DataFrame is read
    where it is, as with a chdb session."""
    import clickhouse_connect

    con = clickhouse_connect.get_client(interface="chdb")
    kwargs: dict[str, Any] = {"label": "click", "score": "pctr", "by": "day", "weight": "w"}
    try:
        got = sqlmetrics.evaluate(EVENTS, ["auc", "log_loss"], con=con, **kwargs)
    finally:
        con.close()
    expected = sqlmetrics.evaluate(EVENTS, ["auc", "log_loss"], **kwargs)
    assert got["day"].tolist()[:2] == ["mon", "tue"] and pd.isna(got["day"].iloc[2])
    assert repr(got["day"].iloc[2]) == repr(expected["day"].iloc[2])  # DuckDB's NULL
    for column in ("auc", "log_loss", "n_rows"):
        assert got[column].tolist() == pytest.approx(expected[column].tolist(), rel=1e-12)


def test_a_dataframe_is_refused_over_http_with_the_fix(http_server: ClickHouseHTTP) -> None:
    con = _http_client(http_server)
    try:
        with pytest.raises(DataSourceError) as info:
            sqlmetrics.auc(EVENTS, label="click", score="pctr", con=con)
    finally:
        con.close()
    assert str(info.value) == (
        "auc: data= is a DataFrame; with con= a clickhouse_connect client (clickhouse), data= "
        "must be the name of a table or view of that database (db.table allowed): the server "
        "cannot read this process's memory, and sqlmetrics writes nothing there. Insert the "
        "data into a table first (client.insert_df), or leave con= out to compute on an "
        "in-memory DuckDB database"
    )


def test_files_are_refused_with_the_fix(client: Any, tmp_path: Any) -> None:
    path = tmp_path / "events.parquet"
    EVENTS.to_parquet(path)
    with pytest.raises(DataSourceError) as info:
        sqlmetrics.auc(str(path), label="click", score="pctr", con=client)
    assert str(info.value) == (
        f"auc: data=[{str(path)!r}] names files; with con= a clickhouse_connect client "
        f"(clickhouse), data= must be the name of a table or view of that database. Load the "
        f"files into a table first (CREATE TABLE t ENGINE = Memory AS SELECT * FROM "
        f"file('path')), or leave con= out to read them with DuckDB"
    )


def test_an_unknown_table_names_the_tables(client: Any) -> None:
    with pytest.raises(DataSourceError) as info:
        sqlmetrics.auc("cc_evnts", label="click", score="pctr", con=client)
    assert str(info.value).startswith(
        "auc: data='cc_evnts' is not a table or view in con (clickhouse); tables present: "
    )
    assert "cc_events" in str(info.value)
    assert str(info.value).endswith(
        "Pass the name of a table or view of that database (schema.table for another schema)"
    )


def test_an_unknown_column_is_named(client: Any) -> None:
    with pytest.raises(ColumnNotFoundError, match=r"'clik'"):
        sqlmetrics.auc("cc_events", label="clik", score="pctr", con=client)


def test_a_server_error_is_mapped_as_on_chdb(
    http_server: ClickHouseHTTP, chdb_session: Any
) -> None:
    """The same engine error through both transports: the same class and the same message
    (the client's HTTP preamble, the server's version and the URL left out)."""
    from sqlmetrics._backends.clickhouse_backend import ClickHouseBackend

    con = _http_client(http_server)
    errors = []
    try:
        for backend in (ClickHouseBackend(con), ClickHouseBackend(chdb_session)):
            try:
                backend.query("SELECT no_such_column FROM cc_events")
            except backend.errors as exc:
                errors.append(backend.wrap_error("auc", ["data='cc_events'"], exc))
    finally:
        con.close()
    assert [type(e) for e in errors] == [ColumnNotFoundError, ColumnNotFoundError]
    assert str(errors[0]) == str(errors[1])
    assert str(errors[0]).startswith(
        "auc: data='cc_events' on clickhouse: a column is missing: Unknown expression "
        "identifier `no_such_column`"
    )
    assert str(errors[0]).endswith("; pass the column names the data have")


def test_an_engine_error_names_clickhouse_and_the_client(http_server: ClickHouseHTTP) -> None:
    from sqlmetrics._backends.clickhouse_backend import ClickHouseBackend

    con = _http_client(http_server)
    backend = ClickHouseBackend(con)
    try:
        try:
            backend.query("SELECT no_such_function(1)")
        except backend.errors as exc:
            error = backend.wrap_error("auc", ["data='cc_events'"], exc)
    finally:
        con.close()
    assert isinstance(error, EngineError)
    assert str(error).startswith(
        "auc: the engine failed on data='cc_events' on clickhouse: DatabaseError: Code: 46. "
        "DB::Exception: Function with name `no_such_function` does not exist"
    )
    assert "http" not in str(error) and "version" not in str(error)


def test_a_server_that_is_gone_is_an_engine_error(http_server: ClickHouseHTTP) -> None:
    """A connection refused mid-use surfaces as sqlmetrics' EngineError naming ClickHouse."""
    server = ClickHouseHTTP(keep_alive=False)  # no open connection outlives the server
    con = _http_client(server, connect_timeout=2, send_receive_timeout=5)
    server.close()
    try:
        with pytest.raises(EngineError) as info:
            sqlmetrics.auc("cc_events", label="click", score="pctr", con=con)
    finally:
        con.close()
    assert str(info.value).startswith(
        "auc: the engine failed on data on clickhouse: OperationalError: Error "
        "HTTPConnectionPool(host='127.0.0.1'"
    )
    assert "Connection refused" in str(info.value)


def test_an_async_client_is_refused_with_the_fix(http_server: ClickHouseHTTP) -> None:
    """An AsyncClient is a Client whose query is a coroutine: refused before any call."""
    import asyncio

    import clickhouse_connect

    async def call() -> None:
        con = await clickhouse_connect.get_async_client(host="127.0.0.1", port=http_server.port)
        try:
            sqlmetrics.auc("cc_events", label="click", score="pctr", con=con)
        finally:
            await con.close()

    with pytest.raises(DataSourceError) as info:
        asyncio.run(call())
    assert str(info.value) == (
        "con= is a clickhouse_connect AsyncClient; sqlmetrics' calls are synchronous: pass a "
        "client of clickhouse_connect.get_client(...) (run the call in a thread, e.g. "
        "asyncio.to_thread, from async code)"
    )


def test_a_client_with_a_query_limit_is_refused(http_server: ClickHouseHTTP) -> None:
    """clickhouse_connect appends ``LIMIT n`` to a query without one: refused up front."""
    con = _http_client(http_server, query_limit=3)
    try:
        with pytest.raises(DataSourceError) as info:
            sqlmetrics.roc_curve("cc_events", label="click", score="pctr", con=con)
    finally:
        con.close()
    assert str(info.value) == (
        "con= is a clickhouse_connect client with query_limit=3, which appends LIMIT 3 to the "
        "queries sqlmetrics sends (a syntax error after their SETTINGS clause, or a cut result); "
        "pass a client made with query_limit=0 (the default)"
    )


# ---------------------------------------------------------------------------------------------
# the parity suite over HTTP: cases of tests/test_engines.py, decoded by clickhouse_connect (all
# 135 pass; 27 kept, 105 s for all on one process here)


@pytest.fixture(scope="module")
def parity_client(http_server: ClickHouseHTTP, chdb_session: Any) -> Iterator[Any]:
    from engine_variants import TABLES

    for name, frame in TABLES.items():
        chdb_table(chdb_session, name, frame)
    con = _http_client(http_server)
    yield con
    con.close()


@pytest.fixture(scope="module")
def parity_duckdb() -> Iterator[duckdb.DuckDBPyConnection]:
    from engine_variants import TABLES

    con = duckdb_tables(TABLES)
    yield con
    con.close()


def _parity_cases() -> list[Any]:
    """The parity cases that reach every kind of result: each family's batch by a slice, each
    table function alone and by a slice, the ``labels=`` checks (an empty result)."""
    from engine_variants import CASES

    return [
        c for c in CASES if c.by or (c.table and c.id.endswith("[default]")) or "labels=" in c.id
    ]


@pytest.mark.parametrize("case", _parity_cases(), ids=lambda c: c.id)
def test_parity_over_http(case: Any, parity_client: Any, parity_duckdb: Any) -> None:
    """Parity cases through the HTTP client equal DuckDB: the values clickhouse_connect
    decodes from the Native format are the ones chdb's DataFrame gives (an empty result, which
    Native sends without its columns, failed the ``labels=`` checks)."""
    from engine_variants import assert_same, run_case

    expected = run_case(case, parity_duckdb)
    assert_same(expected, run_case(case, parity_client), f"{case.id} over http")
