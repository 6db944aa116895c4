"""Conventions: reproduce another tool's numbers by name (``convention="trec_eval"``).

A convention is one row of :data:`CONVENTIONS`: the metrics the tool defines, the definitional
options it fixes (tie order, gain, what an empty or missing group counts, the AP and precision
divisors, ``zero_division``) and the options the tool itself lets its users change. Every
public function, :func:`sqlmetrics.evaluate`, :func:`sqlmetrics.render` and the CLI take
``convention=``; :func:`resolve` is the one place it is applied:

- an option the caller did not pass (``None``) takes the convention's value, else the library
  default;
- an option the caller passed wins when the tool has a switch for it (trec_eval's ``-l``,
  torchmetrics' ``empty_target_action``); passed with a value the tool cannot produce, it is an
  error naming the option;
- a metric the tool does not define is an error listing the conventions that define it.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParameterError
from .registry import PARAMS, MetricSpec, default_of, get_spec

__all__ = [
    "CONVENTIONS",
    "DEFINITIONAL",
    "SKLEARN_WARN",
    "Convention",
    "SklearnWarn",
    "convention_names",
    "cutoff_options",
    "resolve",
    "warns_zero",
]

_RANKING = ("hit_rate", "precision_at_k", "recall_at_k", "r_precision", "map", "mrr", "ndcg")
#: trec_eval's measures beyond _RANKING that it computes as here (iprec_at_recall and 11pt_avg
#: with trec_eval 9's count of relevant items at recall level p, (long)(p * R + 0.9))
_TREC_MORE = ("bpref", "gm_map", "iprec_at_recall", "iprec_11pt_avg")
#: ir_measures' measures beyond _RANKING and bpref (issue 27): ERR (gdeval), infAP, Judged, the
#: set measures, the counts and IPrec (pytrec_eval: trec_eval 9's recall levels)
_IR_MORE = (
    "err", "infap", "judged", "set_precision", "set_recall", "set_f",
    "num_q", "num_rel", "num_ret", "num_rel_ret", "iprec_at_recall",
)  # fmt: skip
#: ir_measures fills a judged query absent from the run with 0 for every measure, NumQ and
#: NumRel too: here they skip it (the other counts are 0 there either way)
_IR_BY_METRIC = {"num_q": {"missing": "skip"}, "num_rel": {"missing": "skip"}}


class SklearnWarn(float):
    """scikit-learn's ``zero_division="warn"``: 0.0 where a value is 0/0, *with* an
    :class:`~sqlmetrics.UndefinedMetricWarning` (scikit-learn's default; its
    ``zero_division=0`` gives the same 0.0 silently).

    A float equal to 0.0, so every place that reads a number (the SQL ``coalesce``, the
    multiclass averages, the dbt package) counts an undefined value as 0; where the value is
    read back in Python (:func:`sqlmetrics._engine.run.scalar`, ``evaluate``, the multiclass
    averages, ``mcc``) :func:`warns_zero` says to warn. Its repr is ``'warn'``: under
    ``convention="sklearn"``, ``zero_division="warn"`` means what scikit-learn means by it.
    """

    __slots__ = ()

    def __new__(cls) -> SklearnWarn:
        """The value 0.0."""
        return super().__new__(cls, 0.0)

    def __repr__(self) -> str:
        """``'warn'``, scikit-learn's name for it (messages, the site's conventions table)."""
        return "'warn'"

    def __reduce__(self) -> tuple[type[SklearnWarn], tuple[()]]:
        """Pickled as itself (a plain 0.0 would lose the warning)."""
        return (SklearnWarn, ())


#: the one instance (``zero_division`` under ``convention="sklearn"``)
SKLEARN_WARN = SklearnWarn()


def warns_zero(zero_division: Any) -> bool:
    """True for scikit-learn's ``"warn"`` (:data:`SKLEARN_WARN`): 0.0 with a warning."""
    return isinstance(zero_division, SklearnWarn)


@dataclass(frozen=True)
class Convention:
    """What ``convention=<name>`` means.

    name: the value users pass. tool: the tool's name in messages. reference: what exactly
    it reproduces (the tests check it against that tool or an oracle of its code). metrics:
    the registry names the tool defines. sets: option -> value, for every covered metric
    that takes the option; by_metric: metric -> option -> value where one metric differs.
    adjustable: option -> the values the tool can also produce with a
    switch of its own (``None``: any valid value), and the switch's name. notes: what the
    convention does not cover (the site's conventions table). spelled: option -> the tool's own
    spelling of a value -> what it means here (scikit-learn's ``zero_division="warn"``).
    """

    name: str
    tool: str
    reference: str
    metrics: tuple[str, ...]
    sets: Mapping[str, Any]
    adjustable: Mapping[str, tuple[tuple[Any, ...] | None, str]] = field(default_factory=dict)
    notes: str = ""
    by_metric: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    spelled: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)
    with_cutoff: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def value(self, metric: str, option: str, k: int | None = None) -> Any:
        """What the convention sets ``option`` to for ``metric`` at cut-off ``k`` (KeyError
        if nothing).
        """
        if k is not None and option in self.with_cutoff.get(metric, {}):
            return self.with_cutoff[metric][option]
        return self.by_metric.get(metric, {}).get(option, self.sets[option])


_TREC_SETS = {
    # trec_eval breaks ties by docno, compared as text (strcmp), descending: an integer id
    # column is compared by its digits there ("9" above "10"), not numerically
    "ties": "text_desc",
    "gain": "linear",
    "empty": "zero",
    "ap_denominator": "relevant",
    "precision_denominator": "k",
    # trec_eval 9 (pytrec_eval's) reaches recall level p at (long)(p R + 0.9) relevant items;
    # trec_eval 10 at lround(p R)
    "recall_rounding": "trec_eval_9",
}
_TREC_ADJUSTABLE: dict[str, tuple[tuple[Any, ...] | None, str]] = {
    "relevance_level": (None, "-l"),
    "recall_rounding": (("trec_eval_10",), "trec_eval 10.0"),
}
_SKLEARN_CLASSIFICATION = (
    "accuracy",
    "auc",
    "average_precision",
    "brier_score",
    "classification_report",
    "confusion_matrix",
    "f1",
    "fbeta",
    "log_loss",
    "mcc",
    "multiclass_confusion_matrix",
    "pr_curve",
    "precision",
    "recall",
    "roc_curve",
    # issue 14's metrics scikit-learn defines (no definitional option among their parameters)
    "balanced_accuracy",  # balanced_accuracy_score(adjusted=)
    "calibration_curve",  # sklearn.calibration.calibration_curve
    "cohen_kappa",  # cohen_kappa_score(weights=)
    "hamming_loss",
    "jaccard_macro",  # jaccard_score(average=)
    "jaccard_micro",
    "jaccard_weighted",
    "multiclass_auc",  # roc_auc_score(multi_class=, average=)
    "multilabel_average_precision",  # average_precision_score(average=) on indicator matrices
    "partial_auc",  # roc_auc_score(max_fpr=)
    "top_k_accuracy",  # top_k_accuracy_score(k=)
)

#: every convention, by name
CONVENTIONS: dict[str, Convention] = {
    c.name: c
    for c in (
        Convention(
            "trec_eval",
            "trec_eval",
            "trec_eval 9.0 without -c (pytrec-eval-terrier)",
            (*_RANKING, *_TREC_MORE),
            {**_TREC_SETS, "missing": "skip"},
            _TREC_ADJUSTABLE,
            "equal scores are ordered by the item id as text, descending (strcmp; ties="
            "'text_desc', for integer ids too); mrr has no cut-off there; "
            "iprec_at_recall / 11pt_avg reach recall level p at (long)(p * R + 0.9) relevant "
            "items as trec_eval 9 does (recall_rounding='trec_eval_9'; trec_eval 10's lround(p "
            "* R) is recall_rounding='trec_eval_10'); trec_eval has no rbp",
        ),
        Convention(
            "trec_eval_c",
            "trec_eval -c",
            "trec_eval 9.0 with -c: judged queries absent from the run count 0",
            (*_RANKING, *_TREC_MORE),
            {**_TREC_SETS, "missing": "zero"},
            _TREC_ADJUSTABLE,
            "as trec_eval; ndcg of an absent query is 0",
        ),
        Convention(
            "ir_measures",
            "ir_measures",
            "ir_measures 0.4.3 (its default providers: pytrec_eval, msmarco for RR@k, "
            "judged for Judged@k)",
            (*_RANKING, "bpref", *_IR_MORE),
            {**_TREC_SETS, "missing": "zero"},
            {"relevance_level": (None, "rel= in the name, e.g. P(rel=2)@5")},
            "pytrec_eval's values (trec_eval's: ties by docno as text, descending; linear "
            "gains) with a judged query absent from the run counting 0, as ir_measures fills "
            "it; RR@k comes from its msmarco provider and Judged@k from its judged provider, "
            "which order equal scores by docno ascending (ties='item_asc' there: equal to "
            "their order for text ids); "
            "nDCG(dcg='exp-log2')@k comes from gdeval, which prints 5 decimals; "
            "nDCG(dcg='exp-log2') without a cut-off from ranx, which orders equal scores by the "
            "run's input order (equal on untied scores; a TieOrderWarning names the groups "
            "whose ties in lists over 15 items ranx orders unstably) and fails on a run "
            "lacking a judged query; NumQ and NumRel "
            "skip an absent query (missing='skip'): ask for them in a call of their own; "
            "IPrec@p is pytrec_eval's: recall level p at (long)(p * R + 0.9) relevant items "
            "(recall_rounding='trec_eval_9'); gm_map and 11pt_avg are not covered (no such "
            "ir_measures measure)",
            by_metric=_IR_BY_METRIC,
            # msmarco's RR@k and the judged provider's Judged@k sort by (-score, doc_id):
            # equal scores by docno ascending (issue 39); every other provider's order is
            # trec_eval's (pytrec_eval, gdeval) or ignores ties (Judged without a cut-off)
            with_cutoff={"mrr": {"ties": "item_asc"}, "judged": {"ties": "item_asc"}},
        ),
        Convention(
            "sklearn",
            "scikit-learn",
            "sklearn.metrics 1.x",
            (*_SKLEARN_CLASSIFICATION, "dcg", "ndcg"),
            {
                "zero_division": SKLEARN_WARN,
                "ties": "average",
                "gain": "linear",
                "empty": "zero",
                "log_base": 2.0,
            },
            {
                "zero_division": ((0.0, 1.0, math.nan), "zero_division="),
                "log_base": (None, "dcg_score(log_base=)"),
                "ties": (("average",), "ignore_ties=True is an arbitrary order"),
            },
            "zero_division='warn' is scikit-learn's: 0 with an UndefinedMetricWarning where a "
            "value is 0/0 (precision, recall, f1, fbeta, fpr, average_precision with no "
            "positive, the multiclass averages; mcc is 0 silently, as there; "
            "classification_report's cells are 0 without the warning), zero_division=0.0 the "
            "same 0 silently; pr_curve with no positive: "
            "recall 1 (0 at the +inf point), as scikit-learn; "
            "label_ranking_average_precision_score (every tied label ranked first, "
            "pessimistic) is not reproducible: no tie order here counts a tie that way",
            spelled={"zero_division": {"warn": SKLEARN_WARN}},
        ),
        Convention(
            "ranx",
            "ranx",
            "ranx 0.3 evaluate(Qrels, Run)",
            _RANKING,
            {
                "gain": "linear",
                "empty": "zero",
                "missing": "zero",
                "ap_denominator": "relevant",
                "precision_denominator": "k",
            },
            {
                "ties": (None, "the run's input order"),
                "missing": (("error",), "make_comparable=False"),
            },
            "equal scores keep the run's input order in ranx in lists of up to 15 items (sort "
            "the run by item descending for ties='item_desc'); longer lists go through numba's "
            "unstable quicksort, an order SQL cannot reproduce: a TieOrderWarning names each "
            "metric such ties can change; a query missing from the run is an error there unless "
            "make_comparable=True (missing='zero'); ndcg_burges = gain='exponential'; ranx's "
            "rbp weighs each item by its graded label (equal here on 0/1 labels) and its bpref "
            "differs from trec_eval's: neither is covered",
        ),
        Convention(
            "torchmetrics",
            "torchmetrics",
            "torchmetrics Retrieval* metrics (oracle of its reference code)",
            _RANKING,
            {
                "ties": "item_desc",
                "gain": "linear",
                "empty": "zero",
                "missing": "skip",
                "ap_denominator": "hits",
                "precision_denominator": "k",
            },
            {
                "empty": (("skip", "zero", "one", "error"), "empty_target_action"),
                "precision_denominator": (("k", "min_k_retrieved"), "adaptive_k"),
                "ties": (None, "torch.topk's order of equal scores, unspecified"),
            },
            "ndcg averages tied scores (ties='average', as torchmetrics); the other metrics "
            "follow torch.topk's unspecified order of equal scores there, so they agree only "
            "on untied scores; precision, recall, map and mrr there never count an item "
            "scored <= 0 as relevant (target where preds > 0): equal on positive scores",
            by_metric={"ndcg": {"ties": "average"}},
        ),
        Convention(
            "recommenders",
            "recommenders",
            "recommenders python_evaluation (oracle of its reference code)",
            ("precision_at_k", "recall_at_k", "map", "ndcg"),
            {
                "gain": "linear",
                "empty": "skip",
                "missing": "skip",
                "ap_denominator": "min_k_relevant",
                "precision_denominator": "k",
            },
            {
                "ties": (None, "the row order of its top-k sort"),
                "ap_denominator": (("relevant",), "map() instead of map_at_k()"),
                "gain": (("exponential",), "ndcg_at_k(score_type='exp')"),
            },
            "relevant = any item of rating_true (label >= relevance_level here); ties follow "
            "its sort's row order; ndcg_at_k counts a user of rating_true absent from "
            "rating_pred as 0 (missing='zero' for ndcg), the other metrics leave such users "
            "out; gain='linear' is score_type='raw' (= its default 'binary' on 0/1 labels); "
            "r_precision_at_k is not covered: its code averages only over the users with a "
            "hit in the top min(k, R) (the others are NaN, dropped by Series.mean) and "
            "divides by R, not by min(k, R) as its docstring says",
            by_metric={"ndcg": {"missing": "zero"}},
        ),
        Convention(
            "spark",
            "Spark",
            "Spark MLlib RankingMetrics (oracle of its reference code)",
            ("precision_at_k", "recall_at_k", "map", "ndcg"),
            {
                "gain": "exponential",
                "empty": "zero",
                "ap_denominator": "min_k_relevant",
                "precision_denominator": "k",
            },
            {
                "ties": (None, "the order of the prediction array"),
                "missing": (None, "how the (prediction, labels) rows are built"),
            },
            "graded ndcg: Spark's ideal DCG takes the labels in their given order, here "
            "sorted by label",
        ),
    )
}

#: the options a convention may set: a function's ``None`` for them means "not passed"
DEFINITIONAL = frozenset(
    {option for c in CONVENTIONS.values() for option in (*c.sets, *c.adjustable)}
)


def convention_names() -> list[str]:
    """The known convention names, sorted."""
    return sorted(CONVENTIONS)


def get_convention(caller: str, name: Any) -> Convention:
    """The convention called ``name``, or an error listing the known ones."""
    if isinstance(name, str) and name in CONVENTIONS:
        return CONVENTIONS[name]
    known = convention_names()
    hint = difflib.get_close_matches(str(name), known, n=1)
    near = f"did you mean {hint[0]!r}? " if hint else ""
    raise InvalidParameterError(
        f"{caller}: unknown convention={name!r}; {near}known conventions: {', '.join(known)}"
    )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b) and type(a) is not bool and type(b) is not bool


def resolve(spec: MetricSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with ``"convention"`` applied and removed (the one place it is applied).

    A definitional option that is ``None`` (not passed) takes the convention's value, else the
    metric's default; a value in the tool's own spelling (:attr:`Convention.spelled`) means
    what it means there; a passed value different from the convention's must be one the tool
    can produce (:attr:`Convention.adjustable`), else :class:`InvalidParameterError` names it.
    """
    out = dict(params)
    name = out.pop("convention", None)
    convention = get_convention(spec.name, name) if name is not None else None
    if convention is not None and spec.name not in convention.metrics:
        having = [c.name for c in CONVENTIONS.values() if spec.name in c.metrics]
        raise InvalidParameterError(
            f"{spec.name}: convention={convention.name!r} does not define {spec.name} "
            f"({convention.tool} has no such metric); conventions that define it: "
            f"{', '.join(having) or 'none'}. Drop convention= or pick one of them"
        )
    k = out.get("k")
    for option in spec.params:
        value = out.get(option)
        if convention is None or option not in convention.sets:
            if value is None and option in DEFINITIONAL and option in out:
                out.pop(option)  # check_params fills the default
            continue
        fixed = convention.value(spec.name, option, k)
        if value is None:
            out[option] = fixed
            continue
        spelled = convention.spelled.get(option, {})
        if isinstance(value, str) and value in spelled:  # the tool's own word for a value
            out[option] = spelled[value]
            continue
        checked = PARAMS[option].validate(spec.name, value)
        allowed, switch = convention.adjustable.get(option, ((), ""))
        if _same(checked, fixed) or allowed is None or any(_same(checked, a) for a in allowed):
            continue
        can = f"; {switch} allows {', '.join(map(repr, allowed))}" if allowed else ""
        raise InvalidParameterError(
            f"{spec.name}: {option}={value!r} cannot be reproduced with "
            f"convention={convention.name!r}: {convention.tool} uses {option}={fixed!r}{can}. "
            f"Leave {option}= out to follow {convention.name}, or drop convention="
        )
    return out


def cutoff_options(
    name: Any, spec: MetricSpec, k: int | None, given: Mapping[str, Any]
) -> dict[str, Any]:
    """The options convention ``name`` sets for ``spec`` with cut-off ``k`` beyond those it
    sets for the call (:attr:`Convention.with_cutoff`), except those the caller gave:
    evaluate applies them to that metric alone.
    """
    if name is None or k is None or not isinstance(name, str) or name not in CONVENTIONS:
        return {}
    own = CONVENTIONS[name].with_cutoff.get(spec.name, {})
    return {o: v for o, v in own.items() if given.get(o) is None}


def resolved(metric: str, option: str, value: Any, convention: str | None) -> Any:
    """The value of one ``option`` of ``metric`` after :func:`resolve` (passed, the
    convention's, or the default): for a body that reads an option itself.
    """
    spec = get_spec(metric)
    out = resolve(spec, {option: value, "convention": convention})
    return out[option] if out.get(option) is not None else default_of(spec, option)


def fill(caller: str, specs: Sequence[MetricSpec], options: Mapping[str, Any]) -> dict[str, Any]:
    """``evaluate``'s ``**options`` with ``"convention"`` applied and removed.

    Each requested metric is resolved as a single call would be (an uncovered metric or an
    option the tool cannot produce is an error); the options the convention sets for them
    and the caller left out are added, so every metric of one call sees the same values.
    """
    # None for a definitional option is "not passed", as in the functions
    out = {k: v for k, v in options.items() if not (v is None and k in DEFINITIONAL)}
    name = out.pop("convention", None)
    if name is None:
        return out
    get_convention(caller, name)
    filled: dict[str, tuple[str, Any]] = {}
    for spec in specs:
        given = {p: out.get(p) for p in spec.params if p != "k"}
        for option, value in resolve(spec, {**given, "convention": name}).items():
            if value is None or option in out:
                continue
            first, before = filled.setdefault(option, (spec.name, value))
            if not _same(before, value):
                raise InvalidParameterError(
                    f"{caller}: convention={name!r} sets {option}={before!r} for {first} but "
                    f"{option}={value!r} for {spec.name}, and the metrics of one call share "
                    f"{option}=; compute them in separate calls, or pass {option}= yourself"
                )
    out.update({option: value for option, (_, value) in filled.items()})
    return out
