"""Deliberately naive references for the multiclass metrics.

Different algorithms from the SQL on purpose: per-class counts come from the full K x K
confusion matrix (row and column sums; the SQL adds up one contribution per row and role);
F-beta is the harmonic form (1 + b^2) P R / (b^2 P + R) (the SQL uses the closed count form);
MCC is the correlation of the one-hot encodings of label and prediction, from their
covariances (the SQL uses Gorodkin's count formula). Pinned to published numbers in
tests/test_multiclass.py.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

NAN = float("nan")


def classes(labels: Sequence[Hashable], preds: Sequence[Hashable]) -> list[Hashable]:
    return sorted(set(labels) | set(preds))  # type: ignore[type-var]


def confusion(
    labels: Sequence[Hashable],
    preds: Sequence[Hashable],
    weights: Sequence[float] | None = None,
    listed: Sequence[Hashable] | None = None,
) -> dict[tuple[Hashable, Hashable], float]:
    """Every (label, prediction) pair of classes, zeros included; with ``listed``
    (scikit-learn's labels=) the pairs of listed classes, in their order, other rows skipped.
    """
    ks = classes(labels, preds) if listed is None else list(listed)
    w = list(weights) if weights is not None else [1.0] * len(labels)
    matrix = {(a, b): 0.0 for a in ks for b in ks}
    for y, p, wi in zip(labels, preds, w):
        if (y, p) in matrix:
            matrix[(y, p)] += wi
    return matrix


def per_class(
    labels: Sequence[Hashable],
    preds: Sequence[Hashable],
    weights: Sequence[float] | None = None,
    beta: float = 1.0,
    listed: Sequence[Hashable] | None = None,
) -> dict[Hashable, dict[str, float]]:
    """Per-class counts and values; with ``listed`` the listed classes, in their order, their
    counts still read off every row (the full matrix over the data's and the listed classes).
    """
    everything = sorted(set(classes(labels, preds)) | set(listed or []))  # type: ignore[type-var]
    ks = everything if listed is None else list(listed)
    m = confusion(labels, preds, weights, everything)
    out = {}
    for k in ks:
        tp = m[(k, k)]
        n_true = sum(m[(k, b)] for b in everything)
        n_pred = sum(m[(a, k)] for a in everything)
        p = tp / n_pred if n_pred else NAN
        r = tp / n_true if n_true else NAN
        if n_true + n_pred == 0:  # a listed class absent from the data (labels=): 0/0
            f = NAN
        elif tp == 0:
            f = 0.0
        else:  # harmonic form
            f = (1 + beta**2) * p * r / (beta**2 * p + r)
        out[k] = {
            "precision": p,
            "recall": r,
            "fbeta": f,
            "support": n_true,
            "tp": tp,
            "n_pred": n_pred,
        }
    return out


def averaged(
    metric: str,
    average: str,
    labels: Sequence[Hashable],
    preds: Sequence[Hashable],
    weights: Sequence[float] | None = None,
    beta: float = 1.0,
    zero_division: float = NAN,
    listed: Sequence[Hashable] | None = None,
) -> float:
    """metric: precision | recall | fbeta; NaN class values are left out unless replaced."""
    rows = per_class(labels, preds, weights, beta, listed)
    if average == "micro":
        tp = sum(r["tp"] for r in rows.values())
        n_pred = sum(r["n_pred"] for r in rows.values())
        n_true = sum(r["support"] for r in rows.values())
        if (metric == "precision" and n_pred == 0) or (metric == "recall" and n_true == 0):
            return zero_division
        if metric == "fbeta" and n_pred + n_true == 0:
            return zero_division
        p = tp / n_pred if n_pred else 0.0
        rec = tp / n_true if n_true else 0.0
        return {
            "precision": p,
            "recall": rec,
            "fbeta": 0.0 if tp == 0 else (1 + beta**2) * p * rec / (beta**2 * p + rec),
        }[metric]
    values = []
    for r in rows.values():
        v = r[metric]
        if math.isnan(v):
            v = zero_division
        if not math.isnan(v):
            values.append((v, r["support"]))
    if not values:
        return NAN
    if average == "macro":
        return sum(v for v, _ in values) / len(values)
    total = sum(s for _, s in values)
    if total == 0:
        return sum(v for v, _ in values) / len(values)
    return sum(v * s for v, s in values) / total


def mcc(
    labels: Sequence[Hashable], preds: Sequence[Hashable], weights: Sequence[float] | None = None
) -> float:
    """Correlation of the one-hot encodings: sum_k cov(x_k, y_k) / sqrt(var(x) var(y))."""
    ks = classes(labels, preds)
    w = list(weights) if weights is not None else [1.0] * len(labels)
    total = sum(w)
    x = [[1.0 if y == k else 0.0 for k in ks] for y in labels]
    y_ = [[1.0 if p == k else 0.0 for k in ks] for p in preds]

    def cov(a: list[list[float]], b: list[list[float]]) -> float:
        acc = 0.0
        for j in range(len(ks)):
            ma = sum(wi * row[j] for wi, row in zip(w, a)) / total
            mb = sum(wi * row[j] for wi, row in zip(w, b)) / total
            acc += sum(wi * (ra[j] - ma) * (rb[j] - mb) for wi, ra, rb in zip(w, a, b))
        return acc

    den = cov(x, x) * cov(y_, y_)
    return cov(x, y_) / math.sqrt(den) if den > 1e-12 else NAN
