"""Run every benchmark side by side and write the full report to ``benchmarks/data/peers.md``.

``--out`` writes it elsewhere. ``benchmarks/RESULTS.md`` is kept by hand: its peer table
copies this report's Targets table, with the run's date and load.

Each timed run is a fresh process (``benchmarks.tasks``) on the same Parquet file. Before a
tool is timed, its value is checked against sqlmetrics' (or, for the ranking peers, against a
numpy reference as well); a mismatch aborts the benchmark. The first run of every tool is a
discarded warm-up (it is the one whose value is checked), then ``repeats`` runs give the
median time and the largest peak RSS. A watchdog kills a run above ``--cap-gb`` resident
memory or ``--timeout`` seconds and reports it as such.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil

from . import generate

HERE = Path(__file__).resolve().parent
TOL = 1e-9


@dataclass
class Outcome:
    tool: str
    seconds: list[float] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    value: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    killed: str = ""
    load: list[float] = field(default_factory=list)  # 1-minute load average before each run

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")

    @property
    def rss(self) -> int:
        return max(self.peak_rss) if self.peak_rss else 0


def run_once(
    task: str, path: Path, opts: dict[str, Any], cap: int, timeout: float
) -> dict[str, Any]:
    """One fresh process; returns the task's JSON, or {"killed": reason, "rss": bytes}."""
    cmd = [sys.executable, "-m", "benchmarks.tasks", task, str(path), json.dumps(opts)]
    proc = subprocess.Popen(
        cmd, cwd=HERE.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    watched = psutil.Process(proc.pid)
    start = time.monotonic()
    seen = 0
    while proc.poll() is None:
        try:
            seen = max(seen, watched.memory_info().rss)
        except psutil.Error:
            pass
        elapsed = time.monotonic() - start
        if seen > cap or elapsed > timeout:
            proc.kill()
            proc.wait()
            why = (
                f"killed above the {cap / 2**30:.0f} GiB memory cap after {elapsed:.0f} s"
                if seen > cap
                else f"killed at the {timeout:.0f} s time limit"
            )
            return {"killed": why, "rss": seen}
        time.sleep(0.05)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{task} failed ({proc.returncode}):\n{err[-3000:]}")
    return dict(json.loads(out.strip().splitlines()[-1]))


def measure(
    task: str,
    path: Path,
    *,
    repeats: int,
    expected: float | None = None,
    opts: dict[str, Any] | None = None,
    cap_gb: float = 12.0,
    timeout: float = 900.0,
    warmup: bool = True,
    label: str = "",
    time_key: str = "",
) -> Outcome:
    """Warm-up run (value checked against ``expected``), then ``repeats`` timed runs."""
    opts = opts or {}
    outcome = Outcome(label or task)
    cap = int(cap_gb * 2**30)
    for i in range((1 if warmup else 0) + repeats):
        outcome.load.append(os.getloadavg()[0])
        try:
            result = run_once(task, path, opts, cap, timeout)
        except RuntimeError as exc:  # report the failure instead of losing the whole run
            last = [line for line in str(exc).splitlines() if line.strip()][-1]
            result = {"killed": f"failed: {last[:200]}", "rss": 0}
        if "killed" in result:
            outcome.killed = result["killed"]
            outcome.peak_rss.append(int(result["rss"]))
            print(f"  {outcome.tool}: {outcome.killed}", flush=True)
            return outcome
        value = float(result["value"])
        if outcome.value is None:
            outcome.value, outcome.extra = value, result["extra"]
            if expected is not None and not abs(value - expected) <= TOL:
                raise AssertionError(f"{task} gives {value!r}, sqlmetrics {expected!r}: not timed")
        elif value != outcome.value and not abs(value - outcome.value) <= TOL:
            raise AssertionError(f"{task} changed its value between runs")
        if warmup and i == 0:
            continue
        outcome.seconds.append(float(result["extra"][time_key] if time_key else result["seconds"]))
        outcome.peak_rss.append(int(result["peak_rss"]))
        outcome.extra = result["extra"]
    print(
        f"  {outcome.tool}: median {outcome.median:.3f} s over {outcome.seconds}, "
        f"peak RSS {outcome.rss / 2**20:.0f} MiB, value {outcome.value!r}",
        flush=True,
    )
    return outcome


# ----------------------------------------------------------------------------- the suite
@dataclass
class Comparison:
    title: str
    ours: Outcome
    peers: list[Outcome]
    targets: dict[str, float] = field(default_factory=dict)  # peer tool -> minimum ratio
    notes: list[str] = field(default_factory=list)
    metric: str = ""  # profiled (benchmarks.profile) when a target is missed

    def missed(self) -> bool:
        for p in self.peers:
            goal = self.targets.get(p.tool)
            if goal is None:
                continue
            if p.killed or self.ours.killed:
                return True
            ratio = p.median / self.ours.median
            if (goal < 0 and ratio > -goal) or (goal > 0 and ratio < goal):
                return True
        return False


# why a target can be missed: read with the profile printed above it in the report
LIMITS = {
    "auc": (
        "The exact AUC ranks every row: one sort of all rows (DuckDB's window `rank()` and "
        "`count()` over the score order), which is nearly all of the query in the profile; "
        "the rest is the input validation scan (NULLs, NaN, labels) and reading the file. "
        "scikit-learn pays one single-threaded numpy argsort plus its input checks. A sort on "
        "2 cores is at best ~2x a single-threaded one, so the ratio is bounded by what the "
        "peer spends outside its sort, and it drops further when other processes take the "
        "cores (see the load average). Formulations tried, timed just above on the same data "
        "(SQL alone, same value required): exact rank sums inside histogram buckets "
        "(`partition by bucket`: many small sorts instead of one), `cume_dist()` instead "
        "of the framed `count()`, and three `rank()` windows (score; score, label; positives "
        "only) instead of `rank()` + framed `count()`: the last gives the same value ~10 % "
        "faster (measured by hand, idle machine: 1.17 s against 1.30 s), not 4x. "
        "The measured floor: a bare DuckDB `rank() over (order by score)` on the same 10M "
        "scores, nothing else, took 0.9-1.7 s in our runs (idle machine), while 4x against "
        "scikit-learn's ~3.4 s would need the whole call, validation and read included, in "
        "~0.86 s. The sort-free route is `auc_bounds`, with its guaranteed error bound."
    ),
    "gauc": (
        "GAUC sorts the rows within each user (a partitioned window, nearly all of the "
        "query); pandas' `groupby().rank()` is the same work, single-threaded. The ratio is "
        "bounded by the 2 cores, and shrinks when other processes take them (see the load "
        "average). `cume_dist()` instead of the framed `count()` was tried by hand (10M rows, "
        "loaded machine: 4.4 s against 3.7 s for the current query) and is not faster."
    ),
    "ndcg": (
        "NDCG@10 is two sorts within each query (by score for DCG, by label for the ideal DCG) "
        "plus the input checks (validation scan and the duplicate (query, item) check), which "
        "the profile shows as the gap between the function and its SQL alone. Computing the "
        "ideal DCG from the count of each label value per query "
        "(`benchmarks/alternatives/ndcg10_idcg_by_label_counts.sql`) replaces the second sort "
        "by a small aggregation and gives the same value; its timing is above. It is proposed "
        "for `sql/ranking/ndcg.sql`, which this work does not own."
    ),
}


def suite(
    size: int, repeats: int, data_dir: Path, only: set[str] | None, cap_gb: float
) -> list[Comparison]:
    import sqlmetrics

    ctr, ranking = generate.ensure(data_dir, size)
    print(f"data: {ctr} {ranking}", flush=True)
    out: list[Comparison] = []

    def want(name: str) -> bool:
        return only is None or name in only

    for score, kind in (
        ("score", "distinct scores"),
        ("score_r4", "scores rounded to 4 decimals (ties)"),
    ):
        if not want("auc"):
            break
        print(f"AUC, {kind}", flush=True)
        ours = measure(
            "ours_auc", ctr, repeats=repeats, opts={"score": score}, label="sqlmetrics.auc"
        )
        sk = measure(
            "sklearn_auc",
            ctr,
            repeats=repeats,
            expected=ours.value,
            opts={"score": score},
            label="pandas + sklearn roc_auc_score",
            cap_gb=cap_gb,
        )
        naive = measure(
            "naive_ranking",
            ctr,
            repeats=repeats,
            expected=ours.value,
            opts={"metric": "auc", "score": score},
            label="naive DuckDB SQL (one window: rank() + running count)",
        )
        out.append(
            Comparison(
                f"Exact AUC, {size:,} rows, {kind}",
                ours,
                [sk, naive],
                {sk.tool: 4.0} if score == "score" else {},
                metric="auc",
            )
        )

    if want("auc_bounds"):
        print("auc_bounds", flush=True)
        exact = measure("ours_auc", ctr, repeats=repeats, label="sqlmetrics.auc (exact)")
        bounds = measure(
            "ours_auc_bounds", ctr, repeats=repeats, label="sqlmetrics.auc_bounds (bins=65536)"
        )
        b = bounds.extra
        if not b["lower"] <= exact.value <= b["upper"]:  # type: ignore[operator]
            raise AssertionError(f"exact AUC {exact.value} outside {b}")
        out.append(
            Comparison(
                f"Approximate AUC with bounds, {size:,} rows, distinct scores",
                bounds,
                [exact],
                {exact.tool: 3.0},
                [
                    f"auc_bounds = {bounds.value:.9f}, "
                    f"bounds [{b['lower']:.9f}, {b['upper']:.9f}], "
                    f"half-width {b['half_width']:.2e}; exact AUC {exact.value:.9f} "
                    f"(|estimate - exact| = {abs(bounds.value - exact.value):.1e})"
                ],  # type: ignore[operator]
                metric="auc_bounds",
            )
        )

    if want("gauc"):
        print("GAUC", flush=True)
        ours = measure("ours_gauc", ctr, repeats=repeats, label="sqlmetrics.gauc")
        vec = measure(
            "pandas_gauc",
            ctr,
            repeats=repeats,
            expected=ours.value,
            label="pandas vectorized (groupby rank)",
            cap_gb=cap_gb,
        )
        every = 100
        import duckdb

        subset = duckdb.sql(
            f"select user_id, label, score from read_parquet('{ctr}') where user_id % {every} = 0"
        ).df()
        expected_subset = sqlmetrics.gauc(subset, group="user_id")
        loop = measure(
            "loop_gauc",
            ctr,
            repeats=repeats,
            expected=expected_subset,
            opts={"every": every},
            label="per-user loop + roc_auc_score",
            cap_gb=cap_gb,
            time_key="scaled_s",
        )
        naive = measure(
            "naive_ranking",
            ctr,
            repeats=repeats,
            expected=ours.value,
            opts={"metric": "gauc"},
            label="naive DuckDB SQL (rank() + running count per user)",
        )
        e = loop.extra
        loop.note = (
            f"run on users with user_id % {every} = 0 ({e['subset_users']:,} of "
            f"{e['users']:,} users, {e['subset_rows']:,} rows), value checked against "
            f"sqlmetrics.gauc on that subset; time = full read + loop time x "
            f"{e['users'] / e['subset_users']:.1f} (scaled)"
        )
        out.append(
            Comparison(
                f"GAUC, {size:,} rows, {e['users']:,} users with rows",
                ours,
                [vec, loop, naive],
                {vec.tool: 2.0, loop.tool: 100.0},
                metric="gauc",
            )
        )

    if want("ndcg"):
        print("NDCG@10", flush=True)
        ref = measure("numpy_ndcg", ranking, repeats=0, label="numpy reference")
        peers = []
        ours = None
        if hasattr(sqlmetrics, "ndcg"):
            ours = measure(
                "ours_ndcg",
                ranking,
                repeats=repeats,
                expected=ref.value,
                label="sqlmetrics.ndcg(k=10, gain='linear')",
            )
        expected = ours.value if ours else ref.value
        peers.append(
            measure(
                "pytrec_ndcg",
                ranking,
                repeats=repeats,
                expected=expected,
                label="pytrec_eval (dict input built from pandas)",
                cap_gb=cap_gb,
            )
        )
        peers.append(
            measure(
                "ranx_ndcg",
                ranking,
                repeats=repeats,
                expected=expected,
                label="ranx (Qrels/Run.from_df)",
                cap_gb=cap_gb,
            )
        )
        peers.append(
            measure(
                "naive_ranking",
                ranking,
                repeats=repeats,
                expected=expected,
                opts={"metric": "ndcg@10"},
                label="naive DuckDB SQL (two row_number() sorts)",
            )
        )
        if ours is not None:
            out.append(
                Comparison(
                    f"NDCG@10, {size:,} rows ({size // 20:,} queries x 20)",
                    ours,
                    peers,
                    {peers[0].tool: 5.0, peers[1].tool: 30.0},
                    [
                        f"numpy reference NDCG@10 = {ref.value!r}; every value "
                        f"checked against it before timing"
                    ],
                    metric="ndcg",
                )
            )
            if hasattr(sqlmetrics, "evaluate") and want("evaluate"):
                print("evaluate", flush=True)
                ev = measure(
                    "ours_evaluate",
                    ranking,
                    repeats=repeats,
                    expected=ours.value,
                    label="sqlmetrics.evaluate(5 metrics @10)",
                )
                out.append(
                    Comparison(
                        "evaluate: ndcg, map, mrr, recall, precision @10 vs NDCG@10 alone",
                        ours,
                        [ev],
                        {ev.tool: -1.5},
                        [f"evaluate values: {ev.extra.get('values')}"],
                        metric="ndcg",
                    )
                )
    return out


def scale(
    size: int, data_dir: Path, cap_gb: float, memory_limit: str, timeout: float
) -> list[Comparison]:
    """Exact AUC and NDCG@10 at ``size`` rows with DuckDB's memory_limit; peers once each."""
    import sqlmetrics

    ctr, ranking = generate.ensure(data_dir, size)
    tmp = data_dir / "duckdb_tmp"
    tmp.mkdir(exist_ok=True)
    opts = {
        "memory_limit": memory_limit,
        "threads": os.cpu_count() or 1,
        "temp_directory": str(tmp),
    }
    out = []
    print(f"scale: AUC {size:,}", flush=True)
    ours = measure(
        "ours_auc",
        ctr,
        repeats=1,
        warmup=False,
        opts=opts,
        label=f"sqlmetrics.auc, memory_limit={memory_limit}",
        timeout=timeout * 2,
    )
    sk = measure(
        "sklearn_auc",
        ctr,
        repeats=1,
        warmup=False,
        expected=ours.value,
        label="pandas + sklearn roc_auc_score",
        cap_gb=cap_gb,
        timeout=timeout,
    )
    out.append(
        Comparison(
            f"Scale: exact AUC, {size:,} rows",
            ours,
            [sk],
            notes=[
                f"sqlmetrics runs with `con=duckdb.connect(config={opts!r})`: DuckDB keeps its "
                f"buffers under memory_limit and spills the sort to temp_directory. For reference, "
                f"the issue "
                f"quotes an earlier measurement of a one-window exact AUC over 100M rows: ~33 s at "
                f"2.05 GB peak RSS (other machine state)."
            ],
        )
    )
    if hasattr(sqlmetrics, "ndcg"):
        print(f"scale: NDCG@10 {size:,}", flush=True)
        ref = measure(
            "numpy_ndcg",
            ranking,
            repeats=0,
            label="numpy reference",
            cap_gb=cap_gb,
            timeout=timeout,
        )
        ours = measure(
            "ours_ndcg",
            ranking,
            repeats=1,
            warmup=False,
            opts=opts,
            expected=ref.value,
            label=f"sqlmetrics.ndcg, memory_limit={memory_limit}",
            timeout=timeout * 2,
        )
        peers = [
            measure(
                t,
                ranking,
                repeats=1,
                warmup=False,
                expected=ours.value,
                label=lab,
                cap_gb=cap_gb,
                timeout=timeout,
            )
            for t, lab in (
                ("pytrec_ndcg", "pytrec_eval (dict input built from pandas)"),
                ("ranx_ndcg", "ranx (Qrels/Run.from_df)"),
            )
        ]
        out.append(
            Comparison(
                f"Scale: NDCG@10, {size:,} rows",
                ours,
                peers,
                notes=[f"numpy reference NDCG@10 = {ref.value!r} (sqlmetrics checked against it)"],
            )
        )
    return out


# ----------------------------------------------------------------------------- report
def versions() -> str:
    names = [
        "sqlmetrics",
        "duckdb",
        "pandas",
        "numpy",
        "pyarrow",
        "scikit-learn",
        "pytrec-eval-terrier",
        "ranx",
        "numba",
    ]
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return f"Python {platform.python_version()}; " + ", ".join(found)


def fmt_rss(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def load(o: Outcome) -> str:
    return f"{statistics.median(o.load):.1f}" if o.load else ""


def table(c: Comparison) -> list[str]:
    lines = [
        f"### {c.title}",
        "",
        "| tool | median s | runs | peak RSS | ratio (tool / sqlmetrics) | target | met | load |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    if c.ours.killed:
        lines.append(
            f"| {c.ours.tool} | ({c.ours.killed}) | 0 | > {fmt_rss(c.ours.rss)} | | | "
            f"| {load(c.ours)} |"
        )
    else:
        lines.append(
            f"| {c.ours.tool} | {c.ours.median:.3f} | {len(c.ours.seconds)} | "
            f"{fmt_rss(c.ours.rss)} | 1 | | | {load(c.ours)} |"
        )
    for p in c.peers:
        if p.killed:
            lines.append(
                f"| {p.tool} | ({p.killed}) | 0 | > {fmt_rss(p.rss)} | - | | | {load(p)} |"
            )
            continue
        ratio = p.median / c.ours.median
        goal = c.targets.get(p.tool)
        if goal is None:
            target = met = ""
        elif goal < 0:  # a ceiling on the tool / reference ratio, e.g. evaluate / ndcg
            ratio = p.median / c.ours.median
            target, met = f"<= {-goal:g}x", "yes" if ratio <= -goal else "**no**"
        else:
            target, met = f">= {goal:g}x", "yes" if ratio >= goal else "**no**"
        lines.append(
            f"| {p.tool} | {p.median:.3f} | {len(p.seconds)} | {fmt_rss(p.rss)} | "
            f"{ratio:.2f} | {target} | {met} | {load(p)} |"
        )
    lines.append("")
    values = [f"{o.tool} = {o.value!r}" for o in (c.ours, *c.peers) if o.value is not None]
    lines.append("Values (checked equal within 1e-9 before timing): " + "; ".join(values) + ".")
    for p in c.peers:
        if p.note:
            lines.append(f"{p.tool}: {p.note}.")
    lines += [*c.notes, ""]
    return lines


def profiles(comparisons: list[Comparison], size: int) -> list[str]:
    """Profile (DuckDB operator timings) and measured limit of each metric missing a target."""
    lines: list[str] = []
    done: set[str] = set()
    for c in comparisons:
        if not c.metric or c.metric in done or not c.missed():
            continue
        done.add(c.metric)
        print(f"profiling {c.metric}", flush=True)
        cmd = [
            sys.executable,
            "-m",
            "benchmarks.profile",
            c.metric,
            "--size",
            str(size),
            "--repeats",
            "2",
        ]
        done_run = subprocess.run(cmd, cwd=HERE.parent, capture_output=True, text=True)
        text = done_run.stdout.strip() or done_run.stderr.strip()[-2000:]
        lines += [
            f"### {c.metric}: where the time goes (`python -m benchmarks.profile "
            f"{c.metric} --size {size:.0e}`)",
            "",
            "```",
            text,
            "```",
            "",
            LIMITS.get(c.metric, ""),
            "",
        ]
    if lines:
        lines = ["## Targets missed: profile and limit", "", *lines]
    return lines


def report(
    comparisons: list[Comparison],
    args: argparse.Namespace,
    load: list[str],
    extra: list[str] | None = None,
) -> str:
    mem = psutil.virtual_memory().total
    head = [
        "# sqlmetrics benchmarks",
        "",
        f"Reproduce: `{' '.join(['python -m benchmarks', *sys.argv[1:]])}` "
        f'(after `pip install -e ".[bench]"`). Data: seeded synthetic Parquet from '
        f"`benchmarks/generate.py`.",
        "",
        f"Machine: {os.cpu_count()} cores, {mem / 2**30:.1f} GiB RAM, {platform.platform()}. ",
        f"Versions: {versions()}.",
        f"Load average (1, 5, 15 min) at start / end: {load[0]} / {load[1]}.",
        "",
        "Method: every run is a fresh process reading the same Parquet file; the time covers "
        "reading the file to the final number (imports excluded; ranx's numba functions are "
        "compiled on a toy input before the clock starts). The first run of each tool is a "
        "discarded warm-up whose value is checked against sqlmetrics' before any timing; the "
        f"table shows the median of {args.repeats} further runs and the largest peak RSS "
        "(getrusage maximum resident set size of that process, imports included). Ratios are "
        "peer time / sqlmetrics time measured side by side in this one run. DuckDB uses its "
        "defaults (all cores, 80% of RAM) unless a memory_limit is shown. The machine is shared "
        "with other work: `load` is the median 1-minute load average before that tool's runs "
        "(2 cores: above ~1 our parallel sorts lose cores, so ratios shrink).",
        "",
    ]
    summary = [
        "## Targets",
        "",
        "| comparison | peer | ratio | target | met |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for c in comparisons:
        for p in c.peers:
            goal = c.targets.get(p.tool)
            if goal is None:
                continue
            if p.killed or c.ours.killed:
                summary.append(f"| {c.title} | {p.tool} | - | | **no** ({p.killed}) |")
                continue
            ratio = p.median / c.ours.median
            ok = ratio <= -goal if goal < 0 else ratio >= goal
            target = f"<= {-goal:g}x" if goal < 0 else f">= {goal:g}x"
            summary.append(
                f"| {c.title} | {p.tool} | {ratio:.2f}x | {target} | {'yes' if ok else '**no**'} |"
            )
    body = [*summary, "", "## Measurements", "", *[line for c in comparisons for line in table(c)]]
    return "\n".join(head + body + (extra or [])) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--size", type=float, default=1e7, help="rows per table (default 1e7)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per tool")
    parser.add_argument(
        "--scale",
        type=float,
        default=0,
        help="also run exact AUC and NDCG@10 at this many rows with DuckDB's "
        "memory_limit (e.g. 1e8); 0 skips",
    )
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument(
        "--cap-gb", type=float, default=12.0, help="kill a peer process above this resident memory"
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="kill a peer run after this many seconds"
    )
    parser.add_argument(
        "--only", default="", help="comma-separated subset: auc,auc_bounds,gauc,ndcg,evaluate"
    )
    parser.add_argument(
        "--no-profile",
        action="store_true",
        help="skip profiling the metrics whose target is missed",
    )
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE / "data" / "peers.md",
        help="the report (default benchmarks/data/peers.md; RESULTS.md is kept by hand)",
    )
    args = parser.parse_args(argv)
    load = [", ".join(f"{x:.2f}" for x in os.getloadavg())]
    only = set(args.only.split(",")) if args.only else None
    comparisons = suite(int(args.size), args.repeats, args.data_dir, only, args.cap_gb)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(comparisons, args, [*load, "(scale part still running)"]))
    if args.scale:
        comparisons += scale(
            int(args.scale), args.data_dir, args.cap_gb, args.memory_limit, args.timeout
        )
    load.append(", ".join(f"{x:.2f}" for x in os.getloadavg()))
    args.out.write_text(report(comparisons, args, load))
    if not args.no_profile:
        args.out.write_text(report(comparisons, args, load, profiles(comparisons, int(args.size))))
    print(f"wrote {args.out}")
