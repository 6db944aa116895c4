"""Exact AUC, GAUC and NDCG@10 on a billion rows with DuckDB under a 4 GB memory limit.

    python -m benchmarks.billion --rows 1000000000 [--memory-limit 4GB] [--data DIR]

The data is generated once by DuckDB itself (``COPY (select ... from range(rows)) TO``, seeded
through ``hash``: the same file on every run of the same DuckDB version) and kept in
``--data`` (``benchmarks/data``); its size is reported. One table serves the three metrics:
``g`` (groups of 20 consecutive rows: a user for GAUC, a query for NDCG), ``item``, a binary
``label`` (about 30 % positives, more likely at high scores), a graded ``rel`` 0..3 and a
float64 ``score`` (near-continuous: ties are rare but present).

Each metric runs in a fresh process after ``sqlmetrics.configure(memory_limit=...)``, with its
input checks, on the Parquet file: wall time, CPU time (user + system, all DuckDB threads) and
peak resident memory of the process (``ru_maxrss``) are reported, and the spill directory's
peak is not (DuckDB removes its spill files as it goes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = {
    "auc": "sqlmetrics.auc({path!r}, label='label', score='score')",
    "gauc": "sqlmetrics.gauc({path!r}, group='g', label='label', score='score')",
    "ndcg@10": (
        "sqlmetrics.ndcg({path!r}, group='g', item='item', label='rel', score='score', k=10)"
    ),
}

CODE = (
    "import resource, time, sqlmetrics\n"
    "sqlmetrics.configure(memory_limit={memory_limit!r})\n"
    "def cpu():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return u.ru_utime + u.ru_stime\n"
    "c, t = cpu(), time.perf_counter()\n"
    "v = {call}\n"
    "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "print(time.perf_counter() - t, cpu() - c, rss, repr(float(v)))\n"
)


def generate(path: str, rows: int) -> float:
    """Write the table (if absent); return the seconds it took (0 if it existed)."""
    if os.path.exists(path):
        return 0.0
    import duckdb

    start = time.perf_counter()
    tmp = path + ".tmp"
    con = duckdb.connect()
    con.execute("set enable_progress_bar = false")
    con.execute("set preserve_insertion_order = true")
    con.execute(
        f"""
        copy (
            select
                i // 20 as g,
                i as item,
                cast(u < 0.1 + 0.5 * score as integer) as label,
                cast(least(3, floor(4 * (0.6 * score + 0.4 * u))) as integer) as rel,
                score
            from (
                select
                    i,
                    (hash(i, 1) % 1000003) / 1000003.0 as u,
                    (hash(i, 2) % 100000007) / 100000007.0 as score
                from range({rows}) as r(i)
            )
        ) to '{tmp}' (format parquet, compression zstd, row_group_size 1000000)
        """
    )
    con.close()
    os.replace(tmp, path)
    return time.perf_counter() - start


def run(call: str, memory_limit: str) -> tuple[float, float, float, str]:
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
    done = subprocess.run(
        [sys.executable, "-c", CODE.format(call=call, memory_limit=memory_limit)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall, cpu, rss, value = done.stdout.split()
    return float(wall), float(cpu), float(rss), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000_000)
    parser.add_argument("--memory-limit", default="4GB")
    parser.add_argument("--data", default=os.path.join(HERE, "data"))
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    os.makedirs(args.data, exist_ok=True)
    path = os.path.join(args.data, f"billion_{args.rows:.0e}.parquet".replace("+", ""))
    seconds = generate(path, args.rows)
    size = os.path.getsize(path) / 2**30
    print(f"data {path}: {args.rows} rows, {size:.2f} GiB (generated in {seconds:.0f} s)")
    print(f"memory_limit={args.memory_limit} load before {os.getloadavg()}", flush=True)
    print("| metric | wall s | CPU s | peak RSS MiB | value | load after (1, 5, 15 min) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |", flush=True)
    for name, call in CASES.items():
        if args.only and name not in args.only:
            continue
        wall, cpu, rss, value = run(call.format(path=path), args.memory_limit)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"| `{name}` | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {value} | {load} |", flush=True)
    print(f"load after {os.getloadavg()}")


if __name__ == "__main__":
    main()
