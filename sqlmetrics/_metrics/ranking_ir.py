"""IR evaluation measures of trec_eval and ir_measures: expected reciprocal rank (gdeval's
graded ERR@k), inferred AP, the judged share of the top k, the set measures (precision,
recall, F of the whole retrieved list) and the counts (queries, relevant, retrieved,
relevant retrieved items).

Each is a metric of the ranking kernel (kernel ``ranking_kernel``): it reads the same
``group, item, score, label`` rows (or a run plus ``qrels=``), takes the same options and
shares the kernel's one sort per group (``sql/_macros/kernels/ranking.sql``) with the other ranking
metrics in ``evaluate``; its pieces are in ``sql/ranking/<name>.sql``, its tests in
``tests/test_ir_measures.py``. ``MetricSpec.ir_measures`` and ``MetricSpec.trec_eval`` give
the two tools' names for each.
"""

from __future__ import annotations

from typing import Any

from .._core.params import Arg, Function, references, section
from .._core.registry import (
    Inference,
    MetricSpec,
    Number,
    ParamSpec,
    declare_param,
    register,
)
from .._inference.intervals import Interval
from ..errors import InvalidParameterError
from .ranking import (
    _COLUMNS,
    _COMMON,
    _INTERVAL,
    _OPTIONS,
    _RIJSBERGEN,
    _RUN_EXAMPLE,
    _SUM_LEFT,
    _TREC_EVAL,
    _WARNS,
    CHECKS,
    GROUP_MEAN,
    _function,
    _mean,
    _ranking_metric,
    inference_of,
    ranking_roles,
)
from .ranking_retrieval import _check_ties

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_ranking_ir.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

#: the counts: sums over groups, not means (no interval, no empty="one")
COUNTS = ("num_q", "num_rel", "num_ret", "num_rel_ret")

#: gdeval's MAX_JUDGMENT: the highest grade of the TREC Web track's judgments
MAX_GRADE = 4


check_max_grade = Number(
    "a number in (0, 960], the highest grade of the judgments (ERR's R = (2^label - 1) / "
    "2^{name}; gdeval's default 4)",
    low=0,
    low_in=False,
    high=960,
)

declare_param(
    ParamSpec(
        "max_grade",
        MAX_GRADE,
        check_max_grade,
        "err: the highest grade of the judgments, R = (2^label - 1) / 2^max_grade (gdeval: 4)",
    )
)


def _check_count_params(metric: str, params: dict[str, Any]) -> None:
    if params.get("empty") == "one":
        raise InvalidParameterError(
            f"{metric}: empty='one' gives an empty group the value 1 in a mean, but {metric} "
            f"is a count summed over groups; use empty='zero' to count the groups with no "
            f"relevant item (trec_eval) or empty='skip' to leave them out"
        )


#: a sum over groups: no interval, no paired test
COUNT = Inference(intervals=False)


def no_interval(name: str) -> InvalidParameterError:
    """The error of ``ci=`` on a count (a sum over groups has no interval method here)."""
    return InvalidParameterError(
        f"{name}: ci= has no interval here: {name} is a count summed over groups, not a "
        f"mean or a proportion; drop ci= (and ci_method=)"
    )


def _count(name: str, data: Any, *, ci: Any, **arguments: Any) -> float | Interval:
    """A count's function body: ``ci=`` refused (:func:`no_interval`), then the ranking
    kernel's value.
    """
    if ci is not None:
        raise no_interval(name)
    return _ranking_metric(name, data, ci=None, **arguments)


_SPECS: dict[str, tuple[str, bool, tuple[str, ...], tuple[str, ...], str, str | None]] = {
    # name: (summary, uses k, own options, needs, ir_measures name, trec_eval name)
    "err": ("expected reciprocal rank at k, R = (2^label - 1) / 2^max_grade, mean over groups "
            "(gdeval ERR@k)", True, ("max_grade",), ("err",), "ERR", None),
    "infap": ("inferred average precision, mean over groups (trec_eval infAP)", False, (),
              ("cum", "judged"), "infAP", "infAP"),
    "judged": ("judged items in the top k / min(k, retrieved), mean over groups "
               "(ir_measures Judged@k)", True, (), ("judged",), "Judged", None),
    "set_precision": ("relevant retrieved / retrieved items, mean over groups (trec_eval "
                      "set_P)", False, (), (), "SetP", "set_P"),
    "set_recall": ("relevant retrieved / relevant items, mean over groups (trec_eval "
                   "set_recall)", False, (), (), "SetR", "set_recall"),
    "set_f": ("F-measure of set precision and recall, mean over groups (trec_eval set_F)",
              False, ("beta",), (), "SetF", "set_F"),
    "num_q": ("number of groups evaluated (trec_eval num_q)", False, (), (), "NumQ", "num_q"),
    "num_rel": ("relevant items, summed over groups (trec_eval num_rel)", False, (), (),
                "NumRel", "num_rel"),
    "num_ret": ("retrieved items, summed over groups (trec_eval num_ret)", False, (), (),
                "NumRet", "num_ret"),
    "num_rel_ret": ("relevant retrieved items, summed over groups (trec_eval num_rel_ret)",
                    False, (), (), "NumRelRet", "num_rel_ret"),
}  # fmt: skip

for _name, (_summary, _uses_k, _own, _needs, _irm, _trec) in _SPECS.items():
    _is_count = _name in COUNTS
    register(
        MetricSpec(
            _name,
            f"ranking/{_name}.sql",
            "retrieval",
            _summary,
            ranking_roles(_name),
            params=(("k",) if _uses_k else ()) + _own + _COMMON,
            undefined=(
                "no group is left (all groups empty and skipped, or none judged)"
                if _is_count
                else "no group has a relevant item (all groups empty)"
            ),
            takes_k=_uses_k,
            check_params=(
                _check_ties
                if _name in ("err", "infap", "judged")
                else _check_count_params
                if _is_count
                else None
            ),
            kernel="ranking_kernel",
            rank_based=True,
            needs=_needs,
            inference=inference_of(_name, COUNT if _is_count else GROUP_MEAN),
            data_checks=CHECKS,
            better="neither" if _is_count else "higher",
            ir_measures=_irm,
            trec_eval=_trec,
        )
    )


# ----------------------------------------------------------------------------- the functions
# Each public function declared (as in ranking.py): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_ranking_ir.py.


#: what a count refuses beyond the options (a sum over groups: no empty="one", no interval)
_SUM_REFUSED = (
    '``empty="one"`` (a sum over groups is not a mean)',
    "``ci=`` (no interval applies)",
)


_ERR_MAX_GRADE = Arg(
    "max_grade",
    "float",
    4,
    """
    max_grade : float, default 4
        The highest grade the judgments may hold (gdeval's 4, the TREC Web track's scale): an
        item's probability of satisfying the user is R = (2^label - 1) / 2^max_grade. A label
        above it is an error.
    """,
)


_ERR = _mean(
    "err",
    "k",
    "max_grade",
    bad_data="a label above ``max_grade``",
    summary="""
    Expected reciprocal rank at k (gdeval's graded ERR@k), mean over groups.
    """,
    notes=section(
        r"""
        With :math:`R_i = (2^{label_i} - 1) / 2^{max\_grade}`:

        .. math:: ERR@k = \sum_{i \le k} \frac{R_i}{i} \prod_{j < i} (1 - R_j)

        gdeval's form (ir_measures' ``ERR@k``), which fixes max_grade = 4 and prints 5
        decimals; here the value is not rounded. ``relevance_level`` is not read: every grade
        counts through :math:`R_i`. The SQL is ``sql/ranking/err.sql``.
        """,
    ),
    references=references("""
        Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009). Expected reciprocal
        rank for graded relevance. CIKM 2009, 621-630.
        """),
    examples=_RUN_EXAMPLE
    + """
    >>> round(sqlmetrics.err(run, k=2, **cols), 4)
    0.1094
    """,
    own=(_ERR_MAX_GRADE,),
)


_INFAP = _mean(
    "infap",
    summary="""
    Inferred average precision (trec_eval's infAP), mean over groups.
    """,
    notes=section(
        r"""
        With :math:`R` the group's relevant judged items, and for a relevant item retrieved at
        position :math:`i`, :math:`J` the judged items and :math:`H` the relevant items above it:

        .. math:: infAP = \frac{1}{R} \sum_{r} \frac{1}{i}
                  \left(1 + J \frac{H + \epsilon}{J + 2\epsilon}\right),
                  \quad \epsilon = 0.00001

        trec_eval's ``infAP`` (ir_measures' ``infAP``): an item absent from the judgments takes a
        position but counts as not relevant and is left out of :math:`J` and :math:`H`. With every
        item judged it is AP within 2e-5 (the :math:`\epsilon` terms). The SQL is
        ``sql/ranking/infap.sql``.
        """,
    ),
    references=references("""
        Yilmaz, E. and Aslam, J. A. (2006). Estimating average precision with incomplete
        and imperfect judgments. CIKM 2006, 102-111.
        """),
    examples=_RUN_EXAMPLE
    + """
    >>> round(sqlmetrics.infap(run, **cols), 4)
    0.5417
    """,
)


_JUDGED = _mean(
    "judged",
    "k",
    summary="""
    Judged@k: the share of the top k that the judgments hold, mean over groups.
    """,
    notes=section(
        r"""
        .. math:: Judged@k = \frac{|\{\text{judged items in the top } k\}|}{\min(k, n_{ret})}

        ir_measures' ``Judged@k`` (after OpenNIR): an item is judged when ``qrels`` holds it,
        whatever its label; without ``qrels`` every row is judged (1). ir_measures orders equal
        scores by docno ascending for it (``ties="item_asc"``). The SQL is
        ``sql/ranking/judged.sql``.
        """,
    ),
    references=references("""
        MacAvaney, S., Macdonald, C. and Ounis, I. (2022). Streamlining evaluation with
        ir-measures. ECIR 2022, 305-310.
        """),
    examples=_RUN_EXAMPLE
    + """
    >>> sqlmetrics.judged(run, k=2, **cols)
    0.5
    """,
)


_SET_PRECISION = _mean(
    "set_precision",
    summary="""
    Set precision: relevant retrieved items over retrieved items, mean over groups.
    """,
    notes=section(
        r"""
        .. math:: set\_P = \frac{|\text{relevant retrieved}|}{|\text{retrieved}|}

        trec_eval's ``set_P`` (ir_measures' ``SetP``): the whole retrieved list, in any order. The
        SQL is ``sql/ranking/set_precision.sql``.
        """,
    ),
    references=references(_RIJSBERGEN),
    examples=_RUN_EXAMPLE
    + """
    >>> round(sqlmetrics.set_precision(run, **cols), 4)
    0.5
    """,
)


_SET_RECALL = _mean(
    "set_recall",
    summary="""
    Set recall: relevant retrieved items over relevant items, mean over groups.
    """,
    notes=section(
        r"""
        .. math:: set\_recall = \frac{|\text{relevant retrieved}|}{|\text{relevant}|}

        trec_eval's ``set_recall`` (ir_measures' ``SetR``): relevant items counted in the
        judgments, retrieved or not. The SQL is ``sql/ranking/set_recall.sql``.
        """,
    ),
    references=references(_RIJSBERGEN),
    examples=_RUN_EXAMPLE
    + """
    >>> round(sqlmetrics.set_recall(run, **cols), 4)
    0.75
    """,
)


_SET_F_BETA = Arg(
    "beta",
    "float",
    1.0,
    """
    beta : float, default 1.0
        Recall weighs ``beta`` times as much as precision (1: F1; 0: set precision).
    """,
)


_SET_F = _mean(
    "set_f",
    "beta",
    summary="""
    Set F-measure of set precision and recall, mean over groups.
    """,
    notes=section(
        r"""
        With :math:`P` the set precision and :math:`R` the set recall:

        .. math:: set\_F = \frac{(1 + \beta^2) P R}{\beta^2 P + R}

        trec_eval's ``set_F`` (ir_measures' ``SetF``), 0 when :math:`P + R = 0`. The SQL is
        ``sql/ranking/set_f.sql``.
        """,
    ),
    references=references(_RIJSBERGEN),
    examples=_RUN_EXAMPLE
    + """
    >>> round(sqlmetrics.set_f(run, **cols), 4)
    0.6
    """,
    own=(_SET_F_BETA,),
)


def _sum(name: str, **sections: Any) -> Function:
    """A declaration of a count (``num_q``, ...): a sum over the groups left, without an
    interval or ``empty="one"``; its parameters, body, Returns and Warns are every count's.
    """
    takes = ("data", *_COLUMNS[:-1], *_OPTIONS, *_INTERVAL)
    return _function(
        name,
        takes,
        call=_count,
        refused=_SUM_REFUSED,
        returns=_SUM_LEFT,
        warns=_WARNS,
        **sections,
    )


_NUM_Q = _sum(
    "num_q",
    summary="""
    The number of groups (queries) evaluated.
    """,
    notes=section(
        """
        trec_eval's ``num_q`` (ir_measures' ``NumQ``): the groups the ranking rules keep
        (``empty=``, ``missing=``), summed over them (not a mean). The SQL is
        ``sql/ranking/num_q.sql``.
        """,
    ),
    references=references(_TREC_EVAL),
    examples=_RUN_EXAMPLE
    + """
    >>> sqlmetrics.num_q(run, empty="zero", **cols)
    2.0
    """,
)


_NUM_REL = _sum(
    "num_rel",
    summary="""
    The relevant items of the groups, summed over groups.
    """,
    notes=section(
        """
        trec_eval's ``num_rel`` (ir_measures' ``NumRel``): relevant judged items (``label >=
        relevance_level``), retrieved or not, summed over the groups kept (not a mean). The SQL
        is ``sql/ranking/num_rel.sql``.
        """,
    ),
    references=references(_TREC_EVAL),
    examples=_RUN_EXAMPLE
    + """
    >>> sqlmetrics.num_rel(run, **cols)
    4.0
    """,
)


_NUM_RET = _sum(
    "num_ret",
    summary="""
    The retrieved items of the groups, summed over groups.
    """,
    notes=section(
        """
        trec_eval's ``num_ret`` (ir_measures' ``NumRet``): the run's items of the groups kept,
        summed (not a mean). The SQL is ``sql/ranking/num_ret.sql``.
        """,
    ),
    references=references(_TREC_EVAL),
    examples=_RUN_EXAMPLE
    + """
    >>> sqlmetrics.num_ret(run, **cols)
    6.0
    """,
)


_NUM_REL_RET = _sum(
    "num_rel_ret",
    summary="""
    The relevant retrieved items of the groups, summed over groups.
    """,
    notes=section(
        """
        trec_eval's ``num_rel_ret`` (ir_measures' ``NumRelRet``): retrieved items with ``label
        >= relevance_level``, summed over the groups kept (not a mean). The SQL is
        ``sql/ranking/num_rel_ret.sql``.
        """,
    ),
    references=references(_TREC_EVAL),
    examples=_RUN_EXAMPLE
    + """
    >>> sqlmetrics.num_rel_ret(run, **cols)
    3.0
    """,
)


#: the public functions of this module, generated into _api_ranking_ir.py
API = (
    _ERR,
    _INFAP,
    _JUDGED,
    _SET_PRECISION,
    _SET_RECALL,
    _SET_F,
    _NUM_Q,
    _NUM_REL,
    _NUM_RET,
    _NUM_REL_RET,
)
