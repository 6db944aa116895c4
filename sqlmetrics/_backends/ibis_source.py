"""Ibis: ``con=`` an Ibis backend and ``data=`` an Ibis table expression (issue 45).

An Ibis backend holds the connection of an engine sqlmetrics runs on; that connection is the
one sqlmetrics uses, through the engine's own backend (its pinned settings, its errors, its
transaction rules): :data:`EXECUTED` names them. A table expression becomes the source as the
SQL its backend compiles it to (``backend.compile(expr)``, the backend's dialect), read as a
derived table; the in-memory tables it uses (``ibis.memtable``) are registered first, as Ibis
registers them to execute the expression. An expression bound to no backend (in-memory tables
only) runs on ``con=``'s Ibis backend, or on Ibis' default backend (DuckDB) without ``con=``.

Ibis is never imported here: its objects are recognised by their classes' modules, so
sqlmetrics runs without it installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .._core.dialects import DIALECTS
from ..errors import DataSourceError

#: the Ibis backends sqlmetrics executes on (their ``name``) -> the engine it runs as: the
#: dialects it runs (``runs``; Sail, a Spark Connect server, has no Ibis backend of its own),
#: Spark's Ibis backend named ``pyspark``; the others (BigQuery,
#: Snowflake, Trino, ...) are refused with the fix
EXECUTED = {
    ("pyspark" if d.name == "spark" else d.name): d.title
    for d in DIALECTS.values()
    if d.runs and not d.parent
}


def _mro_has(obj: Any, module: str, name: str) -> bool:
    return any(c.__module__.startswith(module) and c.__name__ == name for c in type(obj).__mro__)


def is_ibis_backend(con: Any) -> bool:
    """Whether ``con`` is an Ibis backend (``ibis.duckdb.connect()``, ...)."""
    return _mro_has(con, "ibis.backends", "BaseBackend")


def is_ibis_table(data: Any) -> bool:
    """Whether ``data`` is an Ibis table expression."""
    return _mro_has(data, "ibis.expr.types", "Table")


def expression_backend(expr: Any) -> Any:
    """The Ibis backend ``expr``'s tables belong to, or None: in-memory tables only."""
    try:
        return expr._find_backend(use_default=False)
    except Exception:  # ibis' IbisError: no backend (memtables only) or several
        return None


def default_backend() -> Any:
    """Ibis' default backend (an in-memory DuckDB), where Ibis runs unbound expressions."""
    import ibis

    return ibis.get_backend()


def check_executed(con: Any) -> str:
    """``con``'s Ibis backend name, refused where sqlmetrics does not run on it."""
    name = str(getattr(con, "name", type(con).__module__))
    if name not in EXECUTED:
        executed = ", ".join(f"{k} ({v})" for k, v in EXECUTED.items())
        raise DataSourceError(
            f"con= is an Ibis {name!r} backend, which sqlmetrics does not run on; Ibis "
            f"backends it runs on: {executed}. For another database pass a SQLAlchemy Engine "
            f"of it (sqlmetrics renders BigQuery, Snowflake and Trino SQL), or evaluate on "
            f"DuckDB: data=expr.to_pyarrow()"
        )
    return name


@contextmanager
def native_connection(con: Any) -> Iterator[Any]:
    """The connection of Ibis backend ``con`` that sqlmetrics runs on: DuckDB's connection,
    the Spark session, the clickhouse_connect client, or (PostgreSQL) a SQLAlchemy Connection
    over Ibis' own psycopg connection (:func:`_borrowed_psycopg`), which holds its temporary
    tables.
    """
    name = check_executed(con)
    if name == "postgres":
        with _borrowed_psycopg(con.con) as connection:
            yield connection
    elif name == "pyspark":
        yield con._session
    else:  # duckdb, clickhouse
        yield con.con


@contextmanager
def _borrowed_psycopg(raw: Any) -> Iterator[Any]:
    """A SQLAlchemy Connection on the psycopg connection ``raw`` of an Ibis PostgreSQL
    backend, for one call; ``raw`` is left as it was: never closed or rolled back by
    SQLAlchemy's pool, its autocommit mode and notice handlers put back.

    Ibis opens it in autocommit mode: sqlmetrics' AUTOCOMMIT rules apply (settings it pins are
    set back after the call). A connection the user took out of autocommit runs as a
    SQLAlchemy Connection outside a transaction (ours, rolled back at the end); inside a
    transaction of the user's it is refused (a rollback of ours would end theirs).
    """
    import sqlalchemy
    from sqlalchemy.pool import StaticPool

    status = raw.info.transaction_status
    if status != 0:  # psycopg's TransactionStatus.IDLE
        raise DataSourceError(
            "con= is an Ibis postgres backend whose connection is inside a transaction "
            f"({status.name}); commit or roll it back (con.con.commit()) first, or pass a "
            "SQLAlchemy Connection, whose open transaction sqlmetrics runs inside"
        )
    autocommit = raw.autocommit
    handlers = list(getattr(raw, "_notice_handlers", ()))
    engine = sqlalchemy.create_engine(
        "postgresql+psycopg://",
        creator=lambda: raw,
        poolclass=StaticPool,
        pool_reset_on_return=None,
        use_native_hstore=False,
    )
    connection = engine.connect()
    try:
        if autocommit:
            connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        yield connection
    finally:
        connection.close()  # the pool keeps ``raw`` open (never disposed)
        if raw.info.transaction_status != 0 and not raw.closed:  # pragma: no cover
            raw.rollback()
        raw.autocommit = autocommit
        for handler in list(getattr(raw, "_notice_handlers", ())):
            if handler not in handlers:
                raw.remove_notice_handler(handler)


def relation(expr: Any, ibis_con: Any, resolve: Callable[[str], str | None]) -> str:
    """The SQL of table expression ``expr`` on Ibis backend ``ibis_con`` (its dialect), its
    in-memory tables registered there first, as Ibis does before it executes one.

    On PostgreSQL, where sqlmetrics pins ``search_path`` for the call (a user's function must
    not replace a built-in one), each table the SQL names without a schema is qualified with
    the schema ``resolve`` finds it in (the user's ``search_path``, in order); a temporary
    table (an Ibis memtable) is found in ``pg_temp``, which stays on the pinned path.
    """
    hooks = getattr(ibis_con, "_run_pre_execute_hooks", None)
    if hooks is not None:
        hooks(expr)
    sql = str(ibis_con.compile(expr))
    if ibis_con.name != "postgres":
        return sql
    import sqlglot  # Ibis' own dependency
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read="postgres")
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.args.get("db") is None and table.name not in ctes:
            found = resolve(table.name)
            if found is not None:  # '"schema"."name"': its schema set, the alias kept
                table.set("db", sqlglot.parse_one(found, into=exp.Table).args["db"])
    return tree.sql(dialect="postgres")


def same_backend(a: Any, b: Any) -> bool:
    """Whether Ibis backends ``a`` and ``b`` run on the same connection."""
    return a is b or (
        getattr(a, "name", None) == getattr(b, "name", None)
        and getattr(a, "con", getattr(a, "_session", None))
        is getattr(b, "con", getattr(b, "_session", None))
    )
