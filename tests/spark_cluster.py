"""A throwaway Spark standalone cluster for the tests: a master and two workers on 127.0.0.1,
started from pyspark's own ``bin/spark-class`` (``org.apache.spark.deploy.master.Master``,
``org.apache.spark.deploy.worker.Worker``), on free ports, with their work and log files in a
temporary directory; stopped (their process groups, executors included) and deleted at the end,
also after a failure.

``local[2]`` runs every task in the driver's JVM: rows never cross a process boundary, so a
shuffle or serialization bug stays hidden there. On this cluster each worker runs one executor
of one core in a JVM of its own.

One Python process holds one SparkContext, and a pytest-xdist worker may already hold the
``local[2]`` session of the ``spark`` fixture, so the cluster's client runs in a subprocess:
``python tests/spark_cluster.py MASTER MODULE:FUNCTION IN OUT`` (:func:`Cluster.run`) makes a
session on the cluster, waits for both executors, calls ``FUNCTION(session, *pickled args)``
(a function of a test module, importable from ``tests/``), and pickles its result (bit-exact)
with the per-executor task and shuffle counts of the driver's status REST API, so that a test
can check that the work did run on both executors.

Java is needed (as for the ``spark`` fixture): without it :func:`start` raises, never skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pg_server import free_port

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
WORKER_MEMORY = "1g"  # the worker's budget for executors
EXECUTOR_MEMORY = "768m"
DAEMON_MEMORY = "256m"  # the master's and the workers' own JVM heaps
#: every JVM of the cluster (master, workers, executors, the client's driver) is short-lived
#: and small: the quick JIT tier only and one GC thread (measured at load 16 on 2 cores: the
#: test took 85 s with these options, 181 s without, 33 s of CPU instead of 84)
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
START_TIMEOUT = 90.0  # seconds until the master answers and both workers registered
CLIENT_TIMEOUT = 300.0
STOP_GRACE = 15.0  # seconds a process has to exit on SIGTERM before SIGKILL


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _java() -> None:
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise RuntimeError(
            "the Spark cluster tests need a Java 17 runtime (java on PATH or JAVA_HOME set); "
            "install one (e.g. openjdk-17-jre-headless): these tests never skip"
        )


@dataclass
class Cluster:
    """A running cluster: its master's URL, its master's web UI and its processes' logs."""

    master: str
    web_ui: str
    directory: Path
    logs: dict[str, Path] = field(default_factory=dict)

    def status(self) -> dict[str, Any]:
        """The master's JSON status (workers, their state and cores)."""
        with urllib.request.urlopen(f"{self.web_ui}/json/", timeout=5) as response:
            return dict(json.load(response))

    def run(self, function: str, *args: Any, timeout: float = CLIENT_TIMEOUT) -> Any:
        """``function(session, *args)`` in a client process on the cluster (``function``:
        ``"module:name"`` of a module under ``tests/``); returns ``(result, executors)``,
        ``executors`` the driver's REST API summaries of the two executors (task and shuffle
        counts, read once the listener bus has caught up with the jobs)."""
        work = Path(tempfile.mkdtemp(prefix="client-", dir=self.directory))
        given, taken, log = work / "args.pickle", work / "result.pickle", work / "client.log"
        given.write_bytes(pickle.dumps(args))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        env.update(SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
        command = [sys.executable, __file__, self.master, function, str(given), str(taken)]
        with open(log, "wb") as out:
            # its own process group: on a timeout the client and its driver JVM are killed (the
            # driver JVM also exits when the client does: pyspark's gateway reads its stdin)
            process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _stop(process)
                raise RuntimeError(
                    f"the Spark cluster client ({function}) ran over {timeout:.0f} s; "
                    f"its log {log}:\n{_tail(log)}"
                ) from None
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # nothing of the client outlives it
        if process.returncode != 0 or not taken.exists():
            raise RuntimeError(
                f"the Spark cluster client ({function}) failed (exit {process.returncode}); its "
                f"log {log}:\n{_tail(log, 60)}\nmaster log: {self.logs['master']}"
            )
        return pickle.loads(taken.read_bytes())


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies (Linux), so that a killed
    pytest worker leaves no JVM behind; the workers' executors die with their worker."""
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _launch(spark_home: str, cls: str, args: list[str], log: Path, env: dict[str, str]) -> Any:
    """``spark-class cls args`` in a new session (its own process group: the JVM that
    spark-class execs and any executor it starts), output to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [str(Path(spark_home) / "bin" / "spark-class"), cls, *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def _stop(process: Any) -> None:
    """SIGTERM to the process group (the JVM and the executors it launched), then SIGKILL."""
    if process.poll() is not None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # an executor left behind by a dead worker
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=STOP_GRACE)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=15)


@contextlib.contextmanager
def start(workers: int = WORKERS) -> Iterator[Cluster]:
    """Start a master and ``workers`` workers (one core each); yield the cluster once every
    worker is registered; stop them all and remove their files."""
    _java()
    from pyspark.find_spark_home import _find_spark_home

    spark_home = _find_spark_home()
    directory = Path(tempfile.mkdtemp(prefix="sqlmetrics-spark-cluster-"))
    conf = directory / "conf"  # empty: no spark-defaults or spark-env.sh from elsewhere
    conf.mkdir()
    env = dict(os.environ)
    env.update(
        SPARK_HOME=spark_home,
        SPARK_CONF_DIR=str(conf),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_DAEMON_MEMORY=DAEMON_MEMORY,
        SPARK_DAEMON_JAVA_OPTS=JAVA_OPTIONS,
        SPARK_LOG_DIR=str(directory),
        SPARK_PID_DIR=str(directory),
        PYSPARK_PYTHON=sys.executable,
    )
    port, web_port = free_port(), free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web_port}", directory)
    processes: list[tuple[str, Any]] = []
    try:
        cluster.logs["master"] = directory / "master.log"
        master_args = ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(web_port)]
        processes.append(
            (
                "master",
                _launch(
                    spark_home,
                    "org.apache.spark.deploy.master.Master",
                    master_args,
                    cluster.logs["master"],
                    env,
                ),
            )
        )
        for i in range(workers):
            name = f"worker-{i + 1}"
            work = directory / name
            work.mkdir()
            cluster.logs[name] = directory / f"{name}.log"
            args = ["--host", "127.0.0.1", "--cores", "1", "--memory", WORKER_MEMORY]
            args += ["--work-dir", str(work), "--webui-port", str(free_port()), cluster.master]
            processes.append(
                (
                    name,
                    _launch(
                        spark_home,
                        "org.apache.spark.deploy.worker.Worker",
                        args,
                        cluster.logs[name],
                        env,
                    ),
                )
            )
        _wait_for_workers(cluster, processes, workers)
        yield cluster
    finally:
        for _, process in reversed(processes):
            _stop(process)
        shutil.rmtree(directory, ignore_errors=True)


def _wait_for_workers(cluster: Cluster, processes: list[tuple[str, Any]], workers: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    alive = 0
    while True:
        for name, process in processes:
            if process.poll() is not None:
                log = cluster.logs[name]
                raise RuntimeError(
                    f"the Spark cluster's {name} exited (code {process.returncode}) while "
                    f"starting; its log {log}:\n{_tail(log)}"
                )
        with contextlib.suppress(OSError, ValueError):
            status = cluster.status()
            alive = sum(w.get("state") == "ALIVE" for w in status.get("workers", []))
            if alive >= workers:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"the Spark cluster did not register {workers} workers within "
                f"{START_TIMEOUT:.0f} s ({alive} alive); see the master log "
                f"{cluster.logs['master']}:\n{_tail(cluster.logs['master'])}\nand the worker "
                f"logs {[str(cluster.logs[n]) for n, _ in processes[1:]]}"
            )
        time.sleep(0.5)


# --------------------------------------------------------------------------- the client
def _executors(session: Any) -> list[dict[str, Any]]:
    """The executors' summaries (the driver excluded) from the driver's status REST API."""
    context = session.sparkContext
    url = f"{context.uiWebUrl}/api/v1/applications/{context.applicationId}/executors"
    with urllib.request.urlopen(url, timeout=10) as response:
        return [e for e in json.load(response) if e["id"] != "driver"]


def client(master: str, function: str, given: str, taken: str) -> None:
    """The subprocess of :meth:`Cluster.run`: a session on ``master``, both executors
    registered, ``function(session, *args)``, then its result and the executors' counts."""
    import importlib

    from pyspark.sql import SparkSession

    args = pickle.loads(Path(given).read_bytes())
    started = time.monotonic()
    session = (
        SparkSession.builder.master(master)
        .appName("sqlmetrics-cluster-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.memory", "1g")
        .config("spark.executor.memory", EXECUTOR_MEMORY)
        .config("spark.executor.cores", "1")
        .config("spark.driver.extraJavaOptions", JAVA_OPTIONS)
        .config("spark.executor.extraJavaOptions", JAVA_OPTIONS)
        .config("spark.cores.max", str(WORKERS))
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.ui.port", str(free_port()))  # the status REST API (executor counts)
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    print(f"session: {time.monotonic() - started:.1f} s", flush=True)
    try:
        session.sparkContext.setLogLevel("WARN")
        deadline = time.monotonic() + START_TIMEOUT
        while len(_executors(session)) < WORKERS:  # the work must not start on one executor
            if time.monotonic() > deadline:
                raise RuntimeError(f"{WORKERS} executors did not register within the timeout")
            time.sleep(0.25)
        print(f"executors: {time.monotonic() - started:.1f} s", flush=True)
        module, name = function.split(":")
        result = getattr(importlib.import_module(module), name)(session, *args)
        print(f"{function}: {time.monotonic() - started:.1f} s", flush=True)
        # the REST API reads the status store, which the listener bus updates after the jobs
        session.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
        Path(taken).write_bytes(pickle.dumps((result, _executors(session))))
    finally:
        session.stop()


if __name__ == "__main__":
    client(*sys.argv[1:5])
