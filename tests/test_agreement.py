"""Balanced accuracy, Cohen's kappa, Jaccard, Hamming loss: SQL == oracle == scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import agreement as oag
from sklearn import metrics as skm

import sqlmetrics

CLASSES = st.sampled_from(["a", "b", "c", "d"])


FRAMES = frames(y=CLASSES, p=CLASSES, w=st.sampled_from([0.0, 0.5, 1.0, 3.0]))


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-14)


def test_published_vectors() -> None:
    # scikit-learn docstrings: balanced_accuracy_score, cohen_kappa_score, hamming_loss,
    # jaccard_score
    ba = pd.DataFrame({"label": [0, 1, 0, 0, 1, 0], "prediction": [0, 1, 0, 0, 0, 1]})
    assert sqlmetrics.balanced_accuracy(ba) == pytest.approx(0.625, abs=1e-15)
    ck = pd.DataFrame(
        {
            "label": ["negative", "positive", "negative", "neutral", "positive"],
            "prediction": ["negative", "positive", "negative", "neutral", "negative"],
        }
    )
    assert sqlmetrics.cohen_kappa(ck) == pytest.approx(0.6875, abs=1e-15)
    hl = pd.DataFrame({"label": [1, 2, 3, 4], "prediction": [2, 2, 3, 4]})
    assert sqlmetrics.hamming_loss(hl) == 0.25
    jc = pd.DataFrame({"label": [0, 1, 2, 0, 1, 2], "prediction": [0, 2, 1, 0, 0, 1]})
    assert sqlmetrics.jaccard(jc) == pytest.approx(2 / 9, abs=1e-15)
    assert sqlmetrics.jaccard(jc, average="micro") == pytest.approx(0.2, abs=1e-15)
    assert sqlmetrics.jaccard(jc, average="weighted") == pytest.approx(2 / 9, abs=1e-15)


@given(FRAMES, st.booleans())
def test_equal_oracle_and_scikit_learn(frame: pd.DataFrame, weighted: bool) -> None:
    if weighted and frame["w"].sum() == 0:
        return
    wcol = "w" if weighted else None
    w = list(frame["w"]) if weighted else None
    y, p = list(frame["y"]), list(frame["p"])
    args = {"label": "y", "prediction": "p", "weight": wcol}
    for adjusted in (False, True):
        got = quiet(sqlmetrics.balanced_accuracy, frame, adjusted=adjusted, **args)
        assert same(got, oag.balanced_accuracy(y, p, w, adjusted))
        expected = quiet(skm.balanced_accuracy_score, y, p, sample_weight=w, adjusted=adjusted)
        if not math.isnan(got):
            assert same(got, expected)
    for kw in (None, "linear", "quadratic"):
        got = quiet(sqlmetrics.cohen_kappa, frame, weights=kw, **args)
        assert same(got, oag.cohen_kappa(y, p, w, kw))
        expected = quiet(skm.cohen_kappa_score, y, p, weights=kw, sample_weight=w)
        assert same(got, expected)
    got = sqlmetrics.hamming_loss(frame, **args)
    assert same(got, oag.hamming_loss(y, p, w))
    assert same(got, skm.hamming_loss(y, p, sample_weight=w))
    for average in ("macro", "micro", "weighted"):
        got = quiet(sqlmetrics.jaccard, frame, average=average, **args)
        assert same(got, oag.jaccard(y, p, w, average))
        labels = sorted(set(y) | set(p))
        expected = quiet(skm.jaccard_score, y, p, average=average, sample_weight=w, labels=labels)
        if not math.isnan(got):
            assert same(got, expected)
    shuffled = frame.sample(frac=1.0, random_state=2)
    for fn in (sqlmetrics.cohen_kappa, sqlmetrics.balanced_accuracy, sqlmetrics.jaccard):
        assert same(quiet(fn, shuffled, **args), quiet(fn, frame, **args))
        a, b = quiet(fn, shuffled, **args), quiet(fn, frame, **args)
        assert a == b or (math.isnan(a) and math.isnan(b))  # bit-identical


def test_random_data_and_slices() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 5, 2000)
    p = np.where(rng.random(2000) < 0.6, y, rng.integers(0, 5, 2000))
    frame = pd.DataFrame({"y": y, "p": p, "g": rng.choice(["u", "v"], 2000)})
    args = {"label": "y", "prediction": "p"}
    assert sqlmetrics.cohen_kappa(frame, weights="linear", **args) == pytest.approx(
        skm.cohen_kappa_score(y, p, weights="linear"), rel=1e-12
    )
    out = sqlmetrics.evaluate(
        frame,
        ["balanced_accuracy", "cohen_kappa", "hamming_loss", "jaccard_macro", "jaccard_micro"],
        by="g",
        weights="quadratic",
        adjusted=True,
        **args,
    )
    for g, part in frame.groupby("g"):
        row = out[out["g"] == g].iloc[0]
        assert row["cohen_kappa"] == sqlmetrics.cohen_kappa(part, weights="quadratic", **args)
        assert row["balanced_accuracy"] == sqlmetrics.balanced_accuracy(part, adjusted=True, **args)
        assert row["hamming_loss"] == sqlmetrics.hamming_loss(part, **args)
        assert row["jaccard_micro"] == sqlmetrics.jaccard(part, average="micro", **args)


def test_errors() -> None:
    df = pd.DataFrame({"label": [0, 1], "prediction": [0, 0]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"cohen_kappa: weights= must be one of 'linear', 'quadratic'; got 'quadratik'; "
        r"did you mean 'quadratic'\? \(or None for unweighted kappa\)",
    ):
        sqlmetrics.cohen_kappa(df, weights="quadratik")
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"balanced_accuracy: adjusted= must be True or False; got 1",
    ):
        sqlmetrics.balanced_accuracy(df, adjusted=1)  # type: ignore[arg-type]
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"jaccard: average= must be one of 'macro', 'micro', 'weighted'; got 'samples'",
    ):
        sqlmetrics.jaccard(df, average="samples")
    mixed = pd.DataFrame({"label": [0, 1], "prediction": ["0", "1"]})
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"hamming_loss: label column 'label'"):
        sqlmetrics.hamming_loss(mixed)


def test_undefined_cases_warn_nan() -> None:
    same_class = pd.DataFrame({"label": ["x", "x"], "prediction": ["x", "x"]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"cohen_kappa is undefined: no expected disagreement",
    ):
        assert math.isnan(sqlmetrics.cohen_kappa(same_class))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"balanced_accuracy is undefined: no class in the label with weight; adjusted "
        r"with one class",
    ):
        assert math.isnan(sqlmetrics.balanced_accuracy(same_class, adjusted=True))
    zero = same_class.assign(w=0.0)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match=r"hamming_loss is undefined: the weights sum"
    ):
        assert math.isnan(sqlmetrics.hamming_loss(zero, weight="w"))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match=r"jaccard_macro is undefined: the weights sum"
    ):
        assert math.isnan(sqlmetrics.jaccard(zero, weight="w"))


@pytest.mark.parametrize("normalize", ["true", "pred", "all"])
def test_confusion_matrix_normalize_equals_scikit_learn(normalize: str) -> None:
    rng = np.random.default_rng(1)
    y = rng.choice(["a", "b", "c"], 300)
    p = rng.choice(["a", "b", "c", "d"], 300)  # "d" is never true: a zero row
    w = rng.integers(0, 3, 300).astype(float)
    frame = pd.DataFrame({"label": y, "prediction": p, "w": w})
    table = sqlmetrics.multiclass_confusion_matrix(frame, weight="w", normalize=normalize)
    wide = table.pivot(index="label", columns="prediction", values="fraction")
    expected = skm.confusion_matrix(
        y, p, labels=["a", "b", "c", "d"], sample_weight=w, normalize=normalize
    )
    np.testing.assert_allclose(wide.to_numpy(), expected, rtol=1e-12)
    assert "fraction" not in sqlmetrics.multiclass_confusion_matrix(frame).columns


def test_confusion_matrix_normalize_is_checked() -> None:
    df = pd.DataFrame({"label": [0, 1], "prediction": [0, 0]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"multiclass_confusion_matrix: normalize= must be one of 'true', 'pred', 'all'; "
        r"got 'rows' \(or None for counts\)",
    ):
        sqlmetrics.multiclass_confusion_matrix(df, normalize="rows")
