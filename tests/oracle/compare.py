"""Naive oracles of ``sqlmetrics.compare``'s tests (issue 12), each by another route.

- per-group metric values by the ranking / classification oracles, group by group;
- paired t and Wilcoxon by ``scipy.stats``; McNemar by ``scipy.stats.binomtest`` / ``chi2``;
- DeLong's variance by the O(n^2) structural components (DeLong et al. 1988, eq. for V10, V01);
- randomization by a plain Python loop over the same hashed sign flips
  (``tools.resample.sign_flip`` of ``key_hash(group)``);
- the paired bootstrap by replaying the same Poisson weights in numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from oracle import classification as oc
from oracle import ranking as orr
from tools import resample as R

NAN = float("nan")


def group_values(
    name: str, frame: pd.DataFrame, score: str, k: int | None = None
) -> dict[Any, float]:
    """Each group's value of ranking metric ``name`` (columns q, doc, label), NaN if skipped."""
    out = {}
    for g, rows in frame.groupby("q", sort=True):
        out[g] = orr.metric(
            name, list(zip(rows["q"], rows["doc"], rows[score], rows["label"])), k=k
        )
    return out


def group_aucs(frame: pd.DataFrame, score: str) -> dict[Any, tuple[float, float]]:
    """Each group's (AUC, row count); AUC NaN for a one-class group."""
    return {
        g: (oc.auc(list(rows["label"]), list(rows[score])), float(len(rows)))
        for g, rows in frame.groupby("q", sort=True)
    }


def paired_t(
    base: Sequence[float], other: Sequence[float], ci: float = 0.95
) -> tuple[float, float, float, float]:
    """(mean difference, lo, hi, p) of scipy's paired t-test."""
    d = np.asarray(other, float) - np.asarray(base, float)
    result = stats.ttest_rel(other, base)
    interval = result.confidence_interval(ci)
    return float(d.mean()), float(interval.low), float(interval.high), float(result.pvalue)


def weighted_t(
    d: Sequence[float], w: Sequence[float], ci: float = 0.95
) -> tuple[float, float, float, float]:
    """The weighted paired t of compare's docstring, written out with scipy's t."""
    d, w = np.asarray(d, float), np.asarray(w, float)
    n = len(d)
    mean = float((w * d).sum() / w.sum())
    se = math.sqrt(n / (n - 1) * float((w**2 * (d - mean) ** 2).sum())) / float(w.sum())
    q = stats.t.ppf((1 + ci) / 2, n - 1)
    return mean, mean - q * se, mean + q * se, float(2 * stats.t.sf(abs(mean / se), n - 1))


def randomization(
    groups: Sequence[Any], d: Sequence[float], n_permutations: int, seed: int
) -> float:
    """(1 + #{b: |mean_b| >= |mean|}) / (1 + B), a Python loop over the SQL's sign flips."""
    observed = sum(d) / len(d)
    slack = 1e-9 * sum(abs(x) for x in d) / len(d)
    keys = [R.key_hash(g) for g in groups]
    extreme = 0
    for b in range(1, n_permutations + 1):
        total = 0.0
        for key, x in zip(keys, d):
            total += x * int(R.sign_flip(key, b, seed))
        if abs(total / len(d)) >= abs(observed) - slack:
            extreme += 1
    return (1 + extreme) / (1 + n_permutations)


def wilcoxon(d: Sequence[float]) -> float:
    """scipy's signed-rank p (zero_method='wilcox', no continuity correction, normal approx)."""
    x = np.round(np.asarray(d, float), 12)
    return float(stats.wilcoxon(x, zero_method="wilcox", correction=False, method="approx").pvalue)


def delong(
    labels: Sequence[int], s0: Sequence[float], s1: Sequence[float], ci: float = 0.95
) -> tuple[float, float, float, float, float, float]:
    """(auc0, auc1, diff, lo, hi, p) by the O(n^2) structural components."""
    pos = [i for i, y in enumerate(labels) if y == 1]
    neg = [i for i, y in enumerate(labels) if y == 0]

    def psi(a: float, b: float) -> float:
        return 1.0 if a > b else 0.5 if a == b else 0.0

    def components(s: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
        v10 = np.array([sum(psi(s[i], s[j]) for j in neg) / len(neg) for i in pos])
        v01 = np.array([sum(psi(s[i], s[j]) for i in pos) / len(pos) for j in neg])
        return v10, v01

    a10, a01 = components(s0)
    b10, b01 = components(s1)
    s10 = np.cov(np.vstack([a10, b10]))
    s01 = np.cov(np.vstack([a01, b01]))
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / len(pos) + (
        s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]
    ) / len(neg)
    auc0, auc1 = float(a10.mean()), float(b10.mean())
    diff = auc1 - auc0
    se = math.sqrt(var)
    z = stats.norm.ppf((1 + ci) / 2)
    return auc0, auc1, diff, diff - z * se, diff + z * se, float(2 * stats.norm.sf(abs(diff) / se))


def mcnemar(labels: Sequence[int], p0: Sequence[int], p1: Sequence[int]) -> float:
    """statsmodels' conventions: exact binomial below 25 discordant rows, else chi^2 corrected."""
    right0 = np.asarray(p0) == np.asarray(labels)
    right1 = np.asarray(p1) == np.asarray(labels)
    n10 = int((right0 & ~right1).sum())
    n01 = int((~right0 & right1).sum())
    if n10 + n01 < 25:
        return float(stats.binomtest(min(n10, n01), n10 + n01, 0.5).pvalue)
    chi2 = (abs(n10 - n01) - 1) ** 2 / (n10 + n01)
    return float(stats.chi2.sf(chi2, 1))


def _threshold(name: str, tp: float, fp: float, tn: float, fn: float) -> float:
    def ratio(a: float, b: float) -> float:
        return a / b if b else NAN

    if name == "accuracy":
        return ratio(tp + tn, tp + fp + tn + fn)
    if name == "precision":
        return ratio(tp, tp + fp)
    if name == "recall":
        return ratio(tp, tp + fn)
    if name == "f1":
        return ratio(2 * tp, 2 * tp + fp + fn)
    raise KeyError(name)


def paired_bootstrap(
    name: str,
    labels: Sequence[int],
    predictions: Sequence[Sequence[int]],
    n_boot: int,
    seed: int,
    ci: float = 0.95,
    weights: Sequence[float] | None = None,
) -> list[tuple[float, float, float]]:
    """(lo, hi, p) per non-baseline model, replaying the SQL's row keys and Poisson weights.

    Row key: the 1-based position in the order of (label, predictions..., weight); weight of a
    row in replicate b: its weight (1 without) times poisson_weight(key, b, seed), the same for
    every model.
    """
    y = np.asarray(labels)
    preds = [np.asarray(p) for p in predictions]
    sample = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    order = np.lexsort(tuple(reversed([y, *preds, sample])))  # by label, p0, p1, ..., weight
    key = np.empty(len(y), dtype=np.int64)
    key[order] = np.arange(1, len(y) + 1)
    diffs: list[list[float]] = [[] for _ in preds[1:]]
    for b in range(1, n_boot + 1):
        w = sample * R.poisson_weight(key, b, seed).astype(float)
        values = []
        for p in preds:
            tp = float((w * ((y == 1) & (p == 1))).sum())
            fp = float((w * ((y == 0) & (p == 1))).sum())
            tn = float((w * ((y == 0) & (p == 0))).sum())
            fn = float((w * ((y == 1) & (p == 0))).sum())
            values.append(_threshold(name, tp, fp, tn, fn))
        for j in range(1, len(preds)):
            if not (math.isnan(values[j]) or math.isnan(values[0])):
                diffs[j - 1].append(values[j] - values[0])
    out = []
    for d in diffs:
        arr = np.asarray(d)
        lo, hi = np.percentile(arr, [100 * (1 - ci) / 2, 100 * (1 + ci) / 2])
        p = min(1.0, 2 * (1 + min((arr <= 0).sum(), (arr >= 0).sum())) / (len(arr) + 1))
        out.append((float(lo), float(hi), float(p)))
    return out


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment, written as the definition: max over j <= i of (m-j+1)p_(j)."""
    m = len(ps)
    ranked = sorted(ps)
    out = []
    for p in ps:
        i = ranked.index(p)
        out.append(min(1.0, max((m - j) * ranked[j] for j in range(i + 1))))
    return out
