"""Start-up times (issue 24, target 5): ``import sqlmetrics``, ``sqlmetrics --version`` and a
CLI ``eval`` of a 10-row CSV, each in fresh processes.

    python -m benchmarks.startup [--runs 7] [--tree PATH]

Prints, for each, the minimum and median wall time over the runs and the median CPU time
(user + system) of the processes: on a shared machine the minimum wall and the CPU time are
the figures that approach an idle machine's. ``import sqlmetrics`` is timed inside the process
(interpreter start-up excluded); the command lines as a whole process (``python -m
sqlmetrics``, as the console script runs it). The load average is printed before and after.
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
from pathlib import Path

IMPORT = (
    "import resource, time\n"
    "t = time.perf_counter()\n"
    "import sqlmetrics\n"
    "w = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(w, u.ru_utime + u.ru_stime)\n"
)
CSV = "label,score\n" + "".join(
    f"{y},{s}\n" for y, s in zip([1, 0, 1, 0, 1, 0, 0, 1, 0, 0], range(10, 0, -1), strict=True)
)


def children_cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, str]:
    c, t = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t, children_cpu() - c, done.stdout


def summary(name: str, wall: list[float], cpu: list[float]) -> str:
    return (
        f"| {name} | {min(wall):.3f} s | {statistics.median(wall):.3f} s "
        f"| {statistics.median(cpu):.3f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": args.tree}
    with tempfile.TemporaryDirectory() as tmp:  # cwd: no sqlmetrics/ next to the interpreter
        csv = Path(tmp) / "ten.csv"
        csv.write_text(CSV)
        cases = {
            "import sqlmetrics (in-process)": [sys.executable, "-c", IMPORT],
            "sqlmetrics --version": [sys.executable, "-m", "sqlmetrics", "--version"],
            "sqlmetrics eval ten.csv -m auc": [
                sys.executable,
                "-m",
                "sqlmetrics",
                "eval",
                str(csv),
                "-m",
                "auc",
            ],
        }
        print("load before", " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
        walls: dict[str, list[float]] = {k: [] for k in cases}
        cpus: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(args.runs):
            for name, cmd in cases.items():
                wall, cpu, out = timed(cmd, env, tmp)
                if name.startswith("import"):
                    inner_wall, inner_cpu = (float(x) for x in out.split())
                    wall, cpu = inner_wall, inner_cpu
                walls[name].append(wall)
                cpus[name].append(cpu)
        print("load after", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("| case | wall, min | wall, median | CPU, median |")
    print("|---|---:|---:|---:|")
    for name in cases:
        print(summary(name, walls[name], cpus[name]))


if __name__ == "__main__":
    main()
