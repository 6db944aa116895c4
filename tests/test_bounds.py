"""auc_bounds: the exact AUC always lies inside the bounds, which nest as bins doubles."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import bounds as ob
from oracle import classification as oc
from sklearn.metrics import roc_auc_score

import sqlmetrics
from sqlmetrics._engine.run import compute
from sqlmetrics._metrics.classification_bounds import AucBounds

# few distinct values (ties are the rule), plus arbitrary finite floats, extremes included
TIED = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])
ANY = st.floats(allow_nan=False, allow_infinity=False)
SCORES = st.one_of(
    st.lists(TIED, min_size=1, max_size=40),
    st.lists(ANY, min_size=1, max_size=40),
    st.lists(st.floats(-3, 3), min_size=1, max_size=40),
)
BINS = st.one_of(st.integers(1, 70), st.sampled_from([2**j for j in range(17)]))


def scored(weights: bool = False) -> st.SearchStrategy[pd.DataFrame]:
    """1 to 40 rows; the scores all tied values, all finite floats or all in [-3, 3]."""
    extra = {"w": st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])} if weights else {}
    return st.one_of(
        frames(max_rows=40, label=st.integers(0, 1), score=values, **extra)
        for values in (TIED, ANY, st.floats(-3, 3))
    )


# ----------------------------------------------------------------------------- containment
@given(scored(), BINS)
def test_exact_auc_lies_inside_the_bounds(frame: pd.DataFrame, bins: int) -> None:
    got = quiet(sqlmetrics.auc_bounds, frame, bins=bins)
    exact = oc.auc(frame["label"], frame["score"])
    expected = ob.auc_bounds(list(frame["label"]), list(frame["score"]), bins)
    for g, e in zip(got, expected, strict=True):
        assert oc.is_close(g, e, tol=1e-12)
    if math.isnan(exact):
        assert all(math.isnan(v) for v in got)
        return
    # no tolerance: unweighted counts are exact integers, each bound one rounded division
    assert got.lower <= exact <= got.upper
    assert got.lower <= quiet(sqlmetrics.auc, frame) <= got.upper
    assert got.lower <= got.estimate <= got.upper
    assert got.lower >= 0.0 and got.upper <= 1.0
    assert got.half_width == pytest.approx(got.estimate - got.lower, abs=1e-15)
    assert got.half_width == pytest.approx(got.upper - got.estimate, abs=1e-15)


@given(scored(weights=True), BINS)
def test_weighted_exact_auc_lies_inside_the_bounds(frame: pd.DataFrame, bins: int) -> None:
    got = quiet(sqlmetrics.auc_bounds, frame, bins=bins, weight="w")
    exact = oc.auc(frame["label"], frame["score"], frame["w"])
    expected = ob.auc_bounds(list(frame["label"]), list(frame["score"]), bins, list(frame["w"]))
    for g, e in zip(got, expected, strict=True):
        assert oc.is_close(g, e, tol=1e-12)
    if not math.isnan(exact):
        assert got.lower - 1e-12 <= exact <= got.upper + 1e-12


@given(scored())
def test_bounds_nest_as_bins_doubles(frame: pd.DataFrame) -> None:
    results = [quiet(sqlmetrics.auc_bounds, frame, bins=2**j) for j in range(0, 21, 2)]
    if math.isnan(results[0].estimate):
        return
    assert results[0] == AucBounds(0.5, 0.0, 1.0)  # one bucket: every pair is "same bucket"
    for coarse, fine in itertools.pairwise(results):
        assert coarse.lower <= fine.lower and fine.upper <= coarse.upper


@given(scored(), BINS)
def test_row_order_changes_nothing(frame: pd.DataFrame, bins: int) -> None:
    got = quiet(sqlmetrics.auc_bounds, frame, bins=bins)
    shuffled = frame.sample(frac=1.0, random_state=11).reset_index(drop=True)
    again = quiet(sqlmetrics.auc_bounds, shuffled, bins=bins)
    assert all(oc.is_close(a, b, tol=0) for a, b in zip(got, again, strict=True))  # bit-identical


def test_bounds_shrink_on_large_distinct_scores() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.5 * y
    frame = pd.DataFrame({"label": y, "score": s})
    exact = roc_auc_score(y, s)
    assert sqlmetrics.auc(frame) == pytest.approx(exact, abs=1e-12)
    widths = []
    for bins in (256, 4096, 65536):
        b = sqlmetrics.auc_bounds(frame, bins=bins)
        assert b.lower <= sqlmetrics.auc(frame) <= b.upper
        assert abs(b.estimate - exact) <= b.half_width
        widths.append(b.half_width)
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] < 2e-2 and widths[2] < 1e-4
    # roughly proportional to 1 / bins: 16x the bins, about 1/16 of the width
    assert widths[0] / widths[1] == pytest.approx(16, rel=0.25)


# ----------------------------------------------------------------------------- edges
def test_all_scores_equal_gives_the_trivial_interval() -> None:
    frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.3] * 4})
    assert sqlmetrics.auc_bounds(frame) == AucBounds(0.5, 0.0, 1.0)
    assert sqlmetrics.auc(frame) == 0.5


def test_maximum_goes_to_the_last_bucket_and_minimum_to_the_first() -> None:
    # two bins: [0, 0.5) and [0.5, 1]; 1.0 must not open a third bucket
    frame = pd.DataFrame({"label": [1, 0, 1, 0], "score": [1.0, 0.0, 0.5, 0.49]})
    assert sqlmetrics.auc_bounds(frame, bins=2) == AucBounds(1.0, 1.0, 1.0)
    assert sqlmetrics.auc_bounds(frame, bins=1) == AucBounds(0.5, 0.0, 1.0)


def test_extreme_scores_do_not_overflow() -> None:
    big = np.finfo(np.float64).max
    frame = pd.DataFrame({"label": [1, 0, 1, 0, 1], "score": [big, -big, 0.0, -1.0, 1.0]})
    b = sqlmetrics.auc_bounds(frame, bins=1024)
    assert b == AucBounds(*ob.auc_bounds([1, 0, 1, 0, 1], list(frame["score"]), 1024))
    assert b.lower <= sqlmetrics.auc(frame) <= b.upper
    assert all(math.isfinite(v) for v in b)


def test_tied_scores_keep_an_irreducible_width() -> None:
    # a positive and a negative tied at 0.5: no number of bins separates them
    frame = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.4, 0.35, 0.8, 0.5, 0.5]})
    b = sqlmetrics.auc_bounds(frame, bins=2**30)
    assert b.estimate == pytest.approx(sqlmetrics.auc(frame), abs=1e-15)
    assert b.half_width == pytest.approx(1 / 9 / 2, abs=1e-15)


def test_booleans_integers_and_decimals() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute(
        "create table t as select * from (values (true, 9::decimal(4,2)), "
        "(false, 1::decimal(4,2)), (true, 1::decimal(4,2))) v(label, score)"
    )
    assert sqlmetrics.auc_bounds("t", con=con, bins=8) == AucBounds(0.75, 0.5, 1.0)


def test_slices_are_bounded_independently_null_slice_included() -> None:
    frame = pd.DataFrame(
        {
            "day": ["a", "a", "a", "b", "b", "b", None, None],
            "label": [1, 0, 1, 0, 1, 0, 1, 0],
            "score": [0.9, 0.1, 0.5, 10.0, 30.0, 20.0, -1.0, -2.0],
        }
    )
    out = compute(
        "auc_bounds",
        frame,
        con=None,
        by="day",
        params={"bins": 4},
        columns={"label": "label", "score": "score", "weight": None},
    )
    assert list(out.columns[:4]) == ["day", "auc_bounds", "lower", "upper"]
    assert len(out) == 3
    for _, row in out.iterrows():
        day = row["day"]
        part = frame[frame["day"].isna()] if pd.isna(day) else frame[frame["day"] == day]
        expected = sqlmetrics.auc_bounds(part, bins=4)  # min/max taken per slice
        assert (row["auc_bounds"], row["lower"], row["upper"]) == tuple(expected)


# ----------------------------------------------------------------------------- errors
def test_single_class_warns_and_returns_nan() -> None:
    frame = pd.DataFrame({"label": [1, 1, 1], "score": [0.1, 0.2, 0.3]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match="auc_bounds is undefined: only one class"
    ):
        b = sqlmetrics.auc_bounds(frame)
    assert all(math.isnan(v) for v in b)


@pytest.mark.parametrize("bins", [0, -4, 1.5, True, "65536", None, 2**31])
def test_bins_must_be_a_positive_integer(bins: object) -> None:
    frame = pd.DataFrame({"label": [0, 1], "score": [0.1, 0.2]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"auc_bounds: bins= must be an integer between 1 and 2147483647",
    ):
        sqlmetrics.auc_bounds(frame, bins=bins)  # type: ignore[arg-type]


def test_missing_column_and_bad_values() -> None:
    frame = pd.DataFrame({"label": [0, 1], "pctr": [0.1, 0.2]})
    with pytest.raises(
        sqlmetrics.ColumnNotFoundError,
        match=r"auc_bounds: column 'score' \(score=\) not found.*label, pctr",
    ):
        sqlmetrics.auc_bounds(frame)
    with pytest.raises(sqlmetrics.InvalidDataError, match="NaN or infinite"):
        sqlmetrics.auc_bounds(pd.DataFrame({"label": [0, 1], "score": [0.1, np.inf]}))
    with pytest.raises(sqlmetrics.InvalidDataError, match="negative"):
        sqlmetrics.auc_bounds(
            pd.DataFrame({"label": [0, 1], "score": [0.1, 0.2], "w": [1.0, -1.0]}), weight="w"
        )


def test_hostile_column_name_is_quoted() -> None:
    name = 'x"; drop table t; --'
    frame = pd.DataFrame({"label": [0, 1, 1], name: [0.1, 0.2, 0.05]})
    assert sqlmetrics.auc_bounds(frame, score=name, bins=2**20).estimate == pytest.approx(0.5)
