"""Dialects (issue 10): one set of templates rendered for six SQL dialects.

- Every registered metric, with each of its option variants (``VARIANTS``, built from the
  registry; a completeness test checks that no metric is forgotten), renders for every dialect
  with no bare decimal literal (``1.0`` is DECIMAL on most engines).
- PostgreSQL and Spark SQL: the rendered SQL runs on the real engines (the throwaway server of
  ``pg_engine``; Spark local[2] with ANSI mode on) and matches DuckDB to 1e-9, same rows in the
  same order, on a 2k-row table with tied scores and a NULL slice. This is render-level
  parity, independent of the ``con=`` backends.
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

import sqlmetrics
from sqlmetrics import _templates
from sqlmetrics._literals import FLOAT_TYPES, sql_double
from sqlmetrics._source import quote_ident, quote_literal, quote_table, reader_sql
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import PARAMS, REGISTRY, MetricSpec

RENDERED_ONLY = ("bigquery", "snowflake", "trino")
RUN = ("postgres", "spark")
GOLDEN = Path(__file__).resolve().parent / "golden" / "dialects"

# --------------------------------------------------------------------------- variants


def _columns(spec: MetricSpec) -> dict[str, str]:
    """The test table's columns for the metric's roles (weight and prediction left out)."""
    if spec.family == "ranking":
        return {"label": "rel"}
    if spec.family == "multiclass":
        return {"label": "y", "prediction": "y_hat"}
    if any(r.name == "score" and r.kind == "probability" for r in spec.roles):
        return {"label": "label", "score": "prob"}
    return {"label": "label"}


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
        }
        for param, values in extras.items():
            if param in spec.params:
                for value in values:
                    add(f"{param}={value}", **base, **k, **{param: value})
        if "pos_label" in spec.params:
            add("pos_label", **{**base, "label": "lab_s"}, pos_label="pos")
        if spec.family == "ranking":
            for missing in ("skip", "zero"):
                add(f"qrels-missing={missing}", **base, **k, qrels="qrels", missing=missing)
            add("qrels-by-group", **base, **k, qrels="qrels", missing="zero", by="group")
            add("ties=average-by", **base, **k, ties="average", by=["country", "day"])
    return out


VARIANTS = _variants()
IDS = [v[0] for v in VARIANTS]


def test_every_metric_has_variants() -> None:
    """No registered metric is forgotten, and every choice of every option is rendered."""
    assert {metric for _, metric, _ in VARIANTS} == set(REGISTRY)
    for name, spec in REGISTRY.items():
        for param in spec.params:
            allowed = getattr(PARAMS[param].check, "allowed", ())
            seen = {v[2].get(param, PARAMS[param].default) for v in VARIANTS if v[1] == name}
            assert set(allowed) <= seen, (name, param)


def rendered(metric: str, kwargs: dict[str, Any], dialect: str, table: str = "t") -> str:
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
    return {"t": frame, "qrels": qrels}


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
def spark() -> Iterator[Any]:
    """Spark local[2], 4 shuffle partitions, no UI, ANSI mode on (Spark 4's default, set
    explicitly); the test tables as temporary views."""
    from pyspark.sql import SparkSession

    existing = SparkSession.getActiveSession()
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sqlmetrics-dialects")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.ansi.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.conf.set("spark.sql.shuffle.partitions", "4")
    session.conf.set("spark.sql.ansi.enabled", "true")
    for name, frame in TABLES.items():
        session.createDataFrame(
            frame.astype(object).where(frame.notna(), None)
        ).createOrReplaceTempView(name)
    yield session
    for name in TABLES:
        session.catalog.dropTempView(name)
    if existing is None:
        session.stop()


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


def assert_same(expected: pd.DataFrame, got: pd.DataFrame, where: str) -> None:
    """Same columns, same rows in the same order, numbers equal to 1e-9."""
    assert list(got.columns) == list(expected.columns), where
    assert len(got) == len(expected), where
    for column in expected.columns:
        for row, (a, b) in enumerate(zip(expected[column], got[column])):
            a, b = _plain(a), _plain(b)
            if isinstance(a, float) and isinstance(b, float):
                assert b == pytest.approx(a, rel=1e-9, abs=1e-12), (where, column, row, a, b)
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


@pytest.mark.parametrize("dialect", RENDERED_ONLY)
def test_rendered_only_dialects_parse(dialect: str) -> None:
    """Every variant parses back in its dialect at sqlglot's strictest error level."""
    for vid, metric, kwargs in VARIANTS:
        sql = rendered(metric, kwargs, dialect)
        statements = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
        assert len(statements) == 1 and statements[0] is not None, vid


@pytest.mark.parametrize(("vid", "metric", "kwargs"), VARIANTS, ids=IDS)
def test_postgres_matches_duckdb(
    duck: duckdb.DuckDBPyConnection, pg_tables: Any, vid: str, metric: str, kwargs: dict[str, Any]
) -> None:
    expected = run_duckdb(duck, rendered(metric, kwargs, "duckdb"))
    sql = rendered(metric, kwargs, "postgres")
    with pg_tables.connect() as connection:
        result = connection.exec_driver_sql(sql)
        got = pd.DataFrame(result.fetchall(), columns=list(result.keys()))
    assert_same(expected, got, f"postgres {vid}")


@pytest.mark.parametrize(("vid", "metric", "kwargs"), VARIANTS, ids=IDS)
def test_spark_matches_duckdb(
    duck: duckdb.DuckDBPyConnection, spark: Any, vid: str, metric: str, kwargs: dict[str, Any]
) -> None:
    expected = run_duckdb(duck, rendered(metric, kwargs, "duckdb"))
    got = spark.sql(rendered(metric, kwargs, "spark")).toPandas()
    assert_same(expected, got, f"spark {vid}")
