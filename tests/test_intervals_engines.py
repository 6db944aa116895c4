"""The same intervals on PostgreSQL and Spark as on DuckDB (to 1e-9): the hashed bootstrap
weights, DeLong's placements, the t sums and the Wilson counts are engine-independent."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sqlmetrics


def make_data(n: int = 400, seed: int = 21) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.7 + 0.3 * label, 2),
            "w": rng.integers(1, 4, n).astype(float),
            "g": rng.integers(0, 30, n),
            "item": np.arange(n),
            "country": rng.choice(["DE", "FR"], n),
        }
    ).assign(w_big=lambda f: f["w"] * 1e300, right=lambda f: f["label"].astype(float))


CASES: dict[str, Callable[..., Any]] = {
    "auc_delong": lambda d, con: sqlmetrics.auc(d, con=con, ci=0.95),
    "auc_bootstrap": lambda d, con: sqlmetrics.auc(
        d, con=con, ci=0.95, ci_method="bootstrap", n_boot=30, seed=5
    ),
    "auc_weighted_bootstrap": lambda d, con: sqlmetrics.auc(
        d, weight="w", con=con, ci=0.9, n_boot=20, seed=1
    ),
    "auc_bootstrap_by_slice": lambda d, con: sqlmetrics.evaluate(
        d, ["auc"], by="country", con=con, ci=0.9, ci_method="bootstrap", n_boot=25, seed=3
    ),
    "mcc_threshold_bootstrap": lambda d, con: sqlmetrics.mcc(
        d, threshold=0.45, weight="w", con=con, ci=0.9, n_boot=20, seed=4
    ),
    "accuracy_wilson_weighted": lambda d, con: sqlmetrics.accuracy(d, weight="w", con=con, ci=0.9),
    "recall_bootstrap": lambda d, con: sqlmetrics.recall(
        d, con=con, ci=0.9, ci_method="bootstrap", n_boot=20
    ),
    "ndcg_t": lambda d, con: sqlmetrics.ndcg(
        d, group="g", item="item", k=5, empty="skip", con=con, ci=0.95
    ),
    "ndcg_bootstrap": lambda d, con: sqlmetrics.ndcg(
        d,
        group="g",
        item="item",
        k=5,
        empty="skip",
        con=con,
        ci=0.95,
        ci_method="bootstrap",
        n_boot=40,
        seed=9,
    ),
    "gauc_bootstrap": lambda d, con: sqlmetrics.gauc(
        d, group="g", con=con, ci=0.9, ci_method="bootstrap", n_boot=30
    ),
    "hit_rate_wilson": lambda d, con: sqlmetrics.hit_rate(
        d, group="g", item="item", k=3, empty="skip", con=con, ci=0.9
    ),
    # issue 39: the means of per-row losses: t over the rows (their default), the one-pass
    # bootstrap, per slice, 1e300 weights
    "log_loss_t_weighted": lambda d, con: sqlmetrics.log_loss(d, weight="w", con=con, ci=0.9),
    "brier_t_weights_1e300": lambda d, con: sqlmetrics.brier_score(
        d, weight="w_big", con=con, ci=0.95
    ),
    "losses_t_by_slice": lambda d, con: sqlmetrics.evaluate(
        d, ["log_loss", "brier_score"], by="country", weight="w", con=con, ci=0.9
    ),
    "log_loss_bootstrap_weighted": lambda d, con: sqlmetrics.log_loss(
        d, weight="w", con=con, ci=0.9, ci_method="bootstrap", n_boot=25, seed=2
    ),
    "brier_bootstrap_by_slice": lambda d, con: sqlmetrics.evaluate(
        d, ["brier_score"], by="country", con=con, ci=0.9, ci_method="bootstrap", n_boot=25
    ),
    # issue 22: the largest level below 1, 1e300 weights, an estimate of 1
    "auc_delong_top_level": lambda d, con: sqlmetrics.auc(d, con=con, ci=1 - 2**-53),
    "ndcg_t_top_level": lambda d, con: sqlmetrics.ndcg(
        d, group="g", item="item", k=5, empty="skip", con=con, ci=1 - 2**-53
    ),
    "recall_bootstrap_top_level": lambda d, con: sqlmetrics.recall(
        d, con=con, ci=1 - 2**-53, ci_method="bootstrap", n_boot=20
    ),
    "precision_wilson_weights_1e300": lambda d, con: sqlmetrics.precision(
        d, weight="w_big", con=con, ci=0.9
    ),
    "accuracy_wilson_of_one": lambda d, con: sqlmetrics.accuracy(
        d, score="right", weight="w", con=con, ci=1 - 2**-53
    ),
}


def assert_same(got: Any, expected: Any) -> None:
    if isinstance(expected, pd.DataFrame):  # evaluate's frame
        pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-9, atol=1e-9)
        return
    assert got.method == expected.method
    if got.method == "wilson":  # on every engine the bounds hold the estimate exactly
        assert got.lo <= got.value <= got.hi, got
    for a, b in ((got.value, expected.value), (got.lo, expected.lo), (got.hi, expected.hi)):
        assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9, (got, expected)


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return make_data()


@pytest.fixture(scope="module")
def pg_table(pg_engine: Any, data: pd.DataFrame) -> Any:
    data.to_sql("ci_events", pg_engine, index=False, if_exists="replace")
    yield "ci_events"
    with pg_engine.begin() as c:  # the session's server is shared: leave no table behind
        c.exec_driver_sql("drop table ci_events")


@pytest.mark.parametrize("case", sorted(CASES))
def test_postgres_gives_the_duckdb_interval(
    case: str, pg_engine: Any, pg_table: str, data: pd.DataFrame
) -> None:
    assert_same(CASES[case](pg_table, pg_engine), CASES[case](data, None))


def evaluate_ci_per_slice(table: str, con: Any, data: pd.DataFrame) -> None:
    """evaluate(ci=) on ``con`` gives DuckDB's frame: ndcg, map and mrr share one interval
    statement (their kernel once, stacked per metric: ``ci_stack_values``).
    """
    kwargs: dict[str, Any] = dict(
        by="country", ci=0.9, n_boot=20, group="g", item="item", empty="skip"
    )
    metrics = ["auc", "accuracy", "ndcg@5", "map@5", "mrr", "log_loss"]
    got = sqlmetrics.evaluate(table, metrics, con=con, **kwargs)
    expected = sqlmetrics.evaluate(data, metrics, **kwargs)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, rtol=1e-9, atol=1e-9)


def test_postgres_evaluate_ci_per_slice(pg_engine: Any, pg_table: str, data: pd.DataFrame) -> None:
    evaluate_ci_per_slice(pg_table, pg_engine, data)


@pytest.fixture(scope="module")
def spark_table(spark: Any, data: pd.DataFrame) -> Any:
    spark.createDataFrame(data).createOrReplaceTempView("ci_events")
    yield "ci_events"
    spark.catalog.dropTempView("ci_events")


@pytest.mark.spark
@pytest.mark.parametrize("case", ["auc_delong", "auc_bootstrap", "auc_bootstrap_by_slice",
                                  "mcc_threshold_bootstrap", "accuracy_wilson_weighted",
                                  "ndcg_t", "ndcg_bootstrap", "auc_delong_top_level",
                                  "precision_wilson_weights_1e300",
                                  "accuracy_wilson_of_one",
                                  # log_loss_t_weighted: inside losses_t_by_slice (weighted)
                                  "losses_t_by_slice", "brier_bootstrap_by_slice"])  # fmt: skip
def test_spark_gives_the_duckdb_interval(
    case: str, spark: Any, spark_table: str, data: pd.DataFrame
) -> None:
    assert_same(CASES[case](spark_table, spark), CASES[case](data, None))


@pytest.mark.spark
def test_spark_evaluate_ci_per_slice(spark: Any, spark_table: str, data: pd.DataFrame) -> None:
    evaluate_ci_per_slice(spark_table, spark, data)
