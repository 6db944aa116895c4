"""Every SQL dialect sqlmetrics writes, and the facts Python needs of each, declared once.

The SQL side of each dialect is ``sql/_macros/shared/dialect.sql`` (its ``<dialect>__`` macros,
as dbt's ``adapter.dispatch`` resolves them); this module is the Python side: the dialect's
name, its float type (as the macro ``float_type()`` writes it: a test compares the two), how
it quotes identifiers, the SQLAlchemy dialect names that speak it, the files it reads in a
query, and whether sqlmetrics runs on it (a backend) or only renders for it. Everything else
reads from here: the dialect check of ``render`` (``_templating.templates``), identifier
quoting (``_templating.quoting``), number literals (``_templating.literals``), SQLAlchemy
engines (``_backends.sqlalchemy_backend``) and file readers (``_backends.files``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ["DEFAULT", "DIALECTS", "FILE_KINDS", "NAMES", "SQLALCHEMY_DIALECTS", "Dialect"]

#: the file kinds a dialect may read in a query, as messages name them
FILE_KINDS = {"parquet": "Parquet", "csv": "CSV"}


@dataclass(frozen=True)
class Dialect:
    """One SQL dialect's facts.

    name: what ``dialect=`` / ``--dialect`` take and dbt's adapter type.
    title: the engine's name in messages.
    float_type: the binary64 type (``float_type()`` in sql/_macros/shared/dialect.sql).
    quote: the identifier quote character; escape: how one inside a name is written,
    ``"double"`` (doubled) or ``"backslash"`` (a backslash and the backslash itself escaped).
    case_insensitive: a pattern of the names the engine stores in uppercase when they are
    written unquoted (Snowflake); such a name is quoted in uppercase, so it still matches.
    sqlalchemy: the SQLAlchemy dialect names (``engine.dialect.name``) that speak it.
    file_readers: per file kind (``"parquet"``, ``"csv"``), the SQL that reads files of that
    kind in a query, ``{paths}`` standing for the quoted path(s); paths: how a path is quoted
    there, as a string ``"literal"`` (DuckDB, which also reads globs and folders) or as an
    ``"identifier"`` (Spark's ``parquet.`path```, a file or a folder).
    text_type: the type a value is cast to for text in the checks of a SQLAlchemy engine
    (``as_text``; the templates' ``string_type()`` is the SQL side's own).
    runs: sqlmetrics runs queries on it (a backend, tested on the engine); otherwise the SQL
    is rendered and parsed only.
    parent: a dialect whose SQL this one writes except where a ``<name>__`` macro of its own
    says otherwise (``adapter.dispatch`` tries ``<name>__``, then ``<parent>__``, then
    ``default__``): Sail, a Spark Connect server, speaks Spark SQL with a few gaps.
    """

    name: str
    title: str
    float_type: str
    quote: str = '"'
    escape: Literal["double", "backslash"] = "double"
    case_insensitive: re.Pattern[str] | None = None
    sqlalchemy: tuple[str, ...] = ()
    file_readers: Mapping[str, str] = field(default_factory=dict)
    paths: Literal["literal", "identifier"] = "literal"
    text_type: str = "varchar"
    runs: bool = False
    parent: str | None = None

    def dispatch(self) -> tuple[str, ...]:
        """The macro prefixes ``adapter.dispatch`` tries for this dialect, first to last.

        >>> DIALECTS["sail"].dispatch()
        ('sail', 'spark', 'default')
        """
        own = (self.name, *DIALECTS[self.parent].dispatch()) if self.parent else (self.name,)
        return own if own[-1] == "default" else (*own, "default")

    def reads_only(self) -> str:
        """The end of a message refusing a file: ``"; Spark reads Parquet paths only"``, or
        ``""`` for a dialect that reads no file in a query.

        >>> DIALECTS["spark"].reads_only()
        '; Spark reads Parquet paths only'
        """
        readable = " and ".join(FILE_KINDS[kind] for kind in self.file_readers)
        return f"; {self.title} reads {readable} paths only" if readable else ""


#: the dialects, in the order messages list them
DIALECTS: Mapping[str, Dialect] = MappingProxyType(
    {
        d.name: d
        for d in (
            Dialect(
                "duckdb",
                "DuckDB",
                "double",
                sqlalchemy=("duckdb",),
                file_readers={
                    "parquet": "read_parquet({paths})",
                    "csv": "read_csv({paths}, header = true)",
                },
                runs=True,
            ),
            Dialect(
                "postgres",
                "PostgreSQL",
                "double precision",
                sqlalchemy=("postgresql",),
                text_type="text",
                runs=True,
            ),
            # Spark's CSV source reads no header through a path in a query: Parquet only
            Dialect(
                "spark",
                "Spark",
                "double",
                quote="`",
                file_readers={"parquet": "parquet.{paths}"},
                paths="identifier",
                text_type="string",
                runs=True,
            ),
            # Sail (pysail), a Spark Connect server without a JVM: Spark SQL, but
            # percentile_approx takes one percentage, not an array (sail__ macros)
            Dialect(
                "sail",
                "Sail",
                "double",
                quote="`",
                file_readers={"parquet": "parquet.{paths}"},
                paths="identifier",
                text_type="string",
                runs=True,
                parent="spark",
            ),
            Dialect(
                "bigquery",
                "BigQuery",
                "float64",
                quote="`",
                escape="backslash",
                sqlalchemy=("bigquery",),
                text_type="string",
            ),
            Dialect(
                "snowflake",
                "Snowflake",
                "double",
                # a name Snowflake could read unquoted: it stores and resolves it in uppercase
                case_insensitive=re.compile(r"[a-z_][a-z0-9_$]*"),
                sqlalchemy=("snowflake",),
            ),
            Dialect("trino", "Trino", "double", sqlalchemy=("trino",)),
            # ClickHouse reads a backslash in a quoted name as an escape
            Dialect("clickhouse", "ClickHouse", "Float64", escape="backslash", runs=True),
        )
    }
)

#: the dialect names ``render(..., dialect=)`` accepts
NAMES: tuple[str, ...] = tuple(DIALECTS)

#: the dialect Python renders for by default (dbt passes its own adapter)
DEFAULT = "duckdb"

#: our dialect per SQLAlchemy dialect name
SQLALCHEMY_DIALECTS: Mapping[str, str] = MappingProxyType(
    {alias: d.name for d in DIALECTS.values() for alias in d.sqlalchemy}
)
