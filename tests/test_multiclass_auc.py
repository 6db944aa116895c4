"""Multiclass and multilabel AUC from a long table: SQL == oracle == scikit-learn."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import multiclass_auc as omc
from sklearn import metrics as skm

import sqlmetrics

CLASSES = ["a", "b", "c"]


def long_table(scores: np.ndarray, labels: np.ndarray) -> pd.DataFrame:
    """One row per (row, class) from a wide score matrix and a 0/1 label matrix."""
    n, k = scores.shape
    return pd.DataFrame(
        {
            "row": np.repeat(np.arange(n), k),
            "cls": np.tile(CLASSES[:k] if k <= 3 else [f"k{i}" for i in range(k)], n),
            "score": scores.reshape(-1),
            "label": labels.reshape(-1).astype(int),
        }
    )


def call(frame: pd.DataFrame, **kwargs: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        return sqlmetrics.multiclass_auc(frame, row_id="row", class_col="cls", **kwargs)


def oracle(frame: pd.DataFrame, **kwargs: str) -> float:
    rows = list(frame[["row", "cls", "score", "label"]].itertuples(index=False, name=None))
    return omc.multiclass_auc(rows, **kwargs)


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_multiclass_ovr_ovo_equal_scikit_learn_on_probabilities(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 400, 3
    y = rng.integers(0, k, n)
    raw = rng.integers(1, 6, (n, k)).astype(float)
    p = raw / raw.sum(1, keepdims=True)  # rows sum to 1 (scikit-learn requires it), ties
    frame = long_table(p, np.eye(k)[y])
    for multi_class in ("ovr", "ovo"):
        for average in ("macro", "weighted"):
            expected = skm.roc_auc_score(y, p, multi_class=multi_class, average=average)
            assert call(frame, multi_class=multi_class, average=average) == pytest.approx(
                expected, rel=1e-12
            )


def test_multilabel_equals_scikit_learn() -> None:
    rng = np.random.default_rng(4)
    n, k = 300, 4
    labels = (rng.random((n, k)) < 0.4).astype(int)
    labels[:, 0] = 1 - labels[:, 1]  # every row has a positive and a negative (samples)
    scores = np.round(rng.random((n, k)), 1)
    frame = long_table(scores, labels)
    for average in ("macro", "weighted", "micro", "samples"):
        expected = skm.roc_auc_score(labels, scores, average=average)
        got = call(frame, average=average)
        assert got == pytest.approx(expected, rel=1e-12), average
        assert same(got, oracle(frame, average=average))


@st.composite
def multiclass_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 12))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    scores = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.5, 0.9]), min_size=3 * n, max_size=3 * n))
    ).reshape(n, 3)
    return long_table(scores, np.eye(3)[y])


@given(multiclass_frames(), st.sampled_from(["ovr", "ovo"]), st.sampled_from(["macro", "weighted"]))
def test_equal_oracle_with_ties(frame: pd.DataFrame, multi_class: str, average: str) -> None:
    got = call(frame, multi_class=multi_class, average=average)
    assert same(got, oracle(frame, multi_class=multi_class, average=average))
    shuffled = frame.sample(frac=1.0, random_state=1)
    again = call(shuffled, multi_class=multi_class, average=average)
    assert (math.isnan(got) and math.isnan(again)) or again == got


def test_evaluate_and_slices() -> None:
    rng = np.random.default_rng(9)
    n = 300
    y = rng.integers(0, 3, n)
    frame = long_table(np.round(rng.random((n, 3)), 2), np.eye(3)[y])
    frame["market"] = np.repeat(rng.choice(["x", "y"], n), 3)
    out = sqlmetrics.evaluate(
        frame,
        ["multiclass_auc"],
        group="row",
        item="cls",
        by="market",
        multi_class="ovo",
        auc_average="weighted",
    )
    for market, part in frame.groupby("market"):
        row = out[out["market"] == market].iloc[0]
        assert row["multiclass_auc"] == call(part, multi_class="ovo", average="weighted")


def test_errors_and_undefined() -> None:
    frame = long_table(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([[0, 1], [1, 0]]))
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"multiclass_auc: multi_class='ovo' averages pairs of classes with "
        r"average='macro' or 'weighted'; got average='micro'",
    ):
        call(frame, multi_class="ovo", average="micro")
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"multiclass_auc: multi_class= must be one of 'ovr', 'ovo'; got 'ovx'",
    ):
        call(frame, multi_class="ovx")
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"multiclass_auc: auc_average= must be one of 'macro', 'weighted', 'micro', "
        r"'samples'; got 'binary'",
    ):
        call(frame, average="binary")
    twice = pd.concat([frame, frame.iloc[:1]])
    with pytest.raises(sqlmetrics.InvalidDataError, match="multiclass_auc"):
        call(twice)
    one_class = frame.assign(label=np.where(frame["cls"] == "a", 1, 0))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"multiclass_auc is undefined: a class, pair or row of the average without "
        r"positives or negatives",
    ):
        assert math.isnan(sqlmetrics.multiclass_auc(one_class, row_id="row", class_col="cls"))


# ------------------------------------------------------------------------ top_k_accuracy
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_top_k_accuracy_equals_scikit_learn(k: int) -> None:
    rng = np.random.default_rng(k)
    n, m = 400, 5
    y = rng.integers(0, m, n)
    scores = np.round(rng.random((n, m)), 1)  # many ties within rows
    frame = long_table(scores, np.eye(m)[y])
    expected = skm.top_k_accuracy_score(y, scores, k=k, labels=np.arange(m))
    got = sqlmetrics.top_k_accuracy(frame, row_id="row", class_col="cls", k=k)
    assert got == pytest.approx(expected, rel=1e-12)
    rows = list(frame[["row", "cls", "score", "label"]].itertuples(index=False, name=None))
    assert got == pytest.approx(omc.top_k_accuracy(rows, k), rel=1e-12)
    w = rng.integers(0, 4, n).astype(float)
    weighted = frame.assign(w=np.repeat(w, m))
    expected = skm.top_k_accuracy_score(y, scores, k=k, labels=np.arange(m), sample_weight=w)
    got = sqlmetrics.top_k_accuracy(weighted, row_id="row", class_col="cls", weight="w", k=k)
    assert got == pytest.approx(expected, rel=1e-12)


@given(multiclass_frames(), st.integers(1, 3))
def test_top_k_equal_oracle_with_ties(frame: pd.DataFrame, k: int) -> None:
    rows = list(frame[["row", "cls", "score", "label"]].itertuples(index=False, name=None))
    got = sqlmetrics.top_k_accuracy(frame, row_id="row", class_col="cls", k=k)
    assert got == pytest.approx(omc.top_k_accuracy(rows, k), rel=1e-12)
    shuffled = frame.sample(frac=1.0, random_state=2)
    assert sqlmetrics.top_k_accuracy(shuffled, row_id="row", class_col="cls", k=k) == got


def test_top_k_in_evaluate_and_errors() -> None:
    frame = long_table(np.array([[0.2, 0.8, 0.0], [0.6, 0.3, 0.1]]), np.eye(3)[[0, 0]])
    out = sqlmetrics.evaluate(
        frame, ["top_k_accuracy@1", "top_k_accuracy@2", "top_k_accuracy"], group="row", item="cls"
    )
    assert list(out.iloc[0][["top_k_accuracy@1", "top_k_accuracy@2", "top_k_accuracy"]]) == [
        0.5,
        1.0,
        1.0,
    ]
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"top_k_accuracy: k= must be an integer >= 1"
    ):
        sqlmetrics.top_k_accuracy(frame, row_id="row", class_col="cls", k=0)
    zero = frame.assign(w=0.0)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match=r"top_k_accuracy is undefined: the weights sum"
    ):
        assert math.isnan(
            sqlmetrics.top_k_accuracy(zero, row_id="row", class_col="cls", weight="w")
        )


# ------------------------------------------------------------------------ multilabel AP
def test_multilabel_average_precision_equals_scikit_learn() -> None:
    rng = np.random.default_rng(6)
    n, m = 300, 4
    labels = (rng.random((n, m)) < 0.35).astype(int)
    labels[:, 0] = 1 - labels[:, 1]  # every row has a positive (samples)
    scores = np.round(rng.random((n, m)), 1)  # ties
    frame = long_table(scores, labels)
    rows = list(frame[["row", "cls", "score", "label"]].itertuples(index=False, name=None))
    for average in ("macro", "weighted", "micro", "samples"):
        expected = skm.average_precision_score(labels, scores, average=average)
        got = sqlmetrics.multilabel_average_precision(
            frame, row_id="row", class_col="cls", average=average
        )
        assert got == pytest.approx(expected, rel=1e-12), average
        assert got == pytest.approx(omc.multilabel_average_precision(rows, average), rel=1e-12)
        shuffled = frame.sample(frac=1.0, random_state=3)
        assert (
            sqlmetrics.multilabel_average_precision(
                shuffled, row_id="row", class_col="cls", average=average
            )
            == got
        )


def test_multilabel_average_precision_errors() -> None:
    frame = long_table(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([[0, 1], [0, 1]]))
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"multilabel_average_precision: ap_average= must be one of 'macro', 'weighted', "
        r"'micro', 'samples'; got 'binary'",
    ):
        sqlmetrics.multilabel_average_precision(
            frame, row_id="row", class_col="cls", average="binary"
        )
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"multilabel_average_precision is undefined: a class, row or the pooled table",
    ):
        value = sqlmetrics.multilabel_average_precision(frame, row_id="row", class_col="cls")
    assert math.isnan(value)  # class "a" has no positive label
    out = sqlmetrics.evaluate(
        frame, ["multilabel_average_precision"], group="row", item="cls", ap_average="micro"
    )
    assert out["multilabel_average_precision"].iloc[0] == pytest.approx(
        skm.average_precision_score([0, 1, 0, 1], [0.2, 0.8, 0.6, 0.4])
    )
