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

from ..errors import DataSourceError
from .base import Backend
from .duckdb_backend import DuckDBBackend, engine_message
from .files import is_path_like


@dataclass
class Source:
    """A readable relation on a backend: the SQL text to put after ``from`` and what it holds."""

    backend: Backend
    sql: str
    label: str
    columns: dict[str, str] = field(default_factory=dict)

    def describe(self) -> None:
        self.columns = self.backend.columns(self.sql)


@contextmanager
def open_source(data: Any, backend: Any, metric: str, arg: str = "data") -> Iterator[Source]:
    """Resolve ``data`` into a :class:`Source` on ``backend`` (a DuckDB connection is taken as
    one); clean up whatever was registered, also after an error.
    """
    if not isinstance(backend, Backend):
        backend = DuckDBBackend(backend)
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
                if backend.name == "duckdb":
                    message = engine_message(exc)
                else:
                    message = " ".join(str(getattr(exc, "orig", None) or exc).split())
                raise DataSourceError(
                    f"{metric}: {arg}={source.label} cannot be read: {message}"
                ) from None
        yield source
