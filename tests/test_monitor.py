"""metric_anomalies (issue 44): the definition of sql/_macros/inference/anomalies.sql's header
on hand-computed cases, every status, the options, the invariances (row order, a slice alone,
a NULL slice), the inputs (frame, file, table) and one test per error message. The simulation,
its oracle over whole series and the acceptance study: tests/test_monitoring_sim.py and
benchmarks/monitoring.py; every engine: tests/test_engines.py (cf_daily).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._inference.stats import two_sided_normal
from sqlmetrics.errors import ColumnNotFoundError, InvalidDataError, InvalidParameterError

Z = two_sided_normal(0.95)


def daily(values: list[float], se: float | list[float] = 0.002, start: str = "2026-01-05",
          **extra: Any) -> pd.DataFrame:  # fmt: skip
    """One slice's daily table: the values, intervals of standard error ``se``."""
    ses = [se] * len(values) if isinstance(se, float) else se
    frame = pd.DataFrame(
        {
            "day": pd.date_range(start, periods=len(values)),
            "auc": values,
            "auc_lo": [v - Z * s for v, s in zip(values, ses)],
            "auc_hi": [v + Z * s for v, s in zip(values, ses)],
            "n_rows": 1000,
        }
    )
    return frame.assign(**extra)


def test_a_day_is_scored_by_the_formula_of_the_header() -> None:
    values = [0.75, 0.752, 0.749, 0.751, 0.748, 0.753, 0.750, 0.74]
    table = daily(values, se=[0.001, 0.002, 0.001, 0.003, 0.002, 0.001, 0.002, 0.0025])
    got = sqlmetrics.metric_anomalies(table, "auc", min_history=7).iloc[-1]
    lo, hi = table["auc_lo"].to_numpy(), table["auc_hi"].to_numpy()
    se = (hi - lo) / (2 * Z)
    base, se_b = np.array(values[:7]), se[:7]
    m = math.fsum(base) / 7
    s2 = math.fsum((base - m) ** 2) / 6
    q = math.fsum(se_b**2) / 7
    tau2 = max(0.0, s2 - q)
    sd = math.sqrt(tau2 + se[7] ** 2 + (tau2 + q) / 7)
    assert got["status"] == "scored" and got["n_baseline"] == 7
    assert got["se"] == pytest.approx(se[7], rel=1e-15)
    assert got["baseline"] == pytest.approx(m, rel=1e-15)
    assert got["spread"] == pytest.approx(math.sqrt(s2), rel=1e-12)
    assert got["tau"] == pytest.approx(math.sqrt(tau2), rel=1e-9, abs=1e-15)
    assert got["band_lo"] == pytest.approx(m - 3.5 * sd, rel=1e-13)
    assert got["band_hi"] == pytest.approx(m + 3.5 * sd, rel=1e-13)
    assert got["z"] == pytest.approx((0.74 - m) / sd, rel=1e-12)
    assert got["deviation"] == "drop" and bool(got["anomaly"])


def test_the_plain_mode_is_the_z_score_of_the_daily_values() -> None:
    values = [0.75, 0.752, 0.749, 0.751, 0.748, 0.753, 0.750, 0.745]
    got = sqlmetrics.metric_anomalies(daily(values), "auc", intervals=False).iloc[-1]
    base = np.array(values[:7])
    s = float(np.std(base, ddof=1))
    assert got["se"] == 0.0 and math.isnan(got["lo"]) and math.isnan(got["hi"])
    assert got["tau"] == pytest.approx(s, rel=1e-12)
    sd = s * math.sqrt(1 + 1 / 7)
    assert got["z"] == pytest.approx((0.745 - float(np.mean(base))) / sd, rel=1e-12)


def test_sampling_error_widens_the_band_a_noisy_day_passes() -> None:
    values = [0.75, 0.7502, 0.7499, 0.7501, 0.7498, 0.7503, 0.75, 0.744]
    quiet = daily(values, se=0.0001)
    noisy = daily(values, se=[0.0001] * 7 + [0.004])  # a small day: its value is noisy
    assert bool(sqlmetrics.metric_anomalies(quiet, "auc").iloc[-1]["anomaly"])
    assert not sqlmetrics.metric_anomalies(noisy, "auc").iloc[-1]["anomaly"]
    # the plain mode does not know the day was small
    assert bool(sqlmetrics.metric_anomalies(noisy, "auc", intervals=False).iloc[-1]["anomaly"])


def test_every_status() -> None:
    values = [0.75 + 0.001 * (i % 3) for i in range(12)]
    table = daily(values)
    table.loc[3, "auc_lo"] = np.nan  # no interval: undefined
    table.loc[4, "n_rows"] = 10  # few rows
    got = sqlmetrics.metric_anomalies(table, "auc", delay=2, min_rows=100, min_history=5)
    status = got["status"].tolist()
    assert status[:3] == ["no_history"] * 3
    assert status[3:5] == ["undefined", "few_rows"]
    # days 5..9: baselines of the eligible days before (0, 1, 2, then 5, 6, ...)
    assert got["n_baseline"].tolist()[:10] == [0, 1, 2, 0, 0, 3, 4, 5, 6, 7]
    assert status[5:10] == ["no_history", "no_history", "scored", "scored", "scored"]
    assert status[10:] == ["pending", "pending"]
    unscored = got[got["status"] != "scored"]
    assert unscored[["baseline", "band_lo", "band_hi", "z", "spread", "tau"]].isna().all().all()
    assert not unscored["anomaly"].any() and unscored["deviation"].isna().all()


def test_the_window_counts_calendar_days_and_weekdays() -> None:
    table = daily([0.75 + 0.001 * (i % 5) for i in range(60)])
    table = table.drop(index=[40, 41]).reset_index(drop=True)  # two missing days
    got = sqlmetrics.metric_anomalies(table, "auc", window=10)
    # day 45 (index 43 after the drop): days 35..44 minus the two missing ones
    assert got.loc[43, "n_baseline"] == 8
    weekly = sqlmetrics.metric_anomalies(table, "auc", window=56, seasonality="weekday",
                                         min_history=2)  # fmt: skip
    row = weekly.iloc[-1]
    same_day = table[
        (table["day"] < row["day"]) & (table["day"] >= row["day"] - pd.Timedelta(56, "D"))
    ]
    same_day = same_day[same_day["day"].dt.day_of_week == row["day"].day_of_week]
    assert row["n_baseline"] == len(same_day) == 8
    assert row["baseline"] == pytest.approx(same_day["auc"].mean(), rel=1e-14)


@pytest.mark.parametrize(
    ("metric", "flagged"),
    [
        ("auc", {"drop"}),
        ("log_loss", {"rise"}),
        ("ndcg@10", {"drop"}),
        ("my_kpi", {"drop", "rise"}),
    ],
)
def test_the_direction_follows_which_way_the_metric_is_better(
    metric: str, flagged: set[str]
) -> None:
    values = [0.5 + 0.001 * (i % 3) for i in range(10)]
    low, high = daily([*values, 0.4]), daily([*values, 0.6])
    table = pd.concat([low.assign(side="low"), high.assign(side="high")]).rename(
        columns={"auc": metric, "auc_lo": f"{metric}_lo", "auc_hi": f"{metric}_hi"}
    )
    got = sqlmetrics.metric_anomalies(table, metric, by="side")
    assert set(got.loc[got["anomaly"], "deviation"]) == flagged
    both = sqlmetrics.metric_anomalies(table, metric, by="side", direction="both")
    assert set(both.loc[both["anomaly"], "deviation"]) == {"drop", "rise"}


def _three_slices() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    parts = []
    for country in ["de", None, "fr"]:
        values = list(np.round(0.75 + rng.normal(0, 0.003, 45), 4))
        values[40] -= 0.03
        parts.append(daily(values, se=0.002).assign(country=country))
    return pd.concat(parts, ignore_index=True)


def test_row_order_changes_no_bit_and_a_slice_is_its_rows_alone() -> None:
    table = _three_slices()
    got = sqlmetrics.metric_anomalies(table, "auc", by="country", window=21)
    shuffled = table.sample(frac=1.0, random_state=3)
    pd.testing.assert_frame_equal(
        sqlmetrics.metric_anomalies(shuffled, "auc", by="country", window=21), got
    )
    assert got["country"].iloc[-45:].isna().all() and got["country"].iloc[:-45].notna().all()
    for country in ["de", "fr", None]:
        rows = table[table["country"].isna() if country is None else table["country"] == country]
        alone = sqlmetrics.metric_anomalies(rows.drop(columns="country"), "auc", window=21)
        mine = got[got["country"].isna() if country is None else got["country"] == country]
        pd.testing.assert_frame_equal(
            mine.drop(columns="country").reset_index(drop=True), alone, check_exact=True
        )
    assert got.loc[got["anomaly"], "day"].dt.day.tolist() == [14, 14, 14]  # day 40 of each


def test_a_file_and_a_table_of_a_connection(tmp_path: Path) -> None:
    table = _three_slices()
    want = sqlmetrics.metric_anomalies(table, "auc", by="country")
    path = tmp_path / "daily.parquet"
    table.to_parquet(path)
    pd.testing.assert_frame_equal(sqlmetrics.metric_anomalies(path, "auc", by="country"), want)
    con = duckdb.connect()
    con.register("frame", table)
    con.execute("create table daily as select * replace (cast(day as date) as day) from frame")
    got = sqlmetrics.metric_anomalies("daily", "auc", by="country", con=con)
    pd.testing.assert_frame_equal(got, want)


def test_evaluate_by_day_is_its_input() -> None:
    rng = np.random.default_rng(3)
    n = 12_000
    rows = pd.DataFrame(
        {
            "day": pd.Timestamp("2026-02-01") + pd.to_timedelta(rng.integers(0, 12, n), "D"),
            "label": rng.integers(0, 2, n),
        }
    )
    rows["score"] = (rows["label"] * 0.3 + rng.random(n)) / 1.3
    table = sqlmetrics.evaluate(rows, ["auc", "log_loss"], by="day", ci=0.95)
    got = sqlmetrics.metric_anomalies(table, "auc", min_history=5)
    assert (got["status"] == "scored").sum() == 7
    assert got["lo"].tolist() == table["auc_lo"].tolist()
    assert got["n_rows"].tolist() == table["n_rows"].tolist()


# --------------------------------------------------------------------------- errors
TABLE = daily([0.75] * 10)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metric": ""}, "metric='' must be the name of the metric's column"),
        ({"seasonality": "weekly"}, "seasonality='weekly' is not one of None, 'weekday'"),
        ({"direction": "down"}, "direction='down' is not one of 'drop', 'rise', 'both'"),
        ({"threshold": 0}, "threshold=0 must be a positive number of standard deviations"),
        ({"threshold": True}, "threshold=True must be a positive number"),
        ({"ci_level": 95}, "ci_level=95 must be the level of the intervals in the table"),
        ({"window": 0}, "window=0 must be an integer >= 1 (e.g. window=28)"),
        ({"delay": -1}, "delay=-1 must be an integer >= 0"),
        ({"min_rows": 2.5}, "min_rows=2.5 must be an integer >= 0"),
        ({"min_history": 1}, "min_history=1 must be an integer >= 2"),
        ({"by": "day"}, "by='day' holds the day column 'day'"),
        ({"by": ["x", "x"]}, "by= names a column twice"),
        ({"day": ""}, "day= must be a column name (a non-empty string); got ''"),
        ({"intervals": "no"}, "intervals='no' must be True or False"),
        ({"intervals": False, "lo": "auc_lo", "hi": "auc_hi"}, "with intervals=False"),
        ({"lo": "auc_lo"}, "lo='auc_lo' and hi=None: pass both interval columns or neither"),
    ],
)
def test_bad_options_name_the_argument_and_the_fix(kwargs: dict[str, Any], message: str) -> None:
    kwargs = {"metric": "auc", **kwargs}
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.metric_anomalies(TABLE, **kwargs)
    assert message in str(info.value)


def test_min_rows_needs_the_row_counts() -> None:
    with pytest.raises(InvalidParameterError, match=r"min_rows=5 needs the row counts"):
        sqlmetrics.metric_anomalies(TABLE.drop(columns="n_rows"), "auc", min_rows=5)


def test_a_missing_column_is_named() -> None:
    with pytest.raises(ColumnNotFoundError, match=r"column 'ndcg' \(value=\) not found"):
        sqlmetrics.metric_anomalies(TABLE, "ndcg")
    with pytest.raises(ColumnNotFoundError, match=r"column 'date' \(day=\) not found"):
        sqlmetrics.metric_anomalies(TABLE, "auc", day="date")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            TABLE.assign(day="2026-01-01"),
            "day column 'day' has type VARCHAR; day= must name a DATE",
        ),
        (TABLE.assign(auc="x"), "value column 'auc' has type VARCHAR; value= must name a numeric"),
        (TABLE.iloc[:0], "has no rows"),
        (TABLE.assign(day=pd.NaT), "day column 'day' has 10 of 10 rows NULL"),
        (
            TABLE.assign(auc_lo=TABLE["auc_hi"], auc_hi=TABLE["auc_lo"]),
            "10 of 10 rows have hi < lo",
        ),
        (pd.concat([TABLE, TABLE.iloc[:1]]), "1 duplicated combinations of 'day' (day=)"),
    ],
)
def test_bad_tables_are_refused_with_the_fix(table: pd.DataFrame, message: str) -> None:
    with pytest.raises(InvalidDataError) as info:
        sqlmetrics.metric_anomalies(table, "auc")
    assert message in str(info.value)


# --------------------------------------------------------------------------- states
@pytest.fixture(scope="module")
def clicks() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 20_000
    days = pd.Timestamp("2026-02-01") + pd.to_timedelta(rng.integers(0, 12, n), "D")
    rows = pd.DataFrame(
        {"day": days, "country": rng.choice(["de", "fr", None], n), "click": rng.integers(0, 2, n)}
    )
    rows["pctr"] = np.round((rows["click"] * 0.3 + rng.random(n)) / 1.3, 2)  # ties
    return rows


@pytest.mark.parametrize("metric", ["auc", "log_loss"])
def test_daily_states_give_the_rows_daily_table_bit_for_bit(
    clicks: pd.DataFrame, metric: str
) -> None:
    """A table of daily states (an incremental model's) is read as the rows it stands for:
    each day's value and interval are evaluate's over that day's rows, bit for bit."""
    args: dict[str, Any] = {"label": "click", "score": "pctr", "by": ["day", "country"]}
    states = pd.concat(
        [sqlmetrics.state(day, ["auc", "log_loss"], **args) for _, day in clicks.groupby("day")],
        ignore_index=True,
    )
    assert len(states) < len(clicks) / 2
    daily = sqlmetrics.evaluate(clicks, ["auc", "log_loss"], **args, ci=0.95)
    want = sqlmetrics.metric_anomalies(daily, metric, by="country", min_history=4)
    got = sqlmetrics.metric_anomalies(states, metric, by="country", min_history=4)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    plain = sqlmetrics.metric_anomalies(states, metric, by="country", intervals=False)
    assert (plain["se"] == 0).all() and plain["value"].tolist() == want["value"].tolist()


def test_states_are_refused_with_the_reason(clicks: pd.DataFrame) -> None:
    one = sqlmetrics.state(clicks, ["auc"], label="click", score="pctr", by=["day", "country"])
    with pytest.raises(
        InvalidParameterError, match=r"metric='log_loss' is not one of the states' metrics \(auc\)"
    ):
        sqlmetrics.metric_anomalies(one, "log_loss", by="country")
    other = sqlmetrics.state(clicks, ["auc"], label="click", score="pctr", by=["day"])
    with pytest.raises(
        InvalidDataError, match=r"holds states made with 2 different sets of arguments"
    ):
        sqlmetrics.metric_anomalies(pd.concat([one, other]), "auc")
    no_day = sqlmetrics.state(clicks, ["auc"], label="click", score="pctr", by="country")
    with pytest.raises(ColumnNotFoundError, match=r"column 'day' \(day=\) not found in the states"):
        sqlmetrics.metric_anomalies(no_day, "auc", by="country")


def test_a_hostile_session_changes_no_bit_and_is_left_as_it_was() -> None:
    """The user's DuckDB connection at its worst (tests/test_invariance_session.py's settings:
    descending default order, a case-insensitive collation, ...) gives the same frame, and its
    settings are what they were."""
    from test_invariance_session import HOSTILE_DUCKDB

    table = _three_slices().assign(country=lambda f: f["country"].str.upper())
    table = pd.concat([table, table[table["country"] == "DE"].assign(country="de")])
    want = sqlmetrics.metric_anomalies(table, "auc", by="country", window=21)
    con = duckdb.connect()
    for name, value in HOSTILE_DUCKDB.items():
        con.execute(f"set {name} = {value}")
    before = con.execute("select name, value from duckdb_settings() order by name").fetchall()
    con.register("daily", table)
    got = sqlmetrics.metric_anomalies("daily", "auc", by="country", window=21, con=con)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert (
        con.execute("select name, value from duckdb_settings() order by name").fetchall() == before
    )
    assert got["country"].dropna().unique().tolist() == ["DE", "FR", "de"]
