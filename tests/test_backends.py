"""The backend layer (sqlmetrics/_backends/): which engine ``con=`` selects, objects that
behave as a DuckDB connection (dbt-duckdb's cursor wrapper), and the type families the checks
use across engines' type names.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._backends import DuckDBBackend, backend_for
from sqlmetrics._backends.base import base_type, type_family
from sqlmetrics.errors import DataSourceError

FRAME = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.2, 0.4, 0.4]})


def test_con_none_path_and_connection_are_duckdb(tmp_path: Any) -> None:
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    own = duckdb.connect()
    for con in (None, str(path), path, own):
        with backend_for(con) as backend:
            assert isinstance(backend, DuckDBBackend)
            assert (backend.name, backend.dialect) == ("duckdb", "duckdb")
    with backend_for(own) as backend:
        assert isinstance(backend, DuckDBBackend)
        assert backend.con is own  # the user's own connection, not a copy
    own.execute("select 1").fetchall()  # and it is left open


@pytest.mark.dbt
def test_dbt_duckdb_cursor_wrapper_is_unwrapped() -> None:
    """Issue 11, item 5: `sqlmetrics.ndcg(dbt.ref("t"), con=session)` in a dbt Python model."""
    from dbt.adapters.duckdb.environments.local import (
        DuckDBConnectionWrapper,
        DuckDBCursorWrapper,
    )

    con = duckdb.connect()
    con.execute("create table t as select * from (values (1, 0.9), (0, 0.1)) as v(label, score)")
    cursor = DuckDBCursorWrapper(con)
    with backend_for(cursor) as backend:
        assert isinstance(backend, DuckDBBackend) and backend.con is con
    assert sqlmetrics.auc("t", con=cursor) == 1.0
    relation = con.sql("select * from t")
    assert sqlmetrics.auc(relation, con=cursor) == 1.0
    wrapped = DuckDBConnectionWrapper(con, env=None)
    with backend_for(wrapped) as backend:
        assert backend.con is con  # two wrappers deep


class _BehavesAsDuckDB:
    """Has DuckDB's execute / register / unregister and nothing that exposes a connection."""

    def __init__(self) -> None:
        self.__db = duckdb.connect()
        self.calls: list[str] = []

    def execute(self, sql: str) -> Any:
        self.calls.append("execute")
        return self.__db.execute(sql)

    def register(self, name: str, obj: Any) -> Any:
        self.calls.append("register")
        return self.__db.register(name, obj)

    def unregister(self, name: str) -> Any:
        self.calls.append("unregister")
        return self.__db.unregister(name)


def test_an_object_with_duckdbs_api_is_used_as_one() -> None:
    con = _BehavesAsDuckDB()
    assert sqlmetrics.auc(FRAME, con=con) == pytest.approx(sqlmetrics.auc(FRAME))
    assert con.calls[0] == "register" and con.calls[-1] == "unregister"


@pytest.mark.parametrize("con", [42, {"url": "x"}, object()])
def test_unsupported_con_names_the_supported_ones(con: Any) -> None:
    with pytest.raises(
        DataSourceError,
        match=r"con= must be a duckdb connection, a database file path or None, a SQLAlchemy "
        r"Engine or Connection, a pyspark.sql.SparkSession, a chdb session or connection, a "
        r"clickhouse_connect client, or an Ibis backend of one of them; "
        rf"got {type(con).__name__}$",
    ):
        sqlmetrics.auc(FRAME, con=con)


@pytest.mark.parametrize(
    ("sql_type", "base", "family"),
    [
        ("DOUBLE", "DOUBLE", "number"),
        ("double precision", "DOUBLE PRECISION", "number"),
        ("NUMERIC(10, 2)", "NUMERIC", "number"),
        ("decimal(10,2)", "DECIMAL", "number"),
        ("bigint", "BIGINT", "number"),
        ("int", "INT", "number"),
        ("character varying(20)", "CHARACTER VARYING", "text"),
        ("string", "STRING", "text"),
        ("TEXT", "TEXT", "text"),
        ("timestamp without time zone", "TIMESTAMP WITHOUT TIME ZONE", "date/time"),
        ("integer[]", None, "INTEGER[]"),
        ("array<int>", None, "ARRAY<INT>"),
        ("STRUCT(a DOUBLE)", None, "STRUCT(A DOUBLE)"),
        ("boolean", "BOOLEAN", "BOOLEAN"),
    ],
)
def test_type_names_of_every_engine(sql_type: str, base: str | None, family: str) -> None:
    assert base_type(sql_type) == base
    assert type_family(sql_type) == family


def test_duckdb_backend_check_expressions() -> None:
    backend = DuckDBBackend(duckdb.connect())
    rows = backend.rows(
        "select "
        + ", ".join(
            backend.is_not_finite(v)
            for v in ("1.5::double", "'nan'::double", "'inf'::double", "'-inf'::double")
        )
    )
    assert rows == [(False, True, True, True)]
    assert backend.rows(f"select {backend.tuple_text(['1', chr(39) + 'a' + chr(39)])}") == [
        ("(1, a)",)
    ]


def test_cli_eval_on_spark(spark: Any, tmp_path: Any) -> None:
    """`--spark MASTER` runs eval on Spark over a Parquet file; a session already running (the
    test's) is used and left running."""
    import json

    from click.testing import CliRunner

    from sqlmetrics import cli

    path = tmp_path / "scored.parquet"
    FRAME.to_parquet(path)
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(path),
            "--spark",
            "local[2]",
            "-m",
            "auc",
            "-m",
            "log_loss",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)[0]  # stderr: warnings (pyspark on pandas 3)
    assert row["auc"] == pytest.approx(sqlmetrics.auc(FRAME), rel=1e-12)
    assert row["log_loss"] == pytest.approx(sqlmetrics.log_loss(FRAME), rel=1e-12)
    assert spark.sql("select 1").collect()[0][0] == 1  # still running


def test_cli_refuses_two_engines_and_trec_with_one() -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "t",
            "--db-url",
            "postgresql+psycopg://x@h/db",
            "--spark",
            "local[2]",
            "-m",
            "auc",
        ],
    )
    assert result.exit_code == 2 and "--db-url and --spark both given" in result.output
    result = CliRunner().invoke(
        cli.main, ["eval", "--trec", "run.txt", "--spark", "local[2]", "-m", "map"]
    )
    assert result.exit_code == 2
    assert "--trec reads run and qrels files into DuckDB; it does not combine with --spark" in (
        result.output
    )


class _Rows:
    def __init__(self, value: str) -> None:
        self.value = value

    def collect(self) -> list[tuple[str]]:
        return [(self.value,)]


class _ConnectSession:
    """What is_sail reads of a Spark Connect session: its client's version and version()."""

    __module__ = "pyspark.sql.connect.session"

    def __init__(self, version: str, answer: str) -> None:
        self.version, self.answer, self.statements = version, answer, 0

    def sql(self, text: str) -> _Rows:
        assert text == "select version()"
        self.statements += 1
        return _Rows(self.answer)


@pytest.mark.parametrize(
    ("version", "answer", "sail"),
    [("4.0.4", "0.7.2", True), ("4.1.1", "4.1.1 3a9fa2b", False), ("3.5.0", "3.5.0", False)],
)
def test_a_sail_server_is_told_apart_once_per_session(
    version: str, answer: str, sail: bool
) -> None:
    """Sail reports a Spark version to its client but its own from version(); Spark's
    version() starts with the version the client reports. One probe per session."""
    from sqlmetrics._backends.spark_backend import is_sail

    session = _ConnectSession(version, answer)
    assert is_sail(session) is sail
    assert is_sail(session) is sail
    assert session.statements == 1
    assert not is_sail(object())  # a classic session: no probe (no Connect client)


class _Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values

    def get(self, key: str) -> str:
        return self.values[key]

    def set(self, key: str, value: str) -> None:
        self.values[key] = value


@pytest.mark.spark  # SparkBackend imports pyspark's errors (not in .ci/lowest's venv)
@pytest.mark.parametrize(("answer", "ansi"), [("0.7.2", "false"), ("4.0.4 3a9fa2b", "true")])
def test_a_sail_call_runs_with_ansi_mode_off_and_puts_it_back(answer: str, ansi: str) -> None:
    """Sail 0.7.2 raises "Division by zero" in ANSI mode where no divisor is zero: its calls
    pin ANSI mode off, and give the session its own value back; a Spark session keeps its."""
    from sqlmetrics._backends.spark_backend import SparkBackend

    session = _ConnectSession("4.0.4", answer)
    values = {"spark.sql.ansi.enabled": "true", "spark.sql.parser.quotedRegexColumnNames": "true"}
    session.conf = _Conf(dict(values))  # type: ignore[attr-defined]
    backend = SparkBackend(session)
    assert backend.dialect == ("sail" if ansi == "false" else "spark")
    backend._pin()
    assert session.conf.values == {  # type: ignore[attr-defined]
        "spark.sql.ansi.enabled": ansi,
        "spark.sql.parser.quotedRegexColumnNames": "false",
    }
    backend.close()
    assert session.conf.values == values  # type: ignore[attr-defined]
