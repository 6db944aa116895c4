"""Decision 0006: the old ordered sum against exact_sum, and metrics under a memory limit.

    python -m benchmarks.deterministic_sums sums FILE.parquet          # one sum, 100k groups
    python -m benchmarks.deterministic_sums metric FILE.parquet LIMIT NAME   # one metric call

FILE: columns label (0/1), score in [0, 1], w >= 0, grp (integer). Generate 10M rows with
`python -m benchmarks.deterministic_sums generate FILE.parquet 10000000`. Run `metric` in a
fresh process per call (peak RSS is the process's); LIMIT is a size such as 500MB or none.
"""

from __future__ import annotations

import math
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

import duckdb

TERM = (
    "w * -ln(greatest(least(case when label = 1 then score else 1 - score end, "
    "1 - 2.220446049250313e-16), 2.220446049250313e-16))"
)
EXP = "nullif(least(ceil(ln(nullif(max(abs(x)) over ({part}), 0)) / ln(2.0)), 2000), 2000)"
EXACT = (
    "coalesce(cast(sum(cast(round(x * power(2.0, 80 - greatest(e, -940))) as hugeint)) "
    "as double) * power(2.0, max(greatest(e, -940)) - 80), sum(x))"
)


def generate(path: str, n: int) -> None:
    con = duckdb.connect()
    con.execute("select setseed(0.5)")
    con.execute(
        f"copy (select (random() < 0.3)::integer as label, random() as score, "
        f"random() * 2 as w, i % 100000 as grp from range({n}) as t(i)) "
        f"to '{path}' (format parquet)"
    )


def sums(path: str) -> None:
    src = f"(select {TERM} as x, grp from read_parquet('{path}'))"
    queries = {
        "ordered sum(x order by x)": f"select sum(x order by x) from {src}",
        "plain sum(x), not deterministic": f"select sum(x) from {src}",
        "exact_sum": f"select {EXACT} from (select x, {EXP.format(part='')} as e from {src})",
        "ordered, 100k groups": (
            f"select count(*), min(s) from (select grp, sum(x order by x) as s from {src} "
            f"group by grp)"
        ),
        "exact_sum, 100k groups": (
            f"select count(*), min(s) from (select grp, {EXACT} as s from (select x, grp, "
            f"{EXP.format(part='partition by grp')} as e from {src}) group by grp)"
        ),
    }
    con = duckdb.connect(config={"threads": 2})
    x = con.execute(f"select x from {src}").fetchnumpy()["x"]
    print(f"math.fsum: {math.fsum(x)!r}")
    del x
    for name, sql in queries.items():
        start = time.perf_counter()
        value = con.execute(sql).fetchall()[0]
        print(f"{name:35s} {time.perf_counter() - start:6.2f} s  {value!r}")


def metric(path: str, limit: str, name: str) -> None:
    import sqlmetrics

    sqlmetrics.configure(threads=2, **({} if limit == "none" else {"memory_limit": limit}))
    calls: dict[str, Callable[[], Any]] = {
        "log_loss": lambda: sqlmetrics.log_loss(path),
        "log_loss_w": lambda: sqlmetrics.log_loss(path, weight="w"),
        "brier_w": lambda: sqlmetrics.brier_score(path, weight="w"),
        "auc_w": lambda: sqlmetrics.auc(path, weight="w"),
        "gauc": lambda: sqlmetrics.gauc(path, group="grp"),
        "evaluate": lambda: sqlmetrics.evaluate(path, ["auc", "f1", "log_loss"]).iloc[0].tolist(),
    }
    start = time.perf_counter()
    try:
        out = repr(calls[name]())
    except Exception as error:  # the benchmark reports the error class (OOM before 0006)
        out = type(error).__name__
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{name:11s} limit={limit:6s} {time.perf_counter() - start:6.2f} s  "
        f"peak RSS {rss:5.0f} MB  {out}"
    )


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "generate":
        generate(args[0], int(args[1]))
    elif command == "sums":
        sums(args[0])
    else:
        metric(*args)
