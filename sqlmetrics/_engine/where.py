"""``where=``: the caller's SQL boolean expression, applied to ``data`` before anything else.

The expression is the caller's own SQL over the data's columns, pasted as written into
``select * from <data> where (<expression>)``; so it must be one expression, not a script:
no ``;``, no comment (``--``, ``/*``, which would swallow the closing parenthesis), and its
parentheses balanced (none that closes ours), each judged outside quoted text (``'a;b'`` and
``"odd;name"`` are fine). Everything after that (column checks, value checks, the metrics,
``n_rows``) sees only the rows where it holds. The CLI's ``--where`` uses the same check.

The checked expression travels with the data, as :class:`Filtered` (:func:`filtered`):
whatever opens the data (``open_source``) reads the filtered rows, on every engine, so the
intervals of ``ci=``, the wide ``scores=`` and each model of ``compare`` see the same rows as
the point values.
"""

from __future__ import annotations

from typing import Any

from .._backends.source import WHERE_EXAMPLE, Filtered
from ..errors import InvalidParameterError

__all__ = ["WHERE_CTE", "Filtered", "check_where", "filtered", "where_problem"]

#: the CTE that holds the filtered rows in the composed statement
WHERE_CTE = "sqlmetrics_where"

EXAMPLE = WHERE_EXAMPLE


def where_problem(where: str) -> str | None:
    """Why ``where`` is not one SQL boolean expression (a phrase), or None when it is one.

    >>> where_problem("country = 'DE'") is None, where_problem("x = 'a;b'") is None
    (True, True)
    >>> where_problem("1 = 1; drop table t")
    "holds a ';' (a second statement)"
    >>> where_problem("x = 1) or (1 = 1")
    "closes a parenthesis it did not open (')' at character 6)"
    """
    if not where.strip():
        return "is empty"
    quote: str | None = None
    depth = 0
    i = 0
    while i < len(where):
        ch = where[i]
        if quote is not None:
            if ch == quote:  # a doubled quote ('it''s') closes and reopens: the same state
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == ";":
            return "holds a ';' (a second statement)"
        elif where.startswith("--", i) or where.startswith("/*", i):
            return f"holds a comment ({where[i : i + 2]!r} at character {i + 1})"
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return f"closes a parenthesis it did not open (')' at character {i + 1})"
        i += 1
    if quote is not None:
        return f"leaves a {quote} quote open"
    if depth:
        return f"leaves {depth} parenthesis(es) open"
    return None


def check_where(caller: str, where: Any) -> str | None:
    """``where`` checked (None passes): text holding one SQL boolean expression."""
    if where is None:
        return None
    if not isinstance(where, str):
        raise InvalidParameterError(
            f"{caller}: where={where!r} must be text, one SQL boolean expression over the "
            f"data's columns, e.g. where={EXAMPLE}"
        )
    problem = where_problem(where)
    if problem is not None:
        shown = where if where.strip() else ""
        raise InvalidParameterError(
            f"{caller}: where={shown!r} {problem}; give one SQL boolean expression over the "
            f"data's columns, e.g. where={EXAMPLE}"
        )
    return where


def filtered(data: Any, where: str | None) -> Any:
    """``data`` as ``where=`` hands it on: :class:`Filtered` when there is an expression (checked
    by :func:`check_where`), ``data`` itself without one.
    """
    return data if where is None else Filtered(data, where)
