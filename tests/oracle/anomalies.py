"""Naive reference for ``sqlmetrics.metric_anomalies`` (issue 44; the definition is
MONITOR_SPEC.md, copied in the comments below).

A loop over the rows, and for each row a loop over every row of its slice to find its
baseline days: quadratic, plain Python floats, obviously the formulas. Options are passed
explicitly, resolved (no defaults from the metric registry): ``lo``/``hi`` None is the plain
mode (no sampling error), ``n_rows`` None means no row counts (``min_rows`` must be 0),
``direction`` one of "drop", "rise", "both".

Per row (slice s, day d), dn(d) the day's number (days since 1970-01-01):

- se = (hi - lo) / (2 z), z = Phi^-1((1 + ci_level) / 2); se = 0 in the plain mode.
- eligible(d): value not NULL; se not NULL (with intervals); n_rows >= min_rows (with row
  counts); dn(d) <= dn(last) - delay, last the latest day of the whole table.
- B(d): the eligible rows b of the same slice (NULL slices equal each other) with
  dn(d) - window <= dn(b) <= dn(d) - 1, and dn(b) = dn(d) mod 7 with seasonality="weekday".
- m = mean_B v; s2 = sum_B (v - m)^2 / (n_b - 1); q = mean_B se^2; tau2 = max(0, s2 - q);
  sd = sqrt(tau2 + se_d^2 + (tau2 + q) / n_b)  (plain: spread * sqrt(1 + 1/n_b));
  band = m -/+ threshold sd; z = (v - m) / sd (NULL when sd = 0);
  deviation 'drop' when v < band_lo, 'rise' when v > band_hi; anomaly = deviation flagged
  by ``direction``.
- scored: eligible and n_b >= max(min_history, 2). Otherwise, the first that applies of
  'pending' (dn(d) > dn(last) - delay), 'undefined' (value or se NULL), 'few_rows'
  (n_rows < min_rows, or NULL: not >= min_rows), 'no_history' (the order of
  sql/_macros/inference/anomalies.sql's header); baseline .. deviation NULL and anomaly false;
  n_baseline = |B(d)| on every row.

Output: one row per input row, sorted by the slices (NULL last) then the day: the ``by``
columns, the day column (under its own name), value, lo, hi (NULL in the plain mode),
n_rows (when row counts are used), se, n_baseline, baseline, spread, tau, band_lo, band_hi,
z, deviation, anomaly, status.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

EPOCH = dt.date(1970, 1, 1)


def day_number(day: Any) -> int:
    """Days since 1970-01-01 of a date, a timestamp (its date) or an ISO date string."""
    if isinstance(day, str):
        day = dt.date.fromisoformat(day[:10])
    elif isinstance(day, np.datetime64):
        day = pd.Timestamp(day)
    if isinstance(day, dt.datetime):  # pandas.Timestamp is one
        day = day.date()
    if not isinstance(day, dt.date):
        raise TypeError(f"not a day: {day!r}")
    return (day - EPOCH).days


def _null(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x)) or x is pd.NA or x is pd.NaT


def _key(x: Any) -> Any:
    """A slice value as a dict key: every NULL the same key (NULL slices equal each other)."""
    return ("NULL",) if _null(x) else ("v", x)


def anomalies(
    daily: pd.DataFrame,
    *,
    value: str,
    lo: str | None,
    hi: str | None,
    n_rows: str | None,
    day: str = "day",
    by: Sequence[str] = (),
    window: int = 28,
    seasonality: str | None = None,
    delay: int = 0,
    min_rows: int = 0,
    min_history: int = 7,
    threshold: float = 3.5,
    direction: str = "both",
    ci_level: float = 0.95,
) -> pd.DataFrame:
    """The anomaly table of ``daily`` (one row per slice and day), row by row."""
    by = list(by)
    assert (lo is None) == (hi is None), "lo and hi: both or neither"
    assert n_rows is not None or min_rows == 0, "min_rows needs row counts"
    assert seasonality in (None, "weekday")
    assert direction in ("drop", "rise", "both")
    intervals = lo is not None
    z_level = NormalDist().inv_cdf((1 + ci_level) / 2)

    rows: list[dict[str, Any]] = []
    for rec in daily.to_dict("records"):
        v = rec[value]
        v = None if _null(v) else float(v)
        lo_v = None if not intervals or _null(rec[lo]) else float(rec[lo])  # type: ignore[index]
        hi_v = None if not intervals or _null(rec[hi]) else float(rec[hi])  # type: ignore[index]
        if intervals:
            # se = (hi - lo) / (2 z): the interval's half width over its normal quantile
            se = None if lo_v is None or hi_v is None else (hi_v - lo_v) / (2 * z_level)
        else:
            se = 0.0
        n = None if n_rows is None or _null(rec[n_rows]) else rec[n_rows]
        assert not _null(rec[day]), "days must not be NULL"
        rows.append(
            {
                "slices": [rec[c] for c in by],
                "key": tuple(_key(rec[c]) for c in by),
                "day": rec[day],
                "dn": day_number(rec[day]),
                "v": v,
                "lo": lo_v,
                "hi": hi_v,
                "n": n,
                "se": se,
            }
        )

    last = max(r["dn"] for r in rows) if rows else 0
    for r in rows:
        # eligible(d), and the first reason it is not
        if r["dn"] > last - delay:
            r["why"] = "pending"
        elif r["v"] is None or r["se"] is None:
            r["why"] = "undefined"
        elif n_rows is not None and (r["n"] is None or r["n"] < min_rows):
            r["why"] = "few_rows"
        else:
            r["why"] = None
        r["eligible"] = r["why"] is None

    same_slice: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        same_slice.setdefault(r["key"], []).append(r)

    out = []
    for r in rows:
        # B(d): eligible days of the same slice in [dn - window, dn - 1] (same weekday)
        base = [
            b
            for b in same_slice[r["key"]]
            if b["eligible"]
            and r["dn"] - window <= b["dn"] <= r["dn"] - 1
            and (seasonality is None or b["dn"] % 7 == r["dn"] % 7)
        ]
        n_b = len(base)
        res: dict[str, Any] = dict(zip(by, r["slices"]))
        res[day] = r["day"]
        res["value"] = r["v"]
        res["lo"] = r["lo"]
        res["hi"] = r["hi"]
        if n_rows is not None:
            res["n_rows"] = r["n"]
        res["se"] = r["se"]
        res["n_baseline"] = n_b
        stats: dict[str, Any] = dict.fromkeys(
            ["baseline", "spread", "tau", "band_lo", "band_hi", "z", "deviation"]
        )
        anomaly = False
        if not r["eligible"]:
            status = r["why"]
        elif n_b < max(min_history, 2):
            status = "no_history"
        else:
            status = "scored"
            vs = [b["v"] for b in base]
            m = sum(vs) / n_b  # the baseline mean
            s2 = sum((x - m) ** 2 for x in vs) / (n_b - 1)  # its sample variance
            q = sum(b["se"] ** 2 for b in base) / n_b  # mean sampling variance (0 plain)
            tau2 = max(0.0, s2 - q)  # between-day variance, method of moments
            if intervals:
                sd = math.sqrt(tau2 + r["se"] ** 2 + (tau2 + q) / n_b)
            else:
                sd = math.sqrt(s2) * math.sqrt(1 + 1 / n_b)
            band_lo, band_hi = m - threshold * sd, m + threshold * sd
            v = r["v"]
            deviation = "drop" if v < band_lo else "rise" if v > band_hi else None
            stats = {
                "baseline": m,
                "spread": math.sqrt(s2),
                "tau": math.sqrt(tau2),
                "band_lo": band_lo,
                "band_hi": band_hi,
                "z": (v - m) / sd if sd > 0 else None,
                "deviation": deviation,
            }
            anomaly = deviation is not None and direction in (deviation, "both")
        res.update(stats)
        res["anomaly"] = anomaly
        res["status"] = status
        res["_order"] = (
            tuple((k[0] == "NULL", k[1] if k[0] == "v" else 0) for k in r["key"]),
            r["dn"],
        )
        out.append(res)

    out.sort(key=lambda x: x["_order"])
    for res in out:
        del res["_order"]
    columns = [*by, day, "value", "lo", "hi", *(["n_rows"] if n_rows is not None else [])]
    columns += ["se", "n_baseline", "baseline", "spread", "tau", "band_lo", "band_hi", "z"]
    columns += ["deviation", "anomaly", "status"]
    frame = pd.DataFrame(out, columns=columns)
    for col in ["value", "lo", "hi", "se", "baseline", "spread", "tau", "band_lo", "band_hi", "z"]:
        frame[col] = frame[col].astype(float)
    return frame
