"""Retrieval extras: rank-biased precision, fall-out, bpref, interpolated precision at recall
levels (and trec_eval's 11-point average), geometric-mean MAP.

Each is a metric of the ranking kernel (registry family ``retrieval``, kernel
``ranking_kernel``): it reads the same ``group, item, score, label`` rows (or a run plus
``qrels=``), takes the same options and shares the kernel's one sort per group
(``sql/_macros/kernels/ranking.sql``) with the ranking metrics in ``evaluate``; its pieces are in
``sql/ranking/<name>.sql``, its tests in ``tests/test_retrieval.py``.
``success@k`` is trec_eval's name for :func:`sqlmetrics.hit_rate` (an alias).
"""

from __future__ import annotations

from typing import Any

from .._core.params import Arg, references, section
from .._core.registry import (
    GROUP_TESTS,
    Inference,
    MetricSpec,
    Number,
    ParamSpec,
    check_choice,
    declare_param,
    register,
)
from ..errors import InvalidParameterError
from .ranking import (
    _COMMON,
    _DF_EXAMPLE,
    _TREC_BOOK,
    CHECKS,
    GROUP_MEAN,
    NO_TIE_AVERAGE,
    _check_map_params,
    _mean,
    inference_of,
    ranking_roles,
)

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_ranking_retrieval.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []


check_persistence = Number(
    "a number in (0, 1), the probability of looking at the next item (trec_eval's default 0.9)",
    low=0,
    low_in=False,
    high=1,
    high_in=False,
)

check_recall_level = Number(
    "a number in [0, 1] (a recall level, e.g. 0.5 for trec_eval's iprec_at_recall_0.50)",
    low=0,
    high=1,
)

declare_param(
    ParamSpec(
        "persistence",
        0.9,
        check_persistence,
        "rbp: probability of looking at the next item, in (0, 1)",
    )
)
declare_param(
    ParamSpec(
        "recall_level",
        0.0,
        check_recall_level,
        "iprec_at_recall: the recall level in [0, 1]",
    )
)
#: how a recall level L becomes a count of relevant items (iprec_at_recall, iprec_11pt_avg):
#: trec_eval 10's lround(L R), or trec_eval 9's (long)(L R + 0.9) (pytrec_eval, ir_measures)
RECALL_ROUNDINGS = ("trec_eval_10", "trec_eval_9")
declare_param(
    ParamSpec(
        "recall_rounding",
        "trec_eval_10",
        check_choice(*RECALL_ROUNDINGS),
        "iprec_at_recall, iprec_11pt_avg: recall level L -> relevant count: 'trec_eval_10' "
        "lround(L R) | 'trec_eval_9' floor(L R + 0.9) (pytrec_eval, ir_measures)",
    )
)

#: metrics without a closed form for ties="average" (not linear in the positions); err,
#: infap and judged are ranking_ir's


def _check_ties(metric: str, params: dict[str, Any]) -> None:
    if params.get("ties") == "average":
        raise InvalidParameterError(
            f"{metric}: ties='average' has no closed form for {metric} (it is not linear in "
            f"the positions of the tied items); use ties='item_desc', 'item_asc' or "
            f"'text_desc' (trec_eval)"
        )


_SPECS: dict[str, tuple[str, bool, tuple[str, ...], tuple[str, ...]]] = {
    # name: (summary, uses k, own options, needs from the ranking kernel)
    "rbp": ("rank-biased precision (1 - p) sum_{i<=k} rel_i p^(i-1), mean over groups "
            "(trec_eval rbp)", True, ("persistence",), ()),
    "fallout": ("non-relevant items in the top k / non-relevant retrieved items, mean over "
                "groups", True, (), ()),
    "bpref": ("binary preference: relevant items ranked above judged non-relevant ones, mean "
              "over groups (trec_eval bpref)", False, (), ("cum", "n_rel", "judged")),
    "iprec_at_recall": ("interpolated precision at recall_level, mean over groups (trec_eval "
                        "iprec_at_recall)", False, ("recall_level", "recall_rounding"),
                        ("cum", "n_rel")),
    "iprec_11pt_avg": ("mean interpolated precision at recall 0.0, 0.1, ..., 1.0, mean over "
                       "groups (trec_eval 11pt_avg)", False, ("recall_rounding",),
                       ("cum", "n_rel")),
    "gm_map": ("geometric mean over groups of AP at k, floored at 1e-5 (trec_eval gm_map)",
               True, ("ap_denominator",), ("cum",)),
}  # fmt: skip

#: gm_map: a geometric mean over groups, the cluster bootstrap only (no t interval)
GEOMETRIC_MEAN = Inference(group_mean="geometric", paired="groups", tests=GROUP_TESTS)

#: the same measure's base name in ir_measures and in trec_eval (``_core.ir_names``)
_NAMES: dict[str, tuple[str | None, str | None]] = {
    "bpref": ("Bpref", "bpref"),
    "iprec_at_recall": ("IPrec", "iprec_at_recall"),
    "iprec_11pt_avg": (None, "11pt_avg"),
    "gm_map": (None, "gm_map"),
}

for _name, (_summary, _uses_k, _own, _needs) in _SPECS.items():
    register(
        MetricSpec(
            _name,
            f"ranking/{_name}.sql",
            "retrieval",
            _summary,
            ranking_roles(_name),
            params=(("k",) if _uses_k else ()) + _own + _COMMON,
            undefined="no group has a relevant item (all groups empty)",
            takes_k=_uses_k,
            aliases=("11pt_avg",) if _name == "iprec_11pt_avg" else (),
            check_params=(
                _check_ties
                if _name in NO_TIE_AVERAGE
                else _check_map_params
                if _name == "gm_map"
                else None
            ),
            kernel="ranking_kernel",
            rank_based=True,
            needs=_needs,
            inference=inference_of(_name, GEOMETRIC_MEAN if _name == "gm_map" else GROUP_MEAN),
            data_checks=CHECKS,
            better="lower" if _name == "fallout" else "higher",
            ir_measures=_NAMES.get(_name, (None, None))[0],
            trec_eval=_NAMES.get(_name, (None, None))[1],
        )
    )


# ----------------------------------------------------------------------------- the functions
# Each public function declared (as in ranking.py): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_ranking_retrieval.py.
_RBP_PERSISTENCE = Arg(
    "persistence",
    "float",
    0.9,
    """
    persistence : float, default 0.9
        The probability p that the user looks at the next item, in (0, 1) (trec_eval's
        default 0.9).
    """,
)


_RBP = _mean(
    "rbp",
    "k",
    "persistence",
    summary="""
    Rank-biased precision at k, mean over groups.
    """,
    notes=section(
        r"""
        With :math:`rel_i` = 1 when the item at position :math:`i` is relevant:

        .. math:: RBP@k = (1 - p) \sum_{i \le k} rel_i \, p^{i - 1}

        trec_eval's ``rbp`` (its residual ``rbp_resid`` is not computed). With ``ties="average"``
        :math:`rel_i` is its expectation, exact since RBP is linear in it. The SQL is
        ``sql/ranking/rbp.sql``.
        """,
    ),
    references=references("""
        Moffat, A. and Zobel, J. (2008). Rank-biased precision for measurement of retrieval
        effectiveness. ACM TOIS 27(1), 2:1-2:27.
        """),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.rbp(df, **cols), 4)
    0.1355
    """,
    own=(_RBP_PERSISTENCE,),
)


_FALLOUT = _mean(
    "fallout",
    "k",
    summary="""
    Fall-out at k: the share of a group's non-relevant retrieved items ranked in the top k.
    """,
    notes=section(
        r"""
        .. math:: fallout@k = \frac{\sum_{i \le k} (1 - rel_i)}{\sum_i (1 - rel_i)}

        the false positive rate of the list cut at k. The denominator is the group's own
        retrieved non-relevant items (trec_eval's ``fallout`` divides by the collection's, its
        ``-N``, which a table of rankings does not hold); a group whose retrieved items are all
        relevant counts 0. The SQL is ``sql/ranking/fallout.sql``.
        """,
    ),
    references=references(_TREC_BOOK),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.fallout(df, k=1, **cols), 4)
    0.25
    """,
)


_BPREF = _mean(
    "bpref",
    summary="""
    Binary preference (bpref), mean over groups: trec_eval's ``bpref``.
    """,
    notes=section(
        r"""
        .. math:: bpref = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(N_r, R)}{\min(R, N)}\right)

        over the relevant retrieved items :math:`r`, with :math:`R` the group's relevant judged
        items, :math:`N` its judged non-relevant items and :math:`N_r` the judged non-relevant
        items ranked above :math:`r`. Unjudged retrieved items (absent from ``qrels``) are
        skipped; without ``qrels`` every row is judged. The SQL is ``sql/ranking/bpref.sql``.
        """,
    ),
    references=references("""
        Buckley, C. and Voorhees, E. M. (2004). Retrieval evaluation with incomplete
        information. SIGIR 2004, 25-32.
        """),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.bpref(df, **cols), 4)
    0.25
    """,
)


_IPREC_AT_RECALL_RECALL_LEVEL = Arg(
    "recall_level",
    "float",
    0.0,
    """
    recall_level : float, default 0.0
        The recall level L in [0, 1] (trec_eval prints 0.0, 0.1, ..., 1.0).
    """,
)


_IPREC_AT_RECALL_RECALL_ROUNDING = Arg(
    "recall_rounding",
    "str | None",
    None,
    """
    recall_rounding : {"trec_eval_10", "trec_eval_9"}, default "trec_eval_10"
        How a recall level L becomes the count c of relevant items the list must reach, R
        being the number of relevant judged items: ``"trec_eval_10"`` rounds, c = lround(L R)
        (halves away from zero; trec_eval 10); ``"trec_eval_9"`` is c = floor(L R + 0.9), the
        rule of trec_eval 9 and earlier, hence of pytrec_eval and of ir_measures' ``IPrec@L``
        (the ``trec_eval``, ``trec_eval_c`` and ``ir_measures`` conventions set it).
    """,
)


_IPREC_AT_RECALL = _mean(
    "iprec_at_recall",
    "recall_level",
    "recall_rounding",
    summary="""
    Interpolated precision at a recall level, mean over groups: trec_eval's ``iprec_at_recall``.
    """,
    notes=section(
        r"""
        .. math:: iprec(L) = \max \{ P@i : hits@i \ge c \}

        over the retrieved positions :math:`i`, 0 when the list never holds c relevant items;
        c is L times R (all relevant judged items, retrieved or not) made a count by
        ``recall_rounding``. The SQL is ``sql/ranking/iprec_at_recall.sql``.
        """,
    ),
    references=references(_TREC_BOOK),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.iprec_at_recall(df, recall_level=0.5, **cols), 4)
    0.75
    >>> round(sqlmetrics.iprec_at_recall(df, recall_level=0.6, **cols), 4)
    0.75
    >>> round(sqlmetrics.iprec_at_recall(df, recall_level=0.6, recall_rounding="trec_eval_9",
    ...                                  **cols), 4)
    0.5833
    """,
    own=(
        _IPREC_AT_RECALL_RECALL_LEVEL,
        _IPREC_AT_RECALL_RECALL_ROUNDING,
    ),
)


_IPREC_11PT_AVG_RECALL_ROUNDING = Arg(
    "recall_rounding",
    "str | None",
    None,
    """
    recall_rounding : {"trec_eval_10", "trec_eval_9"}, default "trec_eval_10"
        How each recall level L becomes the count c of relevant items the list must reach, R
        being the number of relevant judged items: ``"trec_eval_10"`` rounds, c = lround(L R)
        (halves away from zero; trec_eval 10); ``"trec_eval_9"`` is c = floor(L R + 0.9), the
        rule of trec_eval 9 and earlier, hence of pytrec_eval and of ir_measures' ``IPrec@L``
        (the ``trec_eval``, ``trec_eval_c`` and ``ir_measures`` conventions set it).
    """,
)


_IPREC_11PT_AVG = _mean(
    "iprec_11pt_avg",
    "recall_rounding",
    summary="""
    11-point interpolated average precision, mean over groups: trec_eval's ``11pt_avg``.
    """,
    notes=section(
        r"""
        The mean of :func:`iprec_at_recall` at the recall levels 0.0, 0.1, ..., 1.0, per group:

        .. math:: 11pt = \frac{1}{11} \sum_{j=0}^{10} iprec(j / 10)

        The SQL is ``sql/ranking/iprec_11pt_avg.sql``.
        """,
    ),
    references=references("""
        Salton, G. and McGill, M. J. (1983). Introduction to Modern Information
        Retrieval. McGraw-Hill.
        """),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.iprec_11pt_avg(df, **cols), 4)
    0.7045
    """,
    own=(_IPREC_11PT_AVG_RECALL_ROUNDING,),
)


_GM_MAP_AP_DENOMINATOR = Arg(
    "ap_denominator",
    "str | None",
    None,
    """
    ap_denominator : {"relevant", "min_k_relevant", "hits"}, default "relevant"
        AP's divisor, as in :func:`sqlmetrics.mean_average_precision`.
    """,
)


_GM_MAP = _mean(
    "gm_map",
    "k",
    "ap_denominator",
    summary="""
    Geometric mean over groups of average precision at k: trec_eval's ``gm_map``.
    """,
    notes=section(
        r"""
        .. math:: GM\text{-}MAP = \exp\left(\frac{1}{|G|} \sum_g \ln \max(AP_g@k, 10^{-5})\right)

        with trec_eval's floor :math:`10^{-5}` (``MIN_GEO_MEAN``), so that a group with AP 0 does
        not make the mean 0. With ``ties="average"`` :math:`AP_g` is its expected value, then the
        logarithm is taken. The SQL is ``sql/ranking/gm_map.sql``.
        """,
    ),
    references=references("""
        Robertson, S. (2006). On GMAP: and other transformations. CIKM 2006, 78-83.
        """),
    examples=_DF_EXAMPLE
    + """
    >>> round(sqlmetrics.gm_map(df, **cols), 4)
    0.6455
    """,
    own=(_GM_MAP_AP_DENOMINATOR,),
)


#: the public functions of this module, generated into _api_ranking_retrieval.py
API = (_RBP, _FALLOUT, _BPREF, _IPREC_AT_RECALL, _IPREC_11PT_AVG, _GM_MAP)
