"""The Spark backend: metrics run as Spark SQL on a ``pyspark.sql.SparkSession`` (``con=``),
JVM-backed or a Spark Connect client (nothing here reads the JVM; py4j is imported for
classic sessions only).

``data`` is a table or view of the session's catalog (``db.table`` and ``catalog.db.table``
allowed, looked up with ``spark.catalog``), a Spark DataFrame (registered as a temporary view
named ``__sqlmetrics_<hex>`` and dropped afterwards, also after an error: the one thing
sqlmetrics ever creates in a user's catalog) or a Parquet path, glob or directory (read with
``parquet.`path```). Templates render with dialect ``spark`` (``sail`` on a Sail server,
:func:`is_sail`); the metrics whose plain SQL
would gather a slice into one partition (AUC, the curves, average precision) have
distributed ``spark__`` kernels (``sql/_macros/kernels/auc.sql``, ``auc_prefixed``). Results
come back with ``toPandas()``: one row per slice (per curve point for the curves), never the data.
"""

from __future__ import annotations

import contextlib
import decimal
import os
import re
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .._templating.quoting import quote_ident
from ..errors import (
    ColumnNotFoundError,
    DataSourceError,
    EngineError,
    InvalidDataError,
    SqlMetricsError,
)
from .base import PREFIX, Backend, unique_name
from .files import CSV_SUFFIXES, PARQUET_SUFFIXES

if TYPE_CHECKING:
    import pandas as pd

#: Spark error conditions and the error class sqlmetrics raises for them (as on DuckDB)
_CONDITIONS: dict[str, type[SqlMetricsError]] = {
    "TABLE_OR_VIEW_NOT_FOUND": DataSourceError,
    "PATH_NOT_FOUND": DataSourceError,
    "UNABLE_TO_INFER_SCHEMA": DataSourceError,
    "UNRESOLVED_COLUMN": ColumnNotFoundError,
    "CAST_INVALID_INPUT": InvalidDataError,
    "CAST_OVERFLOW": InvalidDataError,
    "ARITHMETIC_OVERFLOW": InvalidDataError,
}


def spark_message(exc: BaseException) -> str:
    """The engine's message without the JVM stack trace and the query excerpt, on one line."""
    text = str(exc)
    for marker in ("\n\nJVM stacktrace:", "JVM stacktrace:", "\n== SQL", "== SQL"):
        text = text.split(marker)[0]
    return " ".join(text.split()).rstrip(". ;")


def spark_condition(exc: BaseException) -> str:
    """The error condition of a Spark error (``TABLE_OR_VIEW_NOT_FOUND``), or ``""``."""
    for getter in ("getCondition", "getErrorClass"):
        method = getattr(exc, getter, None)
        if callable(method):
            try:
                value = method()
            except Exception:  # an error without a condition
                value = None
            if value:
                return str(value).split(".")[0]
    return ""


#: Spark SQL settings that change what sqlmetrics' statements mean, and the value they are
#: written for: ``quotedRegexColumnNames`` reads a backquoted name as a regular expression
#: (`Item Id` inside a function call is then an error). Set for the call where the session
#: differs, and put back by :meth:`SparkBackend.close`, also after an error. The other
#: settings of a session (ANSI mode, the legacy flags, time zone, partitions) change no value:
#: tests/test_invariance_session.py lists what was measured.
PINNED_SETTINGS: dict[str, str] = {"spark.sql.parser.quotedRegexColumnNames": "false"}
#: pinned on a Sail session too (issue 45): Sail 0.7.2 writes an ANSI division as ``a / case
#: when a = 0 then raise_error(...) else a end`` and raises "Division by zero" where no
#: divisor is zero (a filtered cross join over a one-row input; the Poisson draws of a
#: bootstrap). Every division of the templates is already guarded (``nullif``), so ANSI
#: mode changes no value of theirs: tests/test_invariance_session.py runs both modes on Spark
SAIL_PINNED_SETTINGS: dict[str, str] = {**PINNED_SETTINGS, "spark.sql.ansi.enabled": "false"}


def is_connect(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session (pyspark's remote mode: Databricks
    Connect and serverless, ``SparkSession.builder.remote(...)``, the ``pyspark-client``
    package): a client of a server, with no JVM and no py4j in the process.
    """
    return type(spark).__module__.startswith("pyspark.sql.connect")


#: Spark Connect sessions already probed by :func:`is_sail` -> whether Sail serves them
_SAIL: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def is_sail(spark: Any) -> bool:
    """Whether ``spark`` is a Spark Connect session of a Sail server (``pysail``): Spark SQL
    without a JVM, rendered with dialect ``sail`` (Spark's SQL but where Sail lacks a
    construct). Sail reports a Spark version to the client but its own in ``version()``
    (``'0.7.2'``); Spark's ``version()`` starts with the version the client reports. Probed
    once per session (one statement).
    """
    if not is_connect(spark):
        return False
    try:
        return _SAIL[spark]
    except (KeyError, TypeError):
        pass
    rows = spark.sql("select version()").collect()
    found = str(rows[0][0]).split(" ")[0] != str(spark.version)
    with contextlib.suppress(TypeError):  # a session without weak references: probed each time
        _SAIL[spark] = found
    return found


class SparkBackend(Backend):
    """Spark SQL on the ``pyspark.sql.SparkSession`` passed as ``con=``; the session keeps its
    settings but those of :data:`PINNED_SETTINGS`, which are set for the call only.
    """

    name = "spark"
    dialect = "spark"
    NOT_FINITE = "(isnan({0}) or abs({0}) = cast('Infinity' as double))"
    TEXT = "cast({0} as string)"
    TUPLE_TEXT = "concat('(', concat_ws(', ', {0}), ')')"

    def __init__(self, spark: Any) -> None:
        from pyspark.errors import PySparkException

        self.spark = spark
        errors: tuple[type[BaseException], ...] = (PySparkException,)
        if not is_connect(spark):  # a JVM-backed session: py4j's errors too
            from py4j.protocol import Py4JError

            errors += (Py4JError,)
        self.errors = errors
        self.interrupts = ()
        #: the settings this backend pins for a call (:data:`PINNED_SETTINGS`)
        self.pinned = PINNED_SETTINGS
        if is_sail(spark):
            self.dialect = "sail"
            self.pinned = SAIL_PINNED_SETTINGS
        #: the session's own values of the pinned settings this call changed
        self._restore: dict[str, str] | None = None

    def _pin(self) -> None:
        if self._restore is not None:
            return
        self._restore = {}
        for key, value in self.pinned.items():
            current = str(self.spark.conf.get(key))
            if current.lower() != value:
                self.spark.conf.set(key, value)
                self._restore[key] = current

    def close(self, failed: bool = False) -> None:
        for key, value in (self._restore or {}).items():
            self.spark.conf.set(key, value)
        self._restore = None

    # ---------------------------------------------------------------- running statements
    def query(self, sql: str) -> pd.DataFrame:
        self._pin()
        result = self.spark.sql(sql)
        frame = result.toPandas()
        integral = ("tinyint", "smallint", "int", "bigint")
        for i, field in enumerate(result.schema.fields):
            column = frame.iloc[:, i]
            values = column.dropna()
            if len(values) and all(isinstance(v, decimal.Decimal) for v in values):
                # decimal results (exact sums) as floats, as on DuckDB
                frame.isetitem(i, column.astype(float))
            elif (
                field.dataType.simpleString() in integral
                and column.dtype == "float64"
                and bool((values.abs() < 2.0**53).all())
                and bool((values == values.round()).all())  # Sail may declare a double bigint
            ):
                # an integer column with NULL (toPandas makes it float64) as pandas' nullable
                # Int64, as DuckDB gives it; exact: every value is below 2^53
                frame.isetitem(i, column.astype("Int64"))
        return frame

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        self._pin()
        return [tuple(row) for row in self.spark.sql(sql).collect()]

    # ---------------------------------------------------------------- relations and types
    def columns(self, relation: str) -> dict[str, str]:
        self._pin()
        schema = self.spark.sql(f"select * from {relation}").schema
        return {field.name: field.dataType.simpleString() for field in schema.fields}

    def resolve_table(self, name: str) -> str | None:
        catalog = self.spark.catalog
        try:
            if not catalog.tableExists(name):
                return None
            table = catalog.getTable(name)
        except self.errors:  # a name Spark cannot parse as a table name
            return None
        parts = [str(p) for p in (table.namespace or [])]
        if not table.isTemporary and table.catalog:
            parts.insert(0, str(table.catalog))
        return ".".join(quote_ident(p, self.dialect) for p in [*parts, str(table.name)])

    def table_names(self) -> list[str]:
        # SHOW TABLES, not catalog.listTables(): the latter decodes its rows into Table objects,
        # which fails in a session that interprets expressions (factoryMode NO_CODEGEN)
        names = {str(row[1]) for row in self.spark.sql("show tables").collect()}
        return sorted(n for n in names if not n.startswith(PREFIX))

    @contextmanager
    def register(self, obj: Any, metric: str, arg: str) -> Iterator[str]:
        from pyspark.sql import DataFrame

        if not isinstance(obj, DataFrame):
            raise DataSourceError(
                f"{metric}: {arg}= is a {type(obj).__name__}; with con= a SparkSession, {arg}= "
                f"must be a Spark DataFrame, the name of a table or view of its catalog, or a "
                f"Parquet path (spark). Turn a pandas DataFrame into a Spark one with "
                f"spark.createDataFrame(frame), or leave con= out to compute with DuckDB"
            )
        name = unique_name()
        # the view is registered in the DataFrame's session: another session than con= (a
        # newSession(), another Connect session) does not see it, which is checked by looking
        # for it (no JVM attribute: the same code for classic and Connect sessions)
        obj.createOrReplaceTempView(name)
        if obj.sparkSession is not self.spark and not self.spark.catalog.tableExists(name):
            obj.sparkSession.catalog.dropTempView(name)
            raise DataSourceError(
                f"{metric}: {arg}= is a DataFrame of another SparkSession than con= (spark); "
                f"pass the session that made it as con="
            )
        try:
            yield quote_ident(name, self.dialect)
        finally:
            self.spark.catalog.dropTempView(name)

    def files(self, metric: str, arg: str, paths: Sequence[str]) -> str:
        for path in paths:
            lower = path.lower()
            if lower.endswith(CSV_SUFFIXES) or not (
                lower.endswith(PARQUET_SUFFIXES) or os.path.isdir(path) or "*" in path
            ):
                raise DataSourceError(
                    f"{metric}: {arg}={path!r}: with con= a SparkSession, files must be Parquet "
                    f"(a .parquet file, a directory of them or a glob); read other formats with "
                    f"spark.read (e.g. spark.read.csv(path, header=True, inferSchema=True)) "
                    f"and pass the DataFrame"
                )
        # a local relative path is Python's: the JVM resolves it against its own working
        # directory, fixed when the session started (an os.chdir since would read another file)
        paths = [
            p if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", p) else os.path.abspath(p) for p in paths
        ]
        readers = [f"select * from parquet.{quote_ident(p, self.dialect)}" for p in paths]
        if len(readers) == 1:
            return f"parquet.{quote_ident(paths[0], self.dialect)}"
        return "(" + " union all ".join(readers) + f") as {PREFIX}files"

    # ---------------------------------------------------------------- errors
    def message(self, exc: BaseException) -> str:
        return spark_message(exc)

    def wrap_error(self, metric: str, labels: Sequence[str], exc: BaseException) -> SqlMetricsError:
        where = " / ".join(labels) or "data"
        condition = spark_condition(exc)
        message = spark_message(exc)
        kind = _CONDITIONS.get(condition)
        if kind is ColumnNotFoundError:
            return ColumnNotFoundError(
                f"{metric}: {where}: a column is missing on spark: {message}; pass the "
                f"column names the data have"
            )
        if kind is DataSourceError:
            return DataSourceError(f"{metric}: {where} cannot be read on spark: {message}")
        if kind is InvalidDataError:
            return InvalidDataError(
                f"{metric}: {where} on spark holds a value of the wrong type: {message}; fix or "
                f"drop that value, or cast the column in a view and pass the view"
            )
        return EngineError(
            f"{metric}: the engine (spark) failed on {where}: {type(exc).__name__}: {message}"
        )
