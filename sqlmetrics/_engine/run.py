"""Run one registered metric: check parameters, resolve the data, validate, render, execute."""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import duckdb

from .._backends import Backend, DuckDBBackend, backend_for
from .._backends.source import Source, open_source
from .._core.conventions import resolve, warns_zero
from .._core.registry import PARAMS, REGISTRY, MetricSpec, Role, default_of, get_spec
from .._templating.quoting import quote_ident
from .._templating.templates import render_macro
from ..errors import (
    InvalidParameterError,
    SqlMetricsError,
    UndefinedMetricWarning,
)
from ..errors import warn as warn_user
from .validate import Bound, check_columns, check_join_types, validate_data

if TYPE_CHECKING:
    import pandas as pd


class IntervalRequest(Protocol):
    """A ``ci=`` request as the engine knows it (``_inference.intervals.CiRequest``): the
    metric it was asked for, and how to serve it on the checked call. Declared here so that the
    engine imports nothing of the interval layer above it.
    """

    metric: str

    def serve(self, call: Call, metric_sql: str) -> pd.DataFrame: ...


@dataclass
class Call:
    """The checked call ``compute`` hands to a ``ci=`` request (``_inference.intervals.serve``),
    ready to render: the metric, the backend, the relation, the columns and options.
    """

    spec: MetricSpec
    backend: Any
    relation: str
    columns: Mapping[str, str | None]  # role -> user column (unquoted) or None
    params: Mapping[str, Any]
    by: list[str]
    extra: Mapping[str, tuple[str, Mapping[str, str | None]]] | None

    @property
    def dialect(self) -> str:
        return str(self.backend.dialect)

    def q(self, name: str) -> str:
        return quote_ident(name, self.dialect)

    def quoted(self, **override: str | None) -> dict[str, str | None]:
        cols = {r: (self.q(c) if c else None) for r, c in self.columns.items()}
        cols.update({r: (self.q(c) if c else None) for r, c in override.items()})
        return cols

    def macro(self, name: str, *args: Any) -> str:
        return render_macro(name, *args, dialect=self.dialect)

    def kernel(
        self,
        relation: str,
        by: Sequence[str],
        columns: Mapping[str, str | None],
        alias: str,
    ) -> str:
        return kernel_sql(
            str(self.spec.kernel),
            relation,
            by,
            columns,
            self.params,
            [entry(self.spec, alias, self.params.get("k"))],
            self.extra,
            dialect=self.dialect,
        )


def normalize_by(metric: str, by: str | Sequence[str] | None) -> list[str]:
    """``by`` as a list of column names (a single name is a one-element list)."""
    if by is None:
        return []
    ordered = not isinstance(by, (str, set, frozenset, dict)) and hasattr(by, "__iter__")
    cols: list[Any] = list(by) if ordered else [by]  # a number or a set fails the check below
    if not all(isinstance(c, str) and c for c in cols):
        raise InvalidParameterError(
            f"{metric}: by= must be a column name or a list of column names; got {by!r}"
        )
    if len(set(cols)) != len(cols):
        raise InvalidParameterError(f"{metric}: by= names a column twice: {cols!r}")
    return cols


class Checked(dict[str, Any]):
    """The options of metric ``metric`` as :func:`check_params` returns them: :func:`compute`
    given these does not check them again (a function that reads its checked options before
    computing checks them once).
    """

    def __init__(self, metric: str, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.metric = metric


def check_params(spec: MetricSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` against the spec; fill defaults; reject options it does not take.

    ``params`` may hold ``convention`` (:func:`sqlmetrics._core.conventions.resolve`, applied here
    first); a definitional option given as None takes the convention's value or the default.
    Returns them as :class:`Checked`.
    """
    params = resolve(spec, params)
    for name in params:
        if name not in spec.params:
            allowed = ", ".join(spec.params) or "none"
            near = difflib.get_close_matches(name, list(spec.params), n=1)
            hint = f" (did you mean {near[0]}=?)" if near else ""
            raise InvalidParameterError(
                f"{spec.name}: unexpected option {name}={hint}; options it accepts: {allowed}"
            )
    checked = {
        name: PARAMS[name].validate(spec.name, params.get(name, default_of(spec, name)))
        for name in spec.params
    }
    for name, value in checked.items():
        if value is None:  # None stands for the metric's own default (a curve's drop rule)
            checked[name] = default_of(spec, name)
    # a check across several options (e.g. a combination without a closed form)
    if spec.check_params is not None:
        spec.check_params(spec.name, checked)
    return Checked(spec.name, checked)


def render_sql(
    spec: MetricSpec,
    relation: str,
    columns: Mapping[str, str | None],
    params: Mapping[str, Any],
    by: Sequence[str] = (),
    extra: Mapping[str, tuple[str, Mapping[str, str | None]]] | None = None,
    *,
    dialect: str = "duckdb",
) -> str:
    """Render the metric's template for ``dialect``; every user-supplied name is quoted here.

    ``extra`` maps the name of a second input (e.g. ``"qrels"``) to its relation SQL and its
    columns by role; the template sees ``<name>_relation`` and ``<name>_<role>`` (quoted).
    """
    quoted = {role: (quote_ident(col, dialect) if col else None) for role, col in columns.items()}
    if spec.kernel is None:
        raise SqlMetricsError(f"{spec.name}: the registry names no kernel macro for it")
    # a single metric is its kernel with one entry, its value under the metric's name
    entries = [entry(spec, spec.name, params.get("k"))] if spec.output == "scalar" else []
    return kernel_sql(spec.kernel, relation, by, quoted, params, entries, extra, dialect=dialect)


def entry(spec: MetricSpec, alias: str, k: int | None) -> dict[str, Any]:
    """A kernel entry: the output column ``alias`` computes ``spec`` at cut-off ``k``, with
    what the registry declares it needs from the kernel's shared work.
    """
    return {"alias": alias, "metric": spec.name, "k": k, "needs": list(spec.needs)}


def kernel_sql(
    kernel: str,
    relation: str,
    by: Sequence[str],
    columns: Mapping[str, str | None],
    options: Mapping[str, Any],
    entries: Sequence[Mapping[str, Any]],
    extra: Mapping[str, tuple[str, Mapping[str, str | None]]] | None = None,
    *,
    dialect: str = "duckdb",
) -> str:
    """Call a family's kernel macro (decision 0007): one statement with the slice columns
    ``slice_0..``, one column per entry alias and the family's count columns, in ``dialect``
    (its macros resolved by ``adapter.dispatch``; identifiers quoted its way).

    ``by`` holds the slice column names and ``extra`` (a second input such as ``"qrels"``) its
    relation and columns by role, unquoted; ``columns`` is already quoted (role -> identifier
    or None); ``options`` are the checked options of the family's requests.
    """
    quoted = dict(columns)
    # every option of the kernel's family, its defaults filled here (none lives in SQL)
    filled = {
        name: default_of(spec, name)
        for spec in REGISTRY.values()
        if spec.kernel == kernel
        for name in spec.params
        if name != "k"
    }
    filled.update(options)
    for source_name, (source_sql, source_columns) in (extra or {}).items():
        quoted[f"{source_name}_relation"] = source_sql
        for role, col in source_columns.items():
            quoted[f"{source_name}_{role}"] = quote_ident(col, dialect) if col else None
    return render_macro(
        kernel,
        relation,
        [quote_ident(b, dialect) for b in by],
        quoted,
        filled,
        [dict(e) for e in entries],
        dialect=dialect,
    )


@contextmanager
def open_checked(
    metric: str,
    data: Any,
    con: Any,
    columns: Mapping[str, str | None],
    used: Sequence[tuple[Role, str]],
    by_cols: Sequence[str],
    unique: Sequence[str] = (),
    extra_sources: Mapping[str, tuple[Any, Sequence[tuple[Role, str]]]] | None = None,
    pos_label: Any = None,
    duplicates: str = "error",
    bounds: Sequence[Bound] = (),
) -> Iterator[tuple[Any, Source, dict[str, tuple[str, dict[str, str | None]]]]]:
    """Open ``data`` (and any second input) on one connection, checked, ready to query.

    Checks that every ``(role, column)`` of ``used`` and every slice column exists, the
    values of ``used``, that the ``unique`` roles (with the slices) do not repeat, and, for
    each extra source (``"qrels"``), its columns, values, uniqueness and that the key roles it
    shares with ``columns`` have comparable types; ``bounds`` on the values of each source
    holding their role, in its values statement (:class:`.validate.Bound`). Yields
    ``(connection, source, extra)``, ``extra`` mapping each extra source's name to its relation
    SQL and columns by role. ``connection`` is the :class:`~sqlmetrics._backends.Backend`
    running on ``con``; an error of its engine is wrapped by its ``wrap_error`` (the engine's
    name and message, the metric).
    Everything registered is removed on exit, also after an error. ``data`` (or an extra
    source) given ``where=`` (:class:`~sqlmetrics._backends.source.Filtered`) is its rows where
    the expression holds, before every check.
    """
    labels: list[str] = []
    backend: Backend | None = None
    try:
        with ExitStack() as stack:
            backend = stack.enter_context(backend_for(con, data))
            source = stack.enter_context(open_source(data, backend, metric))
            labels.append(f"data={source.label}")
            check_columns(metric, source, [(r.name, c) for r, c in used])
            check_columns(metric, source, [("by", c) for c in by_cols])
            keys: list[tuple[str, str]] = []
            if unique and duplicates == "error":  # else the template merges repeated pairs
                keys = [("by", c) for c in by_cols] + [
                    (r.name, c) for r, c in used if r.name in unique
                ]
            validate_data(  # the values and the keys' uniqueness in one statement
                metric,
                source,
                used,
                pos_label=pos_label,
                unique=keys,
                fix="; or merge repeated impressions with duplicates='max' or 'sum'",
                bounds=bounds,
            )
            extra: dict[str, tuple[str, dict[str, str | None]]] = {}
            for source_name, (source_data, source_roles) in (extra_sources or {}).items():
                other = stack.enter_context(open_source(source_data, backend, metric, source_name))
                pairs = [(r.name, c) for r, c in source_roles]
                labels.append(f"{source_name}={other.label}")
                check_columns(metric, other, pairs, arg=source_name)
                validate_data(
                    metric,
                    other,
                    list(source_roles),
                    arg=source_name,
                    unique=[p for p in pairs if p[0] in unique] if unique else (),
                    bounds=bounds,
                )
                shared = [
                    (r.name, str(columns[r.name]), c)
                    for r, c in source_roles
                    if r.kind == "key" and columns.get(r.name)
                ]
                check_join_types(metric, source, other, shared, source_name)
                extra[source_name] = (other.sql, {r.name: c for r, c in source_roles})
            yield backend, source, extra
    except SqlMetricsError:
        raise
    except Exception as exc:
        if backend is None or not isinstance(exc, backend.errors):
            raise
        if isinstance(exc, backend.interrupts):
            raise
        raise backend.wrap_error(metric, labels, exc) from None


def engine_error(metric: str, labels: Sequence[str], exc: duckdb.Error) -> SqlMetricsError:
    """Our error for a DuckDB error raised while checking or computing ``metric`` (the
    engine's message kept; the class and the advice depend on what failed): see
    :meth:`sqlmetrics._backends.DuckDBBackend.wrap_error`, which each backend has its own of.
    """
    return DuckDBBackend(None).wrap_error(metric, labels, exc)


def compute(
    name: str,
    data: Any,
    *,
    con: Any,
    columns: Mapping[str, str | None],
    params: Mapping[str, Any] | None = None,
    by: str | Sequence[str] | None = None,
    unique: Sequence[str] = (),
    extra_sources: Mapping[str, tuple[Any, Sequence[tuple[Role, str]]]] | None = None,
    check: Callable[[Any, Source, dict[str, Any]], None] | None = None,
    ci: IntervalRequest | None = None,
    bounds: Sequence[Bound] = (),
) -> pd.DataFrame:
    """Compute metric ``name`` over ``data``; one row per slice of ``by`` (one row without).

    ``columns`` maps each role of the spec (label, score, weight, group, ...) to a user column,
    or None for an optional role left out. Returns the template's final CTE as a DataFrame with
    the slice columns under their own names first.

    ``unique``: roles whose combination (with the slice columns) must not repeat in ``data``
    (e.g. ``("group", "item")`` for a ranking run). ``extra_sources`` maps the name of a second
    input (``"qrels"``) to ``(data, [(role, column), ...])``: it is opened on the same
    connection, its columns and values are checked like ``data``'s (errors say ``qrels=``),
    combinations of its ``unique`` roles must not repeat, a key role it shares with ``data``
    must have a comparable type, and the template gets ``qrels_relation`` and ``qrels_<role>``.
    ``check(backend, source, extra)``: a further data check run before the metric's query;
    ``bounds``: ceilings on a role's values, checked with the values (:func:`open_checked`).
    ``ci``: the calling function's interval request (``_inference.intervals.ci_request``),
    served here too through its own ``serve`` (:class:`IntervalRequest`).
    """
    spec = get_spec(name)
    if isinstance(params, Checked) and params.metric == spec.name:  # checked by the caller
        checked: dict[str, Any] = dict(params)
    else:
        checked = check_params(spec, params or {})
    by_cols = normalize_by(spec.name, by)
    for role in spec.roles:
        col = columns.get(role.name)
        if col is None and role.required:
            raise InvalidParameterError(f"{spec.name}: {role.name}= is required")
        if col is not None and not (isinstance(col, str) and col):
            raise InvalidParameterError(
                f"{spec.name}: {role.name}= must be a column name (a non-empty string); got {col!r}"
            )
    used = [(role, str(columns[role.name])) for role in spec.roles if columns.get(role.name)]
    with open_checked(
        spec.name,
        data,
        con,
        columns,
        used,
        by_cols,
        unique,
        extra_sources,
        pos_label=checked.get("pos_label"),
        duplicates=checked.get("duplicates", "error"),
        bounds=bounds,
    ) as (backend, source, extra):
        if check is not None:
            check(backend, source, extra)
        roles = {r.name: columns.get(r.name) or None for r in spec.roles}
        sql = render_sql(spec, source.sql, roles, checked, by_cols, extra, dialect=backend.dialect)
        # ci=: the interval too; a table asked for by a metric whose interval comes from its
        # counts (binary mcc from the confusion counts: Inference.counts_macro) serves it too
        if ci is not None and (
            spec.output == "scalar" or get_spec(ci.metric).inference.counts_macro is not None
        ):
            call = Call(spec, backend, source.sql, roles, checked, by_cols, extra)
            result = ci.serve(call, sql)
        else:
            result = backend.query(sql)
    result.columns = [*by_cols, *result.columns[len(by_cols) :]]
    return result


def undefined(spec_name: str, reason: str, value: float = math.nan, warn: bool = True) -> float:
    """Warn :class:`UndefinedMetricWarning` (if ``warn``) and return ``value``."""
    if warn:
        warn_user(f"{spec_name} is undefined: {reason}; returning {value}", UndefinedMetricWarning)
    return value


def scalar(frame: pd.DataFrame, name: str, zero_division: float | str = "warn") -> float:
    """The single value of column ``name``; NaN (with a warning) or ``zero_division`` if NULL."""
    import pandas as pd

    value = frame[name].iloc[0]
    if value is None or pd.isna(value):
        spec = get_spec(name)
        if zero_division == "warn":
            return undefined(spec.name, spec.undefined)
        if warns_zero(zero_division):  # scikit-learn's zero_division="warn"
            return undefined(spec.name, spec.undefined, 0.0)
        return float(zero_division)
    return float(value)
