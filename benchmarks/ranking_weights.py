"""Issue 43: the cost of weight= and group_weight= on NDCG@10, paired with the unweighted call.

    python -m benchmarks.ranking_weights [N_GROUPS] [ROUNDS]

Data (DuckDB, in memory): N_GROUPS groups x 20 items (default 100,000: 2M rows), score =
hash % 1000 / 1000 (ties), label 0..3 (70% zeros), a per-item weight w in (0, 2] and a
per-group weight gw. The calls run alternately (plain, weight, group_weight, both) for
ROUNDS rounds in one process; printed: the median time of each and its ratio to plain.
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import duckdb

import sqlmetrics


def main() -> None:
    n_groups = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    con = duckdb.connect()
    con.execute(
        f"""
        create table events as
        select i // 20 as grp, i % 20 as item,
               (hash(i) % 1000) / 1000.0 as score,
               case when hash(i * 7) % 10 < 7 then 0 else hash(i * 13) % 3 + 1 end as label,
               ((hash(i * 3) % 1000) + 1) / 500.0 as w,
               ((hash(i // 20) % 4) + 1) * 0.5 as gw
        from range({n_groups * 20}) as t(i)
        """
    )
    cols = {"group": "grp", "item": "item", "k": 10, "empty": "zero", "con": con}
    calls = {
        "plain": {},
        "weight": {"weight": "w"},
        "group_weight": {"group_weight": "gw"},
        "both": {"weight": "w", "group_weight": "gw"},
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sqlmetrics.ndcg("events", **cols)  # warm up
        for _ in range(rounds):
            for name, extra in calls.items():
                start = time.perf_counter()
                values[name] = sqlmetrics.ndcg("events", **cols, **extra)
                times[name].append(time.perf_counter() - start)
    base = statistics.median(times["plain"])
    print(f"{n_groups * 20} rows, {rounds} rounds, median seconds (ratio to plain), value")
    for name in calls:
        med = statistics.median(times[name])
        print(f"  {name:13s} {med:7.3f} ({med / base:4.2f}x)  {values[name]!r}")


if __name__ == "__main__":
    main()
