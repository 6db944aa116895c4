"""confusion_matrix(normalize=) of a binary classifier equals scikit-learn's
confusion_matrix(normalize=), with weights, tied scores and empty rows or columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

import sqlmetrics
from sqlmetrics.errors import InvalidParameterError


def _sklearn(frame: pd.DataFrame, threshold: float, how: str, weight: str | None) -> dict:
    predicted = (frame["score"] >= threshold).astype(int)
    sample_weight = frame[weight] if weight else None
    tn, fp, fn, tp = sk_confusion_matrix(
        frame["label"], predicted, labels=[0, 1], sample_weight=sample_weight, normalize=how
    ).ravel()
    return {"tp": tp, "fp": fp, "tn": tn, "fn": fn}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("how", ["true", "pred", "all"])
@pytest.mark.parametrize("weight", [None, "w"])
def test_equals_sklearn(seed: int, how: str, weight: str | None) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "score": np.round(rng.random(n), 1),  # tied scores, some at the threshold
            "w": rng.random(n) + 0.1,
        }
    )
    threshold = float(rng.choice([0.0, 0.3, 0.5, 1.1]))  # 1.1: no predicted positive
    got = sqlmetrics.confusion_matrix(frame, threshold=threshold, weight=weight, normalize=how)
    expected = _sklearn(frame, threshold, how, weight)
    assert got.keys() == expected.keys()
    for key in got:
        assert got[key] == pytest.approx(expected[key], abs=1e-12), (key, got, expected)


def test_a_missing_class_gives_zero_as_sklearn() -> None:
    frame = pd.DataFrame({"label": [1, 1, 1], "score": [0.9, 0.2, 0.7]})
    got = sqlmetrics.confusion_matrix(frame, normalize="true")
    assert got == {"tp": 2 / 3, "fp": 0.0, "tn": 0.0, "fn": 1 / 3}
    assert got == pytest.approx(_sklearn(frame, 0.5, "true", None))


def test_none_gives_counts_and_rows_sum_to_one() -> None:
    frame = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.6, 0.35, 0.8, 0.5, 0.5]})
    assert sqlmetrics.confusion_matrix(frame) == {"tp": 2, "fp": 2, "tn": 1, "fn": 1}
    true = sqlmetrics.confusion_matrix(frame, normalize="true")
    assert true["tp"] + true["fn"] == pytest.approx(1) and true["tn"] + true["fp"] == 1
    share = sqlmetrics.confusion_matrix(frame, normalize="all")
    assert sum(share.values()) == pytest.approx(1)


def test_unknown_normalize_names_the_choices() -> None:
    frame = pd.DataFrame({"label": [0, 1], "score": [0.2, 0.8]})
    with pytest.raises(
        InvalidParameterError,
        match=r"confusion_matrix: normalize= must be one of 'true', 'pred', 'all'; got 'rows'"
        r".*\(or None for counts\)",
    ):
        sqlmetrics.confusion_matrix(frame, normalize="rows")
