"""``sqlmetrics monitor`` (issue 44): the flagged days of ``metric_anomalies`` printed, exit 1
when there is any (for cron and CI), 0 when none, 2 on bad input; from the daily table or from
the rows (evaluated by day first); the same rows as Python.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 days of two countries' clicks; on the last day the model of "de" scores at random."""
    rng = np.random.default_rng(0)
    n = 40_000
    days = pd.Timestamp("2026-02-01") + pd.to_timedelta(rng.integers(0, 20, n), "D")
    frame = pd.DataFrame(
        {"day": days.date, "country": rng.choice(["de", "fr"], n), "click": rng.integers(0, 2, n)}
    )
    frame["pctr"] = (frame["click"] * 0.3 + rng.random(n)) / 1.3
    broken = (frame["country"] == "de") & (frame["day"] == pd.Timestamp("2026-02-20").date())
    frame.loc[broken, "pctr"] = rng.random(int(broken.sum()))
    path = tmp_path_factory.mktemp("monitor") / "clicks.csv"
    frame.to_csv(path, index=False)
    return path


ARGS = ["-m", "auc", "--label", "click", "--score", "pctr", "--by", "country"]


def test_the_flagged_day_is_printed_and_the_exit_status_is_1(rows: Path) -> None:
    result = CliRunner().invoke(cli.main, ["monitor", str(rows), *ARGS, "--format", "csv"])
    assert result.exit_code == 1, result.output
    got = pd.read_csv(StringIO(result.stdout))
    assert got[["country", "day", "metric", "deviation"]].values.tolist() == [
        ["de", "2026-02-20", "auc", "drop"]
    ]
    assert result.stderr.strip() == "sqlmetrics: 1 anomaly (auc)"
    # the same row as Python's, from evaluate's daily table
    frame = pd.read_csv(rows, parse_dates=["day"])
    daily = sqlmetrics.evaluate(
        frame, ["auc"], label="click", score="pctr", by=["day", "country"], ci=0.95
    )
    python = sqlmetrics.metric_anomalies(daily, "auc", by="country")
    flagged = python[python["anomaly"]]
    assert flagged["z"].tolist() == pytest.approx(got["z"].tolist(), rel=1e-12)


def test_the_daily_table_is_read_as_it_is(rows: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(rows, parse_dates=["day"])
    daily = sqlmetrics.evaluate(
        frame, ["auc"], label="click", score="pctr", by=["day", "country"], ci=0.95
    )
    path = tmp_path / "daily.parquet"
    daily[daily["day"] < "2026-02-20"].to_parquet(path)
    result = CliRunner().invoke(cli.main, ["monitor", str(path), "-m", "auc", "--by", "country"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    every = CliRunner().invoke(
        cli.main,
        ["monitor", str(path), "-m", "auc", "--by", "country", "--all", "--format", "json"],
    )
    assert every.exit_code == 0
    assert len(pd.read_json(StringIO(every.stdout))) == 38


def test_no_intervals_is_the_plain_z_score(rows: Path) -> None:
    result = CliRunner().invoke(
        cli.main, ["monitor", str(rows), *ARGS, "--no-intervals", "--all", "--format", "csv"]
    )
    assert result.exit_code == 1
    got = pd.read_csv(StringIO(result.stdout))
    assert (got["se"] == 0).all() and got["lo"].isna().all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--window", "0"],
            "metric_anomalies: --window 0 must be an integer >= 1 (e.g. --window 28)",
        ),
        (["--day", "date"], "column 'date' (--day) not found"),
        (
            ["--threshold", "-1"],
            "--threshold -1.0 must be a positive number of standard deviations",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(rows: Path, extra: list[str], message: str) -> None:
    result = CliRunner().invoke(cli.main, ["monitor", str(rows), *ARGS, *extra])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
