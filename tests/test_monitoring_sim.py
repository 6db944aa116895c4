"""The monitoring simulation (examples/monitoring/simulate.py) and the oracle of
``metric_anomalies`` (tests/oracle/anomalies.py; issue 44).

- the simulation: the same seed gives the same frame; its stated volumes, click rates, drops
  (slices, days, sizes, and the AUC shift they make in expectation) and label delay;
- ``daily_auc`` (from the counts) equals ``sqlmetrics.evaluate`` with DeLong's interval on the
  expanded rows, NULL slices included;
- the oracle on small tables computed by hand: every status, the baseline window, weekday
  seasonality, delay over slices, the plain mode, direction, NULL slices;
- ``sqlmetrics.metric_anomalies`` equals the oracle on a simulated daily table.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import quiet

import sqlmetrics
from examples.monitoring import simulate as S
from tests.oracle.anomalies import anomalies, day_number

Z95 = 1.959963984540054


# --------------------------------------------------------------------------- the simulation
@pytest.fixture(scope="module")
def full() -> S.Simulation:
    return S.simulate(11)


def test_same_seed_same_log() -> None:
    a, b, c = S.simulate(5, scale=0.01), S.simulate(5, scale=0.01), S.simulate(6, scale=0.01)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    pd.testing.assert_frame_equal(a.truth, b.truth)
    assert a.drops == b.drops
    assert a.drops != c.drops
    assert list(a.frame.columns) == ["slice", "day", "label", "score", "n"]
    assert (a.frame["n"] > 0).all()
    assert set(a.frame["score"].round(3)) <= set(S.SCORES) and a.frame["score"].between(0, 1).all()


def test_volumes_and_click_rates(full: S.Simulation) -> None:
    t = full.truth
    assert len(t) == len(S.SLICES) * S.N_DAYS
    assert t["day"].min() == pd.Timestamp(S.START) and S.START.weekday() == 0
    # the counts frame holds every impression of the truth table
    counted = full.frame.groupby(["slice", "day"])["n"].sum()
    assert (counted.to_numpy() == t.set_index(["slice", "day"])["impressions"].to_numpy()).all()
    for name, volume, _, ctr in S.SLICES:
        s = t[t["slice"] == name]
        weekday = s.loc[~s["weekend"], "impressions"].mean()
        weekend = s.loc[s["weekend"], "impressions"].mean()
        # mean of Poisson(V exp(e)), e ~ N(0, 0.05): V exp(0.05^2 / 2); 64 weekdays: sd 0.7 %
        assert weekday == pytest.approx(volume * math.exp(S.VOLUME_SD**2 / 2), rel=0.03)
        assert weekend / weekday == pytest.approx(S.WEEKEND_VOLUME, rel=0.05)
        assert s["clicks"].sum() / s["impressions"].sum() == pytest.approx(ctr, rel=0.01)
    assert t["impressions"].min() > 100_000 * 0.5 and t["impressions"].max() < 400_000 * 1.3


def test_drops(full: S.Simulation) -> None:
    t = full.truth.copy()
    t["d"] = (t["day"] - pd.Timestamp(S.START)).dt.days
    assert len(full.drops) == S.N_DROPS == len({d.slice for d in full.drops})
    base = {name: auc for name, _, auc, _ in S.SLICES}
    t["expected"] = t["slice"].map(base) + S.WEEKEND_AUC * t["weekend"]
    on = np.zeros(len(t), dtype=bool)
    for d in full.drops:
        assert S.DROP_FIRST <= d.first <= S.DROP_LAST and d.days == S.DROP_DAYS
        assert S.DROP_MIN <= d.delta <= S.DROP_MAX
        assert d.start == S.START + dt.timedelta(days=d.first)
        days = (t["slice"] == d.slice) & t["d"].between(d.first, d.first + d.days - 1)
        on |= days
        # the true AUC is lowered by delta, around the jitter (sd 0.001 / sqrt(7))
        shift = (t.loc[days, "auc"] - t.loc[days, "expected"]).mean()
        assert shift == pytest.approx(-d.delta, abs=4 * S.JITTER_SD / math.sqrt(d.days))
    rest = t.loc[~on, "auc"] - t.loc[~on, "expected"]
    assert abs(rest.mean()) < 4 * S.JITTER_SD / math.sqrt(len(rest))
    assert rest.std() == pytest.approx(S.JITTER_SD, rel=0.1)


def test_binormal_scores_give_the_stated_auc() -> None:
    """Rounded to 3 decimals, the scores' expected AUC is the stated one (ties cost < 1e-6),
    and a drop of delta lowers it by delta."""
    for auc in (0.70, 0.75, 0.78):
        assert S.expected_auc(auc) == pytest.approx(auc, abs=1e-6)
        for delta in (S.DROP_MIN, 0.02, S.DROP_MAX):
            shift = S.expected_auc(auc - delta) - S.expected_auc(auc)
            assert shift == pytest.approx(-delta, abs=1e-6)
    p = S.score_probabilities(np.array([0.0, 1.0]))
    assert p.shape == (2, 1001) and np.allclose(p.sum(axis=1), 1)


def test_daily_auc_tracks_the_truth_and_the_label_delay(full: S.Simulation) -> None:
    """Before the last two days the daily AUC is the true one within its sampling error; on
    them the late clicks, recorded as non-clicks, lower it as the mixture says."""
    truth = full.truth.rename(columns={"auc": "true_auc"})
    daily = S.daily_auc(full.frame).merge(truth, on=["day", "slice"])
    se = (daily["auc_hi"] - daily["auc_lo"]) / (2 * Z95)
    observed = daily["auc"]
    true_auc = np.array([S.expected_auc(a) for a in daily["true_auc"]])
    age = (daily["day"].max() - daily["day"]).dt.days
    labeled = daily["labeled"] / daily["clicks"]
    # a click is labeled with probability 0.55 on the last day, 0.85 the day before, else 1
    assert (labeled[age >= 2] == 1).all()
    for a, share in enumerate(S.LABELED):
        assert labeled[age == a].mean() == pytest.approx(share, abs=0.01)
    z = (observed - true_auc) / se
    assert abs(z[age >= 2]).max() < 4.5 and abs(z[age >= 2].mean()) < 0.2
    assert z[age >= 2].std() == pytest.approx(1, abs=0.15)
    # late clicks among the non-clicks: AUC = (N A + L / 2) / (N + L), L the late clicks
    late = daily["clicks"] - daily["labeled"]
    non_clicks = daily["impressions"] - daily["clicks"]
    mixed = (non_clicks * true_auc + late / 2) / (non_clicks + late)
    bias = observed - true_auc
    assert ((mixed - true_auc)[age == 0] < -0.007).all()
    assert bias[age == 0].mean() < -0.007 and bias[age == 1].mean() < -0.002
    assert abs(((observed - mixed) / se)[age < 2]).max() < 4.5


def test_daily_auc_is_evaluate_on_the_rows() -> None:
    """From the counts, exactly what evaluate computes on the expanded rows with DeLong's
    interval (its default for auc), NULL slices and undefined intervals included."""
    small = S.simulate(2, scale=0.001, n_days=20, n_drops=0)
    frame = small.frame.copy()
    frame["slice"] = frame["slice"].where(frame["slice"] != "FR", None)
    rows = S.expand(frame)
    assert len(rows) == frame["n"].sum()
    mine = S.daily_auc(frame, ci=0.95)
    for method in (None, "delong"):
        theirs = quiet(
            sqlmetrics.evaluate, rows, ["auc"], by=["day", "slice"], ci=0.95, ci_method=method
        )
        assert list(theirs.columns) == list(mine.columns)
        assert theirs["slice"].isna().sum() == mine["slice"].isna().sum() == 20
        assert (theirs["day"] == mine["day"]).all() and (theirs["n_rows"] == mine["n_rows"]).all()
        assert theirs["slice"].fillna("NULL").tolist() == mine["slice"].fillna("NULL").tolist()
        for col in ["auc", "auc_lo", "auc_hi"]:
            a, b = theirs[col].to_numpy(), mine[col].to_numpy()
            assert (np.isnan(a) == np.isnan(b)).all(), col
            np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=0, atol=1e-12)
    assert mine["auc_lo"].isna().any()  # a slice-day with fewer than 2 clicks
    other = S.daily_auc(frame, ci=0.9)
    narrower = other["auc_hi"] - other["auc_lo"] <= mine["auc_hi"] - mine["auc_lo"]
    assert narrower[mine["auc_lo"].notna()].all()


def test_the_command_writes_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    S.main(["--seed", "3", "--scale", "0.001", "--out", str(tmp_path / "log.csv")])
    written = pd.read_csv(tmp_path / "log.csv", parse_dates=["day"])
    expected = S.simulate(3, scale=0.001).frame
    assert written["n"].sum() == expected["n"].sum() and len(written) == len(expected)
    np.testing.assert_array_equal(written["score"], expected["score"])
    assert "drop: " in capsys.readouterr().out
    S.main(["--seed", "3", "--scale", "0.001", "--rows", "--out", str(tmp_path / "log.parquet")])
    rows = pd.read_parquet(tmp_path / "log.parquet")
    assert list(rows.columns) == ["slice", "day", "label", "score"]
    assert len(rows) == expected["n"].sum()


# --------------------------------------------------------------------------- the oracle
START = dt.date(2026, 6, 1)


def table(values: list[Any], *, se: float | list[float] = 0.01, **extra: Any) -> pd.DataFrame:
    """A daily table of one slice from 2026-06-01: value v, lo/hi = v -/+ z se."""
    ses = se if isinstance(se, list) else [se] * len(values)
    v = pd.Series(values, dtype=float)
    frame = pd.DataFrame(
        {
            "day": pd.to_datetime([START + dt.timedelta(days=i) for i in range(len(values))]),
            "auc": v,
            "auc_lo": v - Z95 * pd.Series(ses),
            "auc_hi": v + Z95 * pd.Series(ses),
        }
    )
    for k, col in extra.items():
        frame[k] = col
    return frame


def run(frame: pd.DataFrame, plain: bool = False, **kw: Any) -> pd.DataFrame:
    opts: dict[str, Any] = {
        "value": "auc",
        "lo": None if plain else "auc_lo",
        "hi": None if plain else "auc_hi",
        "n_rows": "n_rows" if "n_rows" in frame else None,
        "window": 28,
        "seasonality": None,
        "delay": 0,
        "min_rows": 0,
        "min_history": 2,
        "threshold": 3.5,
        "direction": "drop",
        "ci_level": 0.95,
    }
    opts.update(kw)
    return anomalies(frame, **opts)


def test_oracle_every_status_by_hand() -> None:
    """window 4, min_history 2, delay 1, min_rows 100; se 0.01 except day 6 (0.02)."""
    v = [0.70, 0.99, 0.72, 0.71, None, 0.60, 0.80, 0.50]
    n = [1000, 50, 1000, 1000, 1000, 1000, 1000, 1000]
    se = [0.01] * 6 + [0.02, 0.01]
    out = run(table(v, se=se, n_rows=n), window=4, delay=1, min_rows=100)
    assert out["status"].tolist() == [
        "no_history",  # day 0: nothing before it
        "few_rows",  # day 1: 50 rows < 100 (and out of every baseline)
        "no_history",  # day 2: day 0 alone (day 1 has too few rows)
        "scored",
        "undefined",  # day 4: no value
        "scored",
        "scored",
        "pending",  # day 7: the last day, delay 1
    ]
    # n_baseline on every row (day 1 would have had day 0)
    assert out["n_baseline"].tolist() == [0, 1, 1, 2, 3, 2, 3, 3]
    assert not out.loc[out["status"] != "scored", ["baseline", "z", "band_lo"]].notna().any().any()
    assert out["se"].to_numpy()[[0, 6]] == pytest.approx([0.01, 0.02], abs=1e-15)
    # day 3: B = {day 0, day 2}: m = 0.71, s2 = (0.01^2 + 0.01^2) / 1, q = 0.01^2
    m, s2, q = 0.71, 0.0002, 0.0001
    tau2 = s2 - q
    sd = math.sqrt(tau2 + 0.0001 + (tau2 + q) / 2)
    d3 = out.iloc[3]
    assert d3["baseline"] == pytest.approx(m) and d3["spread"] == pytest.approx(math.sqrt(s2))
    assert d3["tau"] == pytest.approx(math.sqrt(tau2))
    assert d3["band_lo"] == pytest.approx(m - 3.5 * sd) and d3["band_hi"] == pytest.approx(
        m + 3.5 * sd
    )
    assert d3["z"] == pytest.approx(0, abs=1e-12) and pd.isna(d3["deviation"])
    assert not d3["anomaly"]
    # day 5: B = {day 2, day 3} (day 1 few rows, day 4 undefined): m = 0.715,
    # s2 = 2 * 0.005^2 / 1 = 0.00005 < q = 0.0001: tau2 = 0
    sd = math.sqrt(0 + 0.0001 + (0 + 0.0001) / 2)
    d5 = out.iloc[5]
    assert d5["baseline"] == pytest.approx(0.715) and d5["tau"] == 0
    assert d5["z"] == pytest.approx((0.60 - 0.715) / sd)
    assert d5["deviation"] == "drop" and d5["anomaly"]
    # day 6: B = {2, 3, 5}; its own se is 0.02
    b = [0.72, 0.71, 0.60]
    m = sum(b) / 3
    s2 = sum((x - m) ** 2 for x in b) / 2
    tau2 = s2 - 0.0001
    sd = math.sqrt(tau2 + 0.02**2 + (tau2 + 0.0001) / 3)
    d6 = out.iloc[6]
    assert d6["z"] == pytest.approx((0.80 - m) / sd) and pd.isna(d6["deviation"])
    # day 7 is pending, but the window and its value count for nothing
    assert not out["anomaly"].iloc[7] and out["n_rows"].tolist() == n


def test_oracle_rise_and_direction() -> None:
    up = table([0.70, 0.71, 0.70, 0.71, 0.90], slice="up")
    down = table([0.70, 0.71, 0.70, 0.71, 0.50], slice="down")
    frame = pd.concat([up, down], ignore_index=True)
    for direction, flagged in [("drop", ["down"]), ("rise", ["up"]), ("both", ["down", "up"])]:
        out = run(frame, by=["slice"], direction=direction)
        assert out["deviation"].fillna("").tolist() == [""] * 4 + ["drop"] + [""] * 4 + ["rise"]
        assert out.loc[out["anomaly"], "slice"].tolist() == flagged


def test_oracle_plain_mode_and_zero_spread() -> None:
    """No lo/hi: se 0, sd = spread sqrt(1 + 1/n_b); a constant baseline: sd 0, z NULL."""
    v = [0.70, 0.72, 0.74, 0.70]
    out = run(table(v).drop(columns=["auc_lo", "auc_hi"]), plain=True, min_history=3)
    assert out["se"].tolist() == [0, 0, 0, 0] and out["lo"].isna().all()
    b = [0.70, 0.72, 0.74]
    spread = math.sqrt(sum((x - 0.72) ** 2 for x in b) / 2)
    last = out.iloc[3]
    assert last["spread"] == pytest.approx(spread) and last["tau"] == pytest.approx(spread)
    assert last["z"] == pytest.approx((0.70 - 0.72) / (spread * math.sqrt(1 + 1 / 3)))
    flat = run(table([0.75, 0.75, 0.75, 0.5, 0.75]), plain=True, lo=None, hi=None, min_history=2)
    assert math.isnan(flat["z"].iloc[2]) and pd.isna(flat["deviation"].iloc[2])
    assert flat["deviation"].iloc[3] == "drop" and math.isnan(flat["z"].iloc[3])
    # day 4: B = {0.75, 0.75, 0.75, 0.5}: sd > 0 again
    assert flat["z"].iloc[4] > 0


def test_oracle_window_and_weekday_seasonality() -> None:
    """Weekday: only the same weekday within the window; a weekend effect is no anomaly."""
    days = 29
    v = [0.74 if (START + dt.timedelta(days=i)).weekday() >= 5 else 0.70 for i in range(days)]
    v = [x + (0.001 if i % 3 else -0.001) for i, x in enumerate(v)]
    frame = table(v, se=0.0005)
    season = run(frame, seasonality="weekday", window=21)
    plain_days = run(frame, window=7, min_history=7)
    # day 28 (a Monday): B = days 7, 14, 21 (day 0 is 28 days before: outside window 21)
    assert season["n_baseline"].tolist()[:8] == [0] * 7 + [1]
    assert season["n_baseline"].iloc[28] == 3
    mondays = [v[7], v[14], v[21]]
    assert season["baseline"].iloc[28] == pytest.approx(sum(mondays) / 3)
    assert season["n_baseline"].iloc[20] == 2  # days 6 and 13
    # without seasonality, window 7: the 7 days before, every weekday
    assert plain_days["n_baseline"].iloc[28] == 7
    assert plain_days["baseline"].iloc[28] == pytest.approx(sum(v[21:28]) / 7)
    assert not season["anomaly"].any()
    # the weekend rises above a 7-day baseline of weekdays and weekends, never a drop alarm
    assert (plain_days["deviation"] != "drop").all()


def test_oracle_slices_delay_and_null_slices() -> None:
    """delay counts from the last day of the whole table; NULL slices form one slice, last."""
    a = table([0.70, 0.71, 0.70, 0.71, 0.60, 0.70], slice="a")
    b = table([0.80, 0.81, 0.80, 0.60], slice=None)  # ends 2 days before the table
    c = table([0.75, 0.76, 0.75, 0.74, 0.75, 0.50], slice="c")
    frame = pd.concat([b, c, a], ignore_index=True)
    out = run(frame, by=["slice"], delay=1)
    assert out["slice"].fillna("NULL").tolist() == ["a"] * 6 + ["c"] * 6 + ["NULL"] * 4
    assert out["day"].is_monotonic_increasing is False
    assert (
        out.groupby(out["slice"].fillna("NULL"))["day"].apply(lambda d: d.is_monotonic_increasing)
    ).all()
    # the last day (day 5) pends in a and c; the NULL slice's day 3 is older: scored
    assert out.loc[out["status"] == "pending", "slice"].tolist() == ["a", "c"]
    null = out[out["slice"].isna()]
    assert null["n_baseline"].tolist() == [0, 1, 2, 3]
    assert null["baseline"].iloc[3] == pytest.approx((0.80 + 0.81 + 0.80) / 3)
    assert null["anomaly"].tolist() == [False, False, False, True]
    assert out.loc[out["slice"] == "a", "anomaly"].tolist() == [False] * 4 + [True, False]
    assert day_number(pd.Timestamp("1970-01-08")) == 7 == day_number("1970-01-08")
    assert day_number(dt.date(2026, 6, 1)) % 7 == 4  # 1970-01-01 was a Thursday


def test_oracle_ci_level() -> None:
    """se = (hi - lo) / (2 z) at the table's level: the same interval read at 0.9 is a
    larger se, so a smaller z."""
    v = [0.70, 0.71, 0.70, 0.71, 0.68]
    at95, at90 = run(table(v)), run(table(v), ci_level=0.9)
    z90 = 1.6448536269514722
    assert at90["se"].iloc[0] == pytest.approx(0.01 * Z95 / z90)
    assert abs(at90["z"].iloc[4]) < abs(at95["z"].iloc[4])


# --------------------------------------------------------------------------- the function
@pytest.fixture(scope="module")
def simulated_daily() -> pd.DataFrame:
    """A simulated daily table (scale 0.05: 2,750 to 20,000 rows a day), DE as the NULL
    slice, one day without a value and one without an interval (status 'undefined')."""
    daily = S.daily_auc(S.simulate(4, scale=0.05).frame)
    daily["slice"] = daily["slice"].where(daily["slice"] != "DE", None)
    daily.loc[100, "auc"] = np.nan
    daily.loc[200, ["auc_lo", "auc_hi"]] = np.nan
    return daily


@pytest.mark.parametrize("plain", [False, True], ids=["intervals", "plain"])
@pytest.mark.parametrize("seasonality", [None, "weekday"])
def test_metric_anomalies_is_the_oracle(
    simulated_daily: pd.DataFrame, plain: bool, seasonality: str | None
) -> None:
    daily = simulated_daily
    data = daily.drop(columns=["auc_lo", "auc_hi"]) if plain else daily
    kw: dict[str, Any] = {
        "window": 28 if seasonality is None else 35,
        "seasonality": seasonality,
        "delay": 2,
        "min_rows": 5_000,
        "min_history": 3,
        "threshold": 3.0,
    }
    mine = run(data, plain=plain, by=["slice"], n_rows="n_rows", **kw)
    theirs = sqlmetrics.metric_anomalies(data, "auc", by=["slice"], **kw)
    if plain:  # the same as intervals=False on the table with its intervals
        dropped = sqlmetrics.metric_anomalies(daily, "auc", by=["slice"], intervals=False, **kw)
        pd.testing.assert_frame_equal(dropped, theirs)
    assert len(theirs) == len(mine) == len(daily)
    assert theirs["slice"].fillna("NULL").tolist() == mine["slice"].fillna("NULL").tolist()
    assert (pd.to_datetime(theirs["day"]) == mine["day"]).all()
    assert theirs["status"].tolist() == mine["status"].tolist()
    assert set(mine["status"]) == {"scored", "pending", "few_rows", "no_history", "undefined"}
    assert theirs["anomaly"].astype(bool).tolist() == mine["anomaly"].tolist()
    assert theirs["deviation"].fillna("").tolist() == mine["deviation"].fillna("").tolist()
    # n_baseline: |B(d)| on the eligible rows ('scored', 'no_history'); the function writes 0
    # on the others (pending, undefined, few_rows), where the definition leaves it open
    eligible = mine["status"].isin(["scored", "no_history"]).to_numpy()
    assert (theirs["n_baseline"][eligible] == mine["n_baseline"][eligible]).all()
    assert (theirs["n_baseline"][~eligible] == 0).all()
    for col in ["value", "lo", "hi", "se", "baseline", "spread", "tau", "band_lo", "band_hi", "z"]:
        a, b = theirs[col].to_numpy(dtype=float), mine[col].to_numpy(dtype=float)
        assert (np.isnan(a) == np.isnan(b)).all(), col
        np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=0, atol=1e-12)
    assert (theirs["n_rows"] == mine["n_rows"]).all()
    assert mine["anomaly"].any() and (mine["status"] == "scored").mean() > 0.5
