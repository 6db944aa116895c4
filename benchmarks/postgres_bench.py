"""Every public function on a real PostgreSQL server, 1M rows, time per call; DuckDB beside it.

    python -m benchmarks.postgres_bench --rows 1000000

A throwaway PostgreSQL cluster is started as the tests start theirs (``tests/pg_server.py``:
a temporary directory, 127.0.0.1, a free port, stopped at the end), with its default settings
(no tuning). Data, seeded, loaded with ``COPY`` and ``ANALYZE``d before any clock starts:
- ``events``: ``rows`` rows, 50,000 groups of 20 items (``rows / 20`` groups), a score with
  ties (3 decimals), a binary label that depends on it, a graded relevance 0..3, a weight,
  three classes (true and predicted) and a country with a NULL slice;
- ``class_scores``: long-form class scores, ``rows / 10`` row ids x 3 classes.
Each call runs once untimed (its value checked against the same call on DuckDB over the same
rows, a pandas DataFrame), then ``--repeats`` timed runs: the median is reported. DuckDB's
time is the same call on the DataFrame (its scan of the frame included), for scale.
"""

from __future__ import annotations

import argparse
import functools
import io
import math
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

RANKING = {"group": "g", "item": "item", "label": "rel"}
MULTI = {"label": "cls", "prediction": "pcls"}
SCORES = {"_table": "class_scores", "row_id": "rid", "class_col": "cls"}

#: one call per public function (default options, the inputs each needs)
CALLS: dict[str, dict[str, Any]] = {
    "auc": {},
    "gauc": {"group": "g"},
    "accuracy": {},
    "confusion_matrix": {"threshold": 0.4},
    "precision": {},
    "recall": {},
    "f1": {},
    "fbeta": {"beta": 2.0},
    "specificity": {},
    "fpr": {},
    "mcc": {"threshold": 0.4},
    "auc_bounds": {},
    "average_precision": {},
    "brier_score": {},
    "log_loss": {},
    "roc_curve": {},
    "pr_curve": {},
    "classification_report": MULTI,
    "multiclass_confusion_matrix": MULTI,
    "balanced_accuracy": MULTI,
    "cohen_kappa": MULTI,
    "hamming_loss": MULTI,
    "jaccard": {**MULTI, "average": "macro"},
    "cg": {**RANKING, "k": 10},
    "dcg": {**RANKING, "k": 10},
    "idcg": RANKING,
    "ndcg": {**RANKING, "k": 10},
    "hit_rate": {**RANKING, "k": 10},
    "hit_ratio": {**RANKING, "k": 10},
    "precision_at_k": {**RANKING, "k": 10},
    "recall_at_k": {**RANKING, "k": 10},
    "r_precision": RANKING,
    "mean_average_precision": RANKING,
    "mrr": RANKING,
    "bpref": RANKING,
    "fallout": {**RANKING, "k": 10},
    "gm_map": RANKING,
    "iprec_11pt_avg": RANKING,
    "iprec_at_recall": {**RANKING, "recall_level": 0.5},
    "rbp": {**RANKING, "persistence": 0.8},
    "calibration_curve": {},
    "calibration_ratio": {},
    "expected_calibration_error": {},
    "normalized_entropy": {},
    "ks_point": {},
    "ks_statistic": {},
    "lift_table": {},
    "partial_auc": {"max_fpr": 0.3},
    "catalog_coverage": {"item": "item", "train": "events"},
    "distributional_coverage": {"item": "rel"},
    "gini_index": {"item": "rel"},
    "novelty": {"item": "item", "train": "events"},
    "kendall_tau": {"label": "rel", "group": "g"},
    "spearman": {"label": "rel", "group": "g"},
    "multiclass_auc": SCORES,
    "multilabel_average_precision": SCORES,
    "top_k_accuracy": {**SCORES, "k": 2},
    "evaluate": {"metrics": ["ndcg@10", "map@10", "mrr", "recall@10", "precision@10"], **RANKING},
    "compare": {"metrics": ["auc", "gauc"], "scores": ["score", "score_b"], "group": "g"},
}


def events(rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    per_group = 20
    g = np.arange(rows) // per_group
    rel = rng.integers(0, 4, rows) * (rng.random(rows) < 0.5)
    score = np.round(rng.random(rows) * 0.7 + rel * 0.08, 3)
    label = (rng.random(rows) < 0.1 + 0.6 * score).astype("int64")
    classes = np.array(["a", "b", "c"])
    cls = classes[rng.integers(0, 3, rows)]
    pcls = np.where(rng.random(rows) < 0.3, classes[rng.integers(0, 3, rows)], cls)
    return pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": np.arange(rows, dtype="int64"),
            "score": score,
            "score_b": np.round(score * 0.9 + rng.random(rows) * 0.1, 3),
            "rel": rel.astype("int64"),
            "label": label,
            "w": np.round(rng.random(rows) + 0.1, 3),
            "cls": cls,
            "pcls": pcls,
            "country": np.array(["de", "fr", None], dtype=object)[g % 3],
        }
    )


def class_scores(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, n)
    rid = np.repeat(np.arange(n), 3)
    j = np.tile(np.arange(3), n)
    hit = (j == truth[rid]).astype("int64")
    return pd.DataFrame(
        {
            "rid": rid.astype("int64"),
            "cls": np.array(["a", "b", "c"])[j],
            "score": np.round(rng.random(3 * n) * 0.6 + 0.3 * hit, 2),
            "label": hit,
        }
    )


def load(dsn: str, name: str, frame: pd.DataFrame) -> None:
    import psycopg

    types = {"int64": "bigint", "float64": "double precision"}
    cols = ", ".join(f"{c} {types.get(str(t), 'text')}" for c, t in frame.dtypes.items())
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, header=False, na_rep="")
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        cur.execute(f"drop table if exists {name}")
        cur.execute(f"create table {name} ({cols})")
        with cur.copy(f"copy {name} from stdin with (format csv)") as copy:
            copy.write(buffer.getvalue())
        cur.execute(f"analyze {name}")


def same(a: Any, b: Any) -> bool:
    if isinstance(a, pd.DataFrame):
        return a.shape == b.shape and all(
            same(x, y) for x, y in zip(a.to_numpy().ravel(), b.to_numpy().ravel(), strict=True)
        )
    if isinstance(a, tuple | list):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | np.floating) and isinstance(b, float | np.floating):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if pd.isna(a) is True or pd.isna(b) is True:
        return bool(pd.isna(a) is True and pd.isna(b) is True)
    return bool(a == b)


def timed(fn: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    value = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return value, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    import sqlalchemy

    import sqlmetrics

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tests"))
    import pg_server

    frames = {"events": events(args.rows), "class_scores": class_scores(args.rows // 10)}
    print(f"rows={args.rows} repeats={args.repeats} load before {os.getloadavg()}", flush=True)
    with pg_server.start() as server:
        for name, frame in frames.items():
            load(server.dsn, name, frame)
        engine = sqlalchemy.create_engine(server.url)
        results = []
        for name, kwargs in CALLS.items():
            if args.only and name not in args.only:
                continue
            kwargs = dict(kwargs)
            table = kwargs.pop("_table", "events")
            frame = frames[table]
            local = {**kwargs, "train": frames["events"]} if "train" in kwargs else kwargs
            function = getattr(sqlmetrics, name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pg_value, pg_time = timed(
                    functools.partial(function, table, con=engine, **kwargs), args.repeats
                )
                duck_value, duck_time = timed(
                    functools.partial(function, frame, **local), args.repeats
                )
            agree = same(duck_value, pg_value)
            results.append((name, pg_time, duck_time, agree))
            print(
                f"  {name}: postgres {pg_time:.2f} s, duckdb {duck_time:.2f} s, same={agree}",
                flush=True,
            )
        engine.dispose()
    print(f"load after {os.getloadavg()}")
    print("| call | PostgreSQL s | DuckDB s | PostgreSQL / DuckDB | same values |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, pg_time, duck_time, agree in results:
        print(
            f"| `{name}` | {pg_time:.2f} | {duck_time:.2f} | {pg_time / duck_time:.1f} | {agree} |"
        )
    assert all(agree for *_, agree in results), [r[0] for r in results if not r[3]]


if __name__ == "__main__":
    main()
