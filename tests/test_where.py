"""Issue 39 item 17: ``where=`` wherever data is read.

``where=`` filters the data before anything reads it: with ``ci=`` (each metric's interval,
served by its own function), with ``scores=`` (the wide class scores), in ``state`` and
``merge``, ``compare`` and ``report``, and on every engine (PostgreSQL 15 needs an alias on a
subquery in ``from``). Each case equals the same call on the rows filtered beforehand, bit
for bit; a wrong column is named with ``where=`` on each engine.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table

import sqlmetrics

RNG = np.random.default_rng(39)
N = 240
FRAME = pd.DataFrame(
    {
        "label": RNG.integers(0, 2, N),
        "a": RNG.random(N).round(2),  # ties
        "b": RNG.random(N),
        "country": pd.Series(RNG.choice(["DE", "FR", "XX"], N)).replace("XX", None),
        "user": RNG.integers(0, 12, N),
        "item": np.arange(N),
        "day": RNG.integers(1, 4, N),
        "c": RNG.integers(0, 3, N),
        "s0": RNG.random(N),
        "s1": RNG.random(N),
        "s2": RNG.random(N),
    }
)
WHERE = "country = 'DE'"
DE = FRAME[FRAME["country"] == "DE"].reset_index(drop=True)
assert 0 < len(DE) < N and FRAME["country"].isna().any()
WIDE: dict[str, Any] = {"label": "c", "scores": ["s0", "s1", "s2"]}


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want, check_exact=True)


# --------------------------------------------------------------------------- DuckDB
@pytest.mark.parametrize("method", [None, "bootstrap"])
def test_ci_reads_the_filtered_rows(method: str | None) -> None:
    kwargs: dict[str, Any] = dict(
        score="a",
        group="user",
        item="item",
        by="day",
        ci=0.9,
        ci_method=method,
        n_boot=20,
        empty="skip",
    )
    metrics = ["auc", "accuracy", "log_loss", "gauc", "ndcg@5"]
    got = sqlmetrics.evaluate(FRAME, metrics, where=WHERE, **kwargs)
    assert "auc_lo" in got.columns and got["n_rows"].sum() == len(DE)
    same(got, sqlmetrics.evaluate(DE, metrics, **kwargs))


def test_wide_scores_read_the_filtered_rows() -> None:
    metrics = ["multiclass_auc", "top_k_accuracy@2"]
    got = sqlmetrics.evaluate(FRAME, metrics, by="day", where=WHERE, **WIDE)
    assert got["n_rows"].sum() == len(DE)
    same(got, sqlmetrics.evaluate(DE, metrics, by="day", **WIDE))


@pytest.mark.parametrize(
    ("where", "kept"),
    [
        ("country is not null", FRAME["country"].notna()),  # drops the NULL slice
        ("country is null or day = 1", FRAME["country"].isna() | (FRAME["day"] == 1)),
    ],
)
def test_null_slices(where: str, kept: pd.Series) -> None:
    kwargs: dict[str, Any] = dict(score="b", by="country", ci=0.9)
    got = sqlmetrics.evaluate(FRAME, ["auc", "accuracy"], where=where, **kwargs)
    want = sqlmetrics.evaluate(FRAME[kept], ["auc", "accuracy"], **kwargs)
    same(got, want)
    assert got["country"].isna().any() == FRAME.loc[kept, "country"].isna().any()


def test_state_and_merge() -> None:
    metrics = ["auc", "log_loss", "accuracy", "gauc"]
    kwargs: dict[str, Any] = dict(score="a", group="user", by="country")
    days = [FRAME[FRAME["day"] == d] for d in (1, 2, 3)]
    states = [sqlmetrics.state(day, metrics, where=WHERE, **kwargs) for day in days]
    for got, day in zip(states, days):
        same(got, sqlmetrics.state(day[day["country"] == "DE"], metrics, **kwargs))
    want = sqlmetrics.evaluate(DE, metrics, **kwargs)
    same(sqlmetrics.merge(states, metrics, **kwargs), want)
    # merge(where=): over the states' columns, the rows of the partitions where it holds
    whole = [sqlmetrics.state(day, metrics, **kwargs) for day in days]
    same(sqlmetrics.merge(whole, metrics, where=WHERE, **kwargs), want)
    same(sqlmetrics.merge(pd.concat(whole), metrics, where=WHERE, **kwargs), want)
    # the state does not record where=: each day's own filter, merged as partitions
    per_day = [sqlmetrics.state(FRAME, metrics, where=f"day = {d}", **kwargs) for d in (1, 2, 3)]
    same(
        sqlmetrics.merge(per_day, metrics, **kwargs), sqlmetrics.evaluate(FRAME, metrics, **kwargs)
    )


def test_compare_data_and_runs() -> None:
    kwargs: dict[str, Any] = dict(scores=["a", "b"], group="user", item="item", by="day")
    metrics = ["auc", "accuracy", "ndcg@5"]
    same(
        sqlmetrics.compare(FRAME, metrics, where=WHERE, **kwargs),
        sqlmetrics.compare(DE, metrics, **kwargs),
    )
    runs = {m: FRAME.rename(columns={m: "score"}) for m in ("a", "b")}
    got = sqlmetrics.compare(
        runs=runs, metrics="ndcg@5", group="user", item="item", where="user < 6"
    )
    kept = {m: run[run["user"] < 6] for m, run in runs.items()}
    same(got, sqlmetrics.compare(runs=kept, metrics="ndcg@5", group="user", item="item"))


def test_report_reads_the_filtered_rows(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = dict(scores=["a", "b"], by="day", ci=0.9)
    got = sqlmetrics.report(
        FRAME, ["auc", "accuracy"], where=WHERE, path=tmp_path / "w.html", **kwargs
    )
    want = sqlmetrics.report(DE, ["auc", "accuracy"], path=tmp_path / "de.html", **kwargs)
    page, expected = got.read_text(), want.read_text()
    for part in ("metrics-table", "counts-table", "comparison-table"):
        assert (
            page.split(f'id="{part}"')[1].split("</table>")[0]
            == (expected.split(f'id="{part}"')[1].split("</table>")[0])
        ), part
    svg = re.compile(r"<svg.*?</svg>", re.S)
    assert svg.findall(page) == svg.findall(expected) != []
    assert "country = &#x27;DE&#x27;" in page or "country = &#39;DE&#39;" in page
    assert "sqlmetrics_where" in page  # the SQL shown filters too


CALLS: dict[str, Any] = {
    "evaluate_ci": lambda w: sqlmetrics.evaluate(FRAME, "auc", score="a", ci=0.9, where=w),
    "evaluate_scores": lambda w: sqlmetrics.evaluate(FRAME, "multiclass_auc", where=w, **WIDE),
    "state": lambda w: sqlmetrics.state(FRAME, "auc", score="a", where=w),
    "merge": lambda w: sqlmetrics.merge(
        sqlmetrics.state(FRAME, "auc", score="a"), "auc", score="a", where=w
    ),
    "compare": lambda w: sqlmetrics.compare(FRAME, "auc", scores=["a", "b"], where=w),
    "report": lambda w: sqlmetrics.report(FRAME, "auc", score="a", where=w, path="unused.html"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_missing_column_names_where_and_the_column(call: str) -> None:
    caller = call.split("_")[0]
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=rf"^{caller}: where='dya = 1' cannot be applied to data=.*dya.*; write a SQL "
        r"boolean expression over its columns \(",
    ):
        CALLS[call]("dya = 1")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=rf"^{caller}: where=.*holds a ';'"):
        CALLS[call]("day = 1; select 1")
    assert not Path("unused.html").exists()


# --------------------------------------------------------------------------- the engines
KEPT = "country is not null and day >= 2"
KEPT_ROWS = FRAME[FRAME["country"].notna() & (FRAME["day"] >= 2)].reset_index(drop=True)


@pytest.fixture(
    params=[
        "postgres",
        "spark",
        "clickhouse",
        pytest.param("clickhouse_connect", marks=pytest.mark.clickhouse),
    ],
    scope="module",
)
def engine(request: pytest.FixtureRequest) -> Any:
    """(con, whole table, table of KEPT_ROWS) on each engine."""
    tables = {"where_all": FRAME, "where_kept": KEPT_ROWS}
    if request.param == "postgres":
        pg_engine = request.getfixturevalue("pg_engine")
        for name, frame in tables.items():
            frame.to_sql(name, pg_engine, index=False, if_exists="replace")
        yield pg_engine, "where_all", "where_kept"
        with pg_engine.begin() as c:
            for name in tables:
                c.exec_driver_sql(f"drop table {name}")
    elif request.param == "spark":
        spark = request.getfixturevalue("spark")
        for name, frame in tables.items():
            spark.createDataFrame(frame).createOrReplaceTempView(name)
        yield spark, "where_all", "where_kept"
        for name in tables:
            spark.catalog.dropTempView(name)
    else:
        session = request.getfixturevalue("chdb_session")
        chdb_table(session, "where_all", FRAME)
        kept_table(session)
        if request.param == "clickhouse":
            yield session, "where_all", "where_kept"
        else:
            import clickhouse_connect

            client = clickhouse_connect.get_client(interface="chdb")
            yield client, "where_all", "where_kept"
            client.close()


def kept_table(session: Any) -> None:
    """KEPT_ROWS as ``where_kept`` of the chdb session, with ``where_all``'s column types:
    inferred from KEPT_ROWS alone, its slice column (no NULL left) would be ``String``, not
    ``Nullable(String)``, which moves the last bit of ClickHouse's DeLong bounds whatever the
    filter (measured: a copy made in ClickHouse equals DuckDB's bits, the inferred one not).
    """
    source = KEPT_ROWS  # noqa: F841 (read by name by chdb)
    session.query("DROP TABLE IF EXISTS where_kept")
    session.query("CREATE TABLE where_kept AS where_all")
    session.query("INSERT INTO where_kept SELECT * FROM Python(source)")


def test_engine_where_equals_the_filtered_table(engine: Any) -> None:
    con, whole, kept = engine
    kwargs: dict[str, Any] = dict(score="a", by="country", con=con)
    metrics = ["auc", "accuracy", "log_loss"]
    got = sqlmetrics.evaluate(whole, metrics, where=KEPT, **kwargs)
    assert got["n_rows"].sum() == len(KEPT_ROWS) and got["country"].notna().all()
    same(got, sqlmetrics.evaluate(kept, metrics, **kwargs))
    # the intervals and the wide class scores read the same rows
    got = sqlmetrics.evaluate(whole, ["auc", "accuracy"], where=KEPT, ci=0.9, **kwargs)
    same(got, sqlmetrics.evaluate(kept, ["auc", "accuracy"], ci=0.9, **kwargs))
    got = sqlmetrics.evaluate(whole, "multiclass_auc", where=KEPT, con=con, **WIDE)
    same(got, sqlmetrics.evaluate(kept, "multiclass_auc", con=con, **WIDE))
    got = sqlmetrics.state(whole, "auc", where=KEPT, **kwargs)
    same(got, sqlmetrics.state(kept, "auc", **kwargs))


def test_engine_where_names_a_missing_column(engine: Any) -> None:
    con, whole, _ = engine
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"^evaluate: where='dya = 1' cannot be applied to data='where_all'.*dya.*; "
        r"write a SQL boolean expression over its columns \(label, a, b, country",
    ):
        sqlmetrics.evaluate(whole, "auc", score="a", where="dya = 1", con=con)


def test_postgres_where_leaves_the_users_transaction_usable(pg_engine: Any) -> None:
    FRAME.to_sql("where_tx", pg_engine, index=False, if_exists="replace")
    try:
        with pg_engine.connect() as conn:
            conn.exec_driver_sql("create temporary table mine (x int)")  # the user's work
            with pytest.raises(sqlmetrics.InvalidParameterError, match="dya"):
                sqlmetrics.evaluate("where_tx", "auc", score="a", where="dya = 1", con=conn)
            got = sqlmetrics.evaluate("where_tx", "auc", score="a", where=WHERE, con=conn)
            assert conn.in_transaction()
            assert conn.exec_driver_sql("select count(*) from mine").scalar() == 0
        want = sqlmetrics.evaluate(DE, "auc", score="a")
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    finally:
        with pg_engine.begin() as c:
            c.exec_driver_sql("drop table where_tx")
