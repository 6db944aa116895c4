"""Model monitoring where the data lives: ``metric_anomalies`` over a daily table.

The statement is ``metric_anomalies`` of sql/_macros/inference/anomalies.sql, whose header
states the definition: per (slice, day), a baseline band from the slice's trailing window,
scored against both the day-to-day spread and the day's own sampling error (its interval),
and a flag with its direction. Python checks the arguments and the table, renders, runs.
"""

from __future__ import annotations

import json
import numbers
from typing import TYPE_CHECKING, Any

from .._backends import backend_for, on_source
from .._backends.source import Replayed, open_source
from .._core.params import REQUIRED, args, entry_point
from .._core.registry import REGISTRY
from .._engine.run import normalize_by
from .._engine.validate import check_columns, check_unique, is_numeric, type_family
from .._inference.stats import two_sided_normal
from .._templating.quoting import quote_ident
from .._templating.templates import render_macro
from ..errors import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
)
from ._api_evaluate import evaluate
from .state import ARGS, COUNT, VERSION

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import MetricAnomaliesCall

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_monitor.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["OPTIONS", "check_options", "run_metric_anomalies"]

NAME = "metric_anomalies"
SEASONALITIES = ("weekday",)
DIRECTIONS = ("drop", "rise", "both")
#: the columns of the data a state records, by argument
ROLE_ARGS = ("label", "score", "group", "item", "weight", "prediction")
#: the output's float columns
FLOATS = ("value", "lo", "hi", "se", "baseline", "spread", "tau", "band_lo", "band_hi", "z")


def _integer(name: str, value: Any, low: int, example: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise InvalidParameterError(
            f"{NAME}: {name}={value!r} must be an integer >= {low} (e.g. {name}={example})"
        )
    return int(value)


def default_direction(metric: str) -> str:
    """The deviation flagged by default: a drop of a metric where higher is better, a rise of
    one where lower is better (a loss), both for a name the registry does not know.
    """
    spec = REGISTRY.get(metric.split("@")[0].strip().lower())
    if spec is None or spec.better == "neither":
        return "both"
    return "drop" if spec.better == "higher" else "rise"


#: the options of the band, in the signature's order (:func:`check_options`; ``report(monitor=)``
#: passes them on, with ``intervals``)
OPTIONS = ("window", "seasonality", "delay", "min_rows", "min_history", "threshold", "direction")


def check_options(
    metric: Any,
    window: Any,
    seasonality: Any,
    delay: Any,
    min_rows: Any,
    min_history: Any,
    threshold: Any,
    direction: Any,
    ci_level: Any,
) -> dict[str, Any]:
    """The options of ``metric_anomalies`` checked (each bad one named with its fix), as the
    statement takes them (``report(day=, monitor=)`` checks its ``monitor=`` with it too).
    """
    if not isinstance(metric, str) or not metric:
        raise InvalidParameterError(
            f"{NAME}: metric={metric!r} must be the name of the metric's column (e.g. "
            f"metric='auc', as evaluate(..., by=['day', ...], ci=0.95) names it)"
        )
    if seasonality is not None and seasonality not in SEASONALITIES:
        raise InvalidParameterError(
            f"{NAME}: seasonality={seasonality!r} is not one of None, 'weekday'; pass "
            f"seasonality='weekday' to compare each day with the same weekdays only"
        )
    if direction is not None and direction not in DIRECTIONS:
        raise InvalidParameterError(
            f"{NAME}: direction={direction!r} is not one of 'drop', 'rise', 'both' (or None: "
            f"{default_direction(metric)!r} for {metric!r}, from which way the metric is better)"
        )
    real = isinstance(threshold, numbers.Real) and not isinstance(threshold, bool)
    if not real or not 0 < float(threshold) < float("inf"):
        raise InvalidParameterError(
            f"{NAME}: threshold={threshold!r} must be a positive number of standard deviations "
            f"(e.g. threshold=3.5)"
        )
    level_ok = isinstance(ci_level, numbers.Real) and not isinstance(ci_level, bool)
    if not level_ok or not 0 < float(ci_level) < 1:
        raise InvalidParameterError(
            f"{NAME}: ci_level={ci_level!r} must be the level of the intervals in the table, "
            f"strictly between 0 and 1 (e.g. 0.95, as evaluate's ci=0.95 writes them)"
        )
    flag = direction or default_direction(metric)
    return {
        "window": _integer("window", window, 1, 28),
        "weekday": seasonality == "weekday",
        "delay": _integer("delay", delay, 0, 2),
        "min_rows": _integer("min_rows", min_rows, 0, 1000),
        "min_history": _integer("min_history", min_history, 2, 7),
        "threshold": float(threshold),
        "z": two_sided_normal(float(ci_level)),
        "flagged": ["drop", "rise"] if flag == "both" else [flag],
    }


def run_metric_anomalies(a: MetricAnomaliesCall) -> pd.DataFrame:
    """The body of :func:`metric_anomalies`, its arguments in ``a``."""
    data = a.data
    con = a.con
    options = check_options(
        a.metric,
        a.window,
        a.seasonality,
        a.delay,
        a.min_rows,
        a.min_history,
        a.threshold,
        a.direction,
        a.ci_level,
    )
    by_cols = normalize_by(NAME, a.by)
    for arg, given in (
        ("day", a.day),
        ("value", a.value),
        ("lo", a.lo),
        ("hi", a.hi),
        ("n_rows", a.n_rows),
    ):
        if given is not None and not (isinstance(given, str) and given):
            raise InvalidParameterError(
                f"{NAME}: {arg}= must be a column name (a non-empty string); got {given!r}"
            )
    if a.day in by_cols:
        raise InvalidParameterError(
            f"{NAME}: by={a.by!r} holds the day column {a.day!r}; each slice is a series over its "
            f"days: leave {a.day!r} out of by="
        )
    if not isinstance(a.intervals, bool):
        raise InvalidParameterError(f"{NAME}: intervals={a.intervals!r} must be True or False")
    if not a.intervals and (a.lo is not None or a.hi is not None):
        raise InvalidParameterError(
            f"{NAME}: lo={a.lo!r}, hi={a.hi!r} with intervals=False: the intervals are left out; "
            f"pass one or the other"
        )
    if (a.lo is None) != (a.hi is None):
        raise InvalidParameterError(
            f"{NAME}: lo={a.lo!r} and hi={a.hi!r}: pass both interval columns or neither"
        )
    if _states_args(data, con) is not None:
        data, con = (
            _daily_of_states(data, con, a.metric, a.day, by_cols, a.intervals, a.ci_level),
            None,
        )
    columns = (a.metric, a.day, by_cols, a.value, a.lo, a.hi, a.n_rows, a.intervals)
    return on_source(NAME, data, con, lambda source: _run(source, *columns, options))


def _states_args(data: Any, con: Any) -> dict[str, Any] | None:
    """The arguments the states in ``data`` were made with (their ``sqlmetrics_args``), or
    None when ``data`` is not a table of states.
    """
    with backend_for(con, data) as backend, open_source(data, backend, NAME) as source:
        if not {VERSION, ARGS} <= set(source.columns):
            return None
        q = backend.ident(ARGS)
        n, text = backend.rows(f"select count(distinct {q}), min({q}) from {source.sql}")[0]
    if n != 1:
        raise InvalidDataError(
            f"{NAME}: data={source.label} holds states made with {n} different sets of "
            f"arguments ({ARGS}); monitor the states of one sqlmetrics.state call's arguments"
        )
    args: dict[str, Any] = json.loads(str(text))
    return args


def _daily_of_states(
    data: Any,
    con: Any,
    metric: str,
    day: str,
    by_cols: list[str],
    intervals: bool,
    ci_level: float,
) -> pd.DataFrame:
    """The daily table of ``metric`` over the rows the states stand for: evaluate by day and
    slice, with intervals, of the states replayed (as merge replays them) on their engine.
    """
    args = _states_args(data, con)
    assert args is not None
    if metric not in args["metrics"]:
        raise InvalidParameterError(
            f"{NAME}: metric={metric!r} is not one of the states' metrics "
            f"({', '.join(args['metrics'])}); monitor one of them, or make states of {metric!r}"
        )
    if args.get("qrels") or args.get("train"):
        raise InvalidParameterError(
            f"{NAME}: the states were made with qrels= or train=, which they do not hold; "
            f"monitor evaluate(..., by=[day, ...], ci=)'s daily table instead"
        )
    with backend_for(con, data) as backend, open_source(data, backend, NAME) as source:
        columns = tuple(c for c in source.columns if c not in (VERSION, ARGS, COUNT))
        label = source.label
    for arg, col in [("day", day)] + [("by", c) for c in by_cols]:
        if col not in columns:
            raise ColumnNotFoundError(
                f"{NAME}: column {col!r} ({arg}=) not found in the states data={label}; "
                f"columns present: {', '.join(columns)} (make the states with the day and "
                f"the slices as columns, e.g. state(rows, metrics, by=[day, ...]))"
            )
    roles = {r: args[r] for r in ROLE_ARGS if args.get(r)}
    return evaluate(
        Replayed(data, columns),
        [metric],
        by=[day, *by_cols],
        ci=ci_level if intervals else None,
        con=con,
        **roles,
        **args.get("options", {}),
    )


def _run(
    source: Any,
    metric: str,
    day: str,
    by_cols: list[str],
    value: str | None,
    lo: str | None,
    hi: str | None,
    n_rows: str | None,
    intervals: bool,
    options: dict[str, Any],
) -> pd.DataFrame:
    present = source.columns
    value = value or metric
    found = f"{metric}_lo" in present and f"{metric}_hi" in present
    if intervals and lo is None and found:
        lo, hi = f"{metric}_lo", f"{metric}_hi"
    if n_rows is None and "n_rows" in present:
        n_rows = "n_rows"
    if options["min_rows"] and n_rows is None:
        raise InvalidParameterError(
            f"{NAME}: min_rows={options['min_rows']} needs the row counts: pass n_rows= the "
            f"column holding each day's rows (evaluate writes n_rows)"
        )
    named = [("day", day), ("value", value)] + [("by", c) for c in by_cols]
    named += [(a, c) for a, c in (("lo", lo), ("hi", hi), ("n_rows", n_rows)) if c]
    check_columns(NAME, source, named)
    if type_family(present[day]) != "date/time":
        raise InvalidDataError(
            f"{NAME}: day column {day!r} has type {present[day]}; day= must name a DATE or "
            f"TIMESTAMP column (cast it first, e.g. cast({day} as date))"
        )
    for arg, col in named:
        if arg in ("value", "lo", "hi", "n_rows") and not is_numeric(present[col]):
            raise InvalidDataError(
                f"{NAME}: {arg} column {col!r} has type {present[col]}; {arg}= must name a "
                f"numeric column"
            )
    backend = source.backend
    q = {arg: backend.ident(col) for arg, col in named if arg != "by"}
    bad_interval = f"sum(case when {q['hi']} < {q['lo']} then 1 else 0 end)" if lo else "0"
    n, null_days, reversed_ = backend.rows(
        f"select count(*), sum(case when {q['day']} is null then 1 else 0 end), {bad_interval} "
        f"from {source.sql}"
    )[0]
    if not n:
        raise InvalidDataError(f"{NAME}: data={source.label} has no rows")
    if null_days:
        raise InvalidDataError(
            f"{NAME}: day column {day!r} has {int(null_days)} of {int(n)} rows NULL; every row "
            f"needs its day (filter `{day} is not null`)"
        )
    if reversed_:
        raise InvalidDataError(
            f"{NAME}: {int(reversed_)} of {int(n)} rows have hi < lo ({hi!r} < {lo!r}); pass "
            f"the interval's lower bound as lo= and its upper bound as hi="
        )
    check_unique(
        NAME,
        source,
        [("by", c) for c in by_cols] + [("day", day)],
        fix=" (one row per slice and day: pass by= every slice column of the table)",
    )
    dialect = backend.dialect
    columns = {
        "day": quote_ident(day, dialect),
        "value": quote_ident(value, dialect),
        "lo": quote_ident(lo, dialect) if lo else None,
        "hi": quote_ident(hi, dialect) if hi else None,
        "n_rows": quote_ident(n_rows, dialect) if n_rows else None,
    }
    sql = render_macro(
        "metric_anomalies",
        source.sql,
        [quote_ident(c, dialect) for c in by_cols],
        columns,
        options,
        dialect=dialect,
    )
    frame = backend.query(sql)
    frame.columns = [*by_cols, day, *frame.columns[len(by_cols) + 1 :]]
    # the same dtypes on every engine: an all-NULL float column (lo, hi in the plain mode) is
    # float64, a date or timestamp day is datetime64[us] (DuckDB's; ClickHouse gives ns)
    for column in FLOATS:
        frame[column] = frame[column].astype("float64")
    if str(frame[day].dtype).startswith("datetime64"):
        frame[day] = frame[day].astype("datetime64[us]")
    frame["anomaly"] = frame["anomaly"].astype(bool)
    return frame


API = (
    entry_point(
        "metric_anomalies",
        takes=(
            *("data", "metric", "day", "by", "value", "lo", "hi", "n_rows", "intervals"),
            *OPTIONS,
            *("ci_level", "con"),
        ),
        call=run_metric_anomalies,
        positional=2,
        summary="""
    The days a slice's metric moved beyond its recent history and its own sampling error.

    Reads a daily table, one row per (slice, day) with the metric's value and its interval, as
    ``evaluate(rows, [metric], by=[day, *by], ci=0.95)`` returns it (or the same table in an
    engine, or its file). For each row, a baseline from the slice's previous ``window`` days
    gives a band; the day is flagged when its value leaves the band in the bad direction. The
    band's width adds the day-to-day spread beyond sampling error and the day's own sampling
    error (from its interval), so a small slice's noisy day does not raise an alarm and a large
    slice's real drop is not hidden. One statement on the engine that holds the table.
    """,
        returns="""
    pandas.DataFrame
        One row per input row, ordered by the slices and day: the slices, ``day``,
        ``value``, ``lo``, ``hi``, ``n_rows``, ``se`` (the day's standard error),
        ``n_baseline``, ``baseline`` (the baseline mean), ``spread`` (the baseline days'
        standard deviation), ``tau`` (their spread beyond sampling error), ``band_lo``,
        ``band_hi``, ``z``, ``deviation`` (``"drop"``, ``"rise"`` or None), ``anomaly``
        (bool) and ``status`` (``"scored"``, ``"pending"``, ``"undefined"``,
        ``"few_rows"`` or ``"no_history"``).
    """,
        raises="""
    InvalidParameterError
        An option out of its range, or a column that is not in the table.
    InvalidDataError
        A (slice, day) twice, a NULL day, a day column that is not a date, a value or
        interval column that is not numeric, an interval with ``hi < lo``.
    """,
        notes="""
    With ``se = (hi - lo) / (2 z)`` and, over the baseline days ``B`` (``n_b`` of them),
    ``m`` their mean, ``s2`` their variance, ``q`` their mean ``se^2``::

        tau2 = max(0, s2 - q)
        sd   = sqrt(tau2 + se^2 + (tau2 + q) / n_b)
        band = m -+ threshold * sd,   z = (value - m) / sd

    The full definition, with the statuses, is the header of
    sql/_macros/inference/anomalies.sql.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> days = pd.date_range("2026-01-01", periods=30)
    >>> daily = pd.DataFrame({"day": days, "auc": [0.75 + 0.001 * (i % 3) for i in range(29)]
    ...                       + [0.70], "auc_lo": 0.0, "auc_hi": 0.0})
    >>> daily["auc_lo"], daily["auc_hi"] = daily["auc"] - 0.004, daily["auc"] + 0.004
    >>> flagged = sqlmetrics.metric_anomalies(daily, "auc")
    >>> flagged.loc[flagged["anomaly"], ["day", "value", "deviation"]]
              day  value deviation
    29 2026-01-30    0.7      drop
    """,
        own=args(
            """
    data : str, path, pandas.DataFrame, pyarrow.Table, duckdb.DuckDBPyRelation or ibis.Table
        The daily table, one row per (slice, day): a table or view name in ``con``, a
        Parquet/CSV path, a DataFrame, an Arrow table or a DuckDB relation. Or a table of daily
        states (``state``'s, e.g. an incremental model appending each day's, with the day and
        the slices among their columns): read as the rows they stand for, evaluated by day and
        slice with intervals at ``ci_level`` on the engine that holds them (the same bits as
        ``evaluate`` over the rows).
    metric : str
        The metric's column (``"auc"``, ``"ndcg@10"``, ``"log_loss"``): the value column's
        default, the interval columns' prefix, and which way is bad (``direction``).
    day : str, default "day"
        The day column (a DATE or TIMESTAMP; its date is the day).
    by : str or list of str, optional
        The slice columns: each slice has its own baseline (NULL is a slice of its own).
    value : str, optional
        The value column; default ``metric``.
    lo, hi : str, optional
        The interval's columns; default ``<metric>_lo`` and ``<metric>_hi`` when the table
        has them. Without them the day's sampling error is taken as 0 (the plain z-score of
        the daily values, as anomaly tests without intervals have it).
    n_rows : str, optional
        The column of each day's row count; default ``"n_rows"`` when present. Needed for
        ``min_rows``.
    intervals : bool, default True
        False: leave the intervals out (every day's sampling error taken as 0): the plain
        z-score of the daily values, what anomaly tests without intervals compute.
    window : int, default 28
        The baseline: the slice's eligible days among the ``window`` calendar days before.
    seasonality : {"weekday"}, optional
        ``"weekday"``: the baseline holds the same weekday only (use a window of 8 weeks or
        more, e.g. ``window=56``).
    delay : int, default 0
        The most recent ``delay`` days of the table wait for their labels (late clicks,
        conversions): status ``"pending"``, not scored and left out of every baseline.
    min_rows : int, default 0
        Days with fewer rows (``n_rows``) are neither scored nor in a baseline.
    min_history : int, default 7
        The fewest baseline days a day is scored with (at least 2).
    threshold : float, default 3.5
        The band's half width in standard deviations.
    direction : {"drop", "rise", "both"}, optional
        The deviation flagged as an anomaly. None (default): ``"drop"`` for a metric where
        higher is better (AUC, NDCG), ``"rise"`` for a loss (log loss, Brier score),
        ``"both"`` for a name sqlmetrics does not know.
    ci_level : float, default 0.95
        The level of the intervals in the table (their half width is z standard errors).
    """,
            data=("Any", REQUIRED),
            metric=("str", REQUIRED),
            day=("str", "day"),
            by=("str | Sequence[str] | None", None),
            value=("str | None", None),
            lo=("str | None", None),
            hi=("str | None", None),
            n_rows=("str | None", None),
            intervals=("bool", True),
            window=("int", 28),
            seasonality=("str | None", None),
            delay=("int", 0),
            min_rows=("int", 0),
            min_history=("int", 7),
            threshold=("float", 3.5),
            direction=("str | None", None),
            ci_level=("float", 0.95),
        ),
    ),
)
