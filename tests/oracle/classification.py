"""Deliberately naive reference implementations of the classification metrics.

A different algorithm from the SQL on purpose: AUC by counting every positive/negative pair
(the SQL uses rank sums), confusion counts by a loop. Slow, obvious, and pinned to published
numbers in tests/test_oracle.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NAN = float("nan")


def auc(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    """P(score of a random positive > score of a random negative), ties counting 1/2."""
    w = list(weights) if weights is not None else [1.0] * len(labels)
    num = 0.0
    den = 0.0
    for i, (yi, si) in enumerate(zip(labels, scores)):
        if yi != 1:
            continue
        for j, (yj, sj) in enumerate(zip(labels, scores)):
            if yj != 0:
                continue
            pair = w[i] * w[j]
            den += pair
            if si > sj:
                num += pair
            elif si == sj:
                num += pair / 2
    return num / den if den > 0 else NAN


def gauc(
    groups: Sequence[object],
    labels: Sequence[int],
    scores: Sequence[float],
    weighting: str = "samples",
) -> float:
    """Weighted mean of per-group AUCs over groups that have both classes."""
    members: dict[object, list[int]] = {}
    for idx, g in enumerate(groups):
        members.setdefault(g, []).append(idx)
    num = 0.0
    den = 0.0
    for idx in members.values():
        ys = [labels[i] for i in idx]
        n_pos = sum(ys)
        if n_pos == 0 or n_pos == len(ys):
            continue
        v = {"samples": len(ys), "positives": n_pos, "uniform": 1}[weighting]
        num += v * auc(ys, [scores[i] for i in idx])
        den += v
    return num / den if den > 0 else NAN


def confusion(
    labels: Sequence[int], predicted: Sequence[int], weights: Sequence[float] | None = None
) -> dict[str, float]:
    out = {"tp": 0.0, "fp": 0.0, "tn": 0.0, "fn": 0.0}
    w = list(weights) if weights is not None else [1.0] * len(labels)
    for y, p, wi in zip(labels, predicted, w):
        key = ("t" if y == p else "f") + ("p" if p == 1 else "n")
        out[key] += wi
    return out


def _ratio(num: float, den: float) -> float:
    return num / den if den != 0 else NAN


def threshold_metric(
    name: str,
    labels: Sequence[int],
    predicted: Sequence[int],
    weights: Sequence[float] | None = None,
    beta: float = 1.0,
) -> float:
    c = confusion(labels, predicted, weights)
    tp, fp, tn, fn = c["tp"], c["fp"], c["tn"], c["fn"]
    if name == "accuracy":
        return _ratio(tp + tn, tp + fp + tn + fn)
    if name == "precision":
        return _ratio(tp, tp + fp)
    if name == "recall":
        return _ratio(tp, tp + fn)
    if name == "specificity":
        return _ratio(tn, tn + fp)
    if name == "fpr":
        return _ratio(fp, fp + tn)
    if name == "f1":
        return threshold_metric("fbeta", labels, predicted, weights, 1.0)
    if name == "fbeta":
        # harmonic form, on purpose not the SQL's closed form
        p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        if tp + fp + fn == 0:
            return NAN
        if tp == 0:
            return 0.0
        return (1 + beta**2) * p * r / (beta**2 * p + r)
    raise KeyError(name)


def is_close(a: float, b: float, tol: float = 1e-9) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
