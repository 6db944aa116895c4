"""sqlmetrics' whole calls against the naive hand-written DuckDB query (issues 24 and 41).

    python -m benchmarks.ranking_naive [--data DIR] [--size 10000000] [--repeats 3]
        [--cases ndcg@10 map@10 mrr evaluate auc gauc] [--threads N]
        [--tree NAME=PATH ...] [--out FILE.json]

Cases and what each ratio compares (the naive SQL: ``NAIVE_SQL`` in ``benchmarks/tasks.py``):

- ``ndcg@10``, ``map@10``, ``mrr``: ``sqlmetrics.ndcg`` (linear gain) / ``mean_average_precision``
  / ``mrr``, whole calls (input checks included), over the naive query (goal <= 1.0x);
- ``evaluate``: ``evaluate`` of five ranking metrics over ``ndcg(k=10)`` alone (goal <= 1.15x);
- ``auc``, ``gauc``: ``sqlmetrics.auc`` / ``gauc`` over the naive ``rank()`` query (goal <= 1.0x).

Data: the ranking table (``size / 20`` queries x 20 items, graded labels) and the CTR log
(``size`` rows, ``size / 20`` users, tied scores) of ``generate.ensure``. For each case: one
warm-up run of each side whose values must agree to 1e-12 (else nothing is timed), then
``repeats`` paired runs, each in a fresh process (``benchmarks/tasks.py``: timed from the call
to the number, imports excluded), alternating. The row is the median of the pairs' ratios.
``--tree NAME=PATH``: also time sqlmetrics' side from another checkout (``PYTHONPATH=PATH``
first; e.g. ``git worktree add /tmp/old <commit>``), paired the same way, with its value checked
equal. ``--threads``: DuckDB's threads for every side (default: DuckDB's, one per core). The
load average is printed around each case: on a shared machine a paired ratio is what stays
comparable.

``--sql-alone``: instead, in one process (DuckDB's default threads), each ranking case's kernel
SQL (``sqlmetrics.render``) against the naive query, paired, after a warm-up, then the input
checks a whole call also runs (the duplicate (query, item) check and the validation scan),
each timed alone: where a whole call's time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOL = 1e-12

# case: (table, sqlmetrics' task and options, the base's task and options, goal)
CASES: dict[str, tuple[str, tuple[str, dict[str, Any]], tuple[str, dict[str, Any]], float]] = {
    "ndcg@10": (
        "ranking",
        ("ours_ranking", {"metric": "ndcg@10"}),
        ("naive_ranking", {"metric": "ndcg@10"}),
        1.0,
    ),
    "map@10": (
        "ranking",
        ("ours_ranking", {"metric": "map@10"}),
        ("naive_ranking", {"metric": "map@10"}),
        1.0,
    ),
    "mrr": (
        "ranking",
        ("ours_ranking", {"metric": "mrr"}),
        ("naive_ranking", {"metric": "mrr"}),
        1.0,
    ),
    "evaluate": (
        "ranking",
        ("ours_evaluate", {}),
        ("ours_ranking", {"metric": "ndcg@10"}),
        1.15,
    ),
    "auc": ("ctr", ("ours_auc", {}), ("naive_ranking", {"metric": "auc"}), 1.0),
    "gauc": ("ctr", ("ours_gauc", {}), ("naive_ranking", {"metric": "gauc"}), 1.0),
}


def run(
    task: str, path: Path, options: dict[str, Any], tree: str | None = None
) -> tuple[float, float]:
    """(seconds, value) of one task in a fresh process; ``tree`` first on the path if given."""
    paths = [p for p in (tree, str(HERE.parent), os.environ.get("PYTHONPATH")) if p]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.tasks", task, str(path), json.dumps(options)],
        cwd=HERE.parent,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{task} {options} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.splitlines()[-1])
    return float(out["seconds"]), float(out["value"])


def sql_alone(path: Path, cases: list[str], repeats: int) -> None:
    """Time the kernel SQL of each ranking case against the naive query, then the checks."""
    import time

    import duckdb

    import sqlmetrics
    from benchmarks.tasks import NAIVE_SQL

    cols = {"group": "query_id", "item": "item_id", "label": "rel", "score": "score"}
    calls = {
        "ndcg@10": ("ndcg", {"k": 10, "gain": "linear"}),
        "map@10": ("mean_average_precision", {"k": 10}),
        "mrr": ("mrr", {}),
    }
    con = duckdb.connect()

    def timed(sql: str) -> float:
        start = time.perf_counter()
        con.execute(sql).fetchall()
        return time.perf_counter() - start

    for case in cases:
        if case not in calls:
            continue
        name, params = calls[case]
        kernel = sqlmetrics.render(name, str(path), **cols, **params)
        naive = NAIVE_SQL[case].format(path=path, score="score")
        timed(naive), timed(kernel)
        pairs = [(timed(naive), timed(kernel)) for _ in range(repeats)]
        ratio = statistics.median(k / n for n, k in pairs)
        print(
            f"{case}: naive {statistics.median(n for n, _ in pairs):.2f} s, kernel SQL alone "
            f"{statistics.median(k for _, k in pairs):.2f} s, {ratio:.2f}x ({load()})",
            flush=True,
        )
    file = f"read_parquet('{path}')"
    checks = {
        "duplicate check": "select count(*), min(cast(row(query_id, item_id) as varchar)) from "
        f"(select query_id, item_id from {file} group by query_id, item_id "
        "having count(*) > 1) as dup",
        "validation scan": "select count(*), sum(case when query_id is null then 1 else 0 end), "
        "sum(case when item_id is null then 1 else 0 end), sum(case when score is null or not "
        "isfinite(score) then 1 else 0 end), sum(case when rel is null or rel < 0 then 1 else 0 "
        f"end) from {file}",
    }
    for name, sql in checks.items():
        timed(sql)
        print(f"{name}: {statistics.median(timed(sql) for _ in range(repeats)):.2f} s", flush=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--size", type=float, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", nargs="*", default=["ndcg@10", "map@10", "mrr"], choices=CASES)
    # kept for the commands recorded in RESULTS.md before issue 41
    parser.add_argument("--metrics", nargs="*", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH of a checkout")
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON")
    parser.add_argument("--sql-alone", action="store_true", help="kernel SQL vs naive, checks")
    args = parser.parse_args()
    from benchmarks import generate

    size = int(args.size)
    cases = args.metrics or args.cases
    trees = dict(t.split("=", 1) for t in args.tree)
    args.data.mkdir(parents=True, exist_ok=True)
    ctr, ranking = generate.ensure(args.data, size)
    tables = {"ctr": ctr, "ranking": ranking}
    threads = {"threads": args.threads} if args.threads else {}
    print(f"data: {ranking}, {ctr} ({size:,} rows each); threads {args.threads or 'default'}")
    if args.sql_alone:
        sql_alone(ranking, cases, args.repeats)
        return
    rows: list[dict[str, Any]] = []
    for case in cases:
        table, (ours_task, ours_opts), (base_task, base_opts), goal = CASES[case]
        path = tables[table]
        ours_opts, base_opts = {**ours_opts, **threads}, {**base_opts, **threads}
        print(f"{case}: load before {load()}", flush=True)
        sides = {"ours": (ours_task, ours_opts, None)}
        sides.update({name: (ours_task, ours_opts, tree) for name, tree in trees.items()})
        _, base_value = run(base_task, path, base_opts)
        for name, (task, opts, tree) in sides.items():
            _, value = run(task, path, opts, tree)
            if not abs(value - base_value) <= TOL:
                raise SystemExit(f"{case}: {name} {value!r} != base {base_value!r}: not timed")
        times: dict[str, list[float]] = {name: [] for name in ["base", *sides]}
        for _ in range(args.repeats):
            times["base"].append(run(base_task, path, base_opts)[0])
            for name, (task, opts, tree) in sides.items():
                times[name].append(run(task, path, opts, tree)[0])
            print("  " + ", ".join(f"{n} {t[-1]:.2f} s" for n, t in times.items()), flush=True)
        row: dict[str, Any] = {"case": case, "goal": goal, "value": base_value, "load": load()}
        for name, ts in times.items():
            row[name] = statistics.median(ts)
            if name != "base":
                row[f"{name}_ratio"] = statistics.median(
                    o / b for o, b in zip(ts, times["base"], strict=True)
                )
        rows.append(row)
        print(f"{case}: {json.dumps(row)}", flush=True)
    names = ["ours", *trees]
    print(
        "| case | base s | "
        + " | ".join(f"{n} s | {n} / base" for n in names)
        + " | goal | met | load after |"
    )
    print("|---|---:|" + "---:|---:|" * len(names) + "---|---|---|")
    for row in rows:
        cells = " | ".join(f"{row[n]:.2f} | {row[f'{n}_ratio']:.2f}x" for n in names)
        met = "yes" if row["ours_ratio"] <= row["goal"] else "**no**"
        goal = f"<= {row['goal']}x"
        print(f"| {row['case']} | {row['base']:.2f} | {cells} | {goal} | {met} | {row['load']} |")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
