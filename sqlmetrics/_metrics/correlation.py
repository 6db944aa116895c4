"""Rank correlation between score and label: Spearman's rho and Kendall's tau-b.

Both read one row per observation (``score``, ``label``, both numeric) and give the
correlation over all rows of a slice, or with ``group=`` the mean of the per-group
correlations (e.g. per query: how well the scores order the graded labels within each list).
The SQL is ``sql/correlation/``; ties share average ranks (Spearman) or count in neither
concordant nor discordant pairs (Kendall's tau-b), as ``scipy.stats``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._backends.source import Source
from .._core.params import Arg, Function, references
from .._core.registry import Inference, MetricSpec, Number, ParamSpec, Role, declare_param, register
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import InvalidDataError
from .classification_curves import _INTERVAL

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_correlation.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

#: Kendall's cost is O(n log n + n L); beyond this many distinct labels per group it is refused
MAX_LABEL_LEVELS = 1000


check_max_label_levels = Number(
    "an integer >= 2 (the most distinct label values a group may have; the cost grows as rows "
    "x label values)",
    kind="int",
    low=2,
    limit=2**31 - 1,
)

declare_param(
    ParamSpec(
        "max_label_levels",
        MAX_LABEL_LEVELS,
        check_max_label_levels,
        "Kendall: most distinct labels per group (cost O(n log n + n L)); more is refused",
    )
)

LABEL = Role("label", "score")
SCORE = Role("score", "score")
GROUP = Role("group", "key", required=False)
#: with group=, a mean over groups: the t interval and the cluster bootstrap
_INFERENCE = Inference(ci_methods=("t", "bootstrap"), group_mean="mean")
_UNDEFINED = (
    "every group (or the slice) has constant scores or constant labels, or fewer than 2 rows"
)

register(
    MetricSpec(
        "spearman",
        "correlation/spearman.sql",
        "correlation",
        "Spearman's rank correlation of score and label (average ranks for ties); with "
        "group=, the mean over groups",
        (LABEL, SCORE, GROUP),
        undefined=_UNDEFINED,
        aliases=("spearman_rho",),
        kernel="spearman_kernel",
        rank_based=True,
        inference=_INFERENCE,
    )
)
register(
    MetricSpec(
        "kendall_tau",
        "correlation/kendall_tau.sql",
        "correlation",
        "Kendall's tau-b of score and label (ties in both corrected); with group=, the mean "
        "over groups",
        (LABEL, SCORE, GROUP),
        params=("max_label_levels",),
        undefined=_UNDEFINED,
        aliases=("kendall",),
        kernel="kendall_tau_kernel",
        rank_based=True,
        inference=_INFERENCE,
    )
)


def check_label_levels(
    metric: str,
    connection: Any,
    relation: str,
    label: str,
    group: str | None,
    by: Sequence[str],
    limit: int,
) -> None:
    """Raise when a group (per slice) has more than ``limit`` distinct labels.

    Kendall's tau joins every row with its group's label values (n L rows); this check runs
    one aggregate before the query so that a continuous label column fails fast and clearly.
    """
    keys = [connection.ident(c) for c in (*by, *([group] if group else []))]
    grouped = f" group by {', '.join(keys)}" if keys else ""
    row = connection.rows(
        f"select max(n), count(*) from (select count(distinct {connection.ident(label)}) as n "
        f"from {relation}{grouped}) as levels where n > {limit}"
    )[0]
    if row[1]:
        where = "a group" if group else "a slice" if by else "the data"
        raise InvalidDataError(
            f"{metric}: label column {label!r} (label=) has {int(row[0])} distinct values in "
            f"{where} ({int(row[1])} such); Kendall's tau is computed in O(n log n + n L) for "
            f"L distinct labels and refuses more than max_label_levels={limit}. Bin the labels "
            f"(e.g. round them), pass a larger max_label_levels=, or use spearman (O(n log n))"
        )


def _correlation(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    group: str | None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
    **params: Any,
) -> float | Interval:
    """The body of spearman and kendall_tau: the value, or with ``ci=`` its interval.
    ``params``: the metric's own options as passed (kendall_tau's ``max_label_levels``, checked
    here; the label levels are then checked before the query).
    """
    iv_request = ci_request(metric, ci, ci_method, n_boot, seed)
    check: Callable[[Any, Source, dict[str, Any]], None] | None = None
    if "max_label_levels" in params:
        limit = check_max_label_levels(metric, "max_label_levels", params["max_label_levels"])

        def levels_check(connection: Any, source: Source, extra: dict[str, Any]) -> None:
            check_label_levels(metric, connection, source.sql, label, group, (), limit)

        check = levels_check

    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "group": group},
        params={**params, "convention": convention},
        check=check,
        ci=iv_request,
    )
    return ci_result(metric, scalar(frame, metric), iv_request)


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_correlation.py.
_TAKES = ("data", "label", "score", "group")
_SCORE = Arg(
    "score",
    "str",
    "score",
    """
    score : str, default "score"
        Column of finite numeric scores. No NULL.
    """,
)


#: the ``group`` entry, of the coefficient (rho, tau)
_GROUP = """
    group : str, optional
        Column identifying groups (query, user): {0} per group, then the uniform mean over the
        groups where it is defined. None: one {0} over all rows.
    """


# Raises entries of both functions (_NO_DATA: distributional_coverage's too); each ends without
# a newline: ``+`` joins them
_MISSING_COLUMN = """
    ColumnNotFoundError
        A named column is missing (the message lists the columns present)."""
_NO_DATA = """
    DataSourceError
        ``data`` names no existing table or file."""
_WARNS = """
    UndefinedMetricWarning
        When the scores or the labels are constant (in every group, with ``group``); NaN is
        returned.
    """
_RETURNS = """
    float
        {} in [-1, 1], or NaN when it is undefined.
    """
#: the examples' first lines: the same six rows in two queries
_DF = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"query": [1, 1, 1, 2, 2, 2], "rel": [2, 1, 0, 0, 1, 1],
    ...                    "score": [.9, .8, .1, .3, .7, .5]})"""


_SPEARMAN_LABEL = Arg(
    "label",
    "str",
    "label",
    """
    label : str, default "label"
        Column of numeric labels (e.g. graded relevance, a rating, a click count). No NULL.
    """,
)

_SPEARMAN = Function(
    "spearman",
    takes=(*_TAKES, *_INTERVAL),
    call=_correlation,
    summary="""
    Spearman's rank correlation coefficient rho between score and label.

    The Pearson correlation of the average ranks: 1 when the scores order the rows exactly as
    the labels do, -1 for the reverse order. With ``group``, rho is computed within each group
    (e.g. per query or user) and averaged over the groups.
    """,
    returns=_RETURNS.format("rho"),
    raises=_MISSING_COLUMN
    + """
    InvalidDataError
        No rows; NULL, NaN or infinite scores or labels; non-numeric labels; NULL groups."""
    + _NO_DATA,
    warns=_WARNS,
    see_also="""
    kendall_tau : the share of concordant minus discordant pairs.
    """,
    notes=r"""
    With :math:`r_i, s_i` the average ranks of score and label among the :math:`n` rows
    (tied values share the mean of their ranks) and :math:`m = (n + 1) / 2`:

    .. math:: \rho = \frac{\sum_i (r_i - m)(s_i - m)}
              {\sqrt{\sum_i (r_i - m)^2 \sum_i (s_i - m)^2}}

    equal to ``scipy.stats.spearmanr``. The sums are exact integer sums of doubled ranks, so
    the result does not depend on row order. Groups with constant scores or labels (or one row)
    have no rho and are left out of the mean. The SQL is ``sql/correlation/spearman.sql``.
    """,
    references=references(
        """
        Spearman, C. (1904). The proof and measurement of association between two things.
        American Journal of Psychology 15(1), 72-101.
        """
    ),
    examples=_DF
    + """
    >>> round(sqlmetrics.spearman(df, label="rel"), 4)
    0.9258
    >>> round(sqlmetrics.spearman(df, label="rel", group="query"), 4)
    0.933
    """,
    own=(_SPEARMAN_LABEL, _SCORE, Arg("group", "str | None", None, _GROUP.format("rho"))),
)

_KENDALL_TAU_LABEL = Arg(
    "label",
    "str",
    "label",
    """
    label : str, default "label"
        Column of numeric labels with few distinct values (binary, graded relevance, ratings).
        No NULL.
    """,
)

_MAX_LABEL_LEVELS = Arg(
    "max_label_levels",
    "int",
    MAX_LABEL_LEVELS,
    r"""
    max_label_levels : int, default 1000
        The most distinct labels a group (or the data, without ``group``) may have: the cost
        is :math:`O(n \log n + n L)` for :math:`L` distinct labels.
    """,
)

_KENDALL_TAU = Function(
    "kendall_tau",
    takes=(*_TAKES, "max_label_levels", *_INTERVAL),
    call=_correlation,
    summary="""
    Kendall's rank correlation tau-b between score and label.

    The number of pairs that score and label order the same way minus those they order the
    opposite way, normalised for ties in both (tau-b). With ``group``, tau is computed within
    each group and averaged over the groups.
    """,
    returns=_RETURNS.format("tau-b"),
    raises=_MISSING_COLUMN
    + """
    InvalidDataError
        No rows; NULL, NaN or infinite scores or labels; NULL groups; a group with more than
        ``max_label_levels`` distinct labels.
    InvalidParameterError
        ``max_label_levels`` not an integer >= 2."""
    + _NO_DATA,
    warns=_WARNS,
    see_also="""
    spearman : the correlation of the ranks.
    """,
    notes=r"""
    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`n_c, n_d` the concordant and discordant pairs, :math:`n_0 = n(n-1)/2`, and
    :math:`n_1, n_2` the pairs tied in score and in label: ``scipy.stats.kendalltau``
    (``variant="b"``). No list of pairs is built: :math:`n_c - n_d` is summed from one running
    count per label value over the rows in score order (the template header gives the
    identity), in exact integers. The SQL is ``sql/correlation/kendall_tau.sql``.
    """,
    references=references(
        """
        Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika
        33(3), 239-251.
        """
    ),
    examples=_DF
    + """
    >>> round(sqlmetrics.kendall_tau(df, label="rel"), 4)
    0.8563
    """,
    own=(
        _KENDALL_TAU_LABEL,
        _SCORE,
        Arg("group", "str | None", None, _GROUP.format("tau")),
        _MAX_LABEL_LEVELS,
    ),
)

#: the public functions of this module, generated into _api_correlation.py
API = (_SPEARMAN, _KENDALL_TAU)
