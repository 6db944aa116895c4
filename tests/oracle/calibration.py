"""Deliberately naive references for the calibration and CTR metrics.

Per-row loops in Python floats (the SQL uses fixed-point exact sums); bin edges written out
from numpy's definitions (linspace, percentile "linear" with its _lerp) and each row's bin
found by a linear scan over the edges (the SQL uses floor(p n) with a correction, or a sum of
comparisons). Pinned to scikit-learn's calibration_curve and to hand-computed numbers in
tests/test_calibration.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NAN = float("nan")
DOUBLE_EPS = 2.220446049250313e-16


def _w(labels: Sequence[int], weights: Sequence[float] | None) -> list[float]:
    return [float(w) for w in weights] if weights is not None else [1.0] * len(labels)


def normalized_entropy(
    labels: Sequence[int],
    probs: Sequence[float],
    weights: Sequence[float] | None = None,
    eps: float = DOUBLE_EPS,
) -> float:
    """Log loss / entropy of the weighted base rate."""
    w = _w(labels, weights)
    total = sum(w)
    if total == 0:
        return NAN
    loss = 0.0
    for y, p, wi in zip(labels, probs, w):
        q = p if y == 1 else 1 - p
        loss -= wi * math.log(min(max(q, eps), 1 - eps))
    rate = sum(wi for y, wi in zip(labels, w) if y == 1) / total
    if rate in (0.0, 1.0):
        return NAN
    entropy = -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate))
    return (loss / total) / entropy


def calibration_ratio(
    labels: Sequence[int], probs: Sequence[float], weights: Sequence[float] | None = None
) -> float:
    """sum w p / sum w y."""
    w = _w(labels, weights)
    observed = sum(wi for y, wi in zip(labels, w) if y == 1)
    predicted = sum(wi * p for p, wi in zip(probs, w))
    return predicted / observed if observed else NAN


def _percentile(values: Sequence[float], q: float) -> float:
    """numpy.percentile(values, 100 q), method "linear", written out."""
    ordered = sorted(values)
    n = len(ordered)
    v = q * (n - 1)
    j = math.floor(v)
    g = v - j
    a = ordered[min(j, n - 1)]
    b = ordered[min(j + 1, n - 1)]
    if a == b:
        return a
    return b - (b - a) * (1 - g) if g >= 0.5 else a + (b - a) * g


def edges(probs: Sequence[float], n_bins: int, strategy: str) -> list[float]:
    """The n_bins + 1 edges of scikit-learn's calibration_curve."""
    step = 1.0 / n_bins
    qs = [*(i * step for i in range(n_bins)), 1.0]  # linspace sets its last point to stop
    if strategy == "uniform":
        return qs
    return [_percentile(probs, (q * 100) / 100) for q in qs]


def bins(
    labels: Sequence[int],
    probs: Sequence[float],
    weights: Sequence[float] | None = None,
    n_bins: int = 5,
    strategy: str = "uniform",
) -> list[dict[str, float]]:
    """Non-empty bins in order: bin, bin_lower, bin_upper, n, weight, mean_predicted,
    fraction_positive (NaN where the bin's weight is 0)."""
    e = edges(probs, n_bins, strategy)
    w = _w(labels, weights)
    acc: dict[int, list[float]] = {}
    for y, p, wi in zip(labels, probs, w):
        b = 0
        for inner in e[1:-1]:  # searchsorted(inner edges, p, "left")
            if inner < p:
                b += 1
        row = acc.setdefault(b, [0.0, 0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += wi
        row[2] += wi * p
        row[3] += wi * y
    out = []
    for b in sorted(acc):
        n, wsum, wp, wy = acc[b]
        out.append(
            {
                "bin": b,
                "bin_lower": e[b],
                "bin_upper": e[b + 1],
                "n": n,
                "weight": wsum,
                "mean_predicted": wp / wsum if wsum else NAN,
                "fraction_positive": wy / wsum if wsum else NAN,
            }
        )
    return out


def calibration_curve(
    labels: Sequence[int],
    probs: Sequence[float],
    weights: Sequence[float] | None = None,
    n_bins: int = 5,
    strategy: str = "uniform",
) -> list[dict[str, float]]:
    """The table of calibration_curve."""
    return bins(labels, probs, weights, n_bins, strategy)


def expected_calibration_error(
    labels: Sequence[int],
    probs: Sequence[float],
    weights: Sequence[float] | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
) -> float:
    """sum_b (W_b / W) |fraction_positive_b - mean_predicted_b|."""
    table = bins(labels, probs, weights, n_bins, strategy)
    total = sum(b["weight"] for b in table)
    if total == 0:
        return NAN
    return sum(
        b["weight"] / total * abs(b["fraction_positive"] - b["mean_predicted"])
        for b in table
        if b["weight"] > 0
    )
