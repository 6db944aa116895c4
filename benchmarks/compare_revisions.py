"""Time one metric call on two source trees, in fresh processes, by wall clock and CPU time.

    python -m benchmarks.compare_revisions CASE OLD_TREE NEW_TREE [--repeats 3]

CASE is one of CASES below (the files come from ``python -m benchmarks`` / ``generate.py``).
Each tree is a checkout of this repository (e.g. ``git worktree add /tmp/old <commit>``); the
call runs with ``PYTHONPATH=<tree>``, so the package and its ``sql/`` templates come from that
tree. CPU time (user + system of the process, all DuckDB threads) is the figure to compare on a
shared machine: wall time moves with the load, CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
RANK = os.path.join(DATA, "ranking_1e07.parquet")
CTR = os.path.join(DATA, "ctr_1e07.parquet")
RANKING_ARGS = "group='query_id', item='item_id', label='rel', score='score'"
CASES = {
    "ndcg@10": f"sqlmetrics.ndcg({RANK!r}, {RANKING_ARGS}, k=10)",
    "evaluate5@10": (
        f"sqlmetrics.evaluate({RANK!r}, ['ndcg@10', 'map@10', 'mrr', 'recall@10', "
        f"'precision@10'], {RANKING_ARGS}).iloc[0, 0]"
    ),
    "auc": f"sqlmetrics.auc({CTR!r}, label='label', score='score')",
    "gauc": f"sqlmetrics.gauc({CTR!r}, label='label', score='score', group='user_id')",
    "log_loss": f"sqlmetrics.log_loss({CTR!r}, label='label', score='score')",
}
CODE = (
    "import resource, time, sqlmetrics\n"
    "def cpu():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return u.ru_utime + u.ru_stime\n"
    "c, t = cpu(), time.perf_counter()\n"
    "v = {expr}\n"
    "print(time.perf_counter() - t, cpu() - c, repr(float(v)), sqlmetrics.__file__)\n"
)


def run(tree: str, expr: str) -> tuple[float, float, str]:
    """One fresh process on ``tree``: (wall s, CPU s, value)."""
    env = {"PYTHONPATH": tree, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(expr=expr)],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),  # not a checkout: `python -c` puts the cwd first on sys.path
    )
    if out.returncode:
        raise SystemExit(out.stderr[-2000:])
    wall, cpu, value, module = out.stdout.split()
    if not module.startswith(os.path.abspath(tree)):
        raise SystemExit(f"sqlmetrics was imported from {module}, not from {tree}")
    return float(wall), float(cpu), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("trees", nargs=2, metavar="TREE")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    medians = []
    for tree in args.trees:
        runs = [run(tree, CASES[args.case]) for _ in range(args.repeats)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        medians.append(cpu)
        print(f"{args.case} {tree}: wall {wall:.2f} s, CPU {cpu:.2f} s, value {runs[0][2]}")
    print(f"{args.case}: CPU new/old = {medians[1] / medians[0]:.2f}")


if __name__ == "__main__":
    main()
