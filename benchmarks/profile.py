"""Where does a metric's time go? ``python -m benchmarks.profile METRIC [--size 1e7]``.

Times the public function end to end, then the rendered SQL alone (the difference is input
checks: describe, validation scan, duplicate checks), and prints DuckDB's per-operator
profile of that SQL (the JSON form of ``EXPLAIN ANALYZE``), heaviest operators first.
Alternative formulations can be timed the same way with ``--sql FILE``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

import sqlmetrics

from . import generate

HERE = Path(__file__).resolve().parent

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    # metric: (table, arguments of the public function and of render())
    "auc": ("ctr", {"label": "label", "score": "score"}),
    "auc_bounds": ("ctr", {"label": "label", "score": "score"}),
    "gauc": ("ctr", {"group": "user_id", "label": "label", "score": "score"}),
    "ndcg": (
        "ranking",
        {
            "group": "query_id",
            "item": "item_id",
            "label": "rel",
            "score": "score",
            "k": 10,
            "gain": "linear",
        },
    ),
}


def operators(node: Any, out: list[tuple[float, str, int]]) -> None:
    """Collect (seconds, operator, rows out) from DuckDB's JSON profile, any of its layouts."""
    if isinstance(node, list):
        for child in node:
            operators(child, out)
        return
    if not isinstance(node, dict):
        return
    name = node.get("type") or node.get("operator_type") or node.get("operator_name")
    timing = node.get("timing", node.get("operator_timing"))
    rows = node.get("intermediate_rows", node.get("operator_cardinality", 0))
    if name and timing:
        info = node.get("extra_info") or {}
        detail = info.get("Function") or info.get("Groups") or info.get("Projections") or ""
        out.append((float(timing), f"{name} {str(detail)[:60]}".strip(), int(rows or 0)))
    for key in ("operator", "children"):
        operators(node.get(key), out)


def profile_sql(sql: str, repeats: int = 3) -> tuple[float, list[tuple[float, str, int]]]:
    con = duckdb.connect()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        con.execute(sql).fetchall()
        best = min(best, time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "profile.json"
        con.execute("set enable_profiling = 'json'")
        con.execute(f"set profiling_output = '{out_file}'")
        con.execute(sql).fetchall()
        tree = json.loads(out_file.read_text())
    ops: list[tuple[float, str, int]] = []
    operators(tree, ops)
    return best, sorted(ops, reverse=True)


# formulations tried for each metric (benchmarks/alternatives/*.sql, {path} = the file)
ALTERNATIVES = {
    "auc": ["auc_bucketed_exact.sql", "auc_cume_dist.sql", "auc_two_ranks.sql"],
    "gauc": [],
    "ndcg": ["ndcg10_idcg_by_label_counts.sql"],
    "auc_bounds": [],
}


def profile(metric: str, size: int, repeats: int = 3, sql_file: Path | None = None) -> str:
    """The profile of ``metric`` on the benchmark data, as text."""
    ctr, ranking = generate.ensure(HERE / "data", size)
    table, kwargs = CALLS[metric]
    path = str(ctr if table == "ctr" else ranking)
    fn = getattr(sqlmetrics, metric)
    best = float("inf")
    expected = None
    for _ in range(repeats):
        start = time.perf_counter()
        expected = fn(path, **kwargs)
        best = min(best, time.perf_counter() - start)
    sql = (
        sql_file.read_text().replace("{path}", path)
        if sql_file
        else sqlmetrics.render(metric, path, **kwargs)
    )
    alone, ops = profile_sql(sql, repeats)
    lines = [
        f"{metric}: function {best:.3f} s (best of {repeats}); its SQL alone "
        f"{alone:.3f} s; input checks and overhead {best - alone:.3f} s",
        "heaviest operators (CPU seconds summed over threads, rows out):",
    ]
    lines += [f"  {timing:8.3f}  {name:<72} {rows:>12,}" for timing, name, rows in ops[:6]]
    if sql_file is None:
        for alt in ALTERNATIVES.get(metric, []):
            text = (HERE / "alternatives" / alt).read_text().replace("{path}", path)
            con = duckdb.connect()
            value = con.execute(text).fetchall()[0][0]
            alt_time, _ = profile_sql(text, repeats)
            same = (
                "same value"
                if abs(float(value) - float(expected)) <= 1e-9
                # type: ignore[arg-type]
                else (f"DIFFERENT value {value!r}")
            )
            lines.append(
                f"alternative benchmarks/alternatives/{alt}: SQL alone {alt_time:.3f} s "
                f"(current {alone:.3f} s), {same}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    parser.add_argument("metric", choices=sorted(CALLS))
    parser.add_argument("--size", type=float, default=1e7)
    parser.add_argument("--sql", type=Path, help="time this SQL instead ({path} = the file)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(profile(args.metric, int(args.size), args.repeats, args.sql))


if __name__ == "__main__":
    main()
