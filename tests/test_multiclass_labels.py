"""``labels=`` (scikit-learn's): the listed classes, in their order, absent ones with zero
counts; SQL == oracle == scikit-learn on tied random data; every error message."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import agreement as oag
from oracle import multiclass as om
from sklearn import metrics as skm

import sqlmetrics

POOL = ["a", "b", "c", "d"]
LISTABLE = [*POOL, "e"]  # "e" is never in the data: a listed class absent from it
SK = {
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
    "fbeta": skm.fbeta_score,
}
ORACLE_METRIC = {"precision": "precision", "recall": "recall", "f1": "fbeta", "fbeta": "fbeta"}


@st.composite
def cases(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str]]:
    n = draw(st.integers(1, 25))
    values = st.sampled_from(POOL[: draw(st.integers(1, 4))])
    frame = pd.DataFrame(
        {
            "y": draw(st.lists(values, min_size=n, max_size=n)),
            "p": draw(st.lists(st.sampled_from(POOL), min_size=n, max_size=n)),
            "w": draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n, max_size=n)),
        }
    )
    listed = draw(st.permutations(LISTABLE))[: draw(st.integers(1, len(LISTABLE)))]
    return frame, listed


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-14)


KW = {"label": "y", "prediction": "p"}


@pytest.mark.slow  # about 12 s idle; the other multiclass tests stay in the fast tier
@given(cases(), st.booleans())
def test_averages_equal_oracle_and_scikit_learn(
    case: tuple[pd.DataFrame, list[str]], weighted: bool
) -> None:
    frame, listed = case
    w = list(frame["w"]) if weighted else None
    y, p = list(frame["y"]), list(frame["p"])
    args: dict[str, Any] = {**KW, "weight": "w" if weighted else None, "labels": listed}
    for metric, sk in SK.items():
        beta = {"beta": 0.5} if metric == "fbeta" else {}
        fn = getattr(sqlmetrics, metric)
        for average in ("macro", "micro", "weighted"):
            for zd in (0.0, 1.0, math.nan):
                got = quiet(fn, frame, average=average, zero_division=zd, **beta, **args)
                oracle = om.averaged(
                    ORACLE_METRIC[metric],
                    average,
                    y,
                    p,
                    w,
                    beta.get("beta", 1.0),
                    zd,
                    listed,
                )
                assert same(got, oracle), (metric, average, zd)
                expected = quiet(
                    sk,
                    y,
                    p,
                    average=average,
                    labels=listed,
                    sample_weight=w,
                    zero_division=zd,
                    **beta,
                )
                assert same(got, float(expected)), (metric, average, zd)
        per_class = quiet(fn, frame, average=None, zero_division=0.0, **beta, **args)
        assert list(per_class.index) == listed
        expected = quiet(
            sk, y, p, average=None, labels=listed, sample_weight=w, zero_division=0.0, **beta
        )
        np.testing.assert_allclose(per_class.to_numpy(), expected, rtol=1e-12, atol=1e-14)


@given(cases(), st.booleans())
def test_report_matrix_kappa_jaccard(case: tuple[pd.DataFrame, list[str]], weighted: bool) -> None:
    frame, listed = case
    w = list(frame["w"]) if weighted else None
    y, p = list(frame["y"]), list(frame["p"])
    args: dict[str, Any] = {**KW, "weight": "w" if weighted else None, "labels": listed}

    report = sqlmetrics.classification_report(frame, zero_division=0.0, **args)
    expected = skm.classification_report(
        y, p, labels=listed, sample_weight=w, zero_division=0.0, output_dict=True
    )
    assert list(report.index[: len(listed)]) == listed
    for name, row in report.iterrows():
        key = name if name in listed else str(name)
        if key == "micro avg" and key not in expected:  # scikit-learn prints "accuracy"
            assert row["f1"] == pytest.approx(expected["accuracy"], rel=1e-12, abs=1e-14)
            continue
        for ours, theirs in (("precision", "precision"), ("recall", "recall"), ("f1", "f1-score")):
            assert row[ours] == pytest.approx(expected[key][theirs], rel=1e-12, abs=1e-14)
        assert row["support"] == pytest.approx(expected[key]["support"], rel=1e-12)

    table = sqlmetrics.multiclass_confusion_matrix(frame, **args)
    assert list(table["label"].drop_duplicates()) == listed
    assert list(table["prediction"].iloc[: len(listed)]) == listed
    matrix = table["count"].to_numpy().reshape(len(listed), len(listed))
    counts = om.confusion(y, p, w, listed)
    assert matrix.tolist() == [[counts[(a, b)] for b in listed] for a in listed]
    if any(c in y for c in listed):  # scikit-learn raises when no listed class is true
        np.testing.assert_allclose(
            matrix, skm.confusion_matrix(y, p, labels=listed, sample_weight=w), rtol=1e-12
        )
        for how in ("true", "pred", "all"):
            fractions = sqlmetrics.multiclass_confusion_matrix(frame, normalize=how, **args)
            np.testing.assert_allclose(
                fractions["fraction"].to_numpy().reshape(len(listed), len(listed)),
                skm.confusion_matrix(y, p, labels=listed, sample_weight=w, normalize=how),
                rtol=1e-12,
            )

    for kw in (None, "linear", "quadratic"):
        got = quiet(sqlmetrics.cohen_kappa, frame, weights=kw, **args)
        assert same(got, oag.cohen_kappa(y, p, w, kw, listed))
        if any(c in y for c in listed):
            expected_k = quiet(
                skm.cohen_kappa_score, y, p, labels=listed, weights=kw, sample_weight=w
            )
            assert same(got, float(expected_k))

    for average in ("macro", "micro", "weighted"):
        got = quiet(sqlmetrics.jaccard, frame, average=average, **args)
        assert same(got, oag.jaccard(y, p, w, average, listed))
        expected_j = quiet(skm.jaccard_score, y, p, labels=listed, average=average, sample_weight=w)
        if not math.isnan(got):
            assert same(got, float(expected_j))

    # row order changes nothing, bit for bit
    shuffled = frame.sample(frac=1.0, random_state=3)
    for fn in (sqlmetrics.cohen_kappa, sqlmetrics.jaccard):
        a, b = quiet(fn, shuffled, **args), quiet(fn, frame, **args)
        assert a == b or (math.isnan(a) and math.isnan(b))


def test_published_example_and_order() -> None:
    # scikit-learn's confusion_matrix docstring: labels=["ant", "bird", "cat"]
    frame = pd.DataFrame(
        {
            "y": ["cat", "ant", "cat", "cat", "ant", "bird"],
            "p": ["ant", "ant", "cat", "cat", "ant", "cat"],
        }
    )
    table = sqlmetrics.multiclass_confusion_matrix(frame, labels=["ant", "bird", "cat"], **KW)
    assert table["count"].tolist() == [2, 0, 0, 0, 0, 1, 1, 0, 2]
    # the order given is the order returned, and the scale of weighted kappa
    reverse = sqlmetrics.multiclass_confusion_matrix(frame, labels=["cat", "bird", "ant"], **KW)
    assert reverse["count"].tolist() == [2, 0, 1, 1, 0, 0, 0, 0, 2]
    for order in (["ant", "bird", "cat"], ["bird", "ant", "cat"]):
        got = sqlmetrics.cohen_kappa(frame, labels=order, weights="linear", **KW)
        assert got == pytest.approx(
            skm.cohen_kappa_score(frame["y"], frame["p"], labels=order, weights="linear"),
            rel=1e-12,
        )


def test_numeric_and_boolean_classes_and_slices() -> None:
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, 500)
    p = np.where(rng.random(500) < 0.5, y, rng.integers(0, 5, 500))
    frame = pd.DataFrame({"y": y, "p": p, "g": rng.choice(["u", "v"], 500)})
    listed = [3, 1, 7]
    assert sqlmetrics.f1(frame, average="macro", labels=listed, **KW) == pytest.approx(
        skm.f1_score(y, p, average="macro", labels=listed, zero_division=np.nan), rel=1e-12
    )
    # 2.0 is the class 2: integral floats are the integers
    assert sqlmetrics.recall(frame, average="micro", labels=[2.0, 1], **KW) == pytest.approx(
        skm.recall_score(y, p, average="micro", labels=[2, 1]), rel=1e-12
    )
    out = sqlmetrics.evaluate(
        frame,
        ["precision_macro", "f1_micro", "cohen_kappa", "jaccard_weighted"],
        by="g",
        labels=listed,
        zero_division=0.0,
        **KW,
    )
    for g, part in frame.groupby("g"):
        row = out[out["g"] == g].iloc[0]
        assert row["precision_macro"] == quiet(
            sqlmetrics.precision, part, average="macro", labels=listed, zero_division=0.0, **KW
        )
        assert row["f1_micro"] == sqlmetrics.f1(part, average="micro", labels=listed, **KW)
        assert row["cohen_kappa"] == sqlmetrics.cohen_kappa(part, labels=listed, **KW)
        assert row["jaccard_weighted"] == sqlmetrics.jaccard(
            part, average="weighted", labels=listed, **KW
        )
    flags = pd.DataFrame({"y": [True, False, True, True], "p": [True, True, False, True]})
    table = sqlmetrics.multiclass_confusion_matrix(flags, labels=[True, False], **KW)
    assert table["count"].tolist() == [2, 1, 1, 0]
    # numpy arrays, as scikit-learn users pass them
    as_array = sqlmetrics.multiclass_confusion_matrix(flags, labels=np.array([True, False]), **KW)
    assert as_array["count"].tolist() == [2, 1, 1, 0]
    assert sqlmetrics.f1(frame, average="macro", labels=np.array(listed), **KW) == (
        sqlmetrics.f1(frame, average="macro", labels=listed, **KW)
    )


def test_micro_over_absent_classes_is_undefined() -> None:
    frame = pd.DataFrame({"y": ["a", "b"], "p": ["a", "a"]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"precision is undefined: the counts summed over the classes of labels=\['e'\] "
        r"are 0/0 \(all never predicted\)",
    ):
        assert math.isnan(sqlmetrics.precision(frame, average="micro", labels=["e"], **KW))
    assert sqlmetrics.precision(frame, average="micro", labels=["e"], zero_division=1.0, **KW) == 1
    assert (
        skm.precision_score(
            frame["y"], frame["p"], average="micro", labels=["e"], zero_division=1.0
        )
        == 1
    )
    report = sqlmetrics.classification_report(frame, labels=["e"], zero_division=0.0, **KW)
    assert report.loc["micro avg", ["precision", "recall", "f1"]].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ([], r"precision: labels= is an empty list; list at least one class, or pass None"),
        (["a", "b", "a"], r"precision: labels= lists class 'a' twice: \['a', 'b', 'a'\]"),
        ([1, 1.0], r"precision: labels= lists class 1 twice"),
        ("ab", r"precision: labels= must be a list of classes \(e.g. \['cat', 'dog'\]\)"),
        (["a", 1], r"precision: labels= mixes kinds of classes \(number, text\)"),
        ([["a"]], r"precision: labels= holds \['a'\]; a class must be a string, a finite number"),
        ([math.nan], r"precision: labels= holds nan; a class must be a string, a finite number"),
        (
            [1, 2],
            r"precision: labels=\[1, 2\] holds number classes but label column 'y' has type "
            r"VARCHAR; list text classes \(e.g. \['a', ...\]\)",
        ),
    ],
)
def test_label_errors(labels: Any, message: str) -> None:
    frame = pd.DataFrame({"y": ["a", "b"], "p": ["a", "a"]})
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.precision(frame, average="macro", labels=labels, **KW)


def test_label_errors_name_each_function() -> None:
    frame = pd.DataFrame({"y": [1, 2], "p": [1, 1], "d": pd.to_datetime(["2024-01-01"] * 2)})
    calls = {
        "cohen_kappa": sqlmetrics.cohen_kappa,
        "jaccard": sqlmetrics.jaccard,
        "classification_report": sqlmetrics.classification_report,
        "multiclass_confusion_matrix": sqlmetrics.multiclass_confusion_matrix,
    }
    for name, fn in calls.items():
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=rf"{name}: labels=\['1'\] holds text classes but label column 'y' has type "
            r"BIGINT; list number classes \(e.g. \[1, ...\]\)",
        ):
            fn(frame, labels=["1"], **KW)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"cohen_kappa: labels= needs a text, numeric or boolean label column; column 'd' "
        r"has type TIMESTAMP(_NS)?: cast it \(e.g. cast\(d as varchar\)\) or pass labels=None",
    ):
        sqlmetrics.cohen_kappa(frame, label="d", prediction="d", labels=["x"])
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"f1: labels=\[1\] selects classes to average; with average='binary' pass "
        r"pos_label= \(the positive class\) instead",
    ):
        sqlmetrics.f1(frame, label="y", prediction="p", labels=[1])


def test_evaluate_checks_the_kind_of_labels() -> None:
    frame = pd.DataFrame({"y": ["a", "b"], "p": ["a", "a"]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"cohen_kappa: labels=\[1\] holds number classes but label column 'y' has type "
        r"VARCHAR; list text classes",
    ):
        sqlmetrics.evaluate(frame, ["cohen_kappa"], labels=[1], **KW)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"evaluate: option labels= is accepted by none of the requested metrics \(auc\)",
    ):
        sqlmetrics.evaluate(frame.assign(label=[0, 1], score=[0.2, 0.4]), ["auc"], labels=[1])


def test_top_k_accuracy_labels_order_the_ties() -> None:
    rng = np.random.default_rng(0)
    n, classes = 200, ["a", "b", "c", "d"]
    scores = rng.integers(0, 3, (n, 4)) / 2.0  # many ties
    y = rng.choice(classes[:3], n)  # "d" is never true
    wide = pd.DataFrame(scores, columns=classes)
    long = wide.reset_index(names="row").melt("row", var_name="cls", value_name="score")
    long["label"] = (long["cls"] == long["row"].map(dict(enumerate(y)))).astype(int)
    args = {"row_id": "row", "class_col": "cls"}
    for order in (classes, ["d", "b", "a", "c"]):
        # scikit-learn takes sorted labels only: rename the classes by their position
        position = {c: i for i, c in enumerate(order)}
        columns = [classes.index(c) for c in order]
        for k in (1, 2, 3):
            got = sqlmetrics.top_k_accuracy(long, k=k, labels=order, **args)
            expected = skm.top_k_accuracy_score(
                [position[c] for c in y], scores[:, columns], k=k, labels=list(range(4))
            )
            assert got == pytest.approx(expected, abs=1e-15)
    assert sqlmetrics.top_k_accuracy(long, k=2, labels=classes, **args) == (
        sqlmetrics.top_k_accuracy(long, k=2, **args)
    )
    out = sqlmetrics.evaluate(
        long, ["top_k_accuracy@2"], group="row", item="cls", labels=["d", "b", "a", "c"]
    )
    assert out["top_k_accuracy@2"].iloc[0] == sqlmetrics.top_k_accuracy(
        long, k=2, labels=["d", "b", "a", "c"], **args
    )
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"top_k_accuracy: column 'cls' \(class_col=\) holds classes not in "
        r"labels=\['a', 'b'\]: 'c', 'd'; list every class of the data",
    ):
        sqlmetrics.top_k_accuracy(long, labels=["a", "b"], **args)
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"top_k_accuracy@2: column 'cls' \(class_col=\) holds classes not in "
        r"labels=\['a', 'c'\]: 'b', 'd'",
    ):
        sqlmetrics.evaluate(long, ["top_k_accuracy@2"], group="row", item="cls", labels=["a", "c"])
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"top_k_accuracy: labels=\[1, 2\] holds number classes but label column 'cls'",
    ):
        sqlmetrics.top_k_accuracy(long, labels=[1, 2], **args)
