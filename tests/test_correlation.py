"""Rank correlation: spearman and kendall_tau against scipy.stats and the naive oracle, with
tied scores and labels, overall and per group; properties; every error message."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import correlation as oc
from scipy import stats

import sqlmetrics

FUNCTIONS = {"spearman": sqlmetrics.spearman, "kendall_tau": sqlmetrics.kendall_tau}
ORACLES = {"spearman": oc.spearman, "kendall_tau": oc.kendall_tau}


#: few distinct scores and labels, so that ties in both are the rule
COLUMNS = {
    "g": st.integers(0, 3),
    "y": st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.5]),
    "s": st.sampled_from([-1.0, 0.0, 0.25, 0.25, 2.0, 7.0]),
}


def value(name: str, frame: pd.DataFrame, **kwargs: object) -> float:
    return float(quiet(FUNCTIONS[name], frame, label="y", score="s", **kwargs))


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol


def scipy_value(name: str, xs: pd.Series, ys: pd.Series) -> float:
    if len(xs) < 2 or xs.nunique() < 2 or ys.nunique() < 2:
        return math.nan  # scipy warns and returns NaN too (ConstantInputWarning)
    if name == "spearman":
        return float(stats.spearmanr(xs, ys).statistic)
    return float(stats.kendalltau(xs, ys, variant="b").statistic)


# ----------------------------------------------------------------------------- peers
@given(frames(**COLUMNS), st.sampled_from(sorted(FUNCTIONS)))
def test_overall_equals_scipy_and_the_oracle(frame: pd.DataFrame, name: str) -> None:
    got = value(name, frame)
    assert same(got, scipy_value(name, frame["s"], frame["y"])), (got, name)
    assert same(got, ORACLES[name](frame["y"], frame["s"]))


@given(frames(max_rows=40, **COLUMNS), st.sampled_from(sorted(FUNCTIONS)))
def test_group_mean_equals_scipy_per_group(frame: pd.DataFrame, name: str) -> None:
    got = value(name, frame, group="g")
    values = [scipy_value(name, part["s"], part["y"]) for _, part in frame.groupby("g")]
    defined = [v for v in values if not math.isnan(v)]
    expected = sum(defined) / len(defined) if defined else math.nan
    assert same(got, expected, 1e-12), (got, expected)
    assert same(got, ORACLES[name](frame["y"], frame["s"], frame["g"]), 1e-12)


def test_larger_sample_with_many_ties_equals_scipy() -> None:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"y": rng.integers(0, 5, 20_000), "s": rng.integers(0, 300, 20_000)})
    assert sqlmetrics.kendall_tau(frame, label="y", score="s") == pytest.approx(
        stats.kendalltau(frame["s"], frame["y"]).statistic, abs=1e-13
    )
    assert sqlmetrics.spearman(frame, label="y", score="s") == pytest.approx(
        stats.spearmanr(frame["s"], frame["y"]).statistic, abs=1e-13
    )


@given(st.data(), st.sampled_from([None, "g"]))
def test_many_label_levels_general_path_equals_scipy(
    data: st.DataObject, group: str | None
) -> None:
    """More than 8 distinct labels in the slice: the row x level formulation (the wide path
    takes slices with at most 8); exact against scipy either way."""
    n = data.draw(st.integers(10, 40))
    rest = n - 9
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    labels = list(range(9)) + data.draw(st.lists(st.integers(0, 11), min_size=rest, max_size=rest))
    scores = st.sampled_from([0.0, 0.5, 0.5, 1.0, 2.0, 3.0])
    frame = pd.DataFrame(
        {"g": groups, "y": labels, "s": data.draw(st.lists(scores, min_size=n, max_size=n))}
    )
    got = value("kendall_tau", frame, group=group, max_label_levels=12)
    if group is None:
        expected = scipy_value("kendall_tau", frame["s"], frame["y"])
    else:
        values = [scipy_value("kendall_tau", p["s"], p["y"]) for _, p in frame.groupby("g")]
        defined = [v for v in values if not math.isnan(v)]
        expected = sum(defined) / len(defined) if defined else math.nan
    assert same(got, expected, 1e-12), (got, expected)


def test_slices_on_either_path_equal_the_metric_on_the_slice_alone() -> None:
    rng = np.random.default_rng(3)
    few = pd.DataFrame({"y": rng.integers(0, 3, 300), "s": rng.integers(0, 40, 300), "part": "few"})
    many = pd.DataFrame(
        {"y": rng.integers(0, 20, 300), "s": rng.integers(0, 40, 300), "part": "many"}
    )
    frame = pd.concat([few, many], ignore_index=True)
    out = sqlmetrics.evaluate(frame, ["kendall_tau"], label="y", score="s", by="part",
                              max_label_levels=20)  # fmt: skip
    for part, alone in [("few", few), ("many", many)]:
        value = out.loc[out["part"] == part, "kendall_tau"].iloc[0]
        assert value == sqlmetrics.kendall_tau(alone, label="y", score="s", max_label_levels=20)
        assert value == pytest.approx(stats.kendalltau(alone["s"], alone["y"]).statistic, abs=1e-13)


# ----------------------------------------------------------------------------- properties
@given(frames(max_rows=40, **COLUMNS), st.sampled_from(sorted(FUNCTIONS)))
def test_row_order_and_monotone_transforms_change_nothing(frame: pd.DataFrame, name: str) -> None:
    one = value(name, frame, group="g")
    shuffled = frame.sample(frac=1.0, random_state=1)
    assert same(one, value(name, shuffled, group="g"), 0.0)  # bit-identical
    # a strictly increasing transform of score or label, renamed groups: the same ranks
    moved = frame.assign(s=np.exp(frame["s"]), y=frame["y"] * 3 - 10, g=frame["g"].map(str))
    assert same(one, value(name, moved, group="g"), 1e-12)
    flipped = value(name, frame.assign(s=-frame["s"]), group="g")
    assert same(flipped, -one, 1e-12)  # reversing the scores flips the sign
    assert math.isnan(one) or -1 <= one <= 1


def test_perfect_and_reversed_orders() -> None:
    frame = pd.DataFrame({"y": [0, 0, 1, 2, 2, 3], "s": [0.1, 0.1, 0.5, 0.7, 0.7, 0.9]})
    for function in FUNCTIONS.values():
        assert function(frame, label="y", score="s") == 1.0
        assert function(frame.assign(s=-frame["s"]), label="y", score="s") == -1.0


def test_slices_in_evaluate_equal_one_call_per_slice() -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "q": rng.integers(0, 20, 500),
            "part": rng.choice(["a", "b", None], 500),
            "y": rng.integers(0, 3, 500),
            "s": rng.integers(0, 10, 500) / 10,
        }
    )
    out = sqlmetrics.evaluate(
        frame, ["spearman", "kendall"], label="y", score="s", group="q", by="part"
    )
    assert len(out) == 3  # a NULL slice value is a slice
    for _, row in out.iterrows():
        part = frame[frame["part"].isna() if pd.isna(row["part"]) else frame["part"] == row["part"]]
        assert row["spearman"] == sqlmetrics.spearman(part, label="y", score="s", group="q")
        assert row["kendall"] == sqlmetrics.kendall_tau(part, label="y", score="s", group="q")


# ----------------------------------------------------------------------------- errors
def test_undefined_is_nan_with_a_warning() -> None:
    constant = pd.DataFrame({"y": [1, 1, 1], "s": [0.1, 0.2, 0.3]})
    for name, function in FUNCTIONS.items():
        with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=f"{name} is undefined"):
            assert math.isnan(function(constant, label="y", score="s"))


def test_kendall_refuses_too_many_label_levels() -> None:
    frame = pd.DataFrame({"g": [1] * 6 + [2] * 2, "y": [0, 1, 2, 3, 4, 5, 0, 1], "s": range(8)})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"kendall_tau: label column 'y' \(label=\) has 6 distinct values in a group "
        r"\(1 such\).*max_label_levels=5.*spearman",
    ):
        sqlmetrics.kendall_tau(frame, label="y", score="s", group="g", max_label_levels=5)
    with pytest.raises(sqlmetrics.InvalidDataError, match="distinct values in the data"):
        sqlmetrics.kendall_tau(frame, label="y", score="s", max_label_levels=5)
    assert sqlmetrics.kendall_tau(frame, label="y", score="s", group="g", max_label_levels=6) == 1
    # evaluate has no data check for it: the group beyond the limit has no value
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="kendall_tau is undefined"):
        out = sqlmetrics.evaluate(
            frame, ["kendall_tau"], label="y", score="s", group="g", max_label_levels=5, by="g"
        )
    assert math.isnan(out["kendall_tau"].iloc[0]) and out["kendall_tau"].iloc[1] == 1.0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1, r"kendall_tau: max_label_levels= must be an integer >= 2 .*got 1"),
        (2.5, r"max_label_levels= must be an integer >= 2 .*got 2.5"),
        (True, r"max_label_levels= must be an integer >= 2 .*got True"),
        (2**31, r"kendall_tau: max_label_levels= must be <= 2147483647; got 2147483648"),
    ],
)
def test_max_label_levels_is_checked(value: object, message: str) -> None:
    frame = pd.DataFrame({"y": [0, 1], "s": [0.1, 0.2]})
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.kendall_tau(frame, label="y", score="s", max_label_levels=value)  # type: ignore[arg-type]


def test_bad_columns_and_values() -> None:
    frame = pd.DataFrame({"y": ["a", "b"], "s": [0.1, 0.2], "g": [None, 1]})
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"spearman: label column 'y'"):
        sqlmetrics.spearman(frame, label="y", score="s")
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"kendall_tau: column 'z'"):
        sqlmetrics.kendall_tau(frame, label="z", score="s")
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"spearman: group column 'g'"):
        sqlmetrics.spearman(frame.assign(y=[0, 1]), label="y", score="s", group="g")
