"""Naive references for the confidence intervals (sqlmetrics/_inference/intervals.py).

- DeLong's variance by the O(n^2) structural components (DeLong et al. 1988), not from
  placement values of one sort;
- Wilson and t intervals by their textbook formulas (scipy.stats checks them in the tests);
- the bootstrap by replaying the SQL's hashed Poisson weights (tools.resample) in numpy:
  row keys are 1-based positions in the order of the columns the metric reads (score first),
  group keys key_hash(group); percentile = numpy's linear interpolation (type 7). AUC's
  unweighted bootstrap draws per score bucket and class (auc_bucket_replicates), not per row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from tools import resample as R


def delong(labels: Sequence[int], scores: Sequence[float], level: float) -> tuple[float, float]:
    """AUC's DeLong interval, normal, clipped to [0, 1]."""
    pos = [s for y, s in zip(labels, scores) if y == 1]
    neg = [s for y, s in zip(labels, scores) if y == 0]
    m, n = len(pos), len(neg)

    def psi(x: float, y: float) -> float:
        return 1.0 if x > y else 0.5 if x == y else 0.0

    v10 = [sum(psi(x, y) for y in neg) / n for x in pos]
    v01 = [sum(psi(x, y) for x in pos) / m for y in neg]
    auc = sum(v10) / m
    s10 = sum((v - auc) ** 2 for v in v10) / (m - 1)
    s01 = sum((v - auc) ** 2 for v in v01) / (n - 1)
    se = math.sqrt(s10 / m + s01 / n)
    z = stats.norm.ppf((1 + level) / 2)
    return max(auc - z * se, 0.0), min(auc + z * se, 1.0)


def wilson(successes: float, n: float, level: float) -> tuple[float, float]:
    """Wilson's score interval (Wilson 1927), written out."""
    z = stats.norm.ppf((1 + level) / 2)
    p = successes / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return center - half, center + half


def t_mean(values: Sequence[float], level: float) -> tuple[float, float]:
    """The t interval of a plain mean."""
    x = np.asarray(values, dtype=float)
    half = stats.t.ppf((1 + level) / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return float(x.mean() - half), float(x.mean() + half)


def percentile(values: Sequence[float], level: float) -> tuple[float, float]:
    """The percentile interval of the defined replicate values."""
    x = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    lo, hi = np.percentile(x, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(lo), float(hi)


def row_keys(columns: Sequence[Sequence[Any]]) -> np.ndarray:
    """1-based position of each row in the lexicographic order of ``columns`` (first first)."""
    order = np.lexsort([np.asarray(c) for c in reversed(columns)])
    keys = np.empty(len(order), dtype=np.int64)
    keys[order] = np.arange(1, len(order) + 1)
    return keys


def row_bootstrap(
    keys: np.ndarray,
    metric: Callable[[np.ndarray], float],
    n_boot: int,
    seed: int,
    level: float,
) -> tuple[float, float]:
    """Replicate b weighs row i by poisson1(replicate_uniform(keys[i], b, seed))."""
    values = [metric(R.poisson_weight(keys, b, seed).astype(float)) for b in range(1, n_boot + 1)]
    return percentile(values, level)


def cluster_bootstrap(
    groups: Sequence[Any],
    values: Sequence[float],
    n_boot: int,
    seed: int,
    level: float,
    group_weights: Sequence[float] | None = None,
    geometric: bool = False,
) -> tuple[float, float]:
    """Group g weighs poisson1(replicate_uniform(key_hash(g), b, seed)) (times its weight)."""
    keys = np.array([R.key_hash(g) for g in groups], dtype=np.int64)
    x = np.asarray(values, dtype=float)
    x = np.log(x) if geometric else x
    v = np.ones(len(x)) if group_weights is None else np.asarray(group_weights, dtype=float)
    out = []
    for b in range(1, n_boot + 1):
        w = v * R.poisson_weight(keys, b, seed)
        m = float((w * x).sum() / w.sum()) if w.sum() > 0 else math.nan
        out.append(math.exp(m) if geometric else m)
    return percentile(out, level)


def auc_weighted(labels: np.ndarray, scores: np.ndarray, w: np.ndarray) -> float:
    """Weighted AUC by sorting (fast enough for replicate loops; tests/oracle/classification.py
    ::auc is the O(n^2) reference it is checked against).
    """
    wp, wn = w * (labels == 1), w * (labels == 0)
    if wp.sum() == 0 or wn.sum() == 0:
        return math.nan
    u = 0.0
    for s in np.unique(scores):
        at = scores == s
        below = scores < s
        u += wp[at].sum() * (wn[below].sum() + wn[at].sum() / 2)
    return float(u / (wp.sum() * wn.sum()))


def auc_buckets(scores: np.ndarray, n_buckets: int) -> np.ndarray:
    """ci_auc_bootstrap's bucket of each row: the index of its distinct score when there are
    at most ``n_buckets``, else (rows scored below) // ceil(n / n_buckets).
    """
    distinct = np.unique(scores)
    if len(distinct) <= n_buckets:
        return np.searchsorted(distinct, scores)
    below = np.array([(scores < s).sum() for s in scores])
    return below // math.ceil(len(scores) / n_buckets)


def auc_bucket_replicates(
    labels: np.ndarray, scores: np.ndarray, n_buckets: int, n_boot: int, seed: int
) -> list[float]:
    """ci_auc_bootstrap's replicate AUCs, written out: per bucket k the full sample's P_k, N_k
    and within-bucket concordance c_k; per replicate the bucket's counts drawn as
    Poisson(P_k) and Poisson(N_k) from replicate_int(key_hash(2 k + class), b, seed).
    """
    bucket = auc_buckets(scores, n_buckets)
    ks = np.unique(bucket)
    p = np.array([((bucket == k) & (labels == 1)).sum() for k in ks])
    q = np.array([((bucket == k) & (labels == 0)).sum() for k in ks])
    c = []
    for k in ks:
        inb = bucket == k
        ck = auc_weighted(labels[inb], scores[inb], np.ones(inb.sum()))
        c.append(0.0 if math.isnan(ck) else ck)
    key_pos = np.array([R.key_hash(2 * int(k) + 1) for k in ks], dtype=np.int64)
    key_neg = np.array([R.key_hash(2 * int(k)) for k in ks], dtype=np.int64)
    out = []
    for b in range(1, n_boot + 1):
        pb = R.poisson_count(p, R.replicate_int(key_pos, b, seed)).astype(float)
        qb = R.poisson_count(q, R.replicate_int(key_neg, b, seed)).astype(float)
        q_before = np.concatenate([[0.0], np.cumsum(qb)[:-1]])
        u = float((pb * (q_before + np.asarray(c) * qb)).sum())
        total = pb.sum() * qb.sum()
        out.append(u / total if total > 0 else math.nan)
    return out


def auc_bucket_bootstrap(
    labels: np.ndarray,
    scores: np.ndarray,
    n_buckets: int,
    n_boot: int,
    seed: int,
    level: float,
) -> tuple[float, float]:
    """The percentile interval of :func:`auc_bucket_replicates`."""
    return percentile(auc_bucket_replicates(labels, scores, n_buckets, n_boot, seed), level)
