"""Time confidence intervals (issue 12) against the metric alone, in fresh processes.

    python -m benchmarks.intervals --rows 10000000 [--groups 500000] [--repeats 1]

Data (seeded, written once per size under benchmarks/data/): a CTR log of ``rows`` rows
(binary label, a float score with ~1e6 distinct values) and a ranking table of ``rows`` rows
in ``groups`` groups (graded labels 0-3). Cases: auc alone, auc + DeLong interval, auc + a
200-replicate bootstrap interval, ndcg@10 alone, ndcg@10 + a 200-replicate cluster bootstrap.
Each case runs in a new process; wall and CPU time (user + system of the process, all DuckDB
threads) are reported, with ratios to the metric alone.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(rows: int, groups: int) -> tuple[str, str]:
    """Write (once) the two seeded Parquet files for ``rows`` rows; return their paths."""
    import duckdb

    folder = os.path.join(HERE, "data")
    os.makedirs(folder, exist_ok=True)
    ctr = os.path.join(folder, f"ci_ctr_{rows}.parquet")
    rank = os.path.join(folder, f"ci_rank_{rows}_{groups}.parquet")
    con = duckdb.connect()
    if not os.path.exists(ctr):
        con.execute(
            f"copy (select (hash(i, 1) % 100 < 30)::int as label, "
            f"round(((hash(i, 2) % 1000000) / 1e6) * 0.8 "
            f"+ 0.2 * ((hash(i, 1) % 100 < 30)::int), 6) as score "
            f"from range({rows}) t(i)) to '{ctr}' (format parquet)"
        )
    if not os.path.exists(rank):
        con.execute(
            f"copy (select i % {groups} as query_id, i as item_id, "
            f"(hash(i, 3) % 4)::int as rel, (hash(i, 4) % 1000000) / 1e6 "
            f"+ 0.1 * (hash(i, 3) % 4) as score from range({rows}) t(i)) "
            f"to '{rank}' (format parquet)"
        )
    con.close()
    return ctr, rank


def cases(ctr: str, rank: str, n_boot: int) -> dict[str, str]:
    ranking = "group='query_id', item='item_id', label='rel', score='score', k=10, empty='zero'"
    return {
        "auc": f"sqlmetrics.auc({ctr!r})",
        "auc + delong": f"sqlmetrics.auc({ctr!r}, ci=0.95).hi",
        f"auc + bootstrap({n_boot})": (
            f"sqlmetrics.auc({ctr!r}, ci=0.95, ci_method='bootstrap', n_boot={n_boot}).hi"
        ),
        "ndcg@10": f"sqlmetrics.ndcg({rank!r}, {ranking})",
        "ndcg@10 + t": f"sqlmetrics.ndcg({rank!r}, {ranking}, ci=0.95).hi",
        f"ndcg@10 + cluster bootstrap({n_boot})": (
            f"sqlmetrics.ndcg({rank!r}, {ranking}, ci=0.95, ci_method='bootstrap', "
            f"n_boot={n_boot}).hi"
        ),
    }


CODE = (
    "import resource, time, sqlmetrics\n"
    "def cpu():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return u.ru_utime + u.ru_stime\n"
    "c, t = cpu(), time.perf_counter()\n"
    "v = {call}\n"
    "print(time.perf_counter() - t, cpu() - c, float(v))\n"
)


def run(call: str) -> tuple[float, float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(call=call)],
        check=True,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(HERE),
    )
    wall, cpu, value = out.stdout.split()[-3:]
    return float(wall), float(cpu), float(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=500_000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    ctr, rank = make_data(args.rows, args.groups)
    times: dict[str, tuple[float, float]] = {}
    print(f"rows={args.rows} groups={args.groups} n_boot={args.n_boot}")
    print("| case | wall s | CPU s | value | wall / alone | CPU / alone |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, call in cases(ctr, rank, args.n_boot).items():
        runs = [run(call) for _ in range(args.repeats)]
        wall = sorted(r[0] for r in runs)[len(runs) // 2]
        cpu = sorted(r[1] for r in runs)[len(runs) // 2]
        times[name] = (wall, cpu)
        base = times["auc" if name.startswith("auc") else "ndcg@10"]
        print(
            f"| `{name}` | {wall:.2f} | {cpu:.2f} | {runs[0][2]:.6f} | {wall / base[0]:.2f} | "
            f"{cpu / base[1]:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
