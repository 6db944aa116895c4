"""Values written into SQL as literals (issue 22): text survives rendering byte for byte, on
every engine and under its quoting settings; integers are written exactly; a literal cannot
end early (injection).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
import sqlalchemy
import sqlglot
from sklearn.metrics import confusion_matrix, roc_auc_score

import sqlmetrics
from sqlmetrics._core.dialects import DIALECTS
from sqlmetrics._templating import templates as _templates
from sqlmetrics.errors import InvalidParameterError

#: text that the rendering (blank-line removal, rstrip, indent) or a quoting setting changed
NASTY = [
    "cr\rlf",
    "a  \nb",
    "line\nbreak",
    "crlf\r\nend",
    "trail  ",
    "tab\tin\t",
    "\n\nleading",
    "x\n    \n",
    "form\x0cfeed\x0bvt\x1csep\x85nel\u2028ls\u2029ps",
    "it's",
    "back\\slash",
    "x\\' or 1=1 --",
    "\\",
    "'",
    "",
]

SCORES = [0.9, 0.1, 0.4, 0.6, 0.8, 0.3]


def _binary(positive: object, negative: object) -> pd.DataFrame:
    labels = [positive, negative, positive, negative, negative, positive]
    return pd.DataFrame({"y": labels, "s": SCORES})


def _expected_auc() -> float:
    return float(roc_auc_score([1, 0, 1, 0, 0, 1], SCORES))


@pytest.mark.parametrize("value", NASTY)
def test_text_pos_label_survives_rendering(value: str) -> None:
    frame = _binary(value, "neg" if value != "neg" else "other")
    expected = _expected_auc()
    assert sqlmetrics.auc(frame, label="y", score="s", pos_label=value) == pytest.approx(expected)
    got = sqlmetrics.evaluate(
        frame, ["auc", "f1"], label="y", score="s", pos_label=value, threshold=0.5
    )
    assert got["auc"].iloc[0] == pytest.approx(expected)
    assert got["f1"].iloc[0] == pytest.approx(
        sqlmetrics.f1(
            frame.assign(y=(frame["y"] == value).astype(int)), label="y", score="s", threshold=0.5
        )
    )


def test_text_labels_survive_rendering() -> None:
    classes = ["a  \nb", "cr\rlf", "crlf\r\nx", "t\t", "it's\\"]
    truth = [classes[i % 5] for i in range(15)]
    predicted = [classes[(i * 2) % 5] for i in range(15)]
    frame = pd.DataFrame({"label": truth, "prediction": predicted})
    for listed in (classes, classes[::-1], classes[:3]):
        got = sqlmetrics.multiclass_confusion_matrix(frame, labels=listed)
        matrix = got.pivot(index="label", columns="prediction", values="count")
        matrix = matrix.loc[listed, listed].to_numpy()
        assert (matrix == confusion_matrix(truth, predicted, labels=listed)).all()


def test_line_breaks_in_item_ids_and_slices() -> None:
    """Data values are never literals; ids with line breaks group as they are."""
    frame = pd.DataFrame(
        {
            "g": ["q\n1", "q\n1", "q\r1", "q\r1"],
            "item": ["a\n", "a\r", "a\n", "a\r\n"],
            "label": [1, 0, 0, 1],
            "score": [0.9, 0.8, 0.7, 0.6],
        }
    )
    got = sqlmetrics.evaluate(frame, ["ndcg"], group="g", item="item", by="g")
    assert sorted(got["g"]) == ["q\n1", "q\r1"]
    assert got.set_index("g")["ndcg"]["q\n1"] == pytest.approx(1.0)


@pytest.mark.parametrize("dialect", _templates.DIALECTS)
def test_no_literal_holds_a_raw_line_break(dialect: str) -> None:
    plain = sqlmetrics.render("auc", "t", label="y", score="s", pos_label="x", dialect=dialect)
    for value in NASTY:
        sql = sqlmetrics.render("auc", "t", label="y", score="s", pos_label=value, dialect=dialect)
        assert len(sql.splitlines()) == len(plain.splitlines()), value
        # only the label expression differs
        changed = [a for a, b in zip(sql.splitlines(), plain.splitlines()) if a != b]
        assert len(changed) <= 1 and all(" as label" in line for line in changed)
        # the engines without a test server parse it (Sail's SQL as Spark's, its parent)
        sqlglot.parse_one(sql, read=DIALECTS[dialect].parent or dialect)


@pytest.mark.parametrize("value", NASTY)
def test_duckdb_literal_reads_back(value: str) -> None:
    import duckdb

    literal = str(_templates.macro("string_literal", "duckdb")(value))
    assert duckdb.connect().execute(f"select {literal}").fetchall() == [(value,)]


# --------------------------------------------------------------------------- integers
BIG = 2**53 + 1


def test_integer_pos_label_above_2_53_is_exact() -> None:
    frame = _binary(BIG, BIG - 1)  # float(BIG) == BIG - 1: the classes swapped
    assert sqlmetrics.auc(frame, label="y", score="s", pos_label=BIG) == pytest.approx(
        _expected_auc()
    )
    got = sqlmetrics.evaluate(frame, ["auc"], label="y", score="s", pos_label=BIG)
    assert got["auc"].iloc[0] == pytest.approx(_expected_auc())


@pytest.mark.parametrize("value", [2**63 - 1, -(2**63), 2**53 + 1, 10**30])
def test_integer_pos_label_is_printed_exactly(value: int) -> None:
    sql = sqlmetrics.render("auc", "t", label="y", score="s", pos_label=value)
    assert f'"y" = {value} then' in sql


def test_integer_labels_above_2_53_are_exact() -> None:
    truth = [BIG, BIG - 1, BIG, BIG + 2, BIG - 1, BIG]
    predicted = [BIG, BIG, BIG - 1, BIG + 2, BIG - 1, BIG + 2]
    frame = pd.DataFrame({"label": truth, "prediction": predicted})
    listed = [BIG + 2, BIG, BIG - 1]
    got = sqlmetrics.multiclass_confusion_matrix(frame, labels=listed)
    matrix = got.pivot(index="label", columns="prediction", values="count")
    matrix = matrix.loc[listed, listed].to_numpy()
    assert (matrix == confusion_matrix(truth, predicted, labels=listed)).all()


# --------------------------------------------------------------------------- PostgreSQL
@pytest.fixture
def pg_off(pg_engine: sqlalchemy.engine.Engine) -> object:
    """A connection with standard_conforming_strings=off (a backslash in '...' escapes)."""
    with pg_engine.connect() as connection:
        connection.exec_driver_sql("set standard_conforming_strings = off")
        connection.exec_driver_sql("set escape_string_warning = off")
        connection.exec_driver_sql(
            "create table secret (label text, prediction text)"  # rolled back
        )
        connection.exec_driver_sql("insert into secret values ('stolen', 'stolen')")
        yield connection
        connection.rollback()


@pytest.mark.parametrize("setting", ["on", "off"])
def test_postgres_literal_reads_back_under_both_settings(
    pg_engine: sqlalchemy.engine.Engine, setting: str
) -> None:
    with pg_engine.connect() as connection:
        connection.exec_driver_sql(f"set standard_conforming_strings = {setting}")
        connection.exec_driver_sql("set escape_string_warning = off")
        for value in NASTY:
            literal = str(_templates.macro("string_literal", "postgres")(value))
            got = connection.exec_driver_sql(f"select {literal}".replace("%", "%%")).scalar()
            assert got == value
        connection.rollback()


def _pg_table(connection: sqlalchemy.engine.Connection, frame: pd.DataFrame) -> str:
    columns = ", ".join(f'"{c}" {"double precision" if c == "s" else "text"}' for c in frame)
    # in the connection's transaction, rolled back by the test (a temporary table is not
    # listed as a table of the database)
    connection.exec_driver_sql(f"create table events ({columns})")
    marks = ", ".join(["%s"] * frame.shape[1])
    connection.exec_driver_sql(
        f"insert into events values ({marks})", [tuple(r) for r in frame.itertuples(index=False)]
    )
    return "events"


def test_postgres_pos_label_with_backslash_and_quote(pg_off: sqlalchemy.engine.Connection) -> None:
    frame = _binary("x\\' or 1=1 --", "neg")
    table = _pg_table(pg_off, frame)
    got = sqlmetrics.auc(table, label="y", score="s", pos_label="x\\' or 1=1 --", con=pg_off)
    assert got == pytest.approx(_expected_auc())


def test_postgres_labels_cannot_inject(pg_off: sqlalchemy.engine.Connection) -> None:
    """Two labels= values: the first ends in a backslash (which escaped the closing quote when
    standard_conforming_strings is off), the second would be SQL reading the table secret.
    """
    frame = pd.DataFrame(
        {"label": ["a\\", "b", "a\\", "stolen"], "prediction": ["a\\", "a\\", "b", "stolen"]}
    )
    table = _pg_table(pg_off, frame)
    attack = ["a\\", "), (1, 'b'), (2, (select label from secret)) --"]
    got = sqlmetrics.multiclass_confusion_matrix(table, labels=attack, con=pg_off)
    expected = confusion_matrix(frame["label"], frame["prediction"], labels=attack)
    matrix = got.pivot(index="label", columns="prediction", values="count")
    assert "stolen" not in set(got["label"]) and len(got) == 4
    assert (matrix.loc[attack, attack].to_numpy() == expected).all()


def test_postgres_nul_in_labels_is_refused_by_name(pg_engine: sqlalchemy.engine.Engine) -> None:
    with pg_engine.connect() as connection:
        frame = pd.DataFrame({"label": ["a", "b"], "prediction": ["a", "b"]})
        table = _pg_table(connection, frame)
        with pytest.raises(InvalidParameterError, match=r"labels=.*NUL"):
            sqlmetrics.multiclass_confusion_matrix(table, labels=["a", "b\x00"], con=connection)
        with pytest.raises(InvalidParameterError, match=r"pos_label=.*NUL"):
            sqlmetrics.render("auc", pos_label="b\x00", dialect="postgres")
        connection.rollback()


# --------------------------------------------------------------------------- Spark
@pytest.mark.parametrize("escaped", ["false", "true"])
def test_spark_literal_reads_back_under_both_settings(spark: object, escaped: str) -> None:
    key = "spark.sql.parser.escapedStringLiterals"
    spark.conf.set(key, escaped)  # type: ignore[attr-defined]
    try:
        for value in NASTY:
            literal = str(_templates.macro("string_literal", "spark")(value))
            got = spark.sql(f"select {literal} as v").collect()[0]["v"]  # type: ignore[attr-defined]
            assert got == value
        frame = _binary("x\\' or 1=1 --", "neg")
        spark.createDataFrame(frame).createOrReplaceTempView("hlit_binary")  # type: ignore[attr-defined]
        got_auc = sqlmetrics.auc(
            "hlit_binary", label="y", score="s", pos_label="x\\' or 1=1 --", con=spark
        )
        assert got_auc == pytest.approx(_expected_auc())
        frame = pd.DataFrame({"label": ["a\\", "b", "a\\"], "prediction": ["a\\", "a\\", "b"]})
        spark.createDataFrame(frame).createOrReplaceTempView("hlit_classes")  # type: ignore[attr-defined]
        attack = ["a\\", "), (1, 'b'), (2, 'stolen') --"]
        got = sqlmetrics.multiclass_confusion_matrix("hlit_classes", labels=attack, con=spark)
        expected = confusion_matrix(frame["label"], frame["prediction"], labels=attack)
        matrix = got.pivot(index="label", columns="prediction", values="count")
        assert (matrix.loc[attack, attack].to_numpy() == expected).all()
    finally:
        spark.conf.unset(key)  # type: ignore[attr-defined]


def test_a_path_with_line_breaks_is_read(tmp_path: object) -> None:
    """File paths are text literals too (quote_literal is the macro string_literal)."""
    frame = _binary(1, 0)
    path = f"{tmp_path}/a  \nb\r\nc.parquet"
    frame.to_parquet(path)
    assert sqlmetrics.auc(path, label="y", score="s") == pytest.approx(_expected_auc())
    csv = f"{tmp_path}/d\n.csv"
    frame.to_csv(csv, index=False)
    got = sqlmetrics.evaluate(csv, ["auc"], label="y", score="s")
    assert got["auc"].iloc[0] == pytest.approx(_expected_auc())


@pytest.mark.clickhouse
def test_clickhouse_literal_reads_back(chdb_session: Any) -> None:
    """ClickHouse reads a backslash as an escape in strings: each nasty value (line breaks,
    backslashes, quotes, NEL and the Unicode separators) comes back from chdb unchanged."""
    for value in NASTY:
        literal = str(_templates.macro("string_literal", "clickhouse")(value))
        got = chdb_session.query(f"select hex({literal}) as h", "JSONEachRow")
        assert json.loads(str(got))["h"] == value.encode("utf-8").hex().upper(), value
