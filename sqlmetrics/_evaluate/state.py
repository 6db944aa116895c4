"""Exact mergeable states: ``state`` of each partition, ``merge`` of their union.

A state holds, per partition, each distinct row of the slice columns and of the columns the
requested metrics read, once, with its count (sql/_macros/shared/state.sql, schema version
:data:`STATE_VERSION`). ``merge`` checks the states and runs ``evaluate``'s own statement over
the rows they stand for: every metric whose ``MetricSpec.state`` is ``"rows"`` is a function
of that multiset, computed in the same bits in any row order (decision 0006), so ``merge``
returns ``evaluate``'s frame over the union, bit for bit.

Cost: the kernels that take a count per row (``COUNTED_KERNELS`` in sqlmetrics/_engine/plan.py:
the threshold metrics, AUC, GAUC, log loss, Brier score, normalized entropy, calibration
ratio, average precision, KS statistic, partial AUC, expected calibration error (quantile
bins too: a row holds sorted positions pos .. pos + count - 1), the averaged multiclass
precision, recall, F-beta and Jaccard, balanced accuracy, MCC, Cohen's kappa, Hamming loss;
and n_rows) read the states as they are, each row standing for ``sqlmetrics_n`` rows (exact
integer sums times the count, exact sums of weights with the count: the same integers as
over the copies, so the same bits), so they cost in proportion to the states' rows. The
others (and AUC on Spark) read the rows replayed (``state_rows``), in proportion to the rows
the states stand for; for most of them that is about the states' rows, as a state row holds
a count above 1 only for identical rows of the data:
- the ranking metrics: one row per (group, item), duplicates refused, so every count is 1
  unless ``duplicates='max'`` or ``'sum'`` lets identical repeated impressions through;
- top_k_accuracy, multiclass_auc, multilabel_average_precision: one row per (sample, class),
  the sample's id in it: a count above 1 only for a line repeated in the data;
- auc_bounds, spearman, kendall_tau (ranks, pairs) and the beyond-accuracy metrics
  (catalog_coverage, distributional_coverage, gini_index, novelty: the recommended items)
  are not written for counts yet: a state of repeated (label, score) pairs or of popular
  items costs the rows it stands for.

Counts: a state row's ``sqlmetrics_n`` is how many rows of the data hold its values, a
positive integer. ``merge`` refuses a count of 0, a negative, fractional or NULL one, naming
the row (it does not subtract states, e.g. for a sliding window: merge the states of the
days in the window instead). The arguments (``sqlmetrics_args``) are the same on every row
of a state: ``state`` returns them as a categorical column, the text held once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._core.params import ENTRY, RENDERED, REQUIRED, args, entry_point, entry_takes
from .._core.registry import Role, default_of, get_spec
from .._engine.plan import Plan, check_train, make_plan, open_plan, role_columns
from .._engine.render import relation_of
from .._engine.where import check_where, filtered
from .._templating.literals import sql_double
from .._templating.quoting import quote_ident
from .._templating.templates import check_dialect, macro
from ..errors import InvalidDataError, InvalidParameterError
from .evaluate import _evaluate

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import MergeCall, RenderStateCall, StateCall

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_state.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["STATE_VERSION", "run_merge", "run_render_state", "run_state"]

#: the schema version a state records (``sqlmetrics_state``) and ``merge`` reads
STATE_VERSION = 1
#: the state's own columns besides the data's: version, arguments, count
VERSION, ARGS, COUNT = "sqlmetrics_state", "sqlmetrics_args", "sqlmetrics_n"
#: the CTE of the rows the states stand for, which merge's statement reads
REPLAYED = "sqlmetrics_replayed"


def _refuse(
    caller: str,
    scores: Any,
    indicators: Any,
    ci: Any,
    ci_method: Any,
) -> None:
    """The arguments of ``evaluate`` a state cannot carry, each refused with the way out."""
    if scores is not None or indicators is not None:
        arg, value = ("scores", scores) if scores is not None else ("indicators", indicators)
        raise InvalidParameterError(
            f"{caller}: {arg}={value!r} (wide class scores) has no mergeable state; evaluate "
            f"the wide form on the whole data, or pass the long form (group=, item=, score=, "
            f"label=: a row per (sample, class))"
        )
    if ci is not None or ci_method is not None:
        arg, value = ("ci", ci) if ci is not None else ("ci_method", ci_method)
        raise InvalidParameterError(
            f"{caller}: {arg}={value!r}: intervals are not merged from states (their bootstrap "
            f"resamples the rows of the whole data); leave {arg}= out here and run evaluate("
            f"..., ci=) on the whole data for intervals"
        )


def _plan(
    caller: str,
    metrics: Any,
    columns: dict[str, str | None],
    by: str | Sequence[str] | None,
    has_qrels: bool,
    has_train: bool,
    options: dict[str, Any],
) -> tuple[Plan, list[str]]:
    """The checked plan, and the state's data columns: the slices, then the metrics' columns."""
    plan = make_plan(caller, metrics, columns, by, has_qrels, options)
    check_train(plan, has_train, caller)
    for req in plan.requests:
        if req.spec.state is None:
            raise InvalidParameterError(
                f"{caller}: {req.text!r} has no mergeable state (its value is not a function "
                f"of the counts of its rows); evaluate it on the whole data, or leave it out "
                f"of metrics="
            )
    keys: list[str] = []
    for name in [*plan.by, *(col for _, col in plan.used)]:
        if name not in keys:
            keys.append(name)
    for name in keys:
        if name in (VERSION, ARGS, COUNT):
            raise InvalidParameterError(
                f"{caller}: column {name!r} has the name of a state column ({VERSION}, {ARGS}, "
                f"{COUNT}); rename it in the data (e.g. select {name} as {name}_)"
            )
    return plan, keys


def _args_json(
    metrics: Any,
    columns: Mapping[str, str | None],
    by: str | Sequence[str] | None,
    has_qrels: bool,
    has_train: bool,
    options: Mapping[str, Any],
    decimals: int | None = None,
) -> str:
    """What the state records of its arguments (``sqlmetrics_args``): JSON, keys sorted;
    ``round`` and ``group_weight`` only when given (a state without them is exact, and
    unweighted: the states made before they existed still merge).
    """
    texts = [metrics] if isinstance(metrics, str) else list(metrics)
    by_cols = [by] if isinstance(by, str) else list(by or [])
    record: dict[str, Any] = {
        "metrics": texts,
        "by": by_cols,
        **{role: col for role, col in columns.items() if role != "group_weight" or col},
        "qrels": has_qrels,
        "train": has_train,
        "options": dict(options),
    }
    if decimals is not None:
        record["round"] = decimals
    return json.dumps(record, sort_keys=True, default=repr)


def _confusion_score(plan: Plan) -> tuple[str, float, float] | None:
    """(score column, threshold, the largest double below it) when every requested metric
    that reads the score reads it only as ``score >= threshold`` (``MetricSpec.state`` is
    ``"confusion"``): the state keeps the threshold for a score at or above it and the
    double below it for the others, the same predictions at merge. Else None.
    """
    score = plan.columns["score"]
    readers = [r for r in plan.requests if any(u[0].name == "score" for u in _used(plan, r))]
    if not readers or any(r.spec.state != "confusion" for r in readers) or score in plan.by:
        return None
    if any(col == score and role.name != "score" for role, col in plan.used):
        # the column plays another role too (weight=score): it is stored once, as it is, and
        # read by both roles; its two-value form would replace the other role's values
        return None
    first = readers[0]
    threshold = float(plan.options.get("threshold", default_of(first.spec, "threshold")))
    below = math.nextafter(threshold, -math.inf)
    if not math.isfinite(below):
        return None
    return str(score), threshold, below


def _used(plan: Plan, req: Any) -> list[tuple[Role, str]]:
    """The (role, column) pairs of ``plan.used`` that request ``req`` reads."""
    return [(role, col) for role, col in plan.used if role in req.spec.roles]


#: the largest round= (decimals): a double holds about 15 significant decimal digits
ROUND_MAX = 15
#: the metrics a rounded state bounds: merge adds ``<metric>_lower``, ``<metric>_upper``
BOUNDED = ("auc", "gauc")


def _check_round(caller: str, decimals: Any, plan: Plan) -> int | None:
    """``round=`` checked against the plan: None, or decimals 0..ROUND_MAX when every
    requested metric that reads the score is in :data:`BOUNDED` (certified bounds),
    unweighted.
    """
    if decimals is None:
        return None
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise InvalidParameterError(
            f"{caller}: round={decimals!r} is not a number of decimals; pass an integer "
            f"from 0 to {ROUND_MAX} (e.g. round=3 keeps scores to 3 decimals), or leave "
            f"round= out for the exact state"
        )
    if not 0 <= decimals <= ROUND_MAX:
        raise InvalidParameterError(
            f"{caller}: round={decimals} is outside 0..{ROUND_MAX} decimals; pass an integer "
            f"from 0 to {ROUND_MAX} (e.g. round=3), or leave round= out for the exact state"
        )
    score = plan.columns["score"]
    for req in plan.requests:
        if req.spec.name in BOUNDED or not any(u[0].name == "score" for u in _used(plan, req)):
            continue
        why = (
            "a threshold metric: rounding moves scores across its threshold, and its exact "
            "state keeps only two score values anyway"
            if req.spec.state == "confusion"
            else "its value changes with the rounded scores, and no bound on its exact "
            "value is certified (only AUC's and GAUC's are)"
        )
        raise InvalidParameterError(
            f"{caller}: round={decimals} with {req.text!r} ({why}); leave round= out, or "
            f"make {req.text!r} a state of its own without round="
        )
    if plan.columns.get("weight") is not None:
        raise InvalidParameterError(
            f"{caller}: round={decimals} with weight={plan.columns['weight']!r}: the certified "
            f"AUC bounds of a rounded state count rows, not weights; leave round= or weight= "
            f"out"
        )
    if score in plan.by:
        raise InvalidParameterError(
            f"{caller}: round={decimals} with the score column {score!r} in by=: a slice "
            f"is not rounded; leave round= out, or slice by another column"
        )
    return int(decimals)


#: the bound on |score| * 10**round: past it the scaled score is beyond a 64-bit integer
#: (Spark's floor returns one) and soon infinite (a double's range)
SCALE_MAX = 2.0**63


def _check_scale(backend: Any, relation: str, score: str, decimals: int) -> None:
    """Refuse ``round=decimals`` when a score times ``10**decimals`` reaches
    :data:`SCALE_MAX` (``state_round`` would give an infinite or clamped score, a state
    merge refuses), naming the largest ``round=`` the scores allow.
    """
    s = quote_ident(score, backend.dialect)
    double = macro("float_type", backend.dialect)()
    ((largest,),) = backend.rows(f"select max(abs(cast({s} as {double}))) from {relation}")
    if largest is None or float(largest) * 10.0**decimals < SCALE_MAX:
        return
    largest = float(largest)
    fits = math.floor(math.log10(SCALE_MAX / largest)) if largest > 0 else ROUND_MAX
    while fits >= 0 and largest * 10.0**fits >= SCALE_MAX:  # log10's own rounding
        fits -= 1
    fix = (
        f"pass round={fits} or fewer decimals, or leave round= out"
        if fits >= 0
        else "leave round= out (the scores are too large to keep any decimal), or rescale them"
    )
    raise InvalidParameterError(
        f"state: round={decimals} with score column {score!r} (score=) holding values up to "
        f"{largest!r} in absolute value: times 10**{decimals} they reach 2**63 (beyond a 64-bit "
        f"integer, then infinite), so the rounded state would hold scores merge refuses; {fix}"
    )


def _rounded(plan: Plan, keys: Sequence[str], decimals: int | None) -> tuple[str, int] | None:
    """(score column, decimals) when the state keeps the score rounded, else None."""
    score = plan.columns["score"]
    if decimals is None or score not in keys:
        return None
    return str(score), decimals


def _compose(
    relation: str,
    keys: Sequence[str],
    args: str,
    dialect: str,
    confusion: tuple[str, float, float] | None = None,
    rounded: tuple[str, int] | None = None,
) -> str:
    quoted = [quote_ident(k, dialect) for k in keys]
    if rounded is not None:  # the score to `decimals` decimals (state_round)
        score, decimals = rounded
        s = quote_ident(score, dialect)
        expr = str(macro("state_round", dialect)(s, decimals))
        select = ", ".join(f"{expr} as {s}" if k == score else q for k, q in zip(keys, quoted))
        relation = f"(select {select} from {relation}) as sqlmetrics_rounded"
    if confusion is not None:  # the score as score >= threshold: two values
        score, threshold, below = confusion
        s, t, b = (
            quote_ident(score, dialect),
            sql_double(threshold, dialect),
            sql_double(below, dialect),
        )
        select = ", ".join(
            f"case when {s} >= {t} then {t} else {b} end as {s}" if k == score else q
            for k, q in zip(keys, quoted)
        )
        relation = f"(select {select} from {relation}) as sqlmetrics_thresholded"
    return str(macro("state_compose", dialect)(relation, quoted, STATE_VERSION, args))


def run_state(a: StateCall) -> pd.DataFrame:
    """The body of :func:`state`, its arguments in ``a``."""
    _refuse("state", a.scores, a.indicators, a.ci, a.ci_method)
    columns = role_columns(
        a.label, a.score, a.group, a.item, a.weight, a.prediction, a.group_weight
    )
    has_qrels, has_train = a.qrels is not None, a.train is not None
    plan, keys = _plan("state", a.metrics, columns, a.by, has_qrels, has_train, a.options)
    decimals = _check_round("state", a.round, plan)
    args = _args_json(a.metrics, columns, a.by, has_qrels, has_train, a.options, decimals)
    confusion = _confusion_score(plan)
    rounded = _rounded(plan, keys, decimals)
    data = filtered(a.data, check_where("state", a.where))
    with open_plan("state", plan, data, a.con) as (backend, source, _):
        if rounded is not None:
            _check_scale(backend, source.sql, *rounded)
        sql = _compose(source.sql, keys, args, backend.dialect, confusion, rounded)
        frame = backend.query(sql)
    # the arguments once per state, not once per row: a categorical column holds its one JSON
    # text once and a 1-byte code per row (the same values, written to tables as text)
    frame[ARGS] = frame[ARGS].astype("category")
    return frame.reset_index(drop=True)


def run_render_state(a: RenderStateCall) -> str:
    """The body of :func:`render_state`, its arguments in ``a``."""
    dialect = check_dialect(a.dialect, "render_state")
    columns = role_columns(
        a.label, a.score, a.group, a.item, a.weight, a.prediction, a.group_weight
    )
    has_qrels, has_train = a.qrels is not None, a.train is not None
    plan, keys = _plan("render_state", a.metrics, columns, a.by, has_qrels, has_train, a.options)
    decimals = _check_round("render_state", a.round, plan)
    args = _args_json(a.metrics, columns, a.by, has_qrels, has_train, a.options, decimals)
    relation = relation_of("render_state", a.data, dialect=dialect)
    rounded = _rounded(plan, keys, decimals)
    return _compose(relation, keys, args, dialect, _confusion_score(plan), rounded)


def _describe(key: str, record: Mapping[str, Any]) -> str:
    if key == "options":
        return ", ".join(f"{k}={v!r}" for k, v in sorted(record[key].items())) or "no options"
    if key in ("qrels", "train"):
        return f"{key}= {'given' if record[key] else 'not given'}"
    return f"{key}={record[key]!r}"


def _check_args(label: str, found: Any, want: str) -> None:
    """A state's recorded arguments are merge's: else name the first that differs."""
    try:
        record = json.loads(str(found))
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise InvalidDataError(
            f"merge: {label} has {ARGS}={found!r}, not the JSON a state records; make "
            f"the states with sqlmetrics.state (or render_state)"
        )
    expected = json.loads(want)
    for either in (record, expected):  # a state without "round" is exact: round=None
        either.setdefault("round", None)
    for key in sorted(set(record) | set(expected)):
        if key not in record or key not in expected:
            raise InvalidDataError(
                f"merge: {label} records the arguments {found!r}, which are not a "
                f"version {STATE_VERSION} state's; recompute it with this sqlmetrics.state"
            )
        if record[key] != expected[key]:
            if key == "options":
                mine, theirs = record[key], expected[key]
                names = sorted(n for n in set(mine) | set(theirs) if mine.get(n) != theirs.get(n))
                made = ", ".join(f"{n}={mine[n]!r}" if n in mine else f"no {n}=" for n in names)
                asked = ", ".join(
                    f"{n}={theirs[n]!r}" if n in theirs else f"no {n}=" for n in names
                )
            else:
                made, asked = _describe(key, record), _describe(key, expected)
            raise InvalidParameterError(
                f"merge: {label} was made with {made}, merge is asked {asked}; pass "
                f"merge the metrics and arguments the states were made with, or recompute "
                f"the states with these"
            )


def _check_state(
    label: str, data: Sequence[str], found: pd.DataFrame, keys: Sequence[str], args: str
) -> None:
    """``found``: the state's distinct (version, args) rows; ``data``: its other columns."""
    for name in (VERSION, ARGS, COUNT):
        if name not in data:
            raise InvalidDataError(
                f"merge: {label} has no column {name!r}, so it is not a sqlmetrics state "
                f"(columns: {list(data)}); make it with sqlmetrics.state"
            )
    for version in found[VERSION].drop_duplicates():
        version = version.item() if hasattr(version, "item") else version  # numpy scalars
        try:
            number = float(version)
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(version, (str, bytes, bool)) or math.isnan(number):
            raise InvalidDataError(
                f"merge: {label} has {VERSION}={version!r}, not a schema version (an integer, "
                f"{STATE_VERSION} for this sqlmetrics); make the states with sqlmetrics.state, "
                f"and keep its {VERSION} column as it is"
            )
        if number != STATE_VERSION:
            raise InvalidDataError(
                f"merge: {label} has {VERSION}={version!r}, a schema this sqlmetrics does "
                f"not read (it reads version {STATE_VERSION}); recompute the state with this "
                f"version's sqlmetrics.state"
            )
    for recorded in found[ARGS].drop_duplicates():
        _check_args(label, recorded, args)
    columns = [c for c in data if c not in (VERSION, ARGS, COUNT)]
    if sorted(columns) != sorted(keys):
        raise InvalidDataError(
            f"merge: {label} has the data columns {columns}, the arguments give "
            f"{list(keys)} (the slices, then the columns the metrics read); merge states made "
            f"with the same by= and columns"
        )


def _check_counts(bad: pd.DataFrame) -> None:
    """Refuse a state row whose count is not a positive integer (``state_bad_counts``'s
    result: the first such row, or none): it stands for no rows of the data, and merge does
    not define a count of 0, a negative count (e.g. a day taken out of a sliding window) or a
    NULL one.
    """
    import pandas as pd

    if not len(bad):
        return
    row = {name: bad[name].iloc[0] for name in bad.columns}  # each column's own type
    row = {name: v.item() if hasattr(v, "item") else v for name, v in row.items()}
    count = row[COUNT]
    shown = "NULL" if pd.isna(count) else repr(count)
    values = ", ".join(f"{name}={row[name]!r}" for name in list(bad.columns)[:-2])
    raise InvalidDataError(
        f"merge: {int(row['n_bad'])} state row(s) have {COUNT} not a positive integer, e.g. "
        f"{COUNT}={shown} in the row ({values}); a state row counts the rows of the data "
        f"holding its values, at least 1 (merge does not subtract a state, or read a count "
        f"of 0, a negative or a NULL one): drop those rows, or recompute the states with "
        f"sqlmetrics.state"
    )


def _replay(
    keys: Sequence[str],
    args: str,
    checked: bool,
    bounds: Callable[[Any, Any], None] | None = None,
) -> Callable[[Any, Any], tuple[str, str, str]]:
    """The ``replay`` of merge for ``_evaluate``: check the states on the engine (unless
    ``checked`` already, one by one), run ``bounds(backend, source)`` (a rounded state's
    AUC bounds), then the CTE of the rows they stand for.
    """

    def replay(backend: Any, source: Any) -> tuple[str, str, str]:
        dialect = backend.dialect
        if not checked:
            meta = [quote_ident(c, dialect) for c in (VERSION, ARGS)]
            found = backend.query(
                f"select distinct {meta[0]} as {VERSION}, {meta[1]} as {ARGS} from {source.sql}"
            )
            _check_state("states", list(source.columns), found, keys, args)
        quoted = [quote_ident(k, dialect) for k in keys]
        _check_counts(backend.query(str(macro("state_bad_counts", dialect)(source.sql, quoted))))
        if bounds is not None:
            bounds(backend, source)
        replayed = str(macro("state_rows", dialect)(source.sql, quoted))
        return REPLAYED, replayed, quote_ident(COUNT, dialect)

    return replay


def run_merge(a: MergeCall) -> pd.DataFrame:
    """The body of :func:`merge`, its arguments in ``a``."""
    import pandas as pd

    _refuse("merge", a.scores, a.indicators, a.ci, a.ci_method)
    where = check_where("merge", a.where)
    columns = role_columns(
        a.label, a.score, a.group, a.item, a.weight, a.prediction, a.group_weight
    )
    has_qrels, has_train = a.qrels is not None, a.train is not None
    plan, keys = _plan("merge", a.metrics, columns, a.by, has_qrels, has_train, a.options)
    decimals = _check_round("merge", a.round, plan)
    args = _args_json(a.metrics, columns, a.by, has_qrels, has_train, a.options, decimals)
    data: Any = a.states
    listed = isinstance(a.states, (list, tuple))
    if listed:
        if not a.states:
            raise InvalidParameterError(
                "merge: states= is empty; pass the state of at least one partition"
            )
        for index, frame in enumerate(a.states):
            if not isinstance(frame, pd.DataFrame):
                raise InvalidParameterError(
                    f"merge: states[{index}] is a {type(frame).__name__}, not a state; pass "
                    f"the DataFrames sqlmetrics.state returns, or one table of their rows"
                )
            found = frame[[c for c in (VERSION, ARGS) if c in frame.columns]]
            _check_state(f"state {index}", list(frame.columns), found.drop_duplicates(), keys,
                         args)  # fmt: skip
        data = pd.concat(a.states, ignore_index=True)
    chosen = a.options.get("empty") is not None or a.options.get("convention") is not None
    computed: dict[str, pd.DataFrame] = {}
    bounded = {r.spec.name for r in plan.requests if r.spec.name in BOUNDED}
    bounds = None
    if decimals is not None and bounded:

        def bounds(backend: Any, source: Any) -> None:
            for name in sorted(bounded):
                sql = _bounds_sql(name, plan, keys, source.sql, backend.dialect)
                computed[name] = backend.query(sql)

    frame = _evaluate(
        plan,
        filtered(data, where),
        a.qrels,
        a.train,
        a.con,
        warn_skips=not chosen,
        warn_ties=a.options.get("convention"),
        replay=_replay(keys, args, checked=listed, bounds=bounds),
        caller="merge",
    )
    return _with_bounds(frame, plan, computed) if computed else frame


def _bounds_sql(name: str, plan: Plan, keys: Sequence[str], relation: str, dialect: str) -> str:
    """The statement of a rounded state's bounds on metric ``name`` per slice
    (state_auc_bounds, state_gauc_bounds).
    """
    columns = {role: quote_ident(str(col), dialect) for role, col in plan.columns.items() if col}
    args = [
        relation,
        [quote_ident(k, dialect) for k in keys],
        [quote_ident(b, dialect) for b in plan.by],
    ]
    pos_label = plan.options.get("pos_label")
    if name == "auc":
        return str(
            macro("state_auc_bounds", dialect)(*args, columns["label"], columns["score"], pos_label)
        )
    weighting = plan.options.get("weighting", default_of(get_spec("gauc"), "weighting"))
    return str(
        macro("state_gauc_bounds", dialect)(
            *args, columns["group"], columns["label"], columns["score"], pos_label, weighting
        )
    )


def _with_bounds(
    frame: pd.DataFrame, plan: Plan, computed: Mapping[str, pd.DataFrame]
) -> pd.DataFrame:
    """``frame`` with ``<metric>_lower`` and ``<metric>_upper`` after each bounded metric's
    column, its slice's certified bounds on the exact value (NaN where it is undefined).
    """
    slices = [f"slice_{i}" for i in range(len(plan.by))]
    order: list[str] = []
    merged = frame
    for name in frame.columns:
        order.append(name)
        req = next((r for r in plan.requests if r.text == name), None)
        if req is None or req.spec.name not in computed:
            continue
        bounds = computed[req.spec.name][[*slices, "lower", "upper"]]
        lower, upper = f"{name}_lower", f"{name}_upper"
        bounds = bounds.rename(columns={**dict(zip(slices, plan.by)), "lower": lower,
                                        "upper": upper})  # fmt: skip
        if plan.by:
            merged = merged.merge(bounds, on=list(plan.by), how="left", sort=False)
            for col in plan.by:  # an empty bounds frame (no slice defined) turns keys object
                merged[col] = merged[col].astype(frame[col].dtype)
        else:
            first = bounds.iloc[0] if len(bounds) else {lower: None, upper: None}
            merged = merged.assign(**{lower: first[lower], upper: first[upper]})
        merged[lower] = merged[lower].astype("float64")
        merged[upper] = merged[upper].astype("float64")
        order += [lower, upper]
    return merged[order]


API = (
    entry_point(
        "state",
        takes=entry_takes("dialect"),
        call=run_state,
        positional=2,
        summary="""
    The exact mergeable state of one partition (a day) for :func:`merge`.
    """,
        returns="""
    pandas.DataFrame
        The state, schema version 1: ``sqlmetrics_state`` (the version, 1),
        ``sqlmetrics_args`` (the metrics and arguments, JSON; a categorical column, so the
        text is held once, not once per row), the slice columns and the
        columns the metrics read under their own names, and ``sqlmetrics_n``: one row per
        distinct row of those columns, with how many rows of ``data`` hold it. At most as
        many rows as ``data``; with scores rounded to 3 decimals, at most 2,002 per slice
        (and group) for AUC.
    """,
        raises="""
    InvalidParameterError
        As :func:`evaluate`; a metric without mergeable state (``MetricSpec.state``);
        ``scores=``, ``indicators=``, ``ci=``, ``ci_method=``; a column named like a state
        column; ``round=`` not an integer from 0 to 15, or with a metric other than ``auc``
        and ``gauc`` that reads the score, with ``weight=``, or with the score in ``by=``;
        ``round=`` with a score whose ``|score| * 10**round`` reaches 2**63 (the largest
        ``round=`` the scores allow is named).
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> day = pd.DataFrame({"label": [1, 0, 0, 1], "score": [.9, .3, .3, .9]})
    >>> sqlmetrics.state(day, ["auc", "log_loss"]).drop(columns="sqlmetrics_args")
       sqlmetrics_state  label  score  sqlmetrics_n
    0                 1      0    0.3             2
    1                 1      1    0.9             2

    With ``round=1`` the scores 0.31 and 0.34 share a row:

    >>> day = pd.DataFrame({"label": [1, 0, 0, 1], "score": [.91, .31, .34, .87]})
    >>> sqlmetrics.state(day, "auc", round=1).drop(columns="sqlmetrics_args")
       sqlmetrics_state  label  score  sqlmetrics_n
    0                 1      0    0.3             2
    1                 1      1    0.9             2
    """,
        own=args(
            """
    data, metrics, label, score, group, item, by, weight, group_weight, prediction, con, **options
        As for :func:`evaluate`; the data of one partition. The data is checked as
        ``evaluate`` checks it.
    qrels, train : optional
        Only whether they are given is recorded (ranking metrics without a label column in
        ``data``; the beyond-accuracy metrics' interactions): pass them to :func:`merge`.
    round : int, optional
        Keep the scores to this many decimals (0 to 15), so the state holds at most the
        distinct (slices, [group], rounded score, label) rows: ``floor(score * 10**round +
        0.5) / 10**round`` in double precision (half up, toward +inf; the same bits on every
        engine; non-decreasing, so tied scores stay tied). Only for ``auc``, ``gauc`` and
        metrics that do not read the score, unweighted: :func:`merge` then returns their
        values on the rounded scores and bounds certified to contain the exact values (as
        :func:`auc_bounds`). The state records it; merge is passed the same ``round=``.
    scores, indicators, ci, ci_method, n_boot, seed
        Not mergeable: ``scores=``/``indicators=`` and ``ci=``/``ci_method=`` are refused.
    where : str, optional
        As for :func:`evaluate`: the state holds only the rows of ``data`` where this SQL
        boolean expression over its columns holds (e.g. ``where="day = '2026-11-01'"``, one
        partition of a table). Not recorded in the state: states made with different
        ``where=`` merge, as partitions of the data.
    """,
            **ENTRY,
        ),
    ),
    entry_point(
        "render_state",
        takes=entry_takes("scores indicators ci ci_method n_boot seed where con"),
        call=run_render_state,
        positional=2,
        returns_type="str",
        summary="""
    Return the SQL statement :func:`state` runs, in the SQL of ``dialect``.
    """,
        returns="""
    str
        The SQL text: run over a partition it gives :func:`state`'s rows (the data checks
        of :func:`evaluate` are not in it).
    """,
        raises="""
    UnknownMetricError, InvalidParameterError
        As :func:`state`; an unknown ``dialect``.
    """,
        examples="""
    >>> import sqlmetrics
    >>> sql = sqlmetrics.render_state("clicks", "auc", label="click", score="pctr",
    ...                               by="country")
    >>> print(sql.splitlines()[-2])
    group by "country", "click", "pctr"
    """,
        own=args(
            """
    data : str or path, default "source_table"
        A table name (quoted as an identifier) or a Parquet/CSV path: one partition.
    metrics, label, score, group, item, qrels, by, weight, group_weight, prediction, train
        As for :func:`state`.
    round, **options
        As for :func:`state`.
    dialect : str, default "duckdb"
        As for :func:`render`.
    """,
            **RENDERED,
        ),
    ),
    entry_point(
        "merge",
        takes=entry_takes("dialect", first="states"),
        call=run_merge,
        positional=2,
        summary="""
    :func:`evaluate`'s frame over the union of partitions, from their :func:`state`.
    """,
        returns="""
    pandas.DataFrame
        Exactly :func:`evaluate`'s frame over the union of the partitions' rows: the same
        statement runs over the rows the states stand for, so every number has the same
        bits (NULL slices and tied scores included). With ``round=``: ``auc`` (``gauc``) is
        the value on the rounded scores, and ``auc_lower``, ``auc_upper`` (``gauc_lower``,
        ``gauc_upper``) after it bound the exact value on the unrounded scores
        (:func:`auc_bounds`' certificate with each rounded score as a bucket: pairs with
        equal rounded scores count 0 in the lower bound, 1 in the upper; GAUC's bounds are
        its weighted means of the groups' bounds, moved outward by the rounding error of
        those means; NaN where the metric is undefined).
    """,
        raises="""
    InvalidParameterError
        As :func:`state`; no state; a state that is not a DataFrame; a state made with
        other metrics or arguments, ``round=`` included (the first that differs is named).
    InvalidDataError
        A state without the state columns, of another schema version (or a version that is
        not a number), with other data columns, or a row whose ``sqlmetrics_n`` is not a
        positive integer (0, negative, fractional or NULL).
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> days = [pd.DataFrame({"label": [1, 0, 0], "score": [.9, .3, .5]}),
    ...         pd.DataFrame({"label": [0, 1, 1], "score": [.4, .2, .8]})]
    >>> states = [sqlmetrics.state(day, ["auc", "brier_score"]) for day in days]
    >>> sqlmetrics.merge(states, ["auc", "brier_score"])
            auc  brier_score  n_rows
    0  0.666667     0.198333       6
    >>> sqlmetrics.evaluate(pd.concat(days), ["auc", "brier_score"])
            auc  brier_score  n_rows
    0  0.666667     0.198333       6

    Rounded to whole numbers (0.5 goes up to 1), 4 of the 9 positive-negative pairs tie:

    >>> states = [sqlmetrics.state(day, "auc", round=0) for day in days]
    >>> sqlmetrics.merge(states, "auc", round=0)
            auc  auc_lower  auc_upper  n_rows
    0  0.666667   0.444444   0.888889       6
    """,
        own=args(
            """
    states : list of pandas.DataFrame, or pandas.DataFrame
        The states of the partitions, as :func:`state` returns them (or one frame holding
        the rows of several, e.g. read back from a table the states were appended to).
    metrics, label, score, group, item, by, weight, group_weight, prediction, con, **options
        The arguments the states were made with (checked against each state's
        ``sqlmetrics_args``); ``con`` is the engine that runs the final statement.
    qrels, train : optional
        The judgments and interactions, when the states were made with them.
    round : int, optional
        The ``round=`` the states were made with (checked; states of different ``round=``
        do not merge).
    scores, indicators, ci, ci_method, n_boot, seed
        Not mergeable, as for :func:`state`.
    where : str, optional
        Keep only the rows of the states where this SQL boolean expression holds, over the
        slice and data columns the states hold (``by=``'s, ``label=``'s, ...; with
        ``round=``, the rounded scores): the result is then :func:`evaluate`'s over the rows
        of the partitions where it holds (``evaluate(..., where=)`` on their union), since a
        state's row stands for rows of ``data`` with exactly those values. Checked as
        :func:`evaluate` checks it; an expression over the state's own columns
        (``sqlmetrics_n``, ...) is the caller's responsibility.
    """,
            **ENTRY,
            states=("pd.DataFrame | Sequence[pd.DataFrame]", REQUIRED),
        ),
    ),
)
