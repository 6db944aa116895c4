"""Deliberately naive IR measures of trec_eval and ir_measures: err (gdeval's graded ERR@k),
infap (trec_eval's infAP loop), judged (Judged@k), the set measures and the counts, and
ndcg with a gain map; each an explicit loop over one ranked list, written from the tools'
own loops (gdeval.pl's ``err``, trec_eval's ``te_calc_infap``, ir_measures' judged provider).
``judged_only`` drops the unjudged items of a list before ranking (Sakai 2007). Checked
against ir_measures itself in tests/test_ir_measures.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from oracle.retrieval import Label, orders

NAN = float("nan")
INFAP_EPSILON = 0.00001  # trec_eval's
COUNTS = ("num_q", "num_rel", "num_ret", "num_rel_ret")
NO_AVERAGE = ("err", "infap", "judged")


def per_list(
    name: str,
    ranked: Sequence[Label],
    judged: Sequence[float],
    k: int | None,
    level: float,
    *,
    max_grade: float = 4,
    beta: float = 1.0,
    gains: dict[int, float] | None = None,
) -> float:
    """The value of one group for one order of its items (None: unjudged; 0/0 counts 0)."""
    rel = [1 if (label is not None and label >= level) else 0 for label in ranked]
    n_rel = sum(1 for label in judged if label >= level)
    top = ranked if k is None else ranked[:k]
    if name == "err":  # gdeval.pl: sub err
        score, decay = 0.0, 1.0
        for i, label in enumerate(top):
            r = (2 ** max(label or 0, 0) - 1) / 2**max_grade  # gdeval drops labels < 0
            score += r * decay / (i + 1)
            decay *= 1 - r
        return score
    if name == "infap":  # trec_eval: te_calc_infap
        inf_ap, rel_so_far, nonrel_so_far, pool_unjudged_so_far = 0.0, 0, 0, 0
        for j, label in enumerate(ranked):
            if label is None:
                continue  # not in the pool: skipped
            if label < 0:  # trec_eval's pooled but unjudged (-1): not reachable here
                pool_unjudged_so_far += 1
                continue
            if label < level:
                nonrel_so_far += 1
                continue
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj
                ) * (
                    (rel_so_far - 1 + INFAP_EPSILON)
                    / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
                )
        return inf_ap / n_rel if n_rel else 0.0
    if name == "judged":  # ir_measures' judged provider
        return sum(label is not None for label in top) / len(top) if top else 0.0
    relret = sum(rel)
    if name == "set_precision":
        return relret / len(ranked) if ranked else 0.0
    if name == "set_recall":
        return relret / n_rel if n_rel else 0.0
    if name == "set_f":
        p = relret / len(ranked) if ranked else 0.0
        r = relret / n_rel if n_rel else 0.0
        den = beta * beta * p + r
        return (1 + beta * beta) * p * r / den if den else 0.0
    if name == "num_q":
        return 1.0
    if name == "num_rel":
        return float(n_rel)
    if name == "num_ret":
        return float(len(ranked))
    if name == "num_rel_ret":
        return float(relret)
    if name == "ndcg":  # linear gains through the map (trec_eval's ndcg with a gain map)
        gain_map = gains or {}

        def gain(label: float) -> float:
            return float(gain_map.get(int(label), label)) if float(label).is_integer() else label

        dcg = sum(gain(lb or 0) / math.log2(i + 2) for i, lb in enumerate(top))
        ideal = sorted((gain(lb) for lb in judged if gain(lb) > 0), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg else 0.0
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
    judged_only: bool = False,
    max_grade: float = 4,
    beta: float = 1.0,
    gains: dict[int, float] | None = None,
    **unused: Any,
) -> float:
    """The metric over ``rows`` (group, item, score, label), as tests/oracle/retrieval.py:
    with ``qrels`` the groups are the judged ones, a run item absent from them unjudged;
    the counts sum over the groups kept, the others average. NaN when no group is left."""
    del unused
    if ties == "average" and name in NO_AVERAGE:
        raise ValueError("no closed form")
    run: dict[Any, list[tuple[Any, float, Label]]] = {}
    for g, i, s, label in rows:
        run.setdefault(g, []).append((i, s, label))
    if qrels is not None:
        judged_by: dict[Any, dict[Any, float]] = {}
        for g, i, label in qrels:
            judged_by.setdefault(g, {})[i] = label
        groups = {
            g: ([(i, s, j.get(i)) for i, s, _ in run.get(g, [])], list(j.values()))
            for g, j in judged_by.items()
        }
    else:
        groups = {g: (items, [float(x[2] or 0) for x in items]) for g, items in run.items()}
    values = []
    for items, judged in groups.values():
        if judged_only:
            items = [x for x in items if x[2] is not None]
        if not items and missing != "zero":
            if missing == "error":
                raise ValueError("missing group")
            continue
        if not any(label >= relevance_level for label in judged):
            if empty == "error":
                raise ValueError("empty group")
            if empty == "skip":
                continue
        lists = orders(items, ties if name not in (*COUNTS, "set_precision") else "item_desc")
        parts = [
            per_list(
                name, lst, judged, k, relevance_level, max_grade=max_grade, beta=beta, gains=gains
            )
            for lst in (lists if items else [[]])
        ]
        values.append(sum(parts) / len(parts))
    if not values:
        return NAN
    return sum(values) if name in COUNTS else sum(values) / len(values)
