"""scikit-learn's shapes (issue 28, item 7): the square confusion matrix and the report's
"accuracy" row, checked against scikit-learn itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import sqlmetrics
from sqlmetrics.errors import InvalidParameterError

FRAME = pd.DataFrame(
    {
        "y": ["cat", "dog", "pig", "cat", "dog", "pig", "cow", "cat"],
        "p": ["cat", "pig", "dog", "cat", "cat", "dog", "cat", "cow"],
        "w": [1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0, 0.25],
    }
)
KW = {"label": "y", "prediction": "p"}


@pytest.mark.parametrize("labels", [None, ["pig", "cat", "horse"]])
@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
@pytest.mark.parametrize("weighted", [False, True])
def test_as_matrix_is_sklearns_confusion_matrix(
    labels: list[str] | None, normalize: str | None, weighted: bool
) -> None:
    w = FRAME["w"] if weighted else None
    got = sqlmetrics.multiclass_confusion_matrix(
        FRAME,
        **KW,
        weight="w" if weighted else None,
        normalize=normalize,
        labels=labels,
        as_matrix=True,
    )
    classes = labels or sorted(set(FRAME["y"]) | set(FRAME["p"]))
    assert got.index.tolist() == classes and got.columns.tolist() == classes
    assert (got.index.name, got.columns.name) == ("label", "prediction")
    with np.errstate(all="ignore"):
        expected = skm.confusion_matrix(
            FRAME["y"], FRAME["p"], labels=classes, sample_weight=w, normalize=normalize
        )
    np.testing.assert_allclose(got.to_numpy(dtype=float), expected, rtol=1e-15, atol=0)
    if normalize is None and not weighted:
        assert got.to_numpy().dtype == np.int64


def test_as_matrix_must_be_a_bool() -> None:
    with pytest.raises(InvalidParameterError, match=r"as_matrix= must be True or False; got 'yes'"):
        sqlmetrics.multiclass_confusion_matrix(FRAME, **KW, as_matrix="yes")  # type: ignore[arg-type]


def test_report_names_the_accuracy_row_as_sklearn_does() -> None:
    report = sqlmetrics.classification_report(FRAME, **KW, zero_division=0.0)
    expected = skm.classification_report(
        FRAME["y"], FRAME["p"], zero_division=0.0, output_dict=True
    )
    assert [k for k in report.index if not isinstance(k, str) or " " in k or k == "accuracy"][
        -3:
    ] == ["accuracy", "macro avg", "weighted avg"]
    assert "accuracy" in expected and "micro avg" not in expected
    assert report.loc["accuracy", "f1"] == pytest.approx(expected["accuracy"], rel=1e-15)
    listed = sqlmetrics.classification_report(FRAME, **KW, labels=["cat", "dog"], zero_division=0.0)
    assert "micro avg" in listed.index and "accuracy" not in listed.index
