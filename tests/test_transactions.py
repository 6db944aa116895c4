"""A user's SQLAlchemy Connection after a sqlmetrics call is in the state it was before.

- Without a transaction, it is left without one: the transaction SQLAlchemy begins on our
  first statement is rolled back (it holds an ACCESS SHARE lock on every table we read, which
  blocks the user's own ALTER / DROP / TRUNCATE, and keeps the session "idle in transaction").
- Inside the user's transaction, our statements run in a SAVEPOINT, released after success
  and rolled back to after an error: our failing statement does not abort the user's
  transaction, and what they did in it so far is kept (decision 0005).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy

import sqlmetrics
from sqlmetrics.errors import InvalidDataError, SqlMetricsError


@pytest.fixture
def pg(pg_engine: sqlalchemy.engine.Engine) -> Iterator[sqlalchemy.engine.Engine]:
    with pg_engine.begin() as c:
        c.exec_driver_sql("drop view if exists tx_broken")
        c.exec_driver_sql("drop table if exists tx_events, tx_mine")
        c.exec_driver_sql("create table tx_events (label int, score float8, s text)")
        c.exec_driver_sql(
            "insert into tx_events values (1, 0.9, '0.9'), (0, 0.2, 'x'), (1, 0.7, '0.7'), "
            "(0, 0.6, '0.6')"
        )
        # a view whose cast fails when read: every check and the metric query fail in SQL
        c.exec_driver_sql(
            "create view tx_broken as select label, cast(s as float8) as score from tx_events"
        )
        c.exec_driver_sql("create table tx_mine (x int)")
    yield pg_engine
    with pg_engine.begin() as c:
        c.exec_driver_sql("drop view if exists tx_broken")
        c.exec_driver_sql("drop table if exists tx_events, tx_mine")


def _locks_held(engine: sqlalchemy.engine.Engine, pid: int) -> list[str]:
    """The tables on which backend ``pid`` holds a lock, seen from another connection."""
    with engine.connect() as other:
        rows = other.exec_driver_sql(
            "select c.relname from pg_locks l join pg_class c on c.oid = l.relation "
            f"where l.pid = {int(pid)} and left(c.relname, 3) = 'tx_' order by 1"
        ).fetchall()
    return [str(r[0]) for r in rows]


def _pid(conn: sqlalchemy.engine.Connection) -> int:
    """The server process of ``conn``, read from the driver (no statement: no transaction)."""
    return int(conn.connection.dbapi_connection.info.backend_pid)  # type: ignore[union-attr]


def test_a_connection_without_a_transaction_is_left_without_one(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as conn:
        assert not conn.in_transaction()
        value = sqlmetrics.auc("tx_events", con=conn)
        assert value == pytest.approx(1.0)
        assert not conn.in_transaction()
        assert _locks_held(pg, _pid(conn)) == []
        # the session is idle, not "idle in transaction"
        with pg.connect() as other:
            states = other.exec_driver_sql(
                f"select state from pg_stat_activity where pid = {_pid(conn)}"
            ).fetchall()
        assert [r[0] for r in states] == ["idle"]


def test_a_failed_call_leaves_no_transaction_either(pg: sqlalchemy.engine.Engine) -> None:
    with pg.connect() as conn:
        with pytest.raises(InvalidDataError, match=r"holds a value of the wrong type"):
            sqlmetrics.auc("tx_broken", con=conn)
        assert not conn.in_transaction()
        assert _locks_held(pg, _pid(conn)) == []
        # and the connection is usable as it is
        assert conn.exec_driver_sql("select 1").scalar() == 1


def test_the_users_transaction_survives_our_failing_statement(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as conn:
        conn.begin()
        conn.exec_driver_sql("insert into tx_mine values (7)")
        with pytest.raises(SqlMetricsError, match=r"holds a value of the wrong type"):
            sqlmetrics.auc("tx_broken", con=conn)
        assert conn.in_transaction()
        # not "current transaction is aborted, commands ignored until end of transaction block"
        conn.exec_driver_sql("insert into tx_mine values (8)")
        conn.commit()
    with pg.connect() as other:
        rows = other.exec_driver_sql("select x from tx_mine order by x").fetchall()
    assert [r[0] for r in rows] == [7, 8]


def test_inside_the_users_transaction_we_see_their_rows_and_leave_it_open(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as conn:
        transaction = conn.begin()
        conn.exec_driver_sql("create table tx_new as select * from tx_events where s <> 'x'")
        conn.exec_driver_sql("insert into tx_mine values (1)")
        # a table the user created in their open transaction is visible to our call
        assert sqlmetrics.auc("tx_new", con=conn) == pytest.approx(1.0)
        assert conn.in_transaction() and transaction.is_active
        assert conn.get_nested_transaction() is None  # our savepoint is released
        transaction.rollback()
    with pg.connect() as other:
        assert other.exec_driver_sql("select count(*) from tx_mine").scalar() == 0
        assert other.exec_driver_sql("select to_regclass('tx_new')").scalar() is None


def test_an_autocommit_connection_works_and_stays_out_of_a_transaction(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("insert into tx_mine values (3)")  # SQLAlchemy's logical begin
        assert sqlmetrics.auc("tx_events", con=conn) == pytest.approx(1.0)
        with pytest.raises(InvalidDataError):
            sqlmetrics.auc("tx_broken", con=conn)
        assert conn.exec_driver_sql("select count(*) from tx_mine").scalar() == 1
        assert _locks_held(pg, _pid(conn)) == []


def test_a_connection_in_an_aborted_transaction_is_a_clear_error(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as conn:
        conn.begin()
        with pytest.raises(sqlalchemy.exc.DataError):
            conn.exec_driver_sql("select cast('x' as int)")
        with pytest.raises(
            SqlMetricsError,
            match=r"con= is a SQLAlchemy Connection whose transaction has failed.*roll it back",
        ):
            sqlmetrics.auc("tx_events", con=conn)
        conn.rollback()
