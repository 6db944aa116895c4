"""Time ``sqlmetrics.compare`` against the metrics alone (issue 12), in fresh processes.

    python -m benchmarks.compare --rows 10000000 [--data DIR] [--repeats 1] [--only NAME ...]

Two seeded tables with two models' scores each, written once as Parquet under ``--data``:
a ranking table (``rows / 20`` queries x 20 items, graded relevance 0..3, ``score_a`` and a
better ``score_b``) and a CTR log (``rows`` rows, ~8 % clicks, ``score_a``, ``score_b``).
Cases: ``evaluate`` of one model on three ranking metrics (ndcg@10, map@10, mrr) against
``compare`` of the two models on the same three (paired t-test); ``auc`` of one model
against ``compare`` of the two on AUC (DeLong). Each case runs ``python -c`` in a new process
and reports wall and CPU time (user + system, all DuckDB threads: the figure to compare on a
shared machine) and the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
CHUNK = 2_000_000
METRICS = ["ndcg@10", "map@10", "mrr"]
RANKING_ARGS = "group='query_id', item='item_id', label='rel'"


def _write(path: Path, batches: object, schema: pa.Schema) -> None:
    tmp = path.with_suffix(".parquet.tmp")
    with pq.ParquetWriter(tmp, schema, compression="snappy") as writer:
        for table in batches:  # type: ignore[attr-defined]
            writer.write_table(table, row_group_size=1_000_000)
    os.replace(tmp, path)


def ranking(path: Path, rows: int, items: int = 20, seed: int = 1) -> None:
    """The ranking table: query_id, item_id, rel, score_a, score_b (b closer to rel)."""
    rng = np.random.default_rng(seed)
    queries = max(1, rows // items)
    schema = pa.schema(
        [
            ("query_id", pa.int64()),
            ("item_id", pa.int64()),
            ("rel", pa.int8()),
            ("score_a", pa.float64()),
            ("score_b", pa.float64()),
        ]
    )

    def batches():  # type: ignore[no-untyped-def]
        done = 0
        per_chunk = max(1, CHUNK // items)
        while done < queries:
            q = min(per_chunk, queries - done)
            qid = np.repeat(np.arange(done, done + q, dtype=np.int64), items)
            item = np.tile(np.arange(items, dtype=np.int64), q)
            rel = rng.choice(4, size=q * items, p=[0.55, 0.25, 0.12, 0.08]).astype(np.int8)
            noise = rng.normal(0.0, 1.0, size=q * items)
            yield pa.table(
                {
                    "query_id": qid,
                    "item_id": item,
                    "rel": rel,
                    "score_a": 0.6 * rel + noise,
                    "score_b": 0.7 * rel + 0.9 * noise + rng.normal(0.0, 0.4, size=q * items),
                },
                schema=schema,
            )
            done += q

    _write(path, batches(), schema)


def ctr(path: Path, rows: int, seed: int = 0) -> None:
    """The CTR log: label (~8 % clicks), score_a, score_b (b slightly better)."""
    rng = np.random.default_rng(seed)
    schema = pa.schema([("label", pa.int8()), ("score_a", pa.float64()), ("score_b", pa.float64())])

    def batches():  # type: ignore[no-untyped-def]
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            logit = -2.7 + rng.normal(0.0, 0.8, size=n)
            label = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int8)
            noise = rng.normal(0.0, 1.0, size=n)
            yield pa.table(
                {
                    "label": label,
                    "score_a": logit + 1.0 * label + noise,
                    "score_b": logit + 1.1 * label + noise + rng.normal(0.0, 0.3, size=n),
                },
                schema=schema,
            )
            done += n

    _write(path, batches(), schema)


def ensure(data: Path, rows: int) -> tuple[Path, Path]:
    data.mkdir(parents=True, exist_ok=True)
    rank, log = data / f"compare_ranking_{rows}.parquet", data / f"compare_ctr_{rows}.parquet"
    if not rank.exists():
        ranking(rank, rows)
    if not log.exists():
        ctr(log, rows)
    return rank, log


def cases(rank: Path, log: Path) -> dict[str, str]:
    r, c = str(rank), str(log)
    return {
        "evaluate(3 ranking metrics, model a)": (
            f"sqlmetrics.evaluate({r!r}, {METRICS!r}, score='score_a', {RANKING_ARGS}).iloc[0, 0]"
        ),
        "compare(3 ranking metrics, a vs b, t-test)": (
            f"sqlmetrics.compare({r!r}, {METRICS!r}, scores=['score_a', 'score_b'], "
            f"{RANKING_ARGS})['p_value'].iloc[1]"
        ),
        "auc(model a)": f"sqlmetrics.auc({c!r}, score='score_a')",
        "compare(auc, a vs b, DeLong)": (
            f"sqlmetrics.compare({c!r}, 'auc', scores=['score_a', 'score_b'])['diff'].iloc[1]"
        ),
    }


CODE = (
    "import resource, time, sqlmetrics\n"
    "def cpu():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return u.ru_utime + u.ru_stime\n"
    "c, t = cpu(), time.perf_counter()\n"
    "v = {call}\n"
    "print(time.perf_counter() - t, cpu() - c, float(v))\n"
)


def run(call: str) -> tuple[float, float, float]:
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
    done = subprocess.run(
        [sys.executable, "-c", CODE.format(call=call)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall, cpu, value = (float(x) for x in done.stdout.split())
    return wall, cpu, value


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--data", default=os.path.join(HERE, "data"))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    rank, log = ensure(Path(args.data), args.rows)
    with open("/proc/loadavg") as f:
        print("load before:", f.read().split()[:3])
    table = cases(rank, log)
    results: dict[str, tuple[float, float]] = {}
    print("| case | wall s | CPU s | value |\n| --- | ---: | ---: | ---: |")
    for name in args.only or list(table):
        runs = [run(table[name]) for _ in range(args.repeats)]
        wall = statistics.median(x[0] for x in runs)
        cpu = statistics.median(x[1] for x in runs)
        results[name] = (wall, cpu)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {runs[0][2]:.6g} |", flush=True)
    for num, den in (
        ("compare(3 ranking metrics, a vs b, t-test)", "evaluate(3 ranking metrics, model a)"),
        ("compare(auc, a vs b, DeLong)", "auc(model a)"),
    ):
        if num in results and den in results:
            print(
                f"ratio {num} / {den}: wall {results[num][0] / results[den][0]:.2f}, "
                f"CPU {results[num][1] / results[den][1]:.2f}"
            )
    with open("/proc/loadavg") as f:
        print("load after:", f.read().split()[:3])


if __name__ == "__main__":
    main()
