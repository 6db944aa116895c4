"""Regenerate the small example datasets in examples/data/ (seeded, so the files are stable).

python examples/make_example_data.py
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "data"


def ctr(path: Path, n_users: int = 200, seed: int = 7) -> None:
    """A click log: one row per impression, with a model's predicted CTR (rounded: ties)."""
    rng = random.Random(seed)
    rows = []
    for user in range(1, n_users + 1):
        country = rng.choice(["DE", "FR", "US"])
        taste = rng.gauss(0, 1)
        for _ in range(rng.randint(3, 25)):
            item = rng.randint(1, 400)
            day = rng.choice(["2026-11-01", "2026-11-02"])
            logit = -1.5 + taste * 0.5 + rng.gauss(0, 1)
            label = 1 if rng.random() < 1 / (1 + math.exp(-logit)) else 0
            noisy = logit + rng.gauss(0, 1.2)
            score = round(1 / (1 + math.exp(-noisy)), 2)
            rows.append((user, item, country, day, label, score))
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["user_id", "item_id", "country", "day", "click", "pctr"])
        w.writerows(rows)


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    ctr(HERE / "ctr.csv")
