"""The one quoting of identifiers and string literals per dialect: every name and text that
reaches SQL goes through here (string literals through the ``string_literal`` macro of
``sql/_macros/shared/dialect.sql``, which the templates use too).
"""

from __future__ import annotations

import functools

from .._core.dialects import DIALECTS
from .templates import macro


def quote_ident(name: str, dialect: str = "duckdb") -> str:
    """Quote one SQL identifier for ``dialect`` as its declaration says
    (``sqlmetrics/_core/dialects.py``): double quotes around it, embedded double quotes
    doubled; backticks on Spark (embedded backticks doubled) and BigQuery (backslash-escaped);
    ClickHouse reads a backslash in a quoted name as an escape: double quotes, a double quote or
    backslash inside backslash-escaped.

    Snowflake stores a name created unquoted in uppercase (``create table t (click int)``
    makes the column ``CLICK``), and a quoted name matches only its exact case: ``"click"``
    would not find it. So a name of lowercase letters, digits, ``_`` and ``$`` that does not
    start with a digit (one Snowflake could read unquoted) is case-insensitive, as in
    SQLAlchemy's Snowflake dialect: it is written in uppercase, ``"CLICK"`` (quoted, so a
    reserved word such as ``group`` stays a name). Any other name (one with an uppercase
    letter, a space, ...) is quoted exactly as given. Consequence: a column created quoted in
    lowercase (``"click"``) cannot be named; rename it, or read it through a view
    (``create view v as select "click" as click from t``).

    >>> print(quote_ident('a"b'), quote_ident("a`b", "spark"))
    "a""b" `a``b`
    >>> quote_ident('a"b', "clickhouse") == '"a' + chr(92) + '"b"'
    True
    >>> print(quote_ident("click", "snowflake"), quote_ident("Click", "snowflake"))
    "CLICK" "Click"
    """
    if not isinstance(name, str) or name == "":
        raise TypeError(f"an identifier must be a non-empty string, got {name!r}")
    facts = DIALECTS[dialect]
    q = facts.quote
    if facts.case_insensitive is not None and facts.case_insensitive.fullmatch(name):
        name = name.upper()
    if facts.escape == "backslash":
        return q + name.replace("\\", "\\\\").replace(q, "\\" + q) + q
    return q + name.replace(q, q + q) + q


@functools.lru_cache(maxsize=4096)  # a pure function of its arguments; a macro call costs
def quote_literal(value: str, dialect: str = "duckdb") -> str:  # ~0.5 ms, a hit ~0.1 us
    """Quote a SQL string literal for ``dialect``: the macro ``string_literal``
    (sql/_macros/shared/dialect.sql), the one quoting of text per dialect, so that a path or setting
    survives rendering and every quoting setting as a class name does.

    >>> quote_literal("it's")
    "'it''s'"
    """
    return str(macro("string_literal", dialect)(value))


def quote_table(name: str, dialect: str = "duckdb") -> str:
    """Quote a possibly qualified table name ``db.schema.table``, part by part."""
    return ".".join(quote_ident(part, dialect) for part in name.split("."))
