"""The distributed kernels on a real multi-executor Spark: a standalone cluster on 127.0.0.1 (a
master and two workers of one core each, tests/spark_cluster.py, fixture ``spark_cluster``),
so that every shuffle moves rows between two executor JVMs and every row is serialized on the
way; ``local[2]`` runs all tasks in one JVM and hides that.

The kernels that split work across partitions on Spark: the unweighted ``spark__auc_kernel``
(score buckets from a sample, ranks inside each bucket, running sums over the buckets), the
weighted one (``auc_prefixed``: fixed-point sums, running sums over score buckets), GAUC
(ranks per group) and the ranking kernel (NDCG and MAP per group, exact sums over groups),
each through ``evaluate`` with ``by=`` (a NULL slice included), over 12,000 rows with heavy
score ties read from Parquet and repartitioned into 6 partitions.

Each frame equals DuckDB's bit for bit (``check_exact``). The AUC and GAUC values are exact by
construction (integer rank sums, one division); the others are exact (order-free) sums too,
but of terms each engine computes with its own math functions (``ln``, ``log``, ``power``),
and on these rows they agree bit for bit on ``local[2]`` as well (tests/test_engines.py's
general standard is 1e-9: on other calls, e.g. ``ndcg@10`` or weighted ``auc`` of all 12,000
rows unsliced, DuckDB and ``local[2]`` differ by one ulp, and the cluster gives ``local[2]``'s
bits). The driver's status API shows both executors ran tasks and wrote
and read shuffle data, so the test cannot pass on one executor.

The client runs in a subprocess (one SparkContext per Python process; an xdist worker may
hold the ``spark`` fixture's ``local[2]`` session): :meth:`spark_cluster.Cluster.run` calls
:func:`run_calls` there with the Parquet path.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
import spark_cluster as machinery
from conftest import quiet

import sqlmetrics

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
        results = {}
        for name, call in CALLS.items():
            started = time.monotonic()
            results[name] = quiet(call, "events", session)
            print(f"{name}: {time.monotonic() - started:.1f} s", flush=True)  # the client log
        return results
    finally:
        session.catalog.dropTempView("events")


@pytest.mark.spark
@pytest.mark.slow
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


# --------------------------------------------------------------------------- the fixture's
# machinery, without a JVM (fast tier): the errors name what is missing and where the log is,
# and stopping a daemon leaves none of its children (the executors) behind


def test_start_without_java_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machinery.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with (
        pytest.raises(RuntimeError, match=r"need a Java 17 runtime .* never skip"),
        machinery.start(),
    ):
        pass


def _cluster(tmp_path: Path) -> machinery.Cluster:
    cluster = machinery.Cluster(
        "spark://127.0.0.1:1", f"http://127.0.0.1:{machinery.free_port()}", tmp_path
    )
    cluster.logs["master"] = tmp_path / "master.log"
    cluster.logs["worker-1"] = tmp_path / "worker-1.log"
    return cluster


def test_a_daemon_that_exits_while_starting_is_named_with_its_log(tmp_path: Path) -> None:
    cluster = _cluster(tmp_path)
    cluster.logs["worker-1"].write_text("Exception: Failed to bind to port\n")
    master = subprocess.Popen(["sleep", "30"])
    worker = subprocess.Popen(["false"])
    worker.wait()
    try:
        with pytest.raises(RuntimeError) as raised:
            machinery._wait_for_workers(cluster, [("master", master), ("worker-1", worker)], 2)
    finally:
        master.kill()
        master.wait()
    message = str(raised.value)
    assert "worker-1 exited (code 1)" in message, message
    assert str(cluster.logs["worker-1"]) in message and "Failed to bind" in message, message


def test_workers_not_registered_in_time_name_the_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = _cluster(tmp_path)  # nothing listens on its web UI port
    cluster.logs["master"].write_text("Master: Starting Spark master\n")
    monkeypatch.setattr(machinery, "START_TIMEOUT", 0.5)
    master, worker = subprocess.Popen(["sleep", "30"]), subprocess.Popen(["sleep", "30"])
    try:
        with pytest.raises(RuntimeError) as raised:
            machinery._wait_for_workers(cluster, [("master", master), ("worker-1", worker)], 2)
    finally:
        for process in (master, worker):
            process.kill()
            process.wait()
    message = str(raised.value)
    assert "did not register 2 workers within 0 s (0 alive)" in message, message
    assert str(cluster.logs["master"]) in message and "Starting Spark master" in message
    assert str(cluster.logs["worker-1"]) in message, message


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"  # a zombie has exited


def test_stop_ends_the_daemon_and_the_processes_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for spark-class: a script that starts a child of its own (as a worker starts
    its executors) and then waits, both deaf to SIGTERM; stopping it ends both."""
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    script = home / "bin" / "spark-class"
    child_pid = tmp_path / "child.pid"
    # both ignore SIGTERM (an ignored signal is inherited): only SIGKILL to the group ends both
    script.write_text(
        f"#!/bin/sh\ntrap '' TERM\nsleep 300 &\necho $! > {child_pid}\nwhile :; do sleep 1; done\n"
    )
    script.chmod(0o755)
    log = tmp_path / "daemon.log"
    process = machinery._launch(str(home), "Worker", [], log, dict(os.environ))
    try:
        deadline = time.monotonic() + 10
        while not child_pid.exists() or not child_pid.read_text().strip():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        child = int(child_pid.read_text())
        assert _alive(process.pid) and _alive(child)
        monkeypatch.setattr(machinery, "STOP_GRACE", 0.5)
        machinery._stop(process)  # the daemon ignores SIGTERM: SIGKILL to its group
        assert process.returncode is not None
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the daemon's child outlived it"
    finally:  # this test leaves nothing running either, even when it fails
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
