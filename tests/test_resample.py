"""The resampling macros (sql/_macros/resample.sql) give the same weights on every engine,
equal to their Python replay (sqlmetrics/_resample.py), and behave like Poisson(1) draws."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
import sqlalchemy

from sqlmetrics import _resample as R
from sqlmetrics._templates import render_macro

SEED = 7
SOURCE = pd.DataFrame(
    {
        "k": (np.arange(3000, dtype=np.int64) * 1000003) % 4294967295,
        "b": np.arange(3000, dtype=np.int64) % 11,
        "g": [f"user{i}" if i % 3 else str(i) for i in range(3000)],
    }
)


def _query(dialect: str) -> str:
    def m(name: str, *args: str) -> str:
        return render_macro(name, *args, dialect=dialect)

    return (
        f"select k, b, g, u, {m('poisson1', 'u')} as w, s, h from ("
        f"select k, b, g, {m('replicate_uniform', 'k', 'b', str(SEED))} as u, "
        f"{m('sign_flip', 'k', 'b', str(SEED))} as s, {m('key_hash', 'g')} as h from src) t"
    )


def _check(frame: pd.DataFrame) -> None:
    frame = frame.sort_values("k").reset_index(drop=True)
    expected = SOURCE.sort_values("k").reset_index(drop=True)
    k, b = expected["k"].to_numpy(), expected["b"].to_numpy()
    assert len(frame) == len(expected)
    np.testing.assert_array_equal(frame["u"].astype(float), R.replicate_uniform(k, b, SEED))
    np.testing.assert_array_equal(frame["w"].astype(int), R.poisson_weight(k, b, SEED))
    np.testing.assert_array_equal(frame["s"].astype(int), R.sign_flip(k, b, SEED))
    assert list(frame["h"].astype(int)) == [R.key_hash(g) for g in expected["g"]]


def test_duckdb_equals_the_python_replay() -> None:
    con = duckdb.connect()
    con.register("src", SOURCE)
    _check(con.sql(_query("duckdb")).df())


def test_postgres_equals_the_python_replay(pg_engine: sqlalchemy.engine.Engine) -> None:
    SOURCE.to_sql("src", pg_engine, index=False, if_exists="replace")
    with pg_engine.connect() as c:
        frame = pd.read_sql_query(sqlalchemy.text(_query("postgres")), c)
    _check(frame)


def test_spark_equals_the_python_replay(spark: Any) -> None:
    spark.createDataFrame(SOURCE).createOrReplaceTempView("src")
    _check(spark.sql(_query("spark")).toPandas())


def test_key_hash_of_known_values() -> None:
    # md5("1") = c4ca4238...; md5("user1") = 24c9e15e...
    assert R.key_hash(1) == 0xC4CA4238
    assert R.key_hash("user1") == 0x24C9E15E


def test_weights_are_poisson_one_and_independent() -> None:
    keys = np.arange(200_000)
    w = np.stack([R.poisson_weight(keys, b, SEED) for b in range(20)])
    assert abs(w.mean() - 1) < 0.005 and abs(w.var() - 1) < 0.01
    # P(W = 0) = e^-1, P(W = 1) = e^-1, P(W = 2) = e^-1 / 2
    for value, p in [(0, np.exp(-1)), (1, np.exp(-1)), (2, np.exp(-1) / 2)]:
        assert abs((w == value).mean() - p) < 0.003
    corr = np.corrcoef(w) - np.eye(len(w))
    assert np.abs(corr).max() < 0.01  # replicates nearly uncorrelated
    other_seed = R.poisson_weight(keys, 0, SEED + 1)
    assert abs(np.corrcoef(w[0], other_seed)[0, 1]) < 0.01


def test_sign_flips_are_fair() -> None:
    flips = np.stack([R.sign_flip(np.arange(100_000), b, SEED) for b in range(10)])
    assert abs(flips.mean()) < 0.01
    assert np.abs(np.corrcoef(flips) - np.eye(10)).max() < 0.02


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino"])
def test_other_dialects_render_their_hash(dialect: str) -> None:
    sql = render_macro("key_hash", "g", dialect=dialect)
    assert "md5" in sql and "bit(32)" not in sql and "'0x' ||" not in sql
