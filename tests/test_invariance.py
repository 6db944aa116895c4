"""Registry-wide invariances (issue 22, section 3), after scikit-learn's metrics/tests/test_common.

Every registered metric (sqlmetrics/_core/registry.py) gets every check below for free, on DuckDB,
PostgreSQL (``pg_engine``), ClickHouse (``chdb_session``, in process) and Spark (``spark``), over
the small tied dataset of tests/invariance_data.py; ``test_every_metric_is_covered_or_excused``
fails when a registered metric is neither checked by an invariance nor listed as not applicable
to it, with a reason.

- slices: each slice's row of ``evaluate(..., by=)`` (a table metric: its ``by=`` frame) equals
  the calls on that slice's rows alone, the NULL slice, a one-row slice and a slice whose
  queries hold no relevant item included, ``n_rows``/``n_groups`` too (NaN equals NaN);
- shuffle: the same rows in another order (Spark: other partitions) give the same bits; on
  DuckDB 1 and 2 threads (``sqlmetrics.configure``) give the same bits, over a table large
  enough (some 280,000 rows) that DuckDB splits its scans;
- weights: a weight column of 1s gives the unweighted value (metrics with a weight role);
- names, signed zeros and a hostile session, in one pass: a copy of the table with quoted,
  mixed-case, dotted and spaced column names, and -0.0 for every other 0.0 score (a quarter of
  the scores are 0.0: invariance_data), read in a user's session at its worst (``hostile``:
  every setting that can change a result, tests/test_invariance_session.py and
  tests/test_invariance_session_clickhouse.py), gives the default session's values on the
  original table bit for bit, and leaves the session's settings as they were (issue 39:
  ClickHouse split -0.0 and 0.0; sessions changed AUC, slices and rounding);
- ranks: for the metrics declared ``rank_based`` (MetricSpec), scores times 4 and scores + 1
  (both exact in floating point on scores that are multiples of 1/8: no tie made or lost)
  give the same values;
- render: ``evaluate([m])`` equals the metric's function, and ``render(m)`` run by hand on the
  engine equals both.
- option variants (issue 27): nDCG's ``gains=`` and ``judged_only=True`` with qrels, which the
  checks above run at their defaults only, through slices, row order, names, score transforms
  and the functions, on every engine (``test_option_variants_keep_the_invariances``).

Values compare exactly (``==`` on floats, NaN equal to NaN). Spark runs every invariance
through batched ``evaluate`` calls (one per column set), as one query costs it about a second.
Nothing skips and nothing is marked xfail.
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb
import invariance_data
import numpy as np
import pandas as pd
import pytest
from conftest import SPARK_DEFAULTS, chdb_table, quiet, sail_session

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import SETTINGS as CLICKHOUSE_SETTINGS
from sqlmetrics._backends.clickhouse_backend import as_duckdb_frame
from sqlmetrics._backends.spark_backend import is_sail
from sqlmetrics._core.names import metric_form
from sqlmetrics._core.registry import REGISTRY, MetricSpec, default_of
from sqlmetrics._engine.run import compute

ENGINES = ("duckdb", "postgres", "clickhouse", "spark")
#: the engines where one query costs milliseconds (Spark's cost seconds)
QUICK_ENGINES = ("duckdb", "postgres", "clickhouse")
K = 3  # the cut-off of every metric that takes one
TABLES = invariance_data.tables()
SLICES = invariance_data.SLICES


# --------------------------------------------------------------------------- metrics and columns
def family(spec: MetricSpec) -> str:
    """The column set a metric reads (one evaluate call per column set)."""
    roles = {r.name: r.kind for r in spec.roles}
    if spec.kernel == "ranking_kernel":
        return "ranking"
    if spec.family in ("multiclass_scores", "beyond", "correlation"):
        return spec.family
    if roles.get("label") == "key":
        return "multiclass"
    return "binary"


#: role -> column of each family (the names every check but "names" uses)
COLUMNS: dict[str, dict[str, str]] = {
    "binary": {"label": "label", "score": "score", "weight": "w", "group": "g"},
    "ranking": {"group": "g", "item": "item", "score": "score", "label": "rel"},
    "multiclass": {"label": "cls", "prediction": "pcls", "weight": "w"},
    "multiclass_scores": {
        "group": "row_id",
        "item": "cls",
        "score": "score",
        "label": "label",
        "weight": "w",
    },
    "beyond": {"item": "item"},
    "correlation": {"label": "rel", "score": "score", "group": "g"},
}
TABLE_OF = {"multiclass_scores": "inv_scores"}
TRAIN = "inv_train"


def table_of(spec: MetricSpec) -> str:
    return TABLE_OF.get(family(spec), "inv_run")


def has_weight(spec: MetricSpec) -> bool:
    return any(r.name == "weight" for r in spec.roles)


def columns_of(
    spec: MetricSpec, weight: str | None = "w", rename: dict[str, str] | None = None
) -> dict[str, str]:
    """Role -> column for ``spec``; ``weight`` the weight column (None: unweighted)."""
    out = {}
    for role in spec.roles:
        col = COLUMNS[family(spec)].get(role.name)
        if role.name == "weight":
            col = weight
        if col is not None:
            out[role.name] = (rename or {}).get(col, col)
    return out


def eval_name(spec: MetricSpec) -> str:
    return metric_form(spec).replace("@k", f"@{K}")


SCALARS = [s for s in REGISTRY.values() if s.output == "scalar"]
TABLE_METRICS = [s for s in REGISTRY.values() if s.output == "table"]


# --------------------------------------------------------------------------- engines
class Engine:
    """One engine holding the tables: load a frame, make a view, run SQL by hand."""

    def __init__(self, name: str, con: Any) -> None:
        self.name, self.con = name, con
        self.dialect = "sail" if name == "spark" and is_sail(con) else name

    def load(self, table: str, frame: pd.DataFrame) -> None:
        if self.name == "duckdb":
            self.con.register("inv_frame", frame)
            self.con.execute(f'create or replace table "{table}" as select * from inv_frame')
            self.con.unregister("inv_frame")
        elif self.name == "postgres":
            with self.con.begin() as c:
                c.exec_driver_sql(f'drop table if exists "{table}" cascade')
            frame.to_sql(table, self.con, index=False)
        elif self.name == "clickhouse":
            chdb_table(self.con, table, frame)
        else:
            # materialized in the JVM once (localCheckpoint): a query then scans blocks, not
            # the Python rows again (each query reads a table several times); Sail
            # (SQLMETRICS_TEST_SPARK=sail) has no checkpoints
            made = self.con.createDataFrame(frame.astype(object).where(frame.notna(), None))
            if os.environ.get("SQLMETRICS_TEST_SPARK") != "sail":
                made = made.localCheckpoint()
            made.createOrReplaceTempView(table)

    def view(self, name: str, select: str) -> None:
        if self.name == "duckdb":
            self.con.execute(f'create or replace view "{name}" as {select}')
        elif self.name == "postgres":
            with self.con.begin() as c:
                c.exec_driver_sql(f'drop view if exists "{name}"')
                c.exec_driver_sql(f'create view "{name}" as {select}')
        elif self.name == "clickhouse":
            self.con.query(f'create or replace view "{name}" as {select}')
        else:
            self.con.sql(select.replace('"', "`")).createOrReplaceTempView(name)

    def quote(self, column: str) -> str:
        return f"`{column}`" if self.name == "spark" else f'"{column}"'

    def sql(self, text: str) -> pd.DataFrame:
        if self.name == "duckdb":
            return self.con.execute(text).df()
        if self.name == "postgres":
            with self.con.connect() as c:
                result = c.exec_driver_sql(text)
                return pd.DataFrame(result.fetchall(), columns=list(result.keys()))
        if self.name == "clickhouse":  # with the settings sqlmetrics' own statements carry
            settings = ", ".join(f"{k} = {v}" for k, v in CLICKHOUSE_SETTINGS.items())
            return as_duckdb_frame(self.con.query(f"{text}\nSETTINGS {settings}", "DataFrame"))
        return self.con.sql(text).toPandas()


def slice_view(table: str, value: str | None) -> str:
    return f"{table}__{'null' if value is None else value}"


def slice_filter(value: str | None) -> str:
    return '"seg" is null' if value is None else f"\"seg\" = '{value}'"


#: the quoted, mixed-case, dotted and spaced names of the "names" check
RENAMED = {
    "g": "User",
    "item": "Item Id",
    "score": "my.score",
    "rel": "Rel.Grade",
    "label": "Click Label",
    "w": "W",
    "cls": "True Class",
    "pcls": "pred.Class",
    "row_id": "Row.ID",
    "seg": "Seg Ment",
}


def _shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _with_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["score_x4"] = out["score"] * 4.0
    out["score_p1"] = out["score"] + 1.0
    # exact: no tie made or lost (scores are multiples of 1/8 in [0, 1])
    for col in ("score_x4", "score_p1"):
        assert out.groupby(col)["score"].nunique().max() == 1
        assert out[col].nunique() == out["score"].nunique()
    return out


def renamed_frame(table: str) -> pd.DataFrame:
    """The "names" check's copy of ``table``: its columns renamed (:data:`RENAMED`) and, in
    its score, every other 0.0 written -0.0 (invariance_data.with_signed_zeros)."""
    frame = TABLES[table]
    if "score" in frame.columns:
        frame = invariance_data.with_signed_zeros(frame)
    return frame.rename(columns=RENAMED)


@contextmanager
def hostile(eng: Engine) -> Iterator[Engine]:
    """``eng``'s engine in a user's session at its worst (the settings of
    tests/test_invariance_session.py: ``HOSTILE_DUCKDB``, ``HOSTILE_POSTGRES`` with a schema of
    look-alike functions first, ``HOSTILE_SPARK``; tests/test_invariance_session_clickhouse.py:
    ``HOSTILE_SESSION``), holding the renamed tables; on leaving, the session's settings must
    be what they were before the calls inside (sqlmetrics pins its own and puts them back).
    DuckDB and ClickHouse: the same connection, its settings set back to the defaults after;
    PostgreSQL: a connection of its own (the user's transaction: sqlmetrics' savepoints);
    Spark: a ``newSession()`` of its own, made once."""
    import test_invariance_session as ts

    if eng.name == "duckdb":
        for name, value in ts.HOSTILE_DUCKDB.items():
            scope = "global" if name in ts.GLOBAL_DUCKDB else "session"
            eng.con.execute(f"set {scope} {name} = {value}")
        before = ts.duckdb_settings(eng.con)
        try:
            yield eng
            assert ts.duckdb_settings(eng.con) == before, "duckdb: the user's settings changed"
        finally:
            for name in ts.HOSTILE_DUCKDB:
                scope = "global" if name in ts.GLOBAL_DUCKDB else "session"
                eng.con.execute(f"reset {scope} {name}")
    elif eng.name == "clickhouse":
        from test_invariance_session_clickhouse import HOSTILE_SESSION

        from sqlmetrics._templating.quoting import quote_literal

        for name, value in HOSTILE_SESSION.items():
            text = quote_literal(value, "clickhouse") if isinstance(value, str) else value
            eng.con.query(f"SET {name} = {text}")
        changed = "select name, value from system.settings where changed order by name"
        before = str(eng.con.query(changed, "CSV"))
        try:
            yield eng
            assert str(eng.con.query(changed, "CSV")) == before, "clickhouse: settings changed"
        finally:
            for name in HOSTILE_SESSION:
                eng.con.query(f"SET {name} = DEFAULT")
    elif eng.name == "postgres":
        if "postgres" not in _HOSTILE:
            _HOSTILE["postgres"] = ts.hostile_pg_engine(eng.con, ts.HOSTILE_POSTGRES)
        # a transaction of the user's (sqlmetrics' savepoints), closed on leaving: held open
        # across tests it would block another test's drop table
        with _HOSTILE["postgres"].connect() as conn:
            before = ts.pg_settings(conn)
            assert ("extra_float_digits", "-15") in before
            yield Engine("postgres", conn)
            assert ts.pg_settings(conn) == before, "postgres: the user's settings changed"
    else:
        if "spark" not in _HOSTILE:
            if eng.dialect == "sail":  # a Connect server: another session of it
                from pyspark.sql.connect.session import SparkSession as ConnectSession

                builder = ConnectSession.builder.remote(os.environ["SQLMETRICS_SAIL_URL"])
                session = sail_session(builder, create=True)
            else:
                session = eng.con.newSession()
            # code generation and AQE as users have them (the suite's session interprets
            # and runs without AQE, for speed: tests/conftest.py)
            for key, value in {**SPARK_DEFAULTS, **ts.HOSTILE_SPARK}.items():
                session.conf.set(key, value)
            assert session.conf.get("spark.sql.codegen.factoryMode") == "FALLBACK"
            assert session.conf.get("spark.sql.adaptive.enabled") == "true"
            other = Engine("spark", session)
            for table in TABLES:
                other.load(f"{table}__renamed", renamed_frame(table))
            _HOSTILE["spark"] = other
        other = _HOSTILE["spark"]
        before = ts.spark_conf(other.con)
        yield other
        assert ts.spark_conf(other.con) == before, "spark: the user's settings changed"


#: the hostile PostgreSQL engine and Spark session (one per process, made on first use)
_HOSTILE: dict[str, Any] = {}


def setup_engine(name: str, con: Any) -> Engine:
    engine = Engine(name, con)
    for table, frame in TABLES.items():
        if table == TRAIN:
            engine.load(table, frame)
            engine.load(f"{table}__renamed", frame.rename(columns=RENAMED))
            continue
        engine.load(table, _with_ranks(frame))
        engine.load(f"{table}__renamed", renamed_frame(table))
        if engine.dialect == "spark":  # other rows order and other partitions
            shuffled = con.table(table).repartition(5).orderBy(con.table(table)["score"].desc())
            # materialized: the same other order and partitions for every query, sorted once
            shuffled.repartition(3).localCheckpoint().createOrReplaceTempView(f"{table}__shuffled")
        else:
            engine.load(f"{table}__shuffled", _shuffled(_with_ranks(frame), 7))
        for value in SLICES:
            engine.view(
                slice_view(table, value), f'select * from "{table}" where {slice_filter(value)}'
            )
    return engine


@pytest.fixture(scope="module")
def duckdb_engine() -> Iterator[Engine]:
    con = duckdb.connect()
    yield setup_engine("duckdb", con)
    con.close()


@pytest.fixture(scope="module")
def postgres_engine(pg_engine: Any) -> Engine:
    return setup_engine("postgres", pg_engine)


@pytest.fixture(scope="module")
def clickhouse_engine(chdb_session: Any) -> Engine:
    return setup_engine("clickhouse", chdb_session)


@pytest.fixture(scope="module")
def spark_engine(spark: Any) -> Engine:
    return setup_engine("spark", spark)


def get_engine(name: str, request: pytest.FixtureRequest) -> Engine:
    return request.getfixturevalue(f"{name}_engine")  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- running metrics


def evaluate_frame(
    engine: Engine | None,
    table: Any,
    specs: Sequence[MetricSpec],
    columns: dict[str, str],
    by: str | None,
) -> pd.DataFrame:
    """One evaluate call over ``specs`` (all of one column set)."""
    train: dict[str, Any] = {}
    if family(specs[0]) == "beyond":
        train = {"train": TRAIN if engine is not None else TABLES[TRAIN]}
        if isinstance(table, str) and table.endswith("__renamed"):
            train = {"train": f"{TRAIN}__renamed"}
    return quiet(  # type: ignore[no-any-return]
        sqlmetrics.evaluate,
        table,
        [eval_name(s) for s in specs],
        con=None if engine is None else engine.con,
        by=by,
        **columns,
        **train,
    )


def function_kwargs(spec: MetricSpec, columns: dict[str, str], train: Any) -> dict[str, Any]:
    """The keyword arguments of ``spec``'s public function for ``columns``."""
    function = getattr(sqlmetrics, spec.function)
    signature = inspect.signature(function).parameters
    kwargs: dict[str, Any] = {}
    for role, col in columns.items():
        if family(spec) == "multiclass_scores" and role in ("group", "item"):
            role = {"group": "row_id", "item": "class_col"}[role]
        kwargs[role] = col
    if spec.average is not None:
        kwargs["average"] = spec.average
    if spec.takes_k:
        kwargs["k"] = K
    if "train" in signature and family(spec) == "beyond":
        kwargs["train"] = train
    for name in spec.params:  # an option the function requires (fbeta's beta)
        parameter = signature.get(name)
        if parameter is not None and parameter.default is inspect.Parameter.empty:
            kwargs[name] = default_of(spec, name)
    return kwargs


def function_value(engine: Engine, table: str, spec: MetricSpec, columns: dict[str, str]) -> Any:
    train = f"{TRAIN}__renamed" if table.endswith("__renamed") else TRAIN
    kwargs = function_kwargs(spec, columns, train)
    value = quiet(getattr(sqlmetrics, spec.function), table, con=engine.con, **kwargs)
    # a result with bounds (auc_bounds' AucBounds): evaluate gives its estimate
    return getattr(value, "estimate", value)


def table_frame(
    engine: Engine | None, table: Any, spec: MetricSpec, columns: dict[str, str], by: str | None
) -> pd.DataFrame:
    """A table metric's frame: its function with ``by=`` where it takes one, else its kernel."""
    con = None if engine is None else engine.con
    function = getattr(sqlmetrics, spec.function)
    if "by" in inspect.signature(function).parameters:
        kwargs = function_kwargs(spec, columns, None)
        return quiet(function, table, con=con, by=by, **kwargs)  # type: ignore[no-any-return]
    roles = {r.name: columns.get(r.name) for r in spec.roles}
    return quiet(compute, spec.name, table, con=con, columns=roles, params={}, by=by)  # type: ignore[no-any-return]


def batches(
    specs: Sequence[MetricSpec], weight: str | None = "w"
) -> dict[tuple[Any, ...], list[MetricSpec]]:
    """Scalar metrics grouped by (table, column set): one evaluate call each."""
    out: dict[tuple[Any, ...], list[MetricSpec]] = {}
    for spec in specs:
        key = (table_of(spec), tuple(sorted(columns_of(spec, weight).items())))
        out.setdefault(key, []).append(spec)
    return out


# --------------------------------------------------------------------------- comparing
def _normal(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(float(value)) else float(value)
    if isinstance(value, (np.integer, np.bool_, bool)):
        return int(value)
    return value


def same_bits(a: Any, b: Any) -> bool:
    """Equal values: floats by ``==`` (the same number), NaN and NULL equal to each other."""
    a, b = _normal(a), _normal(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and float(a) == float(b)
    return bool(a == b) or str(a) == str(b)


def assert_same_rows(
    expected: pd.DataFrame, got: pd.DataFrame, columns: Sequence[str], where: str
) -> None:
    assert len(expected) == len(got), f"{where}: {len(expected)} rows vs {len(got)}"
    for column in columns:
        for i, (a, b) in enumerate(zip(expected[column], got[column])):
            assert same_bits(a, b), f"{where}: column {column!r} row {i}: {a!r} vs {b!r}"


def count_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in ("n_rows", "n_groups") if c in frame.columns]


# --------------------------------------------------------------------------- applicability
#: invariance -> metric -> why it does not apply; every other registered metric is checked
NOT_APPLICABLE: dict[str, dict[str, str]] = {
    "weights": {
        s.name: "it takes no weight column" for s in REGISTRY.values() if not has_weight(s)
    },
    "ranks": {
        s.name: "not rank_based: its value reads the scores themselves (a threshold, a "
        "probability, equal-width buckets or a reported threshold column)"
        for s in REGISTRY.values()
        if not getattr(s, "rank_based", False)
    },
    "evaluate": {
        s.name: "a table metric (a curve, counts or a report): evaluate takes one value per "
        "slice; its function and render() are compared in 'render'"
        for s in TABLE_METRICS
    },
}
INVARIANCES = ("slices", "shuffle", "threads", "weights", "names", "ranks", "evaluate", "render")
#: the engines of each invariance: Spark runs the slices, the row order, the names and the
#: weights (one query costs it seconds); threads are DuckDB's setting
ENGINES_OF = {
    "slices": ENGINES,
    "shuffle": ENGINES,
    "names": ENGINES,
    "threads": ("duckdb",),
    "weights": ENGINES,
    "ranks": QUICK_ENGINES,
    "evaluate": QUICK_ENGINES,
    "render": QUICK_ENGINES,
}


def case_params(invariance: str, slices: bool = False) -> list[Any]:
    """pytest params (engine, metric[, slice]) of the metrics ``invariance`` applies to."""
    excused = NOT_APPLICABLE.get(invariance, {})
    out = []
    for engine in ENGINES_OF[invariance]:
        for spec in REGISTRY.values():
            if spec.name in excused:
                continue
            for value in SLICES if slices else ("-",):
                args = (engine, spec.name, value) if slices else (engine, spec.name)
                label = "null" if value is None else value
                ident = f"{engine}-{spec.name}" + (f"-{label}" if slices else "")
                out.append(pytest.param(*args, id=ident))
    return out


# --------------------------------------------------------------------------- cached runs
_CACHE: dict[tuple[Any, ...], Any] = {}


def cached(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


def by_frame(
    engine: Engine,
    spec: MetricSpec,
    table: str,
    *,
    weight: str | None = "w",
    score: str | None = None,
    rename: dict[str, str] | None = None,
    by: str = "seg",
    pool: Sequence[MetricSpec] = SCALARS,
) -> pd.DataFrame:
    """The metric's ``by=`` frame on ``engine``; a scalar metric's is one evaluate call with
    every metric of ``pool`` that reads the same columns of the same table (cached)."""

    def cols(s: MetricSpec) -> dict[str, str]:
        out = columns_of(s, weight, rename)
        if score is not None and "score" in out:
            out["score"] = score
        return out

    columns = cols(spec)
    if spec.output == "table":
        return cached(  # type: ignore[no-any-return]
            ("table", engine.name, spec.name, table, tuple(sorted(columns.items())), by),
            lambda: table_frame(engine, table, spec, columns, by),
        )
    specs = [s for s in pool if cols(s) == columns and table_of(s) == table_of(spec)]
    key = (
        "eval",
        engine.name,
        table,
        tuple(sorted(columns.items())),
        by,
        tuple(s.name for s in specs),
    )
    return cached(key, lambda: evaluate_frame(engine, table, specs, columns, by))  # type: ignore[no-any-return]


def slice_rows(frame: pd.DataFrame, value: str | None, by: str = "seg") -> pd.DataFrame:
    rows = frame[frame[by].isna()] if value is None else frame[frame[by] == value]
    return rows.drop(columns=[by]).reset_index(drop=True)


def metric_columns(spec: MetricSpec, frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that ``spec`` gives (its value and the counts)."""
    if spec.output == "table":
        return [c for c in frame.columns if c != "seg"]
    return [eval_name(spec), *count_columns(frame)]


# --------------------------------------------------------------------------- the checks
def test_every_metric_is_covered_or_excused() -> None:
    """No registered metric is forgotten: each invariance checks it or excuses it, with a
    reason that holds (a weightless metric, a table output, a metric not rank_based)."""
    for invariance in INVARIANCES:
        excused = NOT_APPLICABLE.get(invariance, {})
        assert set(excused) <= set(REGISTRY), f"{invariance}: stale {set(excused) - set(REGISTRY)}"
        assert all(reason.strip() for reason in excused.values()), invariance
        covered = {p.values[1] for p in case_params(invariance)}
        assert covered | set(excused) == set(REGISTRY), (
            f"{invariance}: forgotten {sorted(set(REGISTRY) - covered - set(excused))}"
        )
        assert not covered & set(excused), invariance
    for name in NOT_APPLICABLE["weights"]:
        assert not has_weight(REGISTRY[name]), name
    for name in NOT_APPLICABLE["evaluate"]:
        assert REGISTRY[name].output == "table", name
    for spec in REGISTRY.values():
        assert spec.name in NOT_APPLICABLE["ranks"] or spec.rank_based, spec.name
        if spec.rank_based:
            assert any(r.name == "score" for r in spec.roles), spec.name
        # every column the metric needs is in its family's column set
        mapped = columns_of(spec)
        missing = [r.name for r in spec.roles if r.required and r.name not in mapped]
        assert not missing, f"{spec.name}: no column for {missing} in COLUMNS[{family(spec)!r}]"


def test_the_data_has_every_kind_of_slice() -> None:
    run = TABLES["inv_run"]
    sizes = run.groupby("seg", dropna=False).size()
    assert run["seg"].isna().sum() > 1 and sizes["one"] == 1
    norel = run[run["seg"] == "norel"]
    assert norel["g"].nunique() > 1 and (norel["rel"] == 0).all()
    assert (run[run["seg"] != "norel"].groupby("g")["rel"].max() > 0).any()
    assert run.duplicated(["score"]).sum() > len(run) / 2  # heavy ties
    assert set(TABLES["inv_scores"]["seg"].dropna()) == {"a", "b", "one", "norel"}


@pytest.mark.parametrize(("engine", "metric", "value"), case_params("slices", slices=True))
def test_slice_equals_the_metric_on_its_rows(
    engine: str, metric: str, value: str | None, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    sliced = slice_rows(by_frame(eng, spec, table), value)
    view = slice_view(table, value)
    columns = columns_of(spec)
    if spec.output == "table":
        alone = table_frame(eng, view, spec, columns, None)
        where = f"{metric} slice {value!r} on {engine}"
        assert list(alone.columns) == list(sliced.columns), where
        assert_same_rows(alone, sliced, list(alone.columns), where)
        return
    alone = by_frame_alone(eng, spec, view)
    where = f"{metric} slice {value!r} on {engine}"
    assert len(sliced) == 1, f"{where}: {len(sliced)} rows"
    assert_same_rows(alone, sliced, metric_columns(spec, alone), where)
    if engine != "spark":  # the function itself (Spark: evaluate only, a query costs ~1 s)
        got = function_value(eng, view, spec, columns)
        assert same_bits(got, sliced[eval_name(spec)].iloc[0]), f"{where}: function {got!r}"


def by_frame_alone(engine: Engine, spec: MetricSpec, view: str) -> pd.DataFrame:
    """evaluate over a slice's view, without by (one row), batched with its column set."""
    columns = columns_of(spec)
    specs = [s for s in SCALARS if columns_of(s) == columns and table_of(s) == table_of(spec)]
    key = ("alone", engine.name, view, tuple(sorted(columns.items())))
    return cached(key, lambda: evaluate_frame(engine, view, specs, columns, None))  # type: ignore[no-any-return]


@pytest.mark.parametrize(("engine", "metric"), case_params("shuffle"))
def test_shuffled_rows_give_the_same_bits(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    a = by_frame(eng, spec, table)
    b = by_frame(eng, spec, f"{table}__shuffled")
    assert list(a.columns) == list(b.columns)
    assert_same_rows(a, b, ["seg", *metric_columns(spec, a)], f"{metric} shuffled on {engine}")


#: issue 43: the ranking metrics whose mean over groups takes group_weight=
GROUP_WEIGHTED = [s for s in SCALARS if any(r.name == "group_weight" for r in s.roles)]


@pytest.mark.parametrize("engine", [pytest.param(e, id=e) for e in ENGINES_OF["shuffle"]])
def test_group_weights_keep_the_invariances(engine: str, request: pytest.FixtureRequest) -> None:
    """Every ranking metric with group_weight= (one evaluate call, by the slice column): the
    same bits on shuffled rows, and weights all 1 give the unweighted values bit for bit."""
    eng = get_engine(engine, request)
    plain = COLUMNS["ranking"]
    weighted = {**plain, "group_weight": "gw"}
    a = evaluate_frame(eng, "inv_run", GROUP_WEIGHTED, weighted, "seg")
    b = evaluate_frame(eng, "inv_run__shuffled", GROUP_WEIGHTED, weighted, "seg")
    names = [c for c in a.columns if c != "seg"]
    assert len(names) > 20
    assert_same_rows(a, b, ["seg", *names], f"group_weight= shuffled on {engine}")
    ones = evaluate_frame(eng, "inv_run", GROUP_WEIGHTED, {**plain, "group_weight": "one"}, "seg")
    alone = evaluate_frame(eng, "inv_run", GROUP_WEIGHTED, plain, "seg")
    assert_same_rows(alone, ones, ["seg", *names], f"group_weight= of 1 on {engine}")


def _big(frame: pd.DataFrame, copies: int, key: str) -> pd.DataFrame:
    """``copies`` copies of ``frame``, each with its own ``key`` values, shuffled."""
    step = int(frame[key].max()) + 1
    parts = [frame.assign(**{key: frame[key] + i * step}) for i in range(copies)]
    return _shuffled(pd.concat(parts, ignore_index=True), 11)


BIG: dict[str, pd.DataFrame] = {}


def big_tables() -> dict[str, pd.DataFrame]:
    if not BIG:
        BIG["inv_run"] = _big(TABLES["inv_run"], 1000, "g")
        BIG["inv_scores"] = _big(TABLES["inv_scores"], 1000, "row_id")
    return BIG


def threads_frame(spec: MetricSpec, threads: int) -> pd.DataFrame:
    data = big_tables()[table_of(spec)]
    columns = columns_of(spec)

    def run() -> pd.DataFrame:
        before = sqlmetrics.configure()["threads"]
        sqlmetrics.configure(threads=threads)
        try:
            if spec.output == "table":
                return table_frame(None, data, spec, columns, "seg")
            specs = [
                s for s in SCALARS if columns_of(s) == columns and table_of(s) == table_of(spec)
            ]
            return evaluate_frame(None, data, specs, columns, "seg")
        finally:
            sqlmetrics.configure(threads=int(before))

    key = (
        "threads",
        threads,
        spec.name if spec.output == "table" else None,
        table_of(spec),
        tuple(sorted(columns.items())),
    )
    return cached(key, run)  # type: ignore[no-any-return]


@pytest.mark.slow  # some 280,000 rows (DuckDB splits its scans only on a table that large)
@pytest.mark.parametrize(("engine", "metric"), case_params("threads"))
def test_one_and_two_threads_give_the_same_bits(engine: str, metric: str) -> None:
    spec = REGISTRY[metric]
    a, b = threads_frame(spec, 1), threads_frame(spec, 2)
    assert len(a) >= len(SLICES) - 1
    assert_same_rows(a, b, ["seg", *metric_columns(spec, a)], f"{metric}: 1 vs 2 threads")


@pytest.mark.parametrize(("engine", "metric"), case_params("weights"))
def test_weights_of_one_give_the_unweighted_value(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    weighted = by_frame(eng, spec, table, weight="one")
    plain = by_frame(eng, spec, table, weight=None)
    assert_same_rows(
        plain, weighted, ["seg", *metric_columns(spec, plain)], f"{metric} on {engine}"
    )


@pytest.mark.parametrize(("engine", "metric"), case_params("names"))
def test_quoted_mixed_case_dotted_spaced_names(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    plain = by_frame(eng, spec, table)
    with hostile(eng) as bad:
        renamed = by_frame(bad, spec, f"{table}__renamed", rename=RENAMED, by=RENAMED["seg"])
    renamed = renamed.rename(columns={RENAMED["seg"]: "seg"})
    where = f"{metric} on {engine}: renamed columns, -0.0 scores, a hostile session"
    assert list(plain.columns) == list(renamed.columns), where
    assert_same_rows(plain, renamed, list(plain.columns), where)


RANK_BASED = [s for s in SCALARS if s.rank_based]


@pytest.mark.parametrize(("engine", "metric"), case_params("ranks"))
def test_increasing_transform_of_scores_keeps_rank_metrics(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    plain = by_frame(eng, spec, table, pool=RANK_BASED)
    for score in ("score_x4", "score_p1"):
        moved = by_frame(eng, spec, table, score=score, pool=RANK_BASED)
        assert_same_rows(
            plain, moved, ["seg", *metric_columns(spec, plain)], f"{metric} {score} on {engine}"
        )


def test_the_zero_scores_hold_both_signs_and_both_labels() -> None:
    for table in ("inv_run", "inv_scores"):
        plain = TABLES[table]
        frame = invariance_data.with_signed_zeros(plain)
        zero = frame[frame["score"] == 0.0]
        assert (plain["score"] == 0.0).equals(frame["score"] == 0.0), table
        assert not np.signbit(plain["score"].to_numpy()).any(), table
        negative = np.signbit(zero["score"].to_numpy())
        assert 0 < negative.sum() < len(zero), table
        for sign in (True, False):  # positives and negatives among -0.0 and among 0.0
            assert zero["label"][negative == sign].nunique() == 2, (table, sign)


def _render_value(
    eng: Engine, spec: MetricSpec, table: str, columns: dict[str, str]
) -> pd.DataFrame:
    train = {"train": TRAIN} if family(spec) == "beyond" else {}
    name = eval_name(spec) if spec.output == "scalar" else spec.name
    sql = sqlmetrics.render(name, table, dialect=eng.dialect, **columns, **train)
    return eng.sql(sql)


@pytest.mark.parametrize(("engine", "metric"), case_params("evaluate"))
def test_evaluate_equals_the_function(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    columns = columns_of(spec)
    frame = evaluate_frame(eng, table, [spec], columns, None)
    value = function_value(eng, table, spec, columns)
    assert same_bits(frame[eval_name(spec)].iloc[0], value), (
        f"{metric} on {engine}: {frame} vs {value!r}"
    )


@pytest.mark.parametrize(("engine", "metric"), case_params("render"))
def test_render_run_by_hand_equals_the_function(
    engine: str, metric: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    spec = REGISTRY[metric]
    table = table_of(spec)
    columns = columns_of(spec)
    by_hand = _render_value(eng, spec, table, columns)
    if spec.output == "table":
        expected = table_frame(eng, table, spec, columns, None)
        shared = [c for c in expected.columns if c in by_hand.columns]
        assert shared, f"{metric}: no common column in {list(by_hand.columns)}"
        assert_same_rows(expected, by_hand, shared, f"{metric} rendered on {engine}")
        return
    value = function_value(eng, table, spec, columns)
    assert same_bits(by_hand[spec.name].iloc[0], value), (
        f"{metric} on {engine}: {by_hand} vs {value!r}"
    )


# --------------------------------------------------------------------------- option variants
#: issue 27's options that change ranking values, which the registry-wide checks above run at
#: their defaults only: nDCG's gain map (``gains=``) and the condensed list (``judged_only=``,
#: with qrels: a judged part of inv_run, the other items unjudged, and judged items the run
#: lacks). Each through the same invariances, on every engine: slices against their rows, row
#: order (Spark: other partitions), quoted names, increasing score transforms, the function.
VARIANT_METRICS = [
    eval_name(REGISTRY[name])
    for name in ("ndcg", "dcg", "map", "precision_at_k", "mrr", "r_precision", "err", "infap",
                 "bpref", "judged", "set_f", "num_rel_ret", "num_ret")
]  # fmt: skip
VARIANTS: dict[str, dict[str, Any]] = {
    "gains": {"gains": {0: 0, 1: 1, 2: 3, 3: 10}},
    "judged_only": {"judged_only": True},
}
QRELS_RENAMED = {"g": "User", "item": "Item Id", "rel": "Rel.Grade"}


def _qrels() -> pd.DataFrame:
    """Two of three run rows judged (their grade), and a judged relevant and non-relevant
    item each query of slice a lacks."""
    run = TABLES["inv_run"]
    judged = run[(run["g"] + run["item"]) % 3 != 0][["g", "item", "rel"]]
    lacking = [
        (g, 100 * (1 + grade) + g, grade)
        for g in run.loc[run["seg"] == "a", "g"].unique()
        for grade in (2, 0)
    ]
    extra = pd.DataFrame(lacking, columns=["g", "item", "rel"]).astype("int64")
    return pd.concat([judged, extra], ignore_index=True)


_QRELS_LOADED: set[str] = set()


def variant_frame(
    eng: Engine, variant: str, table: str, score: str = "score", by: str | None = "seg"
) -> pd.DataFrame:
    """evaluate of VARIANT_METRICS with ``variant``'s option (judged_only: with the qrels)."""
    if eng.name not in _QRELS_LOADED:
        qrels = _qrels()
        eng.load("inv_qrels", qrels)
        eng.load("inv_qrels__shuffled", _shuffled(qrels, 5))
        eng.load("inv_qrels__renamed", qrels.rename(columns=QRELS_RENAMED))
        _QRELS_LOADED.add(eng.name)
    renamed = table.endswith("__renamed")
    names = RENAMED if renamed else {c: c for c in RENAMED}
    columns = {"group": names["g"], "item": names["item"], "score": score, "label": names["rel"]}
    if renamed:
        columns["score"] = RENAMED["score"]
    extra: dict[str, Any] = dict(VARIANTS[variant])
    if variant == "judged_only":
        qrels = "inv_qrels__renamed" if renamed else "inv_qrels"
        extra["qrels"] = "inv_qrels__shuffled" if table.endswith("__shuffled") else qrels
    frame = quiet(
        sqlmetrics.evaluate,
        table,
        VARIANT_METRICS,
        con=eng.con,
        by=None if by is None else names[by],
        **columns,
        **extra,
    )
    return frame.rename(columns={names["seg"]: "seg"})  # type: ignore[no-any-return]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("engine", ENGINES)
def test_option_variants_keep_the_invariances(
    engine: str, variant: str, request: pytest.FixtureRequest
) -> None:
    eng = get_engine(engine, request)
    base = variant_frame(eng, variant, "inv_run")
    columns = [c for c in base.columns if c != "seg"]
    for other in ("inv_run__shuffled", "inv_run__renamed"):
        got = variant_frame(eng, variant, other)
        assert list(got.columns) == list(base.columns), other
        assert_same_rows(base, got, list(base.columns), f"{variant} {other} on {engine}")
    moved = variant_frame(eng, variant, "inv_run", score="score_x4")
    assert_same_rows(base, moved, list(base.columns), f"{variant} score x4 on {engine}")
    # Spark: one slice (a query costs it seconds), the one with judged items the run lacks
    for value in ("a",) if engine == "spark" else ("a", None, "norel"):
        alone = variant_frame(eng, variant, slice_view("inv_run", value), by=None)
        sliced = slice_rows(base, value)
        assert_same_rows(alone, sliced, columns, f"{variant} slice {value!r} on {engine}")
    if engine != "spark":  # the functions; the option changes the values
        default = variant_frame(eng, variant, "inv_run", by=None)  # the option changes values
        qrels = {"qrels": "inv_qrels"} if variant == "judged_only" else {}
        plain = quiet(
            sqlmetrics.evaluate, "inv_run", VARIANT_METRICS, con=eng.con, group="g", item="item",
            label="rel", **qrels,
        )  # fmt: skip
        assert any(not same_bits(default[c].iloc[0], plain[c].iloc[0]) for c in VARIANT_METRICS)
        extra = dict(VARIANTS[variant])
        if variant == "judged_only":
            extra["qrels"] = "inv_qrels"
        functions = (
            (sqlmetrics.ndcg, K, f"ndcg@{K}"),
            (sqlmetrics.mean_average_precision, K, f"map@{K}"),
        )
        for function, k, name in functions:
            if variant == "gains" and function is not sqlmetrics.ndcg:  # gains=: ndcg only
                continue
            got = quiet(
                function, "inv_run", con=eng.con, group="g", item="item", label="rel", k=k,
                **extra,
            )  # fmt: skip
            assert same_bits(got, default[name].iloc[0]), (variant, name, engine)
