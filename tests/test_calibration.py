"""Calibration and CTR metrics: SQL == oracle == scikit-learn / numpy, ties, slices, errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import calibration as ocal
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve as sk_calibration_curve

import sqlmetrics

# heavy ties, both ends, and values on uniform edges (0.2, 0.5, 0.8 for 5 / 10 bins)
PROBS = st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.2, 0.3, 0.5, 0.5, 0.7, 0.8, 0.95, 1.0])
DF = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.4, 0.35, 0.8, 0.5, 0.5]})


FRAMES = frames(
    max_rows=40, label=st.integers(0, 1), p=PROBS, w=st.sampled_from([0.0, 0.5, 1.0, 3.0])
)


def same(a: float, b: float, rel: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=rel, abs=1e-15)


# ------------------------------------------------------------------------ published numbers
def test_hand_computed_values() -> None:
    # base rate 1/2: H = ln 2; log loss of DF is 0.545931... (scikit-learn's log_loss)
    ll = skm.log_loss(DF["label"], DF["score"])
    assert sqlmetrics.normalized_entropy(DF) == pytest.approx(ll / math.log(2), rel=1e-14)
    assert sqlmetrics.calibration_ratio(DF) == pytest.approx(2.65 / 3, rel=1e-14)
    # 2 bins: [0, .5] holds 5 rows (mean p .37, 2 positives), (.5, 1] one (p .8, positive)
    ece = 5 / 6 * abs(0.4 - 0.37) + 1 / 6 * abs(1 - 0.8)
    assert sqlmetrics.expected_calibration_error(DF, n_bins=2) == pytest.approx(ece, rel=1e-14)
    assert ocal.expected_calibration_error(DF["label"], DF["score"], n_bins=2) == pytest.approx(ece)


def test_normalized_entropy_of_the_base_rate_is_one() -> None:
    df = pd.DataFrame({"label": [1, 0, 0, 0], "score": [0.25] * 4})
    assert sqlmetrics.normalized_entropy(df) == pytest.approx(1.0, rel=1e-14)
    assert sqlmetrics.calibration_ratio(df) == pytest.approx(1.0, rel=1e-14)
    assert sqlmetrics.expected_calibration_error(df) == pytest.approx(0.0, abs=1e-15)


# ------------------------------------------------------------------------ oracle, scikit-learn
@given(FRAMES, st.booleans(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_equal_oracle(frame: pd.DataFrame, weighted: bool, n_bins: int, strategy: str) -> None:
    wcol = "w" if weighted else None
    w = frame["w"] if weighted else None
    y, p = list(frame["label"]), list(frame["p"])
    got = quiet(sqlmetrics.normalized_entropy, frame, score="p", weight=wcol)
    assert same(got, ocal.normalized_entropy(y, p, w))
    got = quiet(sqlmetrics.calibration_ratio, frame, score="p", weight=wcol)
    assert same(got, ocal.calibration_ratio(y, p, w))
    got = quiet(
        sqlmetrics.expected_calibration_error,
        frame,
        score="p",
        weight=wcol,
        n_bins=n_bins,
        strategy=strategy,
    )
    assert same(got, ocal.expected_calibration_error(y, p, w, n_bins, strategy))
    curve = quiet(
        sqlmetrics.calibration_curve,
        frame,
        score="p",
        weight=wcol,
        n_bins=n_bins,
        strategy=strategy,
    )
    expected = pd.DataFrame(ocal.calibration_curve(y, p, w, n_bins, strategy))
    assert list(curve.columns) == list(expected.columns)
    assert list(curve["bin"]) == list(expected["bin"])
    assert list(curve["n"]) == list(expected["n"])
    # the edges are numpy's to the bit
    assert list(curve["bin_lower"]) == list(expected["bin_lower"])
    assert list(curve["bin_upper"]) == list(expected["bin_upper"])
    for col in ("weight", "mean_predicted", "fraction_positive"):
        assert all(same(a, b) for a, b in zip(curve[col], expected[col])), col
    # shuffled rows: bit-identical
    shuffled = frame.sample(frac=1.0, random_state=3)
    again = quiet(
        sqlmetrics.calibration_curve,
        shuffled,
        score="p",
        weight=wcol,
        n_bins=n_bins,
        strategy=strategy,
    )
    pd.testing.assert_frame_equal(curve, again)
    assert same(
        quiet(sqlmetrics.normalized_entropy, shuffled, score="p", weight=wcol),
        quiet(sqlmetrics.normalized_entropy, frame, score="p", weight=wcol),
        rel=0,
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 2, 3, 5, 7, 10, 13, 100])
def test_calibration_curve_equals_scikit_learn(strategy: str, n_bins: int) -> None:
    rng = np.random.default_rng(n_bins)
    p = np.round(rng.beta(2, 3, 3000), 3)  # ties, and values on edges
    y = (rng.random(3000) < p).astype(int)
    frame = pd.DataFrame({"label": y, "p": p})
    curve = sqlmetrics.calibration_curve(frame, score="p", n_bins=n_bins, strategy=strategy)
    prob_true, prob_pred = sk_calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    np.testing.assert_allclose(curve["fraction_positive"], prob_true, rtol=1e-12)
    np.testing.assert_allclose(curve["mean_predicted"], prob_pred, rtol=1e-12)
    if strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    binids = np.searchsorted(edges[1:-1], p)
    assert list(curve["bin"]) == sorted(set(binids.tolist()))
    assert list(curve["n"]) == [int((binids == b).sum()) for b in curve["bin"]]
    assert list(curve["bin_lower"]) == [edges[b] for b in curve["bin"]]
    # ECE from scikit-learn's curve and bin counts
    counts = np.bincount(binids, minlength=n_bins)
    counts = counts[counts > 0]
    ece = float(np.sum(counts / len(p) * np.abs(prob_true - prob_pred)))
    got = sqlmetrics.expected_calibration_error(frame, score="p", n_bins=n_bins, strategy=strategy)
    assert got == pytest.approx(ece, rel=1e-12, abs=1e-15)


def test_edges_equal_numpy_for_many_bin_counts() -> None:
    for n in range(1, 1001):
        assert ocal.edges([0.0, 1.0], n, "uniform") == np.linspace(0, 1, n + 1).tolist(), n
    p = [0.1, 0.35, 0.35, 0.4, 0.5, 0.8, 0.93]
    for n in range(1, 60):
        expected = np.percentile(p, np.linspace(0, 1, n + 1) * 100).tolist()
        assert ocal.edges(p, n, "quantile") == expected, n


def test_normalized_entropy_equals_log_loss_over_base_entropy_weighted() -> None:
    rng = np.random.default_rng(7)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    w = rng.integers(0, 4, 500).astype(float)
    frame = pd.DataFrame({"label": y, "p": p, "w": w})
    rate = float(np.sum(w * y) / np.sum(w))
    entropy = -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate))
    expected = skm.log_loss(y, p, sample_weight=w) / entropy
    got = sqlmetrics.normalized_entropy(frame, score="p", weight="w")
    assert got == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------ slices, evaluate
def test_slices_equal_single_calls() -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, 400),
            "p": np.round(rng.random(400), 2),
            "g": rng.choice(["a", "b", "c"], 400),
        }
    )
    out = sqlmetrics.evaluate(
        frame,
        ["normalized_entropy", "calibration_ratio", "ece"],
        score="p",
        by="g",
        n_bins=4,
        strategy="quantile",
    )
    curves = sqlmetrics.calibration_curve(frame, score="p", by="g", strategy="quantile")
    for g, part in frame.groupby("g"):
        row = out[out["g"] == g].iloc[0]
        assert row["normalized_entropy"] == sqlmetrics.normalized_entropy(part, score="p")
        assert row["calibration_ratio"] == sqlmetrics.calibration_ratio(part, score="p")
        assert row["ece"] == sqlmetrics.expected_calibration_error(
            part, score="p", n_bins=4, strategy="quantile"
        )
        single = sqlmetrics.calibration_curve(part, score="p", strategy="quantile")
        sliced = curves[curves["g"] == g].drop(columns="g").reset_index(drop=True)
        pd.testing.assert_frame_equal(sliced, single)


def test_pos_label_strings() -> None:
    spam = DF.assign(label=DF["label"].map({1: "spam", 0: "ham"}))
    assert sqlmetrics.normalized_entropy(spam, pos_label="spam") == pytest.approx(
        sqlmetrics.normalized_entropy(DF), rel=1e-15
    )
    assert sqlmetrics.expected_calibration_error(spam, pos_label="spam") == pytest.approx(
        sqlmetrics.expected_calibration_error(DF), rel=1e-15
    )


# ------------------------------------------------------------------------ errors, undefined
def test_n_bins_is_checked() -> None:
    for bad in (0, -1, True, 2.5, "10"):
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=r"expected_calibration_error: n_bins= must be an integer >= 1 \(the number "
            r"of bins\); got",
        ):
            sqlmetrics.expected_calibration_error(DF, n_bins=bad)  # type: ignore[arg-type]
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"calibration_curve: n_bins= must be <= 1000"
    ):
        sqlmetrics.calibration_curve(DF, n_bins=1001)


def test_unknown_strategy_lists_the_values() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"calibration_curve: strategy= must be one of 'uniform', 'quantile'; got "
        r"'quantiles'; did you mean 'quantile'\?",
    ):
        sqlmetrics.calibration_curve(DF, strategy="quantiles")


def test_probabilities_outside_0_1_are_refused() -> None:
    with pytest.raises(sqlmetrics.InvalidDataError, match="normalized_entropy"):
        sqlmetrics.normalized_entropy(DF.assign(score=DF["score"] * 2))


def test_undefined_cases_warn_nan() -> None:
    one_class = pd.DataFrame({"label": [1, 1], "score": [0.2, 0.9]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"normalized_entropy is undefined: the weights sum to 0, or one class only",
    ):
        assert math.isnan(sqlmetrics.normalized_entropy(one_class))
    negatives = pd.DataFrame({"label": [0, 0], "score": [0.2, 0.9]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"calibration_ratio is undefined: no positive label",
    ):
        assert math.isnan(sqlmetrics.calibration_ratio(negatives))
    zero = DF.assign(w=0.0)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"expected_calibration_error is undefined: the weights sum to 0",
    ):
        assert math.isnan(sqlmetrics.expected_calibration_error(zero, weight="w"))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"calibration_curve: a bin's weights sum to 0; its mean_predicted and "
        r"fraction_positive are NaN",
    ):
        curve = sqlmetrics.calibration_curve(zero, weight="w")
    assert curve["fraction_positive"].isna().all()
