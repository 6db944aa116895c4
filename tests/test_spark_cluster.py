"""The distributed kernels on a real multi-executor Spark: a standalone cluster on 127.0.0.1 (a
master and two workers of one core each, tests/spark_cluster.py, fixture ``spark_cluster``),
so that every shuffle moves rows between two executor JVMs and every row is serialized on the
way; ``local[2]`` runs all tasks in one JVM and hides that.

The kernels that split work across partitions on Spark: the unweighted ``spark__auc_kernel``
(score buckets from a sample, ranks inside each bucket, running sums over the buckets), the
weighted one (``auc_prefixed``: distributed running sums), GAUC (ranks per group), the
ranking kernel (NDCG and friends, per group) and ``evaluate`` with ``by=`` (NULL slice
included), over ~12,000 rows with heavy score ties read from Parquet and repartitioned
into 6 partitions. Each value equals DuckDB's bit for bit (``==`` on floats, frames with
``check_exact``), as on ``local[2]`` (tests/test_spark.py's bucket test); and the driver's
status API shows both executors ran tasks and wrote and read shuffle data, so the test cannot
pass on one executor.

The client runs in a subprocess (one SparkContext per Python process; an xdist worker may
hold the ``spark`` fixture's ``local[2]`` session): :meth:`spark_cluster.Cluster.run` calls
:func:`run_calls` there with the Parquet path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import quiet

import sqlmetrics

pytestmark = [pytest.mark.spark, pytest.mark.slow]

N_GROUPS, PER_GROUP = 600, 20
PARTITIONS = 6


def events() -> pd.DataFrame:
    """12,000 rows: 600 groups of 20 items, scores on a 0.01 grid (about 110 distinct values:
    ties within and across groups and buckets), 0/1 labels and grades 0-3, weights, and a
    country slice that is NULL for a third of the groups; 30 groups without a positive."""
    rng = np.random.default_rng(20261126)
    n = N_GROUPS * PER_GROUP
    g = np.repeat(np.arange(N_GROUPS), PER_GROUP)
    rel = rng.integers(0, 4, n) * (rng.random(n) < 0.45)
    rel[g % 20 == 0] = 0  # groups without a relevant item (gauc leaves them out)
    score = np.round(rng.random(n) * 0.7 + rel * 0.1, 2)  # in [0, 1]: log_loss, brier
    return pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": (np.arange(n) * 7919 % 100_003).astype("int64"),
            "score": score,
            "label": (rel > 0).astype("int64"),
            "rel": rel.astype("int64"),
            "w": np.round(rng.random(n) * 3 + 0.01, 3),
            "country": pd.Series(np.array(["de", "fr", None], dtype=object)[g % 3], dtype=object),
        }
    )


BINARY = {"label": "label", "score": "score", "group": "g", "by": "country"}
RANKING = {"label": "rel", "score": "score", "group": "g", "item": "item", "by": "country"}

#: name -> the call, on ``table`` through ``con``; each is one Spark job chain of about a
#: dozen stages, about 10 s on the cluster (the first pays the executors' warm-up)
CALLS: dict[str, Callable[[str, Any], pd.DataFrame]] = {
    # the unweighted spark__auc_kernel (row buckets) and GAUC (ranks per group)
    "auc, gauc": lambda t, con: sqlmetrics.evaluate(t, ["auc", "gauc"], con=con, **BINARY),
    # the ranking kernel: per-group windows, exact sums over groups
    "ndcg@10, map@10": lambda t, con: sqlmetrics.evaluate(
        t, ["ndcg@10", "map@10"], con=con, **RANKING
    ),
    # the weighted spark__auc_kernel: fixed-point sums, running sums over score buckets
    "auc weighted": lambda t, con: sqlmetrics.evaluate(t, "auc", weight="w", con=con, **BINARY),
}


def run_calls(session: Any, path: str) -> dict[str, Any]:
    """In the cluster's client process: the Parquet file as the view ``events`` in
    :data:`PARTITIONS` partitions, then every call of :data:`CALLS`."""
    frame = session.read.parquet(path).repartition(PARTITIONS)
    assert frame.rdd.getNumPartitions() == PARTITIONS
    frame.createOrReplaceTempView("events")
    try:
        return {name: quiet(call, "events", session) for name, call in CALLS.items()}
    finally:
        session.catalog.dropTempView("events")


def test_distributed_kernels_on_a_standalone_cluster_equal_duckdb(
    spark_cluster: Any, tmp_path: Path
) -> None:
    path = tmp_path / "events.parquet"
    events().to_parquet(path, index=False)
    con = duckdb.connect()
    con.execute(f"create table events as select * from read_parquet('{path}')")
    want = {name: quiet(call, "events", con) for name, call in CALLS.items()}
    con.close()

    got, executors = spark_cluster.run("test_spark_cluster:run_calls", str(path))

    assert set(got) == set(CALLS)
    for name, expected in want.items():
        assert expected["country"].isna().tolist() == [False, False, True], name  # NULL slice
        pd.testing.assert_frame_equal(got[name], expected, check_exact=True, obj=name)
    # both executors did work: tasks, and rows shuffled out of and into each
    assert len(executors) == 2, executors
    for executor in executors:
        counts = ("id", "totalTasks", "totalShuffleWrite", "totalShuffleRead")
        summary = {k: executor[k] for k in counts}
        assert executor["totalTasks"] > 0, summary
        assert executor["totalShuffleWrite"] > 0, summary
        assert executor["totalShuffleRead"] > 0, summary
