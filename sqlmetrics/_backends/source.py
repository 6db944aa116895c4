"""Turn whatever the user calls ``data`` into something a SQL ``from`` clause can read.

:func:`open_source` resolves ``data`` on a backend (DuckDB, a SQLAlchemy database, Spark), which
decides what it accepts. On DuckDB: a table or view name in ``con``; a path, glob, folder or list
of Parquet / CSV files; a pandas DataFrame; a pyarrow Table; a DuckDB relation. Objects are
registered under a unique temporary name and unregistered afterwards, also when the query fails.
Nothing is ever written to the user's database; a database given by path is opened
``read_only=True``. Table names are looked up in the catalog, on every engine, never by a query
that could fail (and so abort the user's open transaction).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from .._templating.templates import render_macro
from ..errors import DataSourceError, InvalidParameterError
from .base import Backend, driver_message
from .duckdb_backend import DuckDBBackend, engine_message
from .files import is_path_like
from .ibis_source import expression_backend, is_ibis_table, relation, same_backend


@dataclass
class Source:
    """A readable relation on a backend: the SQL text to put after ``from`` and what it holds."""

    backend: Backend
    sql: str
    label: str
    columns: dict[str, str] = field(default_factory=dict)

    def describe(self) -> None:
        self.columns = self.backend.columns(self.sql)


@dataclass(frozen=True)
class Filtered:
    """``data`` keeping only the rows where ``where`` holds: what ``where=`` hands on as the
    data, so that everything that opens it (:func:`open_source`, :func:`backend_for
    <sqlmetrics._backends.backend_for>`) reads the filtered rows, the intervals' and the wide
    scores' passes too. ``where`` is checked already (``_engine.where.check_where``).
    """

    data: Any
    where: str


@dataclass(frozen=True)
class Replayed:
    """``data``, a table of states (``sqlmetrics.state``), read as the rows they stand for:
    each state row ``sqlmetrics_n`` times with ``columns`` only (``state_rows``,
    sql/_macros/shared/state.sql), on the engine that holds the states.
    """

    data: Any
    columns: tuple[str, ...]


#: the example of a ``where=`` expression in messages
WHERE_EXAMPLE = "\"country = 'DE' and day >= '2026-11-01'\""


def where_cause(source: Source, where: str) -> str | None:
    """Why ``where`` cannot filter ``source`` (the engine's message: a wrong column, a syntax
    error), or None: the expression is bound by a query that reads no row.
    """
    backend = source.backend
    sql = backend.derived(f"select * from {source.sql} where ({where})")
    try:
        backend.rows(f"select count(*) from {sql} as sqlmetrics_probe where 1 = 0")
    except backend.errors as exc:
        if isinstance(exc, backend.interrupts):
            raise
        return backend.message(exc)[:400]
    return None


def filter_rows(metric: str, source: Source, where: str, arg: str = "data") -> Source:
    """``source`` keeping only the rows where ``where`` holds (:meth:`Backend.derived` of
    ``select * from <source> where (<where>)``); a wrong column or a syntax error is named
    here (:func:`where_cause`), before any check or metric.
    """
    cause = where_cause(source, where)
    if cause is not None:
        present = ", ".join(source.columns) or "(none)"
        raise InvalidParameterError(
            f"{metric}: where={where!r} cannot be applied to {arg}={source.label}: {cause}; "
            f"write a SQL boolean expression over its columns ({present}), e.g. "
            f"where={WHERE_EXAMPLE}"
        )
    sql = source.backend.derived(f"select * from {source.sql} where ({where})")
    return Source(source.backend, sql, f"{source.label} where {where}", dict(source.columns))


@contextmanager
def open_source(data: Any, backend: Any, metric: str, arg: str = "data") -> Iterator[Source]:
    """Resolve ``data`` into a :class:`Source` on ``backend`` (a DuckDB connection is taken as
    one); clean up whatever was registered, also after an error. A :class:`Filtered` ``data``
    is its data's source keeping the rows its ``where`` holds for (:func:`filter_rows`).
    """
    if not isinstance(backend, Backend):
        backend = DuckDBBackend(backend)
    if isinstance(data, Filtered):
        with open_source(data.data, backend, metric, arg) as whole:
            yield filter_rows(metric, whole, data.where, arg)
        return
    if isinstance(data, Replayed):
        with open_source(data.data, backend, metric, arg) as states:
            quoted = [backend.ident(c) for c in data.columns]
            rows = render_macro("state_rows", states.sql, quoted, dialect=backend.dialect)
            columns = {c: states.columns[c] for c in data.columns}
            yield Source(backend, backend.derived(rows), f"{states.label} (its rows)", columns)
        return
    on = "" if backend.name == "duckdb" else f" on {backend.name}"
    with ExitStack() as stack:
        if is_path_like(data):
            path = os.fspath(data)
            source = Source(backend, backend.files(metric, arg, [path]), repr(path) + on)
        elif isinstance(data, (list, tuple)) and data and all(is_path_like(d) for d in data):
            paths = [os.fspath(d) for d in data]
            source = Source(backend, backend.files(metric, arg, paths), repr(paths) + on)
        elif isinstance(data, str):
            found = backend.resolve_table(data)
            if found is None:
                present = ", ".join(backend.table_names()) or "(none)"
                if backend.name == "duckdb":
                    raise DataSourceError(
                        f"{metric}: {arg}={data!r} is neither an existing file nor a table or "
                        f"view in con; tables present: {present}. Pass con= the connection "
                        f"that holds the table, or a path to a Parquet or CSV file (a dotted "
                        f"name is a table of that exact name if there is one, else "
                        f"schema.table, database.table or database.schema.table)"
                    )
                raise DataSourceError(
                    f"{metric}: {arg}={data!r} is not a table or view in con ({backend.name}); "
                    f"tables present: {present}. Pass the name of a table or view of that "
                    f"database (schema.table for another schema)"
                )
            source = Source(backend, found, repr(data) + on)
        elif is_ibis_table(data):
            source = Source(backend, _ibis_sql(data, backend, metric, arg), "an Ibis table" + on)
        else:
            label = type(data).__name__ + on
            source = Source(
                backend, stack.enter_context(backend.register(data, metric, arg)), label
            )
        if not source.columns:
            try:
                source.describe()
            except backend.errors as exc:
                if isinstance(exc, backend.interrupts):
                    raise
                message = engine_message(exc) if backend.name == "duckdb" else driver_message(exc)
                raise DataSourceError(
                    f"{metric}: {arg}={source.label} cannot be read: {message}"
                ) from None
        yield source


def _ibis_sql(expr: Any, backend: Backend, metric: str, arg: str) -> str:
    """Ibis table expression ``expr`` as a relation on ``backend``, compiled by the Ibis
    backend ``con=`` was (or the expression's own, see :func:`backend_for
    <sqlmetrics._backends.backend_for>`).
    """
    owner = expression_backend(expr)
    if backend.ibis is None:
        hint = f"its Ibis {owner.name} backend" if owner is not None else "an Ibis backend"
        raise DataSourceError(
            f"{metric}: {arg}= is an Ibis table expression and con= is not an Ibis backend; "
            f"pass con= {hint}, or leave con= out (the expression's own backend runs it)"
        )
    if owner is not None and not same_backend(owner, backend.ibis):
        raise DataSourceError(
            f"{metric}: {arg}= is an Ibis table expression of another Ibis connection "
            f"({owner.name}) than con= ({backend.ibis.name}); pass con= the backend its tables "
            f"are in, or leave con= out"
        )
    try:
        sql = relation(expr, backend.ibis, backend.resolve_table)
    except Exception as exc:  # Ibis' own errors: an operation this backend cannot compile
        message = " ".join(str(exc).split())[:400]
        raise DataSourceError(
            f"{metric}: {arg}= (an Ibis table expression) cannot be compiled for "
            f"{backend.ibis.name}: {type(exc).__name__}: {message}"
        ) from None
    return backend.derived(sql)
