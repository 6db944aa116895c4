"""Dialects (issues 10, 25): one set of templates rendered for seven SQL dialects.

- Every registered metric, with each of its option variants (``VARIANTS``, built from the
  registry; a completeness test checks that no metric is forgotten), renders for every dialect
  with no bare decimal literal (``1.0`` is DECIMAL on most engines).
- PostgreSQL and ClickHouse: each metric's two-slice variant (``SHAPE_VARIANTS``), rendered,
  runs by hand on the real engine (the throwaway server of ``pg_engine``; in-process
  ClickHouse, chdb, with the settings the backend sets) and matches DuckDB (1e-9; ClickHouse
  1e-12), same rows in the same order, on a 2k-row table with tied scores and a NULL slice:
  render-level parity, independent of the ``con=`` backends (a statement costs milliseconds
  there). Every option value of every metric, with two slice columns too, runs on every
  engine, Spark included, in the engine contract suite (tests/test_engines.py,
  ``engine_variants.CASES``: through ``con=``, the same templates rendered in the engine's
  dialect; its calls of kind ``render`` run rendered SQL by hand on each engine).
- BigQuery, Snowflake and Trino are rendered only: each render parses back with sqlglot in
  that dialect at its strictest error level.
- Golden SQL per dialect for a few metrics (tables of dialect -> expected SQL), errors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
import sqlglot
from conftest import chdb_table

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import SETTINGS as _CH_SETTINGS
from sqlmetrics._backends.files import reader_sql
from sqlmetrics._core.registry import PARAMS, REGISTRY, MetricSpec
from sqlmetrics._metrics.ranking_ir import COUNTS
from sqlmetrics._metrics.ranking_retrieval import NO_TIE_AVERAGE
from sqlmetrics._templating import templates as _templates
from sqlmetrics._templating.literals import FLOAT_TYPES, sql_double
from sqlmetrics._templating.quoting import quote_ident, quote_literal, quote_table
from sqlmetrics.errors import InvalidParameterError

RENDERED_ONLY = ("bigquery", "snowflake", "trino")
#: the settings ClickHouseBackend gives each statement (a SETTINGS clause of its own)
CLICKHOUSE_SETTINGS = ", ".join(f"{k} = {v}" for k, v in _CH_SETTINGS.items())
RUN = ("postgres", "spark")
GOLDEN = Path(__file__).resolve().parent / "golden" / "dialects"

# --------------------------------------------------------------------------- variants


def _columns(spec: MetricSpec) -> dict[str, str]:
    """The test table's columns for the metric's roles (weight and prediction left out)."""
    if spec.family == "ranking":
        return {"label": "rel"}
    if spec.family == "beyond":  # train= interactions: the judgments' items (repeated)
        return {"item": "item", "train": "qrels"}
    if spec.family == "multiclass":
        return {"label": "y", "prediction": "y_hat"}
    if spec.family == "multiclass_scores":  # the long table of class scores (table "s")
        return {"group": "row_id", "item": "cls", "score": "score", "label": "label"}
    if any(r.name == "score" and r.kind == "probability" for r in spec.roles):
        return {"label": "label", "score": "prob"}
    return {"label": "label"}


#: option values a metric refuses by design (tested in its own tests): not rendered
REFUSED = (
    {(m, "ties", "average") for m in NO_TIE_AVERAGE}
    | {("hit_ratio", "empty", "one")}
    | {(m, "empty", "one") for m in COUNTS}
)


def _variants() -> list[tuple[str, str, dict[str, Any]]]:
    """(id, metric, render kwargs): defaults, weights, two slice columns (one with NULLs) and
    every value of every option the metric takes."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for name, spec in sorted(REGISTRY.items()):
        base = _columns(spec)
        roles = {r.name for r in spec.roles}
        k: dict[str, Any] = {"k": 10} if spec.takes_k else {}

        def add(tag: str, name: str = name, **kwargs: Any) -> None:
            out.append((f"{name}-{tag}", name, kwargs))

        add("default", **base, **k)
        add("by", **base, **k, by=["country", "day"])
        if "weight" in roles:
            add("weight", **base, weight="w", by="country")
        if "prediction" in roles and spec.family != "multiclass":
            add("prediction", label="label", prediction="pred")
        for param in spec.params:
            allowed = getattr(PARAMS[param].check, "allowed", None)
            if allowed:
                for value in allowed:
                    if (name, param, value) in REFUSED:
                        continue
                    if value != PARAMS[param].default:
                        add(f"{param}={value}", **base, **k, **{param: value})
        if spec.takes_k:
            add("k=1", **base, k=1)
            add("k=None", **base)
        extras: dict[str, list[Any]] = {
            "threshold": [0.35],
            "beta": [2.0],
            "zero_division": [0.0, 1.0],
            "bins": [16],
            "max_points": [25],
            "drop_intermediate": [False],
            "eps": [1e-6],
            "relevance_level": [2],
            "adjusted": [True],
            "weights": ["linear", "quadratic"],
            "max_fpr": [0.5],
            "n_bins": [3],
            # scikit-learn's labels=: the classes reordered, and "x", absent from the data
            "labels": [["c", "x", "a", "b"]],
            "judged_only": [True],
            "gains": [{0: 0, 1: 1, 2: 3}],
            "max_grade": [3],
        }
        for param, values in extras.items():
            if param in spec.params:
                for value in values:
                    add(f"{param}={value}", **base, **k, **{param: value})
        if "multi_class" in spec.params:
            add("ovo-weighted-by", **base, multi_class="ovo", auc_average="weighted", by="country")
        if "pos_label" in spec.params:
            add("pos_label", **{**base, "label": "lab_s"}, pos_label="pos")
        if spec.family == "ranking":
            for missing in ("skip", "zero"):
                add(f"qrels-missing={missing}", **base, **k, qrels="qrels", missing=missing)
            add("qrels-by-group", **base, **k, qrels="qrels", missing="zero", by="group")
            add("ties=average-by", **base, **k, ties="average", by=["country", "day"])
    return out


VARIANTS = _variants()


def _hashable(value: Any) -> Any:
    """An option's value as a set member (``labels=`` takes a list, ``gains=`` a dict)."""
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return tuple(value) if isinstance(value, list) else value


def test_every_metric_has_variants() -> None:
    """No registered metric is forgotten, and every choice of every option is rendered."""
    assert {metric for _, metric, _ in VARIANTS} == set(REGISTRY)
    for name, spec in REGISTRY.items():
        for param in spec.params:
            allowed = getattr(PARAMS[param].check, "allowed", ())
            seen = {
                _hashable(v[2].get(param, PARAMS[param].default)) for v in VARIANTS if v[1] == name
            }
            refused = {v for m, p, v in REFUSED if (m, p) == (name, param)}
            assert set(allowed) - refused <= seen, (name, param)


def rendered(metric: str, kwargs: dict[str, Any], dialect: str, table: str = "t") -> str:
    if REGISTRY[metric].family == "multiclass_scores" and table == "t":
        table = "s"
    return sqlmetrics.render(metric, table, dialect=dialect, **kwargs)


# --------------------------------------------------------------------------- test data


def make_tables(n: int = 2000, seed: int = 7) -> dict[str, pd.DataFrame]:
    """A table with tied scores (two decimals of a coarse grid), NULL slices, weights,
    multiclass labels and graded relevance; and judgments for the ranking metrics."""
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 120, n)
    item = np.zeros(n, dtype=np.int64)
    counters: dict[int, int] = {}
    for i, g in enumerate(group):
        counters[int(g)] = counters.get(int(g), 0) + 1
        item[i] = counters[int(g)]
    score = np.round(rng.integers(0, 40, n) / 40.0 + rng.normal(0, 0.05, n).round(1), 3)
    label = (rng.random(n) < 0.25 + 0.5 * (score > 0.5)).astype(np.int64)
    rel = np.where(label == 1, rng.integers(1, 4, n), 0).astype(np.int64)
    classes = np.array(["a", "b", "c"])
    y = classes[rng.integers(0, 3, n)]
    y_hat = np.where(rng.random(n) < 0.6, y, classes[rng.integers(0, 3, n)])
    country = np.array(["de", "fr", "us", None], dtype=object)[rng.integers(0, 4, n)]
    frame = pd.DataFrame(
        {
            "group": group.astype(np.int64),
            "item": item,
            "score": score,
            "label": label,
            "rel": rel,
            "w": np.round(rng.uniform(0.1, 3.0, n), 2),
            "prob": np.clip(np.round(rng.random(n), 2), 0.0, 1.0),
            "pred": (score >= 0.5).astype(np.int64),
            "y": y,
            "y_hat": y_hat,
            "country": country,
            "day": rng.integers(1, 4, n).astype(np.int64),
            "lab_s": np.where(label == 1, "pos", "neg"),
        }
    )
    # judgments: most judged run items, some unjudged, extra judged items, groups absent
    judged = frame.sample(frac=0.7, random_state=seed)[["group", "item", "rel"]]
    extra = pd.DataFrame(
        {
            "group": rng.integers(0, 140, 300).astype(np.int64),
            "item": rng.integers(1000, 2000, 300).astype(np.int64),
            "rel": rng.integers(0, 4, 300).astype(np.int64),
        }
    )
    qrels = pd.concat([judged, extra]).drop_duplicates(["group", "item"]).reset_index(drop=True)
    # class scores in long form (row id, class, score, 0/1 label): one true class per row
    rows = 400
    truth = rng.integers(0, 3, rows)
    one_hot = np.arange(3) == truth[:, None]
    scores = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(rows), 3).astype(np.int64),
            "cls": np.tile(classes, rows),
            "score": np.round(rng.random((rows, 3)) + 0.3 * one_hot, 1).ravel(),
            "label": one_hot.astype(np.int64).ravel(),
            "w": np.repeat(np.round(rng.uniform(0.1, 3.0, rows), 2), 3),
            "country": np.repeat(
                np.array(["de", "fr", "us", None], dtype=object)[rng.integers(0, 4, rows)], 3
            ),
            "day": np.repeat(rng.integers(1, 4, rows), 3).astype(np.int64),
        }
    )
    return {"t": frame, "qrels": qrels, "s": scores}


TABLES = make_tables()


@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    for name, frame in TABLES.items():
        con.register(f"{name}_frame", frame)
        con.execute(f"create table {quote_ident(name)} as select * from {name}_frame")
    yield con
    con.close()


@pytest.fixture(scope="module")
def pg_tables(pg_engine: Any) -> Any:
    for name, frame in TABLES.items():
        frame.to_sql(name, pg_engine, if_exists="replace", index=False)
    return pg_engine


@pytest.fixture(scope="module")
def spark(spark: Any) -> Iterator[Any]:
    """The session's Spark (tests/conftest.py: local[2], one partition, no UI, UTC) with
    ANSI mode on (Spark 4's default, set explicitly); the test tables as temporary views."""
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    for name, frame in TABLES.items():
        spark.createDataFrame(
            frame.astype(object).where(frame.notna(), None)
        ).createOrReplaceTempView(name)
    yield spark
    for name in TABLES:
        spark.catalog.dropTempView(name)
    spark.conf.set("spark.sql.ansi.enabled", ansi)


@pytest.fixture(scope="module")
def ch(chdb_session: Any) -> Any:
    """The run's chdb session (in-process ClickHouse) with the test tables."""
    for name, frame in TABLES.items():
        chdb_table(chdb_session, name, frame)
    return chdb_session


# --------------------------------------------------------------------------- comparison


def _plain(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (Decimal, np.integer, np.floating, int, float)) and not isinstance(
        value, bool
    ):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def assert_same(expected: pd.DataFrame, got: pd.DataFrame, where: str, rel: float = 1e-9) -> None:
    """Same columns, same rows in the same order, numbers equal to ``rel`` (1e-9)."""
    assert list(got.columns) == list(expected.columns), where
    assert len(got) == len(expected), where
    for column in expected.columns:
        for row, (a, b) in enumerate(zip(expected[column], got[column])):
            a, b = _plain(a), _plain(b)
            if isinstance(a, float) and isinstance(b, float):
                assert b == pytest.approx(a, rel=rel, abs=1e-12), (where, column, row, a, b)
            else:
                assert a == b, (where, column, row, a, b)


def run_duckdb(con: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
    return con.execute(sql).df()


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("dialect", _templates.DIALECTS)
def test_no_bare_decimal_literal(dialect: str) -> None:
    """Every number in the SQL is an integer or an explicit float (``cast(1.0e0 as ...)``)."""
    bare = re.compile(r"(?<![\w.])\d+\.\d*(?![\w.])")
    found = {}
    for vid, metric, kwargs in VARIANTS:
        sql = rendered(metric, kwargs, dialect)
        code = re.sub(r"--[^\n]*", "", sql)  # comments
        code = re.sub(r"'(?:[^'\\]|''|\\.)*'|\"[^\"]*\"|`[^`]*`", "", code)  # literals, names
        hits = bare.findall(code)
        if hits:
            found[vid] = hits
    assert not found


def test_bigquery_has_no_values_constructor() -> None:
    """BigQuery has no ``VALUES`` table constructor (sqlglot parses it; GoogleSQL's analyzer
    refuses it: "Expected keyword JOIN but got ','"): ``labels=``' class rows are an unnested
    array of structs there (sql/_macros/shared/labels.sql)."""
    values = re.compile(r"\(\s*values\b", re.I)
    found = [
        vid
        for vid, metric, kwargs in VARIANTS
        if values.search(rendered(metric, kwargs, "bigquery"))
    ]
    assert not found
    sql = rendered("classification_report", {"label": "y", "labels": ["c", "x"]}, "bigquery")
    assert "unnest([struct(0 as idx, 'c' as class), struct(1 as idx, 'x' as class)])" in sql


@pytest.mark.slow  # sqlglot parses every template: about 9 s idle per dialect
@pytest.mark.parametrize("dialect", RENDERED_ONLY)
def test_rendered_only_dialects_parse(dialect: str) -> None:
    """Every variant parses back in its dialect at sqlglot's strictest error level, and holds
    no 128-bit integer type (sqlglot parses `hugeint` in any dialect silently; none of these
    three has it: tests/test_portability.py)."""
    for vid, metric, kwargs in VARIANTS:
        sql = rendered(metric, kwargs, dialect)
        statements = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
        assert len(statements) == 1 and statements[0] is not None, vid
        int128 = sqlglot.exp.DataType.Type.INT128
        assert not [t for t in statements[0].find_all(sqlglot.exp.DataType) if t.this == int128], (
            vid
        )


@pytest.mark.parametrize("dialect", RENDERED_ONLY)
def test_delong_interval_renders_parse(dialect: str) -> None:
    """render(ci=) of AUC's DeLong interval (its own SQL, not the kernel's: two row windows,
    a join of per-slice counts), by none, one and two slice columns, parses back in the
    rendered-only dialects at sqlglot's strictest error level."""
    for by in (None, "country", ["country", "day"]):
        sql = sqlmetrics.render("auc", "events", by=by, ci=0.95, dialect=dialect)
        assert "own_ranked" in sql  # the default plan, not Spark's
        statements = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
        assert len(statements) == 1 and statements[0] is not None, by


#: the render-level runs on PostgreSQL and ClickHouse: each metric with two slice columns (one
#: with NULLs), the shape every other variant builds on. Every option value of every metric,
#: with two slice columns too, runs on every engine in tests/test_engines.py (through ``con=``,
#: one statement per option variant), and the plan of each shape-changing variant on Spark in
#: tests/test_spark_plan.py; running all of VARIANTS here too (782 statements per engine), and
#: these on Spark (about a second each), ran those cases twice for no code path of their own.
SHAPE_VARIANTS = [v for v in VARIANTS if v[0] == f"{v[1]}-by"]
SHAPE_IDS = [v[0] for v in SHAPE_VARIANTS]


def test_shape_variants_cover_every_metric() -> None:
    assert {metric for _, metric, _ in SHAPE_VARIANTS} == set(REGISTRY)


@pytest.mark.parametrize(("vid", "metric", "kwargs"), SHAPE_VARIANTS, ids=SHAPE_IDS)
def test_postgres_matches_duckdb(
    duck: duckdb.DuckDBPyConnection, pg_tables: Any, vid: str, metric: str, kwargs: dict[str, Any]
) -> None:
    expected = run_duckdb(duck, rendered(metric, kwargs, "duckdb"))
    sql = rendered(metric, kwargs, "postgres")
    with pg_tables.connect() as connection:
        result = connection.exec_driver_sql(sql)
        got = pd.DataFrame(result.fetchall(), columns=list(result.keys()))
    assert_same(expected, got, f"postgres {vid}")


@pytest.mark.parametrize(("vid", "metric", "kwargs"), SHAPE_VARIANTS, ids=SHAPE_IDS)
def test_clickhouse_matches_duckdb(
    duck: duckdb.DuckDBPyConnection, ch: Any, vid: str, metric: str, kwargs: dict[str, Any]
) -> None:
    """Rendered for ClickHouse, run by chdb with the settings the backend sets (standard
    NULLs: outer joins, casts, empty aggregates), DuckDB's rows to 1e-12 (weighted curves and
    per-slice macro averages may differ in the last bits of a float sum ClickHouse adds in
    another order)."""
    expected = run_duckdb(duck, rendered(metric, kwargs, "duckdb"))
    sql = rendered(metric, kwargs, "clickhouse") + "\nSETTINGS " + CLICKHOUSE_SETTINGS
    assert_same(expected, ch.query(sql, "DataFrame"), f"clickhouse {vid}", rel=1e-12)


def test_map_average_ties_is_exact_on_spark(duck: duckdb.DuckDBPyConnection, spark: Any) -> None:
    """The silent bug of issue 10: `1.0`/`0.0` were DECIMAL on Spark and map(ties='average')
    lost digits (0.7538584125560539 for 0.7538583612429687); now every float is a double."""
    kwargs = {"label": "rel", "k": 10, "ties": "average"}
    expected = run_duckdb(duck, rendered("map", kwargs, "duckdb"))["map"].iloc[0]
    got = spark.sql(rendered("map", kwargs, "spark")).toPandas()["map"].iloc[0]
    assert got == pytest.approx(expected, rel=1e-14)


# --------------------------------------------------------------------------- evaluate

EVALUATE = [
    ("mixed", ["auc", "gauc", "precision", "f1", "log_loss", "ndcg@10", "map", "mrr@5"]),
    ("ranking", ["ndcg@10", "recall@5", "hit_rate@3", "r_precision"]),
]


def _evaluate_kwargs(metrics: list[str]) -> dict[str, Any]:
    binary = {"label": "label", "score": "score"}
    ranking_only = all("@" in m or m in ("map", "mrr", "r_precision") for m in metrics)
    return {
        **({"label": "rel"} if ranking_only else binary),
        "group": "group",
        "item": "item",
        "by": ["country", "day"],
        **({} if ranking_only else {"zero_division": 0.0}),
    }


@pytest.mark.parametrize(("name", "metrics"), EVALUATE, ids=[e[0] for e in EVALUATE])
def test_render_evaluate_runs_everywhere(
    duck: duckdb.DuckDBPyConnection,
    pg_tables: Any,
    spark: Any,
    name: str,
    metrics: list[str],
) -> None:
    """The composed statement (NULL-safe slice joins, NULL slices last) matches DuckDB."""
    kwargs = _evaluate_kwargs(metrics)
    expected = run_duckdb(duck, sqlmetrics.render_evaluate("t", metrics, **kwargs))
    assert expected["country"].isna().any()  # the NULL slice is there, and last
    assert expected["country"].iloc[-1] is None or pd.isna(expected["country"].iloc[-1])
    sql = sqlmetrics.render_evaluate("t", metrics, dialect="postgres", **kwargs)
    with pg_tables.connect() as connection:
        result = connection.exec_driver_sql(sql)
        got = pd.DataFrame(result.fetchall(), columns=list(result.keys()))
    assert_same(expected, got, f"postgres evaluate {name}")
    got = spark.sql(sqlmetrics.render_evaluate("t", metrics, dialect="spark", **kwargs))
    assert_same(expected, got.toPandas(), f"spark evaluate {name}")
    for dialect in RENDERED_ONLY:
        sql = sqlmetrics.render_evaluate("t", metrics, dialect=dialect, **kwargs)
        sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)


# --------------------------------------------------------------------------- names and values

ODD = {"label": 'la"b`el', "score": "sc'o\\re", "slice": "se g"}
ODD_POS = "o'k\\"


@pytest.fixture(scope="module")
def odd_frame() -> pd.DataFrame:
    frame = TABLES["t"]
    return pd.DataFrame(
        {
            ODD["label"]: np.where(frame["label"] == 1, ODD_POS, "no"),
            ODD["score"]: frame["score"],
            ODD["slice"]: frame["country"],
        }
    )


def test_hostile_names_and_labels_run_everywhere(
    duck: duckdb.DuckDBPyConnection, pg_tables: Any, spark: Any, odd_frame: pd.DataFrame
) -> None:
    """Columns named with quotes, backticks and backslashes, and a positive label holding a
    quote and a backslash, are quoted the dialect's way: the same result on every engine."""
    kwargs = {"label": ODD["label"], "score": ODD["score"], "by": ODD["slice"]}
    kwargs["pos_label"] = ODD_POS
    duck.register("odd_frame", odd_frame)
    duck.execute('create or replace table "odd_t" as select * from odd_frame')
    odd_frame.to_sql("odd_t", pg_tables, if_exists="replace", index=False)
    spark.createDataFrame(
        odd_frame.astype(object).where(odd_frame.notna(), None)
    ).createOrReplaceTempView("odd_t")
    try:
        for metric in ("auc", "precision"):
            expected = run_duckdb(duck, sqlmetrics.render(metric, "odd_t", **kwargs))
            assert expected[metric].notna().all()
            sql = sqlmetrics.render(metric, "odd_t", dialect="postgres", **kwargs)
            with pg_tables.connect() as connection:
                result = connection.exec_driver_sql(sql)
                got = pd.DataFrame(result.fetchall(), columns=list(result.keys()))
            assert_same(expected, got, f"postgres {metric}")
            got = spark.sql(sqlmetrics.render(metric, "odd_t", dialect="spark", **kwargs))
            assert_same(expected, got.toPandas(), f"spark {metric}")
            for dialect in RENDERED_ONLY:
                sql = sqlmetrics.render(metric, "odd_t", dialect=dialect, **kwargs)
                (tree,) = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
                assert tree is not None
                names = {c.name for c in tree.find_all(sqlglot.exp.Column)}
                assert {ODD["label"], ODD["score"], ODD["slice"]} <= names, dialect
                assert ODD_POS in {
                    s.this for s in tree.find_all(sqlglot.exp.Literal) if s.is_string
                }
    finally:
        spark.catalog.dropTempView("odd_t")
        duck.execute('drop table "odd_t"')


@pytest.mark.parametrize(
    ("dialect", "ident", "literal", "table"),
    [
        ("duckdb", '"a""b"', "'it''s \\'", '"db"."a""b"'),
        ("postgres", '"a""b"', "E'it''s \\\\'", '"db"."a""b"'),
        ("trino", '"a""b"', "'it''s \\'", '"db"."a""b"'),
        ("snowflake", '"a""b"', "'it\\'s \\\\'", '"DB"."a""b"'),
        ("spark", '`a"b`', "('it' || chr(39) || 's ' || chr(92))", '`db`.`a"b`'),
        ("bigquery", '`a"b`', "'it\\'s \\\\'", '`db`.`a"b`'),
    ],
)
def test_quoting_per_dialect(dialect: str, ident: str, literal: str, table: str) -> None:
    assert quote_ident('a"b', dialect) == ident
    assert quote_literal("it's \\", dialect) == literal
    assert quote_table('db.a"b', dialect) == table
    parsed = sqlglot.parse_one(f"select {ident} from {table} where x = {literal}", read=dialect)
    assert parsed.find(sqlglot.exp.Column).name == 'a"b'  # type: ignore[union-attr]
    if dialect not in ("postgres", "spark"):  # E'...' and chr(): read back on the engines
        assert parsed.find(sqlglot.exp.Literal).this == "it's \\"  # type: ignore[union-attr]


def test_backticks_in_names() -> None:
    assert quote_ident("a`b", "spark") == "`a``b`"
    assert quote_ident("a`b", "bigquery") == "`a\\`b`"
    for dialect in ("spark", "bigquery"):
        parsed = sqlglot.parse_one(f"select {quote_ident('a`b', dialect)} from t", read=dialect)
        assert parsed.find(sqlglot.exp.Column).name == "a`b"  # type: ignore[union-attr]


# dialect -> what a macro writes (sqlglot's style: one table per construct)
MACROS: dict[str, tuple[tuple[Any, ...], dict[str, str]]] = {
    "float_type": (
        (),
        {
            "duckdb": "double",
            "postgres": "double precision",
            "spark": "double",
            "sail": "double",
            "bigquery": "float64",
            "snowflake": "double",
            "trino": "double",
            "clickhouse": "Float64",
        },
    ),
    "exact_int": (
        (),
        {
            "duckdb": "hugeint",
            "postgres": "decimal(38, 0)",
            "spark": "decimal(38, 0)",
            "sail": "decimal(38, 0)",
            "bigquery": "bignumeric",
            "snowflake": "number(38, 0)",
            "trino": "decimal(38, 0)",
            "clickhouse": "Int128",
        },
    ),
    "int_sum": (
        ("x",),
        {
            "duckdb": "sum(x)",
            "postgres": "sum(cast(x as bigint))",
            "spark": "sum(cast(x as decimal(38, 0)))",
            "sail": "sum(cast(x as decimal(38, 0)) + 0)",
            "bigquery": "sum(cast(x as bignumeric))",
            "snowflake": "sum(cast(x as number(38, 0)))",
            "trino": "sum(cast(x as decimal(38, 0)))",
            "clickhouse": "sum(cast(x as Int128))",
        },
    ),
    "string_type": (
        (),
        {
            "duckdb": "varchar",
            "postgres": "varchar",
            "spark": "string",
            "sail": "string",
            "bigquery": "string",
            "snowflake": "varchar",
            "trino": "varchar",
            "clickhouse": "Nullable(String)",
        },
    ),
    "float_literal": (
        (0.5,),
        {
            "duckdb": "cast(0.5e0 as double)",
            "postgres": "cast(0.5e0 as double precision)",
            "spark": "cast(0.5e0 as double)",
            "sail": "cast(0.5e0 as double)",
            "bigquery": "cast(0.5e0 as float64)",
            "snowflake": "cast(0.5e0 as double)",
            "trino": "cast(0.5e0 as double)",
            "clickhouse": "cast(0.5e0 as Float64)",
        },
    ),
    "string_literal": (
        ("it's \\",),
        {
            "duckdb": "'it''s \\'",
            "postgres": "E'it''s \\\\'",
            "spark": "('it' || chr(39) || 's ' || chr(92))",
            "sail": "('it' || chr(39) || 's ' || chr(92))",
            "bigquery": "'it\\'s \\\\'",
            "snowflake": "'it\\'s \\\\'",
            "trino": "'it''s \\'",
            "clickhouse": "'it\\'s \\\\'",
        },
    ),
    "as_boolean": (
        ("x",),
        {
            "duckdb": "cast(x as boolean)",
            "postgres": "cast(cast(x as varchar) as boolean)",
            "spark": "cast(x as boolean)",
            "sail": "cast(x as boolean)",
            "bigquery": "cast(cast(x as int64) as bool)",
            "snowflake": "cast(x as boolean)",
            "trino": "cast(x as boolean)",
            "clickhouse": "cast(x as boolean)",
        },
    ),
    "null_safe_equal": (
        ("a", "b"),
        {
            "duckdb": "(a is not distinct from b)",
            # two hashable equalities: PostgreSQL joins on `is not distinct from` by nested loop
            "postgres": "(((a) is null) = ((b) is null) and "
            "coalesce(cast(a as text), '') = coalesce(cast(b as text), ''))",
            "spark": "(a <=> b)",
            "sail": "(a <=> b)",
            "bigquery": "(a is not distinct from b)",
            "snowflake": "(a is not distinct from b)",
            "trino": "(a is not distinct from b)",
            "clickhouse": "(a is not distinct from b)",
        },
    ),
}


def test_null_safe_equal_is_one_term() -> None:
    """`a is not distinct from b = false` reads as `a is not distinct from (b = false)`
    (DuckDB, PostgreSQL, ClickHouse; DataFusion and Polars read `... from b and c` alike):
    the macro's predicate is parenthesized, so it composes as written."""
    sql = _templates.render_macro("null_safe_equal", "1", "2", dialect="duckdb")
    assert duckdb.sql(f"select {sql} = false").fetchall() == [(True,)]  # False unparenthesized


def test_null_safe_equal_is_the_only_spelling() -> None:
    """No template writes `is not distinct from` or `<=>` itself: the dialect macro does."""
    root = Path(sqlmetrics.__file__).resolve().parents[1] / "sql"
    found = []
    for path in sorted(root.rglob("*.sql")):
        if path.name == "dialect.sql":
            continue
        code = re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)
        if re.search(r"is\s+not\s+distinct\s+from|<=>", code, flags=re.I):
            found.append(path.relative_to(root).as_posix())
    assert not found


@pytest.mark.parametrize("name", sorted(MACROS))
def test_dialect_macros(name: str) -> None:
    args, expected = MACROS[name]
    assert set(expected) == set(_templates.DIALECTS)
    for dialect, sql in expected.items():
        assert _templates.render_macro(name, *args, dialect=dialect).strip() == sql, dialect


@pytest.mark.parametrize("dialect", _templates.DIALECTS)
@pytest.mark.parametrize("value", [0.5, 1e-300, 123456.789, -2.0, 1e200])
def test_float_literal_matches_python(dialect: str, value: float) -> None:
    """The macro and Python's literal (zero_division in render_evaluate) agree per dialect."""
    assert _templates.render_macro("float_literal", value, dialect=dialect).strip() == (
        sql_double(value, dialect)
    )
    assert FLOAT_TYPES[dialect] == _templates.render_macro("float_type", dialect=dialect).strip()


# --------------------------------------------------------------------------- files


def test_reader_per_dialect() -> None:
    assert reader_sql("parquet", "'p.parquet'") == "read_parquet('p.parquet')"
    assert reader_sql("csv", "'p.csv'") == "read_csv('p.csv', header = true)"
    assert reader_sql("parquet", "`p.parquet`", "spark") == "parquet.`p.parquet`"
    for dialect in ("postgres", "bigquery", "snowflake", "trino"):
        with pytest.raises(
            InvalidParameterError, match=f"render a table name for dialect {dialect}"
        ):
            reader_sql("parquet", "'p.parquet'", dialect)
    with pytest.raises(InvalidParameterError, match="Spark reads Parquet paths only"):
        reader_sql("csv", "`p.csv`", "spark")


@pytest.mark.parametrize("dialect", ["postgres", "bigquery", "snowflake", "trino"])
def test_file_paths_need_a_table_name(dialect: str) -> None:
    with pytest.raises(
        InvalidParameterError,
        match=(
            rf"render: data='events.parquet' is a Parquet file, which dialect '{dialect}' "
            rf"cannot read in a query; render a table name for dialect {dialect}"
        ),
    ):
        sqlmetrics.render("auc", "events.parquet", dialect=dialect)
    with pytest.raises(InvalidParameterError, match="qrels='j.csv' is a CSV file"):
        sqlmetrics.render_evaluate(
            "t", ["ndcg@10"], group="g", item="i", qrels="j.csv", dialect=dialect
        )


def test_spark_csv_path_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="Spark reads Parquet paths only"):
        sqlmetrics.render("auc", "events.csv", dialect="spark")


def test_spark_reads_a_parquet_path(
    duck: duckdb.DuckDBPyConnection, spark: Any, tmp_path: Path
) -> None:
    path = tmp_path / "events`1.parquet"
    TABLES["t"].to_parquet(path)
    kwargs: dict[str, Any] = {"label": "label", "by": "country", "weight": "w"}
    sql = sqlmetrics.render("auc", str(path), dialect="spark", **kwargs)
    assert f"parquet.`{str(path).replace('`', '``')}`" in sql
    expected = run_duckdb(duck, sqlmetrics.render("auc", "t", **kwargs))
    assert_same(expected, spark.sql(sql).toPandas(), "spark parquet path")


# --------------------------------------------------------------------------- errors, CLI


@pytest.mark.parametrize(
    ("given", "near"), [("postgress", "postgres"), ("Spark", "spark"), ("big_query", "bigquery")]
)
def test_unknown_dialect(given: str, near: str) -> None:
    supported = (
        "Supported dialects: duckdb, postgres, spark, sail, bigquery, snowflake, trino, clickhouse"
    )
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.render("auc", dialect=given)
    assert str(info.value) == (
        f"render: Unknown dialect {given!r} (dialect=). Did you mean {near!r}? {supported}"
    )
    with pytest.raises(InvalidParameterError, match=f"render_evaluate: Unknown dialect {given!r}"):
        sqlmetrics.render_evaluate("t", ["auc"], dialect=given)


def test_unknown_dialect_without_a_near_name() -> None:
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.render("auc", dialect="oracle")
    assert "Did you mean" not in str(info.value)
    assert "Unknown dialect 'oracle' (dialect=). Supported dialects: duckdb," in str(info.value)


def test_cli_render_dialect() -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    result = CliRunner().invoke(
        cli.main, ["render", "ndcg@10", "--dialect", "spark", "--label", "rel"]
    )
    assert result.exit_code == 0, result.output
    assert result.output == sqlmetrics.render("ndcg@10", label="rel", dialect="spark")
    result = CliRunner().invoke(
        cli.main, ["render", "-m", "auc", "-m", "f1", "--dialect", "bigquery", "--by", "day"]
    )
    assert result.exit_code == 0, result.output
    assert result.output == sqlmetrics.render_evaluate(
        "source_table", ["auc", "f1"], by=["day"], dialect="bigquery"
    )
    result = CliRunner().invoke(cli.main, ["render", "auc", "--dialect", "postgress"])
    assert result.exit_code != 0
    assert "Unknown dialect 'postgress' (--dialect). Did you mean 'postgres'?" in result.output


# --------------------------------------------------------------------------- golden SQL

GOLDEN_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "auc": ("auc", {"weight": "w", "by": "country"}),
    # DeLong's interval: the default's two row windows, Spark's per-score running sums
    "auc_delong": ("auc", {"by": "country", "ci": 0.95}),
    "ndcg": ("ndcg", {"k": 10, "by": "country"}),
    "map_average": ("map", {"k": 10, "ties": "average"}),
    "precision": ("precision", {"threshold": 0.3, "pos_label": "yes", "by": ["country", "day"]}),
    "f1_macro": ("f1_macro", {"weight": "w", "by": "country", "zero_division": 1.0}),
}


@pytest.mark.parametrize("dialect", _templates.DIALECTS)
@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_sql_per_dialect(case: str, dialect: str) -> None:
    """Reviewed like code; regenerate with SQLMETRICS_UPDATE_GOLDEN=1."""
    import os

    metric, kwargs = GOLDEN_CASES[case]
    path = GOLDEN / dialect / f"{case}.sql"
    sql = sqlmetrics.render(metric, "events", dialect=dialect, **kwargs)
    if os.environ.get("SQLMETRICS_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
    assert path.exists(), f"no golden SQL {path}: run with SQLMETRICS_UPDATE_GOLDEN=1"
    assert sql == path.read_text()


def test_no_stale_dialect_golden_files() -> None:
    found = {(p.parent.name, p.stem) for p in GOLDEN.glob("*/*.sql")}
    assert found == {(d, c) for d in _templates.DIALECTS for c in GOLDEN_CASES}
