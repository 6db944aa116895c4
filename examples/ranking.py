"""Evaluate a search ranking on the example results, straight from the CSV file.

python examples/ranking.py
"""

from __future__ import annotations

from pathlib import Path

import sqlmetrics

DATA = Path(__file__).resolve().parent / "data" / "search.csv"


def main() -> dict[str, float]:
    cols = {"group": "query_id", "item": "doc_id", "score": "score", "label": "rel"}
    results = {
        "ndcg@10": sqlmetrics.ndcg(DATA, k=10, **cols),
        "ndcg@10 (linear gain)": sqlmetrics.ndcg(DATA, k=10, gain="linear", **cols),
        "ndcg@10 (ties averaged)": sqlmetrics.ndcg(DATA, k=10, ties="average", **cols),
        "map@10": sqlmetrics.mean_average_precision(DATA, k=10, **cols),
        "map@10 (Spark's min(k, R))": sqlmetrics.mean_average_precision(
            DATA, k=10, ap_denominator="min_k_relevant", **cols
        ),
        "mrr": sqlmetrics.mrr(DATA, **cols),
        "precision@5": sqlmetrics.precision_at_k(DATA, k=5, **cols),
        "recall@5": sqlmetrics.recall_at_k(DATA, k=5, **cols),
        "hit_rate@3": sqlmetrics.hit_rate(DATA, k=3, **cols),
        "hit_ratio@10": sqlmetrics.hit_ratio(DATA, k=10, **cols),
        "r_precision (rel >= 2)": sqlmetrics.r_precision(DATA, relevance_level=2, **cols),
    }
    for name, value in results.items():
        print(f"{name:>28}  {value:.4f}")
    return results


if __name__ == "__main__":
    main()
