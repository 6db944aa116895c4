"""Binary classification metrics: ROC AUC, group AUC and the confusion-matrix family."""

from __future__ import annotations

from typing import Any

from ._engine import compute, scalar
from .errors import InvalidParameterError
from .multiclass import averaged, check_average
from .registry import MetricSpec, Role, register

__all__ = [
    "accuracy",
    "auc",
    "confusion_matrix",
    "f1",
    "fbeta",
    "fpr",
    "gauc",
    "precision",
    "recall",
    "specificity",
]

LABEL = Role("label", "binary")
SCORE = Role("score", "score")
WEIGHT = Role("weight", "weight", required=False)
GROUP = Role("group", "key")
# threshold metrics: a score (compared with threshold) or a 0/1 prediction column
OPT_SCORE = Role("score", "score", required=False)
PREDICTION = Role("prediction", "binary", required=False)

register(
    MetricSpec(
        "auc",
        "classification/auc.sql",
        "classification",
        "ROC AUC: Mann-Whitney U / (P N), average ranks for tied scores",
        (LABEL, SCORE, WEIGHT),
        params=("pos_label",),
        undefined="only one class present (P = 0 or N = 0)",
        aliases=("roc_auc",),
        kernel="auc_kernel",
    )
)
register(
    MetricSpec(
        "gauc",
        "classification/gauc.sql",
        "classification",
        "group AUC: per-group ROC AUC, weighted mean over groups with both classes",
        (GROUP, LABEL, SCORE),
        params=("weighting", "pos_label"),
        undefined="no group has both a positive and a negative label",
        kernel="gauc_kernel",
    )
)

_THRESHOLD: dict[str, tuple[str, str, str]] = {
    # name: (summary, formula, undefined)
    "confusion_matrix": ("tp, fp, tn, fn at a threshold", "", "never"),
    "accuracy": ("(tp + tn) / n", "(tp + tn) / (tp + fp + tn + fn)", "never"),
    "precision": ("tp / (tp + fp)", "tp / (tp + fp)", "no predicted positive (tp + fp = 0)"),
    "recall": ("true positive rate: tp / (tp + fn)", "tp / (tp + fn)",
               "no positive label (tp + fn = 0)"),
    "specificity": ("true negative rate: tn / (tn + fp)", "tn / (tn + fp)",
                    "no negative label (tn + fp = 0)"),
    "fpr": ("false positive rate: fp / (fp + tn)", "fp / (fp + tn)",
            "no negative label (fp + tn = 0)"),
    "f1": ("2 tp / (2 tp + fp + fn)", "2 tp / (2 tp + fp + fn)",
           "no positive label and no predicted positive (tp + fp + fn = 0)"),
    "fbeta": ("(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)",
              "(1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)",
              "no positive label and no predicted positive (tp + fp + fn = 0)"),
}  # fmt: skip

for _name, (_summary, _formula, _undefined) in _THRESHOLD.items():
    _params = ["threshold"]
    if _name == "fbeta":
        _params.append("beta")
    if _name not in ("confusion_matrix", "accuracy"):
        _params.append("zero_division")
    _params.append("pos_label")
    register(
        MetricSpec(
            _name,
            f"classification/{_name}.sql",
            "classification",
            _summary,
            (LABEL, OPT_SCORE, PREDICTION, WEIGHT),
            params=tuple(_params),
            undefined=_undefined,
            aliases={"recall": ("tpr", "sensitivity"), "specificity": ("tnr",)}.get(_name, ()),
            output="table" if _name == "confusion_matrix" else "scalar",
            # every threshold metric of a call over one scan: <name>_value(options) macros
            kernel="confusion_kernel",
        )
    )


def auc(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    pos_label: Any = None,
    con: Any = None,
) -> float:
    """Area under the ROC curve, computed in SQL as the Mann-Whitney statistic.

    AUC is the probability that a random positive row scores higher than a random negative
    row, a tied pair counting 1/2. It equals scikit-learn's ``roc_auc_score``, with and
    without ``sample_weight``.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a
        DataFrame, an Arrow table or a DuckDB relation.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two
        values with ``pos_label``.
    score : str, default "score"
        Column of scores (higher means more likely positive); any finite numbers.
    weight : str, optional
        Column of non-negative sample weights; None weighs every row 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values
        (e.g. ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    con : duckdb.DuckDBPyConnection or str, optional
        Connection holding ``data`` if it is a table name, or a DuckDB database path (opened
        read-only). Default: a fresh in-memory connection.

    Returns
    -------
    float
        ROC AUC in [0, 1], or NaN when undefined.

    Raises
    ------
    ColumnNotFoundError
        A named column is missing (the message lists the columns present).
    InvalidDataError
        No rows; NULL labels, scores or weights; labels outside {0, 1}; NaN or infinite
        scores; negative weights; a non-numeric score.
    DataSourceError
        ``data`` names no existing table or file.

    Warns
    -----
    UndefinedMetricWarning
        When only one class is present; NaN is returned.

    See Also
    --------
    gauc : AUC per group, then a weighted mean.

    Notes
    -----
    With average ranks :math:`r_i` (tied scores share the mean of the ranks they span),
    :math:`P` positives and :math:`N` negatives,

    .. math:: AUC = \\frac{\\sum_{i: y_i = 1} r_i - P (P + 1) / 2}{P N}.

    With weights, each positive/negative pair counts :math:`w_i w_j` and the denominator is
    :math:`W_+ W_-`. The SQL is ``sql/classification/auc.sql``; :func:`render` shows it.

    References
    ----------
    .. [1] Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a
       receiver operating characteristic (ROC) curve. Radiology 143(1), 29-36.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> round(sqlmetrics.auc(df), 4)
    0.7222
    """
    frame = compute(
        "auc", data, con=con, columns={"label": label, "score": score, "weight": weight},
        params={"pos_label": pos_label},
    )
    return scalar(frame, "auc")


def gauc(
    data: Any,
    *,
    group: str,
    label: str = "label",
    score: str = "score",
    weighting: str = "samples",
    pos_label: Any = None,
    con: Any = None,
) -> float:
    """Group AUC: ROC AUC within each group (e.g. user), then a weighted mean over groups.

    GAUC measures how well a model orders items *for the same user*, which is what a
    recommender or CTR ranker is asked to do; a global AUC also rewards separating users.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`auc`.
    group : str
        Column identifying the group (user, session, query). Must not be NULL.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two
        values with ``pos_label``.
    score : str, default "score"
        Column of finite numeric scores.
    weighting : {"samples", "positives", "uniform"}, default "samples"
        Weight of a group's AUC in the mean: its number of rows (impressions; the DIN paper),
        its number of positives (clicks), or 1.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values
        (e.g. ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    con : duckdb.DuckDBPyConnection or str, optional
        As in :func:`auc`.

    Returns
    -------
    float
        GAUC in [0, 1], or NaN when no group has both classes.

    Raises
    ------
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`auc`; also for NULL group keys.
    InvalidParameterError
        ``weighting`` is not one of the three choices.

    Warns
    -----
    UndefinedMetricWarning
        When no group has both a positive and a negative row; NaN is returned.

    Notes
    -----
    .. math:: GAUC = \\frac{\\sum_g v_g AUC_g}{\\sum_g v_g}

    over the groups :math:`g` whose labels are not all equal (their AUC is undefined, so they
    are left out). :math:`AUC_g` uses average ranks for ties, as :func:`auc`.

    References
    ----------
    .. [1] Zhou, G. et al. (2018). Deep Interest Network for Click-Through Rate Prediction.
       KDD 2018, section 6.3.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "label": [1, 0, 0, 0, 1, 1],
    ...                    "score": [.9, .3, .5, .4, .2, .8]})
    >>> round(sqlmetrics.gauc(df, group="user"), 4)
    0.75
    """
    frame = compute(
        "gauc",
        data,
        con=con,
        columns={"group": group, "label": label, "score": score},
        params={"weighting": weighting, "pos_label": pos_label},
    )
    return scalar(frame, "gauc")


def _threshold_columns(
    name: str, label: str, score: str, prediction: str | None, weight: str | None,
    threshold: float | None, pos_label: Any = None,
) -> tuple[dict[str, str | None], dict[str, Any]]:
    from .errors import InvalidParameterError

    if prediction is not None and threshold is not None:
        raise InvalidParameterError(
            f"{name}: threshold={threshold!r} and prediction={prediction!r} both given; "
            f"pass a score column with threshold=, or a 0/1 prediction column, not both"
        )
    columns: dict[str, str | None] = {
        "label": label,
        "score": None if prediction is not None else score,
        "prediction": prediction,
        "weight": weight,
    }
    return columns, {"threshold": 0.5 if threshold is None else threshold,
                     "pos_label": pos_label}


def confusion_matrix(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    threshold: float | None = None,
    prediction: str | None = None,
    weight: str | None = None,
    pos_label: Any = None,
    con: Any = None,
) -> dict[str, float]:
    """Confusion-matrix counts of a binary classifier: tp, fp, tn, fn.

    A row is predicted positive when ``score >= threshold``, or when its ``prediction``
    column is 1 (true).

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`auc`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two
        values with ``pos_label``.
    score : str, default "score"
        Column of finite scores, compared with ``threshold``; ignored with ``prediction``.
    threshold : float, optional
        Predicted positive when ``score >= threshold``. Default 0.5. Not with ``prediction``.
    prediction : str, optional
        Column of 0/1 (or boolean) predictions, used instead of ``score`` and ``threshold``.
    weight : str, optional
        Column of non-negative sample weights: each row counts its weight.
    pos_label : str, number or bool, optional
        The label value of the positive class, for a label column of two other values
        (e.g. ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
    con : duckdb.DuckDBPyConnection or str, optional
        As in :func:`auc`.

    Returns
    -------
    dict
        ``{"tp": ..., "fp": ..., "tn": ..., "fn": ...}``: ints, or floats with ``weight``.

    Raises
    ------
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`auc`.
    InvalidParameterError
        ``threshold`` is not a finite number, or both ``threshold`` and ``prediction`` given.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .6, .35, .8, .5, .5]})
    >>> sqlmetrics.confusion_matrix(df)
    {'tp': 2, 'fp': 2, 'tn': 1, 'fn': 1}
    """
    columns, params = _threshold_columns(
        "confusion_matrix", label, score, prediction, weight, threshold, pos_label
    )
    frame = compute("confusion_matrix", data, con=con, columns=columns, params=params)
    cast = float if weight is not None else int
    return {key: cast(frame[key].iloc[0]) for key in ("tp", "fp", "tn", "fn")}


def _threshold_metric(name: str, data: Any, columns: dict[str, str | None], con: Any,
                      params: dict[str, Any], zero_division: float | str) -> float:
    frame = compute(name, data, con=con, columns=columns, params=params)
    return scalar(frame, name, params.get("zero_division", zero_division))


_DOC = """{title}

{formula}A row is predicted positive when ``score >= threshold`` (default 0.5), or when its
``prediction`` column is 1 (true).

Parameters
----------
data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
    A table or view name in ``con``, a Parquet/CSV path or glob, a DataFrame, an Arrow table
    or a DuckDB relation.
label : str, default "label"
    Column of true labels: 0/1 or boolean.
score : str, default "score"
    Column of finite scores, compared with ``threshold``; ignored with ``prediction``.
threshold : float, optional
    Predicted positive when ``score >= threshold``. Default 0.5. Not with ``prediction``.
prediction : str, optional
    Column of 0/1 (or boolean) predictions, used instead of ``score`` and ``threshold``.
{extra}weight : str, optional
    Column of non-negative sample weights: each row counts its weight.
{zero}{average}pos_label : str, number or bool, optional
    The label value of the positive class, for a label column of two other values (e.g.
    ``"spam"``, as scikit-learn's ``pos_label``); None: 0/1 or boolean labels.
con : duckdb.DuckDBPyConnection or str, optional
    Connection holding ``data`` if it is a table name, or a DuckDB database path (opened
    read-only). Default: a fresh in-memory connection.

Returns
-------
{returns}

Raises
------
ColumnNotFoundError, InvalidDataError, DataSourceError
    A missing column, bad values (NULLs, labels outside {{0, 1}}, NaN scores), no rows, or
    unreadable data.
InvalidParameterError
    ``threshold``{beta_raise} out of range, or both ``threshold`` and ``prediction``
    given.{average_raise}
{warns}
See Also
--------
confusion_matrix : the four counts behind every threshold metric.

Notes
-----
Ties: a score equal to ``threshold`` is predicted positive (``>=``), so tied scores are
never split. Undefined: {undefined_note}. The SQL is
``sql/classification/{name}.sql``{multiclass_sql}; :func:`render` shows it.

References
----------
.. [1] Sokolova, M. and Lapalme, G. (2009). A systematic analysis of performance measures
   for classification tasks. Information Processing & Management 45(4), 427-437.

Examples
--------
>>> import pandas as pd
>>> import sqlmetrics
>>> df = pd.DataFrame({{"label": [0, 0, 1, 1, 1, 0], "score": [.1, .6, .35, .8, .5, .5]}})
>>> round(sqlmetrics.{name}(df{example_args}), 4)
{example}{average_example}"""

_WARNS = """
Warns
-----
UndefinedMetricWarning
    When {undefined}, with ``zero_division="warn"``; NaN is returned.
"""

_AVERAGE = """average : {"binary", "macro", "micro", "weighted"} or None, default "binary"
    "binary": 0/1 labels, the metric of class 1 (a float). Otherwise multiclass: ``label``
    and ``prediction`` hold classes of any type (the classes are the values seen in either)
    and ``prediction=`` is required: "macro" is the plain mean over classes, "weighted"
    the mean weighted by support (true rows per class), "micro" the metric of the counts
    summed over classes (all floats); None gives one value per class (a pandas Series
    indexed by class, sorted). With ``zero_division="warn"`` or nan, a class whose value is
    0/0 is NaN and left out of "macro" and "weighted" (scikit-learn's zero_division=nan);
    0.0 or 1.0 count it as that value (scikit-learn's default is 0.0 with a warning).
"""

_RETURNS_AVERAGE = """float or pandas.Series
    A float in [0, 1], or NaN when undefined; a Series (one value per class) when
    ``average=None``. The type depends on ``average`` only, never on the data."""

_AVERAGE_RAISE = """
InvalidDataError
    With a multiclass ``average``: label and prediction of incomparable types.
InvalidParameterError
    An unknown ``average``, or a multiclass ``average`` without ``prediction`` or with
    ``threshold``."""

_AVERAGE_EXAMPLE = """

Multiclass, with ``average=`` (scikit-learn's cat/dog/pig example):

>>> animals = pd.DataFrame({{"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
...                         "p": ["cat", "pig", "dog", "cat", "cat", "dog"]}})
>>> round(sqlmetrics.{name}(animals, label="y", prediction="p", average="macro"{args}), 4)
{values}
"""

_ZERO = """zero_division : {{"warn", 0.0, 1.0, nan}}, default "warn"
    Value returned when the denominator is 0: "warn" returns NaN with an
    UndefinedMetricWarning; a number is returned silently.
"""


def _no_threshold(name: str, average: str | None, threshold: float | None) -> None:
    if threshold is not None:
        raise InvalidParameterError(
            f"{name}: threshold={threshold!r} applies to average='binary' only; with "
            f"average={average!r} pass prediction= (a column of predicted classes)"
        )


def _make(name: str, title: str, example: str, example_args: str = "",
          avg_example: str = "") -> Any:
    _summary, formula, undefined = _THRESHOLD[name]
    has_zero = name != "accuracy"
    beta = name == "fbeta"
    averages = name in ("precision", "recall", "f1", "fbeta")

    if beta:
        def metric(
            data: Any, *, beta: float, label: str = "label", score: str = "score",
            threshold: float | None = None, prediction: str | None = None,
            weight: str | None = None, zero_division: float | str = "warn",
            average: str | None = "binary", pos_label: Any = None, con: Any = None,
        ) -> Any:
            if check_average(name, average) != "binary":
                _no_threshold(name, average, threshold)
                return averaged(name, data, label=label, prediction=prediction,
                                weight=weight, average=average, zero_division=zero_division,
                                beta=beta, con=con)
            columns, params = _threshold_columns(name, label, score, prediction, weight,
                                                 threshold, pos_label)
            params.update(beta=beta, zero_division=zero_division)
            return _threshold_metric(name, data, columns, con, params, zero_division)
    elif averages:
        def metric(  # type: ignore[misc]
            data: Any, *, label: str = "label", score: str = "score",
            threshold: float | None = None, prediction: str | None = None,
            weight: str | None = None, zero_division: float | str = "warn",
            average: str | None = "binary", pos_label: Any = None, con: Any = None,
        ) -> Any:
            if check_average(name, average) != "binary":
                _no_threshold(name, average, threshold)
                return averaged(name, data, label=label, prediction=prediction,
                                weight=weight, average=average, zero_division=zero_division,
                                beta=None, con=con)
            columns, params = _threshold_columns(name, label, score, prediction, weight,
                                                 threshold, pos_label)
            params["zero_division"] = zero_division
            return _threshold_metric(name, data, columns, con, params, zero_division)
    elif has_zero:
        def metric(  # type: ignore[misc]
            data: Any, *, label: str = "label", score: str = "score",
            threshold: float | None = None, prediction: str | None = None,
            weight: str | None = None, zero_division: float | str = "warn",
            pos_label: Any = None, con: Any = None,
        ) -> float:
            columns, params = _threshold_columns(name, label, score, prediction, weight,
                                                 threshold, pos_label)
            params["zero_division"] = zero_division
            return _threshold_metric(name, data, columns, con, params, zero_division)
    else:
        def metric(  # type: ignore[misc]
            data: Any, *, label: str = "label", score: str = "score",
            threshold: float | None = None, prediction: str | None = None,
            weight: str | None = None, pos_label: Any = None, con: Any = None,
        ) -> float:
            columns, params = _threshold_columns(name, label, score, prediction, weight,
                                                 threshold, pos_label)
            return _threshold_metric(name, data, columns, con, params, "warn")

    metric.__name__ = metric.__qualname__ = name
    metric.__module__ = __name__
    metric.__doc__ = _DOC.format(
        title=title,
        formula=f"    {formula}\n\n" if formula else "",
        name=name,
        extra=("beta : float\n    Weight of recall against precision, > 0 (1 gives F1).\n"
               if beta else ""),
        zero=_ZERO if has_zero else "",
        beta_raise=" or ``beta``" if beta else "",
        warns=_WARNS.format(undefined=undefined) if has_zero else "",
        average=_AVERAGE if averages else "",
        multiclass_sql=(f" (``sql/multiclass/{name}_<average>.sql`` for a multiclass "
                        f"``average``)" if averages else ""),
        undefined_note=(f"when {undefined}, NaN (or the ``zero_division`` value)"
                        if has_zero else "never (no rows is an error)"),
        returns=_RETURNS_AVERAGE if averages else
        f"float\n    The metric in [0, 1]{', or NaN when undefined' if has_zero else ''}.",
        average_raise=_AVERAGE_RAISE if averages else "",
        average_example=_AVERAGE_EXAMPLE.format(name=name, args=example_args,
                                                values=avg_example) if averages else "",
        example=example,
        example_args=example_args,
    )
    return metric


accuracy = _make("accuracy", "Accuracy: the share of rows classified correctly.", "0.5")
precision = _make("precision", "Precision (positive predictive value).", "0.5",
                  avg_example="0.2222")
recall = _make("recall", "Recall: true positive rate (TPR, sensitivity).", "0.6667",
               avg_example="0.3333")
specificity = _make("specificity", "Specificity: true negative rate (TNR).", "0.3333")
fpr = _make("fpr", "False positive rate (fall-out): 1 - specificity.", "0.6667")
f1 = _make("f1", "F1 score: the harmonic mean of precision and recall.", "0.5714",
           avg_example="0.2667")
fbeta = _make("fbeta", "F-beta score: a weighted harmonic mean of precision and recall.",
              "0.625", ", beta=2", avg_example="0.303")
