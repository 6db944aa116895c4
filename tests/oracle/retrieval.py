"""Deliberately naive retrieval extras: rbp, fallout, bpref, iprec_at_recall, iprec_11pt_avg,
gm_map, each an explicit loop over one ranked list, written from trec_eval's C loops (bpref's
forward loop, the interpolated precision's backward loop over positions); ``ties="average"``
lists every order of the tied items (as tests/oracle/ranking.py). Pinned to trec_eval's own
test suite in tests/test_retrieval.py.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

NAN = float("nan")
MAX_ORDERS = 50_000
LEVELS_11PT = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MIN_GEO_MEAN = 0.00001  # trec_eval's floor for gm_map

# a ranked entry: the label, or None for an item the judgments do not hold (unjudged)
Label = float | None


def lround(x: float) -> int:
    """C's lround for x >= 0: the nearest integer, halves away from zero."""
    whole = math.floor(x)
    return whole + (1 if x - whole >= 0.5 else 0)


def orders(items: Sequence[tuple[Any, float, Label]], ties: str) -> list[list[Label]]:
    """Every ranked list of labels the tie policy allows, all equally likely."""
    if ties in ("item_desc", "item_asc"):
        ordered = sorted(items, key=lambda x: x[0], reverse=ties == "item_desc")
        ordered = sorted(ordered, key=lambda x: x[1], reverse=True)
        return [[x[2] for x in ordered]]
    scores = sorted({x[1] for x in items}, reverse=True)
    blocks = [[x[2] for x in items if x[1] == s] for s in scores]
    if math.prod(math.factorial(len(b)) for b in blocks) > MAX_ORDERS:
        raise ValueError("oracle: too many orders of tied items to list")
    return [
        [label for block in combo for label in block]
        for combo in itertools.product(*(itertools.permutations(b) for b in blocks))
    ]


def level_count(level: float, n_rel: int, recall_rounding: str = "trec_eval_10") -> int:
    """The count of relevant items at recall level L: trec_eval 10's lround(L R), or trec_eval
    9's (long)(L R + 0.9) (m_iprec_at_recall.c; C's cast truncates, as int() does here)."""
    if recall_rounding == "trec_eval_9":
        return int(level * n_rel + 0.9)
    return lround(level * n_rel)


def _iprec_levels(
    rel: Sequence[int], n_rel: int, levels: Sequence[float], recall_rounding: str = "trec_eval_10"
) -> list[float]:
    """trec_eval's loop: backwards over the positions, the running maximum of precision is
    the interpolated precision of every level whose count of relevant items (level_count) is
    reached at the current relevant position."""
    cut = [level_count(level, n_rel, recall_rounding) for level in levels]
    n_ret, rel_ret = len(rel), sum(rel)
    values = [0.0] * len(levels)
    best = rel_ret / n_ret if n_ret else 0.0
    so_far = rel_ret
    for i in range(n_ret, 0, -1):
        if so_far == 0:
            break
        best = max(best, so_far / i)
        if rel[i - 1]:
            for j, c in enumerate(cut):
                if c == so_far:
                    values[j] = best
            so_far -= 1
    for j, c in enumerate(cut):
        if c == 0:
            values[j] = best
    return values


def per_list(
    name: str,
    ranked: Sequence[Label],
    judged: Sequence[float],
    k: int | None,
    level: float,
    ap_denominator: str = "relevant",
    persistence: float = 0.9,
    recall_level: float = 0.0,
    recall_rounding: str = "trec_eval_10",
) -> float:
    """The value of one group for one order of its items (0/0 counts 0)."""
    rel = [1 if (label is not None and label >= level) else 0 for label in ranked]
    n_rel = sum(1 for label in judged if label >= level)
    top = rel if k is None else rel[:k]
    if name == "rbp":
        return (1 - persistence) * sum(r * persistence**i for i, r in enumerate(top))
    if name == "fallout":
        nonrel = sum(1 - r for r in rel)
        return sum(1 - r for r in top) / nonrel if nonrel else 0.0
    if name == "bpref":
        n_nonrel = sum(1 for label in judged if label < level)
        total, nonrel_so_far = 0.0, 0
        for label, r in zip(ranked, rel):
            if label is None:
                continue  # unjudged: skipped
            if r:
                if nonrel_so_far > 0:
                    total += 1 - min(nonrel_so_far, n_rel) / min(n_rel, n_nonrel)
                else:
                    total += 1
            else:
                nonrel_so_far += 1
        return total / n_rel if n_rel else 0.0
    if name == "iprec_at_recall":
        return _iprec_levels(rel, n_rel, [recall_level], recall_rounding)[0]
    if name == "iprec_11pt_avg":
        return sum(_iprec_levels(rel, n_rel, LEVELS_11PT, recall_rounding)) / 11
    if name == "gm_map":  # the group's AP; the logarithm is taken after the tie average
        total, seen = 0.0, 0
        for i, r in enumerate(top, start=1):
            if r:
                seen += 1
                total += seen / i
        den = {
            "relevant": n_rel,
            "hits": sum(top),
            "min_k_relevant": n_rel if k is None else min(k, n_rel),
        }[ap_denominator]
        return total / den if den else 0.0
    raise ValueError(name)


def metric(
    name: str,
    rows: Iterable[tuple[Any, Any, float, float]],
    *,
    qrels: Iterable[tuple[Any, Any, float]] | None = None,
    k: int | None = None,
    ties: str = "item_desc",
    empty: str = "skip",
    missing: str = "skip",
    relevance_level: float = 1,
    ap_denominator: str = "relevant",
    persistence: float = 0.9,
    recall_level: float = 0.0,
    recall_rounding: str = "trec_eval_10",
    gain: str = "exponential",  # accepted for the shared call shape; no metric here uses it
) -> float:
    """The metric over ``rows`` (group, item, score, label); NaN when no group is left.

    With ``qrels`` (group, item, label) the labels of ``rows`` are ignored; a run item absent
    from them is unjudged (None: non-relevant, skipped by bpref); the groups are the judged
    ones; a judged group without run rows is missing (``missing=``), one without a relevant
    item empty (``empty=``), as tests/oracle/ranking.py.
    """
    del gain
    run: dict[Any, list[tuple[Any, float, Label]]] = {}
    for g, i, s, label in rows:
        run.setdefault(g, []).append((i, s, label))
    if qrels is not None:
        judged_by: dict[Any, dict[Any, float]] = {}
        for g, i, label in qrels:
            judged_by.setdefault(g, {})[i] = label
        groups = {
            g: ([(i, s, judged_by[g].get(i)) for i, s, _ in run.get(g, [])], list(j.values()))
            for g, j in judged_by.items()
        }
    else:
        groups = {g: (items, [float(x[2] or 0) for x in items]) for g, items in run.items()}
    values = []
    for items, judged in groups.values():
        is_missing = not items
        if is_missing and missing != "zero":
            if missing == "error":
                raise ValueError("missing group")
            continue
        if not any(label >= relevance_level for label in judged):
            if empty == "error":
                raise ValueError("empty group")
            if empty == "skip":
                continue
        lists = orders(items, ties) if items else [[]]
        parts = [
            per_list(
                name,
                lst,
                judged,
                k,
                relevance_level,
                ap_denominator,
                persistence,
                recall_level,
                recall_rounding,
            )
            for lst in lists
        ]
        values.append(sum(parts) / len(parts))
    if not values:
        return NAN
    if name == "gm_map":
        return math.exp(sum(math.log(max(v, MIN_GEO_MEAN)) for v in values) / len(values))
    return sum(values) / len(values)
