"""One benchmark task per function; each run happens in a fresh process.

``python -m benchmarks.tasks TASK PATH [JSON_OPTIONS]`` imports what the task needs (not
timed), then times the task from reading the file to the final number, and prints one JSON
line: ``{"seconds", "value", "peak_rss", "extra"}``; ``peak_rss`` is the process's maximum
resident set size (``getrusage``), imports included.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

TASKS: dict[str, Callable[..., tuple[float, dict[str, Any]]]] = {}
IMPORTS: dict[str, tuple[str, ...]] = {}  # imported before the clock starts


def task(*modules: str) -> Callable[..., Any]:
    def register(fn: Callable[..., tuple[float, dict[str, Any]]]) -> Callable[..., Any]:
        TASKS[fn.__name__] = fn
        IMPORTS[fn.__name__] = ("pandas", "pyarrow.parquet", *modules)
        return fn

    return register


def _connection(opts: dict[str, Any]) -> Any:
    """A DuckDB connection with the user-chosen memory_limit / threads, or None (defaults)."""
    config = {
        key: opts[key]
        for key in ("memory_limit", "threads", "temp_directory")
        if opts.get(key) is not None
    }
    if not config:
        return None
    import duckdb

    return duckdb.connect(config=config)


# ----------------------------------------------------------------------------- sqlmetrics
@task("duckdb", "sqlmetrics")
def ours_auc(path: str, score: str = "score", **opts: Any) -> tuple[float, dict[str, Any]]:
    import sqlmetrics

    return sqlmetrics.auc(path, label="label", score=score, con=_connection(opts)), {}


@task("duckdb", "sqlmetrics")
def ours_auc_bounds(
    path: str, score: str = "score", bins: int = 65536, **opts: Any
) -> tuple[float, dict[str, Any]]:
    import sqlmetrics

    b = sqlmetrics.auc_bounds(path, label="label", score=score, bins=bins, con=_connection(opts))
    return b.estimate, {"lower": b.lower, "upper": b.upper, "half_width": b.half_width}


@task("duckdb", "sqlmetrics")
def ours_gauc(path: str, **opts: Any) -> tuple[float, dict[str, Any]]:
    import sqlmetrics

    value = sqlmetrics.gauc(
        path, group="user_id", label="label", score="score", con=_connection(opts)
    )
    return value, {}


@task("duckdb", "sqlmetrics")
def ours_ndcg(path: str, **opts: Any) -> tuple[float, dict[str, Any]]:
    import sqlmetrics

    value = sqlmetrics.ndcg(
        path,
        group="query_id",
        item="item_id",
        label="rel",  # type: ignore[attr-defined]
        score="score",
        k=10,
        gain="linear",
        con=_connection(opts),
    )
    return float(value), {}


#: the naive DuckDB queries a user writes by hand for NDCG@10, MAP@10 and MRR on the ranking
#: table (query_id, item_id, rel, score; every query has a relevant item): row_number() by score
#: (ties: item desc, as sqlmetrics) and, for NDCG, a second one by label, then one aggregate per
#: query. Linear gain for NDCG, as ours_ndcg and the peers.
NAIVE_SQL = {
    "ndcg@10": """
with ranked as (
    select query_id, cast(rel as double) as gain,
        row_number() over (partition by query_id order by score desc, item_id desc) as rn,
        row_number() over (partition by query_id order by rel desc, item_id) as irn
    from read_parquet('{path}')
),
per_query as (
    select query_id,
        sum(case when rn <= 10 then gain / log2(rn + 1) else 0 end) as dcg,
        sum(case when irn <= 10 and gain > 0 then gain / log2(irn + 1) else 0 end) as idcg
    from ranked group by query_id
)
select avg(dcg / idcg) from per_query where idcg > 0
""",
    "map@10": """
with ranked as (
    select query_id, case when rel >= 1 then 1 else 0 end as r,
        row_number() over w as rn,
        sum(case when rel >= 1 then 1 else 0 end) over w as hits
    from read_parquet('{path}')
    window w as (partition by query_id order by score desc, item_id desc
                 rows between unbounded preceding and current row)
),
per_query as (
    select query_id, sum(case when rn <= 10 and r = 1 then hits / rn else 0 end) / sum(r) as ap
    from ranked group by query_id having sum(r) > 0
)
select avg(ap) from per_query
""",
    "mrr": """
with ranked as (
    select query_id, rel,
        row_number() over (partition by query_id order by score desc, item_id desc) as rn
    from read_parquet('{path}')
),
per_query as (
    select query_id, coalesce(1.0 / min(case when rel >= 1 then rn end), 0) as rr,
        sum(case when rel >= 1 then 1 else 0 end) as n_rel
    from ranked group by query_id
)
select avg(rr) from per_query where n_rel > 0
""",
    # AUC from the positives' average ranks: rank() and the (default RANGE) running count
    # over one window give the lowest and highest rank of each score's ties (one sort)
    "auc": """
with ranked as (
    select label, rank() over w + count(*) over w as twice_rank
    from read_parquet('{path}')
    window w as (order by {score})
),
sums as (
    select sum(label)::hugeint as p, count(*)::hugeint - sum(label) as n,
        sum(case when label = 1 then twice_rank else 0 end)::hugeint as s2
    from ranked
)
select (s2 - p * (p + 1)) / (2 * p * n) from sums
""",
    # GAUC: the same per user, the users with both classes, weighted by their rows
    "gauc": """
with ranked as (
    select user_id, label, rank() over w + count(*) over w as twice_rank
    from read_parquet('{path}')
    window w as (partition by user_id order by score)
),
per_user as (
    select count(*) as n, sum(label) as p,
        sum(case when label = 1 then twice_rank else 0 end) as s2
    from ranked group by user_id
    having sum(label) > 0 and sum(label) < count(*)
)
select sum(n * (s2 - p * (p + 1)) / (2 * p * (n - p))) / sum(n) from per_user
""",
}


@task("duckdb")
def naive_ranking(
    path: str, metric: str = "ndcg@10", score: str = "score", **opts: Any
) -> tuple[float, dict[str, Any]]:
    """The hand-written DuckDB query of NAIVE_SQL for ``metric`` (also "auc" and "gauc")."""
    import duckdb

    con = _connection(opts) or duckdb.connect()
    sql = NAIVE_SQL[metric].format(path=path, score=score)
    return float(con.execute(sql).fetchone()[0]), {}


@task("duckdb", "sqlmetrics")
def ours_ranking(path: str, metric: str = "ndcg@10", **opts: Any) -> tuple[float, dict[str, Any]]:
    """sqlmetrics' function for ``metric`` (NDCG with linear gain, as NAIVE_SQL)."""
    import sqlmetrics

    name, _, k = metric.partition("@")
    params: dict[str, Any] = {"k": int(k)} if k else {}
    if name == "ndcg":
        params["gain"] = "linear"
    fn = {"ndcg": sqlmetrics.ndcg, "map": sqlmetrics.mean_average_precision, "mrr": sqlmetrics.mrr}
    value = fn[name](
        path,
        group="query_id",
        item="item_id",
        label="rel",
        score="score",
        con=_connection(opts),
        **params,
    )
    return float(value), {}


FIVE = ["ndcg@10", "map@10", "mrr@10", "recall@10", "precision@10"]


@task("duckdb", "sqlmetrics")
def ours_evaluate(path: str, **opts: Any) -> tuple[float, dict[str, Any]]:
    import sqlmetrics

    out = sqlmetrics.evaluate(
        path,
        FIVE,
        group="query_id",
        item="item_id",  # type: ignore[attr-defined]
        label="rel",
        score="score",
        gain="linear",
        con=_connection(opts),
    )
    values = _evaluate_values(out)
    return values["ndcg@10"], {"values": values}


def _evaluate_values(out: Any) -> dict[str, float]:
    """evaluate's result as {metric: value}, whatever container it comes in."""
    if isinstance(out, dict):
        return {k: float(v) for k, v in out.items()}
    import pandas as pd

    if isinstance(out, pd.DataFrame):
        if {"metric", "value"} <= set(out.columns):
            return {str(m): float(v) for m, v in zip(out["metric"], out["value"], strict=True)}
        row = out.iloc[0]
        return {str(c): float(row[c]) for c in out.columns if c in FIVE}
    if isinstance(out, pd.Series):
        return {str(k): float(v) for k, v in out.items()}
    raise TypeError(f"unexpected evaluate() result {type(out).__name__}")


# ----------------------------------------------------------------------------- peers
@task("sklearn.metrics")
def sklearn_auc(path: str, score: str = "score", **_: Any) -> tuple[float, dict[str, Any]]:
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    df = pd.read_parquet(path, columns=["label", score])
    return float(roc_auc_score(df["label"], df[score])), {}


@task()
def pandas_gauc(path: str, **_: Any) -> tuple[float, dict[str, Any]]:
    """Vectorized GAUC: groupby rank (average ties), rank-sum AUC per user, row-weighted mean."""
    import pandas as pd

    df = pd.read_parquet(path, columns=["user_id", "label", "score"])
    df["r"] = df.groupby("user_id")["score"].rank(method="average")
    df["rp"] = df["r"] * df["label"]
    g = df.groupby("user_id").agg(n=("label", "size"), p=("label", "sum"), rs=("rp", "sum"))
    g = g[(g["p"] > 0) & (g["p"] < g["n"])].astype("float64")  # p is int8 like label
    auc = (g["rs"] - g["p"] * (g["p"] + 1) / 2) / (g["p"] * (g["n"] - g["p"]))
    return float((auc * g["n"]).sum() / g["n"].sum()), {}


@task("sklearn.metrics")
def loop_gauc(path: str, every: int = 100, **_: Any) -> tuple[float, dict[str, Any]]:
    """The tutorial loop: groupby user, roc_auc_score per user; on users with id % every == 0."""
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    start = time.perf_counter()
    df = pd.read_parquet(path, columns=["user_id", "label", "score"])
    n_users = df["user_id"].nunique()
    read = time.perf_counter() - start
    sub = df[df["user_id"] % every == 0]
    num = den = 0.0
    for _, g in sub.groupby("user_id"):
        if g["label"].nunique() < 2:
            continue
        num += len(g) * roc_auc_score(g["label"], g["score"])
        den += len(g)
    loop = time.perf_counter() - start - read
    sub_users = sub["user_id"].nunique()
    return num / den, {
        "read_s": read,
        "loop_s": loop,
        "users": int(n_users),
        "subset_users": int(sub_users),
        "subset_rows": len(sub),
        "scaled_s": read + loop * n_users / sub_users,
    }


@task("pytrec_eval")
def pytrec_ndcg(path: str, **_: Any) -> tuple[float, dict[str, Any]]:
    """pytrec_eval (trec_eval's ndcg_cut_10, linear gain), building its dict input from pandas."""
    import pandas as pd
    import pytrec_eval

    df = pd.read_parquet(path, columns=["query_id", "item_id", "rel", "score"])
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q, d, r, s in zip(
        df["query_id"].astype(str),
        df["item_id"].astype(str),
        df["rel"].tolist(),
        df["score"].tolist(),
        strict=True,
    ):
        qrels.setdefault(q, {})[d] = r
        run.setdefault(q, {})[d] = s
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    values = [m["ndcg_cut_10"] for m in per_query.values()]
    return sum(values) / len(values), {"queries": len(values)}


@task("ranx")
def ranx_ndcg(path: str, **_: Any) -> tuple[float, dict[str, Any]]:
    """ranx ndcg@10 (linear gain), with Qrels.from_df / Run.from_df (object ids, int rel)."""
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    df = pd.read_parquet(path, columns=["query_id", "item_id", "rel", "score"])
    df["q"] = df["query_id"].astype(str).astype(object)
    df["d"] = df["item_id"].astype(str).astype(object)
    df["rel"] = df["rel"].astype("int64")
    qrels = Qrels.from_df(df, q_id_col="q", doc_id_col="d", score_col="rel")
    run = Run.from_df(df, q_id_col="q", doc_id_col="d", score_col="score")
    return float(evaluate(qrels, run, "ndcg@10")), {}


@task("numpy")
def numpy_ndcg(path: str, **_: Any) -> tuple[float, dict[str, Any]]:
    """Reference NDCG@10 (linear gain): two lexsorts; every query has a relevant item."""
    import numpy as np
    import pandas as pd

    df = pd.read_parquet(path, columns=["query_id", "rel", "score"])
    q = df["query_id"].to_numpy()
    rel = df["rel"].to_numpy().astype(np.float64)
    score = df["score"].to_numpy()

    def dcg(order: np.ndarray) -> np.ndarray:
        qs, gains = q[order], rel[order]
        first = np.r_[True, qs[1:] != qs[:-1]]
        starts = np.flatnonzero(first)
        pos = np.arange(len(qs)) - np.repeat(starts, np.diff(np.r_[starts, len(qs)]))
        keep = pos < 10
        out = np.zeros(len(starts))
        group = np.cumsum(first) - 1
        np.add.at(out, group[keep], gains[keep] / np.log2(pos[keep] + 2.0))
        return out

    actual = dcg(np.lexsort((-score, q)))
    ideal = dcg(np.lexsort((-rel, q)))
    return float(np.mean(actual / ideal)), {"queries": len(ideal)}


def _warm_ranx() -> None:
    """Compile ranx's numba functions on a toy input, before the clock starts (ranx's favour)."""
    import warnings

    import pandas as pd
    from ranx import Qrels, Run, evaluate

    warnings.filterwarnings("ignore", module="ranx")
    warnings.filterwarnings("ignore", message=".*unsafe cast.*")
    df = pd.DataFrame(
        {
            "q": pd.Series(["1", "1", "2"], dtype=object),
            "d": pd.Series(["a", "b", "a"], dtype=object),
            "rel": [1, 0, 2],
            "score": [0.3, 0.2, 0.1],
        }
    )
    evaluate(
        Qrels.from_df(df, q_id_col="q", doc_id_col="d", score_col="rel"),
        Run.from_df(df, q_id_col="q", doc_id_col="d", score_col="score"),
        "ndcg@10",
    )


WARMUPS: dict[str, Callable[[], None]] = {"ranx_ndcg": _warm_ranx}


def main() -> None:
    name, path = sys.argv[1], sys.argv[2]
    opts = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    fn = TASKS[name]
    for module in IMPORTS[name]:
        importlib.import_module(module)
    if name in WARMUPS:
        WARMUPS[name]()
    start = time.perf_counter()
    value, extra = fn(path, **opts)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "value": value, "peak_rss": peak, "extra": extra}))


if __name__ == "__main__":
    main()
