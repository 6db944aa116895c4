"""Shared fixtures, helpers, hypothesis profiles and the test tiers.

Tiers: plain ``pytest`` is the fast tier (DuckDB and pure Python; no JVM, no PostgreSQL, no
dbt, no slow case, no browser). ``pytest --all`` runs everything: the tests marked
``postgres``, ``spark``, ``dbt``, ``slow`` and ``browser`` (headless Chromium) too (CI and the
README's test command). The fast tier
*deselects* the others (they are never skipped) and its summary says how many and how to run
them. ``-m EXPR`` selects by these markers over the whole suite instead (``pytest -m spark``:
the Spark tests alone; ``.ci/lowest``: ``-m "not spark and not dbt and not slow"``).

A test gets its tier marker from ``@pytest.mark.<tier>`` (or ``pytestmark``), or by the rules of
:func:`tier_markers`: it uses the ``spark`` or ``pg_engine``/``pg_server`` fixture (directly or
through another fixture), or has an ``engine`` parameter ``"spark"``/``"postgres"``. A test of
the fast tier that starts Spark or PostgreSQL anyway (a fixture asked for by
``request.getfixturevalue``, a session made by hand) or imports dbt fails, naming the marker
to add: the fast tier stays fast and the marks stay true.

Hypothesis: the profile ``dev`` (the fast tier) and ``ci`` (every tier, ``--all`` or ``-m``;
more examples); ``--hypothesis-profile NAME`` overrides, and :func:`seeds` follows it
(``.ci/lowest`` runs its tiers with ``dev``: the breadth of ``ci`` ran on the newest versions).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

# --------------------------------------------------------------------------- hypothesis
_COMMON: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", max_examples=5, **_COMMON)
settings.register_profile("ci", max_examples=30, **_COMMON)

#: set by pytest_configure: the hypothesis profile is ``ci`` (by default, when every tier
#: runs: ``--all`` or ``-m``), read by :func:`seeds`
FULL_BREADTH = False


def seeds(n: int, fast: int = 3) -> range:
    """The seeds of a test parametrized over random data sets: ``range(n)`` under the ``ci``
    hypothesis profile, the first ``fast`` under ``dev`` (the fast tier's) - the seed-based
    twin of the hypothesis profiles: the same cases, fewer of them while you iterate, and one
    option (``--hypothesis-profile``) sets both."""
    return range(n if FULL_BREADTH else min(n, fast))


# --------------------------------------------------------------------------- tiers
#: the markers of the tiers beyond the fast one (registered in pyproject.toml)
TIERS = ("postgres", "spark", "clickhouse", "datafusion", "dbt", "slow", "browser")
#: fixture -> the tier it starts (the engines' fixtures; test_dialects' own ``spark`` too)
ENGINE_FIXTURES = {
    "spark": "spark",
    "spark_connect": "spark",
    "spark_cluster": "spark",
    "pg_server": "postgres",
    "pg_engine": "postgres",
    "chdb_session": "clickhouse",
    "datafusion_ctx": "datafusion",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        default=False,
        help="run every tier: the PostgreSQL, Spark, ClickHouse, dbt and slow tests too (CI, the "
        "README); plain pytest is the fast tier",
    )


def full_run(config: pytest.Config) -> bool:
    """Every tier runs: ``--all``, or a ``-m`` expression that selects by marker itself."""
    return bool(config.getoption("--all") or config.getoption("markexpr"))


def pytest_configure(config: pytest.Config) -> None:
    global FULL_BREADTH
    profile = config.getoption("hypothesis_profile", None)
    if profile is None:
        profile = "ci" if full_run(config) else "dev"
        settings.load_profile(profile)
    FULL_BREADTH = profile != "dev"
    config.stash[_LEFT_OUT] = {}


_LEFT_OUT = pytest.StashKey[dict[str, int]]()


def tier_markers(item: pytest.Item) -> set[str]:
    """The tiers ``item`` belongs to: its own markers, its engine fixtures, its engine params."""
    tiers = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
    fixtures = getattr(item, "fixturenames", ())
    tiers |= {tier for name, tier in ENGINE_FIXTURES.items() if name in fixtures}
    callspec = getattr(item, "callspec", None)
    engine = callspec.params.get("engine") if callspec is not None else None
    if engine in ("spark", "postgres", "clickhouse"):
        tiers.add(engine)
    if engine == "spark_connect":  # a Spark Connect client of the spark fixture's server
        tiers.add("spark")
    return tiers


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, left_out = [], []
    counts: dict[str, int] = config.stash[_LEFT_OUT]
    for item in items:
        tiers = tier_markers(item)
        for tier in sorted(tiers - {m.name for m in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, tier))
        if tiers and not full_run(config):
            left_out.append(item)
            for tier in tiers:
                counts[tier] = counts.get(tier, 0) + 1
        else:
            kept.append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
    counts["total"] = len(left_out)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    counts = config.stash.get(_LEFT_OUT, {})
    total = counts.get("total", 0)
    if total:
        parts = ", ".join(f"{tier} {counts[tier]}" for tier in TIERS if counts.get(tier))
        terminalreporter.write_line(
            f"fast tier: {total} tests left out ({parts}; a test may count in several): "
            "`pytest --all` runs them all, `pytest -m spark` (postgres, clickhouse, datafusion, "
            "dbt, slow, browser) one tier"
        )


def _fast_tier_item(request: pytest.FixtureRequest) -> pytest.Item | None:
    item = getattr(request, "_pyfuncitem", None)
    return None if item is None or full_run(item.config) else item


@pytest.hookimpl(tryfirst=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> None:
    """In the fast tier, a test that starts an engine without its marker fails here."""
    tier = ENGINE_FIXTURES.get(fixturedef.argname)
    item = _fast_tier_item(request)
    if tier is not None and item is not None:
        pytest.fail(
            f"{item.nodeid} starts {tier} (fixture {fixturedef.argname!r}) in the fast tier: "
            f"mark it @pytest.mark.{tier} (conftest.py, tiers)",
            pytrace=False,
        )


def _engines_started() -> tuple[bool, bool]:
    """(a SparkContext is active, dbt is imported) in this process."""
    context = sys.modules.get("pyspark.core.context") or sys.modules.get("pyspark.context")
    spark = context is not None and context.SparkContext._active_spark_context is not None
    return spark, "dbt.adapters" in sys.modules or "dbt.cli" in sys.modules


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """In the fast tier, a test that starts Spark by hand or imports dbt fails."""
    before = _engines_started()
    result = yield
    after = _engines_started()
    if not full_run(item.config):
        for tier, was, now in zip(("spark", "dbt"), before, after):
            if now and not was:
                pytest.fail(
                    f"{item.nodeid} starts {tier} in the fast tier: mark it "
                    f"@pytest.mark.{tier} (conftest.py, tiers)",
                    pytrace=False,
                )
    return result


# --------------------------------------------------------------------------- workers
#: the engine parameters whose tests share a worker (the first part of a parameter id)
ENGINE_IDS = ("duckdb", "postgres", "spark", "spark_connect", "clickhouse")


def work_unit(nodeid: str) -> str:
    """The unit of work of ``nodeid`` for the xdist workers: its module, and within a module
    parametrized by engine, the engine (``module::engine``).

    >>> work_unit("tests/test_invariance.py::test_shuffled_rows_give_the_same_bits[spark-auc]")
    'tests/test_invariance.py::spark'
    >>> work_unit("tests/test_api.py::test_x[a-b]")
    'tests/test_api.py'
    """
    module, _, rest = nodeid.partition("::")
    if "[" in rest:
        first = rest.split("[", 1)[1].split("-", 1)[0].rstrip("]")
        if first in ENGINE_IDS:
            return f"{module}::{first}"
    return module


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n`` with xdist's default distribution (``load``): the tests of one :func:`work_unit`
    run on one worker, the largest units given out first. What a module sets up once (a
    module-scoped fixture: a dbt build, an engine's tables) and what its tests cache (the
    invariance suite's evaluate frames: one batched statement serves every metric of a column
    set) is then made once, not on each worker: with ``load``, whose workers take turns
    over the collection, both computed 113 of the 374 Spark statements of the invariance
    suite (700 statements in all; 579 now)."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedWork(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return SharedWork(config, log)


# --------------------------------------------------------------------------- shared helpers
#: the warnings a metric gives on an edge case (a metric undefined, groups left out, ties in
#: input order): tests that compare values on random data silence these, and only these
QUIET = ("UndefinedMetricWarning", "SkippedGroupsWarning", "TieOrderWarning")


def quiet(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` without sqlmetrics' edge-case warnings (:data:`QUIET`)."""
    import sqlmetrics

    with warnings.catch_warnings():
        for name in QUIET:
            warnings.simplefilter("ignore", getattr(sqlmetrics, name))
        return function(*args, **kwargs)


def frames(
    min_rows: int = 1, max_rows: int = 30, **columns: st.SearchStrategy[Any]
) -> st.SearchStrategy[pd.DataFrame]:
    """Hypothesis data frames: ``min_rows`` to ``max_rows`` rows, each column drawn from its
    strategy (``frames(label=st.integers(0, 1), score=TIED)``)."""

    @st.composite
    def draw_frame(draw: st.DrawFn) -> pd.DataFrame:
        n = draw(st.integers(min_rows, max_rows))
        return pd.DataFrame(
            {
                name: draw(st.lists(values, min_size=n, max_size=n))
                for name, values in columns.items()
            }
        )

    return draw_frame()


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _no_user_metrics_left() -> object:
    """A user metric registered by a test (register_sql, --metrics-dir, the README) is removed
    after it, so the registry-driven tests see the built-ins only."""
    yield
    from sqlmetrics import unregister_sql
    from sqlmetrics._templating import templates as _templates

    for name in list(_templates.USER_FILES):
        unregister_sql(name)


@pytest.fixture(scope="session")
def pg_server() -> object:
    """A throwaway PostgreSQL server for the session (tests/pg_server.py); never skipped."""
    import pg_server as server

    with server.start() as running:
        yield running


@pytest.fixture(scope="session")
def pg_engine(pg_server: object) -> object:
    """A SQLAlchemy engine on the throwaway server."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(pg_server.url)  # type: ignore[attr-defined]
    yield engine
    engine.dispose()


#: the test session's speed settings (see :func:`spark`): no result changes with them
SPARK_SPEED = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.codegen.cache.maxEntries": "5000",
    "spark.sql.ui.explainMode": "simple",
    "spark.sql.adaptive.enabled": "false",
}
#: Spark's defaults for the runtime ones among them (the invariance suite's hostile session
#: puts them back: users' code generation and adaptive execution over every metric)
SPARK_DEFAULTS = {
    "spark.sql.codegen.wholeStage": "true",
    "spark.sql.codegen.factoryMode": "FALLBACK",
    "spark.sql.adaptive.enabled": "true",
}


@pytest.fixture(scope="session")
def spark() -> object:
    """One local Spark session for the whole run (every Spark test, test_dialects' ANSI fixture
    too): local[2], one partition, no UI, UTC; never skipped (pyspark and Java 17 are part of
    the dev setup).

    On this suite's data (thousands of rows) a statement's time is Spark's own CPU: planning,
    Janino compiling each stage's generated Java, the plan strings of each SQL execution event,
    and garbage collection. :data:`SPARK_SPEED` takes 35-40 % of it off (measured on the
    contract suite's batched evaluate calls: 205 s of JVM CPU -> 127 s) with settings that
    change no result: expressions interpreted instead of compiled (Spark runs both paths
    through one test suite of its own), the short plan string, a larger cache of compiled
    classes, the parallel collector, and no adaptive execution (AQE: re-planning after each
    stage, and a job for each broadcast and each query stage; one ranking ``evaluate`` by a
    slice ran 21 jobs and 47 stages with it, 7 and 22 without; the engine contract suite's 192
    Spark calls, alternated: 289 and 283 s without, 333 and 327 s with). The user's defaults,
    code generation and AQE on, are run over every registered metric in the invariance
    suite's hostile session (it turns them back on, :data:`SPARK_DEFAULTS`) and on the
    standalone cluster (tests/spark_cluster.py, Spark's defaults); tests/test_spark_plan.py
    plans with AQE on.

    One partition (``spark.default.parallelism`` and ``spark.sql.shuffle.partitions``): the
    suite's tables are thousands of rows, and a stage of one task costs less than one of four
    (the engine contract suite's option variants on Spark: 289 s, 357 s with four; its plans
    have the same exchanges, tests/test_spark_plan.py, which plans over four). Rows split over
    partitions, and merged from them, still run for every registered metric: the invariance
    suite's shuffled tables (3 partitions, rows in another order; their bits those of the
    one-partition table), its hostile session (7 shuffle partitions), and the standalone
    cluster (two executors, 4 partitions)."""
    import os
    import shutil

    from pg_server import free_port
    from pyspark.sql import SparkSession

    if os.environ.get("SQLMETRICS_TEST_SPARK") == "sail":  # .ci/sail: Sail's Connect server
        yield from _sail()
        return
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise RuntimeError(
            "the Spark tests need a Java 17 runtime (java on PATH or JAVA_HOME set); "
            "install one (e.g. openjdk-17-jre-headless): these tests never skip"
        )
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("sqlmetrics-tests")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "3g")  # 1g ran out in an aggregate (parity, beyond)
        .config("spark.driver.extraJavaOptions", "-XX:+UseParallelGC")
    )
    for key, value in SPARK_SPEED.items():
        builder = builder.config(key, value)
    # the same JVM serves Spark Connect clients (the spark_connect fixture): Spark's own
    # Connect server, as Databricks Connect and `builder.remote(...)` reach one
    builder = builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
    builder = builder.config("spark.connect.grpc.binding.address", "127.0.0.1")
    session = connect_on_a_free_port(builder, free_port)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def connect_on_a_free_port(builder: Any, free_port: Callable[[], int], tries: int = 3) -> Any:
    """``builder.getOrCreate()`` with its Connect server on a port free just before: another
    process may take the port between :func:`free_port` and the JVM binding it (on 2026-12-01
    one ``.ci/run`` of 11,284 tests lost every Spark test to "BindException: Failed to bind
    to address /127.0.0.1:38663"), so a bind failure tries another port, ``tries`` times in
    all. A failed start leaves no context behind (pyspark stops it).
    """
    for attempt in range(tries):
        port = str(free_port())
        try:
            return builder.config("spark.connect.grpc.binding.port", port).getOrCreate()
        except Exception as exc:  # py4j's Py4JJavaError, from the JVM
            if "BindException" not in str(exc) or attempt == tries - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _sail() -> Iterator[object]:
    """A Spark Connect session of Sail (``pysail``: a Spark Connect server without a JVM, in
    this process, on a free port), for ``SQLMETRICS_TEST_SPARK=sail`` (.ci/sail, its own venv
    with the Connect-only client ``pyspark-client``)."""
    from pysail.spark import SparkConnectServer
    from pyspark.sql import SparkSession

    server = SparkConnectServer(ip="127.0.0.1", port=0)
    server.start(background=True)
    host, port = server.listening_address
    # where a test makes a session of its own (the invariance suite's hostile one)
    os.environ["SQLMETRICS_SAIL_URL"] = f"sc://{host}:{port}"
    session = sail_session(SparkSession.builder.remote(os.environ["SQLMETRICS_SAIL_URL"]))
    yield session
    session.stop()
    server.stop()


def sail_session(builder: Any, create: bool = False) -> Any:
    """A Connect session of Sail's in-process server (``builder.create()`` with ``create``,
    else ``getOrCreate()``), its client retrying a response that arrived corrupt.

    Sail 0.7.2 once sent an ``AnalyzePlanResponse`` that the client could not parse ("Wire
    format was corrupt", gRPC INTERNAL "Exception deserializing response!"): 1 of 4 runs of
    the Sail tier on 2026-12-01, a different call each time it is seen, never twice in a row
    (``metric_anomalies`` passed on its own three times, the whole tier three times). Spark
    Connect's own retry policies retry UNAVAILABLE and a preempted cursor; this one adds that
    response, twice at most, for Sail only: every request of the suite is a read (a query, a
    schema, a temporary view), so a second one is the same request. A real error of the
    engine is not an RPC error and is never retried.
    """
    import grpc
    from pyspark.sql.connect.client.retries import RetryPolicy

    class CorruptResponse(RetryPolicy):
        def __init__(self) -> None:
            super().__init__(max_retries=2, initial_backoff=50, max_backoff=500)

        def can_retry(self, exc: BaseException) -> bool:
            return (
                isinstance(exc, grpc.RpcError)
                and exc.code() == grpc.StatusCode.INTERNAL
                and "Exception deserializing response" in str(exc)
            )

    session = builder.create() if create else builder.getOrCreate()
    client = session.client
    client.set_retry_policies([*client.get_retry_policies(), CorruptResponse()])
    return session


@pytest.fixture(scope="session")
def spark_connect(spark: Any) -> object:
    """A Spark Connect session (pyspark's remote mode: a client over gRPC, no JVM object in
    it), served by the ``spark`` fixture's JVM (its SparkConnectPlugin): the same engine, so
    its values are Spark's bits; what differs is the client (the session, DataFrames, errors,
    conf and catalog calls are Connect's)."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    if os.environ.get("SQLMETRICS_TEST_SPARK") == "sail":  # a Connect session already
        yield spark
        return
    port = spark.conf.get("spark.connect.grpc.binding.port")
    session = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").create()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_cluster() -> object:
    """A throwaway Spark standalone cluster for the session (tests/spark_cluster.py): a master
    and two one-core workers on 127.0.0.1, started from pyspark's own scripts and stopped at
    the end (also after a failure); its client runs in a subprocess
    (``spark_cluster.run("module:function", *args)``). Never skipped: without Java it fails,
    as ``spark`` does."""
    import spark_cluster as cluster

    with cluster.start() as running:
        yield running


@pytest.fixture(scope="session")
def chdb_session() -> object:
    """One in-process ClickHouse session (chdb) for the whole run, in a temporary directory of
    its own; the tests create their tables in it (never skipped: chdb is a test dependency)."""
    from chdb import session as chdb_session_module

    session = chdb_session_module.Session()
    yield session
    session.close()


def duckdb_tables(tables: Any) -> Any:
    """A new in-memory DuckDB connection holding each (name, pandas frame) of ``tables`` as a
    table of that name (the reference engine of the parity-style tests)."""
    import duckdb

    con = duckdb.connect()
    for name, frame in tables.items():
        con.register("frame", frame)
        con.execute(f"create table {name} as select * from frame")
        con.unregister("frame")
    return con


def chdb_table(session: Any, name: str, frame: Any) -> None:
    """``frame`` (pandas) as the table ``name`` of the chdb session, replaced if it exists:
    chdb's ``Python(...)`` table function reads the DataFrame from this frame's locals."""
    source = frame  # noqa: F841 (read by name by chdb)
    quoted = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    session.query(f"DROP TABLE IF EXISTS {quoted}")
    session.query(f"CREATE TABLE {quoted} ENGINE = Memory AS SELECT * FROM Python(source)")
