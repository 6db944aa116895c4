"""Deliberately naive beyond-accuracy metrics, written from Microsoft Recommenders'
documented formulas (python_evaluation: catalog_coverage, distributional_coverage, novelty)
and Shani & Gunawardana (2011, eq. 20) for the Gini index: dictionaries of counts and
explicit loops."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

NAN = float("nan")


def catalog_coverage(reco: Iterable[Any], train: Iterable[Any]) -> float:
    """Distinct recommended items over distinct train items."""
    return len(set(reco)) / len(set(train))


def distributional_coverage(reco: Iterable[Any], train: Iterable[Any] | None = None) -> float:
    """-sum p log2 p of the items' recommendation shares."""
    counts = Counter(reco)
    n = sum(counts.values())
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def gini_index(reco: Iterable[Any], train: Iterable[Any] | None = None) -> float:
    """G = sum_j (2j - m - 1) c_(j) / ((m - 1) n) over the catalog in increasing count order,
    computed here as the mean absolute difference form: sum_{a,b} |c_a - c_b| / (2 m^2 mean),
    rescaled by m / (m - 1) (the same quantity, another algorithm)."""
    counts = Counter(reco)
    items = set(counts) | (set(train) if train is not None else set())
    values = [counts.get(i, 0) for i in items]
    m = len(values)
    if m < 2:
        return NAN
    total = sum(values)
    diff = sum(abs(a - b) for a in values for b in values)
    return diff / (2 * m * total) * m / (m - 1)


def novelty(reco: Iterable[Any], train: Iterable[Any]) -> float:
    """Mean over recommendation rows of -log2(share of train rows of the item); items absent
    from train add 0 (Recommenders merges on the item, then divides by all rows)."""
    reco = list(reco)
    train_counts = Counter(train)
    total = sum(train_counts.values())
    terms = [-math.log2(train_counts[i] / total) if i in train_counts else 0.0 for i in reco]
    return sum(terms) / len(reco)
