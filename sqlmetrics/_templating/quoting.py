"""The one quoting of identifiers and string literals per dialect: every name and text that
reaches SQL goes through here (string literals through the ``string_literal`` macro of
``sql/_macros/dialect.sql``, which the templates use too).
"""

from __future__ import annotations

from .templates import macro

#: dialects whose identifiers are quoted with backticks (the others: double quotes)
_BACKTICK_DIALECTS = ("spark", "bigquery")


def quote_ident(name: str, dialect: str = "duckdb") -> str:
    """Quote one SQL identifier for ``dialect``: double quotes around it, embedded double quotes
    doubled; backticks on Spark (embedded backticks doubled) and BigQuery (backslash-escaped);
    ClickHouse reads a backslash in a quoted name as an escape: double quotes, a double quote or
    backslash inside backslash-escaped.

    >>> print(quote_ident('a"b'), quote_ident("a`b", "spark"))
    "a""b" `a``b`
    >>> quote_ident('a"b', "clickhouse") == '"a' + chr(92) + '"b"'
    True
    """
    if not isinstance(name, str) or name == "":
        raise TypeError(f"an identifier must be a non-empty string, got {name!r}")
    if dialect == "bigquery":
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
    if dialect == "clickhouse":
        return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if dialect in _BACKTICK_DIALECTS:
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str, dialect: str = "duckdb") -> str:
    """Quote a SQL string literal for ``dialect``: the macro ``string_literal``
    (sql/_macros/dialect.sql), the one quoting of text per dialect, so that a path or setting
    survives rendering and every quoting setting as a class name does.

    >>> quote_literal("it's")
    "'it''s'"
    """
    return str(macro("string_literal", dialect)(value))


def quote_table(name: str, dialect: str = "duckdb") -> str:
    """Quote a possibly qualified table name ``db.schema.table``, part by part."""
    return ".".join(quote_ident(part, dialect) for part in name.split("."))
