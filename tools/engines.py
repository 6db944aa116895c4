"""The engines table, declared once (issue 45): each engine sqlmetrics runs on or writes SQL
for, what ``con=`` and ``data=`` take there, its tier, and the tests that show it.

Tiers: ``executed`` (the tests run the metrics on the real engine and compare with DuckDB),
``executed through Ibis`` (the same, ``con=`` an Ibis backend and ``data=`` an Ibis table
expression), ``analysed`` (every render passes the engine's own SQL analyzer, which resolves
names and types), ``parsed`` (every render parses as that dialect).

``python -m tools.docs`` writes the table into README.md (short) and
docs/concepts/engines.md (with ``data=``); tests/test_engine_table.py checks both are fresh
and that every test named as evidence is collected by ``pytest --all``: a row claims what the
tests execute, no more.
"""

from __future__ import annotations

from dataclasses import dataclass

TIERS = ("executed", "executed through Ibis", "analysed", "parsed")


@dataclass(frozen=True)
class Engine:
    """One row: the engine, what ``con=`` and ``data=`` take, its tier, what the tests ran."""

    name: str
    con: str
    data: str
    tier: str
    tested: str
    #: pytest node ids (or their beginning) that show the tier: each must collect
    evidence: tuple[str, ...]


ENGINES = (
    Engine(
        "DuckDB",
        "omitted, a database path, a `duckdb` connection (or dbt-duckdb's cursor)",
        "tables, files, DataFrames, Arrow, relations",
        "executed",
        "every test; the reference the other engines are compared with",
        ("tests/test_invariance.py::test_slice_equals_the_metric_on_its_rows[duckdb-",),
    ),
    Engine(
        "PostgreSQL",
        'a SQLAlchemy `Engine` or `Connection` (`pip install "sqlmetrics[postgres]"`)',
        "a table or view name, `schema.table` allowed",
        "executed",
        "real PostgreSQL 15 and 18 servers: the engine contract and invariance suites",
        (
            "tests/test_engines.py::test_call_equals_duckdb[postgres-",
            "tests/test_engines.py::test_variant_equals_duckdb[postgres-",
            "tests/test_invariance.py::test_slice_equals_the_metric_on_its_rows[postgres-",
        ),
    ),
    Engine(
        "Spark SQL",
        "a `pyspark.sql.SparkSession`, classic or Spark Connect "
        '(`pip install "sqlmetrics[spark]"`)',
        "a table or view of its catalog, a Spark DataFrame, a Parquet path",
        "executed",
        "Spark 4 local[2], a standalone cluster, a Spark Connect client",
        (
            "tests/test_engines.py::test_call_equals_duckdb[spark-",
            "tests/test_engines.py::test_variant_equals_duckdb[spark-",
            "tests/test_engines.py::test_call_on_spark_connect_equals_duckdb[spark_connect-",
            "tests/test_invariance.py::test_slice_equals_the_metric_on_its_rows[spark-",
            "tests/test_spark_cluster.py::",
        ),
    ),
    Engine(
        "Sail (Spark Connect)",
        "a Spark Connect session of a Sail server (`pysail`), told apart by `version()`",
        "a table or view of its catalog, a Spark DataFrame, a Parquet path",
        "executed",
        "Sail 0.7.2 in process, client pyspark-client 4.0: the engine contract and invariance "
        "suites (`.ci/sail`, the Spark rows' tests with `SQLMETRICS_TEST_SPARK=sail`)",
        (
            "tests/test_engines.py::test_call_equals_duckdb[spark-",
            "tests/test_invariance.py::test_slice_equals_the_metric_on_its_rows[spark-",
            "tests/test_backends.py::test_a_sail_server_is_told_apart_once_per_session",
            "tests/test_backends.py::test_a_sail_call_runs_with_ansi_mode_off_and_puts_it_back",
        ),
    ),
    Engine(
        "ClickHouse",
        'a `chdb` session or connection, in process (`pip install "sqlmetrics[clickhouse]"`)',
        "a table or view of the session, `db.table` allowed; a DataFrame or Arrow table, "
        "read in place",
        "executed",
        "chDB 4.4 (ClickHouse 26.9)",
        (
            "tests/test_engines.py::test_call_equals_duckdb[clickhouse-",
            "tests/test_engines.py::test_variant_equals_duckdb[clickhouse-",
            "tests/test_invariance.py::test_slice_equals_the_metric_on_its_rows[clickhouse-",
        ),
    ),
    Engine(
        "ClickHouse server",
        "a `clickhouse_connect` client, the same SQL over HTTP",
        "a table or view of the database, `db.table` allowed",
        "executed",
        "clickhouse-connect's real client against a test server answering with chDB's engine "
        "(no ClickHouse server binary here), and its in-process chDB client",
        ("tests/test_clickhouse_connect.py::",),
    ),
    Engine(
        "Ibis",
        "an Ibis backend of DuckDB, PostgreSQL, Spark or ClickHouse "
        '(`pip install "sqlmetrics[ibis]"`); omitted: the expression\'s own',
        "an Ibis table expression (tables, filters, joins, `ibis.memtable`), or what that "
        "engine takes",
        "executed through Ibis",
        "Ibis 12 on DuckDB, PostgreSQL, Spark and ClickHouse (over HTTP to the test server)",
        (
            "tests/test_ibis.py::test_ibis_expression_equals_duckdb[duckdb-",
            "tests/test_ibis.py::test_ibis_expression_equals_duckdb[postgres-",
            "tests/test_ibis.py::test_ibis_expression_equals_duckdb[spark-",
            "tests/test_ibis.py::test_ibis_expression_equals_duckdb[clickhouse-",
        ),
    ),
    Engine(
        "BigQuery",
        '`render(..., dialect="bigquery")` writes its SQL (a SQLAlchemy engine of that dialect '
        "runs it, untested)",
        "a table or view name",
        "analysed",
        "every render of the dialect tests passes GoogleSQL's own analyzer (ZetaSQL)",
        ("tests/test_bigquery_analyzer.py::",),
    ),
    Engine(
        "Snowflake, Trino",
        "`render(..., dialect=)` writes their SQL (a SQLAlchemy engine of that dialect runs "
        "it, untested)",
        "a table or view name",
        "parsed",
        "every render parses as the dialect (sqlglot); Trino's also runs on DataFusion, a "
        "semantics probe",
        (
            "tests/test_dialects.py::test_rendered_only_dialects_parse[snowflake",
            "tests/test_dialects.py::test_rendered_only_dialects_parse[trino",
            "tests/test_datafusion.py::test_datafusion_equals_duckdb",
        ),
    ),
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def engines_table(short: bool = False) -> str:
    """The Markdown table: engine, ``con=``, (``data=``,) tier, what the tests ran."""
    if short:
        lines = ["| engine | `con=` | tier | tested here |", "| --- | --- | --- | --- |"]
    else:
        lines = [
            "| engine | `con=` | `data=` | tier | tested here |",
            "| --- | --- | --- | --- | --- |",
        ]
    for e in ENGINES:
        cells = [e.name, e.con] + ([] if short else [e.data]) + [e.tier, e.tested]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
