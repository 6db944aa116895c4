"""ROC / PR curves and average precision: SQL == oracle == scikit-learn, point by point."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import curves as ocv
from sklearn import metrics as skm

import sqlmetrics

TIED = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])
# binary fractions: sums of weights are exact, so float results compare exactly
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])


COLUMNS = {"label": st.integers(0, 1), "score": TIED, "w": WEIGHTS, "group": st.integers(0, 2)}


def both_classes(frame: pd.DataFrame, w: str | None = None) -> bool:
    weights = frame[w] if w else pd.Series(1.0, index=frame.index)
    return bool(
        (weights[frame["label"] == 1] > 0).any() and (weights[frame["label"] == 0] > 0).any()
    )


def assert_frame_matches(got: pd.DataFrame, expected: list[dict[str, float]]) -> None:
    assert len(got) == len(expected)
    for col in expected[0]:
        np.testing.assert_allclose(
            got[col].to_numpy(float),
            [r[col] for r in expected],
            rtol=1e-12,
            atol=1e-12,
            equal_nan=True,
            err_msg=col,
        )


# ----------------------------------------------------------------------------- published
def test_published_vectors() -> None:
    # scikit-learn docstrings of roc_curve, precision_recall_curve, average_precision_score
    df = pd.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    roc = sqlmetrics.roc_curve(df)
    assert roc["fpr"].tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert roc["tpr"].tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert roc["threshold"].tolist() == [math.inf, 0.8, 0.4, 0.35, 0.1]
    pr = sqlmetrics.pr_curve(df)
    np.testing.assert_allclose(pr["precision"], [0.5, 2 / 3, 0.5, 1.0, 1.0])
    assert pr["recall"].tolist() == [1.0, 1.0, 0.5, 0.5, 0.0]
    assert pr["threshold"].tolist() == [0.1, 0.35, 0.4, 0.8, math.inf]
    assert sqlmetrics.average_precision(df) == pytest.approx(0.8333333333333333, abs=1e-15)
    assert ocv.average_precision(df["label"], df["score"]) == pytest.approx(0.8333333333333333)


def test_roc_curve_drop_intermediate_straight_run() -> None:
    # fp steps 1, 1, 1 at tp constant: the two middle points lie on a straight run of equal
    # steps and are dropped; drop_intermediate=False keeps one point per distinct score
    df = pd.DataFrame({"label": [1, 0, 0, 0, 1], "score": [0.9, 0.8, 0.7, 0.6, 0.5]})
    assert sqlmetrics.roc_curve(df)["threshold"].tolist() == [math.inf, 0.9, 0.6, 0.5]
    full = sqlmetrics.roc_curve(df, drop_intermediate=False)
    assert full["threshold"].tolist() == [math.inf, 0.9, 0.8, 0.7, 0.6, 0.5]


# ----------------------------------------------------------------------------- properties
@given(frames(**COLUMNS), st.booleans(), st.booleans())
def test_roc_curve_equals_oracle_and_sklearn(
    frame: pd.DataFrame, weighted: bool, drop: bool
) -> None:
    w = "w" if weighted else None
    if weighted and not (frame["w"] > 0).any():
        return
    got = quiet(sqlmetrics.roc_curve, frame, weight=w, drop_intermediate=drop)
    assert list(got.columns) == ["threshold", "fpr", "tpr", "tp", "fp", "tn", "fn"]
    weights = frame["w"] if weighted else None
    assert_frame_matches(got, ocv.roc_curve(frame["label"], frame["score"], weights, drop))
    fpr, tpr, thr = quiet(
        skm.roc_curve, frame["label"], frame["score"], sample_weight=weights, drop_intermediate=drop
    )
    if both_classes(frame, w):
        np.testing.assert_allclose(got["fpr"], fpr, rtol=1e-12)
        np.testing.assert_allclose(got["tpr"], tpr, rtol=1e-12)
        np.testing.assert_array_equal(got["threshold"], thr)


@given(frames(**COLUMNS), st.booleans(), st.booleans())
def test_pr_curve_equals_oracle_and_sklearn(
    frame: pd.DataFrame, weighted: bool, drop: bool
) -> None:
    w = "w" if weighted else None
    if weighted and not (frame["w"] > 0).any():
        return
    got = quiet(sqlmetrics.pr_curve, frame, weight=w, drop_intermediate=drop)
    assert list(got.columns) == ["threshold", "precision", "recall", "tp", "fp", "fn"]
    weights = frame["w"] if weighted else None
    assert_frame_matches(got, ocv.pr_curve(frame["label"], frame["score"], weights, drop))
    precision, recall, thr = quiet(
        skm.precision_recall_curve,
        frame["label"],
        frame["score"],
        sample_weight=weights,
        drop_intermediate=drop,
    )
    if both_classes(frame, w):
        np.testing.assert_allclose(got["precision"], precision, rtol=1e-12)
        np.testing.assert_allclose(got["recall"], recall, rtol=1e-12)
        np.testing.assert_array_equal(got["threshold"].iloc[:-1], thr)
        assert got["threshold"].iloc[-1] == math.inf


@given(frames(**COLUMNS), st.booleans())
def test_average_precision_equals_oracle_and_sklearn(frame: pd.DataFrame, weighted: bool) -> None:
    w = "w" if weighted else None
    if weighted and not (frame["w"] > 0).any():
        return
    weights = frame["w"] if weighted else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = sqlmetrics.average_precision(frame, weight=w)
    expected = ocv.average_precision(frame["label"], frame["score"], weights)
    assert got == pytest.approx(expected, rel=1e-12, nan_ok=True)
    warned = any(issubclass(c.category, sqlmetrics.UndefinedMetricWarning) for c in caught)
    assert warned == math.isnan(expected)
    if both_classes(frame, w):
        sk = skm.average_precision_score(frame["label"], frame["score"], sample_weight=weights)
        assert got == pytest.approx(sk, rel=1e-12)
    shuffled = frame.sample(frac=1.0, random_state=5)
    again = quiet(sqlmetrics.average_precision, shuffled, weight=w)
    assert (math.isnan(got) and math.isnan(again)) or again == got  # bit-identical


@given(
    frames(min_rows=2, **COLUMNS), st.integers(2, 6), st.booleans(), st.sampled_from(["roc", "pr"])
)
def test_max_points_keeps_exact_points_at_quantiles(
    frame: pd.DataFrame, max_points: int, weighted: bool, kind: str
) -> None:
    w = "w" if weighted else None
    if weighted and not (frame["w"] > 0).any():
        return
    function = sqlmetrics.roc_curve if kind == "roc" else sqlmetrics.pr_curve
    oracle = ocv.roc_curve if kind == "roc" else ocv.pr_curve
    weights = frame["w"] if weighted else None
    thinned = quiet(function, frame, weight=w, max_points=max_points)
    full = quiet(function, frame, weight=w)
    assert len(thinned) <= max_points
    assert set(thinned["threshold"]) <= set(full["threshold"])
    assert math.inf in set(thinned["threshold"])
    assert full["threshold"].min() == thinned["threshold"].min()  # all rows positive: kept
    merged = thinned.merge(full, on="threshold", suffixes=("", "_full"))
    assert len(merged) == len(thinned)
    for col in ("tp", "fp"):
        assert (merged[col] == merged[col + "_full"]).all()
    assert_frame_matches(
        thinned, oracle(frame["label"], frame["score"], weights, kind == "roc", max_points)
    )


@given(frames(**COLUMNS))
def test_curves_by_slice_equal_curves_per_slice(frame: pd.DataFrame) -> None:
    got = quiet(sqlmetrics.roc_curve, frame, by="group")
    assert list(got.columns)[:2] == ["group", "threshold"]
    for g, part in frame.groupby("group"):
        alone = quiet(sqlmetrics.roc_curve, part.reset_index(drop=True))
        sliced = got[got["group"] == g].drop(columns="group").reset_index(drop=True)
        pd.testing.assert_frame_equal(sliced, alone)
    pr = quiet(sqlmetrics.pr_curve, frame, by=["group"], max_points=3)
    for g, part in frame.groupby("group"):
        alone = quiet(sqlmetrics.pr_curve, part.reset_index(drop=True), max_points=3)
        sliced = pr[pr["group"] == g].drop(columns="group").reset_index(drop=True)
        pd.testing.assert_frame_equal(sliced, alone)


@given(frames(**COLUMNS))
def test_shuffled_rows_give_bit_identical_curves(frame: pd.DataFrame) -> None:
    if not (frame["w"] > 0).any():
        return
    shuffled = frame.sample(frac=1.0, random_state=11).reset_index(drop=True)
    for function in (sqlmetrics.roc_curve, sqlmetrics.pr_curve):
        a = quiet(function, frame, weight="w", max_points=4)
        b = quiet(function, shuffled, weight="w", max_points=4)
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_large_curve_thinned_matches_sklearn_points() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.5 * y, 3)
    frame = pd.DataFrame({"label": y, "score": s})
    full = sqlmetrics.roc_curve(frame, drop_intermediate=False)
    fpr, tpr, thr = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_array_equal(full["threshold"], thr)
    np.testing.assert_allclose(full["fpr"], fpr, rtol=1e-12)
    np.testing.assert_allclose(full["tpr"], tpr, rtol=1e-12)
    thinned = sqlmetrics.roc_curve(frame, max_points=101)
    assert 90 <= len(thinned) <= 101
    # consecutive kept points are about 1% of the rows apart
    share = (thinned["tp"] + thinned["fp"]) / n
    assert share.diff().dropna().max() <= 0.011
    # the area under the thinned curve is close to the exact AUC
    area = np.trapezoid(thinned["tpr"], thinned["fpr"])
    assert area == pytest.approx(skm.roc_auc_score(y, s), abs=2e-3)


# ----------------------------------------------------------------------------- undefined
def test_single_class_curves_warn_and_give_nan() -> None:
    only_pos = pd.DataFrame({"label": [1, 1, 1], "score": [0.1, 0.2, 0.3]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"roc_curve: fpr is undefined \(a slice has no negative label\)",
    ):
        roc = sqlmetrics.roc_curve(only_pos, drop_intermediate=False)
    assert roc["fpr"].isna().all() and roc["tpr"].tolist() == [0, 1 / 3, 2 / 3, 1]
    only_neg = only_pos.assign(label=0)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"roc_curve: tpr is undefined \(a slice has no positive label\)",
    ):
        assert sqlmetrics.roc_curve(only_neg)["tpr"].isna().all()
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"pr_curve: recall is undefined \(a slice has no positive label\)",
    ):
        assert sqlmetrics.pr_curve(only_neg)["recall"].isna().all()
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match="average_precision is undefined: no positive label"
    ):
        assert math.isnan(sqlmetrics.average_precision(only_neg))


# ----------------------------------------------------------------------------- errors
def test_bad_parameters_raise_clear_errors() -> None:
    df = pd.DataFrame({"label": [0, 1], "score": [0.1, 0.9]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"roc_curve: max_points= must be an integer >= 2 .*got 1",
    ):
        sqlmetrics.roc_curve(df, max_points=1)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"pr_curve: max_points= must be an integer >= 2 .*got 2.5",
    ):
        sqlmetrics.pr_curve(df, max_points=2.5)  # type: ignore[arg-type]
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"roc_curve: drop_intermediate= must be True or False; got 'yes'",
    ):
        sqlmetrics.roc_curve(df, drop_intermediate="yes")  # type: ignore[arg-type]


def test_bad_data_raise_clear_errors() -> None:
    nulls = pd.DataFrame({"label": [0, 1, None], "score": [0.1, 0.9, 0.3]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"roc_curve: label column 'label' \(label=\) has 1 of 3 rows NULL",
    ):
        sqlmetrics.roc_curve(nulls)
    graded = pd.DataFrame({"label": [0, 1, 2], "score": [0.1, 0.9, 0.3]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"pr_curve: label column 'label' .* values outside \{0, 1\}",
    ):
        sqlmetrics.pr_curve(graded)
    nan = pd.DataFrame({"label": [0, 1], "score": [0.1, float("inf")]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"average_precision: score column 'score' .* NaN or infinite",
    ):
        sqlmetrics.average_precision(nan)
    with pytest.raises(
        sqlmetrics.ColumnNotFoundError, match=r"roc_curve: column 'p' \(score=\) not found"
    ):
        sqlmetrics.roc_curve(graded, score="p")
