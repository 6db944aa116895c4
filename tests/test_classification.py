"""Classification metrics: SQL == oracle == scikit-learn, on tied data, with properties."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import classification as oc
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

# scores from a small set, so that ties are the rule rather than the exception
TIED = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])


@st.composite
def binary_frames(draw: st.DrawFn, min_size: int = 1, weights: bool = False) -> pd.DataFrame:
    n = draw(st.integers(min_size, 40))
    labels = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    scores = draw(st.lists(TIED, min_size=n, max_size=n))
    frame = pd.DataFrame({"label": labels, "score": scores})
    frame["group"] = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    if weights:
        frame["w"] = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
    return frame


def both_classes(frame: pd.DataFrame) -> bool:
    return 0 < frame["label"].sum() < len(frame)


# ----------------------------------------------------------------------------- published
def test_auc_published_vectors() -> None:
    df = pd.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8], "w": [1, 2, 3, 4]})
    assert sqlmetrics.auc(df) == 0.75
    assert sqlmetrics.auc(df, weight="w") == pytest.approx(0.7142857142857143, abs=1e-15)
    ties = pd.DataFrame({"label": [1, 0, 0, 1, 1, 0], "score": [0.5, 0.5, 0.2, 0.9, 0.2, 0.1]})
    assert sqlmetrics.auc(ties) == pytest.approx(0.7777777777777778, abs=1e-15)


def test_threshold_published_vectors() -> None:
    df = pd.DataFrame({"label": [0, 1, 1, 0, 1, 1], "pred": [0, 0, 1, 1, 1, 1]})
    assert sqlmetrics.precision(df, prediction="pred") == 0.75
    assert sqlmetrics.recall(df, prediction="pred") == 0.75
    assert sqlmetrics.f1(df, prediction="pred") == 0.75
    df2 = pd.DataFrame({"label": [0, 1, 1, 0], "pred": [0, 1, 0, 0]})
    assert sqlmetrics.fbeta(df2, prediction="pred", beta=0.5) == pytest.approx(0.8333333333333334)


# ----------------------------------------------------------------------------- AUC
@given(binary_frames(weights=True))
def test_auc_equals_oracle_and_sklearn(frame: pd.DataFrame) -> None:
    expected = oc.auc(frame["label"], frame["score"])
    weighted = oc.auc(frame["label"], frame["score"], frame["w"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        got = sqlmetrics.auc(frame)
        got_w = sqlmetrics.auc(frame, weight="w")
    assert oc.is_close(got, expected)
    assert oc.is_close(got_w, weighted)
    if both_classes(frame):
        assert got == pytest.approx(skm.roc_auc_score(frame["label"], frame["score"]), abs=1e-12)
        assert got_w == pytest.approx(
            skm.roc_auc_score(frame["label"], frame["score"], sample_weight=frame["w"]),
            abs=1e-12,
        )


@given(binary_frames(min_size=2), st.randoms(use_true_random=False))
def test_auc_properties(frame: pd.DataFrame, rnd: object) -> None:
    if not both_classes(frame):
        return
    value = sqlmetrics.auc(frame)
    shuffled = frame.sample(frac=1.0, random_state=7).reset_index(drop=True)
    assert sqlmetrics.auc(shuffled) == value  # bit-identical
    flipped = frame.assign(score=-frame["score"])
    assert sqlmetrics.auc(flipped) + value == pytest.approx(1.0, abs=1e-12)
    transformed = frame.assign(score=np.exp(3 * frame["score"]) - 7)  # strictly increasing
    assert sqlmetrics.auc(transformed) == pytest.approx(value, abs=1e-12)
    assert 0.0 <= value <= 1.0


def test_auc_large_distinct_matches_sklearn() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y * 0.3
    frame = pd.DataFrame({"label": y, "score": s})
    assert sqlmetrics.auc(frame) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)


def test_auc_single_class_warns_nan() -> None:
    frame = pd.DataFrame({"label": [1, 1, 1], "score": [0.1, 0.2, 0.3]})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="auc is undefined: only one class"):
        assert math.isnan(sqlmetrics.auc(frame))


def test_auc_boolean_labels_and_decimal_scores() -> None:
    con = __import__("duckdb").connect()
    con.execute(
        "create table t as select * from (values (true, 0.9::decimal(4,2)), "
        "(false, 0.1::decimal(4,2)), (true, 0.1::decimal(4,2))) v(label, score)"
    )
    assert sqlmetrics.auc("t", con=con) == 0.75


# ----------------------------------------------------------------------------- GAUC
@given(binary_frames(), st.sampled_from(["samples", "positives", "uniform"]))
def test_gauc_equals_oracle(frame: pd.DataFrame, weighting: str) -> None:
    expected = oc.gauc(frame["group"], frame["label"], frame["score"], weighting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = sqlmetrics.gauc(frame, group="group", weighting=weighting)
    assert oc.is_close(got, expected)
    warned = any(issubclass(w.category, sqlmetrics.UndefinedMetricWarning) for w in caught)
    assert warned == math.isnan(expected)
    shuffled = frame.sample(frac=1.0, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = sqlmetrics.gauc(shuffled, group="group", weighting=weighting)
    assert oc.is_close(again, got, tol=0)


def test_gauc_no_group_left_warns() -> None:
    frame = pd.DataFrame({"group": [1, 1, 2], "label": [0, 0, 1], "score": [0.1, 0.2, 0.3]})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="no group has both"):
        assert math.isnan(sqlmetrics.gauc(frame, group="group"))


def test_gauc_per_user_loop_matches_sklearn() -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "user": rng.integers(0, 50, 3000),
            "label": rng.integers(0, 2, 3000),
            "score": rng.integers(0, 20, 3000) / 20,
        }
    )
    num = den = 0.0
    for _, g in frame.groupby("user"):
        if g["label"].nunique() == 2:
            num += len(g) * skm.roc_auc_score(g["label"], g["score"])
            den += len(g)
    assert sqlmetrics.gauc(frame, group="user") == pytest.approx(num / den, abs=1e-12)


# ----------------------------------------------------------------------------- threshold
# every metric of one value at a threshold (confusion_matrix, four counts, has its own tests)
THRESHOLD_METRICS = sorted(
    name
    for name, spec in REGISTRY.items()
    if "threshold" in spec.params and spec.output == "scalar"
)
SKLEARN = {
    "accuracy": lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w),
    "precision": lambda y, p, w: skm.precision_score(y, p, sample_weight=w, zero_division=np.nan),
    "recall": lambda y, p, w: skm.recall_score(y, p, sample_weight=w, zero_division=np.nan),
    "specificity": lambda y, p, w: skm.recall_score(
        y, p, pos_label=0, sample_weight=w, zero_division=np.nan
    ),
    "fpr": lambda y, p, w: (
        1 - skm.recall_score(y, p, pos_label=0, sample_weight=w, zero_division=np.nan)
    ),
    "f1": lambda y, p, w: skm.f1_score(y, p, sample_weight=w, zero_division=np.nan),
    "fbeta": lambda y, p, w: skm.fbeta_score(y, p, beta=2.0, sample_weight=w, zero_division=np.nan),
}


def test_every_threshold_metric_is_tested() -> None:
    # scikit-learn's counterpart of each (an external check besides the oracle)
    assert set(SKLEARN) == set(THRESHOLD_METRICS)


@given(binary_frames(weights=True), TIED, st.sampled_from(THRESHOLD_METRICS), st.booleans())
def test_threshold_metrics_equal_oracle_and_sklearn(
    frame: pd.DataFrame, threshold: float, name: str, weighted: bool
) -> None:
    predicted = [1 if s >= threshold else 0 for s in frame["score"]]
    w = frame["w"] if weighted else None
    kwargs = {"beta": 2.0} if name == "fbeta" else {}
    expected = oc.threshold_metric(name, frame["label"], predicted, w, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        got = getattr(sqlmetrics, name)(
            frame, threshold=threshold, weight="w" if weighted else None, **kwargs
        )
        sk = SKLEARN[name](frame["label"], predicted, w)
    assert oc.is_close(got, expected)
    assert oc.is_close(got, float(sk), tol=1e-12)
    # the same from a prediction column
    with_pred = frame.assign(pred=predicted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        from_pred = getattr(sqlmetrics, name)(
            with_pred, prediction="pred", weight="w" if weighted else None, **kwargs
        )
    assert oc.is_close(from_pred, got, tol=0)


@given(binary_frames(weights=True), TIED)
def test_confusion_matrix_equals_oracle_and_sklearn(frame: pd.DataFrame, threshold: float) -> None:
    predicted = [1 if s >= threshold else 0 for s in frame["score"]]
    got = sqlmetrics.confusion_matrix(frame, threshold=threshold)
    assert got == {k: int(v) for k, v in oc.confusion(frame["label"], predicted).items()}
    tn, fp, fn, tp = skm.confusion_matrix(frame["label"], predicted, labels=[0, 1]).ravel()
    assert got == {"tp": tp, "fp": fp, "tn": tn, "fn": fn}
    weighted = sqlmetrics.confusion_matrix(frame, threshold=threshold, weight="w")
    assert weighted == pytest.approx(oc.confusion(frame["label"], predicted, frame["w"]))


def test_zero_division_policies() -> None:
    frame = pd.DataFrame({"label": [1, 0], "score": [0.1, 0.2]})  # nothing predicted positive
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match=r"precision is undefined: no predicted positive"
    ):
        assert math.isnan(sqlmetrics.precision(frame))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sqlmetrics.precision(frame, zero_division=0.0) == 0.0
        assert sqlmetrics.precision(frame, zero_division=1.0) == 1.0
        assert math.isnan(sqlmetrics.precision(frame, zero_division=float("nan")))


def test_threshold_is_inclusive() -> None:
    frame = pd.DataFrame({"label": [1, 0], "score": [0.5, 0.4999]})
    assert sqlmetrics.confusion_matrix(frame) == {"tp": 1, "fp": 0, "tn": 1, "fn": 0}


#: the arguments a binary metric needs besides the columns
NEEDS: dict[str, dict[str, object]] = {
    "fbeta": {"beta": 2.0},
    "gauc": {"group": "label"},
    "partial_auc": {"max_fpr": 0.5},
    "precision_at_recall": {"min_recall": 0.5},
    "recall_at_precision": {"min_precision": 0.5},
    "tpr_at_fpr": {"max_fpr": 0.5},
}


@pytest.mark.parametrize(
    "name",
    sorted(
        spec.function
        for spec in REGISTRY.values()
        if spec.family in ("classification", "calibration")
        and spec.output == "scalar"
        and spec.function == spec.name
        and "weight" in inspect.signature(getattr(sqlmetrics, spec.function)).parameters
    ),
)
def test_weights_summing_to_zero_are_undefined_and_say_why(name: str) -> None:
    """Every weight 0: NaN, with an UndefinedMetricWarning that gives the reason (accuracy's
    once said "undefined: never"), and the docstring's Warns names it.
    """
    frame = pd.DataFrame({"label": [0, 1, 1], "score": [0.2, 0.5, 0.7], "w": [0.0, 0.0, 0.0]})
    function = getattr(sqlmetrics, name)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning) as caught:
        value = function(frame, weight="w", **NEEDS.get(name, {}))
    assert all(math.isnan(v) for v in (value if isinstance(value, tuple) else (value,)))
    for warning in caught:
        assert "undefined: never" not in str(warning.message), str(warning.message)
    warns = (function.__doc__ or "").split("Warns\n")[1].split("See Also\n")[0]
    assert "\n    UndefinedMetricWarning\n" in warns
