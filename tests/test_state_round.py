"""Rounded states (issue 26, part 2: ``state(..., round=d)``): the state holds at most the
distinct (slice, rounded score, label) rows, ``merge`` gives the AUC of the rounded scores
with bounds certified to contain the exact AUC (as ``auc_bounds``), ``round=None`` is the
exact state unchanged, and every refusal names the argument, the value and the fix.
"""

from __future__ import annotations

import json
import re
import warnings
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import frames
from hypothesis import given
from hypothesis import strategies as st
from oracle import classification as oc

import sqlmetrics
from sqlmetrics.errors import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]

#: ties, halfway products (0.0005, 0.0015, 2.5: exactly or nearly halfway at some round=),
#: negative scores and floats with many decimals
SCORE = st.one_of(
    st.sampled_from([0.1234, 0.1236, 0.5, 0.5, 0.45, 0.55, 0.0005, 0.0015, 2.5, -0.25]),
    st.floats(-3, 3, allow_nan=False, allow_infinity=False),
)
LOG = frames(
    min_rows=2,
    max_rows=40,
    day=st.integers(0, 2),
    country=st.sampled_from(["DE", "FR", None]),
    label=st.integers(0, 1),
    score=SCORE,
)


def _rounded(scores: Any, decimals: int) -> Any:
    """The documented rule in numpy's IEEE doubles: floor(s * 10^d + 0.5) / 10^d."""
    scale = float(10**decimals)
    return np.floor(np.asarray(scores, dtype="float64") * scale + 0.5) / scale


def _quiet(function: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # single-class slices: UndefinedMetricWarning
        return function(*args, **kwargs)


@given(log=LOG, decimals=st.integers(0, 4))
def test_bounds_contain_the_exact_auc(log: pd.DataFrame, decimals: int) -> None:
    days = [d.drop(columns="day").reset_index(drop=True) for _, d in log.groupby("day")]
    whole = pd.concat(days, ignore_index=True)
    states = [_quiet(sqlmetrics.state, d, "auc", by="country", round=decimals) for d in days]
    for day, one in zip(days, states):  # at most (here: exactly) the distinct rounded rows
        keys = day.assign(score=_rounded(day["score"], decimals))
        assert len(one) == len(keys.drop_duplicates()) <= len(day)
        assert json.loads(one["sqlmetrics_args"].iloc[0])["round"] == decimals
    merged = _quiet(sqlmetrics.merge, states, "auc", by="country", round=decimals)
    exact = _quiet(sqlmetrics.evaluate, whole, "auc", by="country")
    # the value is the AUC of the rounded scores, bit for bit: the rule is the documented one
    of_rounded = whole.assign(score=_rounded(whole["score"], decimals))
    want = _quiet(sqlmetrics.evaluate, of_rounded, "auc", by="country")
    pd.testing.assert_frame_equal(merged[list(want.columns)], want, check_exact=True)
    assert list(merged.columns) == ["country", "auc", "auc_lower", "auc_upper", "n_rows"]
    for row, value in zip(merged.itertuples(), exact["auc"]):
        rows = whole[whole["country"].isna() if pd.isna(row.country) else
                     whole["country"] == row.country]  # fmt: skip
        oracle = oc.auc(rows["label"].tolist(), rows["score"].tolist())
        if np.isnan(oracle):  # one class: all undefined
            assert np.isnan([value, row.auc, row.auc_lower, row.auc_upper]).all()
            continue
        assert row.auc_lower <= value <= row.auc_upper, (row, value)
        assert row.auc_lower <= oracle <= row.auc_upper, (row, oracle)
        assert row.auc_lower <= row.auc <= row.auc_upper


def _gauc_exact(rows: pd.DataFrame, weighting: str) -> Fraction | None:
    """GAUC as a rational (tests/oracle/classification.py::gauc without rounding)."""
    num, den = Fraction(0), Fraction(0)
    for _, g in rows.groupby("user"):
        pos = g.loc[g["label"] == 1, "score"].tolist()
        neg = g.loc[g["label"] == 0, "score"].tolist()
        if not pos or not neg:
            continue
        won = sum(Fraction(int(p > n)) + Fraction(int(p == n), 2) for p in pos for n in neg)
        v = {"samples": len(g), "positives": len(pos), "uniform": 1}[weighting]
        num += v * won / (len(pos) * len(neg))
        den += v
    return num / den if den else None


@given(
    log=frames(min_rows=2, max_rows=40, day=st.integers(0, 2), user=st.integers(0, 3),
               country=st.sampled_from(["DE", None]), label=st.integers(0, 1), score=SCORE),
    decimals=st.integers(0, 3),
    weighting=st.sampled_from(["samples", "positives", "uniform"]),
)  # fmt: skip
def test_bounds_contain_the_exact_gauc(log: pd.DataFrame, decimals: int, weighting: str) -> None:
    days = [d.drop(columns="day").reset_index(drop=True) for _, d in log.groupby("day")]
    whole = pd.concat(days, ignore_index=True)
    args = {"group": "user", "by": "country", "weighting": weighting, "round": decimals}
    metrics = ["auc", "gauc"]
    states = [_quiet(sqlmetrics.state, d, metrics, **args) for d in days]
    merged = _quiet(sqlmetrics.merge, states, metrics, **args)
    assert list(merged.columns) == ["country", "auc", "auc_lower", "auc_upper", "gauc",
                                    "gauc_lower", "gauc_upper", "n_rows", "n_groups"]  # fmt: skip
    plain = {k: v for k, v in args.items() if k != "round"}
    of_rounded = whole.assign(score=_rounded(whole["score"], decimals))
    want = _quiet(sqlmetrics.evaluate, of_rounded, metrics, **plain)
    pd.testing.assert_frame_equal(merged[list(want.columns)], want, check_exact=True)
    exact = _quiet(sqlmetrics.evaluate, whole, metrics, **plain)
    for row, value in zip(merged.itertuples(), exact["gauc"]):
        rows = whole[whole["country"].isna() if pd.isna(row.country) else
                     whole["country"] == row.country]  # fmt: skip
        oracle = _gauc_exact(rows, weighting)
        if oracle is None:  # no group with both classes: all undefined
            assert np.isnan([value, row.gauc, row.gauc_lower, row.gauc_upper]).all()
            continue
        assert Fraction(row.gauc_lower) <= oracle <= Fraction(row.gauc_upper), (row, oracle)
        assert row.gauc_lower <= value <= row.gauc_upper, (row, value)
        assert row.gauc_lower <= row.gauc <= row.gauc_upper


def test_a_slice_without_gauc_keeps_its_column_types() -> None:
    # DE has no user with both classes: no GAUC bounds row, NaN after the left join
    day = pd.DataFrame({"c": ["DE", "DE", "FR", "FR"], "user": [0, 1, 0, 0],
                        "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.2, 0.7]})  # fmt: skip
    args = {"group": "user", "by": "c", "round": 1}
    merged = _quiet(sqlmetrics.merge, [sqlmetrics.state(day, "gauc", **args)], "gauc", **args)
    want = _quiet(sqlmetrics.evaluate, day, "gauc", group="user", by="c")
    pd.testing.assert_frame_equal(merged[list(want.columns)], want, check_exact=True)
    assert np.isnan(merged.loc[0, ["gauc", "gauc_lower", "gauc_upper"]].astype(float)).all()
    # one group: its bounds [1, 1] moved outward by (1 + 3) 2^-52 (the means' rounding)
    assert merged.loc[1, ["gauc", "gauc_lower", "gauc_upper"]].tolist() == [1.0, 1 - 2**-50, 1.0]


def test_tied_pairs_make_the_bounds_and_half_goes_up() -> None:
    # scores 0.25 and 0.35 round (1 decimal) to 0.3 and 0.4 (0.25 * 10 = 2.5 exactly: up);
    # 0.31 -> 0.3 ties with the positive 0.25 -> one unknown pair of 2 x 2
    day = pd.DataFrame({"label": [1, 1, 0, 0], "score": [0.25, 0.9, 0.31, 0.1]})
    state = sqlmetrics.state(day, "auc", round=1)
    assert state["score"].tolist() == [0.1, 0.3, 0.3, 0.9]
    got = sqlmetrics.merge([state], "auc", round=1)
    assert got[["auc", "auc_lower", "auc_upper"]].iloc[0].tolist() == [0.875, 0.75, 1.0]
    assert sqlmetrics.evaluate(day, "auc")["auc"].iloc[0] == 0.75  # inside, at the edge


def test_round_none_is_the_exact_state_unchanged() -> None:
    day = pd.DataFrame({"c": ["DE", None, "DE", None], "label": [1, 0, 0, 1],
                        "score": [0.51, 0.5, 0.5, 0.5]})  # fmt: skip
    args = {"by": "c"}
    exact = sqlmetrics.state(day, "auc", **args)
    pd.testing.assert_frame_equal(sqlmetrics.state(day, "auc", round=None, **args), exact)
    # no "round" recorded: the states made before round= existed still merge
    assert sorted(json.loads(exact["sqlmetrics_args"].iloc[0])) == [
        "by", "group", "item", "label", "metrics", "options", "prediction", "qrels",
        "score", "train", "weight",
    ]  # fmt: skip
    assert exact["score"].tolist() == [0.5, 0.51, 0.5, 0.5]  # the scores as they are
    sql = sqlmetrics.render_state("t", "auc", **args)
    assert sqlmetrics.render_state("t", "auc", round=None, **args) == sql
    assert "floor" not in sql
    merged = sqlmetrics.merge([exact], "auc", round=None, **args)
    pd.testing.assert_frame_equal(merged, sqlmetrics.evaluate(day, "auc", **args), check_exact=True)


def test_render_state_runs_the_rounded_state() -> None:
    import duckdb

    con = duckdb.connect()
    day = pd.DataFrame({"label": [1, 0, 0, 1, 1], "score": [0.123456, 0.1234, 0.5, 0.0005, 2.5]})
    con.register("day", day)
    for dialect in ("duckdb", "postgres", "spark"):
        assert "floor(cast(" in sqlmetrics.render_state("day", "auc", round=3, dialect=dialect)
    sql = sqlmetrics.render_state("day", "auc", round=3)
    rendered = con.sql(sql).df().astype({"sqlmetrics_args": "category"})  # state's: held once
    pd.testing.assert_frame_equal(rendered, sqlmetrics.state(day, "auc", round=3))
    # by (label, score): 0.1234 and 0.123456 tie; 0.0005 * 1000 = 0.5 goes up
    assert sqlmetrics.state(day, "auc", round=3)["score"].tolist() == [0.123, 0.5, 0.001, 0.123,
                                                                       2.5]  # fmt: skip


def _log6(n: int = 60_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    score = np.round(rng.random(n), 6)
    return pd.DataFrame({
        "day": rng.integers(0, 3, n),
        "country": rng.choice(["DE", "FR", "IT"], n),
        "click": (rng.random(n) < score).astype(int),
        "pctr": score,
    })  # fmt: skip


def test_three_days_of_six_decimal_scores_rounded_to_three() -> None:
    # the README's numbers: 60k rows, 6-decimal scores, three days and countries
    log = _log6()
    args = {"label": "click", "score": "pctr", "by": "country"}
    days = [d for _, d in log.groupby("day")]
    sizes = {}
    for decimals in (None, 3, 2):
        states = [sqlmetrics.state(day, "auc", round=decimals, **args) for day in days]
        sizes[decimals] = sum(map(len, states))
        if decimals == 3:
            merged = sqlmetrics.merge(states, "auc", round=3, **args)
    assert sizes == {None: 59_873, 3: 15_308, 2: 1_788}
    assert sizes[3] <= len(log) / 2 and sizes[2] <= 3 * 3 * 2 * 101  # distinct rows at most
    exact = sqlmetrics.evaluate(log, "auc", **args)["auc"]
    assert ((merged["auc_lower"] <= exact) & (exact <= merged["auc_upper"])).all()
    assert (merged["auc_upper"] - merged["auc_lower"]).max() < 0.00068


# --------------------------------------------------------------------------- errors
DAY = pd.DataFrame({"label": [1, 0], "score": [0.7, 0.2], "w": [1.0, 2.0]})


@pytest.mark.parametrize("function", [sqlmetrics.state, sqlmetrics.merge])
@pytest.mark.parametrize(
    ("metrics", "kwargs", "message"),
    [
        ("auc", {"round": "3"}, "round='3' is not a number of decimals; pass an integer from "
         "0 to 15 (e.g. round=3 keeps scores to 3 decimals), or leave round= out"),
        ("auc", {"round": True}, "round=True is not a number of decimals"),
        ("auc", {"round": 2.0}, "round=2.0 is not a number of decimals"),
        ("auc", {"round": -1}, "round=-1 is outside 0..15 decimals; pass an integer from 0 "
         "to 15 (e.g. round=3), or leave round= out for the exact state"),
        ("auc", {"round": 16}, "round=16 is outside 0..15 decimals"),
        (["auc", "log_loss"], {"round": 3}, "round=3 with 'log_loss' (its value changes with "
         "the rounded scores, and no bound on its exact value is certified (only AUC's and "
         "GAUC's are)); leave round= out, or make 'log_loss' a state of its own without "
         "round="),
        ("average_precision", {"round": 2}, "round=2 with 'average_precision' (its value"),
        (["auc", "precision"], {"round": 2, "threshold": 0.5}, "round=2 with 'precision' (a "
         "threshold metric: rounding moves scores across its threshold, and its exact state "
         "keeps only two score values anyway); leave round= out, or make 'precision' a state "
         "of its own without round="),
        ("auc", {"round": 2, "weight": "w"}, "round=2 with weight='w': the certified AUC "
         "bounds of a rounded state count rows, not weights; leave round= or weight= out"),
        ("auc", {"round": 2, "by": "score"}, "round=2 with the score column 'score' in by=: "
         "a slice is not rounded; leave round= out, or slice by another column"),
    ],
)  # fmt: skip
def test_round_errors(function: Any, metrics: Any, kwargs: dict[str, Any], message: str) -> None:
    caller = function.__name__
    data: Any = [sqlmetrics.state(DAY, "auc")] if caller == "merge" else DAY
    with pytest.raises(InvalidParameterError, match=re.escape(f"{caller}: {message}")):
        function(data, metrics, **kwargs)
    with pytest.raises(InvalidParameterError, match=re.escape(f"render_state: {message}")):
        sqlmetrics.render_state("t", metrics, **kwargs)


def test_states_of_another_round_do_not_merge() -> None:
    import duckdb

    two, three = (sqlmetrics.state(DAY, "auc", round=r) for r in (2, 3))
    exact = sqlmetrics.state(DAY, "auc")
    fix = "; pass merge the metrics and arguments the states were made with, or recompute"
    cases = [
        ([two, three], 2, "merge: state 1 was made with round=3, merge is asked round=2" + fix),
        ([two], 3, "merge: state 0 was made with round=2, merge is asked round=3" + fix),
        ([two], None, "merge: state 0 was made with round=2, merge is asked round=None" + fix),
        ([exact], 2, "merge: state 0 was made with round=None, merge is asked round=2" + fix),
    ]
    for states, decimals, message in cases:
        with pytest.raises(InvalidParameterError, match=re.escape(message)):
            sqlmetrics.merge(states, "auc", round=decimals)
    con = duckdb.connect()  # one table of appended states, checked on the engine
    con.register("appended", pd.concat([two, three], ignore_index=True))
    with pytest.raises(InvalidParameterError, match=re.escape(
            "merge: states was made with round=3, merge is asked round=2")):  # fmt: skip
        sqlmetrics.merge("appended", "auc", round=2, con=con)


# --------------------------------------------------------------------------- engines
def _engine_log() -> pd.DataFrame:
    log = _log6(3_000, seed=7)
    log["country"] = log["country"].where(log.index % 7 != 0, None)  # a NULL slice
    log.loc[log.index % 11 == 0, "pctr"] = 0.0005  # exactly halfway at round=3, tied
    log["user"] = log.index % 40
    return log


def _check_engine(con: Any, days: list[Any], whole: Any, write: Any) -> None:
    """Rounded states made and merged on ``con``: the same rows and numbers as on DuckDB
    from pandas, bit for bit (GAUC's bounds: plain double means, to 1e-12); the bounds
    contain the exact AUC and GAUC there."""
    args = {"label": "click", "score": "pctr", "group": "user", "by": "country", "round": 3}
    metrics = ["auc", "gauc"]
    log = _engine_log()
    local_days = [d.drop(columns="day").reset_index(drop=True) for _, d in log.groupby("day")]
    states = [sqlmetrics.state(day, metrics, con=con, **args) for day in days]
    local = [sqlmetrics.state(day, metrics, **args) for day in local_days]
    for got, want in zip(states, local):
        keys = [c for c in want.columns if not c.startswith("sqlmetrics_")]  # its order
        got = got.sort_values(keys, na_position="last")
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False,
                                      check_exact=True)  # fmt: skip
    merged = sqlmetrics.merge(write(states), metrics, con=con, **args)
    want = sqlmetrics.merge(local, metrics, **args)
    means = ["gauc_lower", "gauc_upper"]
    pd.testing.assert_frame_equal(merged.drop(columns=means), want.drop(columns=means),
                                  check_exact=True)  # fmt: skip
    pd.testing.assert_frame_equal(merged[means], want[means], rtol=1e-12)
    plain = {k: v for k, v in args.items() if k != "round"}
    exact = sqlmetrics.evaluate(whole, metrics, con=con, **plain)
    assert merged["country"].isna().sum() == 1
    for name in metrics:
        lower, upper = merged[f"{name}_lower"], merged[f"{name}_upper"]
        assert ((lower <= exact[name]) & (exact[name] <= upper) & (lower < upper)).all()


@pytest.mark.postgres
def test_rounded_states_on_postgres(pg_engine: Any) -> None:
    log = _engine_log()
    log.drop(columns="day").to_sql("round_log", pg_engine, index=False, if_exists="replace")
    days = []
    for day, rows in log.groupby("day"):
        rows.drop(columns="day").to_sql(f"round_day_{day}", pg_engine, index=False,
                                        if_exists="replace")  # fmt: skip
        days.append(f"round_day_{day}")

    def write(states: list[pd.DataFrame]) -> str:
        pd.concat(states).to_sql("round_states", pg_engine, index=False, if_exists="replace")
        return "round_states"

    _check_engine(pg_engine, days, "round_log", write)


@pytest.mark.spark
def test_rounded_states_on_spark(spark: Any) -> None:
    log = _engine_log()
    days = [d.drop(columns="day").reset_index(drop=True) for _, d in log.groupby("day")]
    whole = spark.createDataFrame(pd.concat(days, ignore_index=True))

    def write(states: list[pd.DataFrame]) -> Any:
        return spark.createDataFrame(pd.concat(states, ignore_index=True))

    _check_engine(spark, [spark.createDataFrame(d) for d in days], whole, write)


def test_round_whose_scaled_scores_pass_two_to_the_63_is_refused_by_state() -> None:
    huge = pd.DataFrame({"label": [0, 1, 1, 0], "score": [1e300, 2e300, 3e300, 1.5e300]})
    with pytest.raises(InvalidParameterError, match=re.escape(
            "state: round=15 with score column 'score' (score=) holding values up to 3e+300 in "
            "absolute value: times 10**15 they reach 2**63")) as caught:  # fmt: skip
        sqlmetrics.state(huge, "auc", round=15)
    assert "leave round= out (the scores are too large to keep any decimal)" in str(caught.value)
    large = pd.DataFrame({"label": [0, 1, 1, 0], "score": [-1e5, 2e5, 3e4, 1.5e5]})
    with pytest.raises(InvalidParameterError, match=re.escape("pass round=13 or fewer decimals")):
        sqlmetrics.state(large, "auc", round=14)
    kept = sqlmetrics.state(large, "auc", round=13)  # the largest it allows merges
    assert sqlmetrics.merge([kept], "auc", round=13)["auc"].iloc[0] == 0.75


def test_bounds_of_rounded_states_of_a_billion_rows_cost_the_states_rows() -> None:
    """Issue 39, item 10: a rounded state's AUC bounds read each row's count too (not the
    rows replayed): states standing for 1e9 rows merge with their bounds under 1GB."""
    import duckdb

    day = pd.DataFrame({"label": [1, 1, 0, 0, 1, 0], "score": [0.91, 0.24, 0.83, 0.12, 0.26, 0.21]})
    made = sqlmetrics.state(day, "auc", round=1)
    assert made["score"].tolist() == [0.1, 0.2, 0.8, 0.2, 0.3, 0.9]  # label 0 first
    made["sqlmetrics_n"] = [100_000_000, 200_000_000, 150_000_000, 250_000_000, 120_000_000,
                            180_000_000]  # fmt: skip
    con = duckdb.connect(config={"memory_limit": "1GB", "threads": 2})
    got = sqlmetrics.merge([made], "auc", round=1, con=con)
    neg, pos = [1e8, 2e8, 1.5e8], [2.5e8, 1.2e8, 1.8e8]  # scores .1 .2 .8; .2 .3 .9
    below = (2.5e8 * 1e8 + 1.2e8 * 3e8 + 1.8e8 * 4.5e8) / (5.5e8 * 4.5e8)
    tied = 2.5e8 * 2e8 / (5.5e8 * 4.5e8)  # the positives and negatives rounded to 0.2
    assert got["auc_lower"].iloc[0] == pytest.approx(below, rel=1e-15)
    assert got["auc_upper"].iloc[0] == pytest.approx(below + tied, rel=1e-15)
    assert got["auc"].iloc[0] == pytest.approx(below + tied / 2, rel=1e-15)
    assert got["n_rows"].iloc[0] == 1_000_000_000 and sum(neg) + sum(pos) == 1e9
