"""Naive references for ``sqlmetrics.position_propensities`` and ``sqlmetrics.click_metrics``
(issue 43; the definitions are the header of sql/_macros/counterfactual/position_bias.sql).

Plain Python loops over lists of dicts, plain floats; slices compared with None equal to
None (a NULL slice is a slice of its own).

propensities: over the rows kept (intervention true, position <= max_position), per slice
and position k: c_k clicks, n_k rows; propensity = (c_k / n_k) / (c_1 / n_1) (None without a
click at position 1).

click_metrics: per group, the items ordered by score descending; a tie group of n items at
positions a+1..a+n has each position carry the group's mean weight W / n (w = click / p of
the logged position): the expectation over every order of the tied items. Per group
hits = the carried weights at positions <= k, dcg = sum carried / log2(1 + position) over
positions <= k, ctr = hits / k (k None: / the group's rows), recall = hits / sum w (only
groups with a click). Means over groups per slice; recall over the clicked groups.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

Row = dict[str, Any]


def _key(row: Row, by: Sequence[str]) -> tuple[Any, ...]:
    """The row's slice, a missing value (None, or NaN as pandas gives it) as None."""
    return tuple(None if row[c] is None or row[c] != row[c] else row[c] for c in by)


def _order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """NULL slices last, as the library orders them."""
    return tuple((v is None, v if v is not None else 0) for v in key)


def propensities(
    rows: Sequence[Row],
    *,
    position: str,
    click: str,
    by: Sequence[str] = (),
    kept: Callable[[Row], bool] = lambda row: True,
    max_position: int | None = None,
) -> list[Row]:
    clicks: dict[tuple[Any, ...], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    shown: dict[tuple[Any, ...], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        pos = int(row[position])
        if not kept(row) or (max_position is not None and pos > max_position):
            continue
        key = _key(row, by)
        shown[key][pos] += 1
        clicks[key][pos] += int(row[click])
    out = []
    for key in sorted(shown, key=_order):
        n1, c1 = shown[key].get(1, 0), clicks[key].get(1, 0)
        for pos in sorted(shown[key]):
            n, c = shown[key][pos], clicks[key][pos]
            value = (c / n) / (c1 / n1) if c1 else None
            out.append(
                {**dict(zip(by, key, strict=True)), "position": pos, "propensity": value,
                 "clicks": c, "impressions": n, "ctr": c / n}
            )  # fmt: skip
    return out


def click_metrics(
    rows: Sequence[Row],
    *,
    group: str,
    click: str,
    score: str,
    p: Callable[[Row], float],
    k: int | None,
    by: Sequence[str] = (),
) -> list[Row]:
    groups: dict[tuple[Any, ...], dict[Any, list[Row]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        groups[_key(row, by)][row[group]].append(row)
    out = []
    for key in sorted(groups, key=_order):
        ctrs, dcgs, recalls, n_rows, n_clicks = [], [], [], 0, 0
        for items in groups[key].values():
            weights = [1 / p(r) if r[click] == 1 else 0.0 for r in items]
            scores = sorted({r[score] for r in items}, reverse=True)
            hits = dcg = 0.0
            position = 0
            for s in scores:
                tied = [w for r, w in zip(items, weights, strict=True) if r[score] == s]
                mean = sum(tied) / len(tied)
                for _ in tied:
                    position += 1
                    if k is None or position <= k:
                        hits += mean
                        dcg += mean / math.log2(1 + position)
            ctrs.append(hits / (k if k is not None else len(items)))
            dcgs.append(dcg)
            if sum(r[click] for r in items):
                recalls.append(hits / sum(weights))
            n_rows += len(items)
            n_clicks += sum(int(r[click]) for r in items)
        out.append(
            {
                **dict(zip(by, key, strict=True)),
                "ctr": sum(ctrs) / len(ctrs),
                "dcg": sum(dcgs) / len(dcgs),
                "recall": sum(recalls) / len(recalls) if recalls else None,
                "n_groups": len(ctrs),
                "n_clicked_groups": len(recalls),
                "n_rows": n_rows,
                "n_clicks": n_clicks,
            }
        )
    return out
