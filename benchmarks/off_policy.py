"""Time ``sqlmetrics.off_policy_value(..., estimator=["ips", "snips"])`` (issue 43) against the
naive SQL a user would write (a plain ``avg`` and ``sum``), as ratios in one run, each call in
a fresh process, the two alternating.

    python -m benchmarks.off_policy [--rows 100000000] [--repeats 3] [--by] [--tree NAME=PATH ...]

Data (written once per size under benchmarks/data/, generated in DuckDB SQL from hashes of the
row number: no Python random numbers): ``rows`` logged rounds with a 0/1 reward ``r``, a
logging propensity ``p`` in [0.05, 1) and a target propensity ``t`` in [0, 1) (three
decimals each), and a country of 7 values. The issue's target: IPS and SNIPS over 1e8 rows
in under 2 minutes on the 2-core machine.

Cases (each a fresh Python process reading the Parquet file with a fresh DuckDB connection):

- ``sqlmetrics``: ``off_policy_value(path, reward="r", pscore="p", target="t",
  estimator=["ips", "snips"])`` (its value checks, its exact sums, the weight diagnostics);
- ``naive``: ``select avg(t / p * r), sum(t / p * r) / sum(t / p), count(*) from path``
  (plain float sums: their bits depend on the row order and the thread count).

With ``--by`` both are sliced by country. ``--tree NAME=PATH`` (repeatable): also time the
``sqlmetrics`` case from another checkout of this repository (e.g. ``git worktree add /tmp/old
<commit>``; the process runs with ``PYTHONPATH=PATH`` outside any checkout and checks that
sqlmetrics was imported from there), in the same alternation; its values must equal this
tree's bit for bit (``repr``), else the run stops.

The call's own time (measured in the process), the process's wall and CPU time (user +
system, all DuckDB threads, with Python's start and imports); the ratios are sqlmetrics /
naive of the medians, and with ``--tree`` this tree / NAME, the median of each repeat's
ratio. The values are printed too (they agree to about 1e-12 relative: the plain sums'
rounding).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(rows: int) -> str:
    """Write (once) the seeded Parquet file of ``rows`` rounds; return its path."""
    import duckdb

    folder = os.path.join(HERE, "data")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"off_policy_{rows}.parquet")
    if not os.path.exists(path):
        duckdb.connect().execute(
            "copy (select "
            "round(0.05 + (hash(i, 1) % 950) / 1000.0, 3) as p, "
            "round((hash(i, 2) % 1000) / 1000.0, 3) as t, "
            "(hash(i, 3) % 1000 < 100 + 200 * ((hash(i, 2) % 1000) / 1000.0))::int as r, "
            "'c' || (i % 7)::varchar as country "
            f"from range({rows}) t(i)) to '{path}.tmp' (format parquet)"
        )
        os.replace(f"{path}.tmp", path)
    return path


SQLMETRICS = (
    "import time, sqlmetrics\n"
    "t = time.perf_counter()\n"
    "out = sqlmetrics.off_policy_value({path!r}, reward='r', pscore='p', target='t', "
    "estimator=['ips', 'snips']{by})\n"
    "print(sqlmetrics.__file__)\n"
    "print(time.perf_counter() - t, *[repr(v) for v in out['value'].tolist()])\n"
)
NAIVE = (
    "import time, duckdb\n"
    "t = time.perf_counter()\n"
    "con = duckdb.connect()\n"
    "con.execute('set enable_progress_bar = false')\n"
    'rows = con.execute("select avg(t / p * r), sum(t / p * r) / sum(t / p), '
    "count(*) from read_parquet('{path}'){by}\").fetchall()\n"
    "print(time.perf_counter() - t, *[v for row in rows for v in row[:2]])\n"
)


def cpu_of_children() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run(code: str, tree: str | None = None) -> tuple[float, float, str]:
    """``code`` in a fresh process: wall, CPU (user + system), its stdout. ``tree``: a checkout
    put first on PYTHONPATH, the process started outside any checkout (``python -c`` puts
    its working directory first on sys.path); None: this checkout, the working directory.
    """
    env = None
    if tree is not None:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    cpu, wall = cpu_of_children(), time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True,
        cwd=os.path.dirname(HERE) if tree is None else tempfile.gettempdir(), env=env,
    )  # fmt: skip
    if tree is not None:
        module = out.stdout.strip().splitlines()[-2]
        if not module.startswith(os.path.abspath(tree)):
            raise SystemExit(f"sqlmetrics was imported from {module}, not from {tree}")
    return time.perf_counter() - wall, cpu_of_children() - cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--by", action="store_true", help="slice by country")
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH of a checkout")
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    started = time.perf_counter()
    path = make_data(args.rows)
    print(f"data: {path} ({time.perf_counter() - started:.1f} s to make or find)")
    naive_by = " group by country order by country" if args.by else ""
    ours = SQLMETRICS.format(path=path, by=", by='country'" if args.by else "")
    cases: dict[str, tuple[str, str | None]] = {"sqlmetrics": (ours, None)}
    cases.update({name: (ours, tree) for name, tree in trees.items()})
    cases["naive"] = (NAIVE.format(path=path, by=naive_by), None)
    load = os.getloadavg()
    print(f"rows={args.rows:,} by={'country' if args.by else 'none'} repeats={args.repeats}")
    print(f"load average at start: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
    values: dict[str, str] = {}
    full: dict[str, list[str]] = {}
    for _ in range(args.repeats):
        for name, (code, tree) in cases.items():  # alternating, each in a fresh process
            wall, cpu, out = run(code, tree)
            last = out.strip().splitlines()[-1].split()  # the call's line
            call = float(last[0])
            times[name].append((wall, cpu, call))
            values[name] = " ".join(last[1:5])
            full[name] = last[1:]
            print(
                f"  {name}: call {call:.2f} s, process wall {wall:.2f} s, CPU {cpu:.2f} s",
                flush=True,
            )
            if name in trees and full[name] != full["sqlmetrics"]:
                raise SystemExit(
                    f"{name}'s values {full[name]} differ from this tree's "
                    f"{full['sqlmetrics']}: not timed further"
                )
    print("| case | call s | process wall s | process CPU s | values |")
    print("| --- | ---: | ---: | ---: | --- |")
    medians = {}
    for name in cases:
        wall, cpu, call = (statistics.median(t[i] for t in times[name]) for i in range(3))
        medians[name] = (wall, cpu, call)
        print(f"| {name} | {call:.2f} | {wall:.2f} | {cpu:.2f} | {values[name]} |")
    n = medians["naive"]
    for name in ["sqlmetrics", *trees]:
        s = medians[name]
        print(
            f"ratio {name} / naive (medians): call {s[2] / n[2]:.2f}, process wall "
            f"{s[0] / n[0]:.2f}, CPU {s[1] / n[1]:.2f}"
        )
    for name in trees:  # paired: each repeat's this tree / NAME
        pairs = list(zip(times["sqlmetrics"], times[name], strict=True))
        call, cpu = (statistics.median(a[i] / b[i] for a, b in pairs) for i in (2, 1))
        print(f"ratio sqlmetrics / {name} (median of the pairs): call {call:.2f}, CPU {cpu:.2f}")
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")


if __name__ == "__main__":
    main()
