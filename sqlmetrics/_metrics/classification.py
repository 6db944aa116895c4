"""Binary classification metrics: ROC AUC, group AUC and the confusion-matrix family."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.conventions import resolve
from .._core.params import REQUIRED, Arg, Function
from .._core.registry import (
    GROUP_TESTS,
    REGISTRY,
    Inference,
    MetricSpec,
    Role,
    default_of,
    register,
)
from .._engine.run import check_params, compute, scalar
from .._inference.intervals import CiMethod, CiRequest, Interval, ci_request, ci_result
from ..errors import InvalidParameterError
from ._api_classification_separation import partial_auc
from .multiclass import averaged, check_average, check_normalize_arg

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_classification.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

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
        rank_based=True,
        inference=Inference(
            ci_methods=("delong", "bootstrap"),
            bucket_bootstrap=True,
            paired="delong",
            tests=("delong",),
        ),
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
        rank_based=True,
        inference=Inference(
            ci_methods=("t", "bootstrap"),
            group_mean="mean",
            group_weights="weighting",
            paired="groups",
            tests=GROUP_TESTS,
        ),
    )
)

_THRESHOLD: dict[str, tuple[str, str]] = {
    # name: (summary, undefined); each formula is in its function's docstring
    "confusion_matrix": ("tp, fp, tn, fn at a threshold", "never"),
    "accuracy": ("(tp + tn) / n", "never"),
    "precision": ("tp / (tp + fp)", "no predicted positive (tp + fp = 0)"),
    "recall": ("true positive rate: tp / (tp + fn)", "no positive label (tp + fn = 0)"),
    "specificity": ("true negative rate: tn / (tn + fp)", "no negative label (tn + fp = 0)"),
    "fpr": ("false positive rate: fp / (fp + tn)", "no negative label (fp + tn = 0)"),
    "f1": ("2 tp / (2 tp + fp + fn)",
           "no positive label and no predicted positive (tp + fp + fn = 0)"),
    "fbeta": ("(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)",
              "no positive label and no predicted positive (tp + fp + fn = 0)"),
}  # fmt: skip

#: Wilson's interval of the proportions: (successes, trials) as confusion counts
_PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "accuracy": (("tp", "tn"), ("tp", "tn", "fp", "fn")),
    "precision": (("tp",), ("tp", "fp")),
    "recall": (("tp",), ("tp", "fn")),
    "specificity": (("tn",), ("tn", "fp")),
    "fpr": (("fp",), ("fp", "tn")),
}
#: compare's tests of the threshold metrics: McNemar's for accuracy, else a paired bootstrap
_THRESHOLD_TESTS = {"accuracy": ("mcnemar", "bootstrap")}

for _name, (_summary, _undefined) in _THRESHOLD.items():
    _proportion = _PROPORTIONS.get(_name)
    _scalar = _name != "confusion_matrix"
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
            output="scalar" if _scalar else "table",
            # every threshold metric of a call over one scan: <name>_value(options) macros
            kernel="confusion_kernel",
            inference=Inference(
                ci_methods=("wilson", "bootstrap") if _proportion else ("bootstrap",),
                proportion=_proportion,
                paired="confusion" if _scalar else None,
                tests=_THRESHOLD_TESTS.get(_name, ("bootstrap",)) if _scalar else (),
            ),
            better="lower" if _name == "fpr" else "higher" if _scalar else "neither",
            state="confusion",  # the score only as score >= threshold
        )
    )


def _threshold_columns(
    name: str,
    label: str,
    score: str,
    prediction: str | None,
    weight: str | None,
    threshold: float | None,
    pos_label: Any = None,
) -> tuple[dict[str, str | None], dict[str, Any]]:
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
    if threshold is None:  # the registry's default (0.5), also used with prediction=
        threshold = default_of(REGISTRY[name], "threshold")
    return columns, {"threshold": threshold, "pos_label": pos_label}


# ----------------------------------------------------------------------------- the bodies
# What the public functions (generated into _api_classification.py) call, each as
# ``call(metric, data, name=name, ...)`` with every parameter the function takes.


def _auc(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    pos_label: Any,
    max_fpr: float | None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
) -> float | Interval:
    """The body of auc: :func:`partial_auc` with ``max_fpr``, else the Mann-Whitney AUC."""
    iv_request = ci_request(name, ci, ci_method, n_boot, seed)
    if max_fpr is not None:
        # partial_auc's own interval (its request: the same options)
        return partial_auc(
            data,
            label=label,
            score=score,
            weight=weight,
            max_fpr=max_fpr,
            pos_label=pos_label,
            ci=ci,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            convention=convention,
            con=con,
        )
    frame = compute(
        name,
        data,
        con=con,
        columns={"label": label, "score": score, "weight": weight},
        params={"pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result(name, scalar(frame, name), iv_request)


def _gauc(
    name: str,
    data: Any,
    *,
    group: str,
    label: str,
    score: str,
    weighting: str,
    pos_label: Any,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
) -> float | Interval:
    """The body of gauc."""
    iv_request = ci_request(name, ci, ci_method, n_boot, seed)
    frame = compute(
        name,
        data,
        con=con,
        columns={"group": group, "label": label, "score": score},
        params={"weighting": weighting, "pos_label": pos_label, "convention": convention},
        ci=iv_request,
    )
    return ci_result(name, scalar(frame, name), iv_request)


def _confusion_matrix(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    pos_label: Any,
    normalize: str | None,
    convention: str | None,
    con: Any,
) -> dict[str, float]:
    """The body of confusion_matrix: the four counts, or their fractions (``normalize``)."""
    how = check_normalize_arg(normalize, name)
    columns, params = _threshold_columns(
        name, label, score, prediction, weight, threshold, pos_label
    )
    params["convention"] = convention
    frame = compute(name, data, con=con, columns=columns, params=params)
    cast = float if weight is not None else int
    counts = {key: cast(frame[key].iloc[0]) for key in ("tp", "fp", "tn", "fn")}
    if how is None:
        return counts
    # the total each cell is divided by, as scikit-learn's rows (true), columns (pred), all
    by = {
        "true": {"tp": "tp+fn", "fn": "tp+fn", "tn": "tn+fp", "fp": "tn+fp"},
        "pred": {"tp": "tp+fp", "fp": "tp+fp", "tn": "tn+fn", "fn": "tn+fn"},
        "all": dict.fromkeys(counts, "tp+fp+tn+fn"),
    }[how]
    out = {}
    for key, value in counts.items():
        total = sum(counts[part] for part in by[key].split("+"))
        out[key] = float(value) / total if total else 0.0
    return out


def _no_threshold(name: str, average: str | None, threshold: float | None) -> None:
    if threshold is not None:
        raise InvalidParameterError(
            f"{name}: threshold={threshold!r} applies to average='binary' only; with "
            f"average={average!r} pass prediction= (a column of predicted classes)"
        )


def _binary(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    pos_label: Any,
    options: dict[str, Any],
    con: Any,
    ci: CiRequest | None = None,
) -> float:
    """The one body of the binary threshold metrics. ``options``: the metric's own options
    (``zero_division``, ``beta``), checked with the others by the registry's ParamSpecs.
    """
    columns, params = _threshold_columns(
        name, label, score, prediction, weight, threshold, pos_label
    )
    params.update(options)
    params = check_params(REGISTRY[name], params)  # the convention applied (zero_division)
    frame = compute(name, data, con=con, columns=columns, params=params, ci=ci)
    return scalar(frame, name, params.get("zero_division", "warn"))


def _averaged(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    pos_label: Any,
    labels: Sequence[Any] | None,
    options: dict[str, Any],
    average: str | None,
    con: Any,
    ci: CiRequest | None = None,
) -> float | pd.Series:
    """Precision, recall, f1 and fbeta: :func:`_binary` for ``average="binary"``, else the
    multiclass path (:func:`sqlmetrics._metrics.multiclass.averaged`).
    """
    options = resolve(REGISTRY[name], options)  # the convention applied once
    if check_average(name, average) == "binary":
        if labels is not None:
            raise InvalidParameterError(
                f"{name}: labels={labels!r} selects classes to average; with "
                f"average='binary' pass pos_label= (the positive class) instead, or a "
                f"multiclass average ('macro', 'micro', 'weighted' or None)"
            )
        return _binary(
            name,
            data,
            label=label,
            score=score,
            threshold=threshold,
            prediction=prediction,
            weight=weight,
            pos_label=pos_label,
            options=options,
            con=con,
            ci=ci,
        )
    _no_threshold(name, average, threshold)
    return averaged(
        name,
        data,
        label=label,
        prediction=prediction,
        weight=weight,
        average=average,
        zero_division=options.get("zero_division", default_of(REGISTRY[name], "zero_division")),
        beta=options.get("beta"),
        labels=labels,
        con=con,
        ci=ci,
    )


def _threshold_metric(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    pos_label: Any,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
    **options: Any,
) -> float | Interval:
    """The body of accuracy, specificity and fpr (:func:`_binary`); ``options``: the
    metric's own (``zero_division``).
    """
    iv_request = ci_request(name, ci, ci_method, n_boot, seed)
    value = _binary(
        name,
        data,
        label=label,
        score=score,
        threshold=threshold,
        prediction=prediction,
        weight=weight,
        pos_label=pos_label,
        options={**options, "convention": convention},
        con=con,
        ci=iv_request,
    )
    return ci_result(name, value, iv_request)


def _averaged_metric(
    name: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    average: str | None,
    pos_label: Any,
    labels: Sequence[Any] | None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
    **options: Any,
) -> float | pd.Series | Interval:
    """The body of precision, recall, f1 and fbeta (:func:`_averaged`); ``options``: the
    metric's own (``beta``, ``zero_division``).
    """
    iv_request = ci_request(name, ci, ci_method, n_boot, seed)
    value = _averaged(
        name,
        data,
        label=label,
        score=score,
        threshold=threshold,
        prediction=prediction,
        weight=weight,
        pos_label=pos_label,
        labels=labels,
        average=average,
        options={**options, "convention": convention},
        con=con,
        ci=iv_request,
    )
    return ci_result(name, value, iv_request)


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_classification.py.


#: the parameters the declarations take, in signature order
_INTERVAL = ("ci", "ci_method", "n_boot", "seed", "convention", "con")
_THRESHOLDED = ("data", "label", "score", "threshold", "prediction", "weight")
_TAKES_RATE = (*_THRESHOLDED, "zero_division", "pos_label", *_INTERVAL)
_TAKES_AVERAGED = (*_THRESHOLDED, "zero_division", "average", "pos_label", "labels", *_INTERVAL)
#: the texts that several docstrings share; a piece that others continue ends with its last
#: line's newline, and the piece after it starts at the entries' indent
_PREDICTED = """
    A row is predicted positive when ``score >= threshold`` (default 0.5), or when its
    ``prediction`` column is 1 (true).
    """
_TIES = """
    Ties: a score equal to ``threshold`` is predicted positive (``>=``), so tied scores are
    never split."""
_EXAMPLE = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .6, .35, .8, .5, .5]})
"""
#: also auc_bounds' (classification_bounds.py), as are the Raises and reference of AUC
RAISES_COLUMNS = """
    ColumnNotFoundError
        A named column is missing (the message lists the columns present).
    InvalidDataError
        No rows; NULL labels, scores or weights; labels outside {0, 1}; NaN or infinite
        scores; negative weights; a non-numeric score.
"""
RAISES_SOURCE = """    DataSourceError
        ``data`` names no existing table or file.
    """
HANLEY = """
    .. [1] Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a
       receiver operating characteristic (ROC) curve. Radiology 143(1), 29-36.
"""
EXAMPLE_AUC = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
"""
_ANIMALS = """
    Multiclass, with ``average=`` (scikit-learn's cat/dog/pig example):

    >>> animals = pd.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                         "p": ["cat", "pig", "dog", "cat", "cat", "dog"]})"""


_RAISES_DATA = """
    ColumnNotFoundError, InvalidDataError, DataSourceError
        A missing column, bad values (NULLs, labels outside {0, 1}, NaN scores), no rows, or
        unreadable data.
"""
_RAISES_THRESHOLD = (
    _RAISES_DATA
    + """    InvalidParameterError
        ``threshold`` out of range, or both ``threshold`` and ``prediction`` given.
"""
)
#: the multiclass averages' errors (precision, recall, f1, fbeta), after the binary ones
_RAISES_MULTICLASS = """    InvalidDataError
        With a multiclass ``average``: label and prediction of incomparable types.
    InvalidParameterError
        An unknown ``average``, or a multiclass ``average`` without ``prediction`` or with
        ``threshold``.
    """


_SEE_ALSO_COUNTS = """
    confusion_matrix : the four counts behind every threshold metric.
    """


_SOKOLOVA = """
    .. [1] Sokolova, M. and Lapalme, G. (2009). A systematic analysis of performance measures
       for classification tasks. Information Processing & Management 45(4), 427-437.
    """


_RETURNS_AVERAGED = """
    float or pandas.Series
        A float in [0, 1], or NaN when undefined; a Series (one value per class) when
        ``average=None``. The type depends on ``average`` only, never on the data.
    """


_WARNS_F = """
    UndefinedMetricWarning
        When no positive label and no predicted positive (tp + fp + fn = 0), with
        ``zero_division="warn"``; NaN is returned.
    """


_RETURNS_RATE = """
    float
        The metric in [0, 1], or NaN when undefined.
    """


_PREDICTION = Arg(
    "prediction",
    "str | None",
    None,
    """
    prediction : str, optional
        Column of 0/1 (or boolean) predictions, used instead of ``score`` and ``threshold``.
    """,
)


_MAX_FPR = Arg(
    "max_fpr",
    "float | None",
    None,
    """
    max_fpr : float, optional
        The partial AUC over ``0 <= FPR <= max_fpr`` (``0 < max_fpr <= 1``),
        McClish-standardised, as scikit-learn's ``roc_auc_score(max_fpr=)``: computed by
        :func:`partial_auc` (see there). None: the whole area.
    """,
)


_NORMALIZE = Arg(
    "normalize",
    "str | None",
    None,
    """
    normalize : {"true", "pred", "all"}, optional
        Fractions instead of counts, as scikit-learn's ``confusion_matrix(normalize=)``:
        ``"true"`` divides by the count of each true class (tp and fn by the positives, tn
        and fp by the negatives), ``"pred"`` by each predicted class (tp and fp by the
        predicted positives, tn and fn by the predicted negatives), ``"all"`` by all rows
        (weights with ``weight``). A zero total gives 0, as there. None: counts.
    """,
)


_ZERO_DIVISION = Arg(
    "zero_division",
    "float | str | None",
    None,
    """
    zero_division : {"warn", 0.0, 1.0, nan}, default "warn"
        Value returned when the denominator is 0: "warn" returns NaN with an
        UndefinedMetricWarning; a number is returned silently.
    """,
)


_AVERAGE = Arg(
    "average",
    "str | None",
    "binary",
    """
    average : {"binary", "macro", "micro", "weighted"} or None, default "binary"
        "binary": 0/1 labels, the metric of class 1 (a float). Otherwise multiclass: ``label``
        and ``prediction`` hold classes of any type (the classes are the values seen in either)
        and ``prediction=`` is required: "macro" is the plain mean over classes, "weighted"
        the mean weighted by support (true rows per class), "micro" the metric of the counts
        summed over classes (all floats); None gives one value per class (a pandas Series
        indexed by class, sorted). With ``zero_division="warn"`` or nan, a class whose value is
        0/0 is NaN and left out of "macro" and "weighted" (scikit-learn's zero_division=nan);
        0.0 or 1.0 count it as that value (scikit-learn's default is 0.0 with a warning).
    """,
)


_LABELS = Arg(
    "labels",
    "Sequence[Any] | None",
    None,
    """
    labels : list, optional
        With a multiclass ``average``: the classes to include (scikit-learn's ``labels``),
        in their order for ``average=None``. A listed class absent from the data counts with
        support 0 (its precision and recall are 0/0, see ``zero_division``); a class left out
        still counts in the other classes' counts (e.g. as their false positives); "micro"
        sums the listed classes only. Strings, numbers or booleans, as the label column's
        type. Not with ``average="binary"`` (use ``pos_label``).
    """,
)


_BETA = Arg(
    "beta",
    "float",
    REQUIRED,
    """
    beta : float
        Weight of recall against precision, >= 0 (1 gives F1; 0 gives precision, as
        scikit-learn's ``fbeta_score(beta=0)``).
    """,
)


_GROUP = Arg(
    "group",
    "str",
    REQUIRED,
    """
    group : str
        Column identifying the group (user, session, query). Must not be NULL.
    """,
)


_WEIGHTING = Arg(
    "weighting",
    "str",
    "samples",
    """
    weighting : {"samples", "positives", "uniform"}, default "samples"
        Weight of a group's AUC in the mean: its number of rows (impressions; the DIN paper),
        its number of positives (clicks), or 1.
    """,
)


_ACCURACY = Function(
    "accuracy",
    takes=(*_THRESHOLDED, "pos_label", *_INTERVAL),
    call=_threshold_metric,
    summary="""
    Accuracy: the share of rows classified correctly.

        (tp + tn) / (tp + fp + tn + fn)
"""
    + _PREDICTED,
    returns="""
    float
        The metric in [0, 1].
    """,
    raises=_RAISES_THRESHOLD,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: never (no rows is an error). The SQL is
    ``sql/classification/accuracy.sql``; :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.accuracy(df), 4)
    0.5
    """,
    own=(_PREDICTION,),
)


_AUC = Function(
    "auc",
    takes=("data", "label", "score", "weight", "pos_label", "max_fpr", *_INTERVAL),
    call=_auc,
    summary="""
    Area under the ROC curve, computed in SQL as the Mann-Whitney statistic.

    AUC is the probability that a random positive row scores higher than a random negative
    row, a tied pair counting 1/2. It equals scikit-learn's ``roc_auc_score``, with and
    without ``sample_weight``.
    """,
    returns="""
    float
        ROC AUC in [0, 1], or NaN when undefined.
    """,
    raises=RAISES_COLUMNS + RAISES_SOURCE,
    warns="""
    UndefinedMetricWarning
        When only one class is present; NaN is returned.
    """,
    see_also="""
    gauc : AUC per group, then a weighted mean.
    partial_auc : the area up to a false positive rate (``max_fpr=``).
    """,
    notes=r"""
    With average ranks :math:`r_i` (tied scores share the mean of the ranks they span),
    :math:`P` positives and :math:`N` negatives,

    .. math:: AUC = \frac{\sum_{i: y_i = 1} r_i - P (P + 1) / 2}{P N}.

    With weights, each positive/negative pair counts :math:`w_i w_j` and the denominator is
    :math:`W_+ W_-`. The SQL is ``sql/classification/auc.sql``; :func:`render` shows it.
    """,
    references=HANLEY,
    examples=EXAMPLE_AUC
    + """    >>> round(sqlmetrics.auc(df), 4)
    0.7222
    """,
    own=(_MAX_FPR,),
)


_CONFUSION_MATRIX = Function(
    "confusion_matrix",
    takes=(*_THRESHOLDED, "pos_label", "normalize", "convention", "con"),
    call=_confusion_matrix,
    summary="""
    Confusion-matrix counts of a binary classifier: tp, fp, tn, fn.

    A row is predicted positive when ``score >= threshold``, or when its ``prediction``
    column is 1 (true).
    """,
    returns="""
    dict
        ``{"tp": ..., "fp": ..., "tn": ..., "fn": ...}``: ints, or floats with ``weight`` or
        ``normalize``.
    """,
    raises="""
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`auc`.
    InvalidParameterError
        ``threshold`` is not a finite number, or both ``threshold`` and ``prediction`` given.
    """,
    see_also="""
    precision, recall, f1 : metrics of these counts.
    """,
    notes=_TIES
    + """ Undefined: never (no rows is an error). The SQL is
    ``sql/classification/confusion_matrix.sql``; :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> sqlmetrics.confusion_matrix(df)
    {'tp': 2, 'fp': 2, 'tn': 1, 'fn': 1}
    >>> fractions = sqlmetrics.confusion_matrix(df, normalize="true")
    >>> {key: round(value, 4) for key, value in fractions.items()}
    {'tp': 0.6667, 'fp': 0.6667, 'tn': 0.3333, 'fn': 0.3333}
    """,
    own=(
        _PREDICTION,
        _NORMALIZE,
    ),
    returns_type="dict[str, float]",
    interval=False,
)


_F1 = Function(
    "f1",
    takes=_TAKES_AVERAGED,
    call=_averaged_metric,
    summary="""
    F1 score: the harmonic mean of precision and recall.

        2 tp / (2 tp + fp + fn)
"""
    + _PREDICTED,
    returns=_RETURNS_AVERAGED,
    raises=_RAISES_THRESHOLD + _RAISES_MULTICLASS,
    warns=_WARNS_F,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no positive label and no predicted positive (tp + fp + fn = 0),
    NaN (or the ``zero_division`` value). The SQL is
    ``sql/classification/f1.sql`` (``sql/multiclass/f1_<average>.sql`` for a multiclass
    ``average``); :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.f1(df), 4)
    0.5714
"""
    + _ANIMALS
    + """
    >>> round(sqlmetrics.f1(animals, label="y", prediction="p", average="macro"), 4)
    0.2667
    """,
    own=(
        _PREDICTION,
        _ZERO_DIVISION,
        _AVERAGE,
        _LABELS,
    ),
    returns_type="float | pd.Series",
)


_FBETA = Function(
    "fbeta",
    takes=("data", "beta", *_TAKES_AVERAGED[1:]),
    call=_averaged_metric,
    summary="""
    F-beta score: a weighted harmonic mean of precision and recall.

        (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)
"""
    + _PREDICTED,
    returns=_RETURNS_AVERAGED,
    raises=_RAISES_DATA
    + """    InvalidParameterError
        ``threshold`` or ``beta`` out of range, or both ``threshold`` and ``prediction`` given.
"""
    + _RAISES_MULTICLASS,
    warns=_WARNS_F,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no positive label and no predicted positive (tp + fp + fn = 0),
    NaN (or the ``zero_division`` value). The SQL is
    ``sql/classification/fbeta.sql`` (``sql/multiclass/fbeta_<average>.sql`` for a multiclass
    ``average``); :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.fbeta(df, beta=2), 4)
    0.625
"""
    + _ANIMALS
    + """
    >>> round(sqlmetrics.fbeta(animals, label="y", prediction="p", average="macro", beta=2), 4)
    0.303
    """,
    own=(_BETA, _PREDICTION, _ZERO_DIVISION, _AVERAGE, _LABELS),
    doc_order=("data", "label", "score", "threshold", "prediction", "beta", *_TAKES_AVERAGED[5:]),
    returns_type="float | pd.Series",
)


_FPR = Function(
    "fpr",
    takes=_TAKES_RATE,
    call=_threshold_metric,
    summary="""
    False positive rate (fall-out): 1 - specificity.

        fp / (fp + tn)
"""
    + _PREDICTED,
    returns=_RETURNS_RATE,
    raises=_RAISES_THRESHOLD,
    warns="""
    UndefinedMetricWarning
        When no negative label (fp + tn = 0), with ``zero_division="warn"``; NaN is returned.
    """,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no negative label (fp + tn = 0), NaN (or the ``zero_division``
    value). The SQL is
    ``sql/classification/fpr.sql``; :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.fpr(df), 4)
    0.6667
    """,
    own=(
        _PREDICTION,
        _ZERO_DIVISION,
    ),
)


_GAUC = Function(
    "gauc",
    takes=("data", "group", "label", "score", "weighting", "pos_label", *_INTERVAL),
    call=_gauc,
    summary="""
    Group AUC: ROC AUC within each group (e.g. user), then a weighted mean over groups.

    GAUC measures how well a model orders items *for the same user*, which is what a
    recommender or CTR ranker is asked to do; a global AUC also rewards separating users.
    """,
    returns="""
    float
        GAUC in [0, 1], or NaN when no group has both classes.
    """,
    raises="""
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`auc`; also for NULL group keys.
    InvalidParameterError
        ``weighting`` is not one of the three choices.
    """,
    warns="""
    UndefinedMetricWarning
        When no group has both a positive and a negative row; NaN is returned.
    """,
    notes=r"""
    .. math:: GAUC = \frac{\sum_g v_g AUC_g}{\sum_g v_g}

    over the groups :math:`g` whose labels are not all equal (their AUC is undefined, so they
    are left out). :math:`AUC_g` uses average ranks for ties, as :func:`auc`.
    """,
    references="""
    .. [1] Zhou, G. et al. (2018). Deep Interest Network for Click-Through Rate Prediction.
       KDD 2018, section 6.3.
    """,
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "label": [1, 0, 0, 0, 1, 1],
    ...                    "score": [.9, .3, .5, .4, .2, .8]})
    >>> round(sqlmetrics.gauc(df, group="user"), 4)
    0.75
    """,
    own=(
        _GROUP,
        _WEIGHTING,
    ),
)


_PRECISION = Function(
    "precision",
    takes=_TAKES_AVERAGED,
    call=_averaged_metric,
    summary="""
    Precision (positive predictive value).

        tp / (tp + fp)
"""
    + _PREDICTED,
    returns=_RETURNS_AVERAGED,
    raises=_RAISES_THRESHOLD + _RAISES_MULTICLASS,
    warns="""
    UndefinedMetricWarning
        When no predicted positive (tp + fp = 0), with ``zero_division="warn"``; NaN is
        returned.
    """,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no predicted positive (tp + fp = 0), NaN (or the
    ``zero_division`` value). The SQL is
    ``sql/classification/precision.sql`` (``sql/multiclass/precision_<average>.sql`` for a
    multiclass ``average``); :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.precision(df), 4)
    0.5
"""
    + _ANIMALS
    + """
    >>> round(sqlmetrics.precision(animals, label="y", prediction="p", average="macro"), 4)
    0.2222
    """,
    own=(
        _PREDICTION,
        _ZERO_DIVISION,
        _AVERAGE,
        _LABELS,
    ),
    returns_type="float | pd.Series",
)


_RECALL = Function(
    "recall",
    takes=_TAKES_AVERAGED,
    call=_averaged_metric,
    summary="""
    Recall: true positive rate (TPR, sensitivity).

        tp / (tp + fn)
"""
    + _PREDICTED,
    returns=_RETURNS_AVERAGED,
    raises=_RAISES_THRESHOLD + _RAISES_MULTICLASS,
    warns="""
    UndefinedMetricWarning
        When no positive label (tp + fn = 0), with ``zero_division="warn"``; NaN is returned.
    """,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no positive label (tp + fn = 0), NaN (or the ``zero_division``
    value). The SQL is
    ``sql/classification/recall.sql`` (``sql/multiclass/recall_<average>.sql`` for a multiclass
    ``average``); :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.recall(df), 4)
    0.6667
"""
    + _ANIMALS
    + """
    >>> round(sqlmetrics.recall(animals, label="y", prediction="p", average="macro"), 4)
    0.3333
    """,
    own=(
        _PREDICTION,
        _ZERO_DIVISION,
        _AVERAGE,
        _LABELS,
    ),
    returns_type="float | pd.Series",
)


_SPECIFICITY = Function(
    "specificity",
    takes=_TAKES_RATE,
    call=_threshold_metric,
    summary="""
    Specificity: true negative rate (TNR).

        tn / (tn + fp)
"""
    + _PREDICTED,
    returns=_RETURNS_RATE,
    raises=_RAISES_THRESHOLD,
    warns="""
    UndefinedMetricWarning
        When no negative label (tn + fp = 0), with ``zero_division="warn"``; NaN is returned.
    """,
    see_also=_SEE_ALSO_COUNTS,
    notes=_TIES
    + """ Undefined: when no negative label (tn + fp = 0), NaN (or the ``zero_division``
    value). The SQL is
    ``sql/classification/specificity.sql``; :func:`render` shows it.
    """,
    references=_SOKOLOVA,
    examples=_EXAMPLE
    + """    >>> round(sqlmetrics.specificity(df), 4)
    0.3333
    """,
    own=(
        _PREDICTION,
        _ZERO_DIVISION,
    ),
)


#: the public functions of this module, generated into _api_classification.py
API = (
    _AUC,
    _GAUC,
    _CONFUSION_MATRIX,
    _ACCURACY,
    _PRECISION,
    _RECALL,
    _SPECIFICITY,
    _FPR,
    _F1,
    _FBETA,
)
