"""Deliberately naive references for balanced accuracy, Cohen's kappa, Jaccard and Hamming
loss: a dense confusion matrix built by a loop over the rows, the formulas read off it
(the SQL sums per-class contributions and pairs of classes). Pinned to scikit-learn's
docstring examples in tests/test_agreement.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

NAN = float("nan")


def _matrix(
    labels: Sequence[Any],
    predicted: Sequence[Any],
    weights: Sequence[float] | None,
    listed: Sequence[Any] | None = None,
) -> tuple[list[Any], list[list[float]]]:
    classes = sorted(set(labels) | set(predicted) | set(listed or []))
    index = {c: i for i, c in enumerate(classes)}
    w = list(weights) if weights is not None else [1.0] * len(labels)
    m = [[0.0] * len(classes) for _ in classes]
    for y, p, wi in zip(labels, predicted, w):
        m[index[y]][index[p]] += float(wi)
    return classes, m


def _pick(classes: list[Any], listed: Sequence[Any]) -> list[int]:
    """The positions of the ``listed`` classes (scikit-learn's labels=), in their order."""
    return [classes.index(c) for c in listed]


def hamming_loss(
    labels: Sequence[Any], predicted: Sequence[Any], weights: Sequence[float] | None = None
) -> float:
    w = list(weights) if weights is not None else [1.0] * len(labels)
    total = sum(w)
    miss = sum(wi for y, p, wi in zip(labels, predicted, w) if y != p)
    return miss / total if total else NAN


def balanced_accuracy(
    labels: Sequence[Any],
    predicted: Sequence[Any],
    weights: Sequence[float] | None = None,
    adjusted: bool = False,
) -> float:
    _, m = _matrix(labels, predicted, weights)
    recalls = [row[i] / sum(row) for i, row in enumerate(m) if sum(row) > 0]
    if not recalls:
        return NAN
    score = sum(recalls) / len(recalls)
    if adjusted:
        if len(recalls) == 1:
            return NAN
        chance = 1 / len(recalls)
        score = (score - chance) / (1 - chance)
    return score


def cohen_kappa(
    labels: Sequence[Any],
    predicted: Sequence[Any],
    weights: Sequence[float] | None = None,
    kappa_weights: str | None = None,
    listed: Sequence[Any] | None = None,
) -> float:
    classes, m = _matrix(labels, predicted, weights, listed)
    if listed is not None:  # the listed rows and columns only, in their order
        idx = _pick(classes, listed)
        m = [[m[i][j] for j in idx] for i in idx]
    k = len(m)
    rows = [sum(r) for r in m]
    cols = [sum(m[i][j] for i in range(k)) for j in range(k)]
    s = sum(rows)

    def v(i: int, j: int) -> float:
        if kappa_weights == "linear":
            return abs(i - j)
        if kappa_weights == "quadratic":
            return (i - j) ** 2
        return 0.0 if i == j else 1.0

    observed = sum(v(i, j) * m[i][j] for i in range(k) for j in range(k))
    expected = sum(v(i, j) * rows[i] * cols[j] / s for i in range(k) for j in range(k)) if s else 0
    return 1 - observed / expected if expected else NAN


def jaccard(
    labels: Sequence[Any],
    predicted: Sequence[Any],
    weights: Sequence[float] | None = None,
    average: str = "macro",
    listed: Sequence[Any] | None = None,
) -> float:
    classes, m = _matrix(labels, predicted, weights, listed)
    k = len(m)
    tp = [m[i][i] for i in range(k)]
    n_true = [sum(m[i]) for i in range(k)]
    n_pred = [sum(m[i][j] for i in range(k)) for j in range(k)]
    if listed is not None:  # counts from every row, then the listed classes only
        idx = _pick(classes, listed)
        tp, n_true, n_pred = ([v[i] for i in idx] for v in (tp, n_true, n_pred))
        k = len(idx)
    union = [n_true[i] + n_pred[i] - tp[i] for i in range(k)]
    if average == "micro":
        return sum(tp) / sum(union) if sum(union) else NAN
    if not any(union):
        return NAN
    values = [tp[i] / union[i] if union[i] else 0.0 for i in range(k)]  # zero_division=0
    if average == "macro":
        return sum(values) / k
    return sum(n * v for n, v in zip(n_true, values)) / sum(n_true) if sum(n_true) else NAN
