"""Calibration and CTR metrics of predicted probabilities: normalized entropy, calibration
ratio, expected calibration error and the calibration (reliability) curve.

Templates: ``sql/calibration/`` (one kernel each), the binning shared in
``sql/_macros/kernels/calibration.sql``. The bins are scikit-learn's ``calibration_curve``'s exactly
(``strategy="uniform"`` edges ``i / n_bins``; ``"quantile"`` edges at numpy's linear
percentiles; a probability on an edge falls in the lower bin).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from .._core.registry import (
    Inference,
    MetricSpec,
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    register,
)
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import InvalidParameterError, UndefinedMetricWarning, warn
from . import classification_curves as _curves  # noqa: F401  (declares eps=, which normalized_entropy takes)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "calibration_curve",
    "calibration_ratio",
    "expected_calibration_error",
    "normalized_entropy",
]

LABEL = Role("label", "binary")
PROBABILITY = Role("score", "probability")
WEIGHT = Role("weight", "weight", required=False)

#: the most bins a query renders (each quantile edge is a column of the statement)
N_BINS_MAX = 1000


def _check_n_bins(metric: str, name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidParameterError(
            f"{metric}: {name}= must be an integer >= 1 (the number of bins); got {value!r}"
        )
    if int(value) > N_BINS_MAX:
        raise InvalidParameterError(
            f"{metric}: {name}= must be <= {N_BINS_MAX} (each bin edge is a column of the "
            f"query); got {value!r}"
        )
    return int(value)


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


def _columns(label: str, score: str, weight: str | None) -> dict[str, str | None]:
    return {"label": label, "score": score, "weight": weight}


@overload
def normalized_entropy(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    eps: float | str = "auto",
    pos_label: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def normalized_entropy(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    eps: float | str = "auto",
    pos_label: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def normalized_entropy(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    eps: float | str = "auto",
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Normalized entropy (NE): log loss divided by the entropy of the base rate.

    The standard metric of click-through-rate models (He et al. 2014): the log loss of the
    predictions relative to the log loss of always predicting the observed rate of positives.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two values
        with ``pos_label``.
    score : str, default "score"
        Column of predicted probabilities of label 1, in [0, 1].
    weight : str, optional
        Column of non-negative sample weights; None weighs every row 1. The base rate is
        weighted too.
    eps : "auto" or float, default "auto"
        Clipping of the probabilities, as in :func:`sqlmetrics.log_loss`.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` ``(value,
        lo, hi, level, method)`` instead of a float. None (default): the float alone.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The interval's method; None: this metric's default, 'bootstrap' (the methods that apply:
        'bootstrap'; README, "How sure is the number?").
    n_boot : int, default 200
        Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives the
        same interval on every engine and under any row order.
    convention : str, optional
        Follow another tool's definition: ``"trec_eval"``, ``"trec_eval_c"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` or ``"ir_measures"``
        (the README's conventions table lists what each sets). Options left out take the tool's
        values; an option passed explicitly wins where the tool can produce it, else it is an
        error.
    con : duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, optional
        The engine that runs the statement and holds ``data`` (and ``qrels=``, ``train=``) when
        they are table names. None (default): a fresh in-memory DuckDB connection. DuckDB: a
        ``duckdb`` connection, or a database file path (opened read-only). PostgreSQL: a
        SQLAlchemy ``Engine`` or ``Connection``. Spark: a ``pyspark.sql.SparkSession``.
        ClickHouse: a ``chdb`` session or connection (in process) or a ``clickhouse_connect``
        client (over HTTP). README, "Other engines".

    Returns
    -------
    float
        >= 0; 1 for a model no better than the base rate, below 1 when better.

    Raises
    ------
    InvalidDataError
        Probabilities outside [0, 1], NULLs, labels outside {0, 1}, negative weights, no rows.
    InvalidParameterError
        ``eps`` is not "auto" or a number in (0, 0.5).

    Warns
    -----
    UndefinedMetricWarning
        When the weights sum to 0 or only one class is present (the base rate's entropy is
        0); NaN is returned.

    See Also
    --------
    log_loss : the numerator.
    calibration_ratio : the other standard CTR diagnostic.

    Notes
    -----
    .. math:: NE = \frac{-\frac{1}{W}\sum_i w_i [y_i \ln q_i + (1 - y_i) \ln(1 - q_i)]}
              {-[\bar p \ln \bar p + (1 - \bar p) \ln(1 - \bar p)]},
              \quad \bar p = \frac{\sum_i w_i y_i}{\sum_i w_i}

    with :math:`q_i` the probability clipped to :math:`[\epsilon, 1 - \epsilon]`. Natural
    logarithms (the ratio does not depend on the base). No ties are involved.

    References
    ----------
    .. [1] He, X. et al. (2014). Practical lessons from predicting clicks on ads at Facebook.
       ADKDD'14, section 2.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.normalized_entropy(df), 4)
    0.7876
    """
    iv_request = ci_request("normalized_entropy", ci, ci_method, n_boot, seed)
    frame = compute(
        "normalized_entropy",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={"eps": eps, "pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result("normalized_entropy", scalar(frame, "normalized_entropy"), iv_request)


@overload
def calibration_ratio(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def calibration_ratio(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def calibration_ratio(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Calibration ratio: the sum of predicted probabilities over the number of positives.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two values
        with ``pos_label``.
    score : str, default "score"
        Column of predicted probabilities of label 1, in [0, 1].
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight. None (default) weighs
        every row 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` ``(value,
        lo, hi, level, method)`` instead of a float. None (default): the float alone.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The interval's method; None: this metric's default, 'bootstrap' (the methods that apply:
        'bootstrap'; README, "How sure is the number?").
    n_boot : int, default 200
        Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives the
        same interval on every engine and under any row order.
    convention : str, optional
        Follow another tool's definition: ``"trec_eval"``, ``"trec_eval_c"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` or ``"ir_measures"``
        (the README's conventions table lists what each sets). Options left out take the tool's
        values; an option passed explicitly wins where the tool can produce it, else it is an
        error.
    con : duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, optional
        The engine that runs the statement and holds ``data`` (and ``qrels=``, ``train=``) when
        they are table names. None (default): a fresh in-memory DuckDB connection. DuckDB: a
        ``duckdb`` connection, or a database file path (opened read-only). PostgreSQL: a
        SQLAlchemy ``Engine`` or ``Connection``. Spark: a ``pyspark.sql.SparkSession``.
        ClickHouse: a ``chdb`` session or connection (in process) or a ``clickhouse_connect``
        client (over HTTP). README, "Other engines".

    Returns
    -------
    float
        >= 0; 1 when as many positives are predicted as observed, above 1 when the model
        over-predicts.

    Raises
    ------
    InvalidDataError
        Probabilities outside [0, 1], NULLs, labels outside {0, 1}, negative weights, no rows.

    Warns
    -----
    UndefinedMetricWarning
        When no row with positive weight has label 1; NaN is returned.

    See Also
    --------
    normalized_entropy, expected_calibration_error

    Notes
    -----
    .. math:: CR = \frac{\sum_i w_i p_i}{\sum_i w_i y_i}

    The ratio of the mean predicted CTR to the observed CTR (He et al. 2014). A ratio of 1
    says nothing about calibration within score ranges: see :func:`calibration_curve`.

    References
    ----------
    .. [1] He, X. et al. (2014). Practical lessons from predicting clicks on ads at Facebook.
       ADKDD'14, section 2.1.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.calibration_ratio(df), 4)
    0.8833
    """
    iv_request = ci_request("calibration_ratio", ci, ci_method, n_boot, seed)
    frame = compute(
        "calibration_ratio",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={"pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result("calibration_ratio", scalar(frame, "calibration_ratio"), iv_request)


@overload
def expected_calibration_error(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label: Any = None,
    ci: None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float: ...


@overload
def expected_calibration_error(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label: Any = None,
    ci: float,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> Interval: ...


def expected_calibration_error(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    pos_label: Any = None,
    ci: float | None = None,
    ci_method: CiMethod | None = None,
    n_boot: int = 200,
    seed: int = 0,
    convention: str | None = None,
    con: Any = None,
) -> float | Interval:
    r"""Expected calibration error (ECE) of predicted probabilities over probability bins.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two values
        with ``pos_label``.
    score : str, default "score"
        Column of predicted probabilities of label 1, in [0, 1].
    weight : str, optional
        Column of non-negative sample weights; None weighs every row 1. Weights enter the
        bins' means and masses; quantile edges are unweighted (as scikit-learn's).
    n_bins : int, default 10
        Number of bins, 1 to 1000.
    strategy : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: bins of equal width on [0, 1]; ``"quantile"``: bins holding equal
        numbers of rows (edges at the percentiles of the probabilities). The edges and the
        rule for a probability on an edge (lower bin) are scikit-learn's
        ``calibration_curve``'s.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    ci : float, optional
        Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` ``(value,
        lo, hi, level, method)`` instead of a float. None (default): the float alone.
    ci_method : {"wilson", "delong", "t", "bootstrap"}, optional
        The interval's method; None: this metric's default, 'bootstrap' (the methods that apply:
        'bootstrap'; README, "How sure is the number?").
    n_boot : int, default 200
        Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives the
        same interval on every engine and under any row order.
    convention : str, optional
        Follow another tool's definition: ``"trec_eval"``, ``"trec_eval_c"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` or ``"ir_measures"``
        (the README's conventions table lists what each sets). Options left out take the tool's
        values; an option passed explicitly wins where the tool can produce it, else it is an
        error.
    con : duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, optional
        The engine that runs the statement and holds ``data`` (and ``qrels=``, ``train=``) when
        they are table names. None (default): a fresh in-memory DuckDB connection. DuckDB: a
        ``duckdb`` connection, or a database file path (opened read-only). PostgreSQL: a
        SQLAlchemy ``Engine`` or ``Connection``. Spark: a ``pyspark.sql.SparkSession``.
        ClickHouse: a ``chdb`` session or connection (in process) or a ``clickhouse_connect``
        client (over HTTP). README, "Other engines".

    Returns
    -------
    float
        In [0, 1]; 0 when every bin's mean probability equals its fraction of positives.

    Raises
    ------
    InvalidDataError
        Probabilities outside [0, 1], NULLs, labels outside {0, 1}, negative weights, no rows.
    InvalidParameterError
        ``n_bins`` not an integer in [1, 1000]; ``strategy`` not "uniform" or "quantile".

    Warns
    -----
    UndefinedMetricWarning
        When the weights sum to 0; NaN is returned.

    See Also
    --------
    calibration_curve : the bins themselves.

    Notes
    -----
    .. math:: ECE = \sum_b \frac{W_b}{W} \left| \bar y_b - \bar p_b \right|

    with :math:`W_b` the weight in bin :math:`b`, :math:`\bar y_b` and :math:`\bar p_b` its
    weighted fraction of positives and mean probability. Empty bins add nothing. Rows of
    equal probability share a bin, so no tie rule is needed.

    References
    ----------
    .. [1] Naeini, M. P., Cooper, G. F. and Hauskrecht, M. (2015). Obtaining well calibrated
       probabilities using Bayesian binning. AAAI 2015.
    .. [2] Guo, C. et al. (2017). On calibration of modern neural networks. ICML 2017.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.expected_calibration_error(df, n_bins=2), 4)
    0.0583
    """
    iv_request = ci_request("expected_calibration_error", ci, ci_method, n_boot, seed)
    frame = compute(
        "expected_calibration_error",
        data,
        con=con,
        columns=_columns(label, score, weight),
        params={
            "n_bins": n_bins,
            "strategy": strategy,
            "pos_label": pos_label,
            "convention": convention,
        },
        ci=iv_request,
    )
    return ci_result(
        "expected_calibration_error", scalar(frame, "expected_calibration_error"), iv_request
    )


def calibration_curve(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    n_bins: int = 5,
    strategy: str = "uniform",
    pos_label: Any = None,
    by: str | Sequence[str] | None = None,
    convention: str | None = None,
    con: Any = None,
) -> pd.DataFrame:
    r"""Calibration (reliability) curve: fraction of positives and mean probability per bin.

    The table of scikit-learn's ``calibration_curve`` (``prob_true`` is
    ``fraction_positive``, ``prob_pred`` is ``mean_predicted``), with the bins' edges and
    sizes.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two values
        with ``pos_label``.
    score : str, default "score"
        Column of predicted probabilities of label 1, in [0, 1].
    weight : str, optional
        Column of non-negative sample weights (weighted means; quantile edges unweighted).
    n_bins : int, default 5
        Number of bins, 1 to 1000 (scikit-learn's default 5).
    strategy : {"uniform", "quantile"}, default "uniform"
        As in :func:`expected_calibration_error`.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values (e.g.
        ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    by : str or list of str, optional
        Slice columns: one result (curve, row or table) per distinct combination of their
        values, the slice columns first.
    convention : str, optional
        Follow another tool's definition: ``"trec_eval"``, ``"trec_eval_c"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` or ``"ir_measures"``
        (the README's conventions table lists what each sets). Options left out take the tool's
        values; an option passed explicitly wins where the tool can produce it, else it is an
        error.
    con : duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, optional
        The engine that runs the statement and holds ``data`` (and ``qrels=``, ``train=``) when
        they are table names. None (default): a fresh in-memory DuckDB connection. DuckDB: a
        ``duckdb`` connection, or a database file path (opened read-only). PostgreSQL: a
        SQLAlchemy ``Engine`` or ``Connection``. Spark: a ``pyspark.sql.SparkSession``.
        ClickHouse: a ``chdb`` session or connection (in process) or a ``clickhouse_connect``
        client (over HTTP). README, "Other engines".

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin (per slice), ordered by bin: ``bin`` (0-based),
        ``bin_lower``, ``bin_upper`` (the bin's edges), ``n`` (rows), ``weight`` (sum of
        weights), ``mean_predicted``, ``fraction_positive``.

    Raises
    ------
    InvalidDataError
        Probabilities outside [0, 1], NULLs, labels outside {0, 1}, negative weights, no rows.
    InvalidParameterError
        ``n_bins`` not an integer in [1, 1000]; ``strategy`` not "uniform" or "quantile".

    Warns
    -----
    UndefinedMetricWarning
        When a bin's weights sum to 0 (its means are NaN).

    See Also
    --------
    expected_calibration_error : the bins' weighted mean gap.
    sqlmetrics.plot.calibration : the plot.

    Notes
    -----
    Uniform edges are ``numpy.linspace(0, 1, n_bins + 1)``; quantile edges are
    ``numpy.percentile(p, linspace(0, 100, n_bins + 1))`` (linear interpolation). A row
    falls in bin ``searchsorted(inner edges, p, "left")``: a probability on an edge belongs to
    the lower bin. Empty bins are left out, as scikit-learn leaves them out.

    References
    ----------
    .. [1] Niculescu-Mizil, A. and Caruana, R. (2005). Predicting good probabilities with
       supervised learning. ICML 2005.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> curve = sqlmetrics.calibration_curve(df, n_bins=2)
    >>> curve[["bin", "n", "mean_predicted", "fraction_positive"]].round(4)
       bin  n  mean_predicted  fraction_positive
    0    0  5            0.37                0.4
    1    1  1            0.80                1.0
    """
    frame = compute(
        "calibration_curve",
        data,
        con=con,
        columns=_columns(label, score, weight),
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
            "calibration_curve: a bin's weights sum to 0; its mean_predicted and "
            "fraction_positive are NaN",
            UndefinedMetricWarning,
        )
    return frame
