"""Regenerate the small example datasets in examples/data/ (seeded, so the files are stable).

python examples/make_example_data.py

ctr.csv: a click log, one row per impression, one model's score (pctr).
exports/: the same click log as a warehouse would export it: a Hive-partitioned Parquet folder
(exports/day=2026-11-01/country=DE/part-0.parquet, ...), with a second model's score (pctr_v2)
beside the first, for the warehouse-export recipe (README, docs).
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


def exports(source: Path, folder: Path, seed: int = 11) -> None:
    """The click log of ``source`` (ctr.csv) as a Hive-partitioned Parquet export by day and
    country, with a second model (pctr_v2: the same logit with less noise, rounded: ties).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    with source.open(newline="") as f:
        rows = list(csv.DictReader(f))
    parts: dict[tuple[str, str], list[dict[str, object]]] = {}
    for row in rows:
        click = int(row["click"])
        logit = math.log(float(row["pctr"]) + 1e-3) - math.log(1 - float(row["pctr"]) + 1e-3)
        v2 = round(
            1 / (1 + math.exp(-(0.7 * logit + (1.2 if click else -0.4) + rng.gauss(0, 1)))), 2
        )
        parts.setdefault((row["day"], row["country"]), []).append(
            {
                "user_id": int(row["user_id"]),
                "item_id": int(row["item_id"]),
                "click": click,
                "pctr": float(row["pctr"]),
                "pctr_v2": v2,
            }
        )
    for (day, country), part in sorted(parts.items()):
        target = folder / f"day={day}" / f"country={country}"
        target.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(part), target / "part-0.parquet")


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    ctr(HERE / "ctr.csv")
    exports(HERE / "ctr.csv", HERE / "exports")
