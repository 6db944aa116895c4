"""Numbers written into SQL: exact, finite DOUBLE literals (issue 15, item 8)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from .._core.dialects import DIALECTS
from ..errors import InvalidParameterError

__all__ = ["FLOAT_TYPES", "sql_double"]

#: the binary64 type per dialect (``sqlmetrics/_core/dialects.py``), as ``float_type()`` in
#: sql/_macros/shared/dialect.sql writes it (a test compares the two)
FLOAT_TYPES = {name: d.float_type for name, d in DIALECTS.items()}


def sql_double(value: Any, dialect: str = "duckdb") -> str:
    """``value`` as a SQL literal of type DOUBLE on every engine, e.g. ``cast(0.5e0 as double)``
    (the float type of ``dialect``, as the macro ``float_type()`` writes it).

    The shortest repr that reads back to the same double, always in exponent form (``0.5``
    alone is DECIMAL in DuckDB, Spark and PostgreSQL), inside a cast. Raises
    :class:`InvalidParameterError` for NaN, infinities and non-numbers, which have no literal.

    >>> sql_double(0.5)
    'cast(0.5e0 as double)'
    >>> sql_double(1e200, "bigquery")
    'cast(1e+200 as float64)'
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"a number written into SQL must be a real number; got {value!r}"
        )
    number = float(value)
    if not math.isfinite(number):
        raise InvalidParameterError(
            f"a number written into SQL must be finite; got {value!r} (a derived value such as "
            f"beta**2 may overflow: check the parameter's range)"
        )
    text = repr(number)
    if "e" not in text:
        text += "e0"
    return f"cast({text} as {FLOAT_TYPES[dialect]})"
