from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


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


@pytest.fixture(scope="session")
def spark() -> object:
    """One local Spark session for the test session: local[2], 4 shuffle partitions, no UI,
    UTC; never skipped (pyspark and Java 17 are part of the dev setup)."""
    import os
    import shutil

    from pyspark.sql import SparkSession

    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise RuntimeError(
            "the Spark tests need a Java 17 runtime (java on PATH or JAVA_HOME set); "
            "install one (e.g. openjdk-17-jre-headless): these tests never skip"
        )
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sqlmetrics-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "3g")  # 1g ran out in an aggregate (parity, beyond)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# The Spark execution suites (issue 10), and every test that uses the `spark` fixture or has
# an engine parameter "spark", are marked `spark_engine`: part of the default run
# (the README's `pytest`, `.ci/run`); `pytest -m spark_engine` runs them alone and
# `pytest -m 'not spark_engine'` everything else (a quicker local loop, never CI).
SPARK_ENGINE_FILES = ("test_spark.py", "test_spark_plan.py")
#: files whose Spark cases are parameters with "spark" in their id (engine names in a tuple)
SPARK_PARAM_FILES = ("test_parity.py", "test_dialects.py", "test_dbt.py", "test_readme_engines.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        name = item.path.name
        spark_param = "spark" in item.nodeid.split("::", 1)[-1]
        callspec = getattr(item, "callspec", None)
        uses_spark = "spark" in getattr(item, "fixturenames", ()) or (
            callspec is not None
            and any(isinstance(v, str) and v == "spark" for v in callspec.params.values())
        )
        if uses_spark or name in SPARK_ENGINE_FILES or (name in SPARK_PARAM_FILES and spark_param):
            item.add_marker(pytest.mark.spark_engine)
