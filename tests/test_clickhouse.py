"""ClickHouse through chdb (issue 25): ``con=`` a chdb session or connection.

The registry-wide parity is in tests/test_engines.py (``evaluate`` and the table functions
through ``con=``) and tests/test_dialects.py (every rendered variant); here the backend itself:
the session's settings are left as the user set them, names that need quoting, DataFrames read
in place, threads, the errors. The clickhouse_connect transport: tests/test_clickhouse_connect.py.
"""

from __future__ import annotations

import threading
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table

import sqlmetrics
from sqlmetrics.errors import DataSourceError

pytestmark = pytest.mark.clickhouse

RNG = np.random.default_rng(25)
N = 600
EVENTS = pd.DataFrame(
    {
        "click": (RNG.random(N) < 0.3).astype("int64"),
        "pctr": np.round(RNG.random(N), 1),  # heavy ties
        "w": np.round(RNG.random(N) * 2 + 0.1, 2),
        "day": np.array(["mon", "tue", None], dtype=object)[np.arange(N) % 3],  # a NULL slice
    }
)
#: names ClickHouse reads a backslash in, quotes and a space
ODD = pd.DataFrame({'la"b\\el': EVENTS["click"], "sc'o re": EVENTS["pctr"]})


@pytest.fixture(scope="module")
def ch(chdb_session: Any) -> Any:
    chdb_table(chdb_session, "ch_events", EVENTS)
    chdb_table(chdb_session, "ch_odd", ODD)
    return chdb_session


def _setting(session: Any, name: str) -> str:
    return str(session.query(f"SELECT getSetting('{name}')", "CSV")).strip()


def test_the_users_settings_are_unchanged(ch: Any) -> None:
    """The backend's settings travel in each statement's SETTINGS clause: the session keeps
    the user's values, here the opposite of ours, during and after the call."""
    ch.query("SET join_use_nulls = 0")
    ch.query("SET aggregate_functions_null_for_empty = 0")
    try:
        frame = sqlmetrics.evaluate(
            "ch_events", ["auc", "precision", "log_loss"], label="click", score="pctr", by="day",
            weight="w", con=ch,
        )  # fmt: skip
        assert _setting(ch, "join_use_nulls") == "false"
        assert _setting(ch, "aggregate_functions_null_for_empty") == "false"
        assert _setting(ch, "cast_keep_nullable") == "false"
    finally:
        ch.query("SET join_use_nulls = 0")
    expected = sqlmetrics.evaluate(
        EVENTS, ["auc", "precision", "log_loss"], label="click", score="pctr", by="day", weight="w"
    )
    # the NULL slice as DuckDB gives it (pandas' str column, NaN)
    assert frame["day"].dtype == expected["day"].dtype
    assert frame["day"].tolist()[:2] == ["mon", "tue"] and pd.isna(frame["day"].iloc[2])
    for column in ("auc", "precision", "log_loss", "n_rows"):
        assert frame[column].tolist() == pytest.approx(expected[column].tolist(), rel=1e-12)


def test_weighted_auc_equals_duckdb_bit_for_bit(ch: Any) -> None:
    """The silent bug the issue found: ClickHouse's alias-wins rule read the scaled n_pos in
    weighted AUC's final step (0.0495 for 0.7914)."""
    got = sqlmetrics.auc("ch_events", label="click", score="pctr", weight="w", con=ch)
    con = duckdb.connect()
    con.register("ch_events", EVENTS)
    assert got == sqlmetrics.auc("ch_events", label="click", score="pctr", weight="w", con=con)


def test_a_chdb_connection_works_too(ch: Any) -> None:
    """``chdb.connect()`` (the DB-API connection) is taken as well as a Session; it shares the
    process's engine, so it sees the session's tables."""
    import chdb

    con = chdb.connect()
    try:
        value = sqlmetrics.auc("ch_events", label="click", score="pctr", con=con)
        in_place = sqlmetrics.auc(EVENTS, label="click", score="pctr", con=con)
    finally:
        con.close()
    assert value == in_place == sqlmetrics.auc(EVENTS, label="click", score="pctr")


def test_names_that_need_quoting(ch: Any) -> None:
    value = sqlmetrics.auc("ch_odd", label='la"b\\el', score="sc'o re", con=ch)
    assert value == sqlmetrics.auc(ODD, label='la"b\\el', score="sc'o re")


@pytest.mark.parametrize("kind", ["pandas", "pandas str", "arrow"])
def test_a_dataframe_is_read_in_place(ch: Any, kind: str) -> None:
    """chdb reads a pandas DataFrame or pyarrow Table where it is (``Python()``): the values
    are DuckDB's, NULL slice included, and nothing is left in the session."""
    import pyarrow as pa

    frame: Any = EVENTS
    if kind == "pandas str":  # NULL kept missing (pandas < 3 writes astype(str)'s None as 'None')
        frame = EVENTS.astype({"day": "str"})
        frame.loc[EVENTS["day"].isna(), "day"] = None
    if kind == "arrow":
        frame = pa.Table.from_pandas(EVENTS)
    tables = ch.query("SELECT count() FROM system.tables", "CSV").bytes()
    kwargs: dict[str, Any] = {"label": "click", "score": "pctr", "by": "day", "weight": "w"}
    got = sqlmetrics.evaluate(frame, ["auc", "precision", "log_loss"], con=ch, **kwargs)
    expected = sqlmetrics.evaluate(EVENTS, ["auc", "precision", "log_loss"], **kwargs)
    assert got["day"].tolist()[:2] == ["mon", "tue"] and pd.isna(got["day"].iloc[2])
    assert repr(got["day"].iloc[2]) == repr(expected["day"].iloc[2])  # DuckDB's NULL
    for column in ("auc", "precision", "log_loss", "n_rows"):
        assert got[column].tolist() == pytest.approx(expected[column].tolist(), rel=1e-12)
    assert ch.query("SELECT count() FROM system.tables", "CSV").bytes() == tables
    from sqlmetrics._backends import clickhouse_backend

    assert not [n for n in vars(clickhouse_backend) if n.startswith("__sqlmetrics_")]


def test_a_dataframe_gives_duckdbs_weighted_auc_bit_for_bit(ch: Any) -> None:
    got = sqlmetrics.auc(EVENTS, label="click", score="pctr", weight="w", con=ch)
    assert got == sqlmetrics.auc(EVENTS, label="click", score="pctr", weight="w")


def test_dataframes_from_threads_on_one_session(ch: Any) -> None:
    """Frames read in place from several threads sharing one session, each its own: every
    call gets the value of its own frame (chdb documents a session as safe to share; the
    backend also holds it for one call at a time, as it does a DuckDB connection)."""
    frames = [EVENTS.assign(pctr=np.round(EVENTS["pctr"] * k / 4, 2)) for k in (1, 2, 3, 4)]
    expected = [sqlmetrics.log_loss(f, label="click", score="pctr") for f in frames]
    results: dict[int, list[Any]] = {i: [] for i in range(4)}

    def work(i: int) -> None:
        for _ in range(3):
            try:
                results[i].append(
                    sqlmetrics.log_loss(frames[i], label="click", score="pctr", con=ch)
                )
            except Exception as exc:  # collected, asserted below
                results[i].append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(4):
        assert results[i] == [pytest.approx(expected[i], rel=1e-12)] * 3


def test_another_object_is_refused_with_the_fix(ch: Any) -> None:
    with pytest.raises(DataSourceError) as info:
        sqlmetrics.auc({"click": [1, 0]}, label="click", score="pctr", con=ch)
    assert str(info.value) == (
        "auc: data= is a dict; with con= a chdb session (clickhouse), data= must be the name "
        "of a table or view of that session, a pandas DataFrame or a pyarrow Table"
    )


def test_files_are_refused_with_the_fix(ch: Any, tmp_path: Any) -> None:
    path = tmp_path / "events.parquet"
    EVENTS.to_parquet(path)
    with pytest.raises(DataSourceError) as info:
        sqlmetrics.auc(str(path), label="click", score="pctr", con=ch)
    assert str(info.value) == (
        f"auc: data=[{str(path)!r}] names files; with con= a chdb session (clickhouse), data= "
        f"must be the name of a table or view of that database. Load the files into a table "
        f"first (CREATE TABLE t ENGINE = Memory AS SELECT * FROM file('path')), or leave con= "
        f"out to read them with DuckDB"
    )


#: the table functions whose kernels read a neighbour row (lag, lead) at a slice's edges
EDGE_METRICS = ("roc_curve", "pr_curve", "lift_table", "calibration_curve", "ks_point")


@pytest.mark.parametrize("metric", EDGE_METRICS)
def test_columns_without_null_give_the_same_tables(ch: Any, metric: str) -> None:
    """A ClickHouse column that cannot hold NULL (Float64, not Nullable(Float64), as most
    tables declare them): lag and lead give 0 past a slice's edge there, not NULL, which
    dropped a curve's end points; the templates now say where the edge is."""
    ch.query("DROP TABLE IF EXISTS ch_events_nn")
    ch.query(
        "CREATE TABLE ch_events_nn ENGINE = Memory AS SELECT assumeNotNull(click) AS click, "
        "assumeNotNull(pctr) AS pctr, assumeNotNull(w) AS w, day FROM ch_events"
    )
    kwargs: dict[str, Any] = {"label": "click", "score": "pctr", "by": "day"}
    function = getattr(sqlmetrics, metric)
    got = function("ch_events_nn", con=ch, **kwargs)
    expected = function(EVENTS, **kwargs)
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected), (len(got), len(expected))
    for column in expected.columns:
        for a, b in zip(expected[column], got[column]):
            if isinstance(a, float) and not pd.isna(a):
                assert b == pytest.approx(a, rel=1e-12), (column, a, b)
            else:
                assert (pd.isna(a) and pd.isna(b)) or a == b, (column, a, b)


def test_counts_come_back_as_int64(ch: Any) -> None:
    """ClickHouse's count() is a UInt64: the frame gives int64, as DuckDB's does."""
    frame = sqlmetrics.evaluate("ch_events", ["auc"], label="click", score="pctr", by="day", con=ch)
    expected = sqlmetrics.evaluate(EVENTS, ["auc"], label="click", score="pctr", by="day")
    assert frame["n_rows"].dtype == expected["n_rows"].dtype == np.dtype("int64")
    assert frame["n_rows"].tolist() == expected["n_rows"].tolist()
