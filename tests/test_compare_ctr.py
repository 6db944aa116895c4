"""compare() on the metrics CTR teams compare most (issue 28, item 4): log loss, Brier score
and normalized entropy, each a mean of per-row losses, tested with the paired t-test over the
rows' loss differences. Checked against an independent computation: the losses in numpy
(scikit-learn's clipping), scipy's ttest_rel and its t quantile; on DuckDB, PostgreSQL, Spark.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sqlalchemy
from click.testing import CliRunner
from scipy import stats
from sklearn.metrics import brier_score_loss, log_loss

import sqlmetrics
from sqlmetrics import cli

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"
EPS = np.finfo(float).eps
METRICS = ["log_loss", "brier_score", "normalized_entropy"]


def clicks() -> pd.DataFrame:
    frame = pd.read_csv(CTR)
    rng = np.random.default_rng(7)
    frame["recal"] = np.clip(frame["pctr"] * 0.8 + rng.normal(0, 0.05, len(frame)), 0, 1)
    frame["coarse"] = frame["pctr"].round(1)  # some 0.0: clipped at eps
    return frame


def row_losses(metric: str, y: np.ndarray, p: np.ndarray) -> np.ndarray:
    if metric == "brier_score":
        return (p - y) ** 2
    q = np.where(y == 1, p, 1 - p)
    return -np.log(np.clip(q, EPS, 1 - EPS))


def expected(frame: pd.DataFrame, metric: str, base: str, model: str, ci: float) -> dict[str, Any]:
    y = frame["click"].to_numpy()
    l0, l1 = (
        row_losses(metric, y, frame[base].to_numpy()),
        row_losses(metric, y, frame[model].to_numpy()),
    )
    scale = 1.0
    if metric == "normalized_entropy":
        rate = y.mean()
        scale = 1 / -(rate * np.log(rate) + (1 - rate) * np.log(1 - rate))
    d = l1 - l0
    n = len(d)
    se = d.std(ddof=1) / np.sqrt(n)
    q = stats.t.ppf((1 + ci) / 2, n - 1)
    return {
        "value": l1.mean() * scale,
        "diff": d.mean() * scale,
        "diff_lo": (d.mean() - q * se) * scale,
        "diff_hi": (d.mean() + q * se) * scale,
        "p_value": stats.ttest_rel(l1, l0).pvalue,
    }


def check(got: pd.DataFrame, frame: pd.DataFrame, ci: float = 0.95) -> None:
    for metric in METRICS:
        rows = got[got["metric"] == metric].set_index("model")
        assert rows.loc["pctr", "diff"] == 0 and np.isnan(rows.loc["pctr", "p_value"])
        assert (rows["test"] == "t").all()
        for model in ("recal", "coarse"):
            want = expected(frame, metric, "pctr", model, ci)
            for column, value in want.items():
                assert rows.loc[model, column] == pytest.approx(value, rel=1e-9, abs=1e-300), (
                    metric,
                    model,
                    column,
                )


def test_the_three_losses_against_numpy_and_scipy() -> None:
    frame = clicks()
    got = sqlmetrics.compare(frame, METRICS, scores=["pctr", "recal", "coarse"], label="click")
    check(got, frame)
    # the values are the metrics' own
    rows = got.set_index(["metric", "model"])
    y = frame["click"]
    assert rows.loc[("log_loss", "coarse"), "value"] == pytest.approx(log_loss(y, frame["coarse"]))
    assert rows.loc[("brier_score", "recal"), "value"] == pytest.approx(
        brier_score_loss(y, frame["recal"])
    )
    for model in ("pctr", "recal", "coarse"):
        own = sqlmetrics.normalized_entropy(frame, label="click", score=model)
        assert rows.loc[("normalized_entropy", model), "value"] == pytest.approx(own, rel=1e-12)


def test_per_slice_and_another_level() -> None:
    frame = clicks()
    got = sqlmetrics.compare(
        frame, METRICS, scores=["pctr", "recal", "coarse"], label="click", by="country", ci=0.9
    )
    for country, part in frame.groupby("country"):
        check(got[got["country"] == country], part.reset_index(drop=True), ci=0.9)
        assert (got.loc[got["country"] == country, "n_rows"] == len(part)).all()


def test_pos_label_and_probability_checks() -> None:
    frame = clicks()
    named = frame.assign(click=frame["click"].map({1: "yes", 0: "no"}))
    got = sqlmetrics.compare(
        named, METRICS, scores=["pctr", "recal", "coarse"], label="click", pos_label="yes"
    )
    check(got, frame)
    bad = frame.assign(recal=frame["recal"] * 2)  # not probabilities
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"recal"):
        sqlmetrics.compare(bad, ["log_loss"], scores=["pctr", "recal"], label="click")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"weight="):
        sqlmetrics.compare(
            frame, ["log_loss"], scores=["pctr", "recal"], label="click", weight="pctr"
        )


def test_one_class_slice_leaves_normalized_entropy_undefined() -> None:
    frame = clicks()
    frame.loc[frame["country"] == "DE", "click"] = 0
    with pytest.warns(sqlmetrics.UndefinedMetricWarning):
        got = sqlmetrics.compare(
            frame,
            ["normalized_entropy", "log_loss"],
            scores=["pctr", "recal"],
            label="click",
            by="country",
        )
    de = got[got["country"] == "DE"].set_index("metric")
    assert de.loc["normalized_entropy", "value"].isna().all()
    assert de.loc["log_loss", "value"].notna().all()


def test_cli_compare_of_log_loss() -> None:
    frame = clicks()
    runner = CliRunner()
    with _tmp(frame) as path:
        result = runner.invoke(
            cli.main,
            [
                "compare",
                path,
                "-m",
                "log_loss",
                "--label",
                "click",
                "--score",
                "pctr",
                "--score",
                "recal",
                "--score",
                "coarse",
                "--format",
                "csv",
            ],
        )
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    want = expected(frame, "log_loss", "pctr", "coarse", 0.95)
    row = got[got["model"] == "coarse"].iloc[0]
    assert row["p_value"] == pytest.approx(want["p_value"], rel=1e-9)


class _tmp:
    def __init__(self, frame: pd.DataFrame) -> None:
        import tempfile

        self.dir = tempfile.TemporaryDirectory()
        self.path = str(Path(self.dir.name) / "scores.parquet")
        frame.to_parquet(self.path, index=False)

    def __enter__(self) -> str:
        return self.path

    def __exit__(self, *exc: object) -> None:
        self.dir.cleanup()


def test_postgres_equals_duckdb(pg_engine: sqlalchemy.engine.Engine) -> None:
    frame = clicks()
    frame.to_sql("compare_ctr", pg_engine, index=False, if_exists="replace")
    try:
        got = sqlmetrics.compare(
            "compare_ctr",
            METRICS,
            scores=["pctr", "recal", "coarse"],
            label="click",
            by="country",
            con=pg_engine,
        )
    finally:
        with pg_engine.begin() as c:
            c.execute(sqlalchemy.text("drop table if exists compare_ctr"))
    want = sqlmetrics.compare(
        frame, METRICS, scores=["pctr", "recal", "coarse"], label="click", by="country"
    )
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-9, check_dtype=False)


@pytest.mark.spark
def test_spark_equals_duckdb(spark: Any) -> None:
    frame = clicks()
    data = spark.createDataFrame(frame)
    got = sqlmetrics.compare(
        data, METRICS, scores=["pctr", "recal", "coarse"], label="click", by="country", con=spark
    )
    want = sqlmetrics.compare(
        frame, METRICS, scores=["pctr", "recal", "coarse"], label="click", by="country"
    )
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-9, check_dtype=False)
