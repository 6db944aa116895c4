"""The SQLAlchemy backend: metrics run on the database behind an ``Engine`` or ``Connection``.

PostgreSQL is tested (``tests/test_postgres.py``, ``tests/test_engines.py``); Snowflake,
BigQuery, Trino and DuckDB engines map to their render dialect and run the same way, untested.
``data`` is a table or view name (``schema.table`` allowed), looked up with SQLAlchemy's
inspector (catalog queries only). Nothing is written: no temporary table, no view. An
``Engine`` gets a connection of its own for the call, its transaction rolled back at the end.
A ``Connection`` the user passes is left in the state it was (decision 0005): without a
transaction, the one SQLAlchemy begins on our first statement is rolled back at the end (it
would hold a lock on every table read); inside the user's transaction, our statements run in a
SAVEPOINT (``begin_nested``), released after success and rolled back to after an error, so a
failing statement of ours does not abort their transaction (in AUTOCOMMIT mode, neither).

On PostgreSQL the session settings that change what sqlmetrics' SQL computes
(:data:`PG_PINNED`) are set for the call where they differ, with ``set_config(..., true)``
inside the call's transaction or savepoint (a rollback puts them back; after a released
savepoint they are set back explicitly), and with ``set_config(..., false)`` and set back in
AUTOCOMMIT mode. A table name is looked up in the schemas of the user's ``search_path``, in
order, as PostgreSQL looks it up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._core.dialects import DIALECTS, SQLALCHEMY_DIALECTS
from ..errors import DataSourceError, InvalidDataError, SqlMetricsError
from .base import Backend, driver_message, engine_failed, frame_of_rows

if TYPE_CHECKING:
    import pandas as pd


#: PostgreSQL settings that change what sqlmetrics' SQL computes or returns, and the value it
#: runs with: ``extra_float_digits`` below 1 rounds every float sent to the client (psycopg
#: reads them as text: AP 0.6 for 0.6426); a ``search_path`` naming a schema before
#: ``pg_catalog`` lets a user's function or operator (``ln``, ``/``) replace the built-in one
#: (table names are resolved before, and qualified); the others change a string literal's
#: backslashes, ``x = NULL``, or the text of a date or interval in a message;
#: ``quote_all_identifiers`` makes the catalog spell a column's type ``"text"``, which
#: SQLAlchemy's inspector cannot read (pinned before the inspector runs). Measured on the
#: registry-wide suite (tests/test_invariance_session.py); the planner's settings (``enable_*``,
#: ``work_mem``, parallel query, JIT) change a plan, not a bit, and ``statement_timeout`` or
#: ``default_transaction_read_only`` are the user's limits (sqlmetrics only reads).
PG_PINNED: dict[str, str] = {
    "extra_float_digits": "1",
    "search_path": "pg_catalog, pg_temp",
    "standard_conforming_strings": "on",
    "transform_null_equals": "off",
    "datestyle": "ISO, MDY",
    "intervalstyle": "postgres",
    "quote_all_identifiers": "off",
}


class SQLAlchemyBackend(Backend):
    """A database reached through SQLAlchemy (``con=`` an ``Engine`` or ``Connection``)."""

    def __init__(self, con: Any) -> None:
        import sqlalchemy

        dialect_name = str(con.dialect.name)
        if dialect_name not in SQLALCHEMY_DIALECTS:
            supported = ", ".join(sorted(SQLALCHEMY_DIALECTS))
            raise DataSourceError(
                f"con= is a SQLAlchemy {type(con).__name__} of dialect {dialect_name!r}, which "
                f"sqlmetrics cannot render for; supported SQLAlchemy dialects: {supported} "
                f"(postgresql tested, the others untested)"
            )
        self.dialect = SQLALCHEMY_DIALECTS[dialect_name]
        self.name = "postgres" if self.dialect == "postgres" else dialect_name
        self.errors = (sqlalchemy.exc.SQLAlchemyError,)
        self.interrupts = ()
        self.owned = isinstance(con, sqlalchemy.engine.Engine)
        try:
            self.connection = con.connect() if self.owned else con
        except sqlalchemy.exc.SQLAlchemyError as exc:
            message = driver_message(exc)
            raise DataSourceError(
                f"con= (a SQLAlchemy {self.name} engine) cannot connect: {message}; check the "
                f"URL, that the server runs and that the user may log in"
            ) from None
        # the user's Connection: was it in a transaction, and our savepoint inside it
        self._outside = not self.owned and not con.in_transaction()
        self._savepoint: Any = None
        if not self.owned and not self._outside and not _autocommit(con):
            try:
                self._savepoint = con.begin_nested()
            except sqlalchemy.exc.SQLAlchemyError as exc:
                message = driver_message(exc)
                raise DataSourceError(
                    f"con= is a SQLAlchemy Connection whose transaction has failed ({message}); "
                    f"roll it back (conn.rollback()) or pass another connection"
                ) from None
        self._inspector: Any = None
        self._resolved: dict[str, tuple[str | None, str]] = {}  # relation SQL -> (schema, name)
        # PostgreSQL: the user's search_path schemas (read before any pin); the settings
        # pinned for the call -> their value before; whether they were set for the session
        self._schemas: list[str] | None = None
        self._restore: dict[str, str] | None = None
        self._session_pins = False

    # ---------------------------------------------------------------- running statements
    def _raw(self, sql: str) -> Any:
        return self.connection.exec_driver_sql(sql, execution_options={"no_parameters": True})

    def _search_schemas(self) -> list[str]:
        """The schemas of the user's ``search_path``, in order (read once, before pinning)."""
        if self._schemas is None:
            row = self._raw("select pg_catalog.current_schemas(false)").fetchone()
            self._schemas = [str(s) for s in (row[0] if row else [])]
        return self._schemas

    def _pin(self) -> None:
        """Set the :data:`PG_PINNED` settings that differ, once per call."""
        if self._restore is not None or self.dialect != "postgres":
            return
        self._search_schemas()
        names = list(PG_PINNED)
        values = ", ".join(f"pg_catalog.current_setting('{n}')" for n in names)
        row = self._raw(f"select {values}").fetchone()
        before = dict(zip(names, [str(v) for v in row])) if row else {}
        self._restore = {}
        self._session_pins = _autocommit(self.connection)
        local = "false" if self._session_pins else "true"
        changes = []
        for name, value in PG_PINNED.items():
            old = before.get(name, "")
            if old == value or (
                name == "extra_float_digits" and old.lstrip("-").isdigit() and int(old) >= 1
            ):
                continue
            changes.append(f"pg_catalog.set_config('{name}', {_literal(value)}, {local})")
            self._restore[name] = old
        if changes:
            self._raw("select " + ", ".join(changes))

    def _unpin(self) -> None:
        if self._restore:
            local = "false" if self._session_pins else "true"
            resets = [
                f"pg_catalog.set_config('{n}', {_literal(v)}, {local})"
                for n, v in self._restore.items()
            ]
            self._raw("select " + ", ".join(resets))
        self._restore = None

    def _execute(self, sql: str) -> Any:
        self._pin()
        # the statement goes to the driver as it is: no parameters, so neither SQLAlchemy nor
        # the driver parses ':name' or '%s' placeholders (a '%' in a name stays a '%')
        return self.connection.exec_driver_sql(sql, execution_options={"no_parameters": True})

    def query(self, sql: str) -> pd.DataFrame:
        result = self._execute(sql)
        return frame_of_rows(result.fetchall(), list(result.keys()))

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self._execute(sql).fetchall()]

    # ---------------------------------------------------------------- relations and types
    @property
    def inspector(self) -> Any:
        import sqlalchemy

        if self._inspector is None:
            self._pin()
            self._inspector = sqlalchemy.inspect(self.connection)
        return self._inspector

    def _relations(self, schema: str | None) -> list[str]:
        inspector = self.inspector
        return [*inspector.get_table_names(schema=schema), *inspector.get_view_names(schema=schema)]

    def _find(self, schema: str | None, name: str) -> tuple[str | None, str] | None:
        """``(schema, table)`` as the catalog spells them: exact match first, else the one
        name equal ignoring case (PostgreSQL folds unquoted names to lower case).
        """
        try:
            names = self._relations(schema)
        except Exception as exc:  # an unknown schema
            if isinstance(exc, self.errors):
                return None
            raise
        if name in names:
            return schema, name
        folded = [n for n in names if n.lower() == name.lower()]
        return (schema, folded[0]) if len(folded) == 1 else None

    def _quote(self, *parts: str | None) -> str:
        return ".".join(self.ident(p) for p in parts if p is not None)

    def resolve_table(self, name: str) -> str | None:
        found = None
        if self.dialect == "postgres":  # the first schema of the search_path that has it
            for schema in self._search_schemas():
                found = self._find(schema, name)
                if found is not None:
                    break
        else:
            found = self._find(self.inspector.default_schema_name, name)
        if found is None and "." in name:
            schema, _, table = name.partition(".")
            schemas = self.inspector.get_schema_names()
            exact = [s for s in schemas if s == schema] or [
                s for s in schemas if s.lower() == schema.lower()
            ]
            if len(exact) == 1:
                found = self._find(exact[0], table)
        if found is None:
            return None
        relation = self._quote(*found)
        self._resolved[relation] = found
        return relation

    def table_names(self) -> list[str]:
        names: list[str] = []
        if self.dialect == "postgres":  # the user's search_path, not the pinned one
            self.inspector  # noqa: B018 (pins, having read the user's search_path)
            for schema in self._search_schemas():
                try:
                    names += self._relations(schema)
                except self.errors:  # a schema that does not exist
                    continue
        else:
            names = self._relations(None)
        return sorted({n for n in names if not n.startswith("__sqlmetrics_")})

    def columns(self, relation: str) -> dict[str, str]:
        if relation not in self._resolved and self.dialect == "postgres":
            return self._query_columns(relation)
        found = self._resolved_of(relation)
        out: dict[str, str] = {}
        for column in self.inspector.get_columns(found[1], schema=found[0]):
            out[str(column["name"])] = self._type_name(column["type"])
        return out

    def _query_columns(self, relation: str) -> dict[str, str]:
        """The columns of a derived relation (an Ibis expression's SQL): the names and type
        OIDs of a query that reads no row, the OIDs spelled by ``pg_catalog.format_type``.
        """
        self._pin()
        result = self._raw(f"select * from {relation} as sqlmetrics_probe limit 0")
        described = [(str(d[0]), int(d[1])) for d in result.cursor.description or ()]
        result.close()
        oids = sorted({oid for _, oid in described})
        names: dict[int, str] = {}
        if oids:
            listed = ", ".join(str(oid) for oid in oids)
            names = dict(
                self._raw(
                    f"select oid::bigint, pg_catalog.format_type(oid, null) "
                    f"from pg_catalog.pg_type where oid in ({listed})"
                ).fetchall()
            )
        return {name: str(names.get(oid, "UNKNOWN")).upper() for name, oid in described}

    def _type_name(self, sql_type: Any) -> str:
        try:
            return str(sql_type.compile(self.connection.dialect))
        except Exception:  # a type SQLAlchemy cannot spell
            return type(sql_type).__name__.upper()

    def _resolved_of(self, relation: str) -> tuple[str | None, str]:
        if relation not in self._resolved:
            raise DataSourceError(f"{self.name}: {relation} is not a table resolved here")
        return self._resolved[relation]

    def derived(self, query: str) -> str:
        if self.dialect != "postgres":
            return super().derived(query)
        # PostgreSQL before 16 refuses a subquery without an alias after `from`, and the
        # relation is read both bare and aliased (`from R as t`): a parenthesized join takes
        # either, and joining the one row of no column, `(select)`, keeps rows and columns
        return f"(({query}) as sqlmetrics_rows cross join (select) as sqlmetrics_one)"

    def is_floating(self, sql_type: str) -> bool:
        # PostgreSQL's numeric holds NaN and, from version 14, infinities
        return super().is_floating(sql_type) or (
            self.dialect == "postgres" and sql_type.upper().startswith(("NUMERIC", "DECIMAL"))
        )

    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        raise DataSourceError(
            f"{metric}: {arg}= is a {type(obj).__name__}; with con= a SQLAlchemy "
            f"{self.name} engine, {arg}= must be the name of a table or view in that database "
            f"(schema.table allowed): sqlmetrics writes nothing there. Load the data into a "
            f"table first, or leave con= out to compute on an in-memory DuckDB database"
        )
        yield ""  # pragma: no cover

    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        raise DataSourceError(
            f"{metric}: {arg}={list(paths)!r} names files; with con= a SQLAlchemy {self.name} "
            f"engine, {arg}= must be the name of a table or view in that database (schema.table "
            f"allowed). Load the files into a table first, or leave con= out to read them with "
            f"DuckDB"
        )

    # ---------------------------------------------------------------- check expressions
    def is_not_finite(self, expr: str) -> str:
        if self.dialect == "bigquery":
            return f"(is_nan({expr}) or is_inf({expr}))"
        if self.dialect == "trino":
            return f"(is_nan({expr}) or is_infinite({expr}))"
        if self.dialect == "duckdb":
            return f"not isfinite({expr})"
        f8 = "double precision" if self.dialect == "postgres" else "double"
        values = ", ".join(f"cast('{v}' as {f8})" for v in ("NaN", "Infinity", "-Infinity"))
        return f"cast({expr} as {f8}) in ({values})"

    def as_text(self, expr: str) -> str:
        return f"cast({expr} as {DIALECTS[self.dialect].text_type})"

    def tuple_text(self, exprs: Sequence[str]) -> str:
        if self.dialect == "postgres":
            return f"cast(row({', '.join(exprs)}) as text)"
        parts = " || ', ' || ".join(f"coalesce({self.as_text(e)}, 'NULL')" for e in exprs)
        return f"'(' || {parts} || ')'"

    # ---------------------------------------------------------------- errors
    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        orig = getattr(exc, "orig", None) or exc
        state = str(getattr(orig, "sqlstate", "") or getattr(orig, "pgcode", "") or "")
        if state in ("22P02", "22003", "22018"):  # bad text for a type, out of range
            where = " / ".join(labels) or "data"
            message = driver_message(exc)
            return InvalidDataError(
                f"{metric}: {where} on {self.name} holds a value of the wrong type: {message}; "
                f"fix or drop that value, or cast the column in a view and pass the view"
            )
        return engine_failed(self, metric, labels, orig)

    def close(self, failed: bool = False) -> None:
        if self.owned:  # the rollback puts the pinned settings back too
            try:
                self.connection.rollback()
            finally:
                self.connection.close()
            return
        try:
            if self._session_pins or (self._savepoint is not None and not failed):
                self._unpin()  # (a rollback, ours or to the savepoint, puts them back)
            if self._savepoint is not None:
                if self._savepoint.is_active:
                    # RELEASE after success; ROLLBACK TO after an error: the user's
                    # transaction is usable again and keeps what they did before the call
                    (self._savepoint.rollback if failed else self._savepoint.commit)()
            elif self._outside and self.connection.in_transaction():
                self.connection.rollback()  # we only read: nothing of ours to keep
        except Exception:
            if not failed:
                raise
            # the error that ended the call is the one to see (this one follows from it)


def _literal(value: str) -> str:
    """``value`` as a PostgreSQL string literal whatever ``standard_conforming_strings`` is."""
    if "\\" in value:
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    return "'" + value.replace("'", "''") + "'"


def _autocommit(con: Any) -> bool:
    """Whether the user's Connection runs in AUTOCOMMIT mode (no transaction on the server:
    nothing to protect, and a SAVEPOINT would be refused).
    """
    try:
        if con._is_autocommit_isolation():
            return True
        dbapi = con.connection.dbapi_connection
        return getattr(dbapi, "autocommit", False) is True
    except Exception:  # a SQLAlchemy without the private check: as the driver says
        return False
