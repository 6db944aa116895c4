"""``evaluate``: many metrics, sliced by any columns, in one SQL statement."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._core.conventions import warns_zero
from .._core.names import Request, parse_metric
from .._core.params import ENTRY, GROUP_WEIGHTS_ZERO, args, entry_point, entry_takes
from .._core.registry import Role
from .._engine.plan import (
    Plan,
    check_train,
    compose_sql,
    data_checks,
    group_counts,
    make_plan,
    open_plan,
    role_column,
    role_columns,
)
from .._engine.run import Call
from .._engine.where import WHERE_CTE, Filtered, check_where, filtered
from .._inference.intervals import (
    CiRequest,
    SliceBounds,
    check_ci,
    check_method,
    check_unused_ci,
    ci_columns,
    contain,
    serve_slices,
    warn_undefined,
)
from .._metrics import FUNCTIONS
from .._metrics.multiclass import check_labels, check_labels_type
from .._metrics.multiclass_roc import listed_classes
from .._metrics.ranking_ir import COUNTS, no_interval
from ..errors import InvalidParameterError, SqlMetricsError, UndefinedMetricWarning, warn
from .wide import evaluate_wide

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import EvaluateCall

#: the public function is declared at the end of this module (API) and generated into
#: ``_api_evaluate.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["run_evaluate"]


def run_evaluate(a: EvaluateCall) -> pd.DataFrame:
    """The body of :func:`evaluate`, its arguments in ``a``."""
    for name, value in (
        ("label", a.label),
        ("score", a.score),
        ("group", a.group),
        ("item", a.item),
    ):
        if not isinstance(value, str) and (value is not None or name in ("label", "score")):
            several = (
                "; to evaluate several models, call sqlmetrics.compare(data, metrics, "
                f"scores={list(value)!r}) (each against the first, with paired tests) or "
                f"sqlmetrics.report(..., scores={list(value)!r}), or evaluate once per model"
                if name == "score" and isinstance(value, (list, tuple))
                else ""
            )
            raise InvalidParameterError(
                f"evaluate: {name}={value!r} must be one column name (text){several}"
            )
    data = filtered(a.data, check_where("evaluate", a.where))  # every pass reads these rows
    if a.scores is None and a.indicators is not None:
        raise InvalidParameterError(
            f"evaluate: indicators={a.indicators!r} (a 0/1 column per class) needs scores= (the "
            f"score column of each class)"
        )
    if a.scores is not None:  # wide class scores (_evaluate_wide.py)
        others = {
            "group": a.group,
            "item": a.item,
            "weight": a.weight,
            "group_weight": a.group_weight,
            "prediction": a.prediction,
            "qrels": a.qrels,
            "train": a.train,
            "ci": a.ci,
            "ci_method": a.ci_method,
        }
        return evaluate_wide(
            data,
            a.metrics,
            label=a.label,
            scores=a.scores,
            indicators=a.indicators,
            by=a.by,
            others=others,
            options=a.options,
            con=a.con,
        )
    columns = role_columns(
        a.label, a.score, a.group, a.item, a.weight, a.prediction, a.group_weight
    )
    columns = _function_defaults(a.metrics, columns)
    plan = make_plan("evaluate", a.metrics, columns, a.by, a.qrels is not None, a.options)
    check_train(plan, a.train is not None)
    request = None
    if a.ci is None:
        check_unused_ci("evaluate", a.ci_method, a.n_boot, a.seed)
    else:
        request = check_ci("evaluate", a.ci, a.ci_method, a.n_boot, a.seed)
        for req in plan.requests:
            if req.spec.name in COUNTS:  # a sum over groups
                raise no_interval(req.spec.name)
            if request.method is not None:
                check_method(req.spec, request.method)
    # the default empty="skip" warns, as in the ranking functions, unless the caller chose
    chosen = a.options.get("empty") is not None or a.options.get("convention") is not None
    convention = a.options.get("convention")  # ranx's order of long ties: TieOrderWarning
    return _evaluate(
        plan, data, a.qrels, a.train, a.con, warn_skips=not chosen, warn_ties=convention, ci=request
    )


def _function_defaults(metrics: Any, columns: dict[str, str | None]) -> dict[str, str | None]:
    """``columns`` with ``group``/``item`` left None set as the requested metrics' functions
    default them (``ndcg(..., group="group", item="item")``): where every requested metric that
    reads the role has that same default; else as given (make_plan names what is missing).
    """
    texts = [metrics] if isinstance(metrics, str) else metrics
    try:
        specs = [parse_metric(t).spec for t in texts]
    except (SqlMetricsError, TypeError):  # make_plan reports it, with the name
        return columns
    out = dict(columns)
    for role in ("group", "item"):
        readers = [s for s in specs if role in s.role_names]
        if out[role] is not None or not readers:
            continue
        defaults = set()
        for spec in readers:
            function = FUNCTIONS.get(spec.function)
            parameter = inspect.signature(function).parameters.get(role) if function else None
            defaults.add(None if parameter is None else parameter.default)
        if defaults == {role}:
            out[role] = role
    return out


def _evaluate(
    plan: Plan,
    data: Any,
    qrels: Any,
    train: Any,
    con: Any,
    warn_skips: bool = False,
    warn_ties: str | None = None,
    replay: Callable[[Any, Any], tuple[str, str, str]] | None = None,
    caller: str = "evaluate",
    ci: CiRequest | None = None,
) -> pd.DataFrame:
    """Run the one statement of a checked plan and, with ``ci``, its intervals
    (:func:`add_intervals`) on the same opened, checked source.

    ``replay`` (merge): ``data`` holds states, and ``replay(backend, source)`` checks them
    and gives the (name, query) of a CTE holding the rows they stand for, which the
    statement reads instead of ``data`` (after the data's checks, run on the states' rows),
    and the quoted count column of the states, which the kernels that take a count per row
    read in place of the CTE (``compose_sql``'s ``counted``).

    ``warn_skips``: warn (``SkippedGroupsWarning``, one per ranking metric) when the default
    ``empty="skip"`` left groups out, as the ranking functions do. ``warn_ties``
    (the convention, or None): under ``"ranx"`` (and ``"ir_measures"`` for the values it takes
    from ranx) warn ``TieOrderWarning`` where ranx's order of equal scores, which SQL cannot
    reproduce, may change a ranking metric (:func:`warn_ranx_ties`). ``caller``: the public
    function its errors and warnings name (``merge`` runs this statement too).
    """
    columns = plan.columns
    checks = data_checks(plan.requests)  # the ranking family's, declared on its specs
    inputs = {name: roles for check in checks for name, roles in check.inputs.items()}
    extra_sources: dict[str, tuple[Any, list[tuple[Role, str]]]] = {}
    if qrels is not None:
        extra_sources["qrels"] = (qrels, [(r, str(columns[r.name])) for r in inputs["qrels"]])
    if train is not None:
        extra_sources["train"] = (train, [(Role("item", "key"), str(columns["item"]))])
    with open_plan(caller, plan, data, con, extra_sources) as (backend, source, extra):
        if plan.options.get("labels") is not None:  # the classes of labels= (multiclass)
            listed = check_labels(caller, "labels", plan.options["labels"])
            for req in plan.requests:
                if "labels" in req.spec.params:  # classes: in item= for a table of scores
                    role = "item" if req.spec.family == "multiclass_scores" else "label"
                    column = str(columns[role])
                    sql_type = source.columns[column]
                    family = backend.family(sql_type)
                    check_labels_type(req.text, listed, column, sql_type, family)
                    if role == "item":  # every class of the table must be listed
                        check = listed_classes(req.text, column, listed)
                        assert check is not None
                        check(backend, source, extra)
        judged_sql = extra["qrels"][0] if "qrels" in extra else None
        for family in checks:
            family.before(
                caller,
                backend,
                source.sql,
                judged_sql,
                columns,
                plan.options,
                plan.requests,
                warn_ties,
            )
        train_sql = extra["train"][0] if "train" in extra else None
        relation, ctes, counted = source.sql, [], None
        if replay is not None:
            name, query, count = replay(backend, source)
            ctes.append((name, query))
            relation, counted = name, (source.sql, count)
        elif isinstance(data, Filtered):  # source.sql is the filtering subquery: a name for it
            ctes.append((WHERE_CTE, f"select * from {source.sql}"))
            relation = WHERE_CTE
        sql, names = compose_sql(
            plan,
            relation,
            judged_sql,
            train_sql,
            dialect=backend.dialect,
            inputs=ctes,
            counted=counted,
        )
        frame = backend.query(sql)
        # generated names (slice_0.., m0.., n_empty, ...) until the very end: a slice column
        # may be called anything, even like one of them
        for family in checks:  # e.g. ranking: n_empty, n_missing, their policies
            family.after(caller, frame, plan.options, qrels is not None, plan.requests, warn_skips)
        bounds = None
        if ci is not None:  # the plan's intervals, on the same source (no second opening)
            calls = _interval_calls(plan, backend, source.sql, extra)
            bounds = serve_slices(calls, list(plan.by), ci)
    frame = _finish(frame, plan.requests, names, len(plan.by), plan.options, caller)
    frame = frame.rename(columns={f"slice_{i}": b for i, b in enumerate(plan.by)})
    return frame if bounds is None else add_intervals(frame, plan, bounds)


def _interval_calls(
    plan: Plan, backend: Any, relation: str, extra: Mapping[str, Any]
) -> dict[str, Call]:
    """Each requested metric's checked call, as its own function would make it on the same
    source: its roles' columns, its checked options (the plan's, checked once), the slices and
    the second input its kernel reads (``qrels=`` for the ranking kernel, ``train=`` for the
    beyond-accuracy metrics).
    """
    has_qrels = "qrels" in extra
    calls: dict[str, Call] = {}
    for req, params in zip(plan.requests, plan.checked):
        spec = req.spec
        roles = {r.name: role_column(spec, r, plan.columns, has_qrels) or None for r in spec.roles}
        own = None
        if has_qrels and plan.ranking and spec.kernel == "ranking_kernel":
            own = {"qrels": extra["qrels"]}
        elif "train" in extra and spec.family == "beyond":
            own = {"train": extra["train"]}
        calls[req.text] = Call(spec, backend, relation, roles, params, list(plan.by), own)
    return calls


def _finish(
    frame: pd.DataFrame,
    requests: list[Request],
    names: dict[str, str],
    n_slices: int,
    options: dict[str, Any],
    caller: str = "evaluate",
) -> pd.DataFrame:
    """Metric columns under their requested names, in the requested order; the counts last.

    ``frame`` still has the generated slice names (slice_0, ...), so no slice can collide.
    """
    frame = frame.rename(columns=names)
    slices = [f"slice_{i}" for i in range(n_slices)]
    counts = {  # a slice no grouped part reports (no group in it) counts 0 groups
        name: frame[generated].fillna(0).astype("int64")
        for name, generated in group_counts(requests)
    }
    # the ranking metrics' groups left per slice: NaN where some are left means their weights
    # sum to 0, not that no group has a relevant item
    ranking_groups = frame["n_groups"].fillna(0) if "n_groups" in frame else None
    frame = frame[[*slices, *(r.text for r in requests), "n_rows"]].copy()
    for name, values in counts.items():
        frame[name] = values
    zero_division = options.get("zero_division", "warn")
    for req in requests:
        values = frame[req.text]
        missing = values.isna()
        if not missing.any():
            continue
        if "zero_division" in req.spec.params and zero_division != "warn":
            frame[req.text] = values.fillna(float(zero_division))
            if warns_zero(zero_division):  # scikit-learn's zero_division="warn"
                warn(
                    f"{caller}: {req.text} is undefined in {int(missing.sum())} of "
                    f"{len(frame)} slice(s) ({req.spec.undefined}); 0.0 there "
                    f"(scikit-learn's zero_division='warn')",
                    UndefinedMetricWarning,
                )
            continue
        reason = req.spec.undefined
        if ranking_groups is not None and req.spec.kernel == "ranking_kernel":
            weighed_nothing = ranking_groups[missing.to_numpy()] > 0
            if weighed_nothing.all():
                reason = GROUP_WEIGHTS_ZERO
            elif weighed_nothing.any():
                reason = f"{reason}; or {GROUP_WEIGHTS_ZERO}"
        warn(
            f"{caller}: {req.text} is undefined in {int(missing.sum())} of {len(frame)} "
            f"slice(s) ({reason}); NaN there",
            UndefinedMetricWarning,
        )
    return frame.reset_index(drop=True)


def add_intervals(
    frame: pd.DataFrame, plan: Plan, bounds: Mapping[str, SliceBounds]
) -> pd.DataFrame:
    """``evaluate``'s frame with ``<metric>_lo`` and ``<metric>_hi`` after each metric column,
    from the plan's intervals ``bounds`` (:func:`serve_slices`): per slice the same interval as
    the metric's function gives on the slice's rows.
    """
    import pandas as pd

    out = frame.copy()
    by = list(plan.by)
    for req in plan.requests:
        found = bounds[req.text]
        warn_undefined(req.spec.name, found.method, found.bounds)
        lo_name, hi_name = ci_columns(req.text)
        named = found.bounds.rename(columns={"lo": lo_name, "hi": hi_name})
        if by:
            keys = out[by].reset_index(drop=True)
            merged = keys.merge(named, on=by, how="left")
        else:
            merged = named
        at = list(out.columns).index(req.text) + 1
        los = merged[lo_name].to_numpy(dtype=float, copy=True)
        his = merged[hi_name].to_numpy(dtype=float, copy=True)
        if found.method == "wilson":
            values = pd.to_numeric(out[req.text], errors="coerce").to_numpy(dtype=float)
            for i, value in enumerate(values):
                los[i], his[i] = contain(los[i], his[i], value)
        out.insert(at, lo_name, los)
        out.insert(at + 1, hi_name, his)
    return out


API = (
    entry_point(
        "evaluate",
        takes=entry_takes("round dialect"),
        call=run_evaluate,
        positional=2,
        summary="""
    Compute several metrics at once, per slice, in one SQL statement.
    """,
        returns="""
    pandas.DataFrame
        The slice columns first (sorted), then one column per metric named exactly as
        requested, then ``n_rows`` and, when GAUC or ranking metrics are requested,
        ``n_groups``: the groups their means run over (GAUC: the groups with both classes;
        ranking metrics, which all average over the same groups: those kept by ``empty=``
        and ``missing=``). A call with both GAUC and ranking metrics has instead one count
        per grouped metric, ``n_groups_<metric>`` with the metric as requested (e.g.
        ``n_groups_gauc``, ``n_groups_ndcg@10``), in the order of ``metrics``. Without
        ``by``: exactly one row.
    """,
        raises="""
    UnknownMetricError
        A metric name that is not registered (with the nearest valid name).
    InvalidParameterError
        An option that no requested metric accepts, a value out of range, a metric asked
        twice, a missing ``group=``/``item=``.
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As for the single-metric functions.
    """,
        warns="""
    UndefinedMetricWarning
        Once per metric that is undefined in some slice (NaN there).
    SkippedGroupsWarning
        Once per ranking metric when the default ``empty="skip"`` left groups with no
        relevant item out of its mean (neither ``empty=`` nor ``convention=`` given), as the
        ranking functions warn: how many of how many groups (summed over the slices), and
        the alternatives.
    """,
        notes="""
    The value of a metric in a slice equals the single-metric function run on that slice
    alone: a ranking metric averages over the slice's own groups (with ``qrels=``, the judged
    groups of the slice's rows, with their judgments). A judged group the run has no row for
    (``missing=``) has no slice value, since slice columns are read from the run: with
    ``missing="zero"`` and ``by`` the group column alone it is a slice of its own (``n_rows``
    0, its metrics 0 as for a group that retrieved nothing, as ``trec_eval -q -c`` prints
    it); with other slices ``missing="zero"`` is refused.
    ir_measures' names (``"nDCG@10"``, ``"P(rel=2)@5"``) fix their own options for that
    metric alone; metrics whose names fix different options run in one more pass of the
    ranking kernel, and ``n_groups`` then counts the groups of the first ranking metric asked.
    All metrics come from one statement: classification metrics as subqueries joined
    on the slices; ranking metrics share one ``ranked`` CTE (one sort), see
    ``docs/decisions/0001-templates-and-composition.md``.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"country": ["DE", "DE", "DE", "FR", "FR", "FR"],
    ...                    "label": [1, 0, 0, 0, 1, 1], "score": [.9, .3, .5, .4, .2, .8]})
    >>> sqlmetrics.evaluate(df, ["auc", "accuracy"], by="country")
      country  auc  accuracy  n_rows
    0      DE  1.0  0.666667       3
    1      FR  0.5  0.666667       3
    """,
        own=args(
            """
    metrics : str or list of str
        Metric names from :func:`metric_names`, with ``@k`` where a metric takes a cut-off:
        ``"auc"``, ``"gauc"``, ``"f1"``, ``"ndcg@10"``, ``"map@10"``, ``"mrr"``,
        ``"precision@5"`` (ranking precision at 5; plain ``"precision"`` is the classifier's
        precision at a threshold), ``"recall@20"``, ``"hit_rate@10"``, ...
    label, score : str
        Label and score columns (binary labels for classification metrics, graded
        relevance for ranking metrics). One score column: for several models, see
        :func:`compare` (paired tests) or :func:`report` (``scores=``).
    group : str, optional
        Group column (user, query) for GAUC and the ranking metrics. None: ``"group"``
        where every requested metric that reads one defaults it so in its own function
        (the ranking metrics: ``ndcg(..., group="group")``); GAUC, whose function has no
        default, needs it given.
    item : str, optional
        Item (document) column for the ranking and beyond-accuracy metrics. None: ``"item"``
        where their functions default it so (all of them).
    qrels : optional
        Ground-truth judgments for the ranking metrics, of any input kind.
    by : str or list of str, optional
        Slice columns: one output row per distinct combination, sorted by them.
    weight : str, optional
        Sample-weight column, for the metrics that accept one (ranking: per-item weights of
        dcg and ndcg, rax's weighted gains).
    prediction : str, optional
        0/1 prediction column for the threshold metrics (instead of score >= threshold).
    train : optional
        Interactions (any input kind, with the ``item`` column) for the beyond-accuracy
        metrics that need a catalog or item popularity (``catalog_coverage``, ``novelty``,
        ``gini_index``); not with ranking metrics in the same call.
    scores : list of str or dict, optional
        Wide class scores for ``multiclass_auc`` and ``top_k_accuracy`` (with ``weight=``)
        alone: a score column per class (with ``labels=`` the class of each, else the sorted
        classes of ``label``), or a mapping class -> column; ``label`` holds the true class.
        See :func:`multiclass_auc`.
    indicators : list of str or dict, optional
        With ``scores=``: multilabel truth, a 0/1 (or boolean) column per class in the form
        of ``scores`` (scikit-learn's indicator matrix ``Y``), for ``multiclass_auc`` and
        ``multilabel_average_precision`` (``auc_average=`` / ``ap_average=``, "samples" too);
        ``label`` is then not read. See :func:`multiclass_auc`.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: each metric column is followed by
        ``<metric>_lo`` and ``<metric>_hi``, its interval in that slice, the same as the
        metric's own function gives with ``ci=`` on the slice's rows
        (docs/concepts/uncertainty.md). None (default): no interval columns.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The method for every metric; None: each metric's default.
    where : str, optional
        Keep only the rows of ``data`` where this SQL boolean expression over its columns
        holds, before anything else (the column and value checks, every metric, ``n_rows``),
        e.g. ``where="country = 'DE' and day >= '2026-11-01'"``. It is your SQL, executed as
        written inside ``select * from data where (...)``: one expression, refused when it
        holds a ``;``, a comment or a parenthesis it does not open; a column it names that
        ``data`` lacks is an error naming ``where=`` before any metric runs. ``qrels=`` and
        ``train=`` are not filtered. On every engine (DuckDB, PostgreSQL and the other
        SQLAlchemy databases, Spark, ClickHouse), nothing written there; the intervals of
        ``ci=`` and the wide ``scores=`` read the same filtered rows.
    **options
        The metrics' own options (``threshold``, ``beta``, ``weighting``, ``gain``, ``ties``,
        ``empty``, ``missing``, ``relevance_level``, ``ap_denominator``, ``zero_division``,
        ...). Each applies to every requested metric that accepts it. ``convention=``
        (``"trec_eval"``, ``"sklearn"``, ``"ranx"``, ...) sets the options left out to that
        tool's values for every requested metric (each must be one the tool defines).
    """,
            **ENTRY,
        ),
    ),
)
