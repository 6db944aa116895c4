"""Time the intervals of the per-row losses (issue 39, item 13) against the metric alone, in
fresh processes, for one source tree (``--tree``: a checkout put first on PYTHONPATH, e.g.
an older commit's worktree, to measure before and after a change).

    python -m benchmarks.loss_intervals [--rows 300000] [--cli-rows 2000000] [--tree PATH]

Data (seeded, written once per size under benchmarks/data/): ``rows`` rows of a binary label,
a probability (six decimals) and a weight in [0.5, 1.5), and a country of 7 values. Cases:
``log_loss`` alone, ``log_loss(ci=0.95)`` (the default method: bootstrap before, t after),
``log_loss(ci=0.95, ci_method="bootstrap")`` (200 replicates), and the CLI ``sqlmetrics eval
DATA -m log_loss -m brier_score --by country`` without and with ``--ci 0.95`` (default method)
and ``--ci-method bootstrap`` on ``cli_rows`` rows. Wall and CPU time (user + system of the
process and its children, all DuckDB threads); on a shared machine CPU is the fairer figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(rows: int) -> str:
    """Write (once) the seeded Parquet file of ``rows`` rows; return its path."""
    import duckdb

    folder = os.path.join(HERE, "data")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"losses_{rows}.parquet")
    if not os.path.exists(path):
        duckdb.connect().execute(
            f"copy (select (hash(i, 1) % 100 < 30)::int as label, "
            f"round(((hash(i, 2) % 1000000) / 1e6) * 0.8 + 0.2 * ((hash(i, 1) % 100 < 30)::int), "
            f"6) as score, 0.5 + (hash(i, 5) % 1000) / 1000.0 as w, "
            f"'c' || (i % 7)::varchar as country from range({rows}) t(i)) "
            f"to '{path}' (format parquet)"
        )
    return path


CODE = (
    "import time, sqlmetrics\n"
    "t = time.perf_counter()\n"
    "v = {call}\n"
    "print(time.perf_counter() - t, float(getattr(v, 'lo', 'nan')), getattr(v, 'method', ''))\n"
)


def children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run(argv: list[str], tree: str) -> tuple[float, float, str]:
    """Run ``argv`` in a fresh process with ``tree`` first on PYTHONPATH: wall, CPU, stdout."""
    env = {**os.environ, "PYTHONPATH": tree}
    cpu, wall = children_cpu(), time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env, cwd=tree)
    return time.perf_counter() - wall, children_cpu() - cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--cli-rows", type=int, default=2_000_000)
    parser.add_argument("--tree", default=os.path.dirname(HERE))
    args = parser.parse_args()
    data, cli_data = make_data(args.rows), make_data(args.cli_rows)
    py = sys.executable
    calls = {
        "log_loss": f"sqlmetrics.log_loss({data!r})",
        "log_loss(ci=0.95)": f"sqlmetrics.log_loss({data!r}, ci=0.95)",
        "log_loss(ci=0.95, bootstrap)": (
            f"sqlmetrics.log_loss({data!r}, ci=0.95, ci_method='bootstrap')"
        ),
    }
    cli = [py, "-m", "sqlmetrics", "eval", cli_data, "-m", "log_loss", "-m", "brier_score",
           "--by", "country"]  # fmt: skip
    clis = {
        "eval": cli,
        "eval --ci 0.95": [*cli, "--ci", "0.95"],
        "eval --ci 0.95 --ci-method bootstrap": [*cli, "--ci", "0.95", "--ci-method", "bootstrap"],
    }
    load = os.getloadavg()
    print(f"tree={args.tree} rows={args.rows} cli_rows={args.cli_rows}")
    print(f"load average at start: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")
    print("| case | rows | wall s | CPU s | method |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, call in calls.items():
        wall, cpu, out = run([py, "-c", CODE.format(call=call)], args.tree)
        method = out.split()[-1] if len(out.split()) == 3 else ""
        print(f"| `{name}` | {args.rows:,} | {wall:.2f} | {cpu:.2f} | {method} |", flush=True)
    for name, argv in clis.items():
        wall, cpu, _ = run(argv, args.tree)
        print(f"| `sqlmetrics {name}` | {args.cli_rows:,} | {wall:.2f} | {cpu:.2f} | |", flush=True)
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")


if __name__ == "__main__":
    main()
