"""A simulated click log for model monitoring (issue 44): 90 days, six slices, weekday
seasonality, label delay and injected AUC drops, as binned counts.

    python -m examples.monitoring.simulate [--seed 0] [--scale 0.01] [--out PATH] [--rows]

writes the log (the counts frame; ``--rows``: one row per impression) as CSV or Parquet, by
the suffix of ``--out`` (default ``monitoring.parquet`` in the current folder).

Nothing is drawn per impression: for each (slice, day) the impressions, the clicks and the
scores' histogram are drawn as counts, so a day of 400,000 impressions costs one multinomial
draw per class. :func:`simulate` returns the counts as a "state-like" frame (``slice``,
``day``, ``label``, ``score``, ``n``: each row stands for ``n`` impressions with that label
and score), the injected drops and the true AUC of every (slice, day). :func:`expand` turns
the counts into rows (for a small ``scale``); :func:`daily_auc` computes, from the counts, what
``sqlmetrics.evaluate(expand(frame), ["auc"], by=["day", "slice"], ci=0.95)`` returns (AUC,
DeLong's interval, n_rows), exactly.

The model, every parameter (module constants below):

- Days: ``N_DAYS`` = 90 consecutive days from ``START`` = 2026-06-01 (a Monday).
- Slices (``SLICES``): six countries, each with a weekday volume V (100k to 400k impressions
  a day), a base AUC (0.70 to 0.78) and a click-through rate (0.08 to 0.12):
  BR 100k 0.70 0.08, DE 150k 0.74 0.10, FR 200k 0.72 0.11, IN 250k 0.76 0.09,
  JP 300k 0.75 0.10, US 400k 0.78 0.12.
- Impressions: n ~ Poisson(scale * V * w * exp(e)), w = ``WEEKEND_VOLUME`` = 0.55 on
  Saturdays and Sundays (1 on weekdays), e ~ N(0, ``VOLUME_SD`` = 0.05) a day's own volume
  noise. Clicks: c ~ Binomial(n, CTR of the slice).
- True AUC of (slice s, day d): base_s + ``WEEKEND_AUC`` (= +0.004) on weekends + j,
  j ~ N(0, ``JITTER_SD`` = 0.001) (true day-to-day variation, not sampling error), minus delta
  on the days of an injected drop.
- Scores, binormal: a non-click's x ~ N(0, 1), a click's x ~ N(mu, 1), mu = sqrt(2)
  Phi^-1(AUC), so that P(x_click > x_nonclick) = Phi(mu / sqrt 2) = AUC; score = sigmoid(x)
  rounded to 3 decimals (1,001 possible scores; ties). The counts per score and class are one
  multinomial draw each, with the exact probabilities of the rounded score's interval of x.
  Rounding merges nearby scores into ties (counted 1/2), which lowers the AUC of the scores
  by less than 1e-6 (:func:`expected_auc` gives the exact expectation).
- Injected drops (``N_DROPS`` = 3 per seed): in 3 different slices drawn at random, each from a
  start day drawn uniformly from day ``DROP_FIRST`` = 35 to day ``DROP_LAST`` = 85 (0-based;
  day 35 leaves five weeks of history), for ``DROP_DAYS`` = 7 days (cut at the last day), the
  true AUC lowered by delta ~ U(``DROP_MIN``, ``DROP_MAX``) = U(0.01, 0.03).
- Label delay: the clicks of the most recent days are not all labeled yet. On the last day a
  click is labeled with probability ``LABELED[0]`` = 0.55, on the day before ``LABELED[1]`` =
  0.85 (every earlier day: 1). An unlabeled click is recorded as a non-click with its score
  (``label`` 0), which lowers those days' AUC (the later clicks are like the others, so the
  recorded "non-clicks" hold clicks' scores).

The draws, in this order from ``numpy.random.default_rng(seed)``: the drops (slices, starts,
deltas), the volume noise, the impressions, the clicks, the jitter, the non-clicks' scores,
the clicks' scores, the labeled clicks: the same seed gives the same frame.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

START = dt.date(2026, 6, 1)
N_DAYS = 90
#: name, weekday impressions, base AUC, click-through rate
SLICES: tuple[tuple[str, int, float, float], ...] = (
    ("BR", 100_000, 0.70, 0.08),
    ("DE", 150_000, 0.74, 0.10),
    ("FR", 200_000, 0.72, 0.11),
    ("IN", 250_000, 0.76, 0.09),
    ("JP", 300_000, 0.75, 0.10),
    ("US", 400_000, 0.78, 0.12),
)
WEEKEND_VOLUME = 0.55
VOLUME_SD = 0.05
WEEKEND_AUC = 0.004
JITTER_SD = 0.001
N_DROPS = 3
DROP_FIRST = 35
DROP_LAST = 85
DROP_DAYS = 7
DROP_MIN = 0.01
DROP_MAX = 0.03
#: the probability that a click is labeled yet, on the last day, the day before, ...
LABELED: tuple[float, ...] = (0.55, 0.85)
DECIMALS = 3

_NORMAL = NormalDist()
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def phi(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF, elementwise (math.erfc, exact doubles; no scipy)."""
    return np.asarray(0.5 * _ERFC(-np.asarray(x, dtype=float) / math.sqrt(2)), dtype=float)


#: the x interval of each rounded score k / 1000: [EDGES[k], EDGES[k + 1])
SCORES = np.arange(10**DECIMALS + 1) / 10**DECIMALS
_E = (np.arange(10**DECIMALS + 2) - 0.5) / 10**DECIMALS
with np.errstate(divide="ignore", invalid="ignore"):
    EDGES = np.where(_E <= 0, -np.inf, np.where(_E >= 1, np.inf, np.log(_E / (1 - _E))))


def score_probabilities(mu: np.ndarray | float) -> np.ndarray:
    """P(round(sigmoid(x), 3) = k / 1000) for x ~ N(mu, 1): shape (..., 1001)."""
    mu = np.asarray(mu, dtype=float)
    cdf = phi(EDGES - mu[..., None])
    p = np.diff(cdf, axis=-1)
    return np.asarray(np.clip(p, 0, None) / np.clip(p, 0, None).sum(axis=-1, keepdims=True))


def mu_of(auc: np.ndarray | float) -> np.ndarray:
    """The binormal separation for a true AUC: sqrt(2) Phi^-1(AUC)."""
    a = np.asarray(auc, dtype=float)
    return np.asarray(np.vectorize(_NORMAL.inv_cdf)(a) * math.sqrt(2), dtype=float)


def expected_auc(auc: float) -> float:
    """The expected AUC (ties 1/2) of the rounded scores when the true AUC is ``auc``: the
    AUC of the two score distributions (a U statistic's expectation, any class sizes)."""
    pos = score_probabilities(mu_of(auc))
    neg = score_probabilities(0.0)
    below = np.concatenate([[0.0], np.cumsum(neg)[:-1]])
    return float((pos * (below + neg / 2)).sum())


@dataclass(frozen=True)
class Drop:
    """An injected drop: the true AUC of ``slice`` lowered by ``delta`` on ``days`` days from
    ``start`` (day index ``first``, 0-based)."""

    slice: str
    first: int
    start: dt.date
    days: int
    delta: float


@dataclass(frozen=True)
class Simulation:
    """What :func:`simulate` returns."""

    frame: pd.DataFrame  # slice, day, label, score, n
    drops: list[Drop]
    truth: pd.DataFrame  # slice, day, impressions, clicks, labeled, auc (true), weekend


def days(n_days: int = N_DAYS) -> list[dt.date]:
    return [START + dt.timedelta(days=i) for i in range(n_days)]


def simulate(
    seed: int,
    *,
    scale: float = 1.0,
    n_days: int = N_DAYS,
    n_drops: int = N_DROPS,
    slices: Sequence[tuple[str, int, float, float]] = SLICES,
) -> Simulation:
    """The click log of ``seed``: counts for every (slice, day, label, score), the drops.

    ``scale`` multiplies the volumes (``scale=0.001``: 55 to 400 impressions a day, small
    enough to :func:`expand` into rows).
    """
    if n_drops and n_days <= DROP_LAST + 1:
        raise ValueError(f"drops start up to day {DROP_LAST}: n_days > {DROP_LAST + 1}")
    rng = np.random.default_rng(seed)
    n_s = len(slices)
    all_days = days(n_days)
    weekend = np.array([d.weekday() >= 5 for d in all_days])
    names = [s[0] for s in slices]
    volume = np.array([s[1] for s in slices], dtype=float)
    base = np.array([s[2] for s in slices])
    ctr = np.array([s[3] for s in slices])

    # the drops: distinct slices, a start day, a size
    where = rng.choice(n_s, size=n_drops, replace=False)
    first = rng.integers(DROP_FIRST, DROP_LAST + 1, size=n_drops)
    delta = rng.uniform(DROP_MIN, DROP_MAX, size=n_drops)
    drops = []
    shift = np.zeros((n_s, n_days))
    for s, f, d in zip(where, first, delta):
        length = min(DROP_DAYS, n_days - int(f))
        shift[s, f : f + length] = d
        drops.append(Drop(names[s], int(f), all_days[f], length, float(d)))

    # impressions and clicks
    factor = np.where(weekend, WEEKEND_VOLUME, 1.0)
    noise = rng.normal(0.0, VOLUME_SD, size=(n_s, n_days))
    n = rng.poisson(scale * volume[:, None] * factor[None, :] * np.exp(noise))
    clicks = rng.binomial(n, ctr[:, None] * np.ones((1, n_days)))

    # the true AUC, and the scores' counts per class
    jitter = rng.normal(0.0, JITTER_SD, size=(n_s, n_days))
    auc = base[:, None] + WEEKEND_AUC * weekend[None, :] + jitter - shift
    neg_p = score_probabilities(0.0)
    neg = rng.multinomial(n - clicks, np.broadcast_to(neg_p, (n_s, n_days, neg_p.size)))
    pos = rng.multinomial(clicks, score_probabilities(mu_of(auc)))

    # label delay: the unlabeled clicks of the last days are recorded as non-clicks
    labeled_share = np.ones(n_days)
    for age, share in enumerate(LABELED[:n_days]):
        labeled_share[n_days - 1 - age] = share
    labeled = rng.binomial(pos, np.broadcast_to(labeled_share[None, :, None], pos.shape))
    neg = neg + (pos - labeled)
    pos = labeled

    # the counts frame, in (slice, day, label, score) order, without empty cells
    counts = np.stack([neg, pos], axis=2)  # (slice, day, label, score)
    s_i, d_i, y_i, k_i = np.nonzero(counts)
    day_values = pd.to_datetime(pd.Series(all_days)).to_numpy()
    frame = pd.DataFrame(
        {
            "slice": np.array(names, dtype=object)[s_i],
            "day": day_values[d_i],
            "label": y_i.astype(np.int64),
            "score": SCORES[k_i],
            "n": counts[s_i, d_i, y_i, k_i].astype(np.int64),
        }
    )
    frame["slice"] = frame["slice"].astype("str")
    truth = pd.DataFrame(
        {
            "slice": np.repeat(names, n_days),
            "day": np.tile(day_values, n_s),
            "impressions": n.ravel(),
            "clicks": clicks.ravel(),
            "labeled": pos.sum(axis=2).ravel(),
            "auc": auc.ravel(),
            "weekend": np.tile(weekend, n_s),
        }
    )
    truth["slice"] = truth["slice"].astype("str")
    return Simulation(frame, drops, truth)


def expand(frame: pd.DataFrame, n: str = "n") -> pd.DataFrame:
    """One row per impression: each row of ``frame`` repeated ``n`` times, without ``n``."""
    rows = frame.loc[frame.index.repeat(frame[n])].drop(columns=n)
    return rows.reset_index(drop=True)


def daily_auc(
    frame: pd.DataFrame,
    ci: float = 0.95,
    *,
    by: Sequence[str] = ("day", "slice"),
    label: str = "label",
    score: str = "score",
    n: str = "n",
) -> pd.DataFrame:
    """AUC and DeLong's interval per ``by`` slice from counts (ties 1/2), NULL slices included:
    the columns of ``sqlmetrics.evaluate(expand(frame), ["auc"], by=by, ci=ci)``.

    Per slice, per distinct score s: pos_s, neg_s the counts of each class; P, N the totals;
    neg_below_s, pos_below_s the counts below s.
        V10(s) = (neg_below_s + neg_s / 2) / N       (the placement of a click scored s)
        V01(s) = (P - pos_below_s - pos_s / 2) / P   (the placement of a non-click scored s)
        AUC = U / (P N), 2U = sum_s pos_s (2 neg_below_s + neg_s)   (an exact integer)
        S10 = sum_s pos_s (V10(s) - AUC)^2 / (P - 1), S01 = sum_s neg_s (V01(s) - AUC)^2 / (N - 1)
        se = sqrt(S10 / P + S01 / N); interval: AUC -/+ z se clipped to [0, 1],
        z = Phi^-1((1 + ci) / 2)
    AUC NaN when P = 0 or N = 0; the interval NaN when P < 2 or N < 2.
    """
    by = list(by)
    f = frame[[*by, score, label, n]]
    y = f[label].to_numpy()
    cnt = f[n].to_numpy().astype(np.int64)
    f = f.assign(_pos=np.where(y == 1, cnt, 0), _neg=np.where(y == 1, 0, cnt))
    # one row per (slice, score), sorted: the slices' rows are contiguous, scores ascending
    per_score = f.groupby([*by, score], dropna=False, sort=True)[["_pos", "_neg"]].sum()
    per_score = per_score.reset_index()
    gid = per_score.groupby(by, dropna=False, sort=False).ngroup().to_numpy()
    n_groups = int(gid.max()) + 1 if len(gid) else 0
    pos = per_score["_pos"].to_numpy()
    neg = per_score["_neg"].to_numpy()

    def total(x: np.ndarray) -> np.ndarray:
        return np.bincount(gid, weights=x, minlength=n_groups)

    def below(x: np.ndarray) -> np.ndarray:  # the slice's counts at scores below each row's
        run = np.cumsum(x)
        starts = np.concatenate([[0], run[:-1]])
        first = np.searchsorted(gid, gid)  # each row's slice's first row
        return np.asarray(run - x - (starts[first] if len(x) else 0))

    pos_below, neg_below = below(pos), below(neg)
    big_p, big_n = total(pos), total(neg)  # P, N per slice (floats holding integers)
    u2 = total(pos * (2 * neg_below + neg))  # twice Mann-Whitney's U, an exact integer
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = u2 / 2 / (big_p * big_n)
        v10 = (neg_below + neg / 2) / big_n[gid]
        v01 = (big_p[gid] - pos_below - pos / 2) / big_p[gid]
        s10 = total(np.where(pos > 0, pos * (v10 - auc[gid]) ** 2, 0.0)) / (big_p - 1)
        s01 = total(np.where(neg > 0, neg * (v01 - auc[gid]) ** 2, 0.0)) / (big_n - 1)
        ok = (big_p >= 2) & (big_n >= 2)
        se = np.sqrt(np.where(ok, s10 / big_p + s01 / big_n, np.nan))
    z = _NORMAL.inv_cdf((1 + ci) / 2)
    first_rows = np.searchsorted(gid, np.arange(n_groups))
    result = per_score[by].iloc[first_rows].reset_index(drop=True)
    result["auc"] = np.where((big_p > 0) & (big_n > 0), auc, np.nan)
    result["auc_lo"] = np.maximum(auc - z * se, 0.0)
    result["auc_hi"] = np.minimum(auc + z * se, 1.0)
    result["n_rows"] = (big_p + big_n).astype(np.int64)
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m examples.monitoring.simulate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", type=float, default=0.01, help="volume multiplier")
    parser.add_argument("--out", default="monitoring.parquet", help=".csv or .parquet")
    parser.add_argument("--rows", action="store_true", help="one row per impression")
    args = parser.parse_args(argv)
    sim = simulate(args.seed, scale=args.scale)
    table = expand(sim.frame) if args.rows else sim.frame
    out = Path(args.out)
    if out.suffix == ".csv":
        table.to_csv(out, index=False, date_format="%Y-%m-%d")
    elif out.suffix == ".parquet":
        table.to_parquet(out, index=False)
    else:
        parser.error(f"--out: a .csv or .parquet path, not {out}")
    print(f"{out}: {len(table):,} rows ({int(sim.frame['n'].sum()):,} impressions)")
    for d in sim.drops:
        print(f"drop: {d.slice} from {d.start} for {d.days} days, AUC -{d.delta:.4f}")


if __name__ == "__main__":
    main()
