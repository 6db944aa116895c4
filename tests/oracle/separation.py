"""Deliberately naive references for the KS statistic, the partial AUC and the lift table.

KS: every distinct score tried as threshold, rates counted by a full loop and compared as
exact fractions (the SQL uses running sums). Partial AUC: scikit-learn's recipe written out
(ROC points by loops, the trapezoids up to max_fpr, the crossing segment interpolated, McClish
standardisation). Lift: each row's bin from a count of the rows with a higher score (the SQL
uses rank()). Pinned in tests/test_separation.py to scipy.stats.ks_2samp, scikit-learn's
roc_auc_score(max_fpr=) and hand-computed tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

NAN = float("nan")


def _w(labels: Sequence[int], weights: Sequence[float] | None) -> list[float]:
    return [float(w) for w in weights] if weights is not None else [1.0] * len(labels)


def _rates(
    labels: Sequence[int], scores: Sequence[float], w: list[float], t: float
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    tp = fp = pos = neg = Fraction(0)
    for y, s, wi in zip(labels, scores, w):
        if y == 1:
            pos += Fraction(wi)
            tp += Fraction(wi) if s >= t else 0
        else:
            neg += Fraction(wi)
            fp += Fraction(wi) if s >= t else 0
    return tp, fp, pos, neg


def ks_point(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None = None
) -> dict[str, float]:
    """ks_statistic, threshold (the largest t reaching the maximum), tpr and fpr there."""
    w = _w(labels, weights)
    best: tuple[Fraction, float, Fraction, Fraction] | None = None
    for t in sorted(set(scores), reverse=True):
        tp, fp, pos, neg = _rates(labels, scores, w, t)
        if pos == 0 or neg == 0:
            return {"ks_statistic": NAN, "threshold": NAN, "tpr": NAN, "fpr": NAN}
        gap = abs(tp / pos - fp / neg)
        if best is None or gap > best[0]:
            best = (gap, t, tp / pos, fp / neg)
    assert best is not None
    return {
        "ks_statistic": float(best[0]),
        "threshold": best[1],
        "tpr": float(best[2]),
        "fpr": float(best[3]),
    }


def ks_statistic(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    """max_t |TPR(t) - FPR(t)|."""
    return ks_point(labels, scores, weights)["ks_statistic"]


def partial_auc(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    max_fpr: float = 1.0,
) -> float:
    """scikit-learn's _binary_roc_auc_score, its steps written out."""
    w = _w(labels, weights)
    pos = sum(wi for y, wi in zip(labels, w) if y == 1)
    neg = sum(wi for y, wi in zip(labels, w) if y != 1)
    if pos == 0 or neg == 0:
        return NAN
    fpr, tpr = [0.0], [0.0]
    for t in sorted(set(scores), reverse=True):
        tp = sum(wi for y, s, wi in zip(labels, scores, w) if y == 1 and s >= t)
        fp = sum(wi for y, s, wi in zip(labels, scores, w) if y != 1 and s >= t)
        fpr.append(fp / neg)
        tpr.append(tp / pos)
    if max_fpr == 1.0:
        return sum((fpr[i] - fpr[i - 1]) * (tpr[i] + tpr[i - 1]) / 2 for i in range(1, len(fpr)))
    stop = sum(1 for f in fpr if f <= max_fpr)  # searchsorted(fpr, max_fpr, "right")
    x0, x1, y0, y1 = fpr[stop - 1], fpr[stop], tpr[stop - 1], tpr[stop]
    y_cut = y0 if x0 == max_fpr else (y1 - y0) / (x1 - x0) * (max_fpr - x0) + y0
    xs, ys = [*fpr[:stop], max_fpr], [*tpr[:stop], y_cut]
    area = sum((xs[i] - xs[i - 1]) * (ys[i] + ys[i - 1]) / 2 for i in range(1, len(xs)))
    low, high = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - low) / (high - low))


def _points(
    labels: Sequence[int], scores: Sequence[float], weights: Sequence[float] | None
) -> tuple[list[tuple[float, float, float]], float, float]:
    """(threshold, tp, fp) at each distinct score, highest first, each counted by a full loop
    over the rows; and P, N.
    """
    w = _w(labels, weights)
    pos = sum(wi for y, wi in zip(labels, w) if y == 1)
    neg = sum(wi for y, wi in zip(labels, w) if y != 1)
    points = []
    for t in sorted(set(scores), reverse=True):
        tp = sum(wi for y, s, wi in zip(labels, scores, w) if y == 1 and s >= t)
        fp = sum(wi for y, s, wi in zip(labels, scores, w) if y != 1 and s >= t)
        points.append((t, tp, fp))
    return points, pos, neg


def recall_at_precision_point(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    min_precision: float = 0.5,
) -> tuple[float, float]:
    """(recall, threshold): torchmetrics' _recall_at_precision, the lexicographic argmax of
    (recall, precision, threshold) over the points with precision >= min_precision; NaN
    where no positive label or no point qualifies.
    """
    points, pos, _ = _points(labels, scores, weights)
    if pos == 0:
        return NAN, NAN
    keys = [(tp / pos, tp / (tp + fp), t) for t, tp, fp in points if tp + fp > 0]
    eligible = [k for k in keys if k[1] >= min_precision]
    if not eligible:
        return NAN, NAN
    best = max(eligible)
    return best[0], best[2]


def precision_at_recall_point(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    min_recall: float = 0.5,
) -> tuple[float, float]:
    """(precision, threshold): the lexicographic argmax of (precision, recall, threshold)
    over the points with recall >= min_recall (torchmetrics' _precision_at_recall)."""
    points, pos, _ = _points(labels, scores, weights)
    if pos == 0:
        return NAN, NAN
    keys = [(tp / (tp + fp), tp / pos, t) for t, tp, fp in points if tp + fp > 0]
    eligible = [k for k in keys if k[1] >= min_recall]
    if not eligible:
        return NAN, NAN
    best = max(eligible)
    return best[0], best[2]


def tpr_at_fpr_point(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    max_fpr: float = 1.0,
) -> tuple[float, float]:
    """(tpr, threshold): over the ROC points with (0, 0, +inf) first, the largest tpr with
    fpr <= max_fpr, then the smallest fpr, then the largest threshold; threshold NaN for
    the +inf point."""
    points, pos, neg = _points(labels, scores, weights)
    if pos == 0 or neg == 0:
        return NAN, NAN
    roc = [(0.0, -0.0, math.inf)] + [(tp / pos, -(fp / neg), t) for t, tp, fp in points]
    best = max(k for k in roc if -k[1] <= max_fpr)
    return best[0], (NAN if best[2] == math.inf else best[2])


def recall_at_precision(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    min_precision: float = 0.5,
) -> float:
    return recall_at_precision_point(labels, scores, weights, min_precision)[0]


def precision_at_recall(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    min_recall: float = 0.5,
) -> float:
    return precision_at_recall_point(labels, scores, weights, min_recall)[0]


def tpr_at_fpr(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    max_fpr: float = 1.0,
) -> float:
    return tpr_at_fpr_point(labels, scores, weights, max_fpr)[0]


def operating_points(
    labels: Sequence[int],
    scores: Sequence[float],
    weights: Sequence[float] | None = None,
    min_precision: float = 0.5,
    min_recall: float = 0.5,
    max_fpr: float = 1.0,
) -> dict[str, float]:
    """The three values and thresholds, as sqlmetrics.operating_points' row."""
    out: dict[str, float] = {}
    for name, (value, threshold) in (
        ("recall_at_precision", recall_at_precision_point(labels, scores, weights, min_precision)),
        ("precision_at_recall", precision_at_recall_point(labels, scores, weights, min_recall)),
        ("tpr_at_fpr", tpr_at_fpr_point(labels, scores, weights, max_fpr)),
    ):
        out[name] = value
        out[f"{name}_threshold"] = threshold
    return out


def lift_table(
    labels: Sequence[int], scores: Sequence[float], n_bins: int = 10
) -> list[dict[str, float]]:
    """Rows per non-empty bin, bin 1 the highest scores (see sql/classification/lift_table.sql)."""
    n = len(labels)
    positives = sum(1 for y in labels if y == 1)
    rate = positives / n
    members: dict[int, list[int]] = {}
    for i, s in enumerate(scores):
        higher = sum(1 for other in scores if other > s)
        members.setdefault(1 + (higher * n_bins) // n, []).append(i)
    out: list[dict[str, float]] = []
    cum_n = cum_pos = 0
    for b in sorted(members):
        rows = members[b]
        n_pos = sum(1 for i in rows if labels[i] == 1)
        cum_n += len(rows)
        cum_pos += n_pos
        out.append(
            {
                "bin": b,
                "n": len(rows),
                "n_pos": n_pos,
                "min_score": min(scores[i] for i in rows),
                "max_score": max(scores[i] for i in rows),
                "response_rate": n_pos / len(rows),
                "lift": n_pos / len(rows) / rate if positives else NAN,
                "cumulative_n": cum_n,
                "cumulative_pos": cum_pos,
                "gain": cum_pos / positives if positives else NAN,
                "cumulative_lift": cum_pos / cum_n / rate if positives else NAN,
            }
        )
    return out


def is_nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)
