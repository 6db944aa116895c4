"""sqlmetrics.compare on PostgreSQL and Spark: the same results as on DuckDB (to 1e-9)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
import sqlalchemy

import sqlmetrics

RNG = np.random.default_rng(12)
N = 240
LABEL = RNG.integers(0, 3, N)
DATA = pd.DataFrame(
    {
        "q": np.repeat(np.arange(30), 8),
        "doc": np.arange(N),
        "label": LABEL,
        "click": (LABEL > 0).astype(int),
        "country": RNG.choice(["DE", "FR"], N),
        "a": (RNG.random(N) + 0.1 * LABEL).round(1),
        "b": (RNG.random(N) + 0.4 * LABEL).round(1),
        "c": (RNG.random(N) + 0.2 * LABEL).round(2),
        "w": RNG.random(N) * 3 + 0.01,
    }
)
RANK = {"group": "q", "item": "doc"}
CASES: list[tuple[Any, dict[str, Any]]] = [
    (["ndcg@5", "mrr"], {**RANK, "by": "country"}),
    (["ndcg@5", "map@5"], {**RANK, "test": "randomization", "n_permutations": 60}),
    (["ndcg@5"], {**RANK, "test": "wilcoxon"}),
    (["gauc"], {"group": "q", "label": "click", "test": "randomization", "n_permutations": 40}),
    (["auc", "accuracy", "f1"], {"label": "click", "by": "country", "n_boot": 25}),
    # issue 22: the exact sums of the weighted counts and the group moments, the top level
    (
        ["accuracy", "precision"],
        {"label": "click", "by": "country", "test": "bootstrap", "weight": "w", "n_boot": 25},
    ),
    (["gauc"], {"group": "q", "label": "click"}),
    (["auc", "accuracy"], {"label": "click", "ci": 1 - 2**-53}),
    (["ndcg@5"], {**RANK, "ci": 1 - 2**-53}),
]


@pytest.fixture(autouse=True)
def _drop_pg_tables(request: pytest.FixtureRequest) -> Any:
    """The PostgreSQL tables made here are dropped after each test: other test files list the
    server's tables in their messages."""
    yield
    if "pg_engine" in request.fixturenames:
        engine = request.getfixturevalue("pg_engine")
        with engine.begin() as c:
            for name in ("compare_data", "compare_run_a", "compare_run_b", "compare_run_c"):
                c.execute(sqlalchemy.text(f"drop table if exists {name}"))


def _same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True),
        expected,
        check_exact=False,
        atol=1e-9,
        rtol=0,
        check_dtype=False,
    )


@pytest.mark.parametrize(("metrics", "kwargs"), CASES)
def test_postgres_equals_duckdb(
    pg_engine: sqlalchemy.engine.Engine, metrics: Any, kwargs: dict[str, Any]
) -> None:
    DATA.to_sql("compare_data", pg_engine, index=False, if_exists="replace")
    expected = sqlmetrics.compare(DATA, metrics, scores=["a", "b", "c"], **kwargs)
    got = sqlmetrics.compare(
        "compare_data", metrics, scores=["a", "b", "c"], con=pg_engine, **kwargs
    )
    _same(got, expected)


def test_postgres_runs(pg_engine: sqlalchemy.engine.Engine) -> None:
    runs = {m: DATA[["q", "doc", "label", m]].rename(columns={m: "score"}) for m in "abc"}
    for name, run in runs.items():
        run.to_sql(f"compare_run_{name}", pg_engine, index=False, if_exists="replace")
    expected = sqlmetrics.compare(metrics="ndcg@5", runs=runs, **RANK)
    got = sqlmetrics.compare(
        metrics="ndcg@5", runs={m: f"compare_run_{m}" for m in "abc"}, con=pg_engine, **RANK
    )
    _same(got, expected)


@pytest.mark.spark
@pytest.mark.parametrize(("metrics", "kwargs"), CASES)
def test_spark_equals_duckdb(spark: Any, metrics: Any, kwargs: dict[str, Any]) -> None:
    spark.createDataFrame(DATA).createOrReplaceTempView("compare_data")
    expected = sqlmetrics.compare(DATA, metrics, scores=["a", "b", "c"], **kwargs)
    got = sqlmetrics.compare("compare_data", metrics, scores=["a", "b", "c"], con=spark, **kwargs)
    _same(got, expected)


@pytest.mark.spark
def test_spark_runs(spark: Any) -> None:
    runs = {m: DATA[["q", "doc", "label", m]].rename(columns={m: "score"}) for m in "abc"}
    for name, run in runs.items():
        spark.createDataFrame(run).createOrReplaceTempView(f"compare_run_{name}")
    expected = sqlmetrics.compare(metrics="ndcg@5", runs=runs, **RANK)
    got = sqlmetrics.compare(
        metrics="ndcg@5", runs={m: f"compare_run_{m}" for m in "abc"}, con=spark, **RANK
    )
    _same(got, expected)
