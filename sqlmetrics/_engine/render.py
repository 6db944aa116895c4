"""``render``: the SQL a metric runs, to read or to paste into a warehouse."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._backends.files import (
    GLOB_CHARS,
    data_kind,
    escape_glob,
    literal_directories,
    reader_sql,
)
from .._backends.ibis_source import is_ibis_table
from .._core.dialects import DIALECTS, FILE_KINDS
from .._core.names import parse_metric
from .._core.params import RENDERED, args, entry_point, entry_takes
from .._templating.quoting import quote_ident, quote_literal, quote_table
from .._templating.templates import check_dialect
from ..errors import InvalidParameterError, SqlMetricsError
from .plan import check_train, compose_sql, make_plan, named_sql, role_columns
from .run import Call, check_params, normalize_by, render_sql
from .where import WHERE_CTE, check_where

if TYPE_CHECKING:
    from .._core._calls import RenderEvaluateCall

# column a role reads when render() is not told otherwise: required roles, and the ranking label
# (optional only because qrels= may carry it); other optional roles (weight=, a threshold
# metric's prediction=) are left out unless given
ROLE_DEFAULTS = {
    "label": "label",
    "score": "score",
    "group": "group",
    "item": "item",
    "prediction": "prediction",
}


def relation_of(caller: str, data: Any, arg: str = "data", dialect: str = "duckdb") -> str:
    """The SQL after ``from`` for a table name or a Parquet/CSV path or glob (no data is read),
    in ``dialect``.

    Tables and files are told apart, and Parquet from CSV, by ``_backends.files.data_kind``, as when
    the metric runs; an existing file whose name holds glob characters is escaped as there
    (DuckDB). Spark reads a Parquet path as ``parquet.`path```; the other dialects read no
    file in a query, and a path is refused with the fix (a table name).
    """
    if is_ibis_table(data):
        raise InvalidParameterError(
            f"{caller}: {arg}= is an Ibis table expression, which has no SQL name; run the "
            f"metric on it instead (sqlmetrics.<metric>({arg}=expr) runs on its backend), or "
            f"pass the name of a table or view"
        )
    if not isinstance(data, (str, os.PathLike)):
        raise InvalidParameterError(
            f"{caller}: {arg}= must be a table name or a file path; got {type(data).__name__} "
            f"(a DataFrame has no SQL name: register it on a connection and pass that name)"
        )
    path = os.fspath(data)
    kind = data_kind(path)
    if kind == "table":
        return quote_table(path, dialect)
    facts = DIALECTS[dialect]  # the files each dialect reads: sqlmetrics/_core/dialects.py
    if kind in facts.file_readers and facts.paths == "identifier":
        return reader_sql(kind, quote_ident(path, dialect), dialect)
    folder = os.path.isdir(path)
    if kind not in facts.file_readers:
        what = FILE_KINDS[kind]
        what = f"a directory of {what} files" if folder else f"a {what} file"
        raise InvalidParameterError(
            f"{caller}: {arg}={path!r} is {what}, which dialect {dialect!r} cannot "
            f"read in a query; render a table name for "
            f"dialect {dialect} (load the file into a table first){facts.reads_only()}"
        )
    # as the engine reads it: an existing file is exactly that file (DuckDB would glob
    # `data[1].parquet` into `data1.parquet`), and a pattern's existing directories are literal
    if folder:  # a warehouse export: every file below it, Hive partition columns included
        suffix = "parquet" if kind == "parquet" else "csv"
        pattern = os.path.join(glob.escape(path.rstrip(os.sep)), "**", f"*.{suffix}")
        return reader_sql(kind, quote_literal(pattern) + ", hive_partitioning = true")
    if os.path.isfile(path):
        path = escape_glob(path)
    elif any(ch in path for ch in GLOB_CHARS):
        path = literal_directories(path)
    return reader_sql(kind, quote_literal(path))


def render(
    metric: str,
    data: str | os.PathLike[str] = "source_table",
    *,
    by: str | list[str] | None = None,
    dialect: str = "duckdb",
    **params: Any,
) -> str:
    """The SQL of ``metric``'s own template (the body of the public ``sqlmetrics.render``
    without ``ci=``, which ``sqlmetrics._inference.rendering`` adds; user metrics render
    through this one).
    """
    call = render_call(metric, data, by, dialect, params)
    return render_sql(
        call.spec, call.relation, call.columns, call.params, call.by, call.extra,
        dialect=call.dialect,
    )  # fmt: skip


@dataclass(frozen=True)
class RenderDialect:
    """The backend of a rendered :class:`~sqlmetrics._engine.run.Call`: a dialect, no
    connection (``render`` writes SQL, it runs none).
    """

    dialect: str

    def query(self, sql: str) -> Any:
        raise SqlMetricsError("render runs no query")  # pragma: no cover - never called


def render_call(
    metric: str, data: Any, by: str | list[str] | None, dialect: str, params: dict[str, Any]
) -> Call:
    """The checked call ``render`` writes (no data read): the metric's spec, the relation
    SQL, the columns by role (unquoted), the checked options, the slices and any second input,
    on a :class:`RenderDialect` of the checked ``dialect``. ``params`` is consumed.
    """
    dialect = check_dialect(dialect, "render")
    request = parse_metric(metric, "render", scalar_only=False)
    spec = request.spec
    if request.k is not None:
        if "k" in params:
            raise InvalidParameterError(
                f"render: metric {metric!r} carries its cut-off; k={params['k']!r} given too. "
                f"Write the cut-off once: {metric!r}, or the plain name with k="
            )
        params["k"] = request.k
    for name, fixed in request.params.items():  # what an ir_measures name fixes
        if params.get(name) is not None and params[name] != fixed:
            raise InvalidParameterError(
                f"render: {name}={params[name]!r} conflicts with metric {metric!r}, whose name "
                f"fixes {name}={fixed!r}; write the parameter in the name (e.g. 'P(rel=2)@5') "
                f"or leave {name}= out"
            )
        params[name] = fixed
    qrels = params.pop("qrels", None)
    if qrels is not None and spec.kernel != "ranking_kernel":
        raise InvalidParameterError(
            f"render: qrels= is used by ranking metrics only; {metric!r} is not one"
        )
    train = params.pop("train", None)
    if train is not None and spec.family != "beyond":
        raise InvalidParameterError(
            f"render: train= is used by the beyond-accuracy metrics only; {metric!r} is not one"
        )
    columns: dict[str, str | None] = {}
    for role in spec.roles:
        conventional = role.required or role.name == "label"  # ranking: label or qrels
        value = params.pop(role.name, ROLE_DEFAULTS.get(role.name) if conventional else None)
        if role.name == "score" and params.get("prediction"):
            value = None
        columns[role.name] = value
    if "prediction" in columns and columns["prediction"] is None and columns.get("score") is None:
        columns["score"] = "score"
    relation = relation_of("render", data, dialect=dialect)
    extra = None
    if qrels is not None:
        judged = {
            role: columns.get(role) or ROLE_DEFAULTS[role] for role in ("group", "item", "label")
        }
        extra = {"qrels": (relation_of("render", qrels, "qrels", dialect), judged)}
        columns["label"] = None  # the run has no label: qrels judge it
    if train is not None:
        item = columns.get("item") or ROLE_DEFAULTS["item"]
        extra = {"train": (relation_of("render", train, "train", dialect), {"item": item})}
    checked = check_params(spec, params)
    by_cols = normalize_by(spec.name, by)
    return Call(spec, RenderDialect(dialect), relation, columns, checked, by_cols, extra)


def run_render_evaluate(a: RenderEvaluateCall) -> str:
    """The body of :func:`render_evaluate`, its arguments in ``a``."""
    dialect = check_dialect(a.dialect, "render_evaluate")
    columns = role_columns(
        a.label, a.score, a.group, a.item, a.weight, a.prediction, a.group_weight
    )
    where = check_where("render_evaluate", a.where)
    plan = make_plan("render_evaluate", a.metrics, columns, a.by, a.qrels is not None, a.options)
    relation = relation_of("render_evaluate", a.data, dialect=dialect)
    ctes: list[tuple[str, str]] = []
    if where is not None:
        ctes.append((WHERE_CTE, f"select * from {relation} where ({where})"))
        relation = WHERE_CTE
    check_train(plan, a.train is not None, "render_evaluate")
    judged = (
        relation_of("render_evaluate", a.qrels, "qrels", dialect) if a.qrels is not None else None
    )
    interactions = (
        relation_of("render_evaluate", a.train, "train", dialect) if a.train is not None else None
    )
    sql, _ = compose_sql(plan, relation, judged, interactions, dialect=dialect, inputs=ctes)
    return named_sql(plan, sql, dialect)


API = (
    entry_point(
        "render_evaluate",
        takes=entry_takes("round scores indicators ci ci_method n_boot seed con"),
        call=run_render_evaluate,
        positional=2,
        returns_type="str",
        summary="""
    Return the one SQL statement that :func:`evaluate` runs, without running it, in the
    SQL of ``dialect``.

    Built by the same code as :func:`evaluate` (the same checks of names and options, the
    same composition), then wrapped in a final ``select`` that gives the columns
    ``evaluate`` returns: the slices under their own names, one column per metric named as
    requested (``zero_division`` applied), ``n_rows`` and, when a ranking metric or GAUC is
    requested, ``n_groups``. Run over the same data it gives ``evaluate``'s numbers.
    """,
        returns="""
    str
        The SQL text.
    """,
        raises="""
    UnknownMetricError, InvalidParameterError
        As :func:`evaluate`, for everything that can be checked without the data; an unknown
        ``dialect``.
    """,
        notes="""
    What ``evaluate`` checks on the data itself is not in the SQL: missing columns, NULLs,
    label values, duplicate (group, item) pairs, ``empty="error"`` / ``missing="error"``
    (the statement computes the metric as if they were ``"skip"``), and the
    ``UndefinedMetricWarning`` (an undefined metric is NULL).
    """,
        examples="""
    >>> import sqlmetrics
    >>> sql = sqlmetrics.render_evaluate("events", ["auc", "ndcg@10"], group="user_id",
    ...                                  item="item_id", label="click", score="pctr",
    ...                                  by="country")
    >>> print(sql.splitlines()[1])
        slice_0 as "country",
    """,
        own=args(
            """
    data : str or path, default "source_table"
        A table name (quoted as an identifier) or a Parquet/CSV path.
    metrics : str or list of str
        As for :func:`evaluate`: ``"auc"``, ``"ndcg@10"``, ...
    label, score, group, item, by, weight, group_weight, prediction, **options
        As for :func:`evaluate`.
    qrels : str or path, optional
        Judgments for the ranking metrics: a table name or a Parquet/CSV path.
    train : str or path, optional
        Interactions for the beyond-accuracy metrics: a table name or a Parquet/CSV path.
    dialect : str, default "duckdb"
        As for :func:`render`.
    where : str, optional
        As for :func:`evaluate`: a SQL boolean expression over ``data``'s columns; the
        statement then reads ``data`` through a first CTE, ``sqlmetrics_where``, holding
        ``select * from data where (<where>)``.
    """,
            **RENDERED,
        ),
    ),
)
