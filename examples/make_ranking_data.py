"""Regenerate the small search example examples/data/search.csv (seeded, so the file is stable).

python examples/make_ranking_data.py
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "data"


def search(path: Path, n_queries: int = 40, seed: int = 11) -> None:
    """A search engine's ranked results: one row per (query, document) with a model score
    (rounded to 0.05, so ties happen) and a graded relevance judgment 0-3."""
    rng = random.Random(seed)
    rows = []
    for query in range(1, n_queries + 1):
        difficulty = rng.random()
        for doc in rng.sample(range(1000, 1200), rng.randint(5, 20)):
            rel = rng.choices([0, 1, 2, 3], weights=[6, 2, 1, 0.5 + difficulty])[0]
            score = round(min(max(0.25 * rel + rng.gauss(0.3, 0.25), 0.0), 1.0) / 0.05) * 0.05
            rows.append((f"q{query:03d}", f"d{doc}", round(score, 2), rel))
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query_id", "doc_id", "score", "rel"])
        w.writerows(rows)


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    search(HERE / "search.csv")
