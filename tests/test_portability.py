"""Warehouse portability traps of the rendered-only dialects (issue 25): BigQuery, Snowflake,
Trino, fixed in sql/_macros/shared/dialect.sql and sqlmetrics/_templating.

These engines cannot run here, so their renders are parsed with sqlglot in their dialect and
the casts, types and names are read off the tree (never a substring); the same macros run on
the engines that can (DuckDB; PostgreSQL, ClickHouse and Spark in their tiers) with identical
values. sqlglot passes what it does not know silently (it reads ``hugeint`` as INT128 in any
dialect, and BigQuery's refused FLOAT64-to-BOOL cast parses fine), so a test that only parses
would not see these traps.

- BigQuery casts INT64 and BOOL to BOOL, but not FLOAT64: a 0.0/1.0 label goes through INT64.
- Snowflake stores a name created unquoted in uppercase: a simple lowercase name is written
  ``"CLICK"``; other names exactly. Its float type is written ``double`` (``float`` is 32-bit
  in DuckDB, Spark and ClickHouse, where a rendered query may be moved or transpiled).
- Rank sums grow as n^2: a bigint sum overflows at about 3e9 rows (BigQuery, Trino and Spark
  sum a bigint as a bigint; ClickHouse wraps around): ``int_sum`` sums in a 38-digit type.
- ``hugeint`` is DuckDB's alone: no other render holds an INT128.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
import sqlglot
from conftest import chdb_table
from sqlglot import exp
from sqlglot.tokens import TokenType
from test_dialects import VARIANTS, rendered

import sqlmetrics
from sqlmetrics._core.registry import get_spec
from sqlmetrics._engine.run import check_params
from sqlmetrics._metrics.multiclass_roc import wide_sql, wide_view
from sqlmetrics._templating import templates as _templates
from sqlmetrics._templating.quoting import quote_ident, quote_table

DType = exp.DataType.Type

#: one variant of every registered metric (its first), as test_dialects builds them
ONE_PER_METRIC = list(
    {metric: (vid, metric, kwargs) for vid, metric, kwargs in VARIANTS[::-1]}.values()
)


def parse(sql: str, dialect: str) -> exp.Expression:
    (tree,) = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
    assert tree is not None
    return tree


def label_rows(kind: str) -> list[Any]:
    """A label column of ``kind`` (bool, int, float) holding false/true, 0/1 or 0.0/1.0."""
    values = [0, 1, 1, 0, 1]
    return [{"bool": bool, "int": int, "float": float}[kind](v) for v in values]


# --------------------------------------------------------------------------- BigQuery labels


def test_bigquery_label_is_cast_through_int64() -> None:
    """Every cast to BOOL in the BigQuery renders takes an INT64 cast of the column (BigQuery
    refuses CAST(FLOAT64 AS BOOL); INT64 takes a BOOL, an INT64 or a FLOAT64 column)."""
    found = 0
    for vid, metric, kwargs in ONE_PER_METRIC:
        tree = parse(rendered(metric, kwargs, "bigquery"), "bigquery")
        for cast in tree.find_all(exp.Cast):
            if cast.to.this != DType.BOOLEAN:
                continue
            inner = cast.this
            assert isinstance(inner, exp.Cast) and inner.to.this == DType.BIGINT, (vid, cast.sql())
            assert isinstance(inner.this, exp.Column), (vid, cast.sql())
            found += 1
    assert found >= 20  # the binary metrics' labels (not a vacuous pass)


@pytest.mark.parametrize("pos_label", [None, True, False])
@pytest.mark.parametrize("kind", ["bool", "int", "float"])
def test_label_as_boolean_runs_on_duckdb(kind: str, pos_label: bool | None) -> None:
    """The label conversion of DuckDB's render and of BigQuery's (whose `int64` DuckDB reads)
    gives the same 0/1 for a bool, an integer and a 0.0/1.0 float label column."""
    frame = pd.DataFrame({"y": label_rows(kind)})
    expected = [int(bool(v) == (True if pos_label is None else pos_label)) for v in frame["y"]]
    for dialect in ("duckdb", "bigquery"):
        expr = _templates.render_macro("binary_label", "y", pos_label, dialect=dialect).strip()
        got = duckdb.sql(f"select {expr} as v from frame").df()["v"].tolist()
        assert got == expected, (dialect, expr)


def _label_sql(dialect: str, table: str) -> str:
    cases = [
        _templates.render_macro("binary_label", quote_ident("y", dialect), p, dialect=dialect)
        for p in (None, True, False)
    ]
    return f"select {', '.join(f'{c.strip()} as v{i}' for i, c in enumerate(cases))} from {table}"


def _expected_labels(kind: str) -> list[tuple[int, int, int]]:
    return [(int(bool(v)), int(bool(v)), int(not v)) for v in label_rows(kind)]


@pytest.mark.postgres
@pytest.mark.parametrize("kind", ["bool", "int", "float"])
def test_label_as_boolean_runs_on_postgres(pg_engine: Any, kind: str) -> None:
    import sqlalchemy

    table = f"labels_{kind}"
    pd.DataFrame({"y": label_rows(kind)}).to_sql(table, pg_engine, if_exists="replace", index=False)
    with pg_engine.connect() as con:
        rows = con.execute(sqlalchemy.text(_label_sql("postgres", table))).fetchall()
    assert [tuple(r) for r in rows] == _expected_labels(kind)


@pytest.mark.clickhouse
@pytest.mark.parametrize("kind", ["bool", "int", "float"])
def test_label_as_boolean_runs_on_clickhouse(chdb_session: Any, kind: str) -> None:
    table = f"labels_{kind}"
    chdb_table(chdb_session, table, pd.DataFrame({"y": label_rows(kind)}))
    got = chdb_session.query(_label_sql("clickhouse", table), "DataFrame")
    assert [tuple(int(x) for x in r) for r in got.itertuples(index=False)] == _expected_labels(kind)


@pytest.mark.spark
def test_label_as_boolean_and_int_sum_run_on_spark(spark: Any) -> None:
    """Spark: the labels of every kind, and an integer sum past 2^63 exact (one JVM test)."""
    for kind in ("bool", "int", "float"):
        table = f"labels_{kind}"
        spark.createDataFrame(pd.DataFrame({"y": label_rows(kind)})).createOrReplaceTempView(table)
        rows = spark.sql(_label_sql("spark", table)).collect()
        assert [tuple(r) for r in rows] == _expected_labels(kind), kind
    sql = _templates.render_macro("int_sum", "x", dialect="spark").strip()
    values = ", ".join(f"(cast({v} as bigint))" for v in BIG)
    (row,) = spark.sql(f"select {sql} as s from (values {values}) as t (x)").collect()
    assert int(row["s"]) == sum(BIG)


# --------------------------------------------------------------------------- Snowflake names


def snowflake_name(ident: exp.Identifier) -> str:
    """The name Snowflake resolves ``ident`` to: a quoted name as written, else uppercased."""
    return ident.name if ident.quoted else ident.name.upper()


@pytest.mark.parametrize(
    ("name", "quoted", "resolved"),
    [
        ("click", '"CLICK"', "CLICK"),  # as if unquoted: created unquoted, stored CLICK
        ("user_id2", '"USER_ID2"', "USER_ID2"),
        ("_x$y", '"_X$Y"', "_X$Y"),
        ("group", '"GROUP"', "GROUP"),  # a reserved word, still a name: quoted
        ("CLICK", '"CLICK"', "CLICK"),
        ("Click", '"Click"', "Click"),  # an uppercase letter: exactly (case-sensitive)
        ("my col", '"my col"', "my col"),
        ("2nd", '"2nd"', "2nd"),
        ("été", '"été"', "été"),
        ('a"b', '"a""b"', 'a"b'),
    ],
)
def test_snowflake_identifier_rule(name: str, quoted: str, resolved: str) -> None:
    assert quote_ident(name, "snowflake") == quoted
    column = parse(f"select {quoted} from t", "snowflake").find(exp.Column)
    assert column is not None and snowflake_name(column.this) == resolved


def test_snowflake_render_finds_columns_created_unquoted() -> None:
    """The render's names resolve, as Snowflake resolves them, to the stored names of a table
    created unquoted (and of one mixed-case column created quoted)."""
    create = parse(
        'create table analytics.events (click int, pctr double, country varchar, "Day" int)',
        "snowflake",
    )
    stored = {snowflake_name(i) for i in create.find_all(exp.Identifier)}
    assert stored == {"ANALYTICS", "EVENTS", "CLICK", "PCTR", "COUNTRY", "Day"}
    for metric in ("auc", "log_loss", "precision"):
        sql = sqlmetrics.render(
            metric, "analytics.events", label="click", score="pctr", by=["country", "Day"],
            dialect="snowflake",
        )  # fmt: skip
        names = {
            snowflake_name(i) for i in parse(sql, "snowflake").find_all(exp.Identifier) if i.quoted
        }
        assert names == stored, metric
    assert quote_table("analytics.events", "snowflake") == '"ANALYTICS"."EVENTS"'


# --------------------------------------------------------------------------- Snowflake double


def test_snowflake_float_type_is_a_double_wherever_it_is_read() -> None:
    """The text of Snowflake's float type reads as a 64-bit double in every dialect that can
    read it (`float` is 32-bit in DuckDB, Spark and ClickHouse)."""
    text = _templates.render_macro("float_type", dialect="snowflake").strip()
    for dialect in ("snowflake", "duckdb", "spark", "clickhouse", "trino", "bigquery"):
        cast = parse(f"select cast(x as {text})", dialect).find(exp.Cast)
        assert cast is not None and cast.to.this == DType.DOUBLE, dialect


def test_snowflake_renders_write_no_float_keyword() -> None:
    """No Snowflake render holds the keyword FLOAT (tokens, so names and strings do not count),
    and every one casts to DOUBLE."""
    for vid, metric, kwargs in ONE_PER_METRIC:
        tokens = sqlglot.tokenize(rendered(metric, kwargs, "snowflake"), read="snowflake")
        kinds = {t.token_type for t in tokens}
        assert TokenType.FLOAT not in kinds, vid
        assert TokenType.DOUBLE in kinds, vid


def test_snowflake_float_literal_is_exact_on_duckdb() -> None:
    """Snowflake's float literal, run by DuckDB, is the double it means (0.1, 1 + 2^-40), not
    its 32-bit neighbour."""
    for value in (0.1, 1 + 2.0**-40, 2e-8):
        sql = _templates.render_macro("float_literal", value, dialect="snowflake").strip()
        assert duckdb.sql(f"select {sql}").fetchall() == [(value,)], sql


@pytest.mark.clickhouse
def test_snowflake_float_literal_is_exact_on_clickhouse(chdb_session: Any) -> None:
    for value in (0.1, 1 + 2.0**-40, 2e-8):
        sql = _templates.render_macro("float_literal", value, dialect="snowflake").strip()
        got = chdb_session.query(f"select {sql} as v, toTypeName(v) as t", "DataFrame")
        assert (got["v"][0], got["t"][0]) == (value, "Float64"), sql


# --------------------------------------------------------------------------- wide integer sums

#: the 38-digit integer type of int_sum per dialect, as sqlglot reads it
EXACT = {
    "bigquery": "BIGNUMERIC",
    "trino": "DECIMAL(38, 0)",
    "snowflake": "DECIMAL(38, 0)",
    "spark": "DECIMAL(38, 0)",
    "clickhouse": "Int128",
    "postgres": "BIGINT",  # PostgreSQL's sum of a bigint is a numeric
}
#: the columns that hold ranks or counts below a score (a sum of them grows as n^2)
RANK_COLUMNS = {"rank_lo", "rank_hi", "rank2", "neg_before", "cnt_before"}
#: three terms whose sum passes 2^63
BIG = [2**62, 2**62, 2**62 - 1]


def _is_exact_cast(node: exp.Expression, dialect: str) -> bool:
    return isinstance(node, exp.Cast) and node.to.sql(dialect) == EXACT[dialect]


def _wide(node: exp.Expression, dialect: str) -> bool:
    """A sum's argument is summed exactly: cast to the 38-digit type, or a product with a
    factor of that type (a count times a count below)."""
    if _is_exact_cast(node, dialect):
        return True
    return any(
        _is_exact_cast(f, dialect) for m in node.find_all(exp.Mul) for f in (m.left, m.right)
    )


def rank_sum_statements(dialect: str) -> list[tuple[str, str]]:
    """The renders that sum ranks: auc (unweighted), gauc and multiclass_auc variants, and
    multiclass_auc's wide statement."""
    found = [
        (vid, rendered(metric, kwargs, dialect))
        for vid, metric, kwargs in VARIANTS
        if metric in ("auc", "gauc", "multiclass_auc") and "weight" not in kwargs
    ]
    spec = get_spec("multiclass_auc")
    for average in ("macro", "micro"):
        view = wide_view(
            "t", ["g"], None, [["a", "s_a", "y_a"], ["b", "s_b", "y_b"]], False, dialect
        )
        params = check_params(spec, {"auc_average": average})
        found.append((f"wide-{average}", wide_sql("multiclass_auc", view, ["g"], params, dialect)))
    return found


@pytest.mark.parametrize("dialect", sorted(EXACT))
def test_rank_sums_are_summed_in_a_wide_type(dialect: str) -> None:
    """Every aggregate sum over ranks (or counts below a score) is taken in the 38-digit type,
    and so is one factor of every product of two sums (n_pos (n_pos + 1))."""
    checked = 0
    for vid, sql in rank_sum_statements(dialect):
        tree = parse(sql, dialect)
        for node in tree.find_all(exp.Sum):
            if isinstance(node.parent, exp.Window):
                continue  # a running sum of counts: at most n
            if {c.name for c in node.find_all(exp.Column)} & RANK_COLUMNS:
                assert _wide(node.this, dialect), (vid, node.sql(dialect))
                checked += 1
        for mul in tree.find_all(exp.Mul):
            sums = [s for s in (mul.left, mul.right) if s.find(exp.Sum) and not s.find(exp.Window)]
            if len(sums) == 2:
                assert any(_is_exact_cast(s.find(exp.Sum).this, dialect) for s in sums), (  # type: ignore[union-attr]
                    vid,
                    mul.sql(dialect),
                )
                checked += 1
    assert checked >= 10


def test_int_sum_is_exact_past_2_63_on_duckdb() -> None:
    values = ", ".join(f"({v})" for v in BIG)
    for dialect in ("duckdb", "trino"):  # Trino's decimal(38, 0) is DuckDB's too
        sql = _templates.render_macro("int_sum", "x", dialect=dialect).strip()
        ((got,),) = duckdb.sql(f"select {sql} from (values {values}) as t (x)").fetchall()
        assert int(got) == sum(BIG), dialect


@pytest.mark.postgres
def test_int_sum_is_exact_past_2_63_on_postgres(pg_engine: Any) -> None:
    import sqlalchemy

    sql = _templates.render_macro("int_sum", "x", dialect="postgres").strip()
    values = ", ".join(f"(cast({v} as bigint))" for v in BIG)
    with pg_engine.connect() as con:
        got = con.execute(sqlalchemy.text(f"select {sql} from (values {values}) as t (x)")).scalar()
    assert int(got) == sum(BIG)


@pytest.mark.clickhouse
def test_int_sum_is_exact_past_2_63_on_clickhouse(chdb_session: Any) -> None:
    """ClickHouse's own sum of an Int64 wraps around silently; int_sum does not."""
    sql = _templates.render_macro("int_sum", "x", dialect="clickhouse").strip()
    rows = " union all ".join(f"select toInt64({v}) as x" for v in BIG)
    got = chdb_session.query(
        f"select toString({sql}) as s, toString(sum(x)) as plain from ({rows})", "DataFrame"
    )
    assert int(got["s"][0]) == sum(BIG)
    assert int(got["plain"][0]) == sum(BIG) - 2**64  # the trap: Int64's sum wrapped around


# --------------------------------------------------------------------------- hugeint


@pytest.mark.parametrize("dialect", ["postgres", "spark", "bigquery", "snowflake", "trino"])
def test_no_128_bit_integer_outside_duckdb_and_clickhouse(dialect: str) -> None:
    """No render of a dialect without a 128-bit integer names one: sqlglot reads `hugeint` as
    INT128 in every dialect, without an error, and writes INT128 for every target (DuckDB's
    hugeint and ClickHouse's Int128 are real). Tokens: names and strings do not count
    (test_dialects' slow parse test checks the trees of every variant)."""
    for vid, metric, kwargs in ONE_PER_METRIC:
        tokens = sqlglot.tokenize(rendered(metric, kwargs, dialect), read=dialect)
        wide = [
            t.text
            for t in tokens
            if t.token_type == TokenType.INT128
            or (t.token_type == TokenType.VAR and t.text.lower() in ("hugeint", "int128"))
        ]
        assert not wide, (vid, wide)


def test_only_duckdb_macros_write_hugeint() -> None:
    """No dialect-neutral macro writes `hugeint`: only a `duckdb__` variant may."""
    root = Path(sqlmetrics.__file__).resolve().parents[1] / "sql"
    found = []
    for path in sorted(root.rglob("*.sql")):
        code = re.sub(r"\{#.*?#\}", "", path.read_text(), flags=re.S)
        for name, body in re.findall(
            r"\{%-?\s*macro\s+(\w+)\s*\((.*?)\{%-?\s*endmacro", code, re.S
        ):
            if re.search(r"hugeint|int128", body, re.I) and not name.startswith(
                ("duckdb__", "clickhouse__")
            ):
                found.append(f"{path.name}::{name}")
    assert not found
