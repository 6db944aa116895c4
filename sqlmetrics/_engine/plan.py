"""The plan of an ``evaluate`` call: which metrics, kernels and columns, checked before any
data is opened, and the one SQL statement that computes them (shared by ``evaluate``,
``render_evaluate`` and ``compare``).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .._core.conventions import cutoff_options, fill
from .._core.names import Request, parse_metric
from .._core.registry import PARAMS, DataChecks, MetricSpec, Role, default_of
from .._templating.literals import sql_double
from .._templating.quoting import quote_ident
from .._templating.templates import dispatched, macro
from ..errors import InvalidParameterError
from .run import check_params, entry, kernel_sql, normalize_by, open_checked
from .validate import Bound

if TYPE_CHECKING:  # pragma: no cover
    from .._backends.source import Source

#: evaluate's column keywords, by role name
COLUMN_ARGS = ("label", "score", "weight", "group", "item", "prediction", "group_weight")


def _is_ranking(spec: MetricSpec) -> bool:
    # the ranking kernel's metrics: family "ranking" and the retrieval extras (retrieval.py)
    return spec.kernel == "ranking_kernel"


def _is_grouped(spec: MetricSpec) -> bool:
    # a mean over the groups of a group column it requires, whose count its kernel reports:
    # GAUC (over the groups with both classes) or a ranking metric (not spearman with group=);
    # the ranking kernel's counts (num_q, ...) sum over the same groups and report them too
    required = any(r.name == "group" and r.required for r in spec.roles)
    return required and (spec.inference.group_mean is not None or _is_ranking(spec))


def data_checks(requests: Sequence[Request]) -> list[DataChecks]:
    """The families' checks of the requested metrics (``MetricSpec.data_checks``), each once."""
    checks: list[DataChecks] = []
    for req in requests:
        found = req.spec.data_checks
        if found is not None and not any(found is c for c in checks):
            checks.append(found)
    return checks


#: the generated name of GAUC's group count when ranking metrics (whose count is n_groups)
#: share the call
GAUC_GROUPS = "gauc_groups"


def group_counts(requests: Sequence[Request]) -> list[tuple[str, str]]:
    """The group-count columns evaluate returns, as (output name, generated name).

    ``n_groups`` when the grouped metrics of the call share one count (GAUC alone, or ranking
    metrics only: these all average over the same groups); with both GAUC and ranking
    metrics, whose means run over different groups, ``n_groups_<metric>`` for each of them.
    """
    grouped = [r for r in requests if _is_grouped(r.spec)]
    if len({_is_ranking(r.spec) for r in grouped}) < 2:
        return [("n_groups", "n_groups")] if grouped else []
    return [
        (f"n_groups_{r.text}", "n_groups" if _is_ranking(r.spec) else GAUC_GROUPS) for r in grouped
    ]


@dataclass(frozen=True)
class Plan:
    """A checked ``evaluate`` request: what to compute, before any data is opened.

    Built by :func:`make_plan` for both :func:`evaluate` (which then opens and checks the
    data and runs the SQL) and :func:`sqlmetrics.render_evaluate` (which only renders it).
    """

    requests: list[Request]
    by: list[str]
    columns: dict[str, str | None]
    options: dict[str, Any]
    used: list[tuple[Role, str]]
    ranking: bool
    #: per request, its options checked once (:func:`request_params`): what its own function
    #: would check, read by the kernel parts and by ``ci=``'s intervals
    checked: tuple[dict[str, Any], ...] = ()


def make_plan(
    caller: str,
    metrics: Any,
    columns: dict[str, str | None],
    by: str | Sequence[str] | None,
    has_qrels: bool,
    options: dict[str, Any],
) -> Plan:
    """Parse the metric names and check every argument that needs no data."""
    texts = [metrics] if isinstance(metrics, str) else list(metrics)
    if not texts:
        raise InvalidParameterError(f"{caller}: metrics= is empty; ask for at least one metric")
    requests = [parse_metric(t, caller) for t in texts]
    _check_name_params(caller, requests, options)
    requests = [  # a convention's options at a cut-off (ir_measures' RR@k: msmarco's ties)
        replace(
            r,
            params={**cutoff_options(options.get("convention"), r.spec, r.k, options), **r.params},
        )
        for r in requests
    ]
    options = fill(caller, [r.spec for r in requests], options)  # convention= applied
    seen: set[str] = set()
    for req in requests:
        if req.text in seen:
            raise InvalidParameterError(f"{caller}: metric {req.text!r} is requested twice")
        seen.add(req.text)
    by_cols = normalize_by(caller, by)
    check_slice_names(by_cols, requests, caller)
    _check_options(requests, options, caller)
    _check_prediction(requests, columns["prediction"], options, caller)
    _check_column_args(requests, columns, caller)
    ranking = any(_is_ranking(r.spec) for r in requests)
    if has_qrels and not ranking:
        raise InvalidParameterError(
            f"{caller}: qrels= is used by ranking metrics only, and none is requested"
        )
    group = columns["group"]
    if has_qrels and options.get("missing") == "zero" and by_cols and by_cols != [group]:
        raise InvalidParameterError(
            f"{caller}: missing='zero' with by={by!r}: a judged group absent from the run has "
            f"no slice value (slice columns are read from the run's rows), so it cannot be "
            f"counted in any slice. Slice by the group column alone (by={group!r}), leave "
            f"by= out, or pass missing='skip'"
        )
    used: list[tuple[Role, str]] = []
    for req in requests:
        for role in req.spec.roles:
            col = role_column(req.spec, role, columns, has_qrels)
            if col is not None and (role, col) not in used:
                used.append((role, col))
    checked = tuple(request_params(req, options) for req in requests)
    _check_parts(caller, requests, options, checked)
    return Plan(requests, by_cols, columns, dict(options), used, ranking, checked)


def _check_parts(
    caller: str,
    requests: list[Request],
    options: dict[str, Any],
    checked: Sequence[dict[str, Any]],
) -> None:
    """``empty="error"`` / ``missing="error"`` are checked on the counts of a kernel's first
    part; metrics whose names fix other options (``P(rel=3)@5``) run in a further part, whose
    groups those counts do not describe: refused there, with the fix.
    """
    kernels: dict[tuple[str, int], list[int]] = {}
    for i in range(len(requests)):
        kernels.setdefault(_kernel_key(i, requests, kernels, checked), []).append(i)
    further = [requests[i].text for (_, n), idx in kernels.items() if n > 0 for i in idx]
    strict = [o for o in ("empty", "missing") if options.get(o) == "error"]
    if further and strict:
        raise InvalidParameterError(
            f"{caller}: {strict[0]}='error' is checked on the groups of one set of options, "
            f"and {', '.join(map(repr, further))} fix other options in their names (another "
            f"relevance level, gain or tie order); evaluate them in a separate call, or pass "
            f"{strict[0]}='skip' or 'zero'"
        )


def check_train(plan: Plan, has_train: bool, caller: str = "evaluate") -> None:
    """``train=`` goes with the beyond-accuracy metrics only, and not with ranking metrics
    (whose (group, item) uniqueness check would be applied to it).
    """
    if not has_train:
        return
    if not any(r.spec.family == "beyond" for r in plan.requests):
        raise InvalidParameterError(
            f"{caller}: train= is used by the beyond-accuracy metrics only (catalog_coverage, "
            f"novelty, gini_index), and none is requested"
        )
    if plan.ranking:
        raise InvalidParameterError(
            f"{caller}: train= and ranking metrics in one call: train= repeats items by design, "
            f"the ranking metrics' data must not; evaluate them in two calls"
        )


def compose_sql(
    plan: Plan,
    relation: str,
    qrels_relation: str | None,
    train_relation: str | None = None,
    dialect: str = "duckdb",
    inputs: Sequence[tuple[str, str]] = (),
    counted: tuple[str, str] | None = None,
) -> tuple[str, dict[str, str]]:
    """The one statement of a plan in ``dialect``, with generated column names (slice_0..,
    m0.., counts), and the map from those metric names to the requested ones.

    ``inputs``: (name, query) pairs, CTEs put first that ``relation`` may name (merge: the
    rows a relation of states stands for). ``counted`` (merge): (a relation of states, its
    quoted count column): the slices' n_rows and the parts of the kernels in
    :data:`COUNTED_KERNELS` read it, each row standing for its count of rows (the same bits,
    at a cost in proportion to the states' rows); the other parts read ``relation``.
    """
    parts, names = _parts(
        plan.requests,
        plan.checked,
        relation,
        plan.columns,
        plan.by,
        plan.options,
        qrels_relation,
        train_relation,
        dialect,
        counted,
    )
    extra_slices = None
    group = plan.columns["group"]
    if qrels_relation and plan.options.get("missing") == "zero" and plan.by == [group]:
        # sliced by the group: a judged group absent from the run is a slice of its own
        # (n_rows 0), as trec_eval -q -c prints a line for it
        g = quote_ident(str(group), dialect)
        extra_slices = (
            f"select q.{g} as slice_0\nfrom {qrels_relation} as q\n"
            f"where not exists (select 1 from {relation} as r where r.{g} = q.{g})\n"
            f"group by q.{g}"
        )
    ctes = [{"name": name, "sql": query} for name, query in inputs]
    sql = macro("evaluate_compose", dialect)(
        counted[0] if counted else relation,
        [quote_ident(b, dialect) for b in plan.by],
        parts,
        extra_slices,
        ctes,
        counted[1] if counted else None,
    )
    return str(sql), names


def named_sql(plan: Plan, sql: str, dialect: str = "duckdb") -> str:
    """``sql`` (from :func:`compose_sql`) under the names ``evaluate`` returns: slices under
    their own names, metrics as requested, ``zero_division`` applied, then the counts; rows
    in slice order, NULL slices last on every engine.
    """
    slices = [f"slice_{i}" for i in range(len(plan.by))]
    select = [f"{s} as {quote_ident(b, dialect)}" for s, b in zip(slices, plan.by)]
    zero_division = plan.options.get("zero_division", "warn")
    for i, req in enumerate(plan.requests):
        expr = f"m{i}"
        if (
            "zero_division" in req.spec.params
            and zero_division != "warn"
            and not math.isnan(zero_division)
        ):
            expr = f"coalesce(m{i}, {sql_double(zero_division, dialect)})"
        select.append(f"{expr} as {quote_ident(req.text, dialect)}")
    select.append("n_rows")
    for name, generated in group_counts(plan.requests):  # n_groups plain, as generated
        shown = name if name == generated else quote_ident(name, dialect)
        select.append(f"coalesce({generated}, 0) as {shown}")
    inner = "\n".join(f"    {line}" if line else line for line in sql.strip().splitlines())
    order = f"\norder by {', '.join(s + ' nulls last' for s in slices)}" if slices else ""
    columns = ",\n    ".join(select)
    return f"select\n    {columns}\nfrom (\n{inner}\n) as evaluated{order}\n"


def output_columns(requests: Sequence[Request]) -> list[str]:
    """The columns evaluate returns after the slices: the metrics as asked, then the counts."""
    counts = [name for name, _ in group_counts(requests)]
    return [*(r.text for r in requests), "n_rows", *counts]


def check_slice_names(
    by_cols: Sequence[str], requests: Sequence[Request], caller: str = "evaluate"
) -> None:
    """Refuse a slice column named like an output column (the result would hold it twice)."""
    outputs = output_columns(requests)
    for name in by_cols:
        if name in outputs:
            what = {"n_rows": "rows per slice", "n_groups": "groups in the means"}.get(
                name,
                "groups in that metric's mean"
                if name.startswith("n_groups_")
                else "a requested metric",
            )
            raise InvalidParameterError(
                f"{caller}: slice column {name!r} (by=) has the name of an output column "
                f"({name}: {what}); the result would hold two columns {name!r}. Rename the "
                f"column in the data (e.g. select {name} as {name}_slice) or leave it out "
                f"of by="
            )


def open_plan(
    caller: str,
    plan: Plan,
    data: Any,
    con: Any,
    extra_sources: Mapping[str, tuple[Any, Sequence[tuple[Role, str]]]] | None = None,
    used: Sequence[tuple[Role, str]] | None = None,
) -> AbstractContextManager[tuple[Any, Source, dict[str, tuple[str, dict[str, str | None]]]]]:
    """:func:`open_checked` for a plan: its columns, the columns it uses (unless ``used``), its
    slices, the ranking keys as unique roles, its ``pos_label`` and ``duplicates`` options, its
    families' bounds on the values (``DataChecks.bounds``).
    """
    return open_checked(
        caller,
        data,
        con,
        plan.columns,
        plan.used if used is None else used,
        plan.by,
        ("group", "item") if plan.ranking else (),
        extra_sources,
        pos_label=plan.options.get("pos_label"),
        duplicates=plan.options.get("duplicates", "error"),
        bounds=plan_bounds(caller, plan),
    )


def plan_bounds(caller: str, plan: Plan) -> list[Bound]:
    """The bounds on the values that the plan's families declare (``DataChecks.bounds``)."""
    return [
        bound
        for family in data_checks(plan.requests)
        for bound in family.bounds(caller, plan.options, plan.requests)
    ]


def role_columns(
    label: str,
    score: str,
    group: str | None,
    item: str | None,
    weight: str | None,
    prediction: str | None,
    group_weight: str | None = None,
) -> dict[str, str | None]:
    """The column of each role, as ``evaluate``, ``state`` and their ``render_`` twins take
    them (the mapping :func:`make_plan` reads).
    """
    return {
        "label": label,
        "score": score,
        "weight": weight,
        "group": group,
        "item": item,
        "prediction": prediction,
        "group_weight": group_weight,
    }


def role_column(
    spec: MetricSpec, role: Role, columns: dict[str, str | None], has_qrels: bool = False
) -> str | None:
    col = columns.get(role.name)
    if has_qrels and _is_ranking(spec) and role.name == "label":
        return None  # judged by qrels; the run has no label
    if role.name == "score" and columns.get("prediction") and "threshold" in spec.params:
        return None
    return col


def _check_options(
    requests: list[Request], options: dict[str, Any], caller: str = "evaluate"
) -> None:
    """Every option is accepted by a requested metric, and its value passes the ParamSpec
    check the functions use (the message names the first metric that takes it).
    """
    accepted = {p for r in requests for p in r.spec.params if p != "k"}
    for name, value in options.items():
        if name not in accepted:
            asked = ", ".join(r.text for r in requests)
            allowed = ", ".join(sorted(accepted)) or "none"
            extra = " (write the cut-off into the name, e.g. 'ndcg@10')" if name == "k" else ""
            near = difflib.get_close_matches(name, sorted(accepted), n=1)
            if near and not extra:
                extra = f" (did you mean {near[0]}=?)"
            raise InvalidParameterError(
                f"{caller}: option {name}= is accepted by none of the requested metrics "
                f"({asked}){extra}; options they accept: {allowed}"
            )
        first = next(r for r in requests if name in r.spec.params)
        PARAMS[name].validate(first.text, value)


def _check_name_params(caller: str, requests: list[Request], options: dict[str, Any]) -> None:
    """An option passed to the call that a metric's name fixes otherwise is refused
    (``P@5`` is ir_measures' P at rel=1 whatever ``relevance_level=`` says): the message
    says how to write it in the name.
    """
    for req in requests:
        for name, fixed in req.params.items():
            given = options.get(name)
            if given is None or name not in options:
                continue
            if given == fixed and type(given) is type(fixed):
                continue
            raise InvalidParameterError(
                f"{caller}: {name}={given!r} conflicts with metric {req.text!r}, whose name "
                f"fixes {name}={fixed!r} (ir_measures' definition of {req.spec.ir_measures}); "
                f"write the parameter in the name (e.g. 'P(rel=2)@5', "
                f"\"nDCG(dcg='exp-log2')@10\") or leave {name}= out"
            )


def _check_prediction(
    requests: list[Request],
    prediction: str | None,
    options: dict[str, Any],
    caller: str = "evaluate",
) -> None:
    """``prediction=`` replaces ``score >= threshold``: both at once is refused, as the
    single-metric functions refuse it.
    """
    if prediction is None or "threshold" not in options:
        return
    users = ", ".join(r.text for r in requests if "threshold" in r.spec.params)
    raise InvalidParameterError(
        f"{caller}: threshold={options['threshold']!r} and prediction={prediction!r} both "
        f"given; the threshold metrics ({users}) use the prediction column with prediction=, "
        f"or score >= threshold without it: pass one of them, not both"
    )


def _check_column_args(
    requests: list[Request], columns: dict[str, str | None], caller: str = "evaluate"
) -> None:
    for req in requests:
        roles = list(req.spec.roles)
        if _is_ranking(req.spec):
            roles.append(Role("label", "relevance"))  # in data, or in qrels
        for role in roles:
            if role.required and columns.get(role.name) is None:
                raise InvalidParameterError(
                    f"{caller}: {req.text!r} needs {role.name}=, the {role.name} column"
                )
    for arg in ("weight", "prediction", "item", "group_weight"):
        if columns.get(arg) is not None and not any(arg in r.spec.role_names for r in requests):
            raise InvalidParameterError(
                f"{caller}: {arg}={columns[arg]!r} is used by none of the requested metrics "
                f"({', '.join(r.text for r in requests)})"
            )


def request_params(req: Request, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``req`` checked (:func:`check_params`, once per call): those of
    ``options`` it accepts, what its name fixes (ir_measures' names) and its cut-off; the same
    as its own function checks when called with them.
    """
    params = {name: options[name] for name in req.spec.params if name in options}
    params.update(req.params)  # what its name fixes (ir_measures' names)
    if req.spec.takes_k:
        params["k"] = req.k
    return check_params(req.spec, params)


def _metric_params(req: Request, checked: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``req``'s entry in its kernel part (``checked``: its
    :func:`request_params`).
    """
    params = dict(checked)
    if "zero_division" in params and not (
        req.spec.family == "multiclass" and req.spec.average in ("macro", "weighted")
    ):
        # applied to the result in Python, as the functions do; the macro and weighted
        # averages apply it to each class in SQL (a 0/0 class counts as the value given)
        params["zero_division"] = default_of(req.spec, "zero_division")
    return params


#: the kernels whose macro reads ``columns.multiplicity`` (a count per row: merge's states
#: read as they are, not replayed row by row; the list and what stays replayed, and why:
#: sqlmetrics/_evaluate/state.py's docstring). The table kernels (curves, reports, confusion
#: matrices) are not merged (evaluate gives scalars); their shared macros take the count.
COUNTED_KERNELS = frozenset(
    {
        "confusion_kernel",
        "log_loss_kernel",
        "brier_score_kernel",
        "normalized_entropy_kernel",
        "calibration_ratio_kernel",
        "auc_kernel",
        "gauc_kernel",
        "average_precision_kernel",
        "score_points_kernel",
        "expected_calibration_error_kernel",
        "multiclass_kernel",
        "balanced_accuracy_kernel",
        "mcc_kernel",
        "cohen_kappa_kernel",
        "hamming_loss_kernel",
    }
)
#: the dispatched kernels that take no count: spark__auc_kernel reads replayed rows (Spark's
#: and Sail's, which dispatches to its parent's: the macro resolved decides, not the dialect)
UNCOUNTED = frozenset({"spark__auc_kernel"})


def _parts(
    requests: list[Request],
    checked: Sequence[dict[str, Any]],
    relation: str,
    columns: dict[str, str | None],
    by: list[str],
    options: dict[str, Any],
    qrels_relation: str | None = None,
    train_relation: str | None = None,
    dialect: str = "duckdb",
    counted: tuple[str, str] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The composed statement's parts: one per family kernel, all its requested metrics in
    one call (decision 0007); ``counted``: as for :func:`compose_sql`.
    """
    parts: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    ranking = any(_is_ranking(r.spec) for r in requests)
    kernels: dict[tuple[str, int], list[int]] = {}
    for i, req in enumerate(requests):
        names[f"m{i}"] = req.text
        kernels.setdefault(_kernel_key(i, requests, kernels, checked), []).append(i)
    for (kernel, n), indices in kernels.items():
        takes = kernel in COUNTED_KERNELS and dispatched(kernel, dialect) not in UNCOUNTED
        multiplicity = counted if counted and takes else None
        part = _kernel_part(
            kernel,
            [requests[i] for i in indices],
            [checked[i] for i in indices],
            indices,
            multiplicity[0] if multiplicity else relation,
            {**columns, "multiplicity": multiplicity[1]} if multiplicity else columns,
            by,
            options,
            qrels_relation,
            ranking,
            train_relation,
            dialect,
            counts=n == 0,
        )
        parts.append(part)
        names.update({c["as"]: c["as"] for c in part["columns"] if c["as"] not in names})
    return parts, names


def _kernel_key(
    index: int,
    requests: list[Request],
    kernels: dict[tuple[str, int], list[int]],
    checked: Sequence[dict[str, Any]],
) -> tuple[str, int]:
    """The part of ``req``: its kernel's first part whose metrics agree with it on every
    option they share, else a new one. Metrics whose names fix different options
    (``P(rel=2)@5`` and ``nDCG@10``) need separate calls of the kernel.
    """
    req = requests[index]
    kernel = str(req.spec.kernel)
    mine = _metric_params(req, checked[index])
    parts = [key for key in kernels if key[0] == kernel]
    for key in parts:
        theirs: dict[str, Any] = {}
        for i in kernels[key]:
            theirs.update(_metric_params(requests[i], checked[i]))
        shared = (set(mine) & set(theirs)) - {"k"}
        if all(repr(mine[o]) == repr(theirs[o]) for o in shared):
            return key
    return (kernel, len(parts))


def _count_columns(
    kernel: str, options: dict[str, Any], has_qrels: bool, ranking: bool
) -> list[tuple[str, str]]:
    """The count columns a kernel's part hands to the composed statement (besides values),
    as (its column, the generated name): ``n_groups`` from the ranking kernel; GAUC's as
    ``n_groups``, or as ``gauc_groups`` when the ranking kernel's is in the call too.
    """
    if kernel == "gauc_kernel":
        return [("n_groups", GAUC_GROUPS if ranking else "n_groups")]
    if kernel != "ranking_kernel":
        return []
    counts = ["n_groups", "n_empty"]
    if options.get("empty") == "error":
        counts.append("first_empty")
    if has_qrels:
        counts.append("n_missing")
        if options.get("missing") == "error":
            counts.append("first_missing")
    return [(c, c) for c in counts]


def _kernel_part(
    kernel: str,
    requests: list[Request],
    params: list[dict[str, Any]],
    indices: list[int],
    relation: str,
    columns: dict[str, str | None],
    by: list[str],
    options: dict[str, Any],
    qrels_relation: str | None = None,
    ranking: bool = False,
    train_relation: str | None = None,
    dialect: str = "duckdb",
    counts: bool = True,
) -> dict[str, Any]:
    """The requested metrics of one family: one call of its kernel, one entry per metric
    (the ranking metrics share one sort, decision 0001). ``counts``: this part reports the
    kernel's counts (``n_groups``...); a further part of the same kernel (metrics whose
    names fix other options) reports its values only.
    """
    has_qrels = qrels_relation is not None
    roles: dict[str, str | None] = {}
    checked: dict[str, Any] = {}
    for req, own in zip(requests, params):
        for role in req.spec.roles:
            col = role_column(req.spec, role, columns, has_qrels)
            roles[role.name] = quote_ident(col, dialect) if col else None
        if columns.get("multiplicity"):  # quoted already (compose_sql's counted)
            roles["multiplicity"] = columns["multiplicity"]
        checked.update({k: v for k, v in _metric_params(req, own).items() if k != "k"})
    extra = None
    if qrels_relation is not None:
        extra = {
            "qrels": (qrels_relation, {role: columns[role] for role in ("group", "item", "label")})
        }
    if train_relation is not None and requests[0].spec.family == "beyond":
        extra = {"train": (train_relation, {"item": columns["item"]})}
    entries = [entry(req.spec, f"m{i}", req.k) for i, req in zip(indices, requests)]
    sql = kernel_sql(kernel, relation, by, roles, checked, entries, extra, dialect=dialect)
    selected = [(f"m{i}", f"m{i}") for i in indices]
    if counts:
        selected += _count_columns(kernel, options, has_qrels, ranking)
    return {
        "alias": "ranking" if kernel == "ranking_kernel" and counts else f"p{indices[0]}",
        "sql": sql.strip(),
        "columns": [{"column": c, "as": a} for c, a in selected],
    }
