"""The oracle itself, pinned to published numbers (scikit-learn documentation and tests)."""

from __future__ import annotations

import math

from oracle import classification as oc


def test_auc_published_vectors() -> None:
    # roc_auc_score docstring / user guide
    assert oc.auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    assert math.isclose(
        oc.auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [1, 2, 3, 4]), 0.7142857142857143
    )
    assert math.isclose(
        oc.auc([1, 0, 0, 1, 1, 0], [0.5, 0.5, 0.2, 0.9, 0.2, 0.1]), 0.7777777777777778
    )
    assert math.isnan(oc.auc([1, 1], [0.2, 0.3]))


def test_gauc_by_hand() -> None:
    # user 1: AUC 1 (3 rows), user 2: AUC 0.5 (3 rows), user 3 all negative: left out
    groups = [1, 1, 1, 2, 2, 2, 3]
    labels = [1, 0, 0, 0, 1, 1, 0]
    scores = [0.9, 0.3, 0.5, 0.4, 0.2, 0.8, 0.1]
    assert oc.gauc(groups, labels, scores) == 0.75
    assert oc.gauc(groups, labels, scores, "positives") == (1 * 1 + 2 * 0.5) / 3
    assert oc.gauc(groups, labels, scores, "uniform") == 0.75
    assert math.isnan(oc.gauc([1, 1], [0, 0], [0.1, 0.2]))


def test_threshold_published_vectors() -> None:
    # scikit-learn precision_recall_fscore_support docstring, binary case
    y_true = [0, 1, 1, 0, 1, 1]
    y_pred = [0, 0, 1, 1, 1, 1]
    assert oc.threshold_metric("precision", y_true, y_pred) == 0.75
    assert oc.threshold_metric("recall", y_true, y_pred) == 0.75
    assert oc.threshold_metric("f1", y_true, y_pred) == 0.75
    # fbeta_score docstring (average="binary" on this vector): beta=0.5
    assert math.isclose(
        oc.threshold_metric("fbeta", [0, 1, 1, 0], [0, 1, 0, 0], beta=0.5), 0.8333333333333334
    )
    assert oc.threshold_metric("accuracy", [0, 1, 2, 3], [0, 2, 1, 3]) == 0.5
    assert math.isnan(oc.threshold_metric("precision", [1, 0], [0, 0]))
