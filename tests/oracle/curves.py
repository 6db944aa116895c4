"""Deliberately naive references for the score curves, average precision and the losses.

Different algorithms from the SQL on purpose: every point of a curve is counted by a full
loop over the rows (the SQL uses one sort and running sums); average precision is the mean
over the positive rows of the precision at their own score (the SQL sums recall steps per
distinct score); max_points is chosen by exact cross-multiplication per quantile (the SQL
buckets by ceil of a division). Slow, obvious, and pinned to published numbers in
tests/test_curves.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NAN = float("nan")
INF = float("inf")


def _rows(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None
) -> list[tuple[int, float, float]]:
    w = list(weights) if weights is not None else [1.0] * len(labels)
    return [(int(y), float(s), float(wi)) for y, s, wi in zip(labels, scores, w) if wi != 0]


def _counts_at(rows: list[tuple[int, float, float]], t: float) -> tuple[float, float]:
    tp = fp = 0.0
    for y, s, w in rows:
        if s >= t:
            if y == 1:
                tp += w
            else:
                fp += w
    return tp, fp


def points(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None = None
) -> list[tuple[float, float, float]]:
    """(threshold, tp, fp) for every distinct score, descending."""
    rows = _rows(labels, scores, weights)
    return [(t, *_counts_at(rows, t)) for t in sorted({s for _, s, _ in rows}, reverse=True)]


def drop_roc(pts: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """Keep the ends, and a point where the step in differs from the step out (in tp or fp)."""
    out = []
    for i, p in enumerate(pts):
        if i in (0, len(pts) - 1):
            out.append(p)
            continue
        step_in = (p[1] - pts[i - 1][1], p[2] - pts[i - 1][2])
        step_out = (pts[i + 1][1] - p[1], pts[i + 1][2] - p[2])
        if step_in != step_out:
            out.append(p)
    return out


def drop_pr(pts: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """Keep the ends, and a point whose tp differs from a neighbour's."""
    return [
        p
        for i, p in enumerate(pts)
        if i in (0, len(pts) - 1) or not (pts[i - 1][1] == p[1] == pts[i + 1][1])
    ]


def thin(
    pts: list[tuple[float, float, float]], max_points: int
) -> list[tuple[float, float, float]]:
    """For k = 1..slots: the point with the largest share c/n <= k/slots, if above (k-1)/slots."""
    slots = max_points - 1
    n = pts[-1][1] + pts[-1][2]
    keep = []
    for k in range(1, slots + 1):
        inside = [p for p in pts if (p[1] + p[2]) * slots <= k * n]
        if inside and (inside[-1][1] + inside[-1][2]) * slots > (k - 1) * n:
            keep.append(inside[-1])
    return keep


def roc_curve(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    drop_intermediate: bool = True,
    max_points: int | None = None,
) -> list[dict[str, float]]:
    pts = points(labels, scores, weights)
    n_pos, n_neg = pts[-1][1], pts[-1][2]
    if drop_intermediate:
        pts = drop_roc(pts)
    if max_points is not None:
        pts = thin(pts, max_points)
    return [
        {
            "threshold": t,
            "fpr": fp / n_neg if n_neg else NAN,
            "tpr": tp / n_pos if n_pos else NAN,
            "tp": tp,
            "fp": fp,
            "tn": n_neg - fp,
            "fn": n_pos - tp,
        }
        for t, tp, fp in [(INF, 0.0, 0.0), *pts]
    ]


def pr_curve(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    drop_intermediate: bool = False,
    max_points: int | None = None,
) -> list[dict[str, float]]:
    pts = points(labels, scores, weights)
    n_pos = pts[-1][1]
    if drop_intermediate:
        pts = drop_pr(pts)
    if max_points is not None:
        pts = thin(pts, max_points)
    out = [
        {
            "threshold": t,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / n_pos if n_pos else NAN,
            "tp": tp,
            "fp": fp,
            "fn": n_pos - tp,
        }
        for t, tp, fp in [*pts, (INF, 0.0, 0.0)]
    ]
    return sorted(out, key=lambda r: r["threshold"])


def average_precision(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    """Mean over the (weighted) positives of the precision at their own score."""
    rows = _rows(labels, scores, weights)
    total = sum(w for y, _, w in rows if y == 1)
    if total == 0:
        return NAN
    acc = 0.0
    for y, s, w in rows:
        if y == 1:
            tp, fp = _counts_at(rows, s)
            acc += w * tp / (tp + fp)
    return acc / total


def log_loss(
    labels: Sequence[int],
    probs: Sequence[float],
    weights: Sequence[float] | None = None,
    eps: float = 2.220446049250313e-16,
) -> float:
    w = list(weights) if weights is not None else [1.0] * len(labels)
    num = 0.0
    for y, p, wi in zip(labels, probs, w):
        q = p if y == 1 else 1 - p
        num -= wi * math.log(min(max(q, eps), 1 - eps))
    den = sum(w)
    return num / den if den else NAN


def brier_score(
    labels: Sequence[int], probs: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    w = list(weights) if weights is not None else [1.0] * len(labels)
    den = sum(w)
    return sum(wi * (p - y) ** 2 for y, p, wi in zip(labels, probs, w)) / den if den else NAN
