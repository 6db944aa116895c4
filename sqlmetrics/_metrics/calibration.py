"""Calibration and CTR metrics of predicted probabilities: normalized entropy, calibration
ratio, expected calibration error and the calibration (reliability) curve.

Templates: ``sql/calibration/`` (one kernel each), the binning shared in
``sql/_macros/kernels/calibration.sql``. The bins are scikit-learn's ``calibration_curve``'s exactly
(``strategy="uniform"`` edges ``i / n_bins``; ``"quantile"`` edges at numpy's linear
percentiles; a probability on an edge falls in the lower bin).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.params import WARNS_NO_WEIGHT, Arg, Function
from .._core.registry import (
    Inference,
    MetricSpec,
    Number,
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    register,
)
from .._engine.run import compute
from ..errors import UndefinedMetricWarning, warn
from .classification_curves import (  # (also declares eps=, which normalized_entropy takes)
    _BAD_EPS,
    _COLUMNS,
    _DATA,
    _ENGINE,
    _INTERVAL,
    _scalar,
)

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_calibration.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

LABEL = Role("label", "binary")
PROBABILITY = Role("score", "probability")
WEIGHT = Role("weight", "weight", required=False)

#: the most bins a query renders (each quantile edge is a column of the statement)
N_BINS_MAX = 1000


_check_n_bins = Number(
    "an integer >= 1 (the number of bins)",
    kind="int",
    low=1,
    none=True,
    limit=N_BINS_MAX,
    limit_why=" (each bin edge is a column of the query)",
)

declare_param(
    ParamSpec(
        "n_bins",
        10,
        _check_n_bins,
        f"number of bins (1 to {N_BINS_MAX}); calibration_curve: 5, as scikit-learn",
    )
)
declare_param(
    ParamSpec(
        "strategy",
        "uniform",
        check_choice("uniform", "quantile"),
        "bins of equal width on [0, 1] (uniform) or of equal mass (quantile), as scikit-learn",
    )
)

register(
    MetricSpec(
        "normalized_entropy",
        "calibration/normalized_entropy.sql",
        "calibration",
        "log loss / entropy of the base rate -[r ln r + (1 - r) ln(1 - r)] (He et al. 2014)",
        (LABEL, PROBABILITY, WEIGHT),
        params=("eps", "pos_label"),
        undefined="the weights sum to 0, or one class only (base rate 0 or 1)",
        aliases=("ne",),
        kernel="normalized_entropy_kernel",
        # compare: log loss's paired t-test, divided by the entropy of the base rate
        inference=Inference(paired="losses", tests=("t",), loss="ll", loss_scale="entropy"),
        better="lower",
    )
)
register(
    MetricSpec(
        "calibration_ratio",
        "calibration/calibration_ratio.sql",
        "calibration",
        "predicted / observed positives: sum w p / sum w y",
        (LABEL, PROBABILITY, WEIGHT),
        params=("pos_label",),
        undefined="no positive label (with weight)",
        kernel="calibration_ratio_kernel",
        better="neither",  # best at 1
    )
)
register(
    MetricSpec(
        "expected_calibration_error",
        "calibration/expected_calibration_error.sql",
        "calibration",
        "expected calibration error: sum_b (W_b / W) |mean label_b - mean p_b| over p bins",
        (LABEL, PROBABILITY, WEIGHT),
        params=("n_bins", "strategy", "pos_label"),
        undefined="the weights sum to 0",
        aliases=("ece",),
        kernel="expected_calibration_error_kernel",
        better="lower",
    )
)
register(
    MetricSpec(
        "calibration_curve",
        "calibration/calibration_curve.sql",
        "calibration",
        "reliability diagram: fraction of positives and mean p per non-empty bin of p",
        (LABEL, PROBABILITY, WEIGHT),
        params=("n_bins", "strategy", "pos_label"),
        undefined="a bin whose weights sum to 0",
        output="table",
        defaults={"n_bins": 5},
        kernel="calibration_curve_kernel",
    )
)


def _calibration_curve(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    n_bins: int,
    strategy: str,
    pos_label: Any,
    by: str | Sequence[str] | None,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    """calibration_curve's body: the bins with integer ``n`` and ``bin``, and a warning for a
    bin of weight 0.
    """
    frame = compute(
        metric,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={
            "n_bins": n_bins,
            "strategy": strategy,
            "pos_label": pos_label,
            "convention": convention,
        },
        by=by,
    )
    frame["n"] = frame["n"].astype("int64")
    frame["bin"] = frame["bin"].astype("int64")
    if frame["fraction_positive"].isna().any():
        warn(
            f"{metric}: a bin's weights sum to 0; its mean_predicted and fraction_positive are NaN",
            UndefinedMetricWarning,
        )
    return frame


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_calibration.py.
_BAD_PROBABILITIES = """
    InvalidDataError
        Probabilities outside [0, 1], NULLs, labels outside {0, 1}, negative weights, no rows."""
_BAD_BINS = """
    InvalidParameterError
        ``n_bins`` not an integer in [1, 1000]; ``strategy`` not "uniform" or "quantile"."""
#: the reference of normalized_entropy and calibration_ratio
_HE_2014 = """
    .. [1] He, X. et al. (2014). Practical lessons from predicting clicks on ads at Facebook.
       ADKDD'14, section 2.1.
    """


_NORMALIZED_ENTROPY_WEIGHT = Arg(
    "weight",
    "str | None",
    None,
    """
    weight : str, optional
        Column of non-negative sample weights; None weighs every row 1. The base rate is
        weighted too.
    """,
)

_NORMALIZED_ENTROPY_EPS = Arg(
    "eps",
    "float | str",
    "auto",
    """
    eps : "auto" or float, default "auto"
        Clipping of the probabilities, as in :func:`sqlmetrics.log_loss`.
    """,
)

_NORMALIZED_ENTROPY = Function(
    "normalized_entropy",
    takes=("data", *_COLUMNS, "eps", "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Normalized entropy (NE): log loss divided by the entropy of the base rate.

    The standard metric of click-through-rate models (He et al. 2014): the log loss of the
    predictions relative to the log loss of always predicting the observed rate of positives.
    """,
    returns="""
    float
        >= 0; 1 for a model no better than the base rate, below 1 when better.
    """,
    raises=_BAD_PROBABILITIES + _BAD_EPS,
    warns="""
    UndefinedMetricWarning
        When the weights sum to 0 or only one class is present (the base rate's entropy is
        0); NaN is returned.
    """,
    see_also="""
    log_loss : the numerator.
    calibration_ratio : the other standard CTR diagnostic.
    """,
    notes=r"""
    .. math:: NE = \frac{-\frac{1}{W}\sum_i w_i [y_i \ln q_i + (1 - y_i) \ln(1 - q_i)]}
              {-[\bar p \ln \bar p + (1 - \bar p) \ln(1 - \bar p)]},
              \quad \bar p = \frac{\sum_i w_i y_i}{\sum_i w_i}

    with :math:`q_i` the probability clipped to :math:`[\epsilon, 1 - \epsilon]`. Natural
    logarithms (the ratio does not depend on the base). No ties are involved.
    """,
    references=_HE_2014,
    examples=_DATA
    + """
    >>> round(sqlmetrics.normalized_entropy(df), 4)
    0.7876
    """,
    own=(
        _NORMALIZED_ENTROPY_WEIGHT,
        _NORMALIZED_ENTROPY_EPS,
    ),
)

_CALIBRATION_RATIO = Function(
    "calibration_ratio",
    takes=("data", *_COLUMNS, "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Calibration ratio: the sum of predicted probabilities over the number of positives.
    """,
    returns="""
    float
        >= 0; 1 when as many positives are predicted as observed, above 1 when the model
        over-predicts.
    """,
    raises=_BAD_PROBABILITIES,
    warns="""
    UndefinedMetricWarning
        When no row with positive weight has label 1; NaN is returned.
    """,
    see_also="""
    normalized_entropy, expected_calibration_error
    """,
    notes=r"""
    .. math:: CR = \frac{\sum_i w_i p_i}{\sum_i w_i y_i}

    The ratio of the mean predicted CTR to the observed CTR (He et al. 2014). A ratio of 1
    says nothing about calibration within score ranges: see :func:`calibration_curve`.
    """,
    references=_HE_2014,
    examples=_DATA
    + """
    >>> round(sqlmetrics.calibration_ratio(df), 4)
    0.8833
    """,
)

_EXPECTED_CALIBRATION_ERROR_WEIGHT = Arg(
    "weight",
    "str | None",
    None,
    """
    weight : str, optional
        Column of non-negative sample weights; None weighs every row 1. Weights enter the
        bins' means and masses; quantile edges are unweighted (as scikit-learn's).
    """,
)

_EXPECTED_CALIBRATION_ERROR_N_BINS = Arg(
    "n_bins",
    "int",
    10,
    """
    n_bins : int, default 10
        Number of bins, 1 to 1000.
    """,
)

_EXPECTED_CALIBRATION_ERROR_STRATEGY = Arg(
    "strategy",
    "str",
    "uniform",
    """
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: bins of equal width on [0, 1]; ``"quantile"``: bins holding equal
        numbers of rows (edges at the percentiles of the probabilities). The edges and the
        rule for a probability on an edge (lower bin) are scikit-learn's
        ``calibration_curve``'s.
    """,
)

_EXPECTED_CALIBRATION_ERROR = Function(
    "expected_calibration_error",
    takes=("data", *_COLUMNS, "n_bins", "strategy", "pos_label", *_INTERVAL),
    call=_scalar,
    summary="""
    Expected calibration error (ECE) of predicted probabilities over probability bins.
    """,
    returns="""
    float
        In [0, 1]; 0 when every bin's mean probability equals its fraction of positives.
    """,
    raises=_BAD_PROBABILITIES + _BAD_BINS,
    warns=WARNS_NO_WEIGHT,
    see_also="""
    calibration_curve : the bins themselves.
    """,
    notes=r"""
    .. math:: ECE = \sum_b \frac{W_b}{W} \left| \bar y_b - \bar p_b \right|

    with :math:`W_b` the weight in bin :math:`b`, :math:`\bar y_b` and :math:`\bar p_b` its
    weighted fraction of positives and mean probability. Empty bins add nothing. Rows of
    equal probability share a bin, so no tie rule is needed.
    """,
    references="""
    .. [1] Naeini, M. P., Cooper, G. F. and Hauskrecht, M. (2015). Obtaining well calibrated
       probabilities using Bayesian binning. AAAI 2015.
    .. [2] Guo, C. et al. (2017). On calibration of modern neural networks. ICML 2017.
    """,
    examples=_DATA
    + """
    >>> round(sqlmetrics.expected_calibration_error(df, n_bins=2), 4)
    0.0583
    """,
    own=(
        _EXPECTED_CALIBRATION_ERROR_WEIGHT,
        _EXPECTED_CALIBRATION_ERROR_N_BINS,
        _EXPECTED_CALIBRATION_ERROR_STRATEGY,
    ),
)

_CALIBRATION_CURVE_WEIGHT = Arg(
    "weight",
    "str | None",
    None,
    """
    weight : str, optional
        Column of non-negative sample weights (weighted means; quantile edges unweighted).
    """,
)

_CALIBRATION_CURVE_N_BINS = Arg(
    "n_bins",
    "int",
    5,
    """
    n_bins : int, default 5
        Number of bins, 1 to 1000 (scikit-learn's default 5).
    """,
)

_CALIBRATION_CURVE_STRATEGY = Arg(
    "strategy",
    "str",
    "uniform",
    """
    strategy : {"uniform", "quantile"}, default "uniform"
        As in :func:`expected_calibration_error`.
    """,
)

_CALIBRATION_CURVE = Function(
    "calibration_curve",
    takes=("data", *_COLUMNS, "n_bins", "strategy", "pos_label", "by", *_ENGINE),
    call=_calibration_curve,
    summary="""
    Calibration (reliability) curve: fraction of positives and mean probability per bin.

    The table of scikit-learn's ``calibration_curve`` (``prob_true`` is
    ``fraction_positive``, ``prob_pred`` is ``mean_predicted``), with the bins' edges and
    sizes.
    """,
    returns="""
    pandas.DataFrame
        One row per non-empty bin (per slice), ordered by bin: ``bin`` (0-based),
        ``bin_lower``, ``bin_upper`` (the bin's edges), ``n`` (rows), ``weight`` (sum of
        weights), ``mean_predicted``, ``fraction_positive``.
    """,
    raises=_BAD_PROBABILITIES + _BAD_BINS,
    warns="""
    UndefinedMetricWarning
        When a bin's weights sum to 0 (its means are NaN).
    """,
    see_also="""
    expected_calibration_error : the bins' weighted mean gap.
    sqlmetrics.plot.calibration : the plot.
    """,
    notes="""
    Uniform edges are ``numpy.linspace(0, 1, n_bins + 1)``; quantile edges are
    ``numpy.percentile(p, linspace(0, 100, n_bins + 1))`` (linear interpolation). A row
    falls in bin ``searchsorted(inner edges, p, "left")``: a probability on an edge belongs to
    the lower bin. Empty bins are left out, as scikit-learn leaves them out.
    """,
    references="""
    .. [1] Niculescu-Mizil, A. and Caruana, R. (2005). Predicting good probabilities with
       supervised learning. ICML 2005.
    """,
    examples=_DATA
    + """
    >>> curve = sqlmetrics.calibration_curve(df, n_bins=2)
    >>> curve[["bin", "n", "mean_predicted", "fraction_positive"]].round(4)
       bin  n  mean_predicted  fraction_positive
    0    0  5            0.37                0.4
    1    1  1            0.80                1.0
    """,
    own=(
        _CALIBRATION_CURVE_WEIGHT,
        _CALIBRATION_CURVE_N_BINS,
        _CALIBRATION_CURVE_STRATEGY,
    ),
    returns_type="pd.DataFrame",
    interval=False,
)

#: the public functions of this module, generated into _api_calibration.py
API = (
    _NORMALIZED_ENTROPY,
    _CALIBRATION_RATIO,
    _EXPECTED_CALIBRATION_ERROR,
    _CALIBRATION_CURVE,
)
