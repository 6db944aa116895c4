"""The engine contract suite: one set of calls, every engine, against DuckDB.

The shape ibis uses for its backends: a backend fixture, :func:`engine`, parametrized over
every engine that ``con=`` takes (PostgreSQL through SQLAlchemy, Spark local[2], ClickHouse in
process through chdb), and the same tests on each:

- :func:`test_call_equals_duckdb`: every call of :data:`engine_calls.CALLS` (at least one per
  public function of ``sqlmetrics.__all__`` that takes data, with intervals, paired tests,
  states, merges, curves, wide and long class scores, rendered SQL) gives DuckDB's result:
  the same type, columns, dtypes, index and row order, NULL where DuckDB has NULL, and values
  to the engine's tolerance (:data:`TOLERANCE`; ClickHouse: the same bits but for the calls
  of :data:`LAST_BITS`).
- :func:`test_variant_equals_duckdb`: every registered metric with each of its option
  variants (:data:`engine_variants.CASES`: ties, gains, empty and missing policies, weights,
  two slice columns with a NULL slice, qrels) gives DuckDB's rows, or the same error class.
- the error contracts, written once: a missing table names the engine and its tables, a
  missing column is named, a pandas frame or a file the engine cannot read is refused with the
  fix, an engine error is wrapped with the metric and the engine, names that need quoting reach
  the engine as written, and nothing is written and no setting is changed.

Known gaps are marked where they are, with the exception they raise. The engine-specific
tests stay in each engine's own module (test_postgres.py, test_spark.py, test_clickhouse*.py).
Nothing here skips: without a PostgreSQL server, a Java runtime or chdb the fixtures fail.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table, duckdb_tables
from engine_calls import BIN, CALLS, NO_DATA, Call, E, all_tables, public_functions, same
from engine_variants import CASES, REFUSED, RTOL, Case, assert_same, run_case
from engine_variants import TABLES as VARIANT_TABLES

import sqlmetrics
from sqlmetrics._backends.spark_backend import is_sail
from sqlmetrics.errors import ColumnNotFoundError, DataSourceError, EngineError

ENGINES = ("postgres", "spark", "clickhouse")
#: the relative tolerance of each engine's values against DuckDB's (ClickHouse: the same bits,
#: but for LAST_BITS); PostgreSQL and Spark compute log, exp and sqrt with their own libraries
TOLERANCE = {"postgres": 1e-9, "spark": 1e-9, "clickhouse": 0.0}
#: Sail (.ci/sail: the spark fixture is then a Sail session, dialect sail): its values agree with
#: DuckDB's to 1e-12 over every call and variant (issue 45's bar; measured 2026-11-30, 0.7.2)
DIALECT_TOLERANCE = {"sail": 1e-12}
#: the calls whose ClickHouse result differs from DuckDB's in the last bits (1 to 30 units in
#: the last place, measured 2026-11-26): a bootstrap percentile's interpolation between two
#: replicates, log loss's t interval and bootstrap (ClickHouse's ln), compare's mean losses (a
#: plain float sum); they agree to 1e-12
LAST_BITS = {
    "log_loss-t",
    "log_loss-weighted_bootstrap",
    "normalized_entropy-bootstrap",
    "recall-bootstrap",
    "recall-bootstrap_top_level",
    "balanced_accuracy-bootstrap",
    "precision_at_recall-bootstrap",
    "evaluate-ci_bootstrap_by",
    "evaluate-ci_default_by",
    "evaluate-losses_t_weighted_by",
    "evaluate-ci_mixed_by",
    "compare-losses_t",
    "report-by_ci",
    # issue 43 (2026-11-30): the t interval of mrr(weight=) (TF-Ranking's list weights): lo
    # 3 units in the last place off DuckDB's (0.6911038261220884 vs ...881); the cause was
    # not found (its value agrees bit for bit)
    "mrr-list_weighted_t",
}

#: known gaps, (engine, call) -> (the exception the comparison raises, a pattern of its
#: message): the test expects exactly that, so a gap that closes fails until it is taken out
GAPS: dict[tuple[str, str], tuple[type[Exception], str]] = {
    # PostgreSQL cannot read a pandas frame (sqlmetrics writes nothing there): merge's
    # DataFrame states are merged by DuckDB (merge-states_of_the_engine), or read from a table
    ("postgres", "merge-frames_on_the_engine"): (
        DataSourceError,
        "merge: data= is a DataFrame; with con= a SQLAlchemy postgres engine, data= must be the "
        "name of a table",
    ),
    # Spark cannot read a pandas frame either (spark.createDataFrame(frame) is the fix)
    ("spark", "merge-frames_on_the_engine"): (
        DataSourceError,
        "merge: data= is a DataFrame; with con= a SparkSession, data= must be a Spark DataFrame",
    ),
    # the state's format version comes back as Python's int: int64, DuckDB's INTEGER is int32
    ("postgres", "state-by"): (AssertionError, "'sqlmetrics_state' is int64, int32 on duckdb"),
}


# --------------------------------------------------------------------------- engines
@dataclass
class Engine:
    """A backend under test: its connection, its dialect, and how rendered SQL runs on it."""

    name: str
    con: Any
    dialect: str
    query: Callable[[str], pd.DataFrame]


def _tables() -> dict[str, pd.DataFrame]:
    return {**all_tables(), **VARIANT_TABLES}


@pytest.fixture(scope="module")
def duck() -> Iterator[Engine]:
    con = duckdb_tables(_tables())
    yield Engine("duckdb", con, "duckdb", lambda sql: con.execute(sql).df())
    con.close()


def _postgres(request: pytest.FixtureRequest) -> Iterator[Engine]:
    import sqlalchemy

    pg = request.getfixturevalue("pg_engine")
    for name, frame in _tables().items():
        frame.to_sql(name, pg, index=False, if_exists="replace")

    def query(sql: str) -> pd.DataFrame:
        with pg.connect() as c:
            result = c.exec_driver_sql(sql)
            return pd.DataFrame(result.fetchall(), columns=list(result.keys()))

    yield Engine("postgres", pg, "postgres", query)
    with pg.begin() as c:  # the session's server is shared: leave no table behind
        for name in _tables():
            c.execute(sqlalchemy.text(f"drop table if exists {name}"))


def _spark(request: pytest.FixtureRequest, fixture: str = "spark") -> Iterator[Engine]:
    spark = request.getfixturevalue(fixture)
    for name, frame in _tables().items():
        spark.createDataFrame(
            frame.astype(object).where(frame.notna(), None)
        ).createOrReplaceTempView(name)
    dialect = "sail" if is_sail(spark) else "spark"  # .ci/sail: Sail's Connect server
    yield Engine("spark", spark, dialect, lambda sql: spark.sql(sql).toPandas())
    for name in _tables():
        spark.catalog.dropTempView(name)


def _clickhouse(request: pytest.FixtureRequest) -> Iterator[Engine]:
    from sqlmetrics._backends.clickhouse_backend import SETTINGS

    session = request.getfixturevalue("chdb_session")
    for name, frame in _tables().items():
        chdb_table(session, name, frame)
    settings = ", ".join(f"{k} = {v}" for k, v in SETTINGS.items())

    def query(sql: str) -> pd.DataFrame:
        frame: pd.DataFrame = session.query(f"{sql}\nSETTINGS {settings}", "DataFrame")
        return frame

    yield Engine("clickhouse", session, "clickhouse", query)
    for name in _tables():
        session.query(f"DROP TABLE IF EXISTS {name}")


def _spark_connect(request: pytest.FixtureRequest) -> Iterator[Engine]:
    yield from _spark(request, "spark_connect")


#: a Spark Connect client (conftest's spark_connect: pyspark's remote mode, served by the
#: spark fixture's JVM). Its engine is Spark's, so its values are Spark's bits; what is its own
#: is the client: sessions, DataFrames, catalog, conf and errors. It runs the error contracts
#: and one call per public function (CONNECT_CALLS), not every call and option variant again
CONNECT = "spark_connect"
#: the first call of each public function
CONNECT_CALLS = [
    c for i, c in enumerate(CALLS) if c.function not in {d.function for d in CALLS[:i]}
]
#: the tests that run on the engines of ENGINES only (the Connect client runs CONNECT_CALLS)
ROW_SUITES = ("test_call_equals_duckdb", "test_variant_equals_duckdb")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``engine``: every engine, and the Connect client but in :data:`ROW_SUITES`."""
    if "engine" in metafunc.fixturenames:
        name = metafunc.definition.originalname
        engines = (CONNECT,) if name == "test_call_on_spark_connect_equals_duckdb" else ENGINES
        if name not in ROW_SUITES and engines == ENGINES:
            engines = (*ENGINES, CONNECT)
        metafunc.parametrize("engine", engines, indirect=True, scope="module")


@pytest.fixture(scope="module")
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Each engine in turn, holding the suite's tables (conftest marks the test with the
    engine's tier from this parameter; ``spark_connect``: Spark's)."""
    yield from {
        "postgres": _postgres,
        "spark": _spark,
        "clickhouse": _clickhouse,
        CONNECT: _spark_connect,
    }[request.param](request)


# --------------------------------------------------------------------------- the calls
def test_every_public_function_is_called() -> None:
    """A public function is called here or takes no data (NO_DATA): none can be forgotten."""
    called = {call.function for call in CALLS}
    assert not called & set(NO_DATA)
    functions = public_functions()
    assert called | set(NO_DATA) == functions, (
        f"not called: {sorted(functions - called - set(NO_DATA))}; "
        f"not public: {sorted((called | set(NO_DATA)) - functions)}"
    )
    names = [call.name for call in CALLS]
    assert len(names) == len(set(names)), "call ids repeat"
    assert set(names) >= LAST_BITS


_EXPECTED: dict[str, Any] = {}


def _expected(call: Call, duck: Engine) -> Any:
    if call.name not in _EXPECTED:
        _EXPECTED[call.name] = call.run(duck)
    return _EXPECTED[call.name]


def _report_parts(html: str, engine: str) -> tuple[str, list[float]]:
    """The page but its engine's name, generation time, versions and SQL; and its numbers."""
    numbers = [float(v) for v in re.findall(r'data-value="([-+0-9.eE]+|nan|inf)"', html)]
    html = html.replace(f" on {engine}", "")
    html = re.sub(r"<dt>generated</dt><dd>[^<]*</dd>", "", html)
    html = re.sub(r'<section id="(about|sql)">.*?</section>', "", html, flags=re.S)
    return re.sub(r'data-value="[^"]*"', "data-value", html), numbers


@pytest.mark.parametrize("call", CALLS, ids=[c.name for c in CALLS])
def test_call_equals_duckdb(call: Call, engine: Engine, duck: Engine) -> None:
    gap = GAPS.get((engine.name, call.name))
    if gap is None:
        _check_call(call, engine, duck)
    else:
        with pytest.raises(gap[0], match=re.escape(gap[1])):
            _check_call(call, engine, duck)


@pytest.mark.parametrize("call", CONNECT_CALLS, ids=[c.name for c in CONNECT_CALLS])
def test_call_on_spark_connect_equals_duckdb(call: Call, engine: Engine, duck: Engine) -> None:
    """One call per public function through a Spark Connect session gives DuckDB's result
    (Spark's gaps hold there too)."""
    test_call_equals_duckdb(call, engine, duck)


def test_spark_connect_covers_every_public_function() -> None:
    assert {c.function for c in CONNECT_CALLS} == {c.function for c in CALLS}


def test_gaps_name_calls() -> None:
    names = {call.name for call in CALLS}
    assert {call for _, call in GAPS} <= names
    assert {engine for engine, _ in GAPS} <= set(ENGINES)


def _check_call(call: Call, engine: Engine, duck: Engine) -> None:
    expected = _expected(call, duck)
    got = call.run(engine)
    rtol = DIALECT_TOLERANCE.get(engine.dialect, TOLERANCE[engine.name])
    if engine.name == "clickhouse" and call.name in LAST_BITS:
        rtol = 1e-12
    if call.kind == "report":
        assert f"on {engine.name}" in got and "<dt>generated</dt>" in expected
        page, numbers = _report_parts(got, engine.name)
        expected_page, expected_numbers = _report_parts(expected, "duckdb")
        assert page == expected_page
        assert len(expected_numbers) > 20  # the table's cells
        same(expected_numbers, numbers, "report", rtol=rtol)
        return
    # rendered SQL run by hand gives each engine's own column types (ClickHouse: UInt64)
    same(expected, got, engine.name, dtypes=call.kind != "render", rtol=rtol)


# --------------------------------------------------------------------------- the variants
def test_every_registered_metric_is_covered() -> None:
    from engine_variants import VALUES

    from sqlmetrics._core.registry import REGISTRY, default_of

    covered = {m for case in CASES for m in case.metrics}
    assert covered == set(REGISTRY), f"forgotten: {sorted(set(REGISTRY) - covered)}"
    options = {p for spec in REGISTRY.values() for p in spec.params}
    assert options <= set(VALUES), f"no variants for: {sorted(options - set(VALUES))}"
    for spec in REGISTRY.values():
        for param in spec.params:
            values = [v for v in VALUES[param] if v != default_of(spec, param)]
            assert values, (spec.name, param)
            for value in values:
                assert any(
                    spec.name in case.metrics and (param, value) in case.options for case in CASES
                ), (spec.name, param, value)


def test_each_variant_runs_on_duckdb(duck: Engine) -> None:
    """The reference side: every case gives a result, except the variants meant to raise."""
    for case in CASES:
        outcome = run_case(case, duck.con)
        expected_error = (
            ("empty", "error") in case.options
            or ("missing", "error") in case.options
            or any((m, p, v) in REFUSED for m in case.metrics for p, v in case.options)
        )
        if isinstance(outcome, tuple):
            assert expected_error, f"{case.id}: {outcome}"
        else:
            assert len(outcome) >= 1, case.id


_VARIANTS: dict[str, Any] = {}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_variant_equals_duckdb(case: Case, engine: Engine, duck: Engine) -> None:
    if case.id not in _VARIANTS:
        _VARIANTS[case.id] = run_case(case, duck.con)
    got = run_case(case, engine.con)
    rtol = DIALECT_TOLERANCE.get(engine.dialect, RTOL)
    assert_same(_VARIANTS[case.id], got, f"{case.id} on {engine.name}", rtol)


# --------------------------------------------------------------------------- error contracts
def test_a_missing_table_names_the_engine_and_its_tables(engine: Engine) -> None:
    with pytest.raises(DataSourceError) as info:
        sqlmetrics.auc("cf_evnts", **BIN, con=engine.con)
    message = str(info.value)
    assert message.startswith("auc: data='cf_evnts' is not a table or view"), message
    assert f"({engine.name})" in message and "cf_events" in message, message


def test_a_missing_column_is_named_with_the_columns_present(engine: Engine) -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        sqlmetrics.auc(E, label="label", score="scr", con=engine.con)
    message = str(info.value)
    assert message.startswith(
        f"auc: column 'scr' (score=) not found in data='{E}' on {engine.name}; columns present: "
    ), message


def test_a_file_is_refused_or_read(engine: Engine, tmp_path: Path) -> None:
    """A CSV file: Spark reads only Parquet; PostgreSQL and ClickHouse read no file (the fix:
    load it into a table first)."""
    path = tmp_path / "events.csv"
    path.write_text("label,score\n1,0.5\n0,0.25\n", encoding="utf-8")
    fix = {"spark": "Parquet", "postgres": "Load the", "clickhouse": "Load the files"}
    with pytest.raises(DataSourceError, match=fix[engine.name]) as info:
        sqlmetrics.auc(str(path), con=engine.con)
    assert str(info.value).startswith("auc: "), info.value


def test_an_engine_error_is_wrapped_with_the_metric_and_the_engine(engine: Engine) -> None:
    """An error only the engine raises (here: a function it lacks) becomes our EngineError
    naming the metric, the data and the engine, and the engine's message, without its stack
    trace."""
    from sqlmetrics._backends import backend_for

    with backend_for(engine.con) as backend:
        try:
            backend.rows("select no_such_function(1)")
        except backend.errors as exc:
            error = backend.wrap_error("auc", ["data='t'"], exc)
        else:  # pragma: no cover
            pytest.fail("no_such_function did not raise")
    message = str(error)
    assert isinstance(error, EngineError), type(error)
    assert message.startswith("auc: ") and engine.name in message, message
    assert "no_such_function" in message.lower(), message
    assert "JVM stacktrace" not in message and "Traceback" not in message, message


def test_names_that_need_quoting_reach_the_engine_as_written(engine: Engine) -> None:
    """A table and columns whose names hold a space, both quotes, a backslash, % and :, read
    through con= as written, give DuckDB's value."""
    frame = all_tables()[E][["label", "score"]].rename(
        columns={"label": 'la"b\\el %s', "score": "sc'o re:x"}
    )
    # a Spark temporary view's name is an identifier: no space
    name = "cf_odd" if engine.name == "spark" else "cf odd"
    load = {"postgres": _load_postgres, "spark": _load_spark, "clickhouse": _load_clickhouse}
    load[engine.name](engine, name, frame)
    got = sqlmetrics.auc(name, label='la"b\\el %s', score="sc'o re:x", con=engine.con)
    assert got == sqlmetrics.auc(frame, label='la"b\\el %s', score="sc'o re:x")


def _load_postgres(engine: Engine, name: str, frame: pd.DataFrame) -> None:
    frame.to_sql(name, engine.con, index=False, if_exists="replace")


def _load_spark(engine: Engine, name: str, frame: pd.DataFrame) -> None:
    engine.con.createDataFrame(frame).createOrReplaceTempView(name)


def _load_clickhouse(engine: Engine, name: str, frame: pd.DataFrame) -> None:
    chdb_table(engine.con, name, frame)


def test_a_varying_group_weight_gives_its_slice_null_on_every_engine(
    engine: Engine, duck: Engine
) -> None:
    """Rendered SQL runs without Python's check that group_weight is constant within a group
    (dbt, render): a query whose weight varies leaves its slice's values NULL on every engine,
    and the other slice keeps DuckDB's values (sql/_macros/kernels/ranking.sql,
    group_weights)."""
    rng = np.random.default_rng(43)
    frame = pd.DataFrame(
        {
            "query": np.repeat(np.arange(8), 5),
            "doc": np.tile(np.arange(5), 8),
            "score": rng.integers(0, 4, 40).astype(float),
            "label": rng.choice([0, 1, 2], 40).astype(float),
            "gw": np.repeat([1.0, 2.0, 0.5, 3.0, 1.0, 2.0, 0.5, 3.0], 5),
            "half": np.repeat(["a", "b"], 20),
        }
    )
    frame.loc[frame["query"] == 6, "gw"] = [1.0, 2.0, 3.0, 4.0, 5.0]
    frame.loc[(frame["query"] == 6) & (frame["doc"] == 0), "label"] = 2.0  # not empty
    name = "cf_varying_gw"
    load = {"postgres": _load_postgres, "spark": _load_spark, "clickhouse": _load_clickhouse}
    load[engine.name](engine, name, frame)
    duck.con.register(name, frame)
    metrics = ["ndcg@3", "map@3", "mrr"]
    kw: dict[str, Any] = {"group": "query", "item": "doc", "group_weight": "gw", "by": "half"}
    want = duck.query(sqlmetrics.render_evaluate(name, metrics, **kw))
    got = engine.query(sqlmetrics.render_evaluate(name, metrics, dialect=engine.dialect, **kw))
    got = got.sort_values("half", ignore_index=True)
    assert list(got["half"]) == list(want["half"]) == ["a", "b"]
    assert want.loc[1, metrics].isna().all() and got.loc[1, metrics].isna().all()
    for metric in metrics:
        assert math.isclose(float(got.loc[0, metric]), float(want.loc[0, metric]), rel_tol=1e-12)
