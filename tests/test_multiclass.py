"""Multiclass metrics: SQL == oracle == scikit-learn on tied random data; errors; warnings."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import multiclass as om
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._engine.run import compute

NAN = float("nan")
SK = {
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
    "fbeta": skm.fbeta_score,
}
AVERAGED = [f"{m}_{a}" for m in SK for a in ("macro", "micro", "weighted")]


POOLS = {"int": [3, 1, 7, 2], "str": ["dog", "cat", "pig", "émeu"]}


def classes(kinds: tuple[str, ...] = ("int", "str")) -> st.SearchStrategy[pd.DataFrame]:
    """1 to 25 rows of int or str classes; the true classes from the first 1 to 4 of the pool."""
    return st.tuples(st.sampled_from(kinds), st.integers(1, 4)).flatmap(
        lambda kind_size: frames(
            max_rows=25,
            y=st.sampled_from(POOLS[kind_size[0]][: kind_size[1]]),
            p=st.sampled_from(POOLS[kind_size[0]]),
            w=st.sampled_from([0.5, 1.0, 2.0, 3.0]),
            g=st.integers(0, 1),
        )
    )


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12 * max(1.0, abs(b))


# ----------------------------------------------------------------------------- published
ANIMALS = pd.DataFrame(
    {
        "y": ["cat", "dog", "pig", "cat", "dog", "pig"],
        "p": ["cat", "pig", "dog", "cat", "cat", "dog"],
    }
)


def test_published_cat_dog_pig() -> None:
    # scikit-learn precision_recall_fscore_support docstring
    kw = {"label": "y", "prediction": "p"}
    assert round(sqlmetrics.precision(ANIMALS, average="macro", **kw), 4) == 0.2222
    assert round(sqlmetrics.recall(ANIMALS, average="macro", **kw), 4) == 0.3333
    assert round(sqlmetrics.f1(ANIMALS, average="macro", **kw), 4) == 0.2667
    assert sqlmetrics.f1(ANIMALS, average="micro", **kw) == pytest.approx(1 / 3)
    assert round(sqlmetrics.fbeta(ANIMALS, beta=0.5, average="weighted", **kw), 4) == 0.2381
    assert sqlmetrics.recall(ANIMALS, average=None, **kw).tolist() == [1.0, 0.0, 0.0]
    oracle = om.averaged("precision", "macro", ANIMALS["y"], ANIMALS["p"])
    assert round(oracle, 4) == 0.2222


def test_published_classification_report_and_mcc() -> None:
    # scikit-learn classification_report docstring: y_true [0,1,2,2,2], y_pred [0,0,2,2,1]
    df = pd.DataFrame({"label": [0, 1, 2, 2, 2], "prediction": [0, 0, 2, 2, 1]})
    report = quiet(sqlmetrics.classification_report, df, zero_division=0.0).round(2)
    assert report.loc[0].tolist() == [0.5, 1.0, 0.67, 1]
    assert report.loc[1].tolist() == [0.0, 0.0, 0.0, 1]
    assert report.loc[2].tolist() == [1.0, 0.67, 0.8, 3]
    assert report.loc["macro avg"].tolist() == [0.5, 0.56, 0.49, 5]
    assert report.loc["weighted avg"].tolist() == [0.7, 0.6, 0.61, 5]
    # matthews_corrcoef docstring
    signs = pd.DataFrame({"label": [1, 1, 1, -1], "prediction": [1, -1, 1, 1]})
    assert sqlmetrics.mcc(signs, prediction="prediction") == pytest.approx(-1 / 3)
    assert om.mcc(signs["label"], signs["prediction"]) == pytest.approx(-1 / 3)


# ----------------------------------------------------------------------------- properties
JACCARD = {f"jaccard_{a}" for a in ("macro", "micro", "weighted")}


def test_every_multiclass_spec_is_tested() -> None:
    family = {n for n, s in REGISTRY.items() if s.family == "multiclass"}
    agreement = {"balanced_accuracy", "cohen_kappa", "hamming_loss", *JACCARD}  # test_agreement
    assert family == {
        *AVERAGED,
        "classification_report",
        "multiclass_confusion_matrix",
        "mcc",
        *agreement,
    }


@given(
    classes(),
    st.sampled_from(list(SK)),
    st.sampled_from(["macro", "micro", "weighted"]),
    st.sampled_from(["warn", 0.0, 1.0]),
    st.booleans(),
)
def test_averages_equal_oracle_and_sklearn(
    frame: pd.DataFrame, metric: str, average: str, zero_division: float | str, weighted: bool
) -> None:
    w = frame["w"] if weighted else None
    extra = {"beta": 2.0} if metric == "fbeta" else {}
    got = quiet(
        getattr(sqlmetrics, metric),
        frame,
        label="y",
        prediction="p",
        average=average,
        zero_division=zero_division,
        weight="w" if weighted else None,
        **extra,
    )
    assert isinstance(got, float)
    zd = NAN if zero_division == "warn" else float(zero_division)
    kind = "fbeta" if metric in ("f1", "fbeta") else metric
    expected = om.averaged(kind, average, frame["y"], frame["p"], w, extra.get("beta", 1.0), zd)
    assert close(got, expected)
    sk = quiet(
        SK[metric],
        frame["y"],
        frame["p"],
        average=average,
        sample_weight=w,
        zero_division=zd,
        **extra,
    )
    assert close(got, float(sk))


@given(classes(), st.sampled_from(list(SK)), st.sampled_from(["warn", 0.0]))
def test_average_none_is_a_series_per_class(
    frame: pd.DataFrame, metric: str, zero_division: float | str
) -> None:
    extra = {"beta": 0.5} if metric == "fbeta" else {}
    got = quiet(
        getattr(sqlmetrics, metric),
        frame,
        label="y",
        prediction="p",
        average=None,
        zero_division=zero_division,
        **extra,
    )
    assert isinstance(got, pd.Series)
    assert got.index.tolist() == om.classes(frame["y"], frame["p"])
    zd = NAN if zero_division == "warn" else 0.0
    sk = quiet(SK[metric], frame["y"], frame["p"], average=None, zero_division=zd, **extra)
    np.testing.assert_allclose(got.to_numpy(), sk, rtol=1e-12, equal_nan=True)


@given(classes(), st.booleans())
def test_report_confusion_and_mcc_equal_oracle_and_sklearn(
    frame: pd.DataFrame, weighted: bool
) -> None:
    w = frame["w"] if weighted else None
    wcol = "w" if weighted else None
    report = quiet(sqlmetrics.classification_report, frame, label="y", prediction="p", weight=wcol)
    ks = om.classes(frame["y"], frame["p"])
    assert report.index.tolist() == [*ks, "accuracy", "macro avg", "weighted avg"]
    sk = quiet(
        skm.precision_recall_fscore_support,
        frame["y"],
        frame["p"],
        labels=ks,
        sample_weight=w,
        zero_division=NAN,
    )
    for col, values in zip(["precision", "recall", "f1", "support"], sk):
        np.testing.assert_allclose(report[col].iloc[: len(ks)], values, rtol=1e-12, equal_nan=True)
    for avg in ("micro", "macro", "weighted"):
        for col, kind in (("precision", "precision"), ("recall", "recall"), ("f1", "fbeta")):
            assert close(
                report.loc["accuracy" if avg == "micro" else f"{avg} avg", col],
                om.averaged(kind, avg, frame["y"], frame["p"], w),
            )
    table = sqlmetrics.multiclass_confusion_matrix(frame, label="y", prediction="p", weight=wcol)
    assert list(table.columns) == ["label", "prediction", "count"]
    expected = om.confusion(frame["y"], frame["p"], w)
    assert {(a, b): c for a, b, c in table.itertuples(index=False)} == expected
    matrix = table.pivot(index="label", columns="prediction", values="count").to_numpy()
    np.testing.assert_allclose(
        matrix, quiet(skm.confusion_matrix, frame["y"], frame["p"], labels=ks, sample_weight=w)
    )
    got = quiet(sqlmetrics.mcc, frame, label="y", prediction="p", weight=wcol)
    expected_mcc = om.mcc(frame["y"], frame["p"], w)
    assert (math.isnan(got) and math.isnan(expected_mcc)) or abs(got - expected_mcc) < 1e-9
    zero = quiet(sqlmetrics.mcc, frame, label="y", prediction="p", weight=wcol, zero_division=0.0)
    sk_mcc = quiet(skm.matthews_corrcoef, frame["y"], frame["p"], sample_weight=w)
    assert zero == pytest.approx(sk_mcc, abs=1e-12)


@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.sampled_from([0.1, 0.5, 0.5, 0.9])), min_size=1, max_size=20
    ),
    st.sampled_from([0.1, 0.5, 0.9]),
)
def test_binary_mcc_at_threshold_equals_sklearn(
    rows: list[tuple[int, float]], threshold: float
) -> None:
    frame = pd.DataFrame(rows, columns=["label", "score"])
    predicted = (frame["score"] >= threshold).astype(int)
    got = sqlmetrics.mcc(frame, threshold=threshold, zero_division=0.0)
    sk = quiet(skm.matthews_corrcoef, frame["label"], predicted)
    assert got == pytest.approx(sk, abs=1e-12)
    from_pred = sqlmetrics.mcc(frame.assign(pred=predicted), prediction="pred", zero_division=0.0)
    assert from_pred == pytest.approx(got, abs=1e-12)


@given(classes())
def test_slices_and_shuffles(frame: pd.DataFrame) -> None:
    columns = {"label": "y", "prediction": "p", "weight": "w"}
    sliced = quiet(compute, "f1_weighted", frame, con=None, columns=columns, by="g")
    assert list(sliced.columns[:2]) == ["g", "f1_weighted"]
    for g, part in frame.groupby("g"):
        alone = quiet(
            sqlmetrics.f1, part, label="y", prediction="p", weight="w", average="weighted"
        )
        assert close(float(sliced.loc[sliced["g"] == g, "f1_weighted"].iloc[0]), alone)
    shuffled = frame.sample(frac=1.0, random_state=2)
    for name in ("precision_macro", "recall_weighted", "fbeta_micro", "mcc"):
        a = quiet(compute, name, frame, con=None, columns=columns)
        b = quiet(compute, name, shuffled, con=None, columns=columns)
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_boolean_and_binary_labels_with_average() -> None:
    df = pd.DataFrame({"y": [True, False, True, True], "p": [True, True, False, True]})
    got = sqlmetrics.f1(df, label="y", prediction="p", average="macro")
    assert got == pytest.approx(skm.f1_score(df["y"], df["p"], average="macro"))
    assert sqlmetrics.f1(df, label="y", prediction="p") == pytest.approx(
        skm.f1_score(df["y"], df["p"])
    )  # binary default unchanged


# ----------------------------------------------------------------------------- warnings
def test_undefined_classes_warn_and_are_left_out() -> None:
    # 'pig' is never predicted: its precision is 0/0
    df = pd.DataFrame({"y": ["cat", "pig", "cat"], "p": ["cat", "cat", "cat"]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"precision is undefined: 1 of 2 classes are never predicted",
    ):
        assert sqlmetrics.precision(df, label="y", prediction="p", average="macro") == 2 / 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            sqlmetrics.precision(df, label="y", prediction="p", average="macro", zero_division=0.0)
            == 1 / 3
        )
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"precision is undefined: 1 of 2 classes are never predicted",
    ):
        per_class = sqlmetrics.precision(df, label="y", prediction="p", average=None)
    assert per_class["cat"] == 2 / 3 and math.isnan(per_class["pig"])
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"classification_report: precision is undefined for 1 class",
    ):
        sqlmetrics.classification_report(df, label="y", prediction="p")
    one = pd.DataFrame({"y": ["a", "a"], "p": ["a", "a"]})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="mcc is undefined: one class"):
        assert math.isnan(sqlmetrics.mcc(one, label="y", prediction="p"))


# ----------------------------------------------------------------------------- errors
def test_errors_name_metric_argument_and_fix() -> None:
    kw = {"label": "y", "prediction": "p"}
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"f1: average= must be one of 'binary', 'macro', 'micro', "
        r"'weighted'; got 'macr'; did you mean 'macro'\? \(or None",
    ):
        sqlmetrics.f1(ANIMALS, average="macr", **kw)
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"recall: average='macro' needs prediction="
    ):
        sqlmetrics.recall(ANIMALS, label="y", average="macro")
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"precision: threshold=0.3 applies to average='binary' only",
    ):
        sqlmetrics.precision(ANIMALS, threshold=0.3, average="micro", **kw)
    mixed = pd.DataFrame({"y": [1, 2], "p": ["1", "2"]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"fbeta: label column 'y' has type BIGINT but prediction column "
        r"'p' has type VARCHAR; .* cast one of them",
    ):
        sqlmetrics.fbeta(mixed, beta=1.0, average="macro", **kw)
    nulls = pd.DataFrame({"y": ["a", None], "p": ["a", "b"]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"classification_report: label column 'y' \(label=\) has 1 of 2 "
        r"rows NULL",
    ):
        sqlmetrics.classification_report(nulls, **kw)
    with pytest.raises(
        sqlmetrics.ColumnNotFoundError,
        match=r"multiclass_confusion_matrix: column 'q' \(prediction=\) not "
        r"found",
    ):
        sqlmetrics.multiclass_confusion_matrix(ANIMALS, label="y", prediction="q")
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"mcc: threshold=0.5 and prediction='p' both given"
    ):
        sqlmetrics.mcc(ANIMALS, threshold=0.5, **kw)
    graded = pd.DataFrame({"label": [0, 2], "score": [0.1, 0.9]})
    with pytest.raises(
        sqlmetrics.InvalidDataError, match=r"^mcc: label column 'label' .* values outside \{0, 1\}"
    ):
        sqlmetrics.mcc(graded)
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"mcc: zero_division= must be 'warn'"
    ):
        sqlmetrics.mcc(graded, zero_division=5)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"classification_report: zero_division= must be 'warn'",
    ):
        sqlmetrics.classification_report(ANIMALS, zero_division="zero", **kw)
