"""Check columns and values before any metric SQL runs.

Every check is a query on the engine that holds the data (its backend, ``_backends``): no
table is pulled into Python. One aggregate query per call counts what would make a metric wrong
or meaningless (no rows, NULLs, NaN or infinite scores, labels outside {0, 1}, negative weights
or relevance), so the user gets a clear :class:`InvalidDataError` naming the argument and the
value instead of a raw engine error or, worse, a silently wrong number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._backends.base import type_family
from .._backends.source import Source
from .._core.registry import Role
from ..errors import ColumnNotFoundError, InvalidDataError

__all__ = ["Bound", "is_numeric", "type_family"]


@dataclass(frozen=True)
class Bound:
    """A ceiling on the values of one role's column, counted in :func:`validate_data`'s
    statement (not a statement of its own) of every source that holds the role.

    Rows at ``limit`` or above (above it, with ``strict``) are refused:
    ``refuse(column, count, largest)`` raises, after the values' other checks have passed.
    Ranking's gain overflow and ERR's ``max_grade`` are such bounds on ``label``.
    """

    role: str
    limit: float
    strict: bool
    refuse: Callable[[str, int, Any], None]

    def items(self, q: str) -> list[str]:
        """The two aggregates over the quoted column ``q``: its largest value, the rows over."""
        op = ">" if self.strict else ">="
        return [f"max({q})", f"sum(case when {q} {op} {self.limit!r} then 1 else 0 end)"]


def is_numeric(sql_type: str) -> bool:
    """A number type of any engine: ``DECIMAL(18,3)``, ``double precision`` yes; a list,
    array, struct or map of numbers no.
    """
    return type_family(sql_type) == "number"


def _is_boolean(source: Source, sql_type: str) -> bool:
    return source.backend.family(sql_type) == "boolean"


def check_columns(
    metric: str, source: Source, wanted: Sequence[tuple[str, str]], arg: str = "data"
) -> None:
    """Raise :class:`ColumnNotFoundError` for the first ``(argument, column)`` not in source."""
    for argument, column in wanted:
        if column not in source.columns:
            present = ", ".join(source.columns)
            raise ColumnNotFoundError(
                f"{metric}: column {column!r} ({argument}=) not found in {arg}={source.label}; "
                f"columns present: {present}"
            )


def validate_data(
    metric: str,
    source: Source,
    roles: Sequence[tuple[Role, str]],
    arg: str = "data",
    pos_label: Any = None,
    unique: Sequence[tuple[str, str]] = (),
    fix: str = "",
    bounds: Sequence[Bound] = (),
) -> int:
    """Check the values of each ``(role, column)``; return the number of rows.

    Raises :class:`InvalidDataError` on: no rows; a non-numeric score, weight or relevance;
    NULLs in any role column; NaN/infinite scores or weights; labels outside {0, 1} (or,
    with ``pos_label``, more than two label values, or none equal to it); negative weights or
    relevance; then, with ``unique`` (``(argument, column)`` pairs), a repeated combination
    of those columns (:func:`check_unique`'s message, ``fix`` appended), counted in the same
    statement as the values: one statement, not two (on Spark or a warehouse, each costs a
    round trip and a plan). Last, each of ``bounds`` on a role of ``roles`` (:class:`Bound`),
    counted in that statement too.
    """
    where = f"{arg}={source.label}"
    for role, column in roles:
        if role.kind == "binary" and role.name == "label":
            check_label_values(metric, source, column, pos_label, arg)
        sql_type = source.columns[column]
        if role.kind in ("score", "weight", "relevance", "probability") and not is_numeric(
            sql_type
        ):
            raise InvalidDataError(
                f"{metric}: {role.name} column {column!r} has type {sql_type}; {role.name}= must "
                f"name a numeric column (cast it first, e.g. cast({column} as double))"
            )
        if role.kind == "binary" and role.name == "label" and pos_label is not None:
            continue  # any type: check_label_values has checked the values
        if role.kind == "binary" and not (_is_boolean(source, sql_type) or is_numeric(sql_type)):
            raise InvalidDataError(
                f"{metric}: {role.name} column {column!r} has type {sql_type}; {role.name}= must "
                f"name a column of 0/1 values or booleans"
            )

    backend = source.backend
    checks: list[tuple[str, Role, str, str]] = []  # (problem, role, column, count expression)
    for role, column in roles:
        q = source.backend.ident(column)
        sql_type = source.columns[column]
        checks.append(("null", role, column, f"{q} is null"))
        if role.kind in ("score", "weight", "relevance", "probability") and backend.is_floating(
            sql_type
        ):
            checks.append(("nonfinite", role, column, backend.is_not_finite(q)))
        if role.kind == "probability":
            checks.append(("probability", role, column, f"({q} < 0 or {q} > 1)"))
        if (
            role.kind == "binary"
            and not _is_boolean(source, sql_type)
            and not (role.name == "label" and pos_label is not None)
        ):
            checks.append(("binary", role, column, f"{q} not in (0, 1)"))
        if role.kind in ("weight", "relevance"):
            checks.append(("negative", role, column, f"{q} < 0"))
    weights = [column for role, column in roles if role.kind == "weight"]
    held = {role.name: column for role, column in reversed(roles)}  # a role's first column
    bounded = [(bound, held[bound.role]) for bound in bounds if bound.role in held]
    items = [
        "count(*)",
        *(f"sum(case when {expr} then 1 else 0 end)" for *_, expr in checks),
        *(f"max({backend.ident(c)})" for c in weights),
        *(e for bound, column in bounded for e in bound.items(backend.ident(column))),
    ]
    # each item named: an engine may refuse two result columns of one name (Sail)
    sql = "select " + ", ".join(f"{e} as sqlmetrics_v{i}" for i, e in enumerate(items))
    sql += f" from {source.sql}"
    keys = _distinct_keys(unique)
    if keys:
        sql = (
            f"select * from ({sql}) as sqlmetrics_values cross join "
            f"({_duplicates_sql(source, keys)}) as sqlmetrics_duplicates"
        )
    row = backend.rows(sql)[0]
    assert row is not None
    n_checked = 1 + len(checks) + len(weights)
    row, maxima, over, duplicates = (
        row[: 1 + len(checks)],
        row[1 + len(checks) : n_checked],
        row[n_checked : len(items)],
        row[len(items) :],
    )
    n_rows = int(row[0])
    if n_rows == 0:
        raise InvalidDataError(f"{metric}: {where} has no rows; the metric needs at least one row")
    for (problem, role, column, expr), bad in zip(checks, row[1:]):
        bad = int(bad or 0)
        if not bad:
            continue
        head = f"{metric}: {role.name} column {column!r} ({role.name}=) has {bad} of {n_rows} rows"
        if problem == "null":
            raise InvalidDataError(
                f"{head} NULL (missing, or NaN in a pandas DataFrame); drop or fill them first "
                f"(e.g. filter `{column} is not null`)"
            )
        if problem == "nonfinite":
            raise InvalidDataError(f"{head} NaN or infinite; {role.name}s must be finite numbers")
        if problem == "negative":
            raise InvalidDataError(f"{head} negative; {role.name}s must be >= 0")
        if problem == "probability":
            raise InvalidDataError(
                f"{head} outside [0, 1]; {role.name}= must hold probabilities (apply a sigmoid "
                f"or softmax to raw scores first)"
            )
        sample = backend.rows(
            f"select distinct {source.backend.ident(column)} from {source.sql} "
            f"where {expr} order by 1 limit 5"
        )
        shown = ", ".join(repr(r[0]) for r in sample)
        raise InvalidDataError(
            f"{head} with values outside {{0, 1}} (e.g. {shown}); labels must be 0/1 or "
            f"booleans (for a graded or multiclass label, binarize it first)"
        )
    for column, value in zip(weights, maxima):
        check_weight_scale(metric, column, value)
    labels = [column for role, column in roles if role.name == "label"]
    for role, column in roles:
        if role.kind == "weight" and labels:
            check_weight_range(metric, source, column, labels[0])
    if keys:
        _raise_duplicates(metric, source, keys, duplicates, arg, fix)
    for i, (bound, column) in enumerate(bounded):
        largest, count = over[2 * i : 2 * i + 2]
        if count:
            bound.refuse(column, int(count), largest)
    return n_rows


# The largest weight must be at least 2^-600: exact sums clamp their exponent at -940 (terms
# below 2^-1020 round to 0) and a subnormal weight (below 2^-1022) keeps few bits, so weights
# near that range read as 0 ("undefined: no positive label") or lose digits (log_loss at 1e-300
# weights was off in the 8th digit). 2^-600 leaves 340 binary orders for the 2^-40 class span
# and the factors weights are multiplied by (losses, squared errors).
WEIGHT_MIN = 2.0**-600


def check_weight_scale(metric: str, column: str, largest: Any) -> None:
    """Raise :class:`InvalidDataError` when the largest weight is positive but below
    :data:`WEIGHT_MIN` (all weights tiny or subnormal).
    """
    if largest is None:
        return
    value = float(largest)
    if 0.0 < value < WEIGHT_MIN:
        raise InvalidDataError(
            f"{metric}: weight column {column!r} (weight=): the largest weight is {value:.3g}, "
            f"below 2^-600 ({WEIGHT_MIN:.3g}); sums of such weights lose precision or round to "
            f"0 (a subnormal weight keeps few bits). Multiply the weights by a common factor "
            f"(e.g. divide them by their largest): a weighted metric, a ratio of weighted sums, "
            f"does not change"
        )


# Sums of weights are exact fixed-point sums with 80 bits below the slice's largest weight
# (decision 0006). A class whose weights all lie below 2^-40 of the largest would keep fewer
# than 40 bits, and below 2^-80 it vanishes (the class reads as absent: NaN, "only one class").
WEIGHT_SPAN = 2.0**40


def check_weight_range(metric: str, source: Source, column: str, label: str) -> None:
    """Raise :class:`InvalidDataError` when a label class's largest weight is below 2^-40 of
    the largest weight of all.
    """
    w, y = source.backend.ident(column), source.backend.ident(label)
    text = source.backend.as_text(y)
    rows = source.backend.rows(
        f"select {text}, max({w}) from {source.sql} where {w} > 0 group by {text}"
    )
    if len(rows) < 2:
        return
    largest = max(float(r[1]) for r in rows)
    value, smallest = min(((r[0], float(r[1])) for r in rows), key=lambda r: r[1])
    if largest <= smallest * WEIGHT_SPAN:
        return
    raise InvalidDataError(
        f"{metric}: weight column {column!r} (weight=): the largest weight of label {value} is "
        f"{smallest:.3g}, below 2^-40 (1/1.1e12) of the largest weight {largest:.3g}; sums of "
        f"weights are exact fixed-point sums relative to the largest weight, so that class "
        f"would lose precision or vanish (read as absent). Rescale the weights (AUC does not "
        f"change when one class's weights are multiplied by a common factor), or drop the "
        f"negligible rows"
    )


def check_label_values(
    metric: str, source: Source, column: str, pos_label: Any, arg: str = "data"
) -> None:
    """A label column must be 0/1 or boolean, or, with ``pos_label``, hold at most two values,
    one of them ``pos_label`` (as scikit-learn); text labels without it name the fix. Data
    with no rows (a CSV file with a header only types every column as text) says so.
    """
    sql_type = source.columns[column]
    plain = _is_boolean(source, sql_type) or is_numeric(sql_type)
    if pos_label is None and plain:
        return
    q = source.backend.ident(column)
    rows = source.backend.rows(f"select count(*), count(distinct {q}) from {source.sql}")[0]
    if not int(rows[0] or 0):
        raise InvalidDataError(
            f"{metric}: {arg}={source.label} has no rows; the metric needs at least one row"
        )
    n_values = int(rows[1] or 0)
    sample = [
        r[0]
        for r in source.backend.rows(
            f"select distinct {q} from {source.sql} where {q} is not null order by 1 limit 5"
        )
    ]
    shown = ", ".join(repr(v) for v in sample) + (", ..." if n_values > len(sample) else "")
    head = f"{metric}: label column {column!r} (label=)"
    if pos_label is None:
        example = f", e.g. pos_label={sample[-1]!r}" if n_values == 2 else ""
        raise InvalidDataError(
            f"{head} has type {sql_type} with values {shown}; name the positive class with "
            f"pos_label={example} (labels are otherwise 0/1 or booleans)"
        )
    if n_values > 2:
        raise InvalidDataError(
            f"{head} has {n_values} distinct values ({shown}); pos_label= needs a binary label "
            f"(two values); for a multiclass label use the *_macro / *_micro metrics"
        )
    if n_values == 2 and not any(v == pos_label or str(v) == str(pos_label) for v in sample):
        raise InvalidDataError(
            f"{metric}: pos_label={pos_label!r} is not a value of label column {column!r} "
            f"(values: {shown}); pass one of them"
        )


def check_unique(
    metric: str,
    source: Source,
    keys: Sequence[tuple[str, str]],
    arg: str = "data",
    fix: str = "",
) -> None:
    """Raise :class:`InvalidDataError` if ``source`` repeats a combination of the key columns.

    ``keys`` are ``(argument, column)`` pairs, e.g. ``[("group", "query_id"), ("item", "doc")]``.
    The message gives the number of repeated combinations and one of them.
    """
    keys = _distinct_keys(keys)
    row = source.backend.rows(_duplicates_sql(source, keys))[0]
    assert row is not None
    _raise_duplicates(metric, source, keys, row, arg, fix)


def _distinct_keys(keys: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``keys`` without a column repeated: a column given for two arguments (by= the group
    column) is one key; repeated in the select list it is an ambiguous column to PostgreSQL.
    """
    unique: list[tuple[str, str]] = []
    for arg_name, column in keys:
        if all(column != c for _, c in unique):
            unique.append((arg_name, column))
    return unique


def _duplicates_sql(source: Source, keys: Sequence[tuple[str, str]]) -> str:
    """One row: how many combinations of the ``keys`` columns repeat, and the least of them."""
    backend = source.backend
    cols = ", ".join(backend.ident(c) for _, c in keys)
    shown = backend.tuple_text([backend.ident(c) for _, c in keys])
    return (
        f"select count(*) as sqlmetrics_dup_n, min({shown}) as sqlmetrics_dup_e from ("
        f"select {cols} from {source.sql} group by {cols} having count(*) > 1) as dup"
    )


def _raise_duplicates(
    metric: str,
    source: Source,
    keys: Sequence[tuple[str, str]],
    row: Sequence[Any],
    arg: str,
    fix: str,
) -> None:
    if int(row[0] or 0):
        named = ", ".join(f"{c!r} ({a}=)" for a, c in keys)
        raise InvalidDataError(
            f"{metric}: {arg}={source.label} has {int(row[0])} duplicated combinations of "
            f"{named}, e.g. {row[1]}; each must appear once{fix}"
        )


def check_join_types(
    metric: str,
    left: Source,
    right: Source,
    pairs: Sequence[tuple[str, str, str]],
    right_arg: str,
) -> None:
    """Raise :class:`InvalidDataError` when join columns are of different kinds.

    ``pairs`` are ``(argument, left column, right column)``. Both must be numbers, both text,
    both booleans or both dates/times: comparing text ids with numbers or timestamps would fail
    inside the query or, worse, match nothing; the message says how to cast.
    """
    for argument, lcol, rcol in pairs:
        ltype, rtype = left.columns[lcol], right.columns[rcol]
        if type_family(ltype) != type_family(rtype):
            target = "varchar" if "text" in (type_family(ltype), type_family(rtype)) else ltype
            raise InvalidDataError(
                f"{metric}: {argument}= column {lcol!r} has type {ltype} in data but {rcol!r} "
                f"has type {rtype} in {right_arg}=; ids must be comparable: cast one side "
                f"(e.g. cast({rcol} as {target.lower()})) so that both have the same kind of type"
            )
