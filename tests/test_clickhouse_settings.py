"""A ClickHouse session's or client's settings cannot change sqlmetrics' numbers (issue 39).

Every statement sqlmetrics sends carries a ``SETTINGS`` clause pinning each ClickHouse setting
that can change its result (``SETTINGS`` in sqlmetrics/_backends/clickhouse_backend.py). Here
each of them is set to its worst value where a user would set it, on the chdb session
(``SET``), on a clickhouse_connect client over HTTP and on clickhouse_connect's in-process chdb
client (``get_client(settings=...)``), and the calls give the default session's values: an
evaluate by slice (a join per group: GAUC; a NULL slice), a curve (many rows), a confusion
matrix (a grid of classes), and on the session a state and its merge, a scalar function and a
DataFrame read in place (the clients run the lighter set: the clause is one, only how the
hostile values arrive differs). A limit on rows (``max_rows_to_read`` and the like) still
holds, as an error: its mode is pinned to ``'throw'``, where ``'break'`` or ``'any'`` would
have cut the rows silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table, quiet
from test_clickhouse_connect import ClickHouseHTTP

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import SETTINGS
from sqlmetrics._engine.run import compute
from sqlmetrics._templating.quoting import quote_literal
from sqlmetrics.errors import SqlMetricsError

pytestmark = pytest.mark.clickhouse

RNG = np.random.default_rng(39)
N = 240
EVENTS = pd.DataFrame(
    {
        "click": (RNG.random(N) < 0.35).astype("int64"),
        "pctr": np.round(RNG.random(N), 1),  # heavy ties
        "w": np.round(RNG.random(N) * 2 + 0.1, 2),
        "grp": RNG.integers(0, 12, N).astype("int64"),
        "item": np.arange(N).astype("int64"),
        "day": np.array(["mon", "tue", None], dtype=object)[np.arange(N) % 3],  # a NULL slice
        "cls": np.array(["x", "y", "z"], dtype=object)[RNG.integers(0, 3, N)],
        "pcls": np.array(["x", "y", "z"], dtype=object)[RNG.integers(0, 3, N)],
    }
)
METRICS = ["auc", "gauc", "average_precision", "log_loss", "f1", "ndcg@3", "mrr@3"]
COLUMNS: dict[str, Any] = {"label": "click", "score": "pctr", "group": "grp", "item": "item"}

#: setting -> (the worst values a user can set for it, the result the call must give):
#: "same" the default session's values; "limit" the same values or an error naming the limit
#: (never other numbers)
HOSTILE: dict[str, tuple[dict[str, Any], str]] = {
    "join_use_nulls": ({"join_use_nulls": 0}, "same"),
    "cast_keep_nullable": ({"cast_keep_nullable": 0}, "same"),
    "aggregate_functions_null_for_empty": ({"aggregate_functions_null_for_empty": 0}, "same"),
    "join_default_strictness": ({"join_default_strictness": "ANY"}, "same"),
    "any_join_distinct_right_table_keys": (
        {"any_join_distinct_right_table_keys": 1, "join_default_strictness": "ANY"},
        "same",
    ),
    "extremes": ({"extremes": 1}, "same"),
    "limit": ({"limit": 2}, "same"),
    "offset": ({"offset": 1}, "same"),
    "additional_result_filter": ({"additional_result_filter": "1 = 0"}, "same"),
    "read_overflow_mode": ({"max_rows_to_read": 20, "read_overflow_mode": "break"}, "limit"),
    "read_overflow_mode_leaf": (
        {"max_rows_to_read_leaf": 20, "read_overflow_mode_leaf": "break"},
        "limit",
    ),
    "sort_overflow_mode": ({"max_rows_to_sort": 20, "sort_overflow_mode": "break"}, "limit"),
    "group_by_overflow_mode": (
        {"max_rows_to_group_by": 2, "group_by_overflow_mode": "any"},
        "limit",
    ),
    "join_overflow_mode": ({"max_rows_in_join": 2, "join_overflow_mode": "break"}, "limit"),
    "set_overflow_mode": ({"max_rows_in_set": 2, "set_overflow_mode": "break"}, "limit"),
    "distinct_overflow_mode": (
        {"max_rows_in_distinct": 2, "distinct_overflow_mode": "break"},
        "limit",
    ),
    "transfer_overflow_mode": (
        {"max_rows_to_transfer": 2, "transfer_overflow_mode": "break"},
        "limit",
    ),
    "result_overflow_mode": ({"max_result_rows": 2, "result_overflow_mode": "break"}, "limit"),
    "timeout_overflow_mode": (
        {"max_execution_time": 0.000001, "timeout_overflow_mode": "break"},
        "limit",
    ),
    "timeout_overflow_mode_leaf": (
        {"max_execution_time_leaf": 0.000001, "timeout_overflow_mode_leaf": "break"},
        "limit",
    ),
    "single_join_prefer_left_table": ({"single_join_prefer_left_table": 0}, "same"),
    "count_distinct_implementation": ({"count_distinct_implementation": "uniqHLL12"}, "same"),
    "use_query_cache": ({"use_query_cache": 1}, "same"),
}
TRANSPORTS = ("session", "http", "chdb_client")


def test_every_pinned_setting_has_a_hostile_case() -> None:
    assert set(HOSTILE) == set(SETTINGS)
    for name, (hostile, _) in HOSTILE.items():
        assert name in hostile, name


def chdb_blocks(session: Any, name: str, frame: pd.DataFrame, rows: int) -> None:
    """``frame`` as the Memory table ``name``, inserted ``rows`` rows at a time: a table of
    several blocks, which a limit on rows read or sorted in 'break' mode would cut."""
    chdb_table(session, name, frame.iloc[:rows])
    for start in range(rows, len(frame), rows):
        chunk = frame.iloc[start : start + rows]  # noqa: F841 (read by name by chdb)
        session.query(f'INSERT INTO "{name}" SELECT * FROM Python(chunk)')


@pytest.fixture(scope="module")
def tables(chdb_session: Any) -> Any:
    chdb_blocks(chdb_session, "cs_events", EVENTS, 20)
    chdb_table(chdb_session, "cs_catalog", pd.DataFrame({"item": np.arange(2 * N, dtype="int64")}))
    assert chdb_session.query('SELECT count() FROM "cs_events"', "CSV").bytes() == b"240\n"
    return chdb_session


class SettingsHTTP(ClickHouseHTTP):
    """The HTTP fixture, whose own bookkeeping (reading a setting's value before a query, to
    set it back after: a real server applies URL settings to the one query) bypasses the query
    cache: with ``use_query_cache = 1`` ClickHouse refuses ``getSetting`` (non-deterministic)."""

    def _apply(self, con: Any, settings: dict[str, str]) -> dict[str, str]:
        class Bypass:
            def query(self, sql: str, *args: Any) -> Any:
                if sql.startswith("SELECT toString(getSetting("):
                    sql += " SETTINGS use_query_cache = 0"
                return con.query(sql, *args)

        return super()._apply(Bypass(), settings)


@pytest.fixture(scope="module")
def http_server(tables: Any) -> Iterator[ClickHouseHTTP]:
    server = SettingsHTTP()
    yield server
    server.close()


def _set(session: Any, name: str, value: Any) -> None:
    text = quote_literal(value, "clickhouse") if isinstance(value, str) else value
    session.query(f"SET {name} = {text}")


@pytest.fixture
def hostile_con(
    tables: Any, http_server: ClickHouseHTTP
) -> Iterator[Callable[[str, dict[str, Any]], Any]]:
    """``make(transport, settings)``: a con whose session or client has ``settings``."""
    opened: list[Any] = []
    set_on_session: list[str] = []

    def make(transport: str, settings: dict[str, Any]) -> Any:
        import clickhouse_connect

        if transport == "session":
            for name, value in settings.items():
                _set(tables, name, value)
                set_on_session.append(name)
            return tables
        if transport == "http":
            con = clickhouse_connect.get_client(
                host="127.0.0.1", port=http_server.port, settings=dict(settings)
            )
        else:
            con = clickhouse_connect.get_client(interface="chdb", settings=dict(settings))
        opened.append(con)
        return con

    try:
        yield make
    finally:
        for name in set_on_session:
            tables.query(f"SET {name} = DEFAULT")
        for con in opened:
            con.close()


def _state_and_merge(con: Any) -> pd.DataFrame:
    names = ["auc", "f1", "log_loss"]
    states = quiet(
        sqlmetrics.state, "cs_events", names, label="click", score="pctr", by="day", con=con
    )
    merged = quiet(
        sqlmetrics.merge, [states, states], names, label="click", score="pctr", by="day", con=con
    )
    return pd.concat([states.drop(columns=["sqlmetrics_args"], errors="ignore"), merged], axis=1)


def results(con: Any, full: bool) -> dict[str, Any]:
    """What a user computes: evaluate by slice, a curve and a confusion matrix by slice; with
    ``full``, also a state and its merge, a scalar function and a DataFrame read in place."""
    out: dict[str, Any] = {
        "evaluate": quiet(sqlmetrics.evaluate, "cs_events", METRICS, con=con, by="day", **COLUMNS),
        "roc_curve": quiet(
            sqlmetrics.roc_curve, "cs_events", label="click", score="pctr", by="day", con=con
        ),
        "confusion": quiet(  # the kernel with slices (the function takes no by=)
            compute,
            "multiclass_confusion_matrix",
            "cs_events",
            con=con,
            by="day",
            params={},
            columns={"label": "cls", "prediction": "pcls", "weight": None},
        ),
    }
    if full:
        out["state"] = _state_and_merge(con)
        out["auc"] = sqlmetrics.auc("cs_events", label="click", score="pctr", weight="w", con=con)
        out["coverage"] = sqlmetrics.catalog_coverage(
            "cs_events", item="item", train="cs_catalog", con=con
        )
        out["frame"] = quiet(
            sqlmetrics.evaluate, EVENTS, ["auc", "gauc", "ndcg@3"], con=con, by="day", **COLUMNS
        )
    return out


def assert_same(expected: dict[str, Any], got: dict[str, Any], where: str) -> None:
    assert set(got) <= set(expected), where
    for key, value in got.items():
        if isinstance(value, pd.DataFrame):
            want = expected[key]
            assert list(value.columns) == list(want.columns), f"{where}: {key} columns"
            assert len(value) == len(want), f"{where}: {key}: {len(value)} rows, not {len(want)}"
            pd.testing.assert_frame_equal(
                value.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False,
                obj=f"{where}: {key}",
            )  # fmt: skip
        else:
            assert value == expected[key], f"{where}: {key}: {value!r} vs {expected[key]!r}"


@pytest.fixture(scope="module")
def default_values(tables: Any) -> dict[str, Any]:
    return results(tables, full=True)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("setting", sorted(HOSTILE))
def test_a_hostile_setting_changes_no_number(
    setting: str, transport: str, hostile_con: Any, default_values: dict[str, Any]
) -> None:
    settings, expect = HOSTILE[setting]
    con = hostile_con(transport, settings)
    where = f"{settings} on {transport}"
    try:
        got = results(con, full=transport == "session")
    except SqlMetricsError as exc:
        assert expect == "limit", f"{where}: {exc}"
        assert re.search(r"limit|too many|timeout", str(exc), re.I), str(exc)
        return
    assert_same(default_values, got, where)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_query_cache_gives_no_stale_metric(
    transport: str, hostile_con: Any, tables: Any
) -> None:
    """With ``use_query_cache = 1`` a second call after the table changed would be answered
    from the cache (the same SQL text): the statements bypass it."""
    chdb_table(tables, "cs_cached", EVENTS)
    con = hostile_con(transport, {"use_query_cache": 1, "query_cache_min_query_runs": 0})
    try:
        before = sqlmetrics.auc("cs_cached", label="click", score="pctr", con=con)
        flipped = EVENTS.assign(click=1 - EVENTS["click"])
        chdb_table(tables, "cs_cached", flipped)
        after = sqlmetrics.auc("cs_cached", label="click", score="pctr", con=con)
    finally:
        tables.query('DROP TABLE IF EXISTS "cs_cached"')
    assert before == sqlmetrics.auc(EVENTS, label="click", score="pctr")
    assert after == sqlmetrics.auc(flipped, label="click", score="pctr")
    assert after != before


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_exact_count_distinct(transport: str, hostile_con: Any, tables: Any) -> None:
    """``count_distinct_implementation`` other than uniqExact estimates ``count(distinct)``
    (catalog coverage's items) once there are some thousands of them."""
    chdb_table(tables, "cs_items", pd.DataFrame({"item": np.arange(30_000, dtype="int64")}))
    chdb_table(tables, "cs_train", pd.DataFrame({"item": np.arange(90_000, dtype="int64")}))
    try:
        con = hostile_con(transport, {"count_distinct_implementation": "uniqHLL12"})
        got = sqlmetrics.catalog_coverage("cs_items", item="item", train="cs_train", con=con)
    finally:
        tables.query('DROP TABLE IF EXISTS "cs_items"')
        tables.query('DROP TABLE IF EXISTS "cs_train"')
    assert got == 1 / 3
