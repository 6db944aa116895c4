"""The resampling macros (sql/_macros/inference/resample.sql) give the same weights on every engine,
equal to their Python replay (tools/resample.py), and behave like Poisson(1) draws."""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
import sqlalchemy

from sqlmetrics._templating.templates import render_macro
from tools import resample as R

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


# --------------------------------------------------------------------------- Poisson(lam)
LAMS = [*range(0, 41), 100, 2441, 10**4, 10**6, 3 * 10**7]
DRAWS = pd.DataFrame(
    {
        "id": np.arange(len(LAMS) * 300, dtype=np.int64),
        "lam": np.repeat(np.asarray(LAMS, dtype=np.int64), 300),
        "k": np.tile(np.arange(300, dtype=np.int64), len(LAMS)),
    }
)


def _poisson_query(dialect: str) -> str:
    x = render_macro("replicate_int", "k", "lam % 7 + 1", str(SEED), dialect=dialect)
    draws = f"(select id, lam, {x} as x from draws_src) as d"
    counts = render_macro("poisson_counts", "keyed", ["id"], dialect=dialect)
    return f"with keyed as (select * from {draws}) {counts}"


def _check_poisson(frame: pd.DataFrame) -> None:
    got = DRAWS[["id"]].merge(frame, on="id", how="left")["n"].fillna(0).astype(int)
    x = R.replicate_int(DRAWS["k"].to_numpy(), DRAWS["lam"].to_numpy() % 7 + 1, SEED)
    np.testing.assert_array_equal(got.to_numpy(), R.poisson_count(DRAWS["lam"].to_numpy(), x))


def test_poisson_counts_duckdb_equal_the_python_replay() -> None:
    con = duckdb.connect()
    con.register("draws_src", DRAWS)
    _check_poisson(con.sql(_poisson_query("duckdb")).df())


def test_poisson_counts_postgres_equal_the_python_replay(
    pg_engine: sqlalchemy.engine.Engine,
) -> None:
    DRAWS.to_sql("draws_src", pg_engine, index=False, if_exists="replace")
    try:
        with pg_engine.connect() as c:
            frame = pd.read_sql_query(sqlalchemy.text(_poisson_query("postgres")), c)
    finally:
        with pg_engine.begin() as c:
            c.exec_driver_sql("drop table draws_src")
    _check_poisson(frame)


def test_poisson_counts_spark_equal_the_python_replay(spark: Any) -> None:
    spark.createDataFrame(DRAWS).createOrReplaceTempView("draws_src")
    _check_poisson(spark.sql(_poisson_query("spark")).toPandas())


def test_poisson_thresholds_in_the_template_are_the_generated_ones() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "sql/_macros/inference/resample.sql").read_text()
    assert R.poisson_table_jinja() in text, "paste tools.resample.poisson_table_jinja()"


def test_small_means_are_the_exact_poisson_quantile() -> None:
    from scipy import stats

    x = np.r_[0, 1, R.P - 1, R.P - 2, np.linspace(0, R.P - 1, 20001).astype(np.int64)]
    for lam in range(0, R.POISSON_EXACT_MAX + 1):
        # the smallest k with CDF(k) > u = x / P; ppf gives CDF(k) >= u (the same but on a
        # CDF value, never a multiple of 1 / P); ppf(0) is -1 by scipy's convention
        expected = np.maximum(stats.poisson.ppf(x / R.P, lam), 0) if lam else np.zeros(len(x))
        np.testing.assert_array_equal(R.poisson_count(lam, x), expected, err_msg=str(lam))


@pytest.mark.parametrize(
    ("lam", "share"), [(21, 0.012), (50, 0.007), (1000, 0.002), (10**5, 0.0003)]
)
def test_large_means_are_cornish_fisher_within_one(lam: int, share: float) -> None:
    from scipy import stats

    # measured share of uniforms whose draw is 1 off the exact quantile: ~0.9 % at 21,
    # ~0.5 % at 50, ~0.1 % at 1000, ~0.01 % at 1e5 (the bounds above leave ~30 % slack)
    x = np.r_[0, R.P - 1, np.linspace(0, R.P - 1, 100001).astype(np.int64)]
    exact = stats.poisson.ppf((x + 0.5) / R.P, lam)
    diff = R.poisson_count(lam, x) - exact
    assert np.abs(diff).max() <= 1
    assert (diff != 0).mean() <= share


def test_poisson_counts_have_the_poisson_moments() -> None:
    x = R.replicate_int(np.arange(100_000), 3, SEED)
    for lam in (7, 20, 21, 400):
        n = R.poisson_count(lam, x)
        assert abs(n.mean() - lam) < 4 * np.sqrt(lam / 1e5)
        assert abs(n.var() / lam - 1) < 0.03


def _sum_terms() -> pd.DataFrame:
    """Terms of a replicate sum per group: mixed signs and magnitudes, terms that round away,
    an all-zero group (no exponent: the plain sum), NULL terms, tiny and huge values; group 6
    stays within [-8, 8] (the literal exponent 3)."""
    rng = np.random.default_rng(41)
    groups = [
        rng.normal(0, 1e3, 400),
        rng.choice([-1, 1], 400) * 10.0 ** rng.uniform(-20, 20, 400),
        np.zeros(5),
        np.array([-3.0]),
        np.r_[rng.uniform(0, 1, 50), [np.nan] * 5],
        rng.uniform(1, 2, 30) * 1e-300,
        rng.integers(-8, 9, 300) * rng.uniform(0, 1, 300),
        np.array([2.0**62 + 2**10, -(2.0**61), 1.5, 2.0**-30]),
    ]
    x = pd.array(np.concatenate(groups), dtype="Float64")  # NaN -> NULL on both engines
    return pd.DataFrame(
        {"g": np.concatenate([np.full(len(v), i) for i, v in enumerate(groups)]), "x": x}
    )


def _sum_query(dialect: str) -> str:
    def m(name: str, *args: str) -> str:
        return render_macro(name, *args, dialect=dialect)

    exponent = m("sum_exponent_over", "x", "partition by g")
    terms = f"select g, x, e, {m('replicate_exact_term', 'x', 'e')} as term from ("
    terms += f"select g, x, {exponent} as e from sum_terms) as s"
    return (
        f"select g, {m('exact_sum', 'x', 'e')} as plain, "
        f"{m('replicate_exact_sum', 'x', 'e')} as split, "
        f"{m('replicate_exact_sum', 'x', 'e', 'term')} as split_term "
        f"from ({terms}) as t group by g "
        f"union all select -1, {m('exact_sum', 'x', '3')}, {m('replicate_exact_sum', 'x', '3')}, "
        f"{m('replicate_exact_sum', 'x', '3', m('replicate_exact_term', 'x', '3'))} "
        f"from sum_terms where g = 6 order by 1"
    )


def test_replicate_exact_sum_is_exact_sum_bit_for_bit(pg_engine: sqlalchemy.engine.Engine) -> None:
    """PostgreSQL's replicate_exact_sum (sum(hi) 2^40 + sum(lo) over bigints) gives exact_sum's
    bits there and DuckDB's exact_sum's, with a column exponent and a literal one (row -1), its
    rounded terms inline or read from a column (replicate_exact_term one level down)."""
    terms = _sum_terms()
    con = duckdb.connect()
    con.register("sum_terms", terms)
    duck = con.sql(_sum_query("duckdb")).df()
    terms.to_sql("sum_terms", pg_engine, index=False, if_exists="replace")
    try:
        with pg_engine.connect() as c:
            pg = pd.read_sql_query(sqlalchemy.text(_sum_query("postgres")), c)
    finally:
        with pg_engine.begin() as c:
            c.exec_driver_sql("drop table sum_terms")
    assert list(pg["g"]) == list(duck["g"]) == list(range(-1, 8))
    want = duck["plain"].to_numpy(float)
    assert not np.isnan(want).any()
    for frame in (pg, duck):
        for col in ("plain", "split", "split_term"):
            np.testing.assert_array_equal(frame[col].to_numpy(float), want, err_msg=col)
