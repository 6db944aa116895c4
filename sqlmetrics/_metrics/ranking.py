"""Ranking and recommendation metrics per group: HR, precision/recall@k, MAP, MRR, (N)DCG.

Every metric reads one table of ``group, item, score, label`` rows (graded relevance, 0 = not
relevant), or a run of ``group, item, score`` plus ``qrels=`` judgments ``group, item, label``
that may hold relevant items the run never retrieved. Items are ranked per group by score,
ties broken by a named policy; the definitional choices (tie order, gain, AP denominator, what
happens to groups without a relevant item) are parameters, documented in each template header
under ``sql/ranking/``. The SQL of the whole family is ``sql/_macros/kernels/ranking.sql``.
"""

from __future__ import annotations

import math
import numbers
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .._backends import Backend
from .._core.params import GROUP_WEIGHTS_ZERO, Arg, Function, prose, references, section
from .._core.registry import (
    GROUP_TESTS,
    PARAMS,
    DataChecks,
    Flag,
    Inference,
    MetricSpec,
    Number,
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    get_spec,
    register,
)
from .._engine.run import check_params, compute, undefined
from .._engine.validate import Bound
from .._inference.intervals import CiRequest, Interval, ci_request, ci_result
from ..errors import InvalidDataError, InvalidParameterError, SkippedGroupsWarning, TieOrderWarning
from ..errors import warn as warn_user

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_ranking.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

TIES = ("item_desc", "item_asc", "text_desc", "average")
GAINS = ("exponential", "linear")
EMPTY = ("skip", "zero", "one", "error")
MISSING = ("skip", "zero", "error")
AP_DENOMINATORS = ("relevant", "min_k_relevant", "hits")
DUPLICATES = ("error", "max", "sum")
PRECISION_DENOMINATORS = ("k", "min_k_retrieved")


check_relevance_level = Number(
    "a finite number > 0 (an item is relevant when label >= {name}; trec_eval's -l)",
    low=0,
    low_in=False,
    out="num",
)

declare_param(
    ParamSpec(
        "ties",
        "item_desc",
        check_choice(*TIES),
        "order of equal scores: item_desc | item_asc (the item in its own type: numbers as "
        "numbers) | text_desc (the item as text, byte order, descending: trec_eval) | average "
        "(expected value)",
    )
)
declare_param(
    ParamSpec(
        "gain",
        "exponential",
        check_choice(*GAINS),
        "gain of a label: exponential (2^label - 1) | linear (label)",
    )
)
declare_param(
    ParamSpec(
        "empty",
        "skip",
        check_choice(*EMPTY),
        "groups with no relevant item: skip | zero (count 0; trec_eval) | one (count 1; "
        "torchmetrics 'pos') | error",
    )
)
declare_param(
    ParamSpec(
        "missing",
        "skip",
        check_choice(*MISSING),
        "with qrels, judged groups absent from the run: skip (trec_eval) | zero (count 0; "
        "trec_eval -c) | error",
    )
)
declare_param(
    ParamSpec(
        "relevance_level",
        1,
        check_relevance_level,
        "an item is relevant when label >= relevance_level (trec_eval -l)",
    )
)
declare_param(
    ParamSpec(
        "duplicates",
        "error",
        check_choice(*DUPLICATES),
        "repeated (group, item) rows of the run: error | max (best score, highest label) | "
        "sum (best score, summed labels)",
    )
)


check_judged_only = Flag(
    " (True: with qrels=, the run's items absent from the judgments are removed before "
    "ranking, trec_eval -J)"
)

declare_param(
    ParamSpec(
        "judged_only",
        False,
        check_judged_only,
        "with qrels, remove the run's unjudged items before ranking (condensed list, Sakai "
        "2007; trec_eval -J)",
    )
)


def check_gains(metric: str, name: str, value: Any) -> dict[float, float] | None:
    """``gains=``: None, or a non-empty mapping of integer relevance levels to finite gains,
    returned sorted by level (levels and gains as floats, written into SQL as literals).
    """
    if value is None:
        return None
    fix = "e.g. gains={0: 0, 1: 1, 2: 3} (trec_eval's gain map)"
    if not isinstance(value, Mapping) or not value:
        raise InvalidParameterError(
            f"{metric}: {name}= must be a non-empty mapping of relevance level -> gain, {fix}, "
            f"or None for gain=; got {value!r}"
        )
    out: dict[float, float] = {}
    for level, gain in value.items():
        whole = isinstance(level, numbers.Integral) or (
            isinstance(level, float) and level.is_integer()  # 2.0: an already checked level
        )
        if isinstance(level, bool) or not whole:
            raise InvalidParameterError(
                f"{metric}: {name}= levels must be integers (the labels' relevance levels), "
                f"{fix}; got the level {level!r}"
            )
        if isinstance(gain, bool) or not isinstance(gain, numbers.Real) or not math.isfinite(gain):
            raise InvalidParameterError(
                f"{metric}: {name}= gains must be finite numbers, {fix}; got {gain!r} for "
                f"level {level!r}"
            )
        if abs(int(level)) > 2**53:
            raise InvalidParameterError(
                f"{metric}: {name}= levels must lie within +-2^53 (exact as doubles), {fix}; "
                f"got the level {level!r}"
            )
        out[float(int(level))] = float(gain)
    return dict(sorted(out.items()))


declare_param(
    ParamSpec(
        "gains",
        None,
        check_gains,
        "a gain per relevance level, e.g. {0: 0, 1: 1, 2: 3} (trec_eval's gain map; a level "
        "not in it keeps its label as gain); replaces gain=",
    )
)


check_log_base = Number(
    "a finite number > 1 (the discount is 1 / log_base(position + 1))", low=1, low_in=False
)

declare_param(
    ParamSpec("log_base", 2.0, check_log_base, "base of the DCG discount's logarithm (> 1)")
)
declare_param(
    ParamSpec(
        "precision_denominator",
        "k",
        check_choice(*PRECISION_DENOMINATORS),
        "precision@k divisor: k (trec_eval) | min_k_retrieved (torchmetrics adaptive_k)",
    )
)
declare_param(
    ParamSpec(
        "ap_denominator",
        "relevant",
        check_choice(*AP_DENOMINATORS),
        "AP divisor: relevant (all relevant of the group) | min_k_relevant | hits",
    )
)

GROUP = Role("group", "key")
ITEM = Role("item", "key")
SCORE = Role("score", "score")
# not read from the run when qrels= gives the judgments
LABEL = Role("label", "relevance", required=False)
QRELS_ROLES = (GROUP, ITEM, Role("label", "relevance"))
#: weight=: per-item weights, rax's weighted gains (dcg, ndcg: WEIGHTED_ITEMS)
WEIGHT = Role("weight", "weight", required=False)
#: group_weight=: a weight per group in the mean over groups (GROUP_WEIGHTED)
GROUP_WEIGHT = Role("group_weight", "weight", required=False)
#: the ranking metrics that take weight= (per-item weights, rax's definitions)
WEIGHTED_ITEMS = ("dcg", "ndcg")
#: the means over groups that take weight= (per-item weights) with TF-Ranking's per-list
#: weight (metrics_impl.py, _per_example_weights_to_per_list_weights(weights, relevance)):
#: W_g = sum_i w_i rel_i / sum_i rel_i (rel_i = 1 when label >= relevance_level), a list with no
#: relevant item weighs the mean W_g of the slice's lists that have one (0 when none has), the
#: per-list value is unchanged and the mean over lists is weighted by W_g (times group_weight=
#: when both are given). TF-Ranking weighs MRR, precision, recall, MAP (and ARP, OPA, hits,
#: alpha-DCG, which sqlmetrics has not) this way. The gain metrics cg and idcg are left out
#: (the kernel's gains are rax's weighted gains when dcg/ndcg share the statement).
LIST_WEIGHTED = (
    "bpref", "err", "fallout", "gm_map", "hit_rate", "infap", "iprec_11pt_avg",
    "iprec_at_recall", "judged", "map", "mrr", "precision_at_k", "r_precision", "rbp",
    "recall_at_k", "set_f", "set_precision", "set_recall",
)  # fmt: skip


def inference_of(name: str, inference: Inference) -> Inference:
    """``inference`` with the fact that ``weight=`` is TF-Ranking's per-list weight for
    ``name`` (:data:`LIST_WEIGHTED`), which intervals and compare read from the spec.
    """
    return replace(inference, item_weights="list") if name in LIST_WEIGHTED else inference


#: the ranking metrics that are a mean over groups and take group_weight= (ranking_mean in
#: sql/_macros/kernels/ranking.sql; gm_map: a weighted geometric mean); hit_ratio (a ratio of
#: sums) and the counts (num_q, ...) have no weighted mean here
GROUP_WEIGHTED = (
    "bpref", "cg", "dcg", "err", "fallout", "gm_map", "hit_rate", "idcg", "infap", "iprec_11pt_avg",
    "iprec_at_recall", "judged", "map", "mrr", "ndcg", "precision_at_k", "r_precision", "rbp",
    "recall_at_k", "set_f", "set_precision", "set_recall",
)  # fmt: skip


def ranking_roles(name: str) -> tuple[Role, ...]:
    """The column roles of the ranking kernel's metric ``name``: group, item, score, label,
    and the optional weight (:data:`WEIGHTED_ITEMS`) and group_weight (:data:`GROUP_WEIGHTED`).
    """
    return (
        (GROUP, ITEM, SCORE, LABEL)
        + ((WEIGHT,) if name in WEIGHTED_ITEMS + LIST_WEIGHTED else ())
        + ((GROUP_WEIGHT,) if name in GROUP_WEIGHTED else ())
    )


def check_weights(
    caller: str,
    names: Sequence[str],
    columns: Mapping[str, str | None],
    options: Mapping[str, Any],
    judged: bool,
) -> None:
    """Refuse what weight= and group_weight= cannot do (``names``: the registry names of the
    ranking metrics of the call, ``columns`` role -> user column).
    """
    weight, group_weight = columns.get("weight"), columns.get("group_weight")
    if weight:
        refuse = [n for n in names if n not in WEIGHTED_ITEMS + LIST_WEIGHTED]
        if refuse:
            raise InvalidParameterError(
                f"{caller}: weight= (per-item weights) has no weighted definition for "
                f"{', '.join(refuse)} ({', '.join(WEIGHTED_ITEMS)} weigh the gains as rax; the "
                f"other means over groups weigh each list as TF-Ranking); call those without "
                f"weight=, or weigh whole groups with group_weight="
            )
        if any(n in LIST_WEIGHTED for n in names) and options.get("empty") == "one":
            raise InvalidParameterError(
                f"{caller}: weight= with empty='one' is not supported (an empty group's "
                f"value 1 is added after the mean, without its weight); pass empty='skip' or "
                f"'zero'"
            )
        if judged:
            raise InvalidParameterError(
                f"{caller}: weight= with qrels= is not supported: the ideal DCG reads judged "
                f"items the run never retrieved, which have no weight; put the labels in the "
                f"run (label=) or leave weight= out"
            )
        if options.get("duplicates", "error") != "error":
            raise InvalidParameterError(
                f"{caller}: weight= with duplicates={options.get('duplicates')!r} is not "
                f"supported (merged rows would need a rule for their weight); pass "
                f"duplicates='error' and merge the rows first"
            )
    if group_weight:
        refuse = [n for n in names if n not in GROUP_WEIGHTED]
        if refuse:
            raise InvalidParameterError(
                f"{caller}: group_weight= has no weighted mean for {', '.join(refuse)} (not a "
                f"mean of per-group values); call those without group_weight="
            )
        if options.get("empty") == "one":
            raise InvalidParameterError(
                f"{caller}: group_weight= with empty='one' is not supported (an empty group's "
                f"value 1 is added after the mean, without its weight); pass empty='skip' or "
                f"'zero'"
            )
        if judged and options.get("missing") == "zero":
            raise InvalidParameterError(
                f"{caller}: group_weight= with missing='zero' is not supported (a judged group "
                f"absent from the run has no row, so no weight); pass missing='skip' or 'error'"
            )


def check_group_weight_constant(
    caller: str, backend: Backend, relation: str, group: str, group_weight: str
) -> None:
    """Raise when ``group_weight``'s column is not constant within a group of ``relation``
    (its SQL after ``from``), naming the column and one such group.
    """
    g, w = backend.ident(group), backend.ident(group_weight)
    rows = backend.rows(
        f"select min(grp), count(*) from (select {g} as grp from {relation} group by {g} "
        f"having min({w}) <> max({w})) as varying"
    )
    if rows and rows[0][1]:
        raise InvalidDataError(
            f"{caller}: group_weight column {group_weight!r} is not constant within a group: "
            f"{int(rows[0][1])} group(s) hold several values, e.g. group {rows[0][0]}; a group's "
            f"weight must be one number on every row of the group"
        )


_COMMON = ("relevance_level", "ties", "empty", "missing", "duplicates", "judged_only")


def _check_map_params(metric: str, params: dict[str, Any]) -> None:
    if params.get("ties") == "average" and params.get("ap_denominator") == "hits":
        raise InvalidParameterError(
            f"{metric}: ties='average' has no closed form with ap_denominator='hits' (the "
            f"expectation of a ratio of two random counts); use ties='item_desc' or "
            f"'item_asc', or ap_denominator='relevant' or 'min_k_relevant'"
        )


def _check_hit_ratio_params(metric: str, params: dict[str, Any]) -> None:
    if params.get("empty") == "one":
        raise InvalidParameterError(
            f"{metric}: empty='one' gives an empty group the value 1, but {metric} is a ratio of "
            f"sums over groups with no per-group value; use empty='skip' or 'zero' (the same "
            f"here), or hit_rate / recall_at_k"
        )


_CHECKS = {"map": _check_map_params, "hit_ratio": _check_hit_ratio_params}

_SPECS = {
    # name: (summary, uses k, uses gain, undefined)
    "hit_ratio": ("relevant items in the top k over all relevant items (micro recall; not "
                  "the HR@k of most recommender papers, see hit_rate)", True, False),
    "hit_rate": ("share of groups with a relevant item in the top k (success@k; the HR@k of "
                 "most recommender papers)", True, False),
    "precision_at_k": ("relevant items in the top k / k, mean over groups", True, False),
    "recall_at_k": ("relevant items in the top k / relevant items, mean over groups",
                    True, False),
    "r_precision": ("precision at R = number of relevant items, mean over groups",
                    False, False),
    "map": ("mean average precision at k", True, False),
    "mrr": ("mean reciprocal rank of the first relevant item within k", True, False),
    "cg": ("cumulative gain of the top k, mean over groups", True, True),
    "dcg": ("discounted cumulative gain at k, mean over groups", True, True),
    "idcg": ("ideal DCG at k, mean over groups", True, True),
    "ndcg": ("normalised discounted cumulative gain at k, mean over groups", True, True),
}  # fmt: skip

# what a metric reads from ranking_kernel's shared sort beyond the basics (decision 0007):
# cum = cumulative hits (ap_term, p_first; mrr reads p_first only with ties="average", which
# always has it), n_rel on every ranked row, gain_exp = the group's
# gain exponent on every ranked row, ideal = the ideal ordering
_NEEDS: dict[str, tuple[str, ...]] = {
    "map": ("cum",),
    "r_precision": ("n_rel",),
    "cg": ("gain_exp",),
    "dcg": ("gain_exp",),
    "ndcg": ("gain_exp", "ideal"),
    "idcg": ("ideal",),
}


def _before(
    caller: str,
    backend: Backend,
    run_sql: str,
    judged_sql: str | None,
    columns: Mapping[str, str | None],
    options: Mapping[str, Any],
    requests: Sequence[Any],
    warn_ties: str | None,
) -> None:
    """The ranking checks before a statement of several metrics (:data:`CHECKS`): the
    weights, ``group_weight=`` constant within a group and, under ``convention="ranx"`` (and
    for the values ir_measures takes from ranx), its order of ties (:func:`warn_ranx_ties`).
    The labels' bounds are counted with the values (:func:`_bounds`).
    """
    names = [req.spec.name for req in requests if req.spec.kernel == "ranking_kernel"]
    check_weights(caller, names, columns, options, judged_sql is not None)
    if columns.get("group_weight"):
        group, group_weight = str(columns["group"]), str(columns["group_weight"])
        check_group_weight_constant(caller, backend, run_sql, group, group_weight)
    ranx = [r for r in requests if warn_ties == "ranx" or _ranx_provided(r, warn_ties)]
    if ranx:
        roles = {r: str(columns[r]) for r in ("group", "item", "score", "label")}
        shown = [(f"{caller}: {r.text}", r.spec.name, r.k) for r in ranx]
        warn_ranx_ties(backend, run_sql, judged_sql, roles, dict(options), shown)


def _ranx_provided(request: Any, convention: str | None) -> bool:
    """Whether ir_measures takes this value from ranx: ``nDCG(dcg='exp-log2')`` without a
    cut-off (ranx's order of ties, which :func:`warn_ranx_ties` warns about, then applies).
    """
    return bool(
        convention == "ir_measures"
        and request.spec.name == "ndcg"
        and request.k is None
        and getattr(request, "params", {}).get("gain") == "exponential"
    )


def _after(
    caller: str,
    frame: pd.DataFrame,
    options: Mapping[str, Any],
    judged: bool,
    requests: Sequence[Any],
    warn_skips: bool,
) -> None:
    """The ranking checks of a statement's frame (:data:`CHECKS`): the empty and missing
    groups' policies (:func:`check_groups`) and the default skip's warning
    (:func:`warn_skipped`, one per ranking metric).
    """
    empty = options.get("empty", "skip")
    check_groups(caller, frame, empty, options.get("missing", "skip") if judged else "skip")
    if warn_skips:  # n_groups, n_empty: the ranking part's counts, summed over slices
        for req in requests:
            if req.spec.data_checks is CHECKS:
                warn_skipped(f"{caller}: {req.text}", frame, empty)


def _bounds(caller: str, options: Mapping[str, Any], requests: Sequence[Any]) -> list[Bound]:
    """The labels' bounds of a statement of several metrics (:data:`CHECKS`): the gain
    overflow where a requested metric takes the exponential gain, ERR's ``max_grade``.
    """
    exponential = not options.get("gains") and any(  # a name may fix its own gain
        "gain" in req.spec.params
        and getattr(req, "params", {}).get("gain", options.get("gain", "exponential"))
        == "exponential"
        for req in requests
    )
    graded = any("max_grade" in req.spec.params for req in requests)
    grade = float(options.get("max_grade", PARAMS["max_grade"].default)) if graded else None
    return label_bounds(caller, exponential, grade)


#: the ranking kernel's checks around a statement of several metrics (evaluate)
CHECKS = DataChecks({"qrels": QRELS_ROLES}, _before, _after, _bounds)

#: a mean over groups: the t interval and the cluster bootstrap; compare's group tests
GROUP_MEAN = Inference(
    ci_methods=("t", "bootstrap"), group_mean="mean", paired="groups", tests=GROUP_TESTS
)
_INFERENCE: dict[str, Inference] = {
    # the share of groups with a hit is a proportion of groups: Wilson's interval too
    "hit_rate": Inference(
        ci_methods=("wilson", "t", "bootstrap"),
        group_mean="mean",
        paired="groups",
        tests=GROUP_TESTS,
    ),
    # a ratio of sums over groups (each weighs by its relevant items): the bootstrap only
    "hit_ratio": Inference(
        group_mean="mean", group_weights="relevant", paired="groups", tests=GROUP_TESTS
    ),
}

#: the same measure's base name in ir_measures and in trec_eval (``_core.ir_names``); hit_rate
#: is Success (a relevant item in the top k), not hit_ratio (micro recall, in neither tool)
_NAMES: dict[str, tuple[str | None, str | None]] = {
    "ndcg": ("nDCG", "ndcg_cut"),
    "precision_at_k": ("P", "P"),
    "recall_at_k": ("R", "recall"),
    "map": ("AP", "map_cut"),
    "mrr": ("RR", "recip_rank"),
    "r_precision": ("Rprec", "Rprec"),
    "hit_rate": ("Success", "success"),
}

for _name, (_summary, _uses_k, _uses_gain) in _SPECS.items():
    _params = (
        (("k",) if _uses_k else ())
        + (("gain", "gains") if _uses_gain else ())
        + (("ap_denominator",) if _name == "map" else ())
        + (("log_base",) if _name in ("dcg", "idcg", "ndcg") else ())
        + (("precision_denominator",) if _name == "precision_at_k" else ())
        + _COMMON
    )
    register(
        MetricSpec(
            _name,
            f"ranking/{_name}.sql",
            "ranking",
            _summary,
            ranking_roles(_name),
            params=_params,
            undefined="no group has a relevant item (all groups empty)",
            takes_k=_uses_k,
            # trec_eval's name for it: success@10 = success_10
            aliases=("success",) if _name == "hit_rate" else (),
            function="mean_average_precision" if _name == "map" else "",
            check_params=_CHECKS.get(_name),
            kernel="ranking_kernel",
            rank_based=True,
            needs=_NEEDS.get(_name, ()),
            inference=inference_of(_name, _INFERENCE.get(_name, GROUP_MEAN)),
            data_checks=CHECKS,
            better="neither" if _name == "idcg" else "higher",  # idcg: the judgments' own
            ir_measures=_NAMES.get(_name, (None, None))[0],
            trec_eval=_NAMES.get(_name, (None, None))[1],
        )
    )


#: from this label on, 2^label - 1 (at 1024) or a group's sum of such gains (up to 2^63 items)
#: overflows a double
GAIN_OVERFLOW_LABEL = 960


def gain_bound(metric: str) -> Bound:
    """The label ceiling of ``gain="exponential"``: refused before the metric's query when
    it would overflow, counted with the labels' other checks (:class:`Bound`).

    2^label - 1 is infinite in double precision for label >= 1024, and a group's DCG (up to
    2^63 items of gain < 2^960) stays finite only below 960; an overflow would turn DCG and
    IDCG into inf and NDCG into NaN.
    """

    def refuse(column: str, count: int, largest: Any) -> None:
        raise InvalidDataError(
            f"{metric}: label column {column!r} (label=) has {count} value(s) >= "
            f"{GAIN_OVERFLOW_LABEL} (largest {largest!r}); with gain='exponential' the gain "
            f"2^label - 1 and its sums overflow a double there. Pass gain='linear' (gain = "
            f"label), or map the labels to a smaller scale first"
        )

    return Bound("label", GAIN_OVERFLOW_LABEL, False, refuse)


def grade_bound(metric: str, max_grade: float) -> Bound:
    """ERR's label ceiling: a label above ``max_grade`` is refused before the query (its
    probability of satisfying the user, (2^label - 1) / 2^max_grade, would exceed 1; gdeval
    refuses such judgments too), counted with the labels' other checks (:class:`Bound`).
    """

    def refuse(column: str, count: int, largest: Any) -> None:
        raise InvalidDataError(
            f"{metric}: label column {column!r} (label=) has {count} value(s) above "
            f"max_grade={max_grade:g} (largest {largest!r}); ERR's R = (2^label - 1) / "
            f"2^max_grade must stay below 1. Pass max_grade= the highest grade of your "
            f"judgments (gdeval's default is 4)"
        )

    return Bound("label", max_grade, True, refuse)


def label_bounds(metric: str, exponential: bool, max_grade: float | None) -> list[Bound]:
    """The ranking labels' bounds: the exponential gain's overflow, ERR's ``max_grade``."""
    bounds = [gain_bound(metric)] if exponential else []
    return bounds + ([grade_bound(metric, max_grade)] if max_grade is not None else [])


def check_groups(metric: str, frame: pd.DataFrame, empty: str, missing: str) -> None:
    """Raise for ``missing="error"`` / ``empty="error"`` when the ranking query reports such groups.

    ``frame`` is the output of the ranking family's ``query`` macro (columns ``n_empty``,
    with qrels ``n_missing``, and ``first_empty`` / ``first_missing`` under the error
    policies). Used by every ranking function and by :func:`sqlmetrics.evaluate`.
    """
    if missing == "error" and "n_missing" in frame:
        counts = frame["n_missing"].dropna()
        if len(counts) and counts.max() > 0:
            example = frame.loc[frame["n_missing"] > 0, "first_missing"].iloc[0]
            raise InvalidDataError(
                f"{metric}: {int(counts.max())} judged group(s) of qrels= have no row in the "
                f"run, e.g. group {example}; with missing='error' the run must hold every "
                f"judged group. Pass missing='skip' to leave them out (trec_eval) or "
                f"missing='zero' to count them as 0 (trec_eval -c)"
            )
    if empty != "error":
        return
    bad = frame[frame["n_empty"] > 0]
    if bad.empty:
        return
    n_empty = int(frame["n_empty"].sum())
    example = bad["first_empty"].iloc[0]
    raise InvalidDataError(
        f"{metric}: {n_empty} group(s) have no relevant item (label >= relevance_level), "
        f"e.g. group {example}; with empty='error' every group must have one. Pass "
        f"empty='skip' to leave them out of the mean or empty='zero' to count them as 0"
    )


def warn_skipped(metric: str, frame: pd.DataFrame, empty: str) -> None:
    """Warn once when the default ``empty="skip"`` left groups out of the mean.

    Called only when neither ``empty=`` nor ``convention=`` was given: peers differ here
    (trec_eval, scikit-learn and Spark count such a group as 0, torchmetrics as 0 or 1), so a
    silent skip would make the numbers disagree without a word.
    """
    n_empty = int(frame["n_empty"].sum()) if "n_empty" in frame else 0
    if empty != "skip" or n_empty == 0:
        return
    n_groups = int(frame["n_groups"].sum()) + n_empty
    warn_user(
        f"{metric}: {n_empty} of {n_groups} group(s) have no relevant item and were left out "
        f"of the mean (empty='skip', the default). Pass empty='zero' to count them as 0 "
        f"(trec_eval, scikit-learn, Spark), empty='one' to count them as 1 (torchmetrics "
        f"'pos'), empty='skip' to keep this and silence the warning, or convention= to follow "
        f"a tool",
        SkippedGroupsWarning,
    )


#: numba's quicksort (ranx's np.argsort) sorts up to this many items by insertion sort, which
#: keeps equal scores in input order; a longer list is partitioned, which moves them around
RANX_STABLE_ITEMS = 15
#: where a tie group's order changes the metric: anywhere in the top k (every position
#: counts), in the top k with no relevant item above it (only the first relevant one counts),
#: across the cut-off k (only which items are in the top k count), the same with no relevant
#: item above it (hit_rate), across R (r_precision)
_TIE_ORDER_MATTERS = {
    "map": "top",
    "ndcg": "top",
    "mrr": "first",
    "precision_at_k": "cut",
    "recall_at_k": "cut",
    "hit_rate": "first_cut",
    "r_precision": "r",
}


def ranx_tie_groups(
    backend: Backend,
    run_sql: str,
    qrels_sql: str | None,
    columns: dict[str, str],
    options: dict[str, Any],
    metrics: list[tuple[str, int | None]],
) -> list[int]:
    """Per ``(metric, k)``: how many groups ranx may rank differently from the SQL.

    ranx sorts each query's run with numba's ``np.argsort`` (a quicksort): lists of at most
    :data:`RANX_STABLE_ITEMS` items keep equal scores in input order, longer ones do not (the
    order then depends on the input order and the pivots, which SQL cannot reproduce). A group
    counts when its list is longer than that and a tie group holding items of different
    relevance (of different labels for ndcg) sits where its order changes the metric: in the
    top k (map, mrr, ndcg), across k (precision, recall, hit_rate) or across R (r_precision).
    ``columns``: the user's group, item, score and label columns (label in ``qrels_sql`` when
    given). One query for every metric.
    """
    q = {role: backend.ident(col) for role, col in columns.items()}
    level = options.get("relevance_level", 1)
    merge = "sum" if options.get("duplicates") == "sum" else "max"
    relevant = f"case when label >= {level} then 1 else 0 end"
    if qrels_sql is None:
        source = (
            f"select {q['group']} as grp, {q['item']} as item, max({q['score']}) as score, "
            f"{merge}({q['label']}) as label from {run_sql} group by {q['group']}, {q['item']}"
        )
        judged = f"select grp, sum({relevant}) as n_rel from src group by grp"
    else:
        run = (
            f"select {q['group']} as grp, {q['item']} as item, max({q['score']}) as score "
            f"from {run_sql} group by {q['group']}, {q['item']}"
        )
        source = (
            f"select r.grp, r.item, r.score, coalesce(j.{q['label']}, 0) as label "
            f"from ({run}) as r left join {qrels_sql} as j "
            f"on j.{q['group']} = r.grp and j.{q['item']} = r.item"
        )
        judged = (
            f"select {q['group']} as grp, sum(case when {q['label']} >= {level} then 1 else 0 "
            f"end) as n_rel from {qrels_sql} group by {q['group']}"
        )
    counts = []
    for name, k in metrics:
        kind = _TIE_ORDER_MATTERS.get(name, "top")
        differs = "lo <> hi" if name == "ndcg" else "rel_lo <> rel_hi"
        first = "last_pos - n_tied + 1"
        if kind in ("top", "first"):
            where = "1 = 1" if k is None else f"{first} <= {k}"
        elif kind in ("cut", "first_cut"):
            where = "1 = 0" if k is None else f"{first} <= {k} and last_pos > {k}"
        else:
            where = f"{first} <= coalesce(j.n_rel, 0) and last_pos > coalesce(j.n_rel, 0)"
        if kind.startswith("first"):
            where += " and rel_upto = rel_tied"  # no relevant item scored higher
        counts.append(
            f"count(distinct case when n_tied > 1 and {differs} and {where} then p.grp end)"
        )
    sql = f"""
with src as ({source}),
lists as (select grp, count(*) as n_items from src group by grp),
judged as ({judged}),
tie_groups as (
    select grp, score, count(*) as n_tied, min(label) as lo, max(label) as hi,
        min({relevant}) as rel_lo, max({relevant}) as rel_hi, sum({relevant}) as rel_tied
    from src
    group by grp, score
),
placed as (
    select
        tie_groups.*,
        sum(n_tied) over (
            partition by grp order by score desc rows between unbounded preceding and current row
        ) as last_pos,
        sum(rel_tied) over (
            partition by grp order by score desc rows between unbounded preceding and current row
        ) as rel_upto
    from tie_groups
)
select {", ".join(counts)}
from placed as p
join lists as l on l.grp = p.grp
left join judged as j on j.grp = p.grp
where l.n_items > {RANX_STABLE_ITEMS}
"""
    return [int(v or 0) for v in backend.rows(sql)[0]]


def warn_ranx_ties(
    backend: Backend,
    run_sql: str,
    qrels_sql: str | None,
    columns: dict[str, str],
    options: dict[str, Any],
    metrics: list[tuple[str, str, int | None]],
) -> None:
    """Under ``convention="ranx"``: warn :class:`TieOrderWarning` for each metric whose value
    ranx may compute differently because of the order it gives equal scores
    (:func:`ranx_tie_groups`). ``metrics``: (name shown, registry name, k). Not with
    ``ties="average"``: the expected value over every order of the ties depends on none.
    """
    ties = options.get("ties", "item_desc")
    if ties == "average":  # the expected value over every order: chosen, depends on none
        return
    counted = ranx_tie_groups(
        backend, run_sql, qrels_sql, columns, options, [(m, k) for _, m, k in metrics]
    )
    for (shown, metric, k), n in zip(metrics, counted):
        if not n:
            continue
        kind = _TIE_ORDER_MATTERS.get(metric, "top")
        at = f"k={k}" if k is not None else "the whole list"
        where = {
            "top": f"within the top {k}" if k is not None else "in the list",
            "first": "where the first relevant item is" + (f" in the top {k}" if k else ""),
            "cut": f"across the cut-off {at}",
            "first_cut": f"across the cut-off {at}, with no relevant item above",
            "r": "across the cut-off R (the group's relevant items)",
        }[kind]
        differ = "labels" if metric == "ndcg" else "relevance"
        warn_user(
            f"{shown}: {n} group(s) have equal scores on items of different {differ} {where}, "
            f"in lists of more than {RANX_STABLE_ITEMS} items; ranx orders such ties by numba's "
            f"unstable quicksort (depending on the input order and its pivots, which SQL cannot "
            f"reproduce), so its value may differ from this one (ties={ties!r}). Break the ties "
            f"in the scores before evaluating with either tool (e.g. add a small amount by "
            f"item), or pass ties='average' for the expected value over every order of the "
            f"tied items (not ranx's value, but one that depends on no order)",
            TieOrderWarning,
        )


def _ranking(
    name: str,
    data: Any,
    *,
    group: str,
    item: str,
    score: str,
    label: str,
    qrels: Any,
    con: Any,
    params: dict[str, Any],
    ci: CiRequest | None = None,
    weight: str | None = None,
    group_weight: str | None = None,
) -> float:
    import pandas as pd

    spec = get_spec(name)
    # the convention applied once, up front: the checks below read the resolved options
    chosen = params.get("empty") is not None or params.get("convention") is not None
    ranx = params.get("convention") == "ranx"
    params = check_params(spec, params)
    columns: dict[str, str | None] = {
        "group": group,
        "item": item,
        "score": score,
        "label": None if qrels is not None else label,
        "weight": weight,
        "group_weight": group_weight,
    }
    check_weights(spec.name, [spec.name], columns, params, qrels is not None)
    if qrels is None and not (isinstance(label, str) and label):
        raise InvalidParameterError(
            f"{spec.name}: label= must be a column name (a non-empty string); got {label!r}"
        )
    extra = None
    if qrels is not None:
        for role, col in (("group", group), ("item", item), ("label", label)):
            if not (isinstance(col, str) and col):
                raise InvalidParameterError(
                    f"{spec.name}: {role}= must be a column name (a non-empty string); got {col!r}"
                )
        extra = {"qrels": (qrels, [(r, str(columns.get(r.name) or label)) for r in QRELS_ROLES])}

    def gain_check(backend: Backend, source: Any, sources: dict[str, Any]) -> None:
        if group_weight:
            check_group_weight_constant(spec.name, backend, source.sql, group, group_weight)
        if ranx:  # ranx's order of equal scores in long lists is not reproducible
            judged = sources["qrels"][0] if "qrels" in sources else None
            names = {"group": group, "item": item, "score": score, "label": label}
            metric = [(spec.name, spec.name, params.get("k"))]
            warn_ranx_ties(backend, source.sql, judged, names, params, metric)

    frame = compute(
        spec.name,
        data,
        con=con,
        columns=columns,
        params=params,
        unique=("group", "item"),
        extra_sources=extra,
        check=gain_check,
        ci=ci,
        bounds=label_bounds(
            spec.name,
            params.get("gain", "exponential") == "exponential" and not params.get("gains"),
            params.get("max_grade"),
        ),
    )
    check_groups(spec.name, frame, params["empty"], params["missing"])
    if not chosen:
        warn_skipped(spec.name, frame, params["empty"])
    value = frame[spec.name].iloc[0]
    if value is None or pd.isna(value):
        if frame["n_groups"].fillna(0).iloc[0] > 0:  # groups left, but they weigh nothing
            return undefined(spec.name, GROUP_WEIGHTS_ZERO)
        return undefined(
            spec.name,
            "no group has a relevant item (label >= relevance_level)"
            + (" and a row in the run" if qrels is not None else ""),
        )
    return float(value)


def _ranking_metric(
    name: str,
    data: Any,
    *,
    group: str,
    item: str,
    score: str,
    label: str,
    qrels: Any,
    con: Any,
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int,
    weight: str | None = None,
    group_weight: str | None = None,
    **params: Any,
) -> float | Interval:
    """The one body of the ranking and retrieval functions (this module's and
    ``ranking_retrieval``'s), each called as ``_ranking_metric(name, **locals())`` as its
    first statement, i.e. with exactly its own arguments: the columns, ``qrels`` and ``con``,
    the interval options, and the metric's options (``params``: ``k``, ``ties``, ``convention``,
    ...). Checks ``ci=`` first, then :func:`_ranking` computes the value (and the interval).
    """
    request = ci_request(name, ci, ci_method, n_boot, seed)
    value = _ranking(
        name,
        data,
        group=group,
        item=item,
        score=score,
        label=label,
        qrels=qrels,
        con=con,
        params=params,
        ci=request,
        weight=weight,
        group_weight=group_weight,
    )
    return ci_result(name, value, request)


# ----------------------------------------------------------------------------- the functions
# Each public function declared: the parameters it takes, in order (their entries are the
# shared declarations of sqlmetrics/_core/params.py, or its own Arg), and its own sections.
# ``python -m tools.api`` writes the typed functions, their ci= overloads and docstrings into
# _api_ranking.py, each calling _ranking_metric.
_COLUMNS = ("group", "item", "score", "label", "qrels", "group_weight")
_OPTIONS = _COMMON
_INTERVAL = ("ci", "ci_method", "n_boot", "seed", "convention", "con")

# the Notes' paragraphs, citations and example data several declarations share
_SETUP = section(
    r"""
    Per group, items are ranked by score descending (ties per ``ties``); ``rel_i`` = 1 when the
    item at position :math:`i` is relevant, :math:`R` = the group's relevant judged items
    (retrieved or not), :math:`hits@k = \sum_{i \le k} rel_i`.
    """
)
_EMPTY = section(
    """
    Groups without a relevant item are *empty*: with ``empty="skip"`` they are left out of the
    mean, so every ranking metric of one call averages over the same groups.
    """
)
_TIES_EXACT = section(
    """
    With ``ties="average"`` the value is the exact expectation over all orders of tied items
    (closed forms in the template header), not a sample.
    """
)
_BURGES = "Burges, C. et al. (2005). Learning to rank using gradient descent. ICML 2005."
_JARVELIN = """Jarvelin, K. and Kekalainen, J. (2002). Cumulated gain-based evaluation of IR
techniques. ACM TOIS 20(4), 422-446."""
_MCSHERRY = """McSherry, F. and Najork, M. (2008). Computing information retrieval performance
measures efficiently in the presence of tied scores. ECIR 2008, 414-421."""
_RIJSBERGEN = "Van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed. Butterworths."
_TREC_BOOK = """Voorhees, E. M. and Harman, D. K. (2005). TREC: Experiment and Evaluation in
Information Retrieval. MIT Press. (trec_eval measures.)"""
_TREC_EVAL = "Buckley, C. and others. trec_eval, the TREC evaluation program (NIST)."
_DF_EXAMPLE = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"query": [1, 1, 1, 2, 2, 2], "doc": ["a", "b", "c", "a", "b", "c"],
    ...                    "score": [.9, .8, .1, .3, .7, .5], "rel": [1, 0, 2, 0, 0, 1]})
    >>> cols = dict(group="query", item="doc", label="rel")"""
_RUN_EXAMPLE = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> run = pd.DataFrame({"query": [1, 1, 1, 2, 2, 2], "doc": ["a", "b", "c", "a", "b", "c"],
    ...                     "score": [.9, .8, .1, .3, .7, .5]})
    >>> qrels = pd.DataFrame({"query": [1, 1, 2, 2, 2], "doc": ["a", "c", "a", "c", "d"],
    ...                       "rel": [2, 1, 0, 1, 3]})
    >>> cols = dict(group="query", item="doc", label="rel", qrels=qrels)"""


def _sql(template: str) -> str:
    """The Notes' last paragraph: where the metric's SQL is."""
    return prose(
        f"The SQL is ``sql/ranking/{template}.sql`` (shared part: "
        "``sql/_macros/kernels/ranking.sql``); :func:`sqlmetrics.render` shows it."
    )


#: the ranking metrics that refuse ties="average" (no exact expectation over tie orders)
NO_TIE_AVERAGE = ("bpref", "iprec_at_recall", "iprec_11pt_avg", "err", "infap", "judged")
#: the options a ranking metric checks against a list of values (the message lists them)
_CHOICES = (
    "ties", "empty", "missing", "duplicates", "gain", "ap_denominator",
    "precision_denominator", "recall_rounding",
)  # fmt: skip
#: what a numeric option a ranking metric checks refuses, where its check is not declared as
#: a range (registry.Number: the text is written from it)
_REFUSED = {"beta": "``beta`` negative or not finite"}
#: the interval's options checked only with ``ci=`` (their own entries say so)
_WITH_CI = ("n_boot", "seed")
#: the Returns of a mean or a sum over the groups (ranking_ir, ranking_retrieval)
_MEAN_LEFT = """
    float
        The mean over the groups left, or NaN when no group is left.
    """
_SUM_LEFT = """
    float
        The sum over the groups left, or NaN when no group is left.
    """
_DATA_ERRORS = (
    "No rows; NULL group, item, score or label; NaN or infinite scores; negative labels; a "
    "(group, item) pair twice in ``data`` or ``qrels``; group/item ids that are numbers on one "
    'side and text on the other; with ``empty="error"``, an empty group; with '
    '``missing="error"``, a judged group absent from the run'
)


def _declared(option: str) -> Number | None:
    """``option``'s check where it is declared as a range (:class:`registry.Number`)."""
    spec = PARAMS.get(option)
    return spec.check if spec is not None and isinstance(spec.check, Number) else None


def _refused(option: str) -> str:
    """What a ranking metric's Raises says it refuses of the numeric ``option``."""
    rule = _declared(option)
    if rule is None:
        return _REFUSED[option]
    return f"``{option}`` not {rule.range_text()}" + (" (or None)" if rule.none else "")


def _raises(name: str, takes: tuple[str, ...], refused: tuple[str, ...], bad_data: str) -> str:
    """A ranking metric's Raises section, written from what it takes: the options it checks
    against a list, its numeric options' ranges, ``ties="average"`` where it has no exact
    expectation (:data:`NO_TIE_AVERAGE`), then ``refused``: what else it refuses.
    """
    choices = [f"``{option}``" for option in _CHOICES if option in takes]
    refuses = [
        f"an unknown {', '.join(choices[:-1])} or {choices[-1]} value (the message lists the "
        "allowed ones)",
        *(
            _refused(option)
            for option in takes
            if option not in _WITH_CI and (option in _REFUSED or _declared(option))
        ),
        *(['``ties="average"``'] if name in NO_TIE_AVERAGE else []),
        *refused,
    ]
    data = _DATA_ERRORS + (f"; {bad_data}" if bad_data else "")
    entries = {
        "ColumnNotFoundError": "A named column is missing from ``data`` or ``qrels`` (the "
        "message lists the columns).",
        "InvalidDataError": data + ".",
        "InvalidParameterError": "; ".join(refuses)[0].upper() + "; ".join(refuses)[1:] + ".",
        "DataSourceError": "``data`` or ``qrels`` names no existing table or file.",
    }
    return "\n".join(
        f"{error}\n" + textwrap.indent(prose(text, width=92), "    ")
        for error, text in entries.items()
    )


def _function(
    name: str,
    takes: tuple[str, ...],
    *,
    refused: tuple[str, ...] = (),
    bad_data: str = "",
    **sections: Any,
) -> Function:
    """A ranking metric's declaration, its Raises section written by :func:`_raises`."""
    return Function(name, takes, raises=_raises(name, takes, refused, bad_data), **sections)


def _mean(name: str, *own: str, **sections: Any) -> Function:
    """A declaration of a ranking metric that is a mean over the groups left (trec_eval's
    family): ``own``, its parameters before the columns; the rest of its parameters, its body,
    Returns and Warns are those of every such metric.
    """
    takes = ("data", *own, *_COLUMNS, "weight", *_OPTIONS, *_INTERVAL)
    return _function(
        name, takes, call=_ranking_metric, returns=_MEAN_LEFT, warns=_WARNS, **sections
    )


def _kernel(
    name: str,
    takes: tuple[str, ...],
    *,
    value: str,
    notes: tuple[str, ...],
    examples: str,
    **sections: Any,
) -> Function:
    """A declaration of a metric of the shared ranking kernel: its Returns says what the float
    is (``value``); its Notes are the kernel's setup, its own ``notes`` (the formula, the empty
    groups and ties paragraphs) and where its SQL is; its Examples run on :data:`_DF_EXAMPLE`.
    """
    return _function(
        name,
        takes,
        call=_ranking_metric,
        returns=f"\nfloat\n    {value}, or NaN when no group is left.",
        warns=_WARNS,
        notes=section(_SETUP, *notes, _sql(sections.get("metric") or name)),
        examples=_DF_EXAMPLE + examples,
        **sections,
    )


_WARNS = """
    UndefinedMetricWarning
        When no group is left (e.g. no group has a relevant item, with ``empty="skip"``), or
        the weights of the groups left sum to 0; NaN is returned.
    SkippedGroupsWarning
        When groups without a relevant item were left out by the default ``empty="skip"``
        and neither ``empty=`` nor ``convention=`` was given (how many, and the options).
    """


_HIT_RATIO = _kernel(
    "hit_ratio",
    takes=("data", "k", *_COLUMNS[:-1], *_OPTIONS, *_INTERVAL),
    summary="""
    Hit ratio: relevant items in the top k over all relevant items.

    A micro average: hits and relevant items are summed over groups before dividing, so groups
    with many relevant items weigh more (e.g. 6 + 5 + 4 hits for 10 + 12 + 8 relevant items give
    15 / 30 = 0.5): a micro recall. Many recommender papers report "HR@k" (hit ratio) meaning
    the share of users with a hit, which is :func:`hit_rate`, not this function; check which one
    a paper means before comparing numbers.
    """,
    value="Hit ratio in [0, 1]",
    see_also="""
    hit_rate : share of groups with at least one hit.
    recall_at_k : per-group recall, then a mean.
    """,
    notes=(
        r"""
        .. math:: HR@k = \frac{\sum_g hits_g@k}{\sum_g R_g}

        Empty groups add 0 to both sums: ``empty="skip"`` and ``"zero"`` give the same value.
        """,
        _TIES_EXACT,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> round(sqlmetrics.hit_ratio(df, k=1, **cols), 4)
    0.3333
    """,
)


_HIT_RATE = _kernel(
    "hit_rate",
    takes=("data", "k", *_COLUMNS, "weight", *_OPTIONS, *_INTERVAL),
    summary="""
    Hit rate: the share of groups with a relevant item in the top k.

    trec_eval's ``success_k``. Many recommender papers call this "HR@k" or hit ratio (e.g.
    leave-one-out evaluation, one relevant item per user, where it also equals recall@k);
    sqlmetrics' :func:`hit_ratio` is a different quantity, the micro recall.
    """,
    value="Hit rate in [0, 1]",
    see_also="""
    hit_ratio : hits over relevant items, summed over groups.
    """,
    notes=(
        r"""
        .. math:: HitRate@k = \frac{1}{|G|} \sum_g [hits_g@k \ge 1]
        """,
        _EMPTY,
        r"""
        With ``ties="average"``, a tie group of :math:`n` items with :math:`r` relevant cut by k
        after :math:`m` positions holds no relevant item with the hypergeometric probability
        :math:`\binom{n-r}{m} / \binom{n}{m}`.
        """,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> sqlmetrics.hit_rate(df, k=1, **cols)
    0.5
    """,
)


_PRECISION_AT_K_PRECISION_DENOMINATOR = Arg(
    "precision_denominator",
    "str | None",
    None,
    """
    precision_denominator : {"k", "min_k_retrieved"}, optional
        Divisor of the hits: ``"k"`` (default; trec_eval, ranx, recommenders, Spark) or
        ``"min_k_retrieved"``: min(k, items retrieved in the group) (torchmetrics'
        ``adaptive_k=True``).
    """,
)


_PRECISION_AT_K = _kernel(
    "precision_at_k",
    takes=("data", "k", *_COLUMNS, "weight", *_OPTIONS, "precision_denominator", *_INTERVAL),
    summary="""
    Precision at k: relevant items in the top k over k, mean over groups.

    trec_eval's ``P_k``: the divisor is k even when fewer than k items were retrieved. With
    ``k=None`` it is the precision of the whole retrieved list.
    """,
    value="Precision at k in [0, 1]",
    see_also="""
    recall_at_k : the same hits over the relevant items.
    ndcg : graded-relevance ranking quality.
    mean_average_precision : AP per group.
    """,
    notes=(
        r"""
        .. math:: P@k = \frac{hits@k}{k}
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> sqlmetrics.precision_at_k(df, k=2, **cols)
    0.5
    """,
    own=(_PRECISION_AT_K_PRECISION_DENOMINATOR,),
)


_RECALL_AT_K = _kernel(
    "recall_at_k",
    takes=("data", "k", *_COLUMNS, "weight", *_OPTIONS, *_INTERVAL),
    summary="""
    Recall at k: the share of a group's relevant items in the top k, mean over groups.

    trec_eval's ``recall_k``: relevant items the run never retrieved (present only in ``qrels``)
    count in the divisor.
    """,
    value="Recall at k in [0, 1]",
    see_also="""
    precision_at_k : the same hits over k.
    ndcg : graded-relevance ranking quality.
    mean_average_precision : AP per group.
    """,
    notes=(
        r"""
        .. math:: R@k = \frac{hits@k}{R}
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> sqlmetrics.recall_at_k(df, k=2, **cols)
    0.75
    """,
)


_R_PRECISION = _kernel(
    "r_precision",
    takes=("data", *_COLUMNS, "weight", *_OPTIONS, *_INTERVAL),
    summary="""
    R-precision: precision at R, the number of relevant items of the group.

    trec_eval's ``Rprec``; at that cut-off precision equals recall.
    """,
    value="R-precision in [0, 1]",
    see_also="""
    precision_at_k : precision at a fixed cut-off.
    """,
    notes=(
        r"""
        .. math:: Rprec = \frac{hits@R}{R}
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> round(sqlmetrics.r_precision(df, **cols), 4)
    0.25
    """,
)


_MEAN_AVERAGE_PRECISION_AP_DENOMINATOR = Arg(
    "ap_denominator",
    "str | None",
    None,
    """
    ap_denominator : {"relevant", "min_k_relevant", "hits"}, default "relevant"
        Divisor of AP@k: all relevant items of the group (trec_eval ``map``/``map_cut_k``,
        ranx), ``min(k, relevant)`` (Spark's MAP@K), or the relevant items retrieved in the
        top k.
    """,
)


_MEAN_AVERAGE_PRECISION = _kernel(
    "mean_average_precision",
    takes=("data", "k", *_COLUMNS, "weight", "ap_denominator", *_OPTIONS, *_INTERVAL),
    metric="map",
    refused=('``ties="average"`` with ``ap_denominator="hits"``',),
    summary="""
    Mean average precision at k (MAP@k), registry name ``map``.

    The mean over groups of AP@k, with the divisor named by ``ap_denominator``: libraries
    disagree here silently (trec_eval and ranx divide by all relevant items, Spark by min(k,
    relevant), others by the hits).
    """,
    value="MAP in [0, 1]",
    see_also="""
    mrr : reciprocal rank of the first relevant item.
    ndcg : graded-relevance ranking quality.
    mean_average_precision : AP per group.
    """,
    notes=(
        r"""
        .. math::

            AP@k = \frac{1}{D} \sum_{i \le k} P@i \, rel_i,
            \quad D \in \{R, \min(k, R), hits@k\}
        """,
        _EMPTY,
        r"""
        With ``ties="average"``, :math:`E[rel_i \, hits@i] = q (1 + R_a) + t \, r (r - 1) / (n (n -
        1))` for position :math:`i` at offset :math:`t` of a tie group of :math:`n` items with
        :math:`r` relevant (:math:`q = r / n`, :math:`R_a` relevant items above the group); exact
        for a fixed divisor.
        """,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> round(sqlmetrics.mean_average_precision(df, **cols), 4)
    0.6667
    >>> round(sqlmetrics.mean_average_precision(df, k=2, ap_denominator='hits', **cols), 4)
    0.75
    """,
    own=(_MEAN_AVERAGE_PRECISION_AP_DENOMINATOR,),
)


_MRR = _kernel(
    "mrr",
    takes=("data", "k", *_COLUMNS, "weight", *_OPTIONS, *_INTERVAL),
    summary="""
    Mean reciprocal rank of the first relevant item within the top k.

    trec_eval's ``recip_rank``: a group without a relevant item in the top k scores 0.
    """,
    value="MRR in [0, 1]",
    see_also="""
    mean_average_precision : every relevant item counts.
    """,
    notes=(
        r"""
        .. math:: RR@k = \frac{1}{\min\{i \le k : rel_i = 1\}} \text{ (0 if none)}
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_TREC_BOOK, _MCSHERRY),
    examples="""
    >>> sqlmetrics.mrr(df, **cols)
    0.75
    """,
)


_CG = _kernel(
    "cg",
    takes=("data", "k", *_COLUMNS, "gain", "gains", *_OPTIONS, *_INTERVAL),
    summary="""
    Cumulative gain of the top k, mean over groups.

    CG ignores positions within the top k; see :func:`dcg`.
    """,
    value="Mean CG (>= 0)",
    see_also="""
    dcg : discounted by position.
    ndcg : normalised.
    """,
    notes=(
        r"""
        .. math:: CG@k = \sum_{i \le k} gain(label_i)
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_JARVELIN, _MCSHERRY),
    examples="""
    >>> sqlmetrics.cg(df, k=2, gain='linear', **cols)
    1.0
    """,
)


def _log_base(effect: str) -> Arg:
    """``log_base``'s entry: the base of the discount, and ``effect``, what it does here."""
    return Arg(
        "log_base",
        "float | None",
        None,
        f"""
    log_base : float, optional
        Base of the logarithm in the discount 1 / log_base(i + 1); default 2 (scikit-learn's
        ``dcg_score(log_base=)``).
        {effect}
    """,
    )


_DCG = _kernel(
    "dcg",
    takes=("data", "k", *_COLUMNS, "weight", "gain", "gains", *_OPTIONS, "log_base", *_INTERVAL),
    summary="""
    Discounted cumulative gain at k, mean over groups.

    With ``gain="linear"`` and ``ties="average"`` this is scikit-learn's ``dcg_score`` (averaged
    over groups).
    """,
    value="Mean DCG (>= 0)",
    see_also="""
    ndcg : DCG over the ideal DCG.
    idcg : the ideal DCG.
    """,
    notes=(
        r"""
        .. math:: DCG@k = \sum_{i \le k} \frac{gain(label_i)}{\log_2(i + 1)}
        """,
        _EMPTY,
        _TIES_EXACT,
    ),
    references=references(_JARVELIN, _BURGES, _MCSHERRY),
    examples="""
    >>> round(sqlmetrics.dcg(df, k=2, gain='linear', **cols), 4)
    0.8155
    """,
    own=(_log_base("DCG scales by ln(log_base) / ln(2)."),),
)


_IDCG = _kernel(
    "idcg",
    takes=("data", "k", *_COLUMNS, "gain", "gains", *_OPTIONS, "log_base", *_INTERVAL),
    summary="""
    Ideal discounted cumulative gain at k, mean over groups.

    The DCG of the group's judged items (``qrels`` if given, including items the run never
    retrieved; else the group's rows) in ideal order: labels descending.
    """,
    value="Mean ideal DCG (>= 0)",
    see_also="""
    ndcg : DCG over the ideal DCG.
    """,
    notes=(
        r"""
        .. math::

            IDCG@k = \sum_{i \le k} \frac{gain(label^*_i)}{\log_2(i + 1)},
            \quad label^*_1 \ge label^*_2 \ge \dots
        """,
        _EMPTY,
    ),
    references=references(_JARVELIN),
    examples="""
    >>> round(sqlmetrics.idcg(df, k=2, gain='linear', **cols), 4)
    1.8155
    """,
    own=(_log_base("IDCG scales by ln(log_base) / ln(2)."),),
)


_NDCG = _kernel(
    "ndcg",
    takes=("data", "k", *_COLUMNS, "weight", "gain", "gains", *_OPTIONS, "log_base", *_INTERVAL),
    summary="""
    Normalised discounted cumulative gain at k, mean over groups.

    DCG divided by the ideal DCG of the group's judged items (``qrels`` if given, including
    items the run never retrieved). With ``gain="linear"`` it is trec_eval's ``ndcg``
    (``k=None``) and ``ndcg_cut_k``; with ``gain="linear", ties="average"`` it is scikit-learn's
    ``ndcg_score`` (``ignore_ties=False``) averaged over groups.
    """,
    value="NDCG in [0, 1]",
    see_also="""
    dcg, idcg : numerator and denominator.
    mean_average_precision : binary relevance.
    """,
    notes=(
        r"""
        .. math::

            NDCG@k = \frac{DCG@k}{IDCG@k},
            \quad DCG@k = \sum_{i \le k} \frac{gain(label_i)}{\log_2(i + 1)}
        """,
        _EMPTY,
        """
        Each tied position gets the mean gain of its tie group with ``ties="average"``, the exact
        expected DCG.
        """,
    ),
    references=references(_JARVELIN, _BURGES, _MCSHERRY),
    examples="""
    >>> round(sqlmetrics.ndcg(df, k=2, **cols), 4)
    0.4532
    >>> round(sqlmetrics.ndcg(df, k=2, gain='linear', **cols), 4)
    0.5055
    """,
    own=(_log_base("NDCG does not depend on it (accepted for scikit-learn's signature)."),),
)


#: the public functions of this module, generated into _api_ranking.py
API = (
    _HIT_RATIO,
    _HIT_RATE,
    _PRECISION_AT_K,
    _RECALL_AT_K,
    _R_PRECISION,
    _MEAN_AVERAGE_PRECISION,
    _MRR,
    _CG,
    _DCG,
    _IDCG,
    _NDCG,
)
