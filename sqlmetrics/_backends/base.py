"""The :class:`Backend` interface every engine implements, and what all engines share: the
prefix of the names sqlmetrics registers, SQL type families, the generic error wrap.
"""

from __future__ import annotations

import abc
import decimal
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from .._templating.quoting import quote_ident
from ..errors import EngineError, SqlMetricsError

if TYPE_CHECKING:
    import pandas as pd

#: a prefix no user object has: every name sqlmetrics registers or creates starts with it
PREFIX = "__sqlmetrics_"


_NUMERIC = {
    "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
    "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC",
    "DOUBLE PRECISION", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8", "BYTE", "SHORT", "LONG",
    "INT64", "FLOAT64", "NUMBER", "BIGNUMERIC",
    # ClickHouse
    "INT16", "INT32", "INT128", "INT256", "UINT8", "UINT16", "UINT32", "UINT64", "UINT128",
    "UINT256", "FLOAT32", "BFLOAT16", "DECIMAL32", "DECIMAL64", "DECIMAL128", "DECIMAL256",
}  # fmt: skip
_FLOATING = {
    "FLOAT", "DOUBLE", "REAL", "DOUBLE PRECISION", "FLOAT4", "FLOAT8", "FLOAT64", "FLOAT32",
    "BFLOAT16",
}  # fmt: skip
_TEXT = {
    "VARCHAR", "STRING", "TEXT", "CHAR", "CHARACTER", "CHARACTER VARYING", "BPCHAR", "NAME",
    "FIXEDSTRING",
}  # fmt: skip


def frame_of_rows(rows: Sequence[Sequence[Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A result's rows as DuckDB's ``.df()`` would give them: exact decimals (the exact sums) as
    floats, and an integer column that holds NULL as pandas' nullable ``Int64`` (pandas alone
    would make it float64: an integer slice ``3`` shown as ``3.0``).
    """
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=list(columns))
    for i in range(len(frame.columns)):
        values = [row[i] for row in rows]
        present = [v for v in values if v is not None]
        if not present:
            continue
        if all(isinstance(v, decimal.Decimal) for v in present):
            frame.isetitem(i, pd.array([float("nan") if v is None else float(v) for v in values]))
        elif len(present) < len(values) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in present
        ):
            frame.isetitem(i, pd.array(values, dtype="Int64"))
    return frame


def unique_name() -> str:
    """A fresh name for something sqlmetrics registers: ``__sqlmetrics_<32 hex digits>``."""
    return f"{PREFIX}{uuid.uuid4().hex}"


def unwrap_type(sql_type: str) -> str:
    """``sql_type`` without ClickHouse's ``Nullable(...)`` and ``LowCardinality(...)``.

    >>> unwrap_type("LowCardinality(Nullable(String))")
    'String'
    """
    text = sql_type.strip()
    while True:
        match = re.fullmatch(r"(?i:Nullable|LowCardinality)\((.*)\)", text)
        if match is None:
            return text
        text = match.group(1).strip()


def base_type(sql_type: str) -> str | None:
    """The bare upper-case type name of a scalar type (``NUMERIC(10, 2)`` -> ``NUMERIC``,
    ClickHouse's ``Nullable(Float64)`` -> ``FLOAT64``), or None for a list, array, struct or
    map (``DOUBLE[]``, ``STRUCT(a DOUBLE)``, ``array<int>``).
    """
    upper = unwrap_type(sql_type).upper()
    match = re.fullmatch(
        r"([A-Z][A-Z0-9_]*(?: [A-Z][A-Z0-9_]*)*)(\(\s*\d+(\s*,\s*\d+)?\s*\))?", upper
    )
    return match.group(1) if match else None


def type_family(sql_type: str) -> str:
    """What a value of this engine type compares with: ``"number"``, ``"text"``,
    ``"date/time"``, or, for anything else (booleans included), the type name upper-cased.
    """
    upper = unwrap_type(sql_type).upper()
    base = base_type(upper)
    if base in _NUMERIC:
        return "number"
    if base in _TEXT or upper.startswith("ENUM("):
        return "text"
    if upper.startswith(("TIMESTAMP", "DATE", "TIME")):
        return "date/time"
    return upper


class Backend(abc.ABC):
    """One engine that runs sqlmetrics' SQL (see the module docstring for the contract)."""

    name: str = ""
    dialect: str = ""
    errors: tuple[type[BaseException], ...] = ()
    interrupts: tuple[type[BaseException], ...] = ()
    #: the Ibis backend ``con=`` was (its connection is the one run on), or None
    ibis: Any = None

    # ---------------------------------------------------------------- running statements
    @abc.abstractmethod
    def query(self, sql: str) -> pd.DataFrame:
        """Run ``sql``; its result as a DataFrame (column names as the statement gives them)."""

    @abc.abstractmethod
    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql``; its result as a list of tuples of Python values."""

    # ---------------------------------------------------------------- relations and types
    @abc.abstractmethod
    def columns(self, relation: str) -> dict[str, str]:
        """The columns of ``relation`` (SQL after ``from``), in order, with their engine types."""

    def derived(self, query: str) -> str:
        """``query`` (a select statement) as a relation: SQL read after ``from`` both bare
        and followed by an alias (``where=``'s filtered rows, :func:`.source.filter_rows`).
        """
        return f"({query})"

    def family(self, sql_type: str) -> str:
        """``"number"``, ``"boolean"``, ``"text"``, ``"date/time"`` or the type upper-cased."""
        if unwrap_type(sql_type).upper() in ("BOOLEAN", "BOOL"):
            return "boolean"
        return type_family(sql_type)

    def is_floating(self, sql_type: str) -> bool:
        """Whether a column of this type can hold NaN or infinities (checked before running)."""
        return base_type(sql_type) in _FLOATING

    @abc.abstractmethod
    def resolve_table(self, name: str) -> str | None:
        """The quoted SQL name of table or view ``name`` (schema-qualified allowed), or None;
        looked up in the catalog, never by a query that could fail.
        """

    @abc.abstractmethod
    def table_names(self) -> list[str]:
        """Names of the tables and views the user could pass (for the "not found" message)."""

    @abc.abstractmethod
    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        """Relation SQL for an in-memory object, removed on exit (also after an error); an
        engine that cannot take one raises :class:`DataSourceError` naming the fix.
        """

    @abc.abstractmethod
    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        """Relation SQL reading the Parquet/CSV files or globs ``paths``."""

    # ---------------------------------------------------------------- check expressions
    def ident(self, name: str) -> str:
        """``name`` quoted as an identifier of the backend's dialect."""
        return quote_ident(name, self.dialect)

    #: the engine's SQL of the three methods below, ``{0}`` the expression (for
    #: ``TUPLE_TEXT``: the values as text, comma-separated, NULL as 'NULL'; None: the engine
    #: casts a ``row(...)``); a backend whose SQL depends on more overrides the method
    NOT_FINITE: ClassVar[str]
    TEXT: ClassVar[str] = "cast({0} as varchar)"
    TUPLE_TEXT: ClassVar[str | None] = None

    def is_not_finite(self, expr: str) -> str:
        """A boolean SQL expression: the floating value ``expr`` is NaN or infinite."""
        return self.NOT_FINITE.format(expr)

    def as_text(self, expr: str) -> str:
        """``expr`` cast to the engine's string type."""
        return self.TEXT.format(expr)

    def tuple_text(self, exprs: Sequence[str]) -> str:
        """One string showing the values of ``exprs`` (a duplicated key in a message)."""
        if self.TUPLE_TEXT is None:
            return self.as_text("row(" + ", ".join(exprs) + ")")
        parts = ", ".join(f"coalesce({self.as_text(e)}, 'NULL')" for e in exprs)
        return self.TUPLE_TEXT.format(parts)

    # ---------------------------------------------------------------- errors
    def message(self, exc: BaseException) -> str:
        """The engine's message of ``exc`` on one line, without a driver's query excerpt."""
        lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return lines[0].strip().rstrip(";") if lines else type(exc).__name__

    @abc.abstractmethod
    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        """Our error for engine error ``exc`` raised while checking or computing ``metric``
        on the inputs ``labels`` (``["data='events'"]``): the engine's name and message kept.
        """

    def close(self, failed: bool = False) -> None:  # noqa: B027 (optional: most open nothing)
        """Release what the backend opened for this call (not the user's connection), and
        leave the user's connection as it was; ``failed``: the call ended with an error.
        """


def engine_failed(
    backend: Backend, metric: str, labels: Sequence[str], exc: BaseException
) -> EngineError:
    """The generic wrap: ``<metric>: the engine failed on <inputs> on <engine>: <class>:
    <message>``, the message's first line (a driver's query excerpt left out).
    """
    where = " / ".join(labels) or "data"
    if f" on {backend.name}" not in where:
        where += f" on {backend.name}"
    lines = str(exc).strip().splitlines()
    message = lines[0].strip() if lines else ""
    return EngineError(f"{metric}: the engine failed on {where}: {type(exc).__name__}: {message}")


def driver_message(exc: BaseException) -> str:
    """A driver's error on one line: the database's own error where a SQLAlchemy error wraps
    it (``orig``), else ``exc``.
    """
    return " ".join(str(getattr(exc, "orig", None) or exc).split())


@contextmanager
def closing(backend: Backend) -> Iterator[Backend]:
    """``backend`` for one call, then :meth:`Backend.close` (told whether the call failed)."""
    failed = False
    try:
        yield backend
    except BaseException:
        failed = True
        raise
    finally:
        backend.close(failed)
