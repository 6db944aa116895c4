"""Time ``sqlmetrics.report`` against ``evaluate`` with the four curves (issue 26), in fresh
processes.

    python -m benchmarks.report --rows 2000000 [--repeats 2] [--operating]

Data (seeded, written once per size under benchmarks/data/): a CTR log of ``rows`` rows in 5
countries and ``rows / 20`` users, a binary label (30 % positive) and a score with ~1e6
distinct values. Cases, each in a new process (wall and CPU = user + system of the process,
all DuckDB threads):

- ``evaluate``: ``evaluate(["auc", "gauc", "log_loss"], by="country", group="user_id")``;
- ``evaluate + curves``: the same, then ``roc_curve`` and ``pr_curve`` (``max_points=200``),
  ``calibration_curve`` and ``lift_table`` (10 bins), each ``by="country"``: the numbers the
  report shows;
- ``report``: ``report(...)`` with the same arguments, writing the page.

``--operating``: ``tpr_at_fpr`` is listed too, and ``evaluate + curves`` also calls
``operating_points(by="country")``: the page's section "Operating points" on both sides.

The issue's target: ``report`` at most 1.5x ``evaluate + curves``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = "by='country', group='user_id', label='click', score='pctr'"
METRICS = "['auc', 'gauc', 'log_loss']"


def make_data(rows: int) -> str:
    """Write (once) the seeded Parquet file of ``rows`` rows; return its path."""
    import duckdb

    folder = os.path.join(HERE, "data")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"report_ctr_{rows}.parquet")
    if not os.path.exists(path):
        con = duckdb.connect()
        con.execute(
            f"copy (select ['DE', 'FR', 'US', 'IT', 'ES'][(1 + hash(i, 5) % 5)::int] as country, "
            f"hash(i, 6) % {max(rows // 20, 1)} as user_id, "
            f"(hash(i, 1) % 100 < 30)::int as click, "
            f"round(((hash(i, 2) % 1000000) / 1e6) * 0.8 "
            f"+ 0.2 * ((hash(i, 1) % 100 < 30)::int), 6) as pctr "
            f"from range({rows}) t(i)) to '{path}' (format parquet)"
        )
        con.close()
    return path


def cases(path: str, out: str, operating: bool = False) -> dict[str, str]:
    metrics = METRICS[:-1] + ", 'tpr_at_fpr']" if operating else METRICS
    points = (
        f", sqlmetrics.operating_points({path!r}, by='country', label='click', score='pctr')"
        if operating
        else ""
    )
    curves = (
        f"sqlmetrics.roc_curve({path!r}, by='country', label='click', score='pctr', "
        f"max_points=200), "
        f"sqlmetrics.pr_curve({path!r}, by='country', label='click', score='pctr', "
        f"max_points=200), "
        f"sqlmetrics.calibration_curve({path!r}, by='country', label='click', score='pctr', "
        f"n_bins=10), "
        f"sqlmetrics.lift_table({path!r}, by='country', label='click', score='pctr', n_bins=10)"
        f"{points}"
    )
    evaluate = f"sqlmetrics.evaluate({path!r}, {metrics}, {ARGS})"
    return {
        "evaluate": f"len({evaluate})",
        "evaluate + curves": f"len([{evaluate}, {curves}])",
        "report": f"sqlmetrics.report({path!r}, {metrics}, {ARGS}, path={out!r}).stat().st_size",
    }


CODE = (
    "import resource, time, warnings, sqlmetrics\n"
    "warnings.simplefilter('ignore')\n"
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
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--operating", action="store_true", help="list tpr_at_fpr too")
    args = parser.parse_args()
    path = make_data(args.rows)
    out = os.path.join(HERE, "data", f"report_{args.rows}.html")
    print(f"load average before: {os.getloadavg()}")
    best: dict[str, tuple[float, float]] = {}
    for name, call in cases(path, out, args.operating).items():
        for _ in range(args.repeats):
            wall, cpu, value = run(call)
            print(f"{name:>18}: wall {wall:7.2f} s  cpu {cpu:7.2f} s  ({value:g})", flush=True)
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], wall), min(old[1], cpu))
    base = best["evaluate + curves"]
    rep = best["report"]
    print(f"load average after: {os.getloadavg()}")
    print(
        f"report / (evaluate + curves): wall {rep[0] / base[0]:.2f}x, cpu {rep[1] / base[1]:.2f}x"
        f"  (best of {args.repeats}; page {os.path.getsize(out)} bytes)"
    )


if __name__ == "__main__":
    main()
