"""Naive reference for auc_bounds: bucket each score, then look at every positive/negative pair.

A different algorithm from the SQL on purpose: the SQL counts per bucket and uses cumulative
sums; here every pair is visited and classified as "different buckets" (counted exactly) or
"same bucket" (counted 1/2 in the estimate, 0 in the lower and 1 in the upper bound).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NAN = float("nan")


def bucket(score: float, lo: float, hi: float, bins: int) -> int:
    """The bucket of ``score``, the formula of sql/classification/auc_bounds.sql in IEEE doubles."""
    width = hi / 2 - lo / 2
    if width == 0:
        return 0
    return min(math.floor((score / 2 - lo / 2) / width * bins), bins - 1)


def auc_bounds(
    labels: Sequence[int],
    scores: Sequence[float],
    bins: int,
    weights: Sequence[float] | None = None,
) -> tuple[float, float, float]:
    """(estimate, lower, upper) by visiting every positive/negative pair."""
    w = list(weights) if weights is not None else [1.0] * len(labels)
    lo, hi = min(scores), max(scores)
    b = [bucket(s, lo, hi, bins) for s in scores]
    different = same = den = 0.0
    for i, yi in enumerate(labels):
        if yi != 1:
            continue
        for j, yj in enumerate(labels):
            if yj != 0:
                continue
            pair = w[i] * w[j]
            den += pair
            if b[i] > b[j]:
                different += pair
            elif b[i] == b[j]:
                same += pair
    if den == 0:
        return NAN, NAN, NAN
    return (different + same / 2) / den, different / den, (different + same) / den
