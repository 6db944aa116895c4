"""Oracles of the tools that do not install here, written from their published reference code.

- torchmetrics (``torchmetrics.functional.retrieval`` and ``RetrievalMetric.compute``): one
  query's ``preds``/``target`` at a time; ``top_k`` with ``preds.topk``; an empty query (no
  positive target) handled by ``empty_target_action`` (neg = 0, pos = 1, skip = left out);
  mean of the per-query values, 0.0 when none is left. NDCG averages tied scores as
  scikit-learn's ``_tie_average_dcg``; the other metrics follow ``topk``'s order, so the tests
  feed them untied scores.
- recommenders (``recommenders.evaluation.python_evaluation``): ``merge_ranking_true_pred``
  keeps the users present in both ``rating_true`` and ``rating_pred`` (``n_users``), every item
  of ``rating_true`` is relevant, the top k predictions per user are ranked 1..k; the metrics
  are sums over the users with a hit, divided by ``n_users``.
- Spark MLlib ``RankingMetrics``: one (predicted ids in order, ground-truth ids[, relevance])
  row per query; an empty ground truth gives 0 (and a logged warning); mean over all rows.

Lists are plain Python; ``ranked`` is the list of (item, score, label) rows of one query.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Ranked = Sequence[tuple[object, float, float]]  # (item, score, label)


# ----------------------------------------------------------------------------- torchmetrics
def _topk(ranked: Ranked, k: int | None) -> list[float]:
    """Targets in ``preds.topk`` order (scores descending; the tests use untied scores)."""
    ordered = sorted(ranked, key=lambda r: -r[1])
    return [r[2] for r in ordered[: len(ordered) if k is None else min(k, len(ordered))]]


def _tm_precision(ranked: Ranked, k: int | None, adaptive_k: bool) -> float:
    n = len(ranked)
    top_k = n if k is None or (adaptive_k and k > n) else k
    return sum(1 for t in _topk(ranked, top_k) if t > 0) / top_k


def _tm_recall(ranked: Ranked, k: int | None) -> float:
    return sum(1 for t in _topk(ranked, k) if t > 0) / sum(1 for r in ranked if r[2] > 0)


def _tm_average_precision(ranked: Ranked, k: int | None) -> float:
    target = _topk(ranked, k)
    positions = [i + 1 for i, t in enumerate(target) if t > 0]
    if not positions:
        return 0.0
    return sum((j + 1) / p for j, p in enumerate(positions)) / len(positions)


def _tm_reciprocal_rank(ranked: Ranked, k: int | None) -> float:
    target = _topk(ranked, k)
    first = next((i for i, t in enumerate(target) if t > 0), None)
    return 0.0 if first is None else 1.0 / (first + 1)


def _tm_r_precision(ranked: Ranked) -> float:
    relevant = sum(1 for r in ranked if r[2] > 0)
    return sum(1 for t in _topk(ranked, relevant) if t > 0) / relevant


def _tm_hit_rate(ranked: Ranked, k: int | None) -> float:
    return float(any(t > 0 for t in _topk(ranked, k)))


def _tie_average_dcg(ranked: Ranked, k: int | None) -> float:
    """scikit-learn's ``_tie_average_dcg`` (torchmetrics copies it): each tie group of
    scores spreads its mean gain over the positions it covers, discounts cut at k.
    """
    n = len(ranked)
    cut = n if k is None else min(k, n)
    discount = [1 / math.log2(i + 2) if i < cut else 0.0 for i in range(n)]
    scores = sorted({r[1] for r in ranked}, reverse=True)
    total, start = 0.0, 0
    for s in scores:
        gains = [r[2] for r in ranked if r[1] == s]
        total += sum(gains) / len(gains) * sum(discount[start : start + len(gains)])
        start += len(gains)
    return total


def _tm_ndcg(ranked: Ranked, k: int | None) -> float:
    gain = _tie_average_dcg(ranked, k)
    ideal = sorted((r[2] for r in ranked), reverse=True)
    cut = len(ideal) if k is None else min(k, len(ideal))
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:cut]))
    return 0.0 if best == 0 else gain / best


def torchmetrics(
    metric: str,
    queries: Sequence[Ranked],
    k: int | None = None,
    empty_target_action: str = "neg",
    adaptive_k: bool = False,
) -> float:
    """``torchmetrics.Retrieval<metric>(empty_target_action=..., top_k=k)`` over ``queries``."""
    values = []
    for ranked in queries:
        if not any(r[2] > 0 for r in ranked):
            if empty_target_action == "pos":
                values.append(1.0)
            elif empty_target_action == "neg":
                values.append(0.0)
            continue
        if metric == "precision_at_k":
            values.append(_tm_precision(ranked, k, adaptive_k))
        elif metric == "recall_at_k":
            values.append(_tm_recall(ranked, k))
        elif metric == "map":
            values.append(_tm_average_precision(ranked, k))
        elif metric == "mrr":
            values.append(_tm_reciprocal_rank(ranked, k))
        elif metric == "r_precision":
            values.append(_tm_r_precision(ranked))
        elif metric == "hit_rate":
            values.append(_tm_hit_rate(ranked, k))
        elif metric == "ndcg":
            values.append(_tm_ndcg(ranked, k))
        else:
            raise ValueError(metric)
    return sum(values) / len(values) if values else 0.0


# ----------------------------------------------------------------------------- recommenders
def recommenders(
    metric: str, true: dict[object, set[object]], pred: dict[object, list[object]], k: int
) -> float:
    """``recommenders`` ``precision_at_k`` / ``recall_at_k`` / ``ndcg_at_k`` (binary
    relevance, log2 discount) / ``map_at_k`` (divisor min(actual, k)).

    ``true``: user -> relevant items (the rows of rating_true); ``pred``: user -> items in
    predicted order (already ranked).
    """
    users = [u for u in pred if u in true]
    n_users = len(users)
    total = 0.0
    for u in users:
        top = pred[u][:k]
        ranks = [i + 1 for i, item in enumerate(top) if item in true[u]]
        if not ranks:  # df_hit_count holds users with a hit only
            continue
        actual = len(true[u])
        if metric == "precision_at_k":
            total += len(ranks) / k
        elif metric == "recall_at_k":
            total += len(ranks) / actual
        elif metric == "ndcg":
            dcg = sum(1 / math.log2(r + 1) for r in ranks)
            idcg = sum(1 / math.log2(i + 1) for i in range(1, min(actual, k) + 1))
            total += dcg / idcg
        elif metric == "map":
            total += sum((j + 1) / r for j, r in enumerate(ranks)) / min(actual, k)
        else:
            raise ValueError(metric)
    return total / n_users


# ----------------------------------------------------------------------------- Spark
def spark(
    metric: str,
    rows: Sequence[tuple[list[object], list[object], list[float] | None]],
    k: int,
) -> float:
    """``RankingMetrics`` ``precisionAt(k)``, ``recallAt(k)``, ``meanAveragePrecisionAt(k)``,
    ``ndcgAt(k)`` over (predicted ids, ground-truth ids, relevance or None) rows.
    """
    values = []
    for pred, lab, rel in rows:
        lab_set = set(lab)
        if not lab_set:
            values.append(0.0)  # logWarning("Empty ground truth set, check input data")
            continue
        if metric == "precision_at_k":
            n = min(len(pred), k)
            values.append(sum(1 for p in pred[:n] if p in lab_set) / k)
        elif metric == "recall_at_k":
            n = min(len(pred), k)
            values.append(sum(1 for p in pred[:n] if p in lab_set) / len(lab_set))
        elif metric == "map":
            precision, count = 0.0, 0
            for i in range(min(k, len(pred))):
                if pred[i] in lab_set:
                    count += 1
                    precision += count / (i + 1)
            values.append(precision / min(len(lab_set), k))
        elif metric == "ndcg":
            rel_map = dict(zip(lab, rel)) if rel is not None else {}
            n = min(max(len(pred), len(lab_set)), k)
            dcg = max_dcg = 0.0
            for i in range(n):
                if rel is None:
                    gain = 1.0 / math.log(i + 2)
                    if i < len(pred) and pred[i] in lab_set:
                        dcg += gain
                    if i < len(lab_set):
                        max_dcg += gain
                else:
                    if i < len(pred):
                        dcg += (2.0 ** rel_map.get(pred[i], 0.0) - 1) / math.log(i + 2)
                    if i < len(lab_set):
                        max_dcg += (2.0 ** rel_map.get(lab[i], 0.0) - 1) / math.log(i + 2)
            values.append(dcg / max_dcg)
        else:
            raise ValueError(metric)
    return sum(values) / len(values)
