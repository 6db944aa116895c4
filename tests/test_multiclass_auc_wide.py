"""multiclass_auc from wide score columns (scikit-learn's y_score matrix): SQL == the long
form == oracle == scikit-learn, with tied scores; every error message."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import multiclass_auc as omc
from sklearn import metrics as skm

import sqlmetrics

CLASSES = ["a", "b", "c"]
SCORES = ["p_a", "p_b", "p_c"]
AVERAGES = [
    ("ovr", "macro"),
    ("ovr", "weighted"),
    ("ovr", "micro"),
    ("ovo", "macro"),
    ("ovo", "weighted"),
]


def wide_frame(p: np.ndarray, y: list[Any]) -> pd.DataFrame:
    frame = pd.DataFrame(p, columns=SCORES[: p.shape[1]])
    frame["y"] = y
    return frame


def long_form(frame: pd.DataFrame, classes: list[Any]) -> pd.DataFrame:
    rows = [
        (r, c, float(frame[col].iloc[r]), int(frame["y"].iloc[r] == c))
        for r in range(len(frame))
        for c, col in zip(classes, SCORES)
    ]
    return pd.DataFrame(rows, columns=["row", "cls", "score", "label"])


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_equals_scikit_learn_on_probabilities(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    y = list(rng.choice(CLASSES, n))
    raw = rng.integers(1, 6, (n, 3)).astype(float)
    p = raw / raw.sum(1, keepdims=True)  # rows sum to 1 (scikit-learn requires it), ties
    frame = wide_frame(p, y)
    for multi_class, average in AVERAGES:
        expected = skm.roc_auc_score(y, p, multi_class=multi_class, average=average, labels=CLASSES)
        for scores, labels in (
            (SCORES, CLASSES),
            (SCORES, None),  # the classes read from the label column, sorted
            (dict(zip(CLASSES, SCORES)), None),
            ({"c": "p_c", "a": "p_a", "b": "p_b"}, None),  # any order: the mapping pairs them
        ):
            got = sqlmetrics.multiclass_auc(
                frame,
                label="y",
                scores=scores,
                labels=labels,
                multi_class=multi_class,
                average=average,
            )
            assert got == pytest.approx(expected, rel=1e-12), (multi_class, average, scores)


@given(
    st.integers(2, 30), st.randoms(use_true_random=False), st.sampled_from(["int", "str", "bool"])
)
def test_equals_long_form_and_oracle_with_ties(n: int, rnd: Any, kind: str) -> None:
    classes: list[Any] = {"int": [3, 1, 2], "str": CLASSES, "bool": [False, True]}[kind]
    k = len(classes)
    y = [rnd.choice(classes) for _ in range(n)]
    p = np.array([[rnd.choice([0.0, 0.5, 1.0]) for _ in range(k)] for _ in range(n)])
    frame = wide_frame(p, y)
    long = long_form(frame, classes)
    rows = list(long.itertuples(index=False, name=None))
    for multi_class, average in AVERAGES:
        kw = {"multi_class": multi_class, "average": average}
        got = quiet(
            sqlmetrics.multiclass_auc, frame, label="y", scores=SCORES[:k], labels=classes, **kw
        )
        assert same(
            got, quiet(sqlmetrics.multiclass_auc, long, row_id="row", class_col="cls", **kw)
        )
        assert same(got, omc.multiclass_auc(rows, **kw))
        shuffled = frame.sample(frac=1.0, random_state=1)
        again = quiet(
            sqlmetrics.multiclass_auc, shuffled, label="y", scores=SCORES[:k], labels=classes, **kw
        )
        assert again == got or (math.isnan(again) and math.isnan(got))  # bit-identical


def test_a_listed_class_never_true_is_undefined() -> None:
    frame = wide_frame(
        np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.5, 0.2, 0.3]]), ["a", "b", "a"]
    )
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"multiclass_auc is undefined: a class, pair or row of the average without",
    ):
        got = sqlmetrics.multiclass_auc(frame, label="y", scores=SCORES, labels=CLASSES)
    assert math.isnan(got)
    expected = quiet(
        skm.roc_auc_score, frame["y"], frame[SCORES], multi_class="ovr", labels=CLASSES
    )
    assert math.isnan(expected)  # scikit-learn: NaN too, with its own warning


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"scores": "p_a"},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: scores= must be a list of score columns, one per class",
        ),
        (
            {"scores": ["p_a"]},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: scores= names one column \('p_a'\); a multiclass AUC needs a score "
            r"column per class, at least two \(for one class use sqlmetrics.auc\)",
        ),
        (
            {"scores": ["p_a", "p_a", "p_c"]},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: scores= names column 'p_a' twice",
        ),
        (
            {"scores": SCORES, "labels": ["a", "b"]},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: labels= lists 2 classes but scores= names 3 columns",
        ),
        (
            {"scores": SCORES, "labels": ["a", "b", "a"]},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: labels= lists class 'a' twice",
        ),
        (
            {"scores": SCORES, "labels": [1, 2, 3]},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: labels=\[1, 2, 3\] holds number classes but label column 'y' has "
            r"type VARCHAR",
        ),
        (
            {"scores": dict(zip(CLASSES, SCORES)), "labels": CLASSES},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: scores= is a mapping \(class -> column\) and labels=",
        ),
        (
            {"scores": SCORES, "row_id": "r"},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: scores=\[.*\] \(wide: a score column per class\) and "
            r"row_id=/class_col= \(long: a row per class\) both given",
        ),
        (
            {"labels": CLASSES, "row_id": "r", "class_col": "c"},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: labels=\['a', 'b', 'c'\] names the classes of the score columns",
        ),
        (
            {},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: give the scores as scores= \(a column per class",
        ),
        (
            {"scores": SCORES, "average": "samples"},
            sqlmetrics.InvalidParameterError,
            r"multiclass_auc: average='samples' averages over the rows of multilabel data",
        ),
        (
            {"scores": SCORES, "labels": ["a", "b", "d"]},
            sqlmetrics.InvalidDataError,
            r"multiclass_auc: label column 'y' holds classes without a score column: 'c'",
        ),
        (
            {"scores": ["p_a", "p_b"]},
            sqlmetrics.InvalidDataError,
            r"multiclass_auc: label column 'y' holds 3 classes \('a', 'b', 'c'\) but scores= "
            r"names 2 columns; pass labels=",
        ),
        (
            {"scores": ["p_a", "p_b", "nope"]},
            sqlmetrics.ColumnNotFoundError,
            r"multiclass_auc: column 'nope' \(score=\) not found",
        ),
    ],
)
def test_errors(kwargs: dict[str, Any], error: type, message: str) -> None:
    frame = wide_frame(np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]), CLASSES)
    with pytest.raises(error, match=message):
        sqlmetrics.multiclass_auc(frame, label="y", **kwargs)


def test_nan_score_is_refused() -> None:
    frame = wide_frame(np.array([[0.6, math.nan, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]), CLASSES)
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"multiclass_auc: .*'p_b'"):
        sqlmetrics.multiclass_auc(frame, label="y", scores=SCORES)


def test_evaluate_and_cli_take_wide_scores(tmp_path: Any) -> None:
    import json

    from click.testing import CliRunner

    from sqlmetrics import cli

    rng = np.random.default_rng(3)
    n = 240
    raw = rng.integers(1, 5, (n, 3)).astype(float)
    frame = wide_frame(raw / raw.sum(1, keepdims=True), list(rng.choice(CLASSES, n)))
    frame["g"] = rng.choice(["u", "v", None], n)
    kw = {"multi_class": "ovo", "auc_average": "weighted"}
    out = sqlmetrics.evaluate(frame, ["multiclass_auc"], label="y", scores=SCORES, by="g", **kw)
    assert list(out.columns) == ["g", "multiclass_auc", "n_rows"]
    assert out["g"].tolist()[:2] == ["u", "v"] and pd.isna(out["g"].iloc[2])
    for _, row in out.iterrows():
        part = frame[frame["g"].isna()] if pd.isna(row["g"]) else frame[frame["g"] == row["g"]]
        assert row["n_rows"] == len(part)
        assert row["multiclass_auc"] == sqlmetrics.multiclass_auc(
            part, label="y", scores=SCORES, multi_class="ovo", average="weighted"
        )
    mapping = dict(zip(CLASSES, SCORES))
    whole = sqlmetrics.evaluate(frame, "roc_auc_multiclass", label="y", scores=mapping)
    assert whole["roc_auc_multiclass"].iloc[0] == sqlmetrics.multiclass_auc(
        frame, label="y", scores=SCORES
    )
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    args = ["eval", str(path), "-m", "multiclass_auc", "--label", "y", "--format", "json"]
    pairs = [arg for c, col in mapping.items() for arg in ("--class-score", f"{c}={col}")]
    result = CliRunner().invoke(cli.main, [*args, *pairs, "--option", "multi_class=ovo"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    expected = sqlmetrics.multiclass_auc(frame, label="y", scores=mapping, multi_class="ovo")
    assert got[0]["multiclass_auc"] == pytest.approx(expected, rel=1e-12)
    bad = CliRunner().invoke(cli.main, [*args, "--class-score", "a"])
    assert bad.exit_code != 0
    assert "--class-score 'a': write CLASS=COLUMN, e.g. --class-score cat=p_cat" in bad.output
    twice = CliRunner().invoke(cli.main, [*args, *pairs, "--class-score", "a=p_b"])
    assert "--class-score: class 'a' is given twice" in twice.output


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"metrics": ["multiclass_auc", "auc"]},
            r"evaluate: scores= \(a score column per class\) feeds multiclass_auc and "
            r"top_k_accuracy only; got metrics=\['multiclass_auc', 'auc'\]",
        ),
        (
            {"metrics": ["multiclass_auc"], "group": "g"},
            r"evaluate: scores= \(wide class scores\) with group=: the wide form reads label=",
        ),
        (
            {"metrics": ["multiclass_auc"], "gain": "linear"},
            r"evaluate: option gain= is accepted by none of the requested metrics "
            r"\(multiclass_auc\); options it accepts: multi_class, auc_average, labels",
        ),
    ],
)
def test_evaluate_wide_errors(kwargs: dict[str, Any], message: str) -> None:
    frame = wide_frame(np.array([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]), CLASSES)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.evaluate(frame, label="y", scores=SCORES, **kwargs)
