"""Binary labels from any source: booleans (CSV yes/no, true/false) and two-valued text with
an explicit ``pos_label=`` (as scikit-learn), or an error naming the values and the fix."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

LABELS = [1, 0, 1, 0, 0, 1, 1, 0]
SCORES = [0.9, 0.2, 0.4, 0.5, 0.1, 0.8, 0.3, 0.35]
USERS = [1, 1, 1, 1, 2, 2, 2, 2]
# every metric with a 0/1 label column (and a scalar output evaluate can compute)
BINARY = sorted(
    name
    for name, spec in REGISTRY.items()
    if any(r.name == "label" and r.kind == "binary" for r in spec.roles)
    and spec.output == "scalar"
    and spec.family not in ("multiclass", "multiclass_scores")
)


def write(tmp_path: Path, name: str, labels: list[object]) -> Path:
    path = tmp_path / name
    pd.DataFrame({"user": USERS, "label": labels, "score": SCORES}).to_csv(path, index=False)
    return path


def reference(metric: str, tmp_path: Path) -> float:
    data = write(tmp_path, "numbers.csv", LABELS)
    return float(sqlmetrics.evaluate(data, [metric], group="user").iloc[0][metric])


def test_every_binary_metric_is_covered() -> None:
    assert {
        "auc",
        "gauc",
        "f1",
        "precision",
        "log_loss",
        "brier_score",
        "average_precision",
    } <= set(BINARY)


@pytest.mark.parametrize("words", [("yes", "no"), ("true", "false"), ("TRUE", "FALSE")])
@pytest.mark.parametrize("metric", BINARY)
def test_boolean_csv_labels(tmp_path: Path, metric: str, words: tuple[str, str]) -> None:
    data = write(tmp_path, "words.csv", [words[0] if v else words[1] for v in LABELS])
    got = sqlmetrics.evaluate(data, [metric], group="user").iloc[0][metric]
    assert got == reference(metric, tmp_path)


def test_boolean_dataframe_labels_in_functions() -> None:
    frame = pd.DataFrame({"label": [bool(v) for v in LABELS], "score": SCORES})
    numbers = frame.assign(label=LABELS)
    assert sqlmetrics.auc(frame) == sqlmetrics.auc(numbers)
    assert sqlmetrics.average_precision(frame) == sqlmetrics.average_precision(numbers)


@pytest.mark.parametrize("metric", BINARY)
def test_text_labels_with_pos_label(tmp_path: Path, metric: str) -> None:
    data = write(tmp_path, "text.csv", ["spam" if v else "ham" for v in LABELS])
    got = sqlmetrics.evaluate(data, [metric], group="user", pos_label="spam").iloc[0][metric]
    assert got == reference(metric, tmp_path)


def test_numeric_labels_with_pos_label(tmp_path: Path) -> None:
    data = write(tmp_path, "two.csv", [2 if v else 1 for v in LABELS])
    assert sqlmetrics.evaluate(data, ["auc"], pos_label=2).iloc[0]["auc"] == reference(
        "auc", tmp_path
    )


def test_pos_label_in_functions(tmp_path: Path) -> None:
    data = write(tmp_path, "text.csv", ["spam" if v else "ham" for v in LABELS])
    assert sqlmetrics.auc(data, pos_label="spam") == reference("auc", tmp_path)
    assert sqlmetrics.f1(data, pos_label="spam") == reference("f1", tmp_path)
    assert sqlmetrics.gauc(data, group="user", pos_label="spam") == reference("gauc", tmp_path)


def test_text_labels_without_pos_label(tmp_path: Path) -> None:
    data = write(tmp_path, "text.csv", ["spam" if v else "ham" for v in LABELS])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"evaluate: label column 'label' \(label=\) has type VARCHAR with "
        r"values 'ham', 'spam'; name the positive class with "
        r"pos_label=, e.g. pos_label='spam'",
    ):
        sqlmetrics.evaluate(data, ["auc"])


def test_pos_label_with_more_than_two_values(tmp_path: Path) -> None:
    data = write(tmp_path, "three.csv", ["a", "b", "c", "a", "b", "c", "a", "b"])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"evaluate: label column 'label' \(label=\) has 3 distinct values "
        r"\('a', 'b', 'c'\); pos_label= needs a binary label",
    ):
        sqlmetrics.evaluate(data, ["auc"], pos_label="a")


def test_pos_label_not_among_the_values(tmp_path: Path) -> None:
    data = write(tmp_path, "text.csv", ["spam" if v else "ham" for v in LABELS])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"evaluate: pos_label='Spam' is not a value of label column 'label' "
        r"\(values: 'ham', 'spam'\)",
    ):
        sqlmetrics.evaluate(data, ["auc"], pos_label="Spam")


@pytest.mark.parametrize("value", [math.inf, [1], math.nan])
def test_pos_label_bad_value(value: object) -> None:
    frame = pd.DataFrame({"label": LABELS, "score": SCORES})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"auc: pos_label= must be a string, a finite number or "
        r"a boolean",
    ):
        sqlmetrics.evaluate(frame, ["auc"], pos_label=value)
