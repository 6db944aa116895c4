"""Time ``sqlmetrics.off_policy_value(..., estimator=["ips", "snips"])`` (issue 43) against the
naive SQL a user would write (a plain ``avg`` and ``sum``), as ratios in one run, each call in
a fresh process, the two alternating.

    python -m benchmarks.off_policy [--rows 100000000] [--repeats 3] [--by]

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

With ``--by`` both are sliced by country. The call's own time (measured in the process), the
process's wall and CPU time (user + system, all DuckDB threads, with Python's start and
imports); the ratios are sqlmetrics / naive of the medians. The values are printed
too (they agree to about 1e-12 relative: the plain sums' rounding).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
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
    "print(time.perf_counter() - t, *out['value'].tolist())\n"
)
NAIVE = (
    "import time, duckdb\n"
    "t = time.perf_counter()\n"
    'rows = duckdb.connect().execute("select avg(t / p * r), sum(t / p * r) / sum(t / p), '
    "count(*) from read_parquet('{path}'){by}\").fetchall()\n"
    "print(time.perf_counter() - t, *[v for row in rows for v in row[:2]])\n"
)


def cpu_of_children() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def run(code: str) -> tuple[float, float, str]:
    """``code`` in a fresh process: wall, CPU (user + system), its stdout."""
    cpu, wall = cpu_of_children(), time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True,
        cwd=os.path.dirname(HERE),
    )  # fmt: skip
    return time.perf_counter() - wall, cpu_of_children() - cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--by", action="store_true", help="slice by country")
    args = parser.parse_args()
    started = time.perf_counter()
    path = make_data(args.rows)
    print(f"data: {path} ({time.perf_counter() - started:.1f} s to make or find)")
    naive_by = " group by country order by country" if args.by else ""
    cases = {
        "sqlmetrics": SQLMETRICS.format(path=path, by=", by='country'" if args.by else ""),
        "naive": NAIVE.format(path=path, by=naive_by),
    }
    load = os.getloadavg()
    print(f"rows={args.rows:,} by={'country' if args.by else 'none'} repeats={args.repeats}")
    print(f"load average at start: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
    values: dict[str, str] = {}
    for _ in range(args.repeats):
        for name, code in cases.items():  # alternating, each in a fresh process
            wall, cpu, out = run(code)
            call = float(out.split()[0])
            times[name].append((wall, cpu, call))
            values[name] = " ".join(out.split()[1:5])
            print(f"  {name}: call {call:.2f} s, process wall {wall:.2f} s, CPU {cpu:.2f} s")
    print("| case | call s | process wall s | process CPU s | values |")
    print("| --- | ---: | ---: | ---: | --- |")
    medians = {}
    for name in cases:
        wall, cpu, call = (statistics.median(t[i] for t in times[name]) for i in range(3))
        medians[name] = (wall, cpu, call)
        print(f"| {name} | {call:.2f} | {wall:.2f} | {cpu:.2f} | {values[name]} |")
    s, n = medians["sqlmetrics"], medians["naive"]
    print(
        f"ratio sqlmetrics / naive (medians): call {s[2] / n[2]:.2f}, process wall "
        f"{s[0] / n[0]:.2f}, CPU {s[1] / n[1]:.2f}"
    )
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")


if __name__ == "__main__":
    main()
