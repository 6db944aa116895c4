"""Naive references for sqlmetrics.off_policy_value (issue 43): plain loops, no obp, no SQL.

Written from obp 0.5.7's formulas (``tests/data/obp/record.py`` quotes them) and the contract in
``sql/_macros/counterfactual/off_policy.sql``'s header:

- w_i = target_i / pscore_i, or min(target_i / pscore_i, clip) when clip is given (obp's
  ``lambda_``); the same clipped w in every estimator.
- single action, one unit per round: ips = sum w r / n; snips = sum w r / sum w; dr =
  sum [g + w (r - q)] / n (q = reward_hat, g = reward_hat_target).
- slates, one unit per slate s: V = sum_s sum_{i in s} w_i r_i / S (the three Slate*IPS).
- diagnostics over the units, W_u the unit's weight (a round's w; a slate's mean of its rows'
  w): n, ess = (sum W)^2 / sum W^2, max_weight = max W, mean_weight = sum W / n.
- the t interval: V = A / B with A = sum x_u, B = n (ips, dr, slates) or sum W (snips), and
  SE = sqrt(n / (n - 1) * sum_u (x_u - V b_u)^2) / B, b_u = 1 or W_u: the t interval of a mean
  (ips, dr, slates over slates), the delta method's for the ratio (snips);
  V -+ t_{n-1}((1 + level) / 2) SE. Undefined (None) for n < 2 or B = 0.

Sums are ``math.fsum`` (correctly rounded), so the oracle's values are the exact sums rounded
once: the reference the tests hold sqlmetrics and obp to (1e-9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from scipy import stats

SINGLE = ("ips", "snips", "dr")
SLATE = ("slate_standard_ips", "slate_independent_ips", "slate_rips")


def weight(target: float, pscore: float, clip: float | None) -> float:
    w = target / pscore
    if clip is not None and w > clip:
        w = clip
    return w


def _summary(
    x: list[float], b: list[float], unit_weights: list[float], level: float | None
) -> dict[str, Any]:
    """Value, diagnostics and t interval of the ratio sum x / sum b over the units."""
    n = len(x)
    out: dict[str, Any] = {"n": n}
    if n == 0:
        out.update(value=None, ess=None, max_weight=None, mean_weight=None, lo=None, hi=None)
        return out
    a_sum = math.fsum(x)
    b_sum = math.fsum(b)
    value = a_sum / b_sum if b_sum != 0 else None
    sw = math.fsum(unit_weights)
    sw2 = math.fsum(u * u for u in unit_weights)
    out["value"] = value
    out["ess"] = sw * sw / sw2 if sw2 > 0 else None
    out["max_weight"] = max(unit_weights)
    out["mean_weight"] = sw / n
    out["lo"] = out["hi"] = None
    if level is not None and value is not None and n >= 2:
        ss = math.fsum((xu - value * bu) ** 2 for xu, bu in zip(x, b))
        se = math.sqrt(n / (n - 1) * ss) / b_sum
        half = float(stats.t.ppf((1 + level) / 2, n - 1)) * se
        out["lo"], out["hi"] = value - half, value + half
    return out


def single(
    reward: Sequence[float],
    pscore: Sequence[float],
    target: Sequence[float],
    *,
    estimators: Sequence[str] = SINGLE,
    reward_hat: Sequence[float] | None = None,
    reward_hat_target: Sequence[float] | None = None,
    clip: float | None = None,
    level: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Each single-action estimator over the rounds: {estimator: {value, n, ess, ..., lo, hi}}."""
    w: list[float] = []
    wr: list[float] = []
    dr: list[float] = []
    for i in range(len(reward)):
        wi = weight(float(target[i]), float(pscore[i]), clip)
        r = float(reward[i])
        w.append(wi)
        wr.append(wi * r)
        if reward_hat is not None and reward_hat_target is not None:
            dr.append(float(reward_hat_target[i]) + wi * (r - float(reward_hat[i])))
    ones = [1.0] * len(w)
    out: dict[str, dict[str, Any]] = {}
    for name in estimators:
        if name == "ips":
            out[name] = _summary(wr, ones, w, level)
        elif name == "snips":
            out[name] = _summary(wr, w, w, level)
        elif name == "dr":
            if reward_hat is None or reward_hat_target is None:
                raise ValueError("dr needs reward_hat and reward_hat_target")
            out[name] = _summary(dr, ones, w, level)
        else:
            raise ValueError(f"unknown single-action estimator {name!r}")
    return out


def slate(
    slate_id: Sequence[Any],
    reward: Sequence[float],
    pscore: Sequence[float],
    target: Sequence[float],
    *,
    clip: float | None = None,
    level: float | None = None,
) -> dict[str, Any]:
    """A slate estimator (the three share one formula; the caller passes the estimator's
    propensities: joint, item-position or cascade) over the slates.
    """
    sums: dict[Any, float] = {}
    weights: dict[Any, list[float]] = {}
    terms: dict[Any, list[float]] = {}
    for i in range(len(reward)):
        s = slate_id[i]
        wi = weight(float(target[i]), float(pscore[i]), clip)
        terms.setdefault(s, []).append(wi * float(reward[i]))
        weights.setdefault(s, []).append(wi)
    for s, t in terms.items():
        sums[s] = math.fsum(t)
    keys = list(sums)
    x = [sums[s] for s in keys]
    unit_w = [math.fsum(weights[s]) / len(weights[s]) for s in keys]
    return _summary(x, [1.0] * len(x), unit_w, level)
