"""Coverage: over 300 simulated data sets of known truth, each method's 95 % intervals cover
the true value between 92 % and 98 % of the time (issue 12). Binormal scores: negatives
N(0, 1), positives N(d, 1), so the true AUC is Phi(d / sqrt 2) and, at the threshold d / 2,
the true accuracy is Phi(d / 2). The 300 data sets are the slices of one table (evaluate
with by=): one query per method. Deterministic (numpy seed, hashed bootstrap weights)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sqlmetrics

N_SETS = 300
D = 1.0
TRUE_AUC = float(stats.norm.cdf(D / math.sqrt(2)))
TRUE_ACCURACY = float(stats.norm.cdf(D / 2))


def simulate(n_pos: int = 120, n_neg: int = 120, seed: int = 2026) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for s in range(N_SETS):
        label = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
        score = np.r_[rng.normal(D, 1, n_pos), rng.normal(0, 1, n_neg)]
        parts.append(pd.DataFrame({"sim": s, "label": label, "score": score}))
    return pd.concat(parts, ignore_index=True)


def coverage(frame: pd.DataFrame, metric: str, truth: float) -> float:
    inside = (frame[f"{metric}_lo"] <= truth) & (truth <= frame[f"{metric}_hi"])
    return float(inside.mean())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("metric", "method", "truth", "options"),
    [
        ("auc", "delong", TRUE_AUC, {}),
        ("auc", "bootstrap", TRUE_AUC, {"n_boot": 100}),  # 100: the test stays under ~60 s
        ("accuracy", "wilson", TRUE_ACCURACY, {"threshold": D / 2}),
    ],
)
def test_95_percent_intervals_cover_the_truth(
    metric: str, method: str, truth: float, options: dict
) -> None:
    frame = sqlmetrics.evaluate(
        simulate(), [metric], by="sim", ci=0.95, ci_method=method, seed=1, **options
    )
    assert len(frame) == N_SETS
    rate = coverage(frame, metric, truth)
    assert 0.92 <= rate <= 0.98, (metric, method, rate)


@pytest.mark.slow
def test_t_interval_over_groups_covers_the_true_hit_rate() -> None:
    # each group: one relevant item scored N(d, 1), one irrelevant N(0, 1); hit@1 is a
    # Bernoulli(Phi(d / sqrt 2)) per group, 150 groups per data set
    rng = np.random.default_rng(7)
    n_groups = 150
    rows = []
    for s in range(N_SETS):
        groups = np.repeat(np.arange(n_groups) + s * n_groups, 2)
        label = np.tile([1, 0], n_groups)
        score = np.where(label == 1, rng.normal(D, 1, 2 * n_groups), rng.normal(0, 1, 2 * n_groups))
        rows.append(pd.DataFrame({"sim": s, "group": groups, "item": np.tile([0, 1], n_groups),
                                  "label": label, "score": score}))  # fmt: skip
    data = pd.concat(rows, ignore_index=True)
    for method in ("t", "wilson"):
        frame = sqlmetrics.evaluate(
            data, ["hit_rate@1"], group="group", item="item", by="sim", ci=0.95, ci_method=method
        )
        rate = coverage(frame, "hit_rate@1", TRUE_AUC)
        assert 0.92 <= rate <= 0.98, (method, rate)


@pytest.mark.slow
def test_t_interval_over_rows_covers_the_true_mean_loss() -> None:
    # calibrated probabilities p ~ U(0.05, 0.95), y ~ Bernoulli(p), 200 rows per data set: the
    # expected per-row log loss is E[H(p)] (binary entropy) and the Brier score's E[p (1 - p)];
    # with weights w ~ U{1, 2, 3} independent of (p, y) the weighted means have the same truth
    from scipy import integrate

    a, b = 0.05, 0.95
    entropy = integrate.quad(lambda p: -(p * math.log(p) + (1 - p) * math.log(1 - p)), a, b)[0]
    truth = {"log_loss": entropy / (b - a), "brier_score": (
        integrate.quad(lambda p: p * (1 - p), a, b)[0] / (b - a))}  # fmt: skip
    rng = np.random.default_rng(11)
    n = 200
    p = rng.uniform(a, b, N_SETS * n)
    data = pd.DataFrame(
        {
            "sim": np.repeat(np.arange(N_SETS), n),
            "label": (rng.random(N_SETS * n) < p).astype(int),
            "score": p,
            "w": rng.integers(1, 4, N_SETS * n).astype(float),
        }
    )
    for weight in (None, "w"):
        frame = sqlmetrics.evaluate(
            data, ["log_loss", "brier_score"], by="sim", ci=0.95, ci_method="t", weight=weight
        )
        for metric, value in truth.items():
            rate = coverage(frame, metric, value)
            assert 0.92 <= rate <= 0.98, (metric, weight, rate)
