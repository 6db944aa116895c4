"""Time the metrics of issue 14 on the 10M-row benchmark files, in fresh processes.

    python -m benchmarks.ranking_metrics [--data DIR] [--repeats 1] [--only NAME ...]

Each case runs ``python -c`` in a new process and reports its wall time and CPU time (user +
system of the process: all DuckDB threads); CPU time is the figure to compare on a shared
machine. Ratios are against ``ndcg@10`` alone (the ranking table: 500,000 queries x 20
items) and against ``auc`` (the CTR log: 10M rows, binary labels) for Kendall's tau. The files
come from ``benchmarks/generate.py`` (``python -m benchmarks`` writes them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RANKING_ARGS = "group='query_id', item='item_id', label='rel', score='score'"
FIVE = ["ndcg@10", "map@10", "mrr", "recall@10", "precision@10"]
NEW_GROUP = ["rbp@10", "fallout@10", "bpref", "iprec_at_recall", "iprec_11pt_avg", "gm_map@10"]


def cases(data: str) -> dict[str, str]:
    rank = os.path.join(data, "ranking_1e07.parquet")
    ctr = os.path.join(data, "ctr_1e07.parquet")
    out = {
        "ndcg@10": f"sqlmetrics.ndcg({rank!r}, {RANKING_ARGS}, k=10)",
        "auc": f"sqlmetrics.auc({ctr!r}, label='label', score='score')",
        "kendall_tau (ctr, overall)": f"sqlmetrics.kendall_tau({ctr!r}, label='label', "
        "score='score')",
        "spearman (ctr, overall)": f"sqlmetrics.spearman({ctr!r}, label='label', score='score')",
        "evaluate(5)": f"sqlmetrics.evaluate({rank!r}, {FIVE!r}, {RANKING_ARGS}).iloc[0, 0]",
    }
    for name in NEW_GROUP:
        out[name] = f"sqlmetrics.evaluate({rank!r}, [{name!r}], {RANKING_ARGS}).iloc[0, 0]"
        out[f"evaluate(5) + {name}"] = (
            f"sqlmetrics.evaluate({rank!r}, {[*FIVE, name]!r}, {RANKING_ARGS}).iloc[0, 0]"
        )
    for name in ("spearman", "kendall_tau"):
        out[f"{name} (per query)"] = (
            f"sqlmetrics.{name}({rank!r}, group='query_id', label='rel', score='score')"
        )
        out[f"evaluate(5) + {name}"] = (
            f"sqlmetrics.evaluate({rank!r}, {[*FIVE, name]!r}, {RANKING_ARGS}).iloc[0, 0]"
        )
    return out


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
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
    done = subprocess.run(
        [sys.executable, "-c", CODE.format(call=call)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall, cpu, value = (float(x) for x in done.stdout.split())
    return wall, cpu, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(HERE, "data"))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    with open("/proc/loadavg") as f:
        print("load before:", f.read().split()[:3])
    table = cases(args.data)
    for name in args.only or list(table):  # in the order asked
        call = table[name]
        runs = [run(call) for _ in range(args.repeats)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {runs[0][2]:.6f} |", flush=True)
    with open("/proc/loadavg") as f:
        print("load after:", f.read().split()[:3])


if __name__ == "__main__":
    main()
