"""``report``: one self-contained HTML page of an evaluation (metrics per slice, intervals,
operating points, group counts, curves, the paired comparison of models, settings, versions
and the SQL).

Every number comes from the functions users call themselves, so from the same SQL:
:func:`evaluate` (the table, its intervals and counts), :func:`roc_curve`, :func:`pr_curve`,
:func:`calibration_curve`, :func:`lift_table` (the plots) and :func:`compare` (the paired
tests). The one statement of its own counts the groups of each slice (``group=`` given), so
that the page can say how many groups a metric's mean left out; the operating points'
thresholds are operating_points' statement, run on the source that count opens (without the
function's checks, which evaluate has made). The HTML is built in :mod:`report_html`.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import importlib.metadata
import inspect
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from .._backends import backend_for
from .._backends.duckdb_backend import database_files
from .._backends.files import check_output_over_input, check_path_text
from .._backends.source import open_source
from .._core.params import ENTRY, args, entry_point, entry_takes
from .._core.registry import get_spec
from .._engine._api_render import render_evaluate
from .._engine.plan import Plan, _is_grouped, _is_ranking, group_counts, make_plan
from .._engine.render import render
from .._engine.run import check_params, render_sql
from .._engine.validate import type_family
from .._engine.where import check_where, filtered
from .._inference._api_compare import compare
from .._metrics._api_calibration import calibration_curve
from .._metrics._api_classification_curves import pr_curve, roc_curve
from .._metrics._api_classification_separation import lift_table
from .._templating.quoting import quote_ident
from ..errors import (
    OWN_WARNINGS,
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
    SqlMetricsError,
)
from ._api_evaluate import evaluate
from ._api_monitor import metric_anomalies
from .monitor import OPTIONS as MONITOR_OPTIONS
from .monitor import check_options as _anomaly_options
from .monitor import default_direction
from .report_html import Curves, Monitor, Page, Series, page_html

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import ReportCall

#: the public function is declared at the end of this module (API) and generated into
#: ``_api_report.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["run_report"]

#: points kept per ROC / PR curve (exact points at score quantiles, see roc_curve)
MAX_POINTS = 200
#: the options of metric_anomalies that ``monitor=`` passes on (day, by, ci_level: report's)
MONITOR_KEYS = (*MONITOR_OPTIONS, "intervals")
#: the level of the daily intervals when ``day=`` is given without ``ci=``
DAILY_CI = 0.95
#: the operating-point metrics, each with the option of the level it is read at, in the
#: order of operating_points' columns
OPERATING = {
    "recall_at_precision": "min_precision",
    "precision_at_recall": "min_recall",
    "tpr_at_fpr": "max_fpr",
}


def run_report(a: ReportCall) -> Path:
    """The body of :func:`report`, its arguments in ``a``."""
    data = a.data
    options = a.options
    texts = [a.metrics] if isinstance(a.metrics, str) else list(a.metrics)
    if not texts:
        raise InvalidParameterError(
            "report: metrics=[] names no metric; pass at least one, e.g. "
            "metrics=['auc', 'log_loss'] (sqlmetrics.metric_names() lists them)"
        )
    target = _check_path(a.path)
    check_output_over_input(
        "report",
        "path",
        a.path,
        [("data", data), ("qrels", a.qrels), ("con", database_files(a.con))],
    )
    where = check_where("report", a.where)
    table_name = data  # what the SQL shown on the page reads
    data = filtered(data, where)  # every part of the page reads these rows
    if where is not None:  # bound now: a wrong column is named as report's, before any part
        with backend_for(a.con, data) as backend, open_source(data, backend, "report"):
            pass
    if isinstance(a.max_slices, bool) or not isinstance(a.max_slices, int) or a.max_slices < 1:
        raise InvalidParameterError(
            f"report: max_slices={a.max_slices!r} must be an integer >= 1 (the slices that get "
            f"plots), e.g. max_slices=12"
        )
    if a.curves is not None and not isinstance(a.curves, bool):
        raise InvalidParameterError(
            f"report: curves={a.curves!r} must be True, False or None (draw them where possible)"
        )
    if isinstance(a.max_series, bool) or not isinstance(a.max_series, int) or a.max_series < 1:
        raise InvalidParameterError(
            f"report: max_series={a.max_series!r} must be an integer >= 1 (the time series "
            f"charted), e.g. max_series=24"
        )
    models = _check_scores(a.scores, a.score)
    watch = _check_monitor(a.monitor, a.day, texts[0])
    if a.convention is not None:
        options = {**options, "convention": a.convention}
    columns: dict[str, Any] = {
        "label": a.label,
        "group": a.group,
        "item": a.item,
        "weight": a.weight,
        "prediction": a.prediction,
    }
    plan = make_plan(
        "report", texts, {**columns, "score": models[0]}, a.by, a.qrels is not None, options
    )
    slices = list(plan.by)
    if a.day is not None:
        _check_day(a.day, slices, data, a.con)
    messages: list[str] = []

    def run(name: str, fn: Callable[[], Any]) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn()
        for w in caught:  # ours shown on the page; every one passed on to the caller
            if issubclass(w.category, OWN_WARNINGS):  # not an engine's or a library's own
                messages.append(_message(name, str(w.message)))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out

    frames = []
    for model in models:
        frame = run(
            "evaluate" if len(models) == 1 else f"evaluate ({model})",
            partial(
                evaluate,
                data,
                texts,
                score=model,
                qrels=a.qrels,
                by=a.by,
                ci=a.ci,
                ci_method=a.ci_method,
                n_boot=a.n_boot,
                seed=a.seed,
                con=a.con,
                **columns,
                **options,
            ),
        )
        frames.append(frame)
    first = frames[0]
    count_columns = [name for name, _ in group_counts(plan.requests)]
    metric_columns = [c for c in first.columns if c not in slices and c != "n_rows"]
    metric_columns = [c for c in metric_columns if c not in count_columns]
    if len(models) > 1:
        import pandas as pd

        table = pd.concat(
            [f.assign(model=m)[[*slices, "model", *metric_columns]] for f, m in zip(frames, models)]
        )
        order = [*slices, "model"] if slices else ["model"]
        position = {m: i for i, m in enumerate(models)}
        table = table.sort_values(
            order, key=lambda s: s.map(position) if s.name == "model" else s, kind="stable"
        ).reset_index(drop=True)
    else:
        table = first[[*slices, *metric_columns]]
    requested, operating_params = _operating_request(plan)
    engine, dialect, source_label, totals, points = _about_data(
        data,
        a.con,
        plan,
        a.group,
        partial(_operating_points, models, slices, columns, operating_params)
        if requested
        else None,
    )
    counts = _counts(first, plan, slices, count_columns, totals)
    operating, operating_note = _operating(table, models, slices, requested, points)

    comparison, not_compared = None, []
    if len(models) > 1:
        paired = [r.text for r in plan.requests if r.spec.inference.paired is not None]
        not_compared = [r.text for r in plan.requests if r.spec.inference.paired is None]
        # the options of the compared metrics only (min_recall= of precision_at_recall,
        # which has no paired test, is no option of compare's metrics)
        accepted = {
            p for r in plan.requests if r.spec.inference.paired is not None for p in r.spec.params
        }
        shared = {
            k: v
            for k, v in options.items()
            if k != "zero_division" and (k in accepted or k == "convention")
        }
        if paired:
            comparison = run(
                "compare",
                lambda: compare(
                    data,
                    paired,
                    scores=models,
                    by=a.by,
                    qrels=a.qrels,
                    con=a.con,
                    **{k: v for k, v in columns.items() if k != "prediction"},
                    **shared,
                ),
            )

    timeseries = None
    if a.day is not None:
        timeseries = _timeseries(
            data,
            texts,
            models,
            slices,
            count_columns,
            a.day,
            watch,
            a.ci if a.ci is not None else DAILY_CI,
            a.max_series,
            run,
            dict(
                qrels=a.qrels,
                ci_method=a.ci_method,
                n_boot=a.n_boot,
                seed=a.seed,
                con=a.con,
                **columns,
                **options,
            ),
        )

    draw = a.curves if a.curves is not None else not plan.ranking and a.qrels is None
    plots: list[Curves] = []
    note = ""
    if draw:
        plots, note = _plots(
            data,
            first,
            slices,
            models,
            a.label,
            a.weight,
            options,
            a.max_slices,
            a.con,
            a.curves,
            run,
        )
    elif a.curves is None:
        note = "No plots: ranking metrics are requested (curves=True draws them)."

    settings = [
        (
            "convention",
            repr(options.get("convention"))
            + ("" if options.get("convention") else " (sqlmetrics' own definitions)"),
        )
    ]
    settings += [(k, repr(v)) for k, v in sorted(plan.options.items()) if k != "convention"]
    settings += [
        (k, repr(v))
        for k, v in (
            ("label", a.label),
            ("score" if len(models) == 1 else "scores", models[0] if len(models) == 1 else models),
            ("group", a.group),
            ("item", a.item),
            ("weight", a.weight),
            ("prediction", a.prediction),
            ("by", slices or None),
            ("ci", a.ci),
            ("ci_method", a.ci_method),
            ("where", where),
        )
        if v is not None
    ]
    if a.ci is not None:
        settings += [("n_boot", repr(a.n_boot)), ("seed", repr(a.seed))]
    if a.day is not None:
        settings += [("day", repr(a.day)), ("monitor", repr(_monitor_settings(watch)))]
        settings += [("max_series", repr(a.max_series))]
    about = [
        ("data", source_label),
        ("generated", _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")),
        ("sqlmetrics", _version()),
        ("engine", engine),
    ]
    page = Page(
        title=a.title,
        metrics=table,
        metric_columns=metric_columns,
        counts=counts,
        operating=operating,
        operating_note=operating_note,
        comparison=comparison,
        not_compared=not_compared,
        curves=plots,
        curves_note=note,
        settings=settings,
        about=about,
        sql=_sql(
            table_name,
            texts,
            plan,
            models,
            columns,
            a.qrels,
            options,
            draw,
            dialect,
            a.ci,
            where,
            a.day,
        ),
        messages=messages,
        monitor=timeseries,
    )
    text = page_html(page, slices, models)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidParameterError(
            f"report: path={os.fspath(a.path)!r} cannot be written ({exc.strerror}); pass a "
            f"path in a writable directory, e.g. path='report.html'"
        ) from exc
    return target


def _message(name: str, text: str) -> str:
    """A warning as the page lists it: the step that raised it first, once
    (``evaluate (model_b): auc is undefined ...``, never ``evaluate: evaluate: ...``).
    """
    caller = name.split(" ")[0]
    if text.startswith(f"{caller}: "):
        text = text[len(caller) + 2 :]
    return f"{name}: {text}"


def data_label(data: Any, label: str) -> str:
    """The data source as the page names it: a list of files (a folder the command line
    read, a shell glob) as their common folder and a count, not every path.
    """
    if not isinstance(data, (list, tuple)) or len(data) <= 3:
        return label
    if not all(isinstance(d, (str, os.PathLike)) for d in data):
        return label
    paths = [os.fspath(d) for d in data]
    try:
        folder = os.path.commonpath(paths)
    except ValueError:  # absolute and relative paths mixed
        folder = ""
    if folder in paths:  # one file, repeated: no folder of its own
        folder = os.path.dirname(folder)
    where = f"{folder or '.'}{os.sep}" if folder else "several folders"
    return f"{where} ({len(paths)} files, e.g. {paths[0]})"


def _check_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InvalidParameterError(
            f"report: path={path!r} must be a file name, e.g. path='report.html'"
        )
    check_path_text("report", "path", os.fspath(path))
    target = Path(os.fspath(path))
    if target.is_dir():
        raise InvalidParameterError(
            f"report: path={os.fspath(path)!r} is a directory; pass a file name in it, e.g. "
            f"path={os.path.join(os.fspath(path), 'report.html')!r}"
        )
    parent = target.parent
    if not parent.is_dir():
        raise InvalidParameterError(
            f"report: path={os.fspath(path)!r}: its directory {os.fspath(parent)!r} does not "
            f"exist; create it first or pass a path in an existing directory"
        )
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InvalidParameterError(
            f"report: path={os.fspath(path)!r} is not writable; pass a path in a writable "
            f"directory, e.g. path='report.html'"
        )
    return target


def _check_scores(scores: Any, score: str) -> list[str]:
    if scores is None:
        return [score]
    if isinstance(scores, str) or not all(isinstance(s, str) for s in scores):
        raise InvalidParameterError(
            f"report: scores={scores!r} must be a list of score columns, one per model, "
            f"e.g. scores=['model_a', 'model_b']"
        )
    models = list(scores)
    if len(models) < 2 or len(set(models)) != len(models):
        raise InvalidParameterError(
            f"report: scores={scores!r} needs at least two different score columns (one per "
            f"model, the first the baseline); for one model pass score= instead"
        )
    return models


def _about_data(
    data: Any,
    con: Any,
    plan: Plan,
    group: str | None,
    then: Callable[[Any, Any], Any] | None = None,
) -> tuple[str, str, str, pd.DataFrame | None, Any]:
    """The engine and its version, its SQL dialect (the one the backend runs: ``sail`` for a
    Sail Spark Connect session), the data source, and the groups of each slice (or None);
    and what ``then(backend, source)`` returns (or None), run on the same opened source (the
    operating points' statements: the data opened once for both).
    """
    with backend_for(con, data) as backend:
        engine = f"{backend.name} {_engine_version(con, backend)}".strip()
        with open_source(data, backend, "report") as source:
            label = data_label(data, source.label)
            extra = then(backend, source) if then is not None else None
            if group is None or not any(_is_grouped(r.spec) for r in plan.requests):
                return engine, backend.dialect, label, None, extra
            by = [quote_ident(b, backend.dialect) for b in plan.by]
            keys = [
                f"{b} as {quote_ident(f'slice_{i}', backend.dialect)}" for i, b in enumerate(by)
            ]
            g = quote_ident(group, backend.dialect)
            sql = (
                f"select {', '.join([*keys, f'count(distinct {g}) as n_groups_total'])} "
                f"from {source.sql} as src" + (f" group by {', '.join(by)}" if by else "")
            )
            totals = backend.query(sql)
            dialect = backend.dialect
    totals = totals.rename(columns={f"slice_{i}": b for i, b in enumerate(plan.by)})
    return engine, dialect, label, totals, extra


def _version() -> str:
    """The installed sqlmetrics distribution's version (the package's ``__version__``)."""
    try:
        return importlib.metadata.version("sqlmetrics")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown (not installed)"


def _engine_version(con: Any, backend: Any) -> str:
    if backend.name == "duckdb":
        return str(duckdb.__version__)
    if backend.name == "clickhouse":  # chDB or a server: the ClickHouse version it runs
        return str(backend.rows("select version()")[0][0])
    version = getattr(con, "version", None)  # a SparkSession
    if isinstance(version, str):
        return version
    dialect = getattr(con, "dialect", None) or getattr(
        getattr(con, "engine", None), "dialect", None
    )
    info = getattr(dialect, "server_version_info", None)
    return ".".join(map(str, info)) if info else ""


def _counts(
    frame: pd.DataFrame,
    plan: Plan,
    slices: list[str],
    count_columns: list[str],
    totals: pd.DataFrame | None,
) -> pd.DataFrame:
    """Per slice: n_rows, the groups, each grouped metric's count, what it left out and why."""
    out = frame[[*slices, "n_rows"]].copy()
    if totals is None:
        for name in count_columns:
            out[name] = frame[name]
        return out
    if slices:
        merged = frame[slices].merge(totals, on=slices, how="left")
        out["n_groups_total"] = merged["n_groups_total"].fillna(0).astype("int64").to_numpy()
    else:
        out["n_groups_total"] = int(totals["n_groups_total"].iloc[0])
    grouped = [r for r in plan.requests if _is_grouped(r.spec)]
    shared = count_columns == ["n_groups"]
    reasons = []
    for req in grouped:
        name = "n_groups" if shared else f"n_groups_{req.text}"
        if name not in out:
            out[name] = frame[name]
        skipped = (out["n_groups_total"] - out[name]).clip(lower=0)
        if _is_ranking(req.spec):
            why = f"no relevant item (empty={plan.options.get('empty', 'skip')!r})"
        else:
            why = "one class only (all positive or all negative)"
        reasons.append((req.text, skipped, why))
        if not shared:
            out[f"skipped_{req.text}"] = skipped
    if shared and reasons:
        out["skipped"] = reasons[0][1]
    out["reason"] = [
        "; ".join(f"{text}: {int(s.iloc[i])} with {why}" for text, s, why in reasons if s.iloc[i])
        or "none skipped"
        for i in range(len(out))
    ]
    return out


def _operating_request(plan: Plan) -> tuple[list[tuple[str, str, Any]], dict[str, Any]]:
    """The operating-point metrics requested, as ``(text, name, level)`` in request order,
    and the checked options of the one operating_points statement that reads them all (the
    levels the metrics were computed at; operating_points' defaults for the others).
    """
    requested = [
        (r.text, r.spec.name, checked[OPERATING[r.spec.name]])
        for r, checked in zip(plan.requests, plan.checked)
        if r.spec.name in OPERATING
    ]
    if not requested:
        return [], {}
    given = {OPERATING[name]: level for _, name, level in requested}
    pos_label = next(
        checked.get("pos_label")
        for r, checked in zip(plan.requests, plan.checked)
        if r.spec.name in OPERATING
    )
    return requested, dict(
        check_params(get_spec("operating_points"), {**given, "pos_label": pos_label})
    )


def _operating_points(
    models: list[str],
    slices: list[str],
    columns: dict[str, Any],
    params: dict[str, Any],
    backend: Any,
    source: Any,
) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Per model, per slice (:func:`_slice_key`), operating_points' columns: one statement
    per model on the engine, rendered as the function renders it and run without the
    function's checks (evaluate has checked the same columns of the same rows, ``where=``
    applied), so the data is read once more only by that statement.
    """
    spec = get_spec("operating_points")
    found: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
    for model in models:
        roles = {"label": columns["label"], "score": model, "weight": columns["weight"]}
        sql = render_sql(spec, source.sql, roles, params, slices, dialect=backend.dialect)
        try:
            frame = backend.query(sql)
        except Exception as exc:
            if not isinstance(exc, backend.errors) or isinstance(exc, backend.interrupts):
                raise
            raise backend.wrap_error("report", [f"data={source.label}"], exc) from None
        names = list(frame.columns[len(slices) :])
        found[model] = {
            _slice_key(r[: len(slices)]): dict(zip(names, r[len(slices) :]))
            for r in frame.itertuples(index=False, name=None)
        }
    return found


def _operating(
    table: pd.DataFrame,
    models: list[str],
    slices: list[str],
    requested: list[tuple[str, str, Any]],
    points: dict[str, dict[tuple[Any, ...], dict[str, Any]]] | None,
) -> tuple[pd.DataFrame | None, str]:
    """The section "Operating points": per row of the metrics table (slice, model) each
    requested operating point's value, the level it is read at and the threshold reaching
    it (:func:`_operating_points`' numbers). The slice values shown are the metrics table's,
    so a NULL reads as it does there.
    """
    if not requested or points is None:
        return None, ""
    import pandas as pd

    several = len(models) > 1
    rows: list[list[Any]] = []  # lists: a slice may be named like a column of the section
    for record in table.itertuples(index=False, name=None):
        values = dict(zip(table.columns, record))
        key = [values[s] for s in slices]
        model = values["model"] if several else models[0]
        # every slice of the table is one of the statement's (the same rows, grouped alike)
        got = points[model].get(_slice_key(key), {})
        for text, name, level in requested:
            rows.append(
                [
                    *key,
                    *([model] if several else []),
                    text,
                    f"{OPERATING[name]}={level!r}",
                    _float(got.get(name)),
                    _float(got.get(f"{name}_threshold")),
                ]
            )
    names = [*slices, *(["model"] if several else []), "metric", "level", "value", "threshold"]
    note = (
        f"Per slice{' and model' if several else ''}, each operating point of metrics= with the "
        f"level it is read at and the threshold reaching it (predict 1 for score >= threshold): "
        f"sqlmetrics.operating_points on the engine, one statement"
        f"{' per model' if several else ''}. NaN where the value is undefined (no threshold "
        f"reaches the level, or the slice lacks a class), and tpr_at_fpr's threshold where "
        f"only the point above the highest score (no row predicted 1) meets max_fpr."
    )
    return pd.DataFrame(rows, columns=names), note


def _float(value: Any) -> float:
    """A number of the statement's result as a float, NULL (None, NA, NaN) as NaN."""
    import pandas as pd

    return math.nan if value is None or pd.isna(value) else float(value)


def _slice_key(values: Sequence[Any]) -> tuple[Any, ...]:
    """A slice's values as a dict key: NULL (None, NaN, NA) as None."""
    import pandas as pd

    return tuple(
        None if v is None or (pd.api.types.is_scalar(v) and pd.isna(v)) else v for v in values
    )


def _plots(
    data: Any,
    first: pd.DataFrame,
    slices: list[str],
    models: list[str],
    label: str,
    weight: str | None,
    options: dict[str, Any],
    max_slices: int,
    con: Any,
    curves: bool | None,
    run: Callable[[str, Callable[[], Any]], Any],
) -> tuple[list[Curves], str]:
    """The curves of the ``max_slices`` largest slices, one line per model."""
    common: dict[str, Any] = {"label": label, "by": slices or None, "con": con}
    if options.get("pos_label") is not None:
        common["pos_label"] = options["pos_label"]
    weighted: dict[str, Any] = {"weight": weight} if weight is not None else {}
    calls: dict[str, Callable[[str], pd.DataFrame]] = {
        "roc": lambda s: roc_curve(data, score=s, max_points=MAX_POINTS, **weighted, **common),
        "pr": lambda s: pr_curve(data, score=s, max_points=MAX_POINTS, **weighted, **common),
        "calibration": lambda s: calibration_curve(data, score=s, n_bins=10, **weighted, **common),
        "gains": lambda s: lift_table(data, score=s, n_bins=10, **common),
    }
    frames: dict[str, dict[str, pd.DataFrame]] = {}
    missing: dict[str, str] = {}
    for kind, call in calls.items():
        if kind == "gains" and weight is not None:
            missing[kind] = "lift_table takes no weights"
            continue
        for model in models:
            try:
                frame = run(f"{kind} curve ({model})", partial(call, model))
            except (InvalidDataError, InvalidParameterError) as exc:
                if curves:
                    raise
                missing[kind] = str(exc)
                frames.pop(kind, None)
                break
            frames.setdefault(kind, {})[model] = frame
    order = first.sort_values("n_rows", ascending=False, kind="stable").index[:max_slices]
    shown = first.loc[sorted(order)]
    result = []
    for _, row in shown.iterrows():
        key = tuple(row[s] for s in slices)
        title = ", ".join(f"{s} = {_shown(v)}" for s, v in zip(slices, key)) or "all rows"
        one = Curves(f"{title} ({int(row['n_rows'])} rows)", missing=dict(missing))
        for kind, per_model in frames.items():
            for model, frame in per_model.items():
                part = _select(frame, slices, key)
                xs, ys = _xy(kind, part)
                one.lines.setdefault(kind, {})[model] = (xs, ys)
        result.append(one)
    note = f"Plots of the {len(result)} largest of {len(first)} slice(s) by rows."
    return result, note


def _shown(value: Any) -> str:
    return "NULL" if value is None or (isinstance(value, float) and value != value) else str(value)


def _select(frame: pd.DataFrame, slices: list[str], key: tuple[Any, ...]) -> pd.DataFrame:
    import pandas as pd

    mask = pd.Series(True, index=frame.index)
    for s, v in zip(slices, key):
        mask &= frame[s].isna() if pd.isna(v) else frame[s] == v
    return frame[mask]


def _xy(kind: str, part: pd.DataFrame) -> tuple[list[float], list[float]]:
    if kind == "roc":
        return part["fpr"].astype(float).tolist(), part["tpr"].astype(float).tolist()
    if kind == "pr":
        return part["recall"].astype(float).tolist(), part["precision"].astype(float).tolist()
    if kind == "calibration":
        return (
            part["mean_predicted"].astype(float).tolist(),
            part["fraction_positive"].astype(float).tolist(),
        )
    total = float(part["n"].sum()) or 1.0
    xs = [0.0, *(part["cumulative_n"].astype(float) / total).tolist()]
    return xs, [0.0, *part["gain"].astype(float).tolist()]


def _sql(
    data: Any,
    texts: list[str],
    plan: Plan,
    models: list[str],
    columns: dict[str, Any],
    qrels: Any,
    options: dict[str, Any],
    draw: bool,
    dialect: str,
    ci: float | None,
    filter_rows: str | None = None,
    day: str | None = None,
) -> list[tuple[str, str]]:
    """The SQL behind the numbers, rendered by render_evaluate / render (decision 0001);
    ``filter_rows``: report's ``where=`` (in evaluate's SQL; a comment above the curves');
    ``day``: the daily table's evaluate, and how metric_anomalies reads it.
    """
    named = isinstance(data, (str, os.PathLike))
    relation = data if named else "source_table"
    where = "" if named else " (the input, named source_table here)"
    out: list[tuple[str, str]] = []
    if qrels is not None and not isinstance(qrels, (str, os.PathLike)):
        return [("evaluate", "-- not rendered: qrels= is not a table name or a file path")]
    try:
        out.append(
            (
                f"evaluate: the metrics and counts{where}",
                render_evaluate(
                    relation,
                    texts,
                    score=models[0],
                    by=plan.by or None,
                    qrels=qrels,
                    where=filter_rows,
                    dialect=dialect,
                    **{k: v for k, v in columns.items() if v is not None},
                    **options,
                ),
            )
        )
    except SqlMetricsError as exc:  # e.g. qrels as a DataFrame: render needs a name
        out.append(("evaluate", f"-- not rendered: {exc}"))
    if day is not None:
        level = ci if ci is not None else DAILY_CI
        then = (
            f"-- then, per metric m of this table with an interval (ci={level}):\n"
            f"--   sqlmetrics.metric_anomalies(<this table>, m, day={day!r}, "
            f"by={list(plan.by) or None!r}, ci_level={level}, **monitor)\n"
            f"--   (sql/_macros/inference/anomalies.sql, over this table in DuckDB)\n"
        )
        try:
            daily = render_evaluate(
                relation,
                texts,
                score=models[0],
                by=[day, *plan.by],
                qrels=qrels,
                where=filter_rows,
                dialect=dialect,
                **{k: v for k, v in columns.items() if v is not None},
                **options,
            )
        except SqlMetricsError as exc:
            daily = f"-- not rendered: {exc}"
        out.append((f"evaluate per {day}: the daily table of the series{where}", then + daily))
    if draw:
        for name, params in (
            ("roc_curve", {"max_points": MAX_POINTS}),
            ("pr_curve", {"max_points": MAX_POINTS}),
            ("calibration_curve", {"n_bins": 10}),
            ("lift_table", {"n_bins": 10}),
        ):
            try:
                sql = render(
                    name,
                    relation,
                    by=plan.by or None,
                    dialect=dialect,
                    label=columns["label"],
                    score=models[0],
                    **params,
                )
            except SqlMetricsError as exc:
                sql = f"-- not rendered: {exc}"
            if filter_rows is not None:  # render has no where=: said, not left out
                sql = f"-- over the rows where ({' '.join(filter_rows.split())})\n{sql}"
            out.append((f"{name}{where}", sql))
    requested, params = _operating_request(plan)
    if requested:
        try:
            sql = render(
                "operating_points",
                relation,
                by=plan.by or None,
                dialect=dialect,
                label=columns["label"],
                score=models[0],
                **({"weight": columns["weight"]} if columns["weight"] is not None else {}),
                **params,
            )
        except SqlMetricsError as exc:
            sql = f"-- not rendered: {exc}"
        if len(models) > 1:
            sql = f"-- score={models[0]!r}; the same statement per model (scores=)\n{sql}"
        if filter_rows is not None:
            sql = f"-- over the rows where ({' '.join(filter_rows.split())})\n{sql}"
        out.append((f"operating_points: the operating points' thresholds{where}", sql))
    if ci is not None:
        out.append(
            (
                "intervals",
                "-- each metric's interval comes from the metric's own function with ci= (the "
                "same SQL as sqlmetrics.<metric>(..., ci=...); docs/concepts/uncertainty.md)",
            )
        )
    if len(models) > 1:
        out.append(("comparison", "-- the paired tests come from sqlmetrics.compare(...)"))
    return out


def _check_monitor(monitor: Any, day: str | None, metric: str) -> dict[str, Any]:
    """``monitor=``'s options of metric_anomalies, checked as metric_anomalies checks them."""
    if monitor is None:
        return {}
    if day is None:
        raise InvalidParameterError(
            f"report: monitor={monitor!r} needs day=, the day column the metrics are followed "
            f"over, e.g. day='day'"
        )
    if not isinstance(monitor, Mapping) or not all(isinstance(k, str) for k in monitor):
        raise InvalidParameterError(
            f"report: monitor={monitor!r} must be a dict of metric_anomalies' options, e.g. "
            f"monitor={{'window': 28, 'threshold': 3.5}}"
        )
    for key in monitor:
        if key not in MONITOR_KEYS:
            near = difflib.get_close_matches(key, MONITOR_KEYS, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            own = " (report sets it: day=, by=, ci=)" if key in ("day", "by", "ci_level") else ""
            raise InvalidParameterError(
                f"report: monitor={dict(monitor)!r}: {key!r} is not an option of "
                f"metric_anomalies that report passes on{own}{hint}; pass some of "
                f"{', '.join(MONITOR_KEYS)}"
            )
    options = dict(monitor)
    if not isinstance(options.get("intervals", True), bool):
        raise InvalidParameterError(
            f"report: monitor={options!r}: intervals={options['intervals']!r} must be True or False"
        )
    defaults = _monitor_defaults()
    given = {k: options.get(k, defaults[k]) for k in MONITOR_KEYS if k != "intervals"}
    try:
        _anomaly_options(metric, ci_level=DAILY_CI, **given)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"report: monitor={options!r}: {exc}") from None
    return options


def _monitor_defaults() -> dict[str, Any]:
    """metric_anomalies' own defaults of the options monitor= passes on."""
    parameters = inspect.signature(metric_anomalies).parameters
    return {k: parameters[k].default for k in MONITOR_KEYS}


def _monitor_settings(watch: dict[str, Any]) -> dict[str, Any]:
    """The options the series were scored with, the defaults filled in."""
    out = {**_monitor_defaults(), **watch}
    if out["direction"] is None:
        out["direction"] = "from each metric"
    return out


def _check_day(day: Any, slices: list[str], data: Any, con: Any) -> None:
    """``day=``: a DATE or TIMESTAMP column of ``data``, not a slice."""
    if not isinstance(day, str) or not day.strip():
        raise InvalidParameterError(
            f"report: day={day!r} must be the name of the day column (a DATE or TIMESTAMP), "
            f"e.g. day='day'"
        )
    if day in slices:
        raise InvalidParameterError(
            f"report: day={day!r} is also in by={slices!r}; the series run over the days of "
            f"each slice: leave {day!r} out of by="
        )
    with backend_for(con, data) as backend, open_source(data, backend, "report") as source:
        present = source.columns
        if day not in present:
            near = difflib.get_close_matches(day, list(present), n=1)
            hint = f"did you mean day={near[0]!r}? " if near else ""
            raise ColumnNotFoundError(
                f"report: day={day!r} is not a column of data={source.label}; {hint}pass the "
                f"day column (a DATE or TIMESTAMP); columns present: {', '.join(present)}"
            )
        if type_family(present[day]) != "date/time":
            raise InvalidDataError(
                f"report: day={day!r} has type {present[day]}; day= must name a DATE or "
                f"TIMESTAMP column: convert it first (pandas: frame[{day!r}] = "
                f"pd.to_datetime(frame[{day!r}]); SQL: cast({day} as date))"
            )


def _day_text(value: Any) -> str:
    """A day as the page writes it: ``2026-01-30``, with its time when it has one."""
    import pandas as pd

    stamp = pd.Timestamp(value)
    return str(stamp.strftime("%Y-%m-%d") if stamp == stamp.normalize() else stamp.isoformat(" "))


def _day_number(value: Any) -> float:
    """A day as the charts' x: days since 1970-01-01."""
    import pandas as pd

    return float((pd.Timestamp(value) - pd.Timestamp(0)) / pd.Timedelta(days=1))


def _timeseries(
    data: Any,
    texts: list[str],
    models: list[str],
    slices: list[str],
    count_columns: list[str],
    day: str,
    watch: dict[str, Any],
    level: float,
    max_series: int,
    run: Callable[[str, Callable[[], Any]], Any],
    kwargs: dict[str, Any],
) -> Monitor:
    """The section "Metrics over time": per model the daily table (one evaluate), per
    metric with an interval metric_anomalies over it, split into one series per slice.
    """
    import pandas as pd

    several = len(models) > 1
    found: list[tuple[str, str, tuple[Any, ...], pd.DataFrame, int]] = []
    flagged: list[pd.DataFrame] = []
    left_out: list[str] = []
    null_rows = 0
    for model in models:
        suffix = f" ({model})" if several else ""
        daily = run(
            f"evaluate per {day}{suffix}",
            partial(evaluate, data, texts, score=model, by=[day, *slices], ci=level, **kwargs),
        )
        missing = daily[day].isna()
        null_rows += int(daily.loc[missing, "n_rows"].sum())
        daily = daily[~missing].reset_index(drop=True)
        columns = [c for c in daily.columns if c not in (day, *slices, "n_rows", *count_columns)]
        names = [c for c in columns if f"{c}_lo" in columns and f"{c}_hi" in columns]
        bounds = {f"{c}_{end}" for c in names for end in ("lo", "hi")}
        left_out += [c for c in columns if c not in names and c not in bounds and c not in left_out]
        rows = daily.groupby(slices, dropna=False, sort=False)["n_rows"].sum() if slices else None
        for metric in names:
            table = daily[[day, *slices, metric, f"{metric}_lo", f"{metric}_hi", "n_rows"]]
            scored = run(
                f"metric_anomalies ({metric}{', ' + model if several else ''})",
                partial(
                    metric_anomalies,
                    table,
                    metric,
                    day=day,
                    by=slices or None,
                    ci_level=level,
                    **watch,
                ),
            )
            keys = scored[slices].drop_duplicates() if slices else pd.DataFrame(index=[0])
            for _, key_row in keys.iterrows():
                key = tuple(key_row[s] for s in slices)
                part = _select(scored, slices, key)
                size = int(daily["n_rows"].sum()) if rows is None else int(_rows_of(rows, key))
                found.append((model, metric, key, part, size))
            hits = scored[scored["anomaly"]]
            if len(hits):
                shown = hits[[*slices, day]].copy()
                shown.insert(0, "metric", metric)
                if several:
                    shown.insert(0, "model", model)
                shown[day] = [_day_text(v) for v in hits[day]]
                for column in ("value", "lo", "hi", "n_rows", "baseline", "band_lo", "band_hi"):
                    shown[column] = hits[column]
                shown["z"] = hits["z"]
                shown["deviation"] = hits["deviation"]
                flagged.append(shown)
    order = sorted(
        range(len(found)), key=lambda i: (not bool(found[i][3]["anomaly"].any()), -found[i][4], i)
    )
    drawn = set(order[:max_series])
    series: list[Series] = []
    summary = []
    for i, (model, metric, key, part, size) in enumerate(found):
        where = ", ".join(f"{s} = {_shown(v)}" for s, v in zip(slices, key)) or "all rows"
        title = f"{metric}{f' ({model})' if several else ''}, {where}"
        entry: dict[str, Any] = {"model": model} if several else {}
        entry |= {"metric": metric, **dict(zip(slices, key)), "rows": size}
        entry |= {
            "days": len(part),
            "scored": int((part["status"] == "scored").sum()),
            "flagged": int(part["anomaly"].sum()),
            "last_status": str(part["status"].iloc[-1]) if len(part) else "",
            "drawn": "yes" if i in drawn else "no",
        }
        summary.append(entry)
        if i in drawn:
            series.append(Series(title, metric, _days(part, day)))
    flagged_frame = (
        pd.concat(flagged, ignore_index=True)
        if flagged
        else pd.DataFrame(columns=[*(["model"] if several else []), "metric", *slices, day])
    )
    metrics_done = sorted({m for _, m, _, _, _ in found}, key=lambda m: [*texts, m].index(m))
    note = (
        f"Charts of {len(series)} of {len(found)} series (metric x slice"
        f"{' x model' if several else ''}; max_series={max_series}): those with a flagged "
        f"day first, then the slices with the most rows. The table below the charts lists "
        f"every series."
    )
    if not found:
        note = "No series: no metric has an interval to score the days with."
    if left_out:
        note += f" Not scored (no interval): {', '.join(left_out)}."
    if null_rows:
        note += f" Left out: {null_rows} rows with a NULL {day}."
    direction = watch.get("direction")
    directions = ", ".join(f"{m}: {direction or default_direction(m)}" for m in metrics_done)
    settings = (
        f"Daily values of evaluate(..., by={[day, *slices]!r}, ci={level}), one statement"
        f"{' per model' if several else ''}; each day scored by metric_anomalies"
        f"({', '.join(f'{k}={v!r}' for k, v in _monitor_settings(watch).items())}) against "
        f"its slice's previous days. Flagged direction: {directions or 'none'}."
    )
    return Monitor(day, series, note, pd.DataFrame(summary), flagged_frame, settings)


def _rows_of(rows: pd.Series, key: tuple[Any, ...]) -> int:
    """The rows of the slice ``key`` over all days (NULL slice values equal each other)."""
    import pandas as pd

    for index, value in rows.items():
        got = index if isinstance(index, tuple) else (index,)
        if all((pd.isna(a) and pd.isna(b)) or a == b for a, b in zip(got, key)):
            return int(value)
    return 0


def _days(part: pd.DataFrame, day: str) -> list[tuple[Any, ...]]:
    """A series' days as the chart reads them (report_html.Series)."""
    result: list[tuple[Any, ...]] = []
    for r in part.to_dict("records"):
        number = [
            float("nan") if r[c] is None or r[c] != r[c] else float(r[c])
            for c in ("value", "lo", "hi", "baseline", "band_lo", "band_hi", "z")
        ]
        result.append(
            (
                _day_text(r[day]),
                _day_number(r[day]),
                *number,
                r["deviation"] if isinstance(r["deviation"], str) else None,
                bool(r["anomaly"]),
                str(r["status"]),
            )
        )
    return result


API = (
    entry_point(
        "report",
        takes=entry_takes(
            "group_weight train round indicators dialect",
            "curves max_slices day monitor max_series path title convention",
        ),
        call=run_report,
        positional=2,
        returns_type="Path",
        summary="""
    Write an evaluation as one self-contained HTML page, and return its path.

    The page holds the metrics per slice as a table (sortable by clicking a header), with
    their intervals when ``ci=`` is given; when ``metrics`` lists an operating point
    (``recall_at_precision``, ``precision_at_recall``, ``tpr_at_fpr``), the section "Operating
    points": per slice (and model) each one's value, the level it is read at
    (``min_precision=``, ``min_recall=``, ``max_fpr=``) and the threshold reaching it, as
    :func:`operating_points` gives them; per slice ``n_rows``, each grouped metric's group
    count and the groups it left out, and why; ROC, precision-recall, calibration and
    cumulative-gains plots (inline SVG) for the ``max_slices`` largest slices; with several
    ``scores=``, the paired comparison of the models (:func:`compare`, p-values after Holm);
    the convention and options, the data source, the sqlmetrics and engine versions, and the
    SQL behind the numbers (folded). With ``day=``, the metrics over time: per metric and
    slice the daily value with its interval, the baseline band of :func:`metric_anomalies`
    and the flagged days. It needs no network (no CDN; inline CSS and SVG, a few lines of
    JavaScript) and prints to PDF readably.
    """,
        returns="""
    pathlib.Path
        The path of the written file.
    """,
        raises="""
    InvalidParameterError
        No metric, ``path`` not writable (its directory missing, or a directory),
        ``scores`` with fewer than two columns, ``max_slices`` or ``max_series`` below 1,
        ``day`` not a column name or in ``by``, ``monitor`` without ``day`` or with an
        unknown or invalid option, and what :func:`evaluate`, the curve functions,
        :func:`compare` and :func:`metric_anomalies` raise.
    ColumnNotFoundError
        As for :func:`evaluate`; ``day`` not a column of ``data``.
    InvalidDataError, DataSourceError
        As for :func:`evaluate`; ``day`` a column that is not a DATE or TIMESTAMP.
    """,
        warns="""
    UndefinedMetricWarning, SkippedGroupsWarning
        As :func:`evaluate`; the page lists them too.
    """,
        notes="""
    A table cell shows the value rounded to 6 significant digits and holds the exact float
    (``repr``) in its ``data-value`` attribute, which sorting reads. The operating points come
    from one operating_points statement per model, over the rows ``where=`` keeps, at the
    levels the metrics table was computed at (``**options``' or the metrics' defaults); their
    values equal the metrics table's, and an undefined point (no threshold reaches the level,
    or a slice without both classes) shows NaN, its threshold too. The plots' ROC and
    precision-recall curves keep 200 exact points per slice (``max_points=200``).
    User data is escaped (``html.escape``) wherever it is written: a slice value such as
    ``<script>`` is shown as text, never run.
    """,
        examples="""
    >>> import pandas as pd, tempfile, os
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"country": ["DE", "DE", "DE", "FR", "FR", "FR"],
    ...                    "label": [1, 0, 0, 0, 1, 1], "score": [.9, .3, .5, .4, .2, .8]})
    >>> out = os.path.join(tempfile.mkdtemp(), "report.html")
    >>> page = sqlmetrics.report(df, ["auc", "accuracy"], by="country", path=out)
    >>> page.name
    'report.html'
    >>> 'data-value="0.6666666666666666"' in page.read_text()
    True
    """,
        own=args(
            """
    data, metrics, label, score, group, item, qrels, by, weight, prediction, ci, ci_method, \
n_boot, seed, where, con, **options
        As for :func:`evaluate`; the table shows exactly ``evaluate``'s frame. ``where=``
        filters the rows of every part of the page (metrics, plots, comparison).
    scores : list of str, optional
        Score columns of several models (at least two), the first the baseline: the table
        has a row per (slice, model), the plots a line per model, and the page the paired
        comparison of the models by :func:`compare` for the metrics that have a paired test.
        (Not :func:`evaluate`'s wide class scores.) None: one model, ``score=``.
    curves : bool, optional
        Draw the ROC, precision-recall, calibration and cumulative-gains plots. None
        (default): draw them unless a ranking metric is requested, and say on the page why
        a plot is absent (e.g. scores outside [0, 1] for calibration); True: draw them and
        raise where one cannot be drawn; False: none. The plots are the curve functions' own
        (``max_points=200``, 10 bins), without ``convention=``, which defines no curve.
    max_slices : int, default 12
        Plots for at most this many slices, those with the most rows (ties: the slice order).
    day : str, optional
        The day column (a DATE or TIMESTAMP; not in ``by=``): adds the section "Metrics over
        time". The daily table is ``evaluate(data, metrics, by=[day, *by], ci=ci)`` (one
        statement per model, on ``con``; ``ci=0.95`` when ``ci=`` is None), and each metric
        of it with an interval is scored by :func:`metric_anomalies` (over that table, in
        process) per slice: a chart per (metric, slice) of the daily value and its interval,
        the baseline band (shaded), its mean, and the flagged days marked (a tooltip gives
        the day, value, band and z); a table of the flagged days (exactly metric_anomalies'
        rows with ``anomaly`` true) and a table of every series. Metrics without an interval
        (counts, ``auc_bounds``) are named, not scored. None (default): no such section.
    monitor : dict, optional
        Options of :func:`metric_anomalies`, passed on for every metric: ``window``,
        ``seasonality``, ``delay``, ``min_rows``, ``min_history``, ``threshold``,
        ``direction`` (default: from each metric, a drop of AUC, a rise of a loss) and
        ``intervals``; e.g. ``monitor={"window": 56, "seasonality": "weekday", "delay": 1}``.
        (A dict, not keywords: ``threshold=`` is the metrics' own option.) Needs ``day=``.
    max_series : int, default 24
        Charts for at most this many series (metric x slice x model): those with a flagged
        day first, then those of the slices with the most rows; the page says which are
        drawn, and its table lists every series.
    path : str or path, default "report.html"
        The file written (replaced if it exists); its directory must exist.
    title : str, default "sqlmetrics report"
        The page's title.
    """,
            **(
                ENTRY
                | {
                    "scores": ("Sequence[str] | None", None),
                    "curves": ("bool | None", None),
                    "max_slices": ("int", 12),
                    "day": ("str | None", None),
                    "monitor": ("Mapping[str, Any] | None", None),
                    "max_series": ("int", 24),
                    "path": ("str | os.PathLike[str]", "report.html"),
                    "title": ("str", "sqlmetrics report"),
                }
            ),
        ),
    ),
)
