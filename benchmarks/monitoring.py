"""The acceptance study of ``sqlmetrics.metric_anomalies`` (issue 44): does it find injected
AUC drops, and how often does it cry wolf, with intervals and as a plain z-score?

    python -m benchmarks.monitoring [--seeds 100] [--oracle] [--jobs 2] [--grid]

For each seed 0..seeds-1: ``examples.monitoring.simulate.simulate(seed)`` (90 days, six
slices of 55k to 400k impressions a day, weekday volume and AUC effects, true day-to-day
jitter, the last two days' labels incomplete, three injected drops of 0.01 to 0.03 lasting 7
days; every parameter is in that module's docstring), then ``daily_auc`` (per slice and day:
the AUC, DeLong's 95 % interval, n_rows: what ``sqlmetrics.evaluate(rows, ["auc"],
by=["day", "slice"], ci=0.95)`` returns). The seeds' daily tables are stacked (a ``seed``
column) and scored in one call per option set, ``by=["seed", "slice"]``:

- with intervals: the daily table as it is (``auc_lo``/``auc_hi``: the sampling error);
- plain: the same table without ``auc_lo``/``auc_hi`` (the plain z-score of the daily values).

Scored by ``sqlmetrics.metric_anomalies`` (DuckDB); ``--oracle``: by the naive reference
``tests/oracle/anomalies.py`` instead (the same definition, MONITOR_SPEC.md). Without
``--oracle`` the first seeds are scored both ways and must agree.

What counts:

- detection: an injected drop (slice, first day f) is detected when ``anomaly`` is true in its
  slice on day f or f + 1 (its first or second day). Every drop starts on day 35..85, so both
  days are before the pending last two days; the share is over all drops (3 per seed).
  Also given: on day f alone, and the drops smaller than 0.015 (day f or f + 1).
- false alarms: the days of a slice after the first 30 (the warm-up, when the baselines fill)
  are cut into two 30-day blocks (days 30-59 and 60-89). A (seed, slice, block) pair is clean
  when no injected drop of that slice is active on any of its days; it raises an alarm when
  ``anomaly`` is true on any of its scored days (status 'scored': with delay=2 days 88 and 89
  are 'pending' and never alarm; every option set of the grid scores every other day of the
  blocks). The share is alarmed pairs over clean pairs; the last column gives the alarms per
  scored clean day. (Days after a drop, whose baselines still hold drop days, are in a clean
  block when the drop ended in the block before: the lowered baseline makes a drop alarm there
  less likely, not more.)

Shares are given with Wilson 95 % intervals. ``--grid`` also scores a grid of other options
(window, seasonality, min_history, threshold, delay=0) and prints both modes for each.
The table is printed and written to ``benchmarks/data/monitoring.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from examples.monitoring import simulate as sim

HERE = Path(__file__).resolve().parent
BLOCK = 30
SMALL = 0.015  # the drops below this size, reported apart
TARGET_DETECTION = 0.90
TARGET_ALARMS = 0.05


@dataclass(frozen=True)
class Options:
    window: int = 28
    seasonality: str | None = None
    delay: int = 2
    min_history: int = 7
    threshold: float = 3.5

    def label(self) -> str:
        season = self.seasonality or "none"
        return (
            f"window={self.window}, seasonality={season}, delay={self.delay}, "
            f"min_history={self.min_history}, threshold={self.threshold:g}"
        )


#: the options chosen to meet the targets with intervals: the weekday baseline (a weekday
#: effect is not a deviation) over 8 weeks, at least 4 same-weekday days, 3.5 sd (3.0 met the
#: false-alarm target only narrowly, 4.0 missed more small drops; --grid shows both)
CHOSEN = Options(window=56, seasonality="weekday", delay=2, min_history=4, threshold=3.5)


def one_seed(seed: int) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    s = sim.simulate(seed)
    daily = sim.daily_auc(s.frame, ci=0.95)
    daily.insert(0, "seed", seed)
    drops = [
        {"seed": seed, "slice": d.slice, "first": d.first, "days": d.days, "delta": d.delta}
        for d in s.drops
    ]
    return daily, drops


def simulate_all(seeds: int, jobs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(one_seed, range(seeds)))
    else:
        parts = [one_seed(s) for s in range(seeds)]
    daily = pd.concat([p[0] for p in parts], ignore_index=True)
    drops = pd.DataFrame([d for p in parts for d in p[1]])
    return daily, drops


def score(daily: pd.DataFrame, opts: Options, *, plain: bool, oracle: bool) -> pd.DataFrame:
    """The anomaly table of the stacked daily tables, by (seed, slice)."""
    data = daily.drop(columns=["auc_lo", "auc_hi"]) if plain else daily
    if oracle:
        from tests.oracle.anomalies import anomalies

        return anomalies(
            data,
            value="auc",
            lo=None if plain else "auc_lo",
            hi=None if plain else "auc_hi",
            n_rows="n_rows",
            day="day",
            by=["seed", "slice"],
            window=opts.window,
            seasonality=opts.seasonality,
            delay=opts.delay,
            min_rows=0,
            min_history=opts.min_history,
            threshold=opts.threshold,
            direction="drop",
            ci_level=0.95,
        )
    import sqlmetrics

    result: pd.DataFrame = sqlmetrics.metric_anomalies(
        data,
        "auc",
        day="day",
        by=["seed", "slice"],
        window=opts.window,
        seasonality=opts.seasonality,
        delay=opts.delay,
        min_history=opts.min_history,
        threshold=opts.threshold,
    )
    return result


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    z = 1.959963984540054 if level == 0.95 else float("nan")
    p = k / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return center - half, center + half


@dataclass
class Measure:
    detected: int
    drops: int
    first_day: int
    small_detected: int
    small: int
    alarmed: int
    clean: int
    scored_days: int
    alarm_days: int

    def detection(self) -> float:
        return self.detected / self.drops

    def false_alarms(self) -> float:
        return self.alarmed / self.clean if self.clean else math.nan


def measure(table: pd.DataFrame, drops: pd.DataFrame) -> Measure:
    t = table[["seed", "slice", "day", "anomaly", "status"]].copy()
    t["d"] = (
        (pd.to_datetime(t["day"]) - pd.Timestamp(sim.START)).dt.days.to_numpy().astype(np.int64)
    )
    t["anomaly"] = t["anomaly"].fillna(False).astype(bool)
    flagged = set(
        zip(t.loc[t["anomaly"], "seed"], t.loc[t["anomaly"], "slice"], t.loc[t["anomaly"], "d"])
    )
    detected = first_day = small = small_detected = 0
    active: set[tuple[int, str, int]] = set()  # (seed, slice, block) with a drop day
    for r in drops.itertuples():
        hit = (r.seed, r.slice, r.first) in flagged or (r.seed, r.slice, r.first + 1) in flagged
        detected += hit
        first_day += (r.seed, r.slice, r.first) in flagged
        if r.delta < SMALL:
            small += 1
            small_detected += hit
        for d in range(r.first, r.first + r.days):
            active.add((r.seed, r.slice, d // BLOCK))
    t["block"] = t["d"] // BLOCK
    scored = t[(t["status"] == "scored") & (t["block"] >= 1)]
    per_block = scored.groupby(["seed", "slice", "block"])["anomaly"].any()
    clean = [k not in active for k in per_block.index]
    per_clean = per_block[clean]
    clean_days = scored[[(k not in active) for k in zip(scored.seed, scored.slice, scored.block)]]
    return Measure(
        detected=detected,
        drops=len(drops),
        first_day=first_day,
        small_detected=small_detected,
        small=small,
        alarmed=int(per_clean.sum()),
        clean=len(per_clean),
        scored_days=len(clean_days),
        alarm_days=int(clean_days["anomaly"].sum()),
    )


def pct(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f} % ({100 * lo:.1f}-{100 * hi:.1f})" if n else "-"


def row(name: str, opts: Options, m: Measure) -> str:
    return (
        f"| {name} | {opts.label()} | {pct(m.detected, m.drops)} | "
        f"{pct(m.first_day, m.drops)} | {pct(m.small_detected, m.small)} | "
        f"{pct(m.alarmed, m.clean)} | {m.clean} | "
        f"{100 * m.alarm_days / max(m.scored_days, 1):.2f} % of {m.scored_days} |"
    )


HEADER = (
    "| mode | options | drops detected on day 1 or 2 | on day 1 | drops < 0.015 on day 1 or 2 "
    "| clean slice-blocks with an alarm | clean slice-blocks | alarm days / scored clean days |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|"
)

GRID = [
    Options(window=28, seasonality=None, min_history=7, threshold=3.5),
    Options(window=28, seasonality=None, min_history=7, threshold=3.0),
    Options(window=28, seasonality="weekday", min_history=3, threshold=3.5),
    Options(window=56, seasonality="weekday", min_history=4, threshold=3.0),
    Options(window=56, seasonality="weekday", min_history=4, threshold=4.0),
    Options(window=56, seasonality=None, min_history=7, threshold=3.5),
    Options(window=56, seasonality="weekday", delay=0, min_history=4, threshold=3.5),
]


def summary(results: list[tuple[bool, Options, Measure]]) -> list[str]:
    """Which option sets meet the targets in each mode, and the best of them on small drops."""
    out = [
        f"Targets: drops detected on day 1 or 2 >= {100 * TARGET_DETECTION:.0f} %, clean "
        f"slice-blocks with an alarm <= {100 * TARGET_ALARMS:.0f} %."
    ]
    for plain in (False, True):
        mode = "plain z-score" if plain else "intervals"
        ok = [
            (opts, m)
            for p, opts, m in results
            if p == plain
            and m.detection() >= TARGET_DETECTION
            and m.false_alarms() <= TARGET_ALARMS
        ]
        if not ok:
            out.append(f"- {mode}: no option set run meets both targets.")
            continue
        opts, m = max(ok, key=lambda x: (x[1].small_detected / max(x[1].small, 1), x[1].detected))
        out.append(
            f"- {mode}: {len(ok)} of {sum(p == plain for p, _, _ in results)} option sets meet "
            f"both; the best on drops < {SMALL}: {opts.label()} ({pct(m.detected, m.drops)} "
            f"detected, {pct(m.small_detected, m.small)} of the small ones, "
            f"{pct(m.alarmed, m.clean)} false alarms)."
        )
    return out


def agree(daily: pd.DataFrame, opts: Options, seeds: Sequence[int]) -> str:
    """The real function and the oracle on the first seeds, both modes: equal flags."""
    part = daily[daily["seed"].isin(list(seeds))]
    worst = 0.0
    for plain in (False, True):
        a = score(part, opts, plain=plain, oracle=False).reset_index(drop=True)
        b = score(part, opts, plain=plain, oracle=True).reset_index(drop=True)
        assert len(a) == len(b)
        assert (a["status"].to_numpy() == b["status"].to_numpy()).all(), "status differs"
        assert (a["anomaly"].to_numpy() == b["anomaly"].to_numpy()).all(), "anomaly differs"
        for col in ["baseline", "band_lo", "band_hi", "z"]:
            x, y = a[col].to_numpy(dtype=float), b[col].to_numpy(dtype=float)
            assert (np.isnan(x) == np.isnan(y)).all(), col
            ok = ~np.isnan(x)
            if ok.any():
                worst = max(worst, float(np.abs(x[ok] - y[ok]).max()))
    return (
        f"metric_anomalies = the oracle on seeds {list(seeds)}, both modes (max |diff| {worst:.1e})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--oracle", action="store_true", help="score with tests/oracle")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--grid", action="store_true", help="also score the option grid")
    parser.add_argument("--out", default=str(HERE / "data" / "monitoring.md"))
    args = parser.parse_args(argv)

    start = time.perf_counter()
    daily, drops = simulate_all(args.seeds, args.jobs)
    t_sim = time.perf_counter() - start
    scorer = (
        "the oracle (tests/oracle/anomalies.py)"
        if args.oracle
        else "sqlmetrics.metric_anomalies (DuckDB)"
    )
    lines = [
        f"# metric_anomalies acceptance study: {args.seeds} seeds "
        f"({len(daily):,} slice-days, {len(drops)} injected drops)",
        "",
        f"Scored by {scorer}; "
        "direction drop (AUC); detection: anomaly on a drop's first or second day; false "
        "alarms: clean (seed, slice, 30-day block of days 30-59 or 60-89) pairs with any anomaly "
        "on a scored day (benchmarks/monitoring.py's docstring). Shares with Wilson 95 % "
        "intervals.",
        "",
        HEADER,
    ]
    t0 = time.perf_counter()
    if not args.oracle:
        note = agree(daily, CHOSEN, range(3))
    configs = [CHOSEN, *(GRID if args.grid else [])]
    results: list[tuple[bool, Options, Measure]] = []
    for i, opts in enumerate(configs):
        for plain in (False, True):
            m = measure(score(daily, opts, plain=plain, oracle=args.oracle), drops)
            results.append((plain, opts, m))
            name = ("**intervals**" if i == 0 else "intervals") if not plain else "plain z-score"
            lines.append(row(name, opts, m))
            print(lines[-1], flush=True)
    t_score = time.perf_counter() - t0
    lines += ["", *summary(results)]
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines += [
        "",
        f"Wall time: simulation and daily AUC {t_sim:.1f} s ({args.jobs} processes), scoring "
        f"{t_score:.1f} s; total {time.perf_counter() - start:.1f} s. Load: {load}",
    ]
    if not args.oracle:
        lines.append(note)
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
