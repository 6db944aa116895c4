"""Regenerate the small example datasets in examples/data/ (seeded, so the files are stable).

python examples/make_example_data.py

ctr.csv is the click log; ctr_export/ is the same log as a warehouse export: Parquet files in
Hive partition folders day=.../country=.../ with an empty _SUCCESS marker, as Spark writes them,
and a second model's score (pctr_challenger, the integration tests' challenger).
"""

from __future__ import annotations

import csv
import math
import random
import shutil
from pathlib import Path

import duckdb

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


def ctr_export(source: Path, folder: Path) -> None:
    """The click log ``source`` as a Hive-partitioned Parquet export under ``folder`` (replaced):
    ``day=<date>/country=<code>/part-0.parquet``, the rows of each part in the log's order, and
    a challenger score: the champion's blurred by the item id (integration_tests' predictions).
    """
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    con = duckdb.connect()
    con.execute("set preserve_insertion_order = true")
    con.execute("set threads = 1")
    log = con.read_csv(str(source))
    con.register("log", log)
    con.execute(
        "copy (select user_id, item_id, click, pctr, "
        "(pctr + cast(item_id % 7 as double) / 20.0) / 1.3 as pctr_challenger, day, country "
        "from log) to ? (format parquet, partition_by (day, country), filename_pattern 'part-{i}')",
        [str(folder)],
    )
    con.close()
    (folder / "_SUCCESS").write_bytes(b"")


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    ctr(HERE / "ctr.csv")
    ctr_export(HERE / "ctr.csv", HERE / "ctr_export")
