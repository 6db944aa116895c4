"""Evaluate a CTR model on the example click log, straight from the CSV file.

python examples/quickstart.py
"""

from __future__ import annotations

from pathlib import Path

import sqlmetrics

DATA = Path(__file__).resolve().parent / "data" / "ctr.csv"


def main() -> dict[str, float]:
    common = {"label": "click", "score": "pctr"}
    results = {
        "auc": sqlmetrics.auc(DATA, **common),
        "gauc": sqlmetrics.gauc(DATA, group="user_id", **common),
        "precision@0.3": sqlmetrics.precision(DATA, threshold=0.3, **common),
        "recall@0.3": sqlmetrics.recall(DATA, threshold=0.3, **common),
        "f1@0.3": sqlmetrics.f1(DATA, threshold=0.3, **common),
    }
    for name, value in results.items():
        print(f"{name:>14}  {value:.4f}")
    return results


if __name__ == "__main__":
    main()
