"""Deliberately naive reference implementations of the ranking metrics.

A different algorithm from the SQL on purpose: each group's list is sorted in Python and every
metric computed by an explicit loop over positions; ``ties="average"`` is computed by listing
*every* order of the tied items (the product of the permutations of each tie group) and
averaging the metric over them, where the SQL uses closed forms. Slow, obvious, and pinned to
published numbers in tests/test_ranking.py.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

NAN = float("nan")
MAX_ORDERS = 50_000

Row = tuple[Any, Any, float, float]  # group, item, score, label


def gain_of(label: float, gain: str) -> float:
    return label if gain == "linear" else 2.0**label - 1.0


def orders(items: Sequence[tuple[Any, float, float]], ties: str) -> list[list[float]]:
    """Every ranked list of labels the tie policy allows, all equally likely.

    ``items``: (item, score, label). item_desc / item_asc give one list; average lists every
    order of every tie group (score desc between groups).
    """
    if ties in ("item_desc", "item_asc"):
        ordered = sorted(items, key=lambda x: x[0], reverse=ties == "item_desc")
        ordered = sorted(ordered, key=lambda x: x[1], reverse=True)  # stable: keeps item order
        return [[x[2] for x in ordered]]
    scores = sorted({x[1] for x in items}, reverse=True)
    blocks = [[x[2] for x in items if x[1] == s] for s in scores]
    n_orders = math.prod(math.factorial(len(b)) for b in blocks)
    if n_orders > MAX_ORDERS:
        raise ValueError(f"oracle: {n_orders} orders of tied items is too many to list")
    result = []
    for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
        result.append([label for block in combo for label in block])
    return result


def dcg_list(labels: Sequence[float], k: int | None, gain: str) -> float:
    total = 0.0
    for i, label in enumerate(labels, start=1):
        if k is not None and i > k:
            break
        total += gain_of(label, gain) / math.log2(i + 1)
    return total


def per_list(
    name: str,
    ranked: Sequence[float],
    judged: Sequence[float],
    k: int | None,
    level: float,
    gain: str,
    ap_denominator: str,
) -> tuple[float, float]:
    """(numerator-style value, weight) of one group for one order of its items.

    For every metric but hit_ratio the first element is the group's value (0/0 -> 0) and the
    second is unused; for hit_ratio it is (hits, relevant).
    """
    rel = [1 if label >= level else 0 for label in ranked]
    n_rel = sum(1 for label in judged if label >= level)
    top = rel if k is None else rel[:k]
    hits = sum(top)
    if name == "hit_ratio":
        return float(hits), float(n_rel)
    if name == "hit_rate":
        return (1.0 if hits > 0 else 0.0), 1.0
    if name == "precision_at_k":
        size = k if k is not None else len(rel)
        return (hits / size if size else 0.0), 1.0
    if name == "recall_at_k":
        return (hits / n_rel if n_rel else 0.0), 1.0
    if name == "r_precision":
        return (sum(rel[:n_rel]) / n_rel if n_rel else 0.0), 1.0
    if name == "map":
        total = 0.0
        seen = 0
        for i, r in enumerate(top, start=1):
            if r:
                seen += 1
                total += seen / i
        den = {
            "relevant": n_rel,
            "hits": hits,
            "min_k_relevant": n_rel if k is None else min(k, n_rel),
        }[ap_denominator]
        return (total / den if den else 0.0), 1.0
    if name == "mrr":
        for i, r in enumerate(top, start=1):
            if r:
                return 1.0 / i, 1.0
        return 0.0, 1.0
    if name == "cg":
        return sum(gain_of(label, gain) for label in (ranked if k is None else ranked[:k])), 1.0
    ideal = dcg_list(sorted((x for x in judged if x > 0), reverse=True), k, gain)
    if name == "idcg":
        return ideal, 1.0
    actual = dcg_list(ranked, k, gain)
    if name == "dcg":
        return actual, 1.0
    if name == "ndcg":
        return (actual / ideal if ideal > 0 else 0.0), 1.0
    raise ValueError(name)


def metric(
    name: str,
    rows: Iterable[Row],
    *,
    qrels: Iterable[tuple[Any, Any, float]] | None = None,
    k: int | None = None,
    ties: str = "item_desc",
    gain: str = "exponential",
    empty: str = "skip",
    missing: str = "skip",
    relevance_level: float = 1,
    ap_denominator: str = "relevant",
    group_weights: dict[Any, float] | None = None,
) -> float:
    """The metric over ``rows`` (group, item, score, label); NaN when no group is left.

    With ``qrels`` (group, item, label) the labels of ``rows`` are ignored: a run item gets its
    qrels label or 0, the groups are those of the qrels (a run group without judgments is not
    evaluated), and a judged group without run rows is *missing*: left out with
    ``missing="skip"``, counted (as a group that retrieved nothing) with ``"zero"``. A group
    with no relevant item is *empty* (``empty=``); a missing and empty group needs both
    policies to keep it. ``group_weights`` (group -> W_g): the weighted mean
    sum_g W_g v_g / sum_g W_g of the groups kept (NaN when their weights sum to 0).
    """
    run: dict[Any, list[tuple[Any, float, float]]] = {}
    for g, i, s, label in rows:
        run.setdefault(g, []).append((i, s, label))
    if qrels is not None:
        judged_by: dict[Any, dict[Any, float]] = {}
        for g, i, label in qrels:
            judged_by.setdefault(g, {})[i] = label
        groups = {
            g: (
                [(i, s, judged_by[g].get(i, 0.0)) for i, s, _ in run.get(g, [])],
                list(judged_by[g].values()),
            )
            for g in judged_by
        }
    else:
        groups = {g: (items, [x[2] for x in items]) for g, items in run.items()}

    values: list[tuple[float, float]] = []
    weights: list[float] = []
    for g, (items, judged) in groups.items():
        n_rel = sum(1 for label in judged if label >= relevance_level)
        is_missing = not items
        if is_missing and missing == "skip":
            continue
        if is_missing and missing == "error":
            raise ValueError("missing group")
        is_empty = n_rel == 0
        if is_empty and empty == "skip":
            continue
        if is_empty and empty == "error":
            raise ValueError("empty group")
        lists = orders(items, ties) if items else [[]]
        parts = [
            per_list(name, lst, judged, k, relevance_level, gain, ap_denominator) for lst in lists
        ]
        values.append((sum(p[0] for p in parts) / len(parts), parts[0][1]))
        weights.append(1.0 if group_weights is None else float(group_weights[g]))
    if not values:
        return NAN
    if group_weights is not None:
        total = math.fsum(weights)
        return math.fsum(w * v[0] for w, v in zip(weights, values)) / total if total else NAN
    if name == "hit_ratio":
        den = sum(v[1] for v in values)
        return sum(v[0] for v in values) / den if den else 0.0
    return sum(v[0] for v in values) / len(values)


def is_close(a: float, b: float, tol: float = 1e-9) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def tfr_list_weights(
    rows: Iterable[tuple[Any, Any, float, float, float]], relevance_level: float = 1.0
) -> dict[Any, float]:
    """TF-Ranking's per-list weights from per-item weights (metrics_impl.py,
    ``_per_example_weights_to_per_list_weights(weights, relevance)``), transcribed:
    W_g = sum_i w_i rel_i / sum_i rel_i over the list's items (rel_i = 1 when label >=
    relevance_level); a list with no relevant item gets the mean of W_g over the lists that
    have one (0 when none has). ``rows``: (group, item, score, label, weight). Sums in
    math.fsum (correctly rounded), as the SQL's exact sums.
    """
    num: dict[Any, list[float]] = {}
    den: dict[Any, int] = {}
    for g, _i, _s, label, w in rows:
        rel = 1 if label >= relevance_level else 0
        num.setdefault(g, []).append(w * rel)
        den[g] = den.get(g, 0) + rel
    ratios = {g: math.fsum(num[g]) / den[g] for g in num if den[g] > 0}
    mean = math.fsum(ratios.values()) / len(ratios) if ratios else 0.0
    return {g: ratios.get(g, mean) for g in num}
