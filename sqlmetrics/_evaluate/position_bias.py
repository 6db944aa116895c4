"""Position bias in click logs: ``position_propensities`` and ``click_metrics`` (issue 43).

The statements are the macros of sql/_macros/counterfactual/position_bias.sql, whose header
states the definitions: the RandTop-n propensity estimator from a log with randomised top-n
orders, and the inverse-propensity-weighted click metrics of a new ranker. Python checks the
arguments and the data, renders, runs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._backends import on_source
from .._backends.source import Source
from .._core.params import REQUIRED, args, entry_point
from .._engine.run import normalize_by
from .._engine.validate import check_columns, is_numeric
from .._engine.where import check_where, filtered
from .._inference.stats import two_sided_normal
from .._templating.quoting import quote_ident
from .._templating.templates import render_macro
from ..errors import InvalidDataError, InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import ClickMetricsCall, PositionPropensitiesCall

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_position_bias.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["run_click_metrics", "run_position_propensities"]

PROPENSITIES = "position_propensities"
CLICKS = "click_metrics"
#: the macros of sql/_macros/counterfactual/position_bias.sql (the dbt macros take the
#: functions' names: dbt/macros/api/position_bias.sql)
PROPENSITIES_SQL = "rand_top_n_propensities"
CLICKS_SQL = "ips_click_metrics"
METRICS = ("ctr", "dcg", "recall")


def _column_arg(caller: str, arg: str, value: Any) -> str:
    if not (isinstance(value, str) and value):
        raise InvalidParameterError(
            f"{caller}: {arg}={value!r} must be a column name (a non-empty string)"
        )
    return value


def _positive_int(caller: str, arg: str, value: Any, example: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidParameterError(
            f"{caller}: {arg}={value!r} must be an integer >= 1 or None (e.g. {arg}={example})"
        )
    return int(value)


def _run(
    caller: str,
    data: Any,
    con: Any,
    where: str | None,
    body: Callable[[Source], pd.DataFrame],
) -> pd.DataFrame:
    """``body(source)`` on the engine that holds ``data``, its errors wrapped as the library's."""
    return on_source(caller, filtered(data, check_where(caller, where)), con, body)


def _check_log(
    caller: str,
    source: Source,
    named: list[tuple[str, str]],
    extra: Sequence[tuple[str, str, str]] = (),
) -> None:
    """The log's columns present and typed, no NULL in them, positions integers >= 1, clicks
    0 or 1; ``extra``: (count expression, what it counts, the fix) that must count 0.
    """
    check_columns(caller, source, named)
    present = source.columns
    for arg, col in named:
        if arg not in ("by", "intervention", "group") and not is_numeric(present[col]):
            raise InvalidDataError(
                f"{caller}: {arg} column {col!r} has type {present[col]}; {arg}= must name a "
                f"numeric column (cast it first, e.g. cast({col} as integer))"
            )
    q = {arg: source.backend.ident(col) for arg, col in named if arg != "by"}
    checks = [
        (f"{q[a]} is null", f"NULL in the {a} column {c!r}", f"filter `{c} is not null`")
        for a, c in named
        if a not in ("by", "intervention")
    ]
    pos, click = q["position"], q["click"]
    checks += [
        (
            f"{pos} < 1 or {pos} <> floor({pos})",
            f"a position that is not an integer >= 1 ({named[0][1]!r})",
            "positions count from 1 at the top",
        ),
        (
            f"{click} <> 0 and {click} <> 1",
            f"a click that is neither 0 nor 1 ({dict(named)['click']!r})",
            "one row per impression, click 1 when it was clicked",
        ),
        *extra,
    ]
    counts = ", ".join(f"sum(case when {cond} then 1 else 0 end)" for cond, _, _ in checks)
    row = source.backend.rows(f"select count(*), {counts} from {source.sql}")[0]
    if not row[0]:
        raise InvalidDataError(f"{caller}: data={source.label} has no rows")
    for (_, what, fix), bad in zip(checks, row[1:], strict=True):
        if bad:
            raise InvalidDataError(
                f"{caller}: {int(bad)} of {int(row[0])} rows of data={source.label} have "
                f"{what}; {fix}"
            )


def _typed(frame: pd.DataFrame, ints: Sequence[str], floats: Sequence[str]) -> pd.DataFrame:
    """The same dtypes on every engine (ClickHouse's counts are unsigned, an all-NULL float
    column is object elsewhere).
    """
    for column in ints:
        frame[column] = frame[column].astype("int64")
    for column in floats:
        frame[column] = frame[column].astype("float64")
    return frame


def run_position_propensities(a: PositionPropensitiesCall) -> pd.DataFrame:
    """The body of :func:`position_propensities`, its arguments in ``a``."""
    name = PROPENSITIES
    _column_arg(name, "position", a.position)
    _column_arg(name, "click", a.click)
    if a.intervention is not None:
        _column_arg(name, "intervention", a.intervention)
    by_cols = normalize_by(name, a.by)
    n_max = _positive_int(name, "max_position", a.max_position, 10)
    level_ok = isinstance(a.ci_level, numbers.Real) and not isinstance(a.ci_level, bool)
    if not level_ok or not 0 < float(a.ci_level) < 1:
        raise InvalidParameterError(
            f"{name}: ci_level={a.ci_level!r} must be strictly between 0 and 1 (e.g. 0.95)"
        )
    for arg, col in (
        ("position", a.position),
        ("click", a.click),
        ("intervention", a.intervention),
    ):
        if col in by_cols:
            raise InvalidParameterError(
                f"{name}: by={a.by!r} holds the {arg} column {col!r}; leave it out of by="
            )
    z = two_sided_normal(float(a.ci_level))

    def body(source: Source) -> pd.DataFrame:
        named = [("position", a.position), ("click", a.click)] + [("by", c) for c in by_cols]
        if a.intervention is not None:
            named.append(("intervention", a.intervention))
        _check_log(name, source, named)
        is_bool = False
        if a.intervention is not None:
            kind = source.backend.family(source.columns[a.intervention])
            if kind not in ("boolean", "number"):
                raise InvalidDataError(
                    f"{name}: intervention column {a.intervention!r} has type "
                    f"{source.columns[a.intervention]}; intervention= must name a boolean or 0/1 "
                    f"column marking the randomised impressions"
                )
            is_bool = kind == "boolean"
        dialect = source.backend.dialect
        columns = {
            "position": quote_ident(a.position, dialect),
            "click": quote_ident(a.click, dialect),
            "intervention": quote_ident(a.intervention, dialect) if a.intervention else None,
        }
        options = {"max_position": n_max, "z": z, "intervention_bool": is_bool}
        by_q = [quote_ident(c, dialect) for c in by_cols]
        sql = render_macro(PROPENSITIES_SQL, source.sql, by_q, columns, options, dialect=dialect)
        frame = source.backend.query(sql)
        frame.columns = [*by_cols, *frame.columns[len(by_cols) :]]
        ints = ("position", "clicks", "impressions")
        return _typed(frame, ints, ("propensity", "lo", "hi", "ctr"))

    return _run(name, a.data, a.con, a.where, body)


def _propensity_map(value: Any) -> dict[int, float] | None:
    """``propensity=`` as a map position -> p (None for a column name)."""
    if isinstance(value, str):
        if not value:
            raise InvalidParameterError(
                f"{CLICKS}: propensity='' must be a column name, a mapping position -> "
                f"propensity or position_propensities' DataFrame"
            )
        return None
    columns = getattr(value, "columns", None)
    if columns is not None:
        if not {"position", "propensity"} <= set(columns):
            raise InvalidParameterError(
                f"{CLICKS}: propensity= is a table without the columns 'position' and "
                f"'propensity' (columns: {', '.join(map(str, columns))}); pass "
                f"position_propensities' DataFrame, a mapping or a column name"
            )
        positions = value["position"].tolist()
        if len(set(positions)) != len(positions):
            raise InvalidParameterError(
                f"{CLICKS}: propensity= repeats a position (a table of several slices); pass "
                f"the rows of one slice, e.g. table[table['country'] == 'de']"
            )
        kept = value[value["propensity"].notna() & (value["propensity"] > 0)]
        value = dict(zip(kept["position"].tolist(), kept["propensity"].tolist(), strict=True))
    if not isinstance(value, Mapping) or not value:
        raise InvalidParameterError(
            f"{CLICKS}: propensity={value!r} must be a column name, a non-empty mapping "
            f"position -> propensity (e.g. {{1: 1.0, 2: 0.6}}) or position_propensities' "
            f"DataFrame"
        )
    out: dict[int, float] = {}
    for pos, p in value.items():
        int_ok = isinstance(pos, numbers.Integral) and not isinstance(pos, bool) and int(pos) >= 1
        real_ok = isinstance(p, numbers.Real) and not isinstance(p, bool)
        if not int_ok or not real_ok or not 0 < float(p) < math.inf:
            raise InvalidParameterError(
                f"{CLICKS}: propensity= maps {pos!r} to {p!r}; each position must be an "
                f"integer >= 1 and its propensity a finite number > 0"
            )
        out[int(pos)] = float(p)
    return dict(sorted(out.items()))


def run_click_metrics(a: ClickMetricsCall) -> pd.DataFrame:
    """The body of :func:`click_metrics`, its arguments in ``a``."""
    name = CLICKS
    for arg, col in (
        ("group", a.group),
        ("position", a.position),
        ("click", a.click),
        ("score", a.score),
    ):
        _column_arg(name, arg, col)
    by_cols = normalize_by(name, a.by)
    cut = _positive_int(name, "k", a.k, 10)
    if isinstance(a.metrics, str):
        names = [a.metrics]
    else:  # None, a number: the message below (was a TypeError from list(None))
        names = list(a.metrics) if isinstance(a.metrics, Iterable) else []
    unknown = [m for m in names if not isinstance(m, str) or m not in METRICS]
    if not names or unknown or len(set(names)) != len(names):
        raise InvalidParameterError(
            f"{name}: metrics={a.metrics!r} must be distinct names among 'ctr', 'dcg', 'recall' "
            f"(e.g. metrics=['ctr', 'dcg'])"
        )
    mapping = _propensity_map(a.propensity)
    if a.group in by_cols:
        raise InvalidParameterError(
            f"{name}: by={a.by!r} holds the group column {a.group!r}; each group is averaged "
            f"within its slice: leave {a.group!r} out of by="
        )

    def body(source: Source) -> pd.DataFrame:
        named = [
            ("position", a.position),
            ("click", a.click),
            ("group", a.group),
            ("score", a.score),
        ]
        if mapping is None:
            named.append(("propensity", a.propensity))
        named += [("by", c) for c in by_cols]
        check_columns(name, source, named)
        if mapping is None and not is_numeric(source.columns[a.propensity]):
            raise InvalidDataError(
                f"{name}: propensity column {a.propensity!r} has type "
                f"{source.columns[a.propensity]}; propensity= must name a numeric column"
            )
        q = {a: source.backend.ident(c) for a, c in named if a != "by"}
        if mapping is None:
            p = q["propensity"]
            missing = f"{q['click']} = 1 and ({p} is null or not ({p} > 0))"
            fix = f"the column {a.propensity!r} must hold a propensity > 0 on every clicked row"
        else:
            listed = ", ".join(str(pos) for pos in mapping)
            missing = f"{q['click']} = 1 and {q['position']} not in ({listed})"
            fix = f"propensity= gives positions {listed} only: give every clicked position's"
        checks = [(missing, "a click at a position without a propensity", fix)]
        _check_log(name, source, [n for n in named if n[0] != "propensity"], checks)
        dialect = source.backend.dialect
        columns: dict[str, str | None] = {a: quote_ident(c, dialect) for a, c in named if a != "by"}
        columns.setdefault("propensity", None)
        chosen = [m for m in METRICS if m in names]
        options = {
            "k": cut,
            "metrics": chosen,
            "propensities": [[pos, p] for pos, p in (mapping or {}).items()],
        }
        by_q = [quote_ident(c, dialect) for c in by_cols]
        sql = render_macro(CLICKS_SQL, source.sql, by_q, columns, options, dialect=dialect)
        frame = source.backend.query(sql)
        frame.columns = [*by_cols, *frame.columns[len(by_cols) :]]
        counts = ("n_groups", "n_clicked_groups", "n_rows", "n_clicks")
        suffix = "" if cut is None else f"@{cut}"
        frame = frame.rename(columns={f"mean_{m}": f"{m}{suffix}" for m in chosen})
        frame = _typed(frame, counts, [f"{m}{suffix}" for m in chosen])
        return frame[[*by_cols, *(f"{m}{suffix}" for m in names), *counts]]

    return _run(name, a.data, a.con, a.where, body)


API = (
    entry_point(
        "position_propensities",
        takes=(
            "data",
            "position",
            "click",
            "intervention",
            "by",
            "where",
            "max_position",
            "ci_level",
            "con",
        ),
        call=run_position_propensities,
        summary="""
    The examination propensity of each position, relative to the top, from a log whose top
    positions were shown in a random order (the RandTop-n estimator).

    Under the examination hypothesis an item shown at position ``k`` is clicked with
    probability ``p_k * P(relevant)``. In impressions whose top ``n`` items were put in a
    uniformly random order, every position ``k <= n`` shows items of the same expected
    relevance, so the ratio of the click-through rates at ``k`` and at 1 estimates
    ``p_k / p_1``. One statement on the engine that holds the log.
    """,
        returns="""
    pandas.DataFrame
        One row per slice and position with a randomised impression, ordered by the slices
        (NULL last) and position: the slices, ``position``, ``propensity`` (``p_k / p_1``;
        NaN for every position of a slice without a click at position 1), ``lo``, ``hi``
        (the log interval of a ratio of two proportions; NaN where position ``k`` has no
        click), ``clicks``, ``impressions`` and ``ctr``.
    """,
        raises="""
    InvalidParameterError
        An option out of its range, or a column that is not in the table.
    InvalidDataError
        A NULL position or click, a position that is not an integer >= 1, a click that is
        neither 0 nor 1, an intervention column that is neither boolean nor numeric.
    """,
        notes="""
    With ``c_k`` the clicks and ``n_k`` the impressions at position ``k`` over the randomised
    rows (``k <= max_position``)::

        propensity_k = (c_k / n_k) / (c_1 / n_1)
        lo, hi       = propensity_k exp(-+ z sqrt(1/c_k - 1/n_k + 1/c_1 - 1/n_1))

    Assumptions: the examination hypothesis (a click is examination and relevance,
    independent of each other); the propensity depends on the position alone; the order of
    the top ``n`` is uniformly random in the randomised impressions, each of which shows at
    least ``n`` items. The full definition is the header of
    sql/_macros/counterfactual/position_bias.sql.
    """,
        references="""
    .. [1] Wang, X., Bendersky, M., Metzler, D. and Najork, M. (2016). Learning to Rank with
       Selection Bias in Personal Search. SIGIR.
    .. [2] Joachims, T., Swaminathan, A. and Schnabel, T. (2017). Unbiased Learning-to-Rank
       with Biased Feedback. WSDM.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> log = pd.DataFrame({"pos": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
    ...                     "clicked": [1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]})
    >>> sqlmetrics.position_propensities(log, position="pos", click="clicked")[
    ...     ["position", "propensity", "clicks", "impressions"]]
       position  propensity  clicks  impressions
    0         1         1.0       2            4
    1         2         0.5       1            4
    2         3         0.5       1            4
    """,
        own=args(
            """
    position : str
        The column of the position the item was shown at (an integer, 1 at the top).
    click : str
        The column of the click: 1 when the item was clicked, else 0.
    intervention : str, optional
        A boolean or 0/1 column marking the rows of the randomised impressions (true or 1);
        only those are read. None (default): every row is of a randomised impression.
    by : str or list of str, optional
        The slice columns: each slice has its own propensities (NULL is a slice of its own).
    where : str, optional
        Keep only the rows of ``data`` where this SQL boolean expression over its columns holds.
    max_position : int, optional
        ``n``, the number of top positions that were shuffled: rows below it are left out.
        None (default): every position of the randomised rows was shuffled.
    ci_level : float, default 0.95
        The level of the intervals ``lo``, ``hi``.
    """,
            position=("str", REQUIRED),
            click=("str", REQUIRED),
            intervention=("str | None", None),
            by=("str | Sequence[str] | None", None),
            where=("str | None", None),
            max_position=("int | None", None),
            ci_level=("float", 0.95),
        ),
    ),
    entry_point(
        "click_metrics",
        takes=(
            "data",
            "group",
            "position",
            "click",
            "score",
            "propensity",
            "k",
            "metrics",
            "by",
            "where",
            "con",
        ),
        call=run_click_metrics,
        summary="""
    Click metrics of a new ranking from a logged one, corrected for position bias by
    inverse propensity weighting.

    Each group's logged items (with the position they were shown at and their click) are
    reordered by a new ranker's ``score``; every click counts ``1 / p`` of its logged
    position, so that under the examination hypothesis a click weighs as much as the
    relevance it reveals wherever it was shown. One statement on the engine that holds the log.
    """,
        returns="""
    pandas.DataFrame
        One row per slice (one row without ``by``), ordered by the slices (NULL last): the
        slices, the metrics, ``n_groups``, ``n_clicked_groups`` (the groups with a click,
        over which recall is averaged), ``n_rows`` and ``n_clicks``.
    """,
        raises="""
    InvalidParameterError
        An option out of its range, a metric not known, a propensity table or mapping that is
        not one, or a column that is not in the table.
    InvalidDataError
        A NULL in a column read, a position that is not an integer >= 1, a click neither 0
        nor 1, a clicked row whose position has no propensity > 0.
    """,
        notes="""
    Per group, with ``r`` the new rank and ``w = click / p(logged position)``::

        ctr@k    = sum_{r <= k} w / k
        dcg@k    = sum_{r <= k} w / log2(1 + r)
        recall@k = sum_{r <= k} w / sum w      (groups with a click only)

    averaged over the groups. Tied scores: the expected value over every order of the tied
    items (ties="average"). The full definition is the header of
    sql/_macros/counterfactual/position_bias.sql.
    """,
        references="""
    .. [1] Joachims, T., Swaminathan, A. and Schnabel, T. (2017). Unbiased Learning-to-Rank
       with Biased Feedback. WSDM.
    .. [2] Agarwal, A., Wang, X., Li, C., Bendersky, M. and Najork, M. (2019). Estimating
       Position Bias without Intrusive Interventions. WSDM.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> log = pd.DataFrame({"q": [1, 1, 1, 2, 2, 2], "pos": [1, 2, 3, 1, 2, 3],
    ...                     "clicked": [0, 0, 1, 1, 0, 0], "new": [0.1, 0.2, 0.9, 0.8, 0.5, 0.3]})
    >>> sqlmetrics.click_metrics(log, group="q", position="pos", click="clicked", score="new",
    ...                          propensity={1: 1.0, 2: 0.5, 3: 0.25}, k=1)
       ctr@1  dcg@1  recall@1  n_groups  n_clicked_groups  n_rows  n_clicks
    0    2.5    2.5       1.0         2                 2       6         2
    """,
        own=args(
            """
    group : str
        The group column (query, session, user).
    position : str
        The logged position (an integer, 1 at the top).
    click : str
        The click: 1 when the item was clicked, else 0.
    score : str
        The new ranker's score of the item (higher first).
    propensity : str, mapping or pandas.DataFrame
        The examination propensity of the logged position: a column holding it per row, a
        mapping position -> propensity, or the DataFrame :func:`position_propensities`
        returns (its rows of one slice). Only the clicked rows' propensities are read, and
        each must be > 0.
    k : int or None, default 10
        The cut-off of the new ranking: only its top ``k`` ranks count; None for the whole
        list.
    metrics : list of {"ctr", "dcg", "recall"}, default all three
        The metrics, output as ``ctr@k``, ``dcg@k``, ``recall@k`` (without ``@k`` when k is
        None).
    by : str or list of str, optional
        The slice columns (NULL is a slice of its own); a group split between slices is a
        group of each.
    where : str, optional
        Keep only the rows of ``data`` where this SQL boolean expression over its columns holds.
    """,
            group=("str", REQUIRED),
            position=("str", REQUIRED),
            click=("str", REQUIRED),
            score=("str", REQUIRED),
            propensity=("Any", REQUIRED),
            k=("int | None", 10),
            metrics=("Sequence[str]", ("ctr", "dcg", "recall")),
            by=("str | Sequence[str] | None", None),
            where=("str | None", None),
        ),
    ),
)
