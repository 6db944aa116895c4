"""KS statistic, partial AUC and lift table: SQL == oracle == scipy / scikit-learn, ties,
slices, errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import separation as osep
from scipy import stats
from sklearn import metrics as skm

import sqlmetrics

SCORES = st.sampled_from([-2.0, 0.0, 0.1, 0.1, 0.3, 0.5, 0.5, 0.5, 0.9, 7.0])
DF = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.4, 0.35, 0.8, 0.5, 0.5]})


COLUMNS = {"label": st.integers(0, 1), "s": SCORES, "w": st.sampled_from([0.0, 0.5, 1.0, 3.0])}


def same(a: float, b: float, rel: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=rel, abs=1e-14)


# ------------------------------------------------------------------------ published numbers
def test_hand_computed_values() -> None:
    # thresholds .8: TPR 1/3, FPR 0; .35: TPR 1, FPR 2/3; both gaps 1/3, the higher reported
    point = sqlmetrics.ks_point(DF)
    assert point["ks_statistic"].iloc[0] == pytest.approx(1 / 3, rel=1e-15)
    assert point["threshold"].iloc[0] == 0.8
    assert (point["tpr"].iloc[0], point["fpr"].iloc[0]) == (pytest.approx(1 / 3), 0.0)
    assert osep.ks_point(DF["label"], DF["score"])["threshold"] == 0.8
    # scikit-learn roc_auc_score(max_fpr=0.5) on DF: 0.7037037...
    assert sqlmetrics.partial_auc(DF, max_fpr=0.5) == pytest.approx(19 / 27, rel=1e-14)
    table = sqlmetrics.lift_table(DF, n_bins=3)
    assert list(table["bin"]) == [1, 2, 3]
    # scores .8, .5, .5 | .4 | .35, .1: the tie at .5 stays in bin 1 (4 > 6/3 rows)
    assert list(table["n"]) == [3, 1, 2]
    assert list(table["n_pos"]) == [2, 0, 1]
    assert list(table["gain"]) == pytest.approx([2 / 3, 2 / 3, 1.0])


# ------------------------------------------------------------------------ oracle and peers
@given(
    frames(max_rows=40, **COLUMNS), st.booleans(), st.sampled_from([1.0, 0.5, 0.3, 0.25, 0.1, 1e-3])
)
def test_equal_oracle(frame: pd.DataFrame, weighted: bool, max_fpr: float) -> None:
    wcol = "w" if weighted else None
    w = list(frame["w"]) if weighted else None
    y, s = list(frame["label"]), list(frame["s"])
    point = quiet(sqlmetrics.ks_point, frame, score="s", weight=wcol)
    expected = osep.ks_point(y, s, w)
    assert same(point["ks_statistic"].iloc[0], expected["ks_statistic"])
    if not math.isnan(expected["ks_statistic"]) and not weighted:
        assert point["threshold"].iloc[0] == expected["threshold"]
        assert same(point["tpr"].iloc[0], expected["tpr"])
        assert same(point["fpr"].iloc[0], expected["fpr"])
    got = quiet(sqlmetrics.ks_statistic, frame, score="s", weight=wcol)
    assert same(got, expected["ks_statistic"])
    got = quiet(sqlmetrics.partial_auc, frame, score="s", weight=wcol, max_fpr=max_fpr)
    assert same(got, osep.partial_auc(y, s, w, max_fpr), rel=1e-9)
    table = quiet(sqlmetrics.lift_table, frame, score="s", n_bins=4)
    oracle = pd.DataFrame(osep.lift_table(y, s, 4))
    assert list(table.columns) == list(oracle.columns)
    for col in oracle.columns:
        assert all(same(float(a), float(b)) for a, b in zip(table[col], oracle[col])), col
    # row order changes nothing, to the bit
    shuffled = frame.sample(frac=1.0, random_state=5)
    assert same(
        quiet(sqlmetrics.partial_auc, shuffled, score="s", weight=wcol, max_fpr=max_fpr),
        got,
        rel=0,
    )
    pd.testing.assert_frame_equal(
        quiet(sqlmetrics.ks_point, shuffled, score="s", weight=wcol), point
    )


@given(frames(min_rows=2, max_rows=40, **COLUMNS), st.sampled_from([1.0, 0.5, 0.3, 0.1]))
def test_equal_scikit_learn_and_scipy(frame: pd.DataFrame, max_fpr: float) -> None:
    y, s = frame["label"], frame["s"]
    if y.nunique() < 2:
        return
    ks = stats.ks_2samp(s[y == 1], s[y == 0]).statistic
    assert sqlmetrics.ks_statistic(frame, score="s") == pytest.approx(ks, rel=1e-12)
    for weighted in (False, True):
        w = frame["w"] if weighted else None
        if weighted and (frame["w"][y == 1].sum() == 0 or frame["w"][y == 0].sum() == 0):
            continue
        expected = skm.roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w)
        got = sqlmetrics.partial_auc(
            frame, score="s", max_fpr=max_fpr, weight="w" if w is not None else None
        )
        assert got == pytest.approx(expected, rel=1e-9)


def test_equal_scipy_and_scikit_learn_on_random_data() -> None:
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 5000)
    s = np.round(rng.normal(y * 0.7, 1.0), 2)  # ties
    frame = pd.DataFrame({"label": y, "s": s})
    ks = stats.ks_2samp(s[y == 1], s[y == 0])
    assert sqlmetrics.ks_statistic(frame, score="s") == pytest.approx(ks.statistic, rel=1e-12)
    # scipy reports the location x of sup |F1 - F0|: our threshold is the next score above it
    point = sqlmetrics.ks_point(frame, score="s")
    assert point["threshold"].iloc[0] == min(v for v in s if v > ks.statistic_location)
    for max_fpr in (0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0):
        expected = skm.roc_auc_score(y, s, max_fpr=max_fpr)
        assert sqlmetrics.partial_auc(frame, score="s", max_fpr=max_fpr) == pytest.approx(
            expected, rel=1e-12
        )
    assert sqlmetrics.partial_auc(frame, score="s") == pytest.approx(
        sqlmetrics.auc(frame, score="s"), rel=1e-12
    )


def test_properties() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 20, 300).astype(float)
    frame = pd.DataFrame({"label": y, "s": s})
    flipped = frame.assign(s=-frame["s"])
    monotone = frame.assign(s=np.exp(frame["s"] / 10))
    for max_fpr in (0.2, 1.0):
        a = sqlmetrics.partial_auc(frame, score="s", max_fpr=max_fpr)
        assert sqlmetrics.partial_auc(monotone, score="s", max_fpr=max_fpr) == pytest.approx(a)
    full = sqlmetrics.partial_auc(frame, score="s")
    assert full + sqlmetrics.partial_auc(flipped, score="s") == pytest.approx(1.0)
    ks = sqlmetrics.ks_statistic(frame, score="s")
    assert ks == pytest.approx(sqlmetrics.ks_statistic(monotone, score="s"))
    assert ks == pytest.approx(sqlmetrics.ks_statistic(flipped, score="s"))
    perfect = pd.DataFrame({"label": [0, 0, 1, 1], "s": [0.1, 0.2, 0.3, 0.4]})
    assert sqlmetrics.ks_statistic(perfect, score="s") == 1.0
    assert sqlmetrics.partial_auc(perfect, score="s", max_fpr=0.3) == 1.0
    table = sqlmetrics.lift_table(frame, score="s")
    assert table["gain"].is_monotonic_increasing
    assert table["gain"].iloc[-1] == 1.0
    assert table["n"].sum() == len(frame)


def test_slices_and_evaluate() -> None:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, 600),
            "s": np.round(rng.random(600), 2),
            "g": rng.choice(["a", "b"], 600),
        }
    )
    out = sqlmetrics.evaluate(frame, ["ks", "partial_auc"], score="s", by="g", max_fpr=0.2)
    points = sqlmetrics.ks_point(frame, score="s", by="g")
    lifts = sqlmetrics.lift_table(frame, score="s", by="g")
    for g, part in frame.groupby("g"):
        row = out[out["g"] == g].iloc[0]
        assert row["ks"] == sqlmetrics.ks_statistic(part, score="s")
        assert row["partial_auc"] == sqlmetrics.partial_auc(part, score="s", max_fpr=0.2)
        single = sqlmetrics.ks_point(part, score="s")
        sliced = points[points["g"] == g].drop(columns="g").reset_index(drop=True)
        pd.testing.assert_frame_equal(sliced, single)
        single = sqlmetrics.lift_table(part, score="s")
        sliced = lifts[lifts["g"] == g].drop(columns="g").reset_index(drop=True)
        pd.testing.assert_frame_equal(sliced, single)


def test_ks_and_partial_auc_share_one_pass_over_the_score_points() -> None:
    """evaluate computes both from one score_points pass (score_points_kernel), each value bit
    for bit the metric alone, a NULL slice and weights included."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, 300),
            "s": np.round(rng.random(300), 1),
            "w": rng.choice([0.5, 1.0, 3.0], 300),
            "g": rng.choice(["a", "b", None], 300),
        }
    )
    kwargs = {"score": "s", "weight": "w", "by": "g", "max_fpr": 0.3}
    sql = sqlmetrics.render_evaluate("t", ["ks", "partial_auc"], **kwargs)
    assert len(re.findall(r"\bpoints as \(", sql)) == 1 and "join areas on" in sql
    both = sqlmetrics.evaluate(frame, ["ks", "partial_auc"], **kwargs)
    ks = sqlmetrics.evaluate(frame, ["ks"], score="s", weight="w", by="g")
    pauc = sqlmetrics.evaluate(frame, ["partial_auc"], **kwargs)
    assert both["g"].isna().sum() == 1 and len(both) == 3
    pd.testing.assert_frame_equal(both.drop(columns="partial_auc"), ks)
    pd.testing.assert_frame_equal(both.drop(columns="ks"), pauc)


# ------------------------------------------------------------------------ errors, undefined
def test_max_fpr_is_checked() -> None:
    for bad in (0, 0.0, -0.1, 1.5, float("nan"), True, "0.5"):
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=r"partial_auc: max_fpr= must be a number with 0 < max_fpr <= 1 \(the false "
            r"positive rate the area stops at; 1 is the whole ROC AUC\); got",
        ):
            sqlmetrics.partial_auc(DF, max_fpr=bad)  # type: ignore[arg-type]


def test_lift_n_bins_is_checked() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"lift_table: n_bins= must be"):
        sqlmetrics.lift_table(DF, n_bins=0)


def test_undefined_cases_warn_nan() -> None:
    one_class = pd.DataFrame({"label": [1, 1, 1], "score": [0.2, 0.9, 0.4]})
    for fn, name in (
        (sqlmetrics.ks_statistic, "ks_statistic"),
        (sqlmetrics.partial_auc, "partial_auc"),
    ):
        with pytest.warns(
            sqlmetrics.UndefinedMetricWarning,
            match=rf"{name} is undefined: no positive or no negative label",
        ):
            assert math.isnan(fn(one_class))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"ks_point: ks_statistic is undefined \(no positive or no negative label\) in 1 "
        r"slice\(s\); NaN there",
    ):
        assert sqlmetrics.ks_point(one_class)["ks_statistic"].isna().all()
    negatives = one_class.assign(label=0)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"lift_table: lift and gain are undefined \(no positive label\) in a slice; NaN",
    ):
        table = sqlmetrics.lift_table(negatives)
    assert table["lift"].isna().all() and (table["response_rate"] == 0).all()


def test_auc_max_fpr_is_partial_auc() -> None:
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(y, 1.0), 1)
    frame = pd.DataFrame({"label": y, "score": s})
    for max_fpr in (0.1, 0.35, 1.0):
        got = sqlmetrics.auc(frame, max_fpr=max_fpr)
        assert got == sqlmetrics.partial_auc(frame, max_fpr=max_fpr)
        assert got == pytest.approx(skm.roc_auc_score(y, s, max_fpr=max_fpr), rel=1e-12)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"partial_auc: max_fpr= must be"):
        sqlmetrics.auc(frame, max_fpr=0)
