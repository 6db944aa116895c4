"""sqlmetrics' ranking kernel against the naive hand-written DuckDB query (issue 24, target 1).

    python -m benchmarks.ranking_naive [--data DIR] [--size 10000000] [--repeats 3]
        [--metrics ndcg@10 map@10 mrr]

For each metric: one warm-up run of each side whose values must agree to 1e-12 (else nothing
is timed), then ``repeats`` paired runs (ours, then the naive query, each in a fresh process:
``benchmarks/tasks.py`` ``ours_ranking`` / ``naive_ranking``, timed from the call to the
number, imports excluded). The ratio of each pair is ours / naive; the median of the ratios is
the row (goal: <= 1.1). The load average is printed before and after each metric: the machine
is shared, and a paired ratio is what stays comparable under load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOL = 1e-12


def run(task: str, path: Path, metric: str) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.tasks", task, str(path), json.dumps({"metric": metric})],
        cwd=HERE.parent,
        env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout.splitlines()[-1])
    return float(out["seconds"]), float(out["value"])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--metrics", nargs="*", default=["ndcg@10", "map@10", "mrr"])
    args = parser.parse_args()
    from benchmarks import generate

    path = args.data / f"ranking_{args.size:.0e}".replace("+", "")
    path = path.with_suffix(".parquet")
    if not path.exists():  # the ranking table of generate.ensure, without the CTR log
        args.data.mkdir(parents=True, exist_ok=True)
        generate.ranking(path, args.size // 20, 20)
    print(f"data: {path} ({args.size:,} rows, {args.size // 20:,} queries x 20)", flush=True)
    rows = []
    for metric in args.metrics:
        print(f"{metric}: load before {load()}", flush=True)
        _, ours_value = run("ours_ranking", path, metric)
        _, naive_value = run("naive_ranking", path, metric)
        if not abs(ours_value - naive_value) <= TOL:
            raise SystemExit(f"{metric}: ours {ours_value!r} != naive {naive_value!r}: not timed")
        ours, naive = [], []
        for _ in range(args.repeats):
            ours.append(run("ours_ranking", path, metric)[0])
            naive.append(run("naive_ranking", path, metric)[0])
            print(f"  ours {ours[-1]:.2f} s, naive {naive[-1]:.2f} s", flush=True)
        ratio = statistics.median(o / n for o, n in zip(ours, naive, strict=True))
        rows.append(
            f"| {metric} | {statistics.median(ours):.2f} s | {statistics.median(naive):.2f} s "
            f"| {ratio:.2f}x | {'met' if ratio <= 1.1 else 'not met'} | {load()} |"
        )
        print(f"{metric}: value {ours_value!r} (naive {naive_value!r}); load after {load()}")
    print(
        "| metric | ours (median) | naive (median) | ours / naive (median of pairs) "
        "| goal <= 1.1x | load after |"
    )
    print("|---|---:|---:|---:|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
