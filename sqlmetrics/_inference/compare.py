"""``compare``: paired comparison of models, computed in SQL (issue 12).

Several models scored on the same rows (two or more score columns of one table), or several
ranking runs of the same groups (``runs=``), compared to a baseline with a paired test per
metric: the sums each test needs come from one SQL statement per family
(``sql/_macros/inference/compare.sql``); Python only turns those few numbers per slice into
p-values, intervals and a multiple-comparison correction.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._backends.source import Source
from .._core.names import Request, metric_form
from .._core.params import ENTRY, args, entry_point
from .._core.registry import (
    N_BOOT_MAX,
    PAIRED_TESTS,
    PARAMS,
    REGISTRY,
    MetricSpec,
    Number,
    Role,
)
from .._engine.plan import Plan, data_checks, make_plan, open_plan, plan_bounds
from .._engine.run import check_params, entry, kernel_sql, open_checked
from .._engine.validate import check_columns, validate_data
from .._engine.where import check_where, filtered
from .._templating.quoting import quote_ident
from .._templating.templates import render_macro
from ..errors import InvalidDataError, InvalidParameterError, UndefinedMetricWarning, warn
from .stats import t_two_sided_p, two_sided_normal, two_sided_t

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import CompareCall

#: the public function is declared at the end of this module (API) and generated into
#: ``_api_compare.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["run_compare"]

#: every test; each metric declares those that apply to it (``MetricSpec.inference.tests``)
ALL_TESTS = PAIRED_TESTS
#: names other libraries give the tests (ranx: "student", "fisher")
_SYNONYMS = {
    "ttest": "t",
    "t-test": "t",
    "t_test": "t",
    "student": "t",
    "paired_t": "t",
    "fisher": "randomization",
    "permutation": "randomization",
    "signed_rank": "wilcoxon",
}
CORRECTIONS = ("holm", "bonferroni", "none")
#: below this many discordant pairs McNemar's test is the exact binomial test
MCNEMAR_EXACT_BELOW = 25
#: ``n_permutations=``: as ``n_boot=``, each permutation a pass over the rows (dbt's
#: champion_challenger test states the same message)
check_n_permutations = Number(
    "an integer >= 10 (e.g. 200 or 1000)",
    kind="int",
    low=10,
    limit=N_BOOT_MAX,
    limit_why=" (each one is a pass over the rows)",
    limit_fix="; pass a smaller number, e.g. {name}=2000",
)
COLUMNS = [
    "metric",
    "model",
    "value",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_value",
    "p_adjusted",
    "test",
    "n_rows",
    "n_groups",
]


def _supported() -> str:
    """The metrics with a paired test, from the registry: the ranking metrics (a few named),
    then the others.
    """
    paired = [s for s in REGISTRY.values() if s.inference.paired and s.output == "scalar"]
    ranking = [metric_form(s) for s in paired if s.kernel == "ranking_kernel"]
    others = [metric_form(s) for s in paired if s.kernel != "ranking_kernel"]
    shown = f"the ranking metrics ({', '.join(ranking[:5])}, ...)" if ranking else ""
    return ", ".join([shown, *others] if shown else others)


@dataclass
class _Task:
    """One requested metric with its test."""

    index: int
    request: Request
    kind: str
    test: str


def run_compare(a: CompareCall) -> pd.DataFrame:
    """The body of :func:`compare`, its arguments in ``a``."""
    options = a.options
    _check_settings(a.test, a.correction, a.ci, a.n_boot, a.n_permutations, a.seed)
    where = check_where("compare", a.where)
    if "zero_division" in options:
        raise InvalidParameterError(
            "compare: zero_division= is not used by compare: an undefined value is NaN with "
            "an UndefinedMetricWarning, and so is its test; leave zero_division= out"
        )
    if a.runs is not None:
        if a.data is not None or a.scores is not None:
            raise InvalidParameterError(
                "compare: runs= and data=/scores= both given; compare runs (runs={'a': run_a, "
                "'b': run_b}) or the score columns of one table (data, scores=[...]), not both"
            )
        models = _models(
            "runs", list(a.runs) if isinstance(a.runs, Mapping) else a.runs, a.baseline
        )
    else:
        if a.data is None:
            raise InvalidParameterError(
                "compare: no data; pass a table with one score column per model "
                "(compare(data, metrics, scores=['model_a', 'model_b'])) or runs={...}"
            )
        models = _models("scores", a.scores, a.baseline)
    columns: dict[str, str | None] = {
        "label": a.label,
        "score": a.score if a.runs is not None else models[0],
        "weight": a.weight,
        "group": a.group,
        "item": a.item,
        "prediction": None,
        "group_weight": a.group_weight,
    }
    if a.convention is not None:
        options = {**options, "convention": a.convention}
    plan = make_plan("compare", a.metrics, columns, a.by, a.qrels is not None, options)
    tasks = _tasks(plan.requests, a.test)
    if a.weight is not None:
        # weight= on a TF-Ranking-weighted ranking mean: its group tests weigh each group by
        # the list weight W_g (times group_weight=), as the metric does
        bad = [
            t.request.text
            for t in tasks
            if t.test != "bootstrap" and t.request.spec.inference.item_weights != "list"
        ]
        if bad:
            raise InvalidParameterError(
                f"compare: weight={a.weight!r} is used by test='bootstrap' only; "
                f"{', '.join(map(repr, bad))} use(s) an unweighted test: leave weight= out, "
                f"or compare the threshold metrics with test='bootstrap'"
            )
    for name in ("empty", "missing"):
        if plan.options.get(name) == "error":
            raise InvalidParameterError(
                f"compare: {name}='error' is not supported by compare; pass {name}='skip' "
                f"(the default) or 'zero', or check the groups with evaluate first"
            )
    settings = _Settings(a.ci, a.n_boot, a.n_permutations, a.seed)
    if a.runs is not None:
        kept = {name: filtered(run, where) for name, run in dict(a.runs).items()}
        frames = _run_runs(plan, tasks, models, kept, a.qrels, a.con, settings)
    else:
        frames = _run_table(plan, tasks, models, filtered(a.data, where), a.qrels, a.con, settings)
    return _assemble(plan, tasks, models, frames, a.correction, settings)


@dataclass(frozen=True)
class _Settings:
    ci: float
    n_boot: int
    n_permutations: int
    seed: int


def _check_settings(
    test: Any, correction: Any, ci: Any, n_boot: Any, n_permutations: Any, seed: Any
) -> None:
    if test is not None and test not in ALL_TESTS:
        hint = [_SYNONYMS[test]] if isinstance(test, str) and test in _SYNONYMS else []
        hint = hint or difflib.get_close_matches(str(test), ALL_TESTS, n=1)
        near = f"; did you mean {hint[0]!r}?" if hint else ""
        raise InvalidParameterError(
            f"compare: unknown test={test!r}; tests: {', '.join(map(repr, ALL_TESTS))}, or "
            f"None for each metric's default{near}"
        )
    if correction not in CORRECTIONS:
        raise InvalidParameterError(
            f"compare: correction= must be one of {', '.join(map(repr, CORRECTIONS))}; "
            f"got {correction!r}"
        )
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not (0 < float(ci) < 1):
        raise InvalidParameterError(
            f"compare: ci= must be a number in (0, 1), e.g. 0.95; got {ci!r}"
        )
    PARAMS["n_boot"].validate("compare", n_boot)
    check_n_permutations("compare", "n_permutations", n_permutations)
    PARAMS["seed"].validate("compare", seed)


def _models(arg: str, names: Any, baseline: str | None) -> list[str]:
    """The models, baseline first, the others in the given order."""
    if isinstance(names, str) or names is None:
        names = [] if names is None else [names]
    names = list(names)
    if not all(isinstance(n, str) and n for n in names):
        raise InvalidParameterError(
            f"compare: {arg}= must name the models (non-empty strings); got {names!r}"
        )
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"compare: {arg}= names a model twice: {names!r}")
    if len(names) < 2:
        example = (
            "scores=['model_a', 'model_b']" if arg == "scores" else "runs={'a': run_a, 'b': run_b}"
        )
        raise InvalidParameterError(
            f"compare: {arg}= needs at least two models to compare; got {names!r}; "
            f"pass e.g. {example}"
        )
    if baseline is None:
        baseline = names[0]
    if baseline not in names:
        raise InvalidParameterError(
            f"compare: baseline={baseline!r} is not one of {arg}= ({', '.join(map(repr, names))}); "
            f"pass one of them, or leave baseline= out for the first"
        )
    return [baseline, *(n for n in names if n != baseline)]


def _tasks(requests: Sequence[Request], test: str | None) -> list[_Task]:
    tasks = []
    for i, req in enumerate(requests):
        kind = req.spec.inference.paired
        if kind is None:
            raise InvalidParameterError(
                f"compare: no paired test for {req.text!r}; compare supports {_supported()}"
            )
        allowed = req.spec.inference.tests
        if test is not None and test not in allowed:
            raise InvalidParameterError(
                f"compare: test={test!r} does not apply to {req.text!r}; tests that apply: "
                f"{', '.join(map(repr, allowed))} (default {allowed[0]!r}); compare the "
                f"metrics in separate calls, or leave test= out for each metric's default"
            )
        tasks.append(_Task(i, req, kind, test or allowed[0]))
    return tasks


# --------------------------------------------------------------------------- SQL per family
def _metric_options(requests: Sequence[Request], options: Mapping[str, Any]) -> dict[str, Any]:
    """The checked options of ``requests`` (as one kernel call of evaluate sees them)."""
    checked: dict[str, Any] = {}
    for req in requests:
        params = {name: options[name] for name in req.spec.params if name in options}
        params.update(req.params)  # what its name fixes (ir_measures' names)
        if req.spec.takes_k:
            params["k"] = req.k
        params.pop("zero_division", None)
        checked.update({k: v for k, v in check_params(req.spec, params).items() if k != "k"})
    return checked


def _roles(
    spec: MetricSpec, columns: Mapping[str, str | None], has_qrels: bool, dialect: str
) -> dict[str, str | None]:
    roles: dict[str, str | None] = {}
    for role in spec.roles:
        col = columns.get(role.name)
        if has_qrels and spec.kernel == "ranking_kernel" and role.name == "label":
            col = None  # judged by qrels
        roles[role.name] = quote_ident(col, dialect) if col else None
    return roles


def _group_sql(
    tasks: Sequence[_Task],
    relations: Sequence[str],
    score_columns: Sequence[str],
    plan: Plan,
    qrels_sql: str | None,
    settings: _Settings,
    dialect: str,
    weights: str | None,
) -> str:
    """One statement for the group tests of ``tasks`` (one kernel, one test)."""
    requests = [t.request for t in tasks]
    spec = requests[0].spec
    kernel = str(spec.kernel)
    options = _metric_options(requests, plan.options)
    group = str(plan.columns["group"])
    entries = [entry(req.spec, f"m{i}", req.k) for i, req in enumerate(requests)]
    extra = None
    if qrels_sql is not None:
        extra = {
            "qrels": (qrels_sql, {role: plan.columns[role] for role in ("group", "item", "label")})
        }
    parts = []
    for relation, score in zip(relations, score_columns):
        cols = dict(plan.columns, score=score)
        if _list_weighted(tasks):  # the per-group values are unweighted (W_g in `weights`)
            cols["weight"] = None
        roles: dict[str, str | None] = {}
        for req in requests:
            roles.update(_roles(req.spec, cols, qrels_sql is not None, dialect))
        parts.append(
            kernel_sql(
                kernel, relation, [*plan.by, group], roles, options, entries, extra, dialect=dialect
            ).strip()
        )
    return render_macro(
        "compare_groups",
        parts,
        [quote_ident(b, dialect) for b in plan.by],
        len(requests),
        weights,
        tasks[0].test,
        settings.n_permutations,
        settings.seed,
        dialect=dialect,
    )


def _run_table(
    plan: Plan,
    tasks: Sequence[_Task],
    models: Sequence[str],
    data: Any,
    qrels: Any,
    con: Any,
    settings: _Settings,
) -> dict[str, Any]:
    """Every family's statement over one table with a score column per model."""
    used = [(r, c) for r, c in plan.used if r.name != "score"]
    kind = "probability" if any(t.kind == "losses" for t in tasks) else "score"
    score_roles = [(Role("score", kind), m) for m in models]
    extra_sources: dict[str, tuple[Any, list[tuple[Role, str]]]] = {}
    if qrels is not None:
        roles = _qrels_roles(plan)
        extra_sources["qrels"] = (qrels, [(r, str(plan.columns[r.name])) for r in roles])
    frames: dict[str, Any] = {}
    with open_plan("compare", plan, data, con, extra_sources, used) as (backend, source, extra):
        check_columns("compare", source, [("scores", m) for m in models])
        _check_nulls(backend, source, models)
        validate_data("compare", source, score_roles)
        dialect = backend.dialect
        by = [quote_ident(b, dialect) for b in plan.by]
        qrels_sql = extra["qrels"][0] if "qrels" in extra else None
        _check_data(plan, backend, source.sql, qrels_sql)
        frames["rows"] = backend.query(
            render_macro("compare_slice_rows", source.sql, by, dialect=dialect)
        )
        scores = [quote_ident(m, dialect) for m in models]
        for key, group_tasks in _group_batches(tasks).items():
            weights = None
            if plan.columns.get("weight") and _list_weighted(group_tasks):
                # weight=: TF-Ranking's list weights (times group_weight=), the intervals'
                group_weight = plan.columns.get("group_weight")
                tfr = render_macro(
                    "ci_group_weights",
                    source.sql,
                    by,
                    quote_ident(str(plan.columns["group"]), dialect),
                    "tfr",
                    quote_ident(str(plan.columns["label"]), dialect),
                    {
                        "relevance_level": plan.options.get("relevance_level", 1),
                        "weight_column": quote_ident(str(plan.columns["weight"]), dialect),
                        "group_weight_column": (
                            quote_ident(str(group_weight), dialect) if group_weight else None
                        ),
                    },
                    dialect=dialect,
                )
                weights = (
                    f"select tfr_weights.*, tfr_weights.v as w from (\n{tfr}\n) as tfr_weights"
                )
            elif plan.columns.get("group_weight"):  # ranking: each group's own weight
                weights = render_macro(
                    "compare_group_weights",
                    source.sql,
                    by,
                    {
                        "group": quote_ident(str(plan.columns["group"]), dialect),
                        "group_weight": quote_ident(str(plan.columns["group_weight"]), dialect),
                    },
                    {},
                    dialect=dialect,
                )
            elif group_tasks[0].request.spec.inference.group_weights == "weighting":
                weights = render_macro(
                    "compare_group_weights",
                    source.sql,
                    by,
                    {
                        "group": quote_ident(str(plan.columns["group"]), dialect),
                        "label": quote_ident(str(plan.columns["label"]), dialect),
                    },
                    _metric_options([group_tasks[0].request], plan.options),
                    dialect=dialect,
                )
            sql = _group_sql(
                group_tasks,
                [source.sql] * len(models),
                models,
                plan,
                qrels_sql,
                settings,
                dialect,
                weights,
            )
            frames[key] = backend.query(sql)
        _run_row_tests(plan, tasks, backend, source, by, scores, settings, frames)
    return frames


def _list_weighted(tasks: Sequence[_Task]) -> bool:
    """Whether ``tasks`` (one kernel's group tests) are ranking means whose weight= is
    TF-Ranking's per-list weight (the specs' ``inference.item_weights``).
    """
    return bool(tasks) and all(t.request.spec.inference.item_weights == "list" for t in tasks)


def _batch_key(task: _Task) -> str:
    """``groups:<kernel>:<options its name fixes>:<test>``: metrics whose names fix different
    options (``P(rel=2)@5``, ``nDCG@10``) need separate kernel calls; the test comes last.
    """
    fixed = repr(sorted(task.request.params.items()))
    return f"groups:{task.request.spec.kernel}:{fixed}:{task.test}"


def _group_batches(tasks: Sequence[_Task]) -> dict[str, list[_Task]]:
    """Group-test tasks batched by (kernel, test): one statement each."""
    batches: dict[str, list[_Task]] = {}
    for task in tasks:
        if task.kind == "groups":
            key = _batch_key(task)
            batches.setdefault(key, []).append(task)
    return batches


def _run_row_tests(
    plan: Plan,
    tasks: Sequence[_Task],
    backend: Any,
    source: Source,
    by: list[str],
    scores: list[str],
    settings: _Settings,
    frames: dict[str, Any],
) -> None:
    dialect = backend.dialect
    label = quote_ident(str(plan.columns["label"]), dialect)
    weight = plan.columns["weight"]
    if any(t.kind == "delong" for t in tasks):
        placed = next(t for t in tasks if t.kind == "delong")
        options = _metric_options([placed.request], plan.options)
        sql = render_macro(
            "compare_delong",
            source.sql,
            by,
            {"label": label, "scores": scores},
            options,
            len(scores),
            dialect=dialect,
        )
        frames["delong"] = backend.query(sql)
    losses = [t for t in tasks if t.kind == "losses"]
    if losses:
        names = sorted({str(t.request.spec.inference.loss) for t in losses})
        frames["losses"] = backend.query(
            render_macro(
                "compare_losses",
                source.sql,
                by,
                {"label": label, "scores": scores},
                _metric_options([t.request for t in losses], plan.options),
                names,
                len(scores),
                dialect=dialect,
            )
        )
    threshold = [t for t in tasks if t.kind == "confusion"]
    if not threshold:
        return
    options = _metric_options([t.request for t in threshold], plan.options)
    columns = {
        "label": label,
        "scores": scores,
        "weight": quote_ident(weight, dialect) if weight else None,
    }

    def run(macro: str, picked: list[_Task], *more: Any) -> Any:
        """``macro`` over the confusion counts of the ``picked`` metrics (m0, m1, ...)."""
        entries = [{"alias": f"m{t.index}", "metric": t.request.spec.name} for t in picked]
        sql = render_macro(
            macro, source.sql, by, columns, options, entries, len(scores), *more, dialect=dialect
        )
        return backend.query(sql)

    frames["confusion"] = run("compare_confusion", threshold)
    boot = [t for t in threshold if t.test == "bootstrap"]
    if boot:
        frame = run("compare_bootstrap", boot, settings.n_boot, settings.seed, settings.ci)
        # the bootstrap numbers its metrics 0.. in the order of `boot`
        frame["metric"] = [boot[int(i)].index for i in frame["metric"]]
        frames["bootstrap"] = frame


def _check_nulls(backend: Any, source: Source, models: Sequence[str]) -> None:
    """Every model scores every row: a NULL score means the models were run on different rows."""
    counts = ", ".join(f"count({backend.ident(m)})" for m in models)
    row = backend.rows(f"select count(*), {counts} from {source.sql}")[0]
    total = int(row[0])
    nulls = {m: total - int(c) for m, c in zip(models, row[1:])}
    bad = {m: n for m, n in nulls.items() if n}
    if bad:
        described = "; ".join(
            f"{m!r} has {n} NULL score(s), so scores {total - n} rows" for m, n in bad.items()
        )
        full = [m for m in models if not nulls[m]]
        others = f" while {', '.join(map(repr, full))} score(s) all {total}" if full else ""
        raise InvalidDataError(
            f"compare: the score columns (scores=) cover different rows of the {total}: "
            f"{described}{others}. A paired comparison needs every model to score the same "
            f"rows: drop the rows a model did not score (e.g. where "
            f"{next(iter(bad))} is not null) or compare the models on their common rows"
        )


def _qrels_roles(plan: Plan) -> tuple[Role, ...]:
    """The column roles of ``qrels=``, as the requested metrics' family declares them."""
    return next(c.inputs["qrels"] for c in data_checks(plan.requests) if "qrels" in c.inputs)


def _check_data(plan: Plan, backend: Any, run_sql: str, judged_sql: str | None) -> None:
    """The requested families' checks before the statements (ranking: ``group_weight=``;
    their bounds on the labels were counted with the values, :func:`plan_bounds`).
    """
    for family in data_checks(plan.requests):
        family.before(
            "compare",
            backend,
            run_sql,
            judged_sql,
            plan.columns,
            plan.options,
            plan.requests,
            False,  # no TieOrderWarning: compare reports no ranx values
        )


def _run_runs(
    plan: Plan,
    tasks: Sequence[_Task],
    models: Sequence[str],
    runs: dict[str, Any],
    qrels: Any,
    con: Any,
    settings: _Settings,
) -> dict[str, Any]:
    """The group tests over several ranking runs, paired on their groups."""
    bad = [t.request.text for t in tasks if t.request.spec.kernel != "ranking_kernel"]
    if bad:
        raise InvalidParameterError(
            f"compare: runs= compares ranking runs; {', '.join(map(repr, bad))} is not a "
            f"ranking metric: compare it on one table with a score column per model (scores=)"
        )
    if plan.columns.get("group_weight"):
        raise InvalidParameterError(
            "compare: group_weight= is not supported with runs= (each run would need its own "
            "weight column, and they could disagree); compare the runs' score columns on one "
            "table (scores=) with group_weight="
        )
    if plan.by:
        raise InvalidParameterError(
            f"compare: by={plan.by!r} is not supported with runs= (the runs' rows may slice "
            f"differently); filter each run to the slice and compare per slice"
        )
    columns = plan.columns
    run_roles: list[tuple[Role, str]] = [
        (Role("group", "key"), str(columns["group"])),
        (Role("item", "key"), str(columns["item"])),
        (Role("score", "score"), str(columns["score"])),
    ]
    if qrels is None:
        run_roles.append((Role("label", "relevance"), str(columns["label"])))
    extra_sources: dict[str, tuple[Any, list[tuple[Role, str]]]] = {
        f"runs[{name!r}]": (runs[name], run_roles) for name in models[1:]
    }
    if qrels is not None:
        extra_sources["qrels"] = (qrels, [(r, str(columns[r.name])) for r in _qrels_roles(plan)])
    frames: dict[str, Any] = {}
    with open_checked(
        "compare",
        runs[models[0]],
        con,
        columns,
        run_roles,
        [],
        ("group", "item"),
        extra_sources,
        duplicates=plan.options.get("duplicates", "error"),
        bounds=plan_bounds("compare", plan),
    ) as (backend, source, extra):
        dialect = backend.dialect
        relations = [source.sql, *(extra[f"runs[{name!r}]"][0] for name in models[1:])]
        g = backend.ident(str(columns["group"]))
        _check_same_groups(backend, models, relations, g)
        if qrels is not None:
            qrels_sql = extra["qrels"][0]
        else:
            qrels_sql = _judged_union(backend, relations, columns, models)
        _check_data(plan, backend, qrels_sql, qrels_sql)
        for key, group_tasks in _group_batches(tasks).items():
            frames[key] = backend.query(
                _group_sql(
                    group_tasks,
                    relations,
                    [str(columns["score"])] * len(models),
                    plan,
                    qrels_sql,
                    settings,
                    dialect,
                    None,
                )
            )
    return frames


def _check_same_groups(
    backend: Any, models: Sequence[str], relations: Sequence[str], g: str
) -> None:
    base = relations[0]
    for name, relation in zip(models[1:], relations[1:]):
        row = backend.rows(
            f"select "
            f"(select count(distinct {g}) from {base}), "
            f"(select count(distinct {g}) from {relation}), "
            f"(select count(distinct a.{g}) from {base} as a where not exists "
            f"(select 1 from {relation} as b where b.{g} = a.{g})), "
            f"(select count(distinct b.{g}) from {relation} as b where not exists "
            f"(select 1 from {base} as a where a.{g} = b.{g}))"
        )[0]
        n_base, n_run, lacks, extra = (int(v) for v in row)
        if lacks or extra:
            parts = []
            if lacks:
                parts.append(
                    f"run {name!r} lacks {lacks} of the {n_base} groups of run {models[0]!r}"
                )
            if extra:
                parts.append(
                    f"run {name!r} has {extra} of its {n_run} groups that run {models[0]!r} lacks"
                )
            raise InvalidDataError(
                f"compare: {' and '.join(parts)}; runs are paired on their groups, so every "
                f"run must rank the same groups: keep the groups common to all runs (or add the "
                f"missing groups' results)"
            )


def _judged_union(
    backend: Any, relations: Sequence[str], columns: Mapping[str, str | None], models: Sequence[str]
) -> str:
    """The judgments of runs without qrels: the union of their (group, item, label) rows."""
    g, i, lab = (backend.ident(str(columns[r])) for r in ("group", "item", "label"))
    union = "\nunion\n".join(f"select {g}, {i}, {lab} from {r}" for r in relations)
    judged = f"(\n{union}\n) as compare_judged"
    row = backend.rows(
        f"select count(*) from (select {g}, {i} from {judged} group by {g}, {i} "
        f"having count(*) > 1) as conflicts"
    )[0]
    if int(row[0]):
        raise InvalidDataError(
            f"compare: the runs ({', '.join(map(repr, models))}) give different labels "
            f"(label=) to {int(row[0])} (group, item) pair(s); the runs' labels are the "
            f"judgments, so they must agree: pass the judgments as qrels= instead"
        )
    return judged


# --------------------------------------------------------------------------- statistics
def _holm(ps: list[float]) -> list[float]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out = [math.nan] * len(ps)
    running = 0.0
    m = len(ps)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def _adjust(ps: list[float], correction: str) -> list[float]:
    valid = [i for i, p in enumerate(ps) if not math.isnan(p)]
    values = [ps[i] for i in valid]
    if correction == "holm":
        adjusted = _holm(values)
    elif correction == "bonferroni":
        adjusted = [min(1.0, p * len(values)) for p in values]
    else:
        adjusted = values
    out = [math.nan] * len(ps)
    for i, p in zip(valid, adjusted):
        out[i] = p
    return out


def mcnemar_p(n10: int, n01: int) -> float:
    """McNemar's two-sided p-value: exact binomial below 25 discordant rows, else chi^2 with
    the continuity correction (statsmodels' conventions).
    """
    nd = n10 + n01
    if nd == 0:
        return 1.0
    if nd < MCNEMAR_EXACT_BELOW:
        low = min(n10, n01)
        tail = sum(math.comb(nd, i) for i in range(low + 1)) / 2.0**nd
        return min(1.0, 2.0 * tail)
    chi2 = (abs(n10 - n01) - 1) ** 2 / nd
    return math.erfc(math.sqrt(chi2 / 2.0))


def _t_result(d: float, ss: float, n: int, sw: float, ci: float) -> tuple[float, float, float]:
    """(lo, hi, p) of the paired t-test from the group sums."""
    if n < 2:
        return math.nan, math.nan, math.nan
    se = math.sqrt(max(ss, 0.0) * n / (n - 1)) / sw
    if se == 0:
        return d, d, 1.0 if d == 0 else 0.0
    q = two_sided_t(ci, n - 1)
    return d - q * se, d + q * se, t_two_sided_p(d / se, n - 1)


def _wilcoxon_p(n: int, w_plus: float, tie: float) -> float:
    if n == 0:
        return math.nan
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - tie / 48.0
    if var <= 0:
        return math.nan
    z = (w_plus - mean) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2.0))


def _num(value: Any) -> float:
    import pandas as pd

    return math.nan if value is None or pd.isna(value) else float(value)


# --------------------------------------------------------------------------- assembling
def _slice_key(row: Any, nb: int) -> tuple[Any, ...]:
    import pandas as pd

    return tuple(None if pd.isna(row[f"slice_{i}"]) else row[f"slice_{i}"] for i in range(nb))


def _assemble(
    plan: Plan,
    tasks: Sequence[_Task],
    models: Sequence[str],
    frames: dict[str, Any],
    correction: str,
    settings: _Settings,
) -> pd.DataFrame:
    nb = len(plan.by)
    z = two_sided_normal
    out: dict[tuple[Any, ...], dict[tuple[int, int], dict[str, Any]]] = {}
    slice_rows: dict[tuple[Any, ...], int] = {}
    if "rows" in frames:
        for _, row in frames["rows"].iterrows():
            slice_rows[_slice_key(row, nb)] = int(row["n_rows"])

    def put(key: tuple[Any, ...], i: int, j: int, **values: Any) -> None:
        out.setdefault(key, {})[(i, j)] = values

    ci = settings.ci
    # group tests
    for name, frame in frames.items():
        if not name.startswith("groups:"):
            continue
        test = name.rsplit(":", 1)[1]
        batch = [t for t in tasks if _batch_key(t) == name]
        for _, row in frame.iterrows():
            key = _slice_key(row, nb)
            task = batch[int(row["metric"])]
            j = int(row["model"])
            n = int(row["n"])
            d, sw, ss = _num(row["d"]), _num(row["sw"]), _num(row["ss"])
            lo, hi, p = _t_result(d, ss, n, sw, ci)
            if test == "randomization":
                p = (1 + int(row["n_extreme"])) / (1 + settings.n_permutations)
            elif test == "wilcoxon":
                p = _wilcoxon_p(int(row["n_nz"]), _num(row["w_plus"]), _num(row["tie"]))
            if key not in out or (task.index, 0) not in out[key]:
                put(key, task.index, 0, value=_num(row["base"]), n_groups=n)
            put(key, task.index, j, value=_num(row["value"]), diff=d, lo=lo, hi=hi, p=p, n_groups=n)
    if "delong" in frames:
        task = next(t for t in tasks if t.kind == "delong")
        for _, row in frames["delong"].iterrows():
            key = _slice_key(row, nb)
            slice_rows[key] = int(row["n_rows"])
            for j, values in enumerate(_delong(row, len(models), ci, z)):
                put(key, task.index, j, **values)
    if "confusion" in frames:
        boot = {}
        if "bootstrap" in frames:
            for _, row in frames["bootstrap"].iterrows():
                boot[(_slice_key(row, nb), int(row["metric"]), int(row["model"]))] = row
        for _, row in frames["confusion"].iterrows():
            key = _slice_key(row, nb)
            slice_rows[key] = int(row["n_rows"])
            j = int(row["model"])
            for task in tasks:
                if task.kind != "confusion":
                    continue
                value = _num(row[f"m{task.index}"])
                if j == 0:
                    put(key, task.index, 0, value=value)
                    continue
                if task.test == "mcnemar":
                    n, n10, n01 = int(row["n_rows"]), int(row["n10"]), int(row["n01"])
                    d = (n01 - n10) / n
                    se = math.sqrt(max(n01 + n10 - (n01 - n10) ** 2 / n, 0.0)) / n
                    q = z(ci)
                    p = mcnemar_p(n10, n01)
                    put(key, task.index, j, value=value, diff=d, lo=d - q * se, hi=d + q * se, p=p)
                else:
                    put(
                        key, task.index, j, value=value, **_boot(boot.get((key, task.index, j)), ci)
                    )
    if "losses" in frames:
        for _, row in frames["losses"].iterrows():
            key = _slice_key(row, nb)
            slice_rows[key] = int(row["n_rows"])
            for task in tasks:
                if task.kind == "losses":
                    for j, values in enumerate(_losses(row, task, len(models), ci)):
                        put(key, task.index, j, **values)
    for key in list(slice_rows):
        out.setdefault(key, {})
    return _frame(plan, tasks, models, out, slice_rows, correction)


def _delong(row: Any, n_models: int, ci: float, z: Any) -> list[dict[str, Any]]:
    p_count, n_count = int(row["n_pos"]), int(row["n_neg"])
    if p_count == 0 or n_count == 0:
        return [{"value": math.nan} for _ in range(n_models)]
    pn = float(p_count) * float(n_count)
    auc = [_num(row[f"sa{k}"]) / pn for k in range(n_models)]
    results: list[dict[str, Any]] = [{"value": auc[0]}]
    for k in range(1, n_models):
        d = auc[k] - auc[0]
        if p_count < 2 or n_count < 2:
            results.append(
                {"value": auc[k], "diff": d, "lo": math.nan, "hi": math.nan, "p": math.nan}
            )
            continue

        def cov(sxy: float, sx: float, sy: float, m: int, scale: float) -> float:
            return (sxy - sx * sy / m) / (m - 1) / (scale * scale)

        sa0, sak = _num(row["sa0"]), _num(row[f"sa{k}"])
        # over the negatives: x = n_pos - c has the covariances of c (the SQL's one sort)
        sc0, sck = _num(row["sx0"]), _num(row[f"sx{k}"])
        v10 = (
            cov(_num(row["saa0"]), sa0, sa0, p_count, n_count)
            + cov(_num(row[f"saa{k}"]), sak, sak, p_count, n_count)
            - 2 * cov(_num(row[f"sa0{k}"]), sa0, sak, p_count, n_count)
        )
        v01 = (
            cov(_num(row["sxx0"]), sc0, sc0, n_count, p_count)
            + cov(_num(row[f"sxx{k}"]), sck, sck, n_count, p_count)
            - 2 * cov(_num(row[f"sx0{k}"]), sc0, sck, n_count, p_count)
        )
        var = max(v10 / p_count + v01 / n_count, 0.0)
        se = math.sqrt(var)
        if se == 0 or se < 1e-15 * max(abs(d), 1e-300):
            p = 1.0 if d == 0 else 0.0
        else:
            p = math.erfc(abs(d / se) / math.sqrt(2.0))
        q = z(ci)
        results.append({"value": auc[k], "diff": d, "lo": d - q * se, "hi": d + q * se, "p": p})
    return results


def _losses(row: Any, task: _Task, n_models: int, ci: float) -> list[dict[str, Any]]:
    """Each model's mean loss and the paired t-test of its per-row differences to the
    baseline's (every row a group of weight 1); normalized_entropy divides both by the
    entropy of the slice's base rate, the same for every model (p-value unchanged).
    """
    f = str(task.request.spec.inference.loss)
    n = int(row["n_rows"])
    scale = 1.0
    if task.request.spec.inference.loss_scale == "entropy":
        rate = _num(row["sy"]) / n if n else math.nan
        entropy = (
            -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate)) if 0 < rate < 1 else math.nan
        )
        scale = 1.0 / entropy
    if n == 0 or math.isnan(scale):
        return [{"value": math.nan} for _ in range(n_models)]
    base = _num(row[f"s{f}0"]) / n
    results: list[dict[str, Any]] = [{"value": base * scale}]
    for k in range(1, n_models):
        d = _num(row[f"d{f}{k}"]) / n
        ss = _num(row[f"dd{f}{k}"]) - n * d * d
        lo, hi, p = _t_result(d, ss, n, float(n), ci)
        value = _num(row[f"s{f}{k}"]) / n * scale
        results.append(
            {"value": value, "diff": d * scale, "lo": lo * scale, "hi": hi * scale, "p": p}
        )
    return results


def _boot(row: Any, ci: float) -> dict[str, Any]:
    if row is None or int(row["n_def"]) == 0:
        return {"lo": math.nan, "hi": math.nan, "p": math.nan}
    n = int(row["n_def"])
    bounds = []
    for name, q in (("lo", (1 - ci) / 2), ("hi", (1 + ci) / 2)):
        h = (n - 1) * q
        a, b = _num(row[f"{name}_a"]), _num(row[f"{name}_b"])
        frac = h - math.floor(h)
        bounds.append(a if math.isnan(b) or frac == 0 else a + frac * (b - a))
    p = min(1.0, 2.0 * (1 + min(int(row["n_le"]), int(row["n_ge"]))) / (n + 1))
    return {"lo": bounds[0], "hi": bounds[1], "p": p}


def _frame(
    plan: Plan,
    tasks: Sequence[_Task],
    models: Sequence[str],
    out: dict[tuple[Any, ...], dict[tuple[int, int], dict[str, Any]]],
    slice_rows: dict[tuple[Any, ...], int],
    correction: str,
) -> pd.DataFrame:
    import pandas as pd

    records: list[dict[str, Any]] = []
    undefined: dict[str, int] = {}
    keys = sorted(out, key=lambda k: tuple((v is None, v) for v in k))
    for key in keys:
        cells = out[key]
        first = len(records)
        for task in tasks:
            for j, model in enumerate(models):
                cell = cells.get((task.index, j), {})
                value = cell.get("value", math.nan)
                if j == 0:
                    diff, lo, hi, p = (0.0, math.nan, math.nan, math.nan)
                else:
                    base = cells.get((task.index, 0), {}).get("value", math.nan)
                    diff = cell.get("diff", value - base)
                    lo, hi, p = (cell.get(x, math.nan) for x in ("lo", "hi", "p"))
                    if math.isnan(p):
                        undefined[task.request.text] = undefined.get(task.request.text, 0) + 1
                n_groups = cell.get("n_groups")
                records.append(
                    {
                        **{f"slice_{i}": v for i, v in enumerate(key)},
                        "metric": task.request.text,
                        "model": model,
                        "value": value,
                        "diff": diff,
                        "diff_lo": lo,
                        "diff_hi": hi,
                        "p_value": p,
                        "p_adjusted": math.nan,
                        "test": task.test,
                        "n_rows": slice_rows.get(key),
                        "n_groups": n_groups if task.kind == "groups" else None,
                    }
                )
        ps = [r["p_value"] for r in records[first:]]
        for r, p in zip(records[first:], _adjust(ps, correction)):
            r["p_adjusted"] = p
    for metric, count in undefined.items():
        warn(
            f"compare: the test of {metric} is undefined in {count} (slice, model) "
            f"comparison(s) (one class, fewer than two groups, or no defined value); NaN there",
            UndefinedMetricWarning,
        )
    slices = [f"slice_{i}" for i in range(len(plan.by))]
    frame = pd.DataFrame.from_records(records, columns=[*slices, *COLUMNS])
    for col in ("n_rows", "n_groups"):
        frame[col] = frame[col].astype("Int64")
    for col in ("value", "diff", "diff_lo", "diff_hi", "p_value", "p_adjusted"):
        frame[col] = frame[col].astype("float64")
    return frame.rename(columns={s: b for s, b in zip(slices, plan.by)})


API = (
    entry_point(
        "compare",
        takes=(
            "data",
            "metrics",
            "scores",
            "runs",
            "baseline",
            "label",
            "score",
            "group",
            "item",
            "qrels",
            "by",
            "weight",
            "group_weight",
            "test",
            "correction",
            "ci",
            "n_boot",
            "n_permutations",
            "seed",
            "convention",
            "where",
            "con",
            "options",
        ),
        call=run_compare,
        positional=2,
        summary="""
    Compare models to a baseline with a paired test per metric, per slice, in SQL.
    """,
        returns="""
    pandas.DataFrame
        One row per (slice, metric, model), the baseline first in each metric: the slice
        columns, then ``metric``, ``model``, ``value`` (the metric), ``diff`` (value minus
        the baseline's; 0 for the baseline), ``diff_lo``, ``diff_hi`` (interval of the
        difference at level ``ci``), ``p_value`` (two-sided; NaN for the baseline),
        ``p_adjusted``, ``test``, ``n_rows`` (rows of the slice; NA with ``runs=``) and
        ``n_groups`` (groups paired by a group test; NA for the others).
    """,
        raises="""
    InvalidParameterError
        Fewer than two models, a baseline not among them, an unknown test or one that does
        not apply to a metric (the message lists those that do), an unsupported metric,
        ``ci`` outside (0, 1), ``n_boot`` or ``n_permutations`` below 10, a bad ``seed``.
    InvalidDataError
        Score columns with NULLs (the models score different rows), runs with different
        groups or conflicting labels, and the errors of :func:`evaluate`.
    """,
        warns="""
    UndefinedMetricWarning
        A metric or a test undefined in a slice (one class, fewer than two groups): NaN.
    """,
        notes="""
    Tests (all two-sided; ``diff`` is model minus baseline). Every float sum they take is an
    exact sum (decision 0006), so the output has the same bits under any row order and thread
    count:

    - ``t``: per group g both models' values, d_g their difference; t = mean(d) / se with
      se^2 = s^2(d) / n, n - 1 degrees of freedom (scipy's ``ttest_rel``, ranx's ``t-test``).
      GAUC weighs each group by its GAUC weight w_g: mean = sum w d / sum w and
      se^2 = n / (n - 1) sum w^2 (d - mean)^2 / (sum w)^2 (equal to the above for w = 1).
      The interval is mean ± t_{(1+ci)/2, n-1} se, also for the two tests below.
      A constant difference (se = 0) gives p = 1 if it is 0, else 0.
      log_loss, brier_score and normalized_entropy: the same test with every row a group
      of weight 1, d_i the difference of the row's losses (log_loss's clipped term, or
      (p - label)^2), so ``ttest_rel`` over the rows' losses; normalized_entropy divides the
      values, the difference and its interval by the entropy of the slice's base rate (the
      same for every model: the p-value is log_loss's). No weights.
    - ``randomization``: the mean difference under ``n_permutations`` sign flips per group,
      sign_flip(key_hash(group), b, seed) (``sql/_macros/inference/resample.sql``);
      p = (1 + #{b: |mean_b| >= |mean|}) / (1 + n_permutations), ``>=`` with a slack of
      1e-9 sum |w d| for float sums added in another order.
    - ``wilcoxon``: signed-rank test over the non-zero d_g (|d_g| rounded to 1e-12 so that
      equal differences tie), average ranks for ties, normal approximation with the tie
      correction and no continuity correction (scipy's ``wilcoxon(zero_method="wilcox",
      correction=False, method="approx")``). Unweighted, also for GAUC.
    - ``delong``: DeLong, DeLong & Clarke-Pearson (1988): the covariance of the two AUCs
      from the models' placement values (one window sort per model, ties count 1/2);
      z = diff / se, the interval diff ± z_{(1+ci)/2} se. No weights.
    - ``mcnemar``: n10 rows the baseline classifies right and the model wrong, n01 the
      reverse. Fewer than 25 discordant rows: the exact binomial test,
      p = min(1, 2 P(Bin(n10 + n01, 1/2) <= min(n10, n01))) (statsmodels' ``mcnemar(exact=
      True)``); else chi^2 = (|n10 - n01| - 1)^2 / (n10 + n01) with 1 degree of freedom
      (``exact=False, correction=True``). Interval: Wald's for a paired difference of
      proportions, diff ± z se, se = sqrt(n01 + n10 - (n01 - n10)^2 / n) / n. No weights.
    - ``bootstrap``: ``n_boot`` Poisson(1) replicates of the rows, each row's weight the
      same for every model (a paired resample; weights by key, replicate and seed,
      ``sql/_macros/inference/resample.sql``); the interval is the percentile interval of the
      replicates' differences (linear interpolation, numpy's default) and
      p = min(1, 2 min(#{d_b <= 0}, #{d_b >= 0}) / B) over the B replicates where both
      values are defined.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [1, 0, 1, 0, 1, 0, 1, 0],
    ...                    "a": [.9, .8, .7, .6, .5, .4, .3, .2],
    ...                    "b": [.9, .1, .8, .2, .7, .3, .6, .4]})
    >>> out = sqlmetrics.compare(df, ["auc", "accuracy"], scores=["a", "b"])
    >>> out[["metric", "model", "value", "diff", "test"]]
         metric model  value   diff     test
    0       auc     a  0.625  0.000   delong
    1       auc     b  1.000  0.375   delong
    2  accuracy     a  0.625  0.000  mcnemar
    3  accuracy     b  1.000  0.375  mcnemar
    """,
        own=args(
            """
    data : str, path, DataFrame, pyarrow.Table, duckdb.DuckDBPyRelation or ibis.Table, optional
        One table holding a score column per model (``scores=``), as :func:`evaluate` takes
        it. Leave it out with ``runs=``.
    metrics : str or list of str
        Metric names as :func:`evaluate` takes them. Supported: the ranking metrics
        (``"ndcg@10"``, ``"map@10"``, ``"mrr"``, ``"precision@5"``, ...), ``"gauc"``,
        ``"auc"``, ``"accuracy"`` and the other threshold metrics (``"precision"``,
        ``"recall"``, ``"f1"``, ``"fbeta"``, ``"specificity"``, ``"fpr"``).
    scores : list of str
        The models' score columns of ``data``, at least two.
    runs : dict of str to data, optional
        Ranking runs to compare instead of ``scores=``: ``{"name": run, ...}``, each run a
        table with ``group=``, ``item=``, ``score=`` columns (and ``label=`` without
        ``qrels=``). Runs are paired on their groups, which must be the same in every run.
        An item one run lists and another does not is not retrieved by the latter. Without
        ``qrels=`` the judgments are the union of the runs' (group, item, label) rows, which
        must agree.
    baseline : str, optional
        The model every other one is compared to: one of ``scores`` (or a run's name);
        default the first.
    label, score, group, item, qrels, weight, group_weight :
        As in :func:`evaluate`; ``score=`` names the score column of each run (``runs=``).
        ``weight=`` is used by ``test="bootstrap"`` and by the ranking means whose
        ``weight=`` is TF-Ranking's per-list weight (mrr, map, ...: their group tests weigh
        each group by it). ``group_weight=`` (ranking, one table, not ``runs=``): the group
        tests weigh each group by it, as GAUC's weighting (a group of weight 0 leaves the
        test).
    by : str or list of str, optional
        Slice columns: one comparison per slice (not with ``runs=``).
    test : str, optional
        The test, for every requested metric; default each metric's own:
        ``"t"`` (paired t-test over per-group values; ranking metrics and GAUC; also
        ``"randomization"`` and ``"wilcoxon"``), ``"delong"`` (AUC), ``"mcnemar"``
        (accuracy; also ``"bootstrap"``), ``"bootstrap"`` (the other threshold metrics),
        ``"t"`` over rows (log_loss, brier_score, normalized_entropy).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        Multiple-comparison correction of ``p_adjusted``, over every non-baseline
        (metric, model) row of a slice.
    ci : float, default 0.95
        Level of the interval of the difference, in (0, 1).
    n_boot : int, default 200
        Bootstrap replicates (``test="bootstrap"``), at least 10.
    n_permutations : int, default 1000
        Sign-flip permutations (``test="randomization"``), at least 10.
    seed : int, default 0
        Seed of the bootstrap weights and sign flips, in [0, 2^31): the same seed gives the
        same p-value on every engine and under any row order.
    convention : str, optional
        Reproduce a tool's definitions (``"trec_eval"``, ``"ranx"``, ...), as in
        :func:`evaluate`: its values fill the options not given.
    where : str, optional
        Keep only the rows where this SQL boolean expression holds, as in :func:`evaluate`:
        of ``data``, or of each run of ``runs=`` (``qrels=`` is not filtered); every model,
        test and interval sees only those rows.
    **options
        Options of the metrics, as in :func:`evaluate` (``threshold``, ``ties``, ...).
    """,
            **(
                ENTRY
                | {
                    "data": ("Any", None),
                    "metrics": ("str | Sequence[str]", ()),
                    "scores": ("Sequence[str] | None", None),
                    "runs": ("Mapping[str, Any] | None", None),
                    "baseline": ("str | None", None),
                    "test": ("str | None", None),
                    "correction": ("str", "holm"),
                    "ci": ("float", 0.95),
                    "n_permutations": ("int", 1000),
                    "convention": ("str | None", None),
                }
            ),
        ),
    ),
)
