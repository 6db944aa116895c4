"""Beyond-accuracy metrics of recommendations: catalog coverage, distributional coverage
(entropy), the Gini index of item exposure, novelty.

``data`` holds the recommendations, one row per recommended (user, item), e.g. each user's
top k; only the ``item`` column enters these metrics. ``train=`` (a second input of any kind,
like ``qrels=``) holds the interactions that define the catalog and the items' popularity.
The definitions follow Microsoft Recommenders' ``python_evaluation`` (catalog_coverage,
distributional_coverage, novelty) and Shani & Gunawardana (2011) for the Gini index; the SQL
is ``sql/beyond/``.
"""

from __future__ import annotations

from typing import Any

from .._core.params import REQUIRED, Arg, Function, references
from .._core.registry import MetricSpec, Role, register
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import InvalidParameterError
from .classification_curves import _INTERVAL
from .correlation import _NO_DATA

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_beyond.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

ITEM = Role("item", "key")

_SPECS = {
    # name: (summary, undefined)
    "catalog_coverage": ("distinct recommended items / distinct items of train= (Recommenders)",
                         "never"),
    "distributional_coverage": ("entropy (bits) of the items' recommendation frequencies "
                                "(Recommenders)", "never"),
    "gini_index": ("Gini index of the items' recommendation counts, over train='s catalog if "
                   "given", "a single item (no inequality to measure)"),
    "novelty": ("mean -log2 popularity in train= of the recommended items (Recommenders)",
                "never"),
}  # fmt: skip

for _name, (_summary, _undefined) in _SPECS.items():
    register(
        MetricSpec(
            _name,
            f"beyond/{_name}.sql",
            "beyond",
            _summary,
            (ITEM,),
            undefined=_undefined,
            kernel=f"{_name}_kernel",
            # a Gini index of 0: every item recommended as often (the diverse end)
            better="lower" if _name == "gini_index" else "higher",
        )
    )


#: the metrics that cannot do without train=
_NEEDS_TRAIN = ("catalog_coverage", "novelty")


def _beyond(
    metric: str,
    data: Any,
    *,
    item: str,
    train: Any = None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
) -> float | Interval:
    """The public functions' body: the value, or with ``ci=`` its interval."""
    iv_request = ci_request(metric, ci, ci_method, n_boot, seed)
    if metric in _NEEDS_TRAIN and train is None:
        raise InvalidParameterError(
            f"{metric}: train= is required: the interactions (one row per user-item event, with "
            f"the item column {item!r}) that define the catalog and the items' popularity"
        )
    extra = None if train is None else {"train": (train, [(ITEM, item)])}
    frame = compute(
        metric,
        data,
        con=con,
        columns={"item": item},
        params={"convention": convention},
        extra_sources=extra,
        ci=iv_request,
    )
    return ci_result(metric, scalar(frame, metric), iv_request)


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_beyond.py.
# Raises entries of several functions (each ends without a newline: ``+`` joins them)
_MISSING_ITEM = """
    ColumnNotFoundError
        The item column is missing from ``data`` or ``train``."""
_BAD_ITEMS = """
    InvalidDataError
        No rows; NULL items; item ids that are numbers on one side and text on the other."""
_NO_TRAIN = """
    InvalidParameterError
        ``train`` not given."""
_NO_SOURCE = """
    DataSourceError
        ``data`` or ``train`` names no existing table or file."""
_SHANI = """
    Shani, G. and Gunawardana, A. (2011). Evaluating recommendation systems.
    Recommender Systems Handbook, 257-297"""


#: the examples' first lines: three users' recommendations, and the interactions
_RECO = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> reco = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "a", "b"]})"""
_TRAIN = (
    _RECO
    + """
    >>> train = pd.DataFrame({"user": [1, 2, 2, 3, 3, 3], "item": list("abcdea")})"""
)

_CATALOG_COVERAGE = Function(
    "catalog_coverage",
    takes=("data", "item", "train", *_INTERVAL),
    call=_beyond,
    summary="""
    Catalog coverage: the share of the catalog's items recommended at least once.
    """,
    returns="""
    float
        The coverage, in [0, 1] when every recommended item is in ``train``.
    """,
    raises=_MISSING_ITEM + _BAD_ITEMS + _NO_TRAIN + _NO_SOURCE,
    notes=r"""
    .. math:: CC = \frac{|\{i : i \text{ recommended}\}|}{|\{i : i \in train\}|}

    As Microsoft Recommenders' ``catalog_coverage``: a recommended item absent from ``train``
    counts in the numerator. The SQL is ``sql/beyond/catalog_coverage.sql``.
    """,
    references=references(_SHANI + "."),
    examples=_TRAIN
    + """
    >>> sqlmetrics.catalog_coverage(reco, train=train)
    0.6
    """,
    own=(
        Arg(
            "train",
            "Any",
            REQUIRED,
            """
            train : same kinds as ``data``
                The interactions (e.g. the training set) whose distinct items are the catalog.
            """,
        ),
    ),
)

_DISTRIBUTIONAL_COVERAGE = Function(
    "distributional_coverage",
    takes=("data", "item", *_INTERVAL),
    call=_beyond,
    summary="""
    Distributional coverage: the entropy, in bits, of how often each item is recommended.
    """,
    returns=r"""
    float
        The entropy, >= 0: 0 when one item takes every recommendation, :math:`\log_2 m`
        when :math:`m` items are recommended equally often.
    """,
    raises="""
    ColumnNotFoundError
        The item column is missing.
    InvalidDataError
        No rows; NULL items."""
    + _NO_DATA,
    notes=r"""
    .. math:: DC = -\sum_i p_i \log_2 p_i, \quad p_i = c_i / n

    with :math:`c_i` the rows recommending item :math:`i` and :math:`n` all rows: Microsoft
    Recommenders' ``distributional_coverage``. The SQL is
    ``sql/beyond/distributional_coverage.sql``.
    """,
    references=references(_SHANI + " (eq. 21)."),
    examples=_RECO
    + """
    >>> round(sqlmetrics.distributional_coverage(reco), 4)
    1.4591
    """,
)

_GINI_INDEX = Function(
    "gini_index",
    takes=("data", "item", "train", *_INTERVAL),
    call=_beyond,
    summary="""
    Gini index of item exposure: how unequally the recommendations spread over the items.
    """,
    returns="""
    float
        The index in [0, 1): 0 when every item is recommended equally often; NaN for a
        single item.
    """,
    raises=_MISSING_ITEM + _BAD_ITEMS + _NO_SOURCE,
    warns="""
    UndefinedMetricWarning
        When the catalog holds a single item; NaN is returned.
    """,
    notes=r"""
    .. math:: G = \frac{\sum_{j=1}^{m} (2j - m - 1)\, c_{(j)}}{(m - 1)\, n}

    with :math:`c_{(1)} \le \dots \le c_{(m)}` the recommendation counts of the :math:`m`
    items and :math:`n` their sum (Shani & Gunawardana, eq. 20). The SQL is
    ``sql/beyond/gini_index.sql``.
    """,
    references=references(_SHANI + " (eq. 20)."),
    examples=_TRAIN
    + """
    >>> round(sqlmetrics.gini_index(reco), 4)
    0.3333
    >>> round(sqlmetrics.gini_index(reco, train=train), 4)
    0.6667
    """,
    own=(
        Arg(
            "train",
            "Any",
            None,
            """
            train : same kinds as ``data``, optional
                Interactions whose distinct items complete the catalog: items never recommended
                count with 0 recommendations. None: the recommended items only.
            """,
        ),
    ),
)

_NOVELTY = Function(
    "novelty",
    takes=("data", "item", "train", *_INTERVAL),
    call=_beyond,
    summary="""
    Novelty: the mean self-information of the recommended items under train's popularity.
    """,
    returns="""
    float
        The novelty in bits, >= 0: higher for recommendations from the long tail.
    """,
    raises=_MISSING_ITEM + _BAD_ITEMS + _NO_TRAIN + _NO_SOURCE,
    notes=r"""
    .. math:: novelty = \frac{1}{n} \sum_{r} -\log_2 \frac{t_{i_r}}{T}

    over the :math:`n` recommendation rows :math:`r` of item :math:`i_r`, with :math:`t_i`
    the rows of item :math:`i` in ``train`` and :math:`T` all its rows: Microsoft
    Recommenders' ``novelty`` (Castells et al.'s choice model). A recommended item absent
    from ``train`` adds 0 but counts in :math:`n`, as there. The SQL is
    ``sql/beyond/novelty.sql``.
    """,
    references=references(
        """
        Castells, P., Vargas, S. and Wang, J. (2011). Novelty and diversity metrics for
        recommender systems: choice, discovery and relevance. ECIR 2011 workshop DDR.
        """
    ),
    examples=_TRAIN
    + """
    >>> round(sqlmetrics.novelty(reco, train=train), 4)
    2.085
    """,
    own=(
        Arg(
            "train",
            "Any",
            REQUIRED,
            """
            train : same kinds as ``data``
                The interactions, one row per event: an item's popularity is its share of the rows.
            """,
        ),
    ),
)

#: the public functions of this module, generated into _api_beyond.py
API = (_CATALOG_COVERAGE, _DISTRIBUTIONAL_COVERAGE, _GINI_INDEX, _NOVELTY)
