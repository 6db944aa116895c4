"""Deliberately naive reference for the multiclass / multilabel AUC: every binary AUC counted
over all positive/negative pairs (a tie 1/2), the averages written out as scikit-learn
documents them (the SQL uses average ranks). Rows: (row_id, class, score, label 0/1).
Pinned to scikit-learn's roc_auc_score in tests/test_multiclass_auc.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

NAN = float("nan")


def _pairs_auc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return NAN
    won = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return won / (len(pos) * len(neg))


def multiclass_auc(
    rows: Sequence[tuple[Any, Any, float, int]],
    multi_class: str = "ovr",
    average: str = "macro",
) -> float:
    classes = sorted({c for _, c, _, _ in rows})
    ids = sorted({r for r, _, _, _ in rows})
    score = {(r, c): s for r, c, s, _ in rows}
    label = {(r, c): y for r, c, _, y in rows}
    if multi_class == "ovo":
        truth = {r: c for (r, c), y in label.items() if y == 1}
        values, weights = [], []
        for a, b in combinations(classes, 2):
            ra = [r for r in ids if truth.get(r) == a]
            rb = [r for r in ids if truth.get(r) == b]
            ab = _pairs_auc([score[r, a] for r in ra], [score[r, a] for r in rb])
            ba = _pairs_auc([score[r, b] for r in rb], [score[r, b] for r in ra])
            values.append((ab + ba) / 2)
            weights.append(len(ra) + len(rb))
    elif average == "micro":
        pos = [score[k] for k, y in label.items() if y == 1]
        neg = [score[k] for k, y in label.items() if y == 0]
        return _pairs_auc(pos, neg)
    elif average == "samples":
        values = [
            _pairs_auc(
                [score[r, c] for c in classes if label[r, c] == 1],
                [score[r, c] for c in classes if label[r, c] == 0],
            )
            for r in ids
        ]
        weights = [1] * len(values)
    else:
        values, weights = [], []
        for c in classes:
            pos = [score[r, c] for r in ids if label[r, c] == 1]
            neg = [score[r, c] for r in ids if label[r, c] == 0]
            values.append(_pairs_auc(pos, neg))
            weights.append(len(pos))
    if not values or any(v != v for v in values):
        return NAN
    if average == "weighted":
        total = sum(weights)
        return sum(w * v for w, v in zip(weights, values)) / total if total else NAN
    return sum(values) / len(values)


def top_k_accuracy(
    rows: Sequence[tuple[Any, Any, float, int]],
    k: int | None = 2,
    weights: dict[Any, float] | None = None,
) -> float:
    """Per row: the true class is a hit when fewer than k classes beat it (a higher score, or
    an equal score and a later class); weights per row id."""
    by_row: dict[Any, list[tuple[Any, float, int]]] = {}
    for r, c, s, y in rows:
        by_row.setdefault(r, []).append((c, s, y))
    total = hits = 0.0
    for r, lines in by_row.items():
        w = 1.0 if weights is None else weights[r]
        total += w
        for c, s, y in lines:
            if y != 1:
                continue
            beaten_by = sum(1 for c2, s2, _ in lines if s2 > s or (s2 == s and c2 > c))
            if k is None or beaten_by < k:
                hits += w
                break
    return hits / total if total else NAN


def _ap(pairs: list[tuple[float, int]]) -> float:
    """Binary AP: the mean over the positives of the precision at their own score (rows
    scoring at least as high), the tie-group form of scikit-learn's step sum."""
    positives = [s for s, y in pairs if y == 1]
    if not positives:
        return NAN
    total = 0.0
    for s in positives:
        above = [y for s2, y in pairs if s2 >= s]
        total += sum(above) / len(above)
    return total / len(positives)


def multilabel_average_precision(
    rows: Sequence[tuple[Any, Any, float, int]], average: str = "macro"
) -> float:
    classes = sorted({c for _, c, _, _ in rows})
    ids = sorted({r for r, _, _, _ in rows})
    if average == "micro":
        return _ap([(s, y) for _, _, s, y in rows])
    if average == "samples":
        values = [_ap([(s, y) for r2, _, s, y in rows if r2 == r]) for r in ids]
        weights = [1] * len(values)
    else:
        values = [_ap([(s, y) for _, c2, s, y in rows if c2 == c]) for c in classes]
        weights = [sum(y for _, c2, _, y in rows if c2 == c) for c in classes]
    if not values or any(v != v for v in values):
        return NAN
    if average == "weighted":
        return sum(w * v for w, v in zip(weights, values)) / sum(weights)
    return sum(values) / len(values)
