"""Deliberately naive rank correlations: every pair listed (Kendall), explicit rank lists
and a two-pass Pearson formula (Spearman). Pinned to scipy.stats in tests/test_correlation.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

NAN = float("nan")


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing the mean of the positions they occupy."""
    ranks = []
    for v in values:
        below = sum(1 for w in values if w < v)
        equal = sum(1 for w in values if w == v)
        ranks.append(below + (equal + 1) / 2)
    return ranks


def spearman_of(xs: Sequence[float], ys: Sequence[float]) -> float:
    rx, ry = average_ranks(xs), average_ranks(ys)
    n = len(xs)
    if n < 2:
        return NAN
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return NAN
    return sxy / math.sqrt(sxx * syy)


def kendall_of(xs: Sequence[float], ys: Sequence[float]) -> float:
    n = len(xs)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    if n0 in (tied_x, tied_y):
        return NAN
    return (concordant - discordant) / math.sqrt((n0 - tied_x) * (n0 - tied_y))


def _grouped(
    function: Any, labels: Iterable[float], scores: Iterable[float], groups: Iterable[Any] | None
) -> float:
    ys, xs = list(labels), list(scores)
    keys = list(groups) if groups is not None else [0] * len(xs)
    values = []
    for key in dict.fromkeys(keys):
        idx = [i for i, k in enumerate(keys) if k == key]
        value = function([xs[i] for i in idx], [ys[i] for i in idx])
        if not math.isnan(value):
            values.append(value)
    return sum(values) / len(values) if values else NAN


def spearman(
    labels: Iterable[float], scores: Iterable[float], groups: Iterable[Any] | None = None
) -> float:
    """Spearman's rho (overall, or the mean over groups where it is defined)."""
    return _grouped(spearman_of, labels, scores, groups)


def kendall_tau(
    labels: Iterable[float], scores: Iterable[float], groups: Iterable[Any] | None = None
) -> float:
    """Kendall's tau-b (overall, or the mean over groups where it is defined)."""
    return _grouped(kendall_of, labels, scores, groups)
