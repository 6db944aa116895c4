"""Where a command's DATA is read: DuckDB (files, ``path/to/db.duckdb:table``), the database
of ``--db-url`` (SQLAlchemy) or Spark (``--spark``); shared by ``eval``, ``compare``,
``report`` and ``render --dialect spark``.

A wrong URL, master or driver is one line naming the flag, its password masked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from ._io import InputError, cancel_on_interrupt, connection, mask_url, resolve_data

F = TypeVar("F", bound=Callable[..., Any])


def engine_options(
    db_url_help: str = "Run on the database of this SQLAlchemy URL; DATA is then a table name "
    "there.",
    spark_help: str = (
        "Run on Spark with this master (sc://host:port: a Spark Connect server); DATA is then "
        "a table or a Parquet path."
    ),
) -> Callable[[F], F]:
    """``--db-url URL`` and ``--spark MASTER`` on a command, with these help texts."""

    def decorate(func: F) -> F:
        func = click.option(
            "--spark", "spark_master", default=None, metavar="MASTER", help=spark_help
        )(func)
        return click.option("--db-url", default=None, metavar="URL", help=db_url_help)(func)

    return decorate


def engine_data(
    inputs: tuple[str, ...], db_url: str | None, spark_master: str | None, trec: bool = False
) -> tuple[Any, str | None]:
    """DATA as ``evaluate`` takes it, and the DuckDB database file it lies in (or None): a
    table name of ``--db-url`` / ``--spark`` as given, else :func:`resolve_data`'s reading.
    """
    if remote_engine_option(inputs, db_url, spark_master, trec):
        if spark_master is not None:
            spark_glob(inputs[0], "--spark: DATA")
        return inputs[0], None
    return resolve_data(inputs)


def remote_engine_option(
    inputs: tuple[str, ...], db_url: str | None, spark_master: str | None, trec: bool
) -> bool:
    """Whether DATA is read by another engine (``--db-url`` / ``--spark``); its checks."""
    if db_url is None and spark_master is None:
        return False
    flag = "--db-url" if db_url is not None else "--spark"
    if db_url is not None and spark_master is not None:
        raise InputError("--db-url and --spark both given; pass one engine")
    if trec:
        raise InputError(
            f"--trec reads run and qrels files into DuckDB; it does not combine with {flag}: "
            f"load them into tables of that engine and pass the table names"
        )
    if len(inputs) != 1:
        raise InputError(
            f"with {flag}, DATA is one table (or view) name of that engine; got {len(inputs)}: "
            f"{' '.join(inputs)}"
        )
    return True


@contextmanager
def engine_connection(
    database: str | None, db_url: str | None, spark_master: str | None
) -> Iterator[Any]:
    """What ``con=`` gets: a SQLAlchemy engine (``--db-url``), a Spark session (``--spark``)
    or a DuckDB connection (on the database file of ``path/to/db.duckdb:table``, else
    in-memory); closed at the end.
    """
    if db_url is not None:
        with database_engine(db_url) as engine:
            yield engine
        return
    if spark_master is not None:
        with spark_session(spark_master) as session:
            yield session
        return
    with connection(database) as con:
        yield con


@contextmanager
def database_engine(db_url: str) -> Iterator[Any]:
    """The SQLAlchemy engine of ``--db-url``, connected once up front (a wrong URL, host or
    password is one line naming --db-url, its password masked); disposed at the end.
    """
    shown = repr(mask_url(db_url))
    try:
        import sqlalchemy
    except ImportError:
        raise InputError(
            "--db-url needs SQLAlchemy and a driver: pip install 'sqlmetrics[postgres]'"
        ) from None
    from .._backends.base import driver_message

    try:
        engine = sqlalchemy.create_engine(db_url)
    except (sqlalchemy.exc.ArgumentError, ImportError, ValueError, TypeError) as exc:
        if type(exc) is ValueError and "int()" in str(exc):  # SQLAlchemy's int() of the port
            raise InputError(
                f"--db-url {shown}: its port is not a number ({exc}); write "
                f"dialect+driver://user@host:port/database with a numeric port, e.g. "
                f"postgresql+psycopg://user@localhost:5432/analytics"
            ) from None
        raise InputError(
            f"--db-url {shown} is not a usable SQLAlchemy URL ({mask_url(str(exc))}); write "
            f"dialect+driver://user@host:port/database, e.g. "
            f"postgresql+psycopg://user@localhost:5432/analytics"
        ) from None
    try:
        try:
            engine.connect().close()
        except sqlalchemy.exc.SQLAlchemyError as exc:
            message = driver_message(exc)
            raise InputError(
                f"--db-url {shown} cannot connect: {message}; check the URL, that the server "
                f"runs and that the user may log in"
            ) from None
        yield engine
    finally:
        engine.dispose()


#: a Spark master URL, as SparkContext parses it (the values, e.g. 0 threads, are Spark's to
#: judge): checked before a JVM starts, whose own failure would print its stack trace
_SPARK_MASTER = re.compile(
    r"yarn|local|local\[(\d+|\*)(,\s*\d+)?\]|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
    r"|(spark|k8s|mesos)://\S+|sc://\S+"
)


@contextmanager
def spark_session(master: str) -> Iterator[Any]:
    """A Spark session on ``--spark`` master (stopped at the end unless the caller already
    had one), or a Spark Connect session on ``sc://host:port`` (a client of that server, no
    JVM here; its own session, stopped at the end); a master Spark cannot start is one line
    naming --spark.
    """
    master = master.strip()
    if not _SPARK_MASTER.fullmatch(master):
        raise InputError(
            f"--spark {master!r} is not a Spark master; write local[2] (or local[*] for every "
            f"core), spark://host:7077, yarn, k8s://https://host:port, or sc://host:15002 for "
            f"a Spark Connect server"
        )
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError("--spark needs pyspark: pip install 'sqlmetrics[spark]'") from None
    remote = master.startswith("sc://")
    # a classic session of the caller's is not ours to stop; a Connect one is always our own
    running = None if remote else SparkSession.getActiveSession()
    try:
        if remote:
            session = SparkSession.builder.remote(master).create()
            session.conf.set("spark.sql.session.timeZone", "UTC")
        else:
            session = (
                SparkSession.builder.master(master)
                .appName("sqlmetrics")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.session.timeZone", "UTC")
                .getOrCreate()
            )
    except Exception as exc:
        raise InputError(f"--spark {master!r}: Spark did not start: {_java_message(exc)}") from None
    cancel = session.interruptAll if remote else session.sparkContext.cancelAllJobs
    try:
        with cancel_on_interrupt(cancel):
            yield session
    finally:
        if running is None:
            session.stop()


def _java_message(exc: BaseException) -> str:
    """The cause of a Spark start-up failure on one line: the Java exception's message
    (``SparkException: Asked to run locally with 0 threads``) rather than py4j's wrapper.
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        found = re.match(r":?\s*(?:[\w$]+\.)*([\w$]*(?:Exception|Error)): (.+)", line)
        if found and not line.startswith("An error occurred"):
            return f"{found.group(1)}: {found.group(2)}"
    return lines[0] if lines else type(exc).__name__


def spark_glob(data: str, where: str) -> None:
    """Refuse a glob whose files lie in Hive partition folders (``day=2026-11-01/``): Spark
    discovers partition columns from a folder, not from a glob, so they would be lost; the
    message names the folder to pass instead.
    """
    from .._backends.files import GLOB_CHARS

    if not any(ch in data for ch in GLOB_CHARS):
        return
    import glob as globbing

    for hit in sorted(globbing.glob(data, recursive=True)):
        parts = hit.split(os.sep)[:-1]
        at = next((i for i, p in enumerate(parts) if re.fullmatch(r"[^=]+=.*", p)), None)
        if at is None:
            continue
        column = parts[at].split("=", 1)[0]
        base = os.sep.join(parts[:at]) or "."
        raise InputError(
            f"{where} {data!r} is a glob over Hive partition folders ({parts[at]}/, ...), and "
            f"Spark reads a glob without partition discovery, so the {column!r} column would "
            f"be lost; pass the folder instead, {base}{os.sep} (Spark reads its partitions as "
            f"columns)"
        )
