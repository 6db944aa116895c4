"""Oracles of the tools that do not install here, written from their published reference code.

- torchmetrics (Lightning-AI/torchmetrics at dab0333, 2026-08:
  ``src/torchmetrics/functional/retrieval/{precision,recall,average_precision,
  reciprocal_rank,r_precision,hit_rate,ndcg}.py`` and ``RetrievalMetric.compute`` in
  ``src/torchmetrics/retrieval/base.py``): one query's ``preds``/``target`` at a time;
  ``top_k`` with ``preds.topk``; precision, recall, average precision and reciprocal rank
  first zero every target whose ``preds <= 0`` (``torch.where(preds > 0, target, 0)``); an
  empty query (no positive target) handled by ``empty_target_action`` (neg = 0, pos = 1,
  skip = left out); mean of the per-query values, 0.0 when none is left. NDCG averages tied
  scores as scikit-learn's ``_tie_average_dcg``; the other metrics follow ``topk``'s order,
  so the tests feed them untied scores.
- recommenders (recommenders-team/recommenders at b02c95e, 2025-09:
  ``recommenders/evaluation/python_evaluation.py``): see :func:`recommenders`.
- Spark MLlib ``RankingMetrics`` (apache/spark,
  ``mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala``): one
  (predicted ids in order, ground-truth ids[, relevance]) row per query; an empty ground
  truth gives 0 (and a logged warning), so does a graded ideal DCG of 0; mean over all rows.

Lists are plain Python; ``ranked`` is the list of (item, score, label) rows of one query.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Ranked = Sequence[tuple[object, float, float]]  # (item, score, label)


# ----------------------------------------------------------------------------- torchmetrics
def _topk(ranked: Ranked, k: int | None, positive_preds: bool = False) -> list[float]:
    """Targets in ``preds.topk`` order (scores descending; the tests use untied scores);
    ``positive_preds``: a target whose score is <= 0 is zeroed first (precision, recall,
    average precision, reciprocal rank).
    """
    ordered = sorted(ranked, key=lambda r: -r[1])
    cut = ordered[: len(ordered) if k is None else min(k, len(ordered))]
    return [r[2] if r[1] > 0 or not positive_preds else 0.0 for r in cut]


def _tm_precision(ranked: Ranked, k: int | None, adaptive_k: bool) -> float:
    n = len(ranked)
    top_k = n if k is None or (adaptive_k and k > n) else k
    return sum(1 for t in _topk(ranked, top_k, True) if t > 0) / top_k


def _tm_recall(ranked: Ranked, k: int | None) -> float:
    return sum(1 for t in _topk(ranked, k, True) if t > 0) / sum(1 for r in ranked if r[2] > 0)


def _tm_average_precision(ranked: Ranked, k: int | None) -> float:
    target = _topk(ranked, k, True)
    positions = [i + 1 for i, t in enumerate(target) if t > 0]
    if not positions:
        return 0.0
    return sum((j + 1) / p for j, p in enumerate(positions)) / len(positions)


def _tm_reciprocal_rank(ranked: Ranked, k: int | None) -> float:
    target = _topk(ranked, k, True)
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
    metric: str,
    true: Mapping[object, Mapping[object, float]],
    pred: Mapping[object, Sequence[object]],
    k: int,
    score_type: str = "binary",
) -> float:
    """``recommenders.evaluation.python_evaluation`` (recommenders-team/recommenders,
    ``recommenders/evaluation/python_evaluation.py`` at b02c95e, 2025-09): ``precision_at_k``,
    ``recall_at_k``, ``map_at_k`` (``metric="map"``), ``map`` (``metric="map_full"``),
    ``ndcg_at_k(score_type=)`` and ``r_precision_at_k``, ``relevancy_method="top_k"``.

    ``true``: user -> {item: rating} (the rows of rating_true, every one relevant); ``pred``:
    user -> items in predicted order (``get_top_k_items`` ranks them 1..k, ``head(k)``).
    ``merge_ranking_true_pred`` keeps the users of both frames (``n_users``) and the hits;
    ``df_hit_count`` holds the users with a hit. With no hit at all, every metric is 0.0.
    """
    common = [u for u in pred if u in true]
    n_users = len(common)
    hits = {
        u: [rank for rank, item in enumerate(pred[u][:k], 1) if item in true[u]] for u in common
    }
    hits = {u: ranks for u, ranks in hits.items() if ranks}  # df_hit_count
    if not hits:  # df_hit.shape[0] == 0
        return 0.0
    if metric == "precision_at_k":  # (hit / k).sum() / n_users
        return sum(len(r) / k for r in hits.values()) / n_users
    if metric == "recall_at_k":  # (hit / actual).sum() / n_users
        return sum(len(r) / len(true[u]) for u, r in hits.items()) / n_users
    if metric in ("map", "map_full"):  # _get_reciprocal_rank: rr = sum (cumcount + 1) / rank
        total = 0.0
        for u, ranks in hits.items():
            rr = sum((j + 1) / rank for j, rank in enumerate(ranks))
            actual = len(true[u])
            total += rr / (min(actual, k) if metric == "map" else actual)
        return total / n_users
    if metric == "r_precision_at_k":
        # hits ranked within R = actual, per user, divided by R: users with no such hit are
        # NaN after the index alignment of the division, and Series.mean() drops them
        values = []
        for u, ranks in hits.items():
            within = sum(1 for rank in ranks if rank <= len(true[u]))
            if within:
                values.append(within / len(true[u]))
        return sum(values) / len(values) if values else math.nan  # mean of NaN only
    if metric == "ndcg":
        # df_dcg: the hits outer-merged with the whole rating_true, so every user of
        # rating_true counts (dcg 0 without a hit, also when absent from rating_pred); rel by
        # score_type; discount 1 / ln(1 + rank); ideal: rating_true's rows by rating desc,
        # the first k of each user
        def rel(rating: float) -> float:
            return {"binary": 1.0, "raw": rating, "exp": 2.0**rating - 1}[score_type]

        values = []
        for u, items in true.items():
            dcg = sum(rel(items[pred[u][r - 1]]) / math.log(1 + r) for r in hits.get(u, []))
            ideal = sorted(items.values(), reverse=True)[:k]
            idcg = sum(rel(r) / math.log(1 + i) for i, r in enumerate(ideal, 1))
            values.append(dcg / idcg)
        return sum(values) / len(values)
    raise ValueError(metric)


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
            values.append(0.0 if max_dcg == 0.0 else dcg / max_dcg)  # logWarning: max 0
        else:
            raise ValueError(metric)
    return sum(values) / len(values)
