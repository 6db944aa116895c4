"""Every input kind gives the same number; nothing is written to, or left in, the user's data."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

import sqlmetrics

FRAME = pd.DataFrame(
    {
        "label": [0, 0, 1, 1, 1, 0, 1, 0],
        "score": [0.1, 0.4, 0.35, 0.8, 0.4, 0.4, 0.9, 0.2],
        "user": ["a", "a", "a", "b", "b", "b", "c", "c"],
    }
)
EXPECTED_AUC = 0.8125  # 16 positive/negative pairs: 12 wins + 2 ties counting 1/2


def leftovers(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("select table_name from information_schema.tables").fetchall()
    return [r[0] for r in rows if r[0].startswith("__sqlmetrics_")]


def test_expected_value_is_the_oracle() -> None:
    from oracle.classification import auc

    assert auc(FRAME["label"], FRAME["score"]) == EXPECTED_AUC


def test_dataframe_arrow_relation_table_view(tmp_path: Path) -> None:
    con = duckdb.connect()
    con.register("frame_view", FRAME)
    con.execute("create table events as select * from frame_view")
    con.execute("create schema warehouse")
    con.execute("create table warehouse.events as select * from events")
    con.execute("create view events_v as select * from events")
    assert sqlmetrics.auc(FRAME) == EXPECTED_AUC
    assert sqlmetrics.auc(pa.Table.from_pandas(FRAME)) == EXPECTED_AUC
    assert sqlmetrics.auc(con.sql("select * from events"), con=con) == EXPECTED_AUC
    assert sqlmetrics.auc("events", con=con) == EXPECTED_AUC
    assert sqlmetrics.auc("warehouse.events", con=con) == EXPECTED_AUC
    assert sqlmetrics.auc("events_v", con=con) == EXPECTED_AUC
    assert sqlmetrics.auc(FRAME, con=con) == EXPECTED_AUC
    assert leftovers(con) == []


def test_relation_on_default_connection() -> None:
    rel = duckdb.sql("select * from (values (0, 0.1), (1, 0.9), (1, 0.1)) v(label, score)")
    assert sqlmetrics.auc(rel) == 0.75


def test_files_paths_globs_lists(tmp_path: Path) -> None:
    FRAME.iloc[:4].to_parquet(tmp_path / "part-1.parquet")
    FRAME.iloc[4:].to_parquet(tmp_path / "part-2.parquet")
    FRAME.to_csv(tmp_path / "all.csv", index=False)
    assert sqlmetrics.auc(str(tmp_path / "part-*.parquet")) == EXPECTED_AUC
    assert sqlmetrics.auc([tmp_path / "part-1.parquet", tmp_path / "part-2.parquet"]) == (
        EXPECTED_AUC
    )
    assert sqlmetrics.auc(tmp_path / "all.csv") == EXPECTED_AUC
    assert sqlmetrics.auc(str(tmp_path / "all.csv")) == EXPECTED_AUC


def test_database_path_is_opened_read_only(tmp_path: Path) -> None:
    db = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        con.register("f", FRAME)
        con.execute("create table events as select * from f")
    before = db.stat().st_mtime_ns, db.stat().st_size
    assert sqlmetrics.auc("events", con=str(db)) == EXPECTED_AUC
    assert sqlmetrics.gauc(FRAME, group="user", con=db) == pytest.approx(
        sqlmetrics.gauc(FRAME, group="user")
    )
    assert (db.stat().st_mtime_ns, db.stat().st_size) == before
    # a read-only connection of the user's own works too
    with duckdb.connect(str(db), read_only=True) as ro:
        assert sqlmetrics.auc("events", con=ro) == EXPECTED_AUC
        assert sqlmetrics.auc(FRAME, con=ro) == EXPECTED_AUC
        assert leftovers(ro) == []


def test_registration_removed_after_failure() -> None:
    con = duckdb.connect()
    bad = FRAME.assign(label=[0, 2, 1, 1, 1, 0, 1, 0])
    with pytest.raises(sqlmetrics.InvalidDataError):
        sqlmetrics.auc(bad, con=con)
    with pytest.raises(sqlmetrics.ColumnNotFoundError):
        sqlmetrics.auc(FRAME, con=con, score="nope")
    assert leftovers(con) == []


def test_hostile_identifiers_are_quoted() -> None:
    con = duckdb.connect()
    evil = 'x"; drop table t; --'
    con.register("f", FRAME.rename(columns={"label": evil, "score": "it's", "user": 'u"--'}))
    con.execute("create table t as select * from f")
    con.execute('create table "we""ird tab" as select * from f')
    assert sqlmetrics.auc("t", con=con, label=evil, score="it's") == EXPECTED_AUC
    assert sqlmetrics.auc('we"ird tab', con=con, label=evil, score="it's") == EXPECTED_AUC
    assert sqlmetrics.gauc("t", con=con, label=evil, score="it's", group='u"--') == (
        sqlmetrics.gauc(FRAME, group="user")
    )
    assert con.execute("select count(*) from t").fetchone() == (8,)
    sql = sqlmetrics.render("auc", "t", label=evil)
    assert '"x""; drop table t; --"' in sql


def test_hostile_file_name(tmp_path: Path) -> None:
    path = tmp_path / "it's; drop.parquet"
    FRAME.to_parquet(path)
    assert sqlmetrics.auc(path) == EXPECTED_AUC
    assert os.path.exists(path)


def test_slice_named_like_a_canonical_column() -> None:
    # by= is internal to evaluate; the engine must keep slices apart from label/score
    from sqlmetrics._engine.run import compute

    frame = FRAME.assign(score_copy=FRAME["score"])
    out = compute("auc", frame, con=None, columns={"label": "label", "score": "score"}, by=["user"])
    assert list(out.columns[:1]) == ["user"]
    assert list(out["user"]) == ["a", "b", "c"]
    assert out["auc"].iloc[0] == 0.5


def test_render_is_what_runs(tmp_path: Path) -> None:
    con = duckdb.connect()
    con.register("f", FRAME)
    con.execute("create table events as select * from f")
    sql = sqlmetrics.render("auc", "events")
    assert con.execute(sql).fetchone()[0] == EXPECTED_AUC
    FRAME.to_parquet(tmp_path / "e.parquet")
    sql = sqlmetrics.render("gauc", tmp_path / "e.parquet", group="user", weighting="uniform")
    assert "read_parquet(" in sql
    assert con.execute(sql).fetchone()[0] == pytest.approx(
        sqlmetrics.gauc(FRAME, group="user", weighting="uniform"), abs=1e-15
    )


def test_render_ranking_defaults_run() -> None:
    con = duckdb.connect()
    con.execute(
        "create table runs as select * from (values (1, 'a', 0.9, 1), (1, 'b', 0.5, 0),"
        " (2, 'a', 0.1, 2), (2, 'c', 0.3, 0)) v(\"group\", item, score, label)"
    )
    sql = sqlmetrics.render("ndcg", "runs", k=2, gain="linear")
    frame = con.execute(sql).df()
    assert frame["ndcg"].iloc[0] == sqlmetrics.ndcg("runs", con=con, k=2, gain="linear")
