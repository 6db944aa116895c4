"""Binary classification metrics: ROC AUC, group AUC and the confusion-matrix family."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.conventions import resolve
from .._core.params import REQUIRED, Function, args, prose, references
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
from .._inference.intervals import CiRequest, Interval, ci_request
from ..errors import InvalidParameterError
from ._api_classification_separation import partial_auc
from .multiclass import (
    ANIMALS,
    EXAMPLE,
    SOKOLOVA,
    THRESHOLDED,
    averaged,
    check_average,
    check_normalize_arg,
    with_interval,
)
from .ranking import _INTERVAL

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
    "accuracy": ("(tp + tn) / n", "the weights sum to 0 (weight=)"),
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
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    pos_label: Any,
    **options: Any,
) -> tuple[dict[str, str | None], dict[str, Any]]:
    """A threshold metric's columns and params (``options``: its own, with ``convention``)."""
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
    return columns, {"threshold": threshold, "pos_label": pos_label, **options}


# ----------------------------------------------------------------------------- the bodies
# What the public functions (generated into _api_classification.py) call, each as
# ``call(metric, data, name=name, ...)`` with every parameter the function takes.


@with_interval
def _one_value(name: str, data: Any, *, con: Any, ci: CiRequest | None, **options: Any) -> float:
    """The body of gauc (and of auc without ``max_fpr``): ``options`` are the metric's columns
    (its registry roles) and its params.
    """
    roles = {role.name for role in REGISTRY[name].roles}
    columns = {key: value for key, value in options.items() if key in roles}
    params = {key: value for key, value in options.items() if key not in roles}
    return scalar(compute(name, data, con=con, columns=columns, params=params, ci=ci), name)


def _auc(name: str, data: Any, *, max_fpr: float | None, **options: Any) -> float | Interval:
    """The body of auc: the Mann-Whitney AUC, or with ``max_fpr`` :func:`partial_auc` (its own
    interval; the interval options checked as auc's first).
    """
    if max_fpr is None:
        return _one_value(name, data, **options)
    ci_request(name, *(options[key] for key in ("ci", "ci_method", "n_boot", "seed")))
    return partial_auc(data, max_fpr=max_fpr, **options)  # type: ignore[no-any-return]


def _confusion_matrix(
    name: str, data: Any, *, normalize: str | None, con: Any, **options: Any
) -> dict[str, float]:
    """The body of confusion_matrix: the four counts, or their fractions (``normalize``)."""
    how = check_normalize_arg(normalize, name)
    columns, params = _threshold_columns(name, **options)
    frame = compute(name, data, con=con, columns=columns, params=params)
    cast = float if options["weight"] is not None else int
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


def _binary(name: str, data: Any, *, con: Any, ci: CiRequest | None, **options: Any) -> float:
    """The one body of the binary threshold metrics. ``options``: the columns, ``threshold``,
    ``pos_label`` and the metric's own options (``zero_division``, ``beta``), checked with the
    others by the registry's ParamSpecs.
    """
    columns, params = _threshold_columns(name, **options)
    params = check_params(REGISTRY[name], params)  # the convention applied (zero_division)
    frame = compute(name, data, con=con, columns=columns, params=params, ci=ci)
    return scalar(frame, name, params.get("zero_division", "warn"))


@with_interval
def _threshold_metric(name: str, data: Any, **options: Any) -> float:
    """The body of accuracy, specificity and fpr."""
    return _binary(name, data, **options)


@with_interval
def _averaged_metric(
    name: str,
    data: Any,
    *,
    average: str | None,
    labels: Sequence[Any] | None,
    con: Any,
    ci: CiRequest | None,
    **options: Any,
) -> float | pd.Series:
    """The body of precision, recall, f1 and fbeta: :func:`_binary` for ``average="binary"``,
    else the multiclass path (:func:`sqlmetrics._metrics.multiclass.averaged`).
    """
    own = {
        key: options.pop(key) for key in ("zero_division", "beta", "convention") if key in options
    }
    own = resolve(REGISTRY[name], own)  # the convention applied once
    if check_average(name, average) == "binary":
        if labels is not None:
            raise InvalidParameterError(
                f"{name}: labels={labels!r} selects classes to average; with "
                f"average='binary' pass pos_label= (the positive class) instead, or a "
                f"multiclass average ('macro', 'micro', 'weighted' or None)"
            )
        return _binary(name, data, con=con, ci=ci, **options, **own)
    if options["threshold"] is not None:
        raise InvalidParameterError(
            f"{name}: threshold={options['threshold']!r} applies to average='binary' only; with "
            f"average={average!r} pass prediction= (a column of predicted classes)"
        )
    return averaged(
        name,
        data,
        label=options["label"],
        prediction=options["prediction"],
        weight=options["weight"],
        average=average,
        zero_division=own.get("zero_division", default_of(REGISTRY[name], "zero_division")),
        beta=own.get("beta"),
        labels=labels,
        con=con,
        ci=ci,
    )


# ----------------------------------------------------------------------------- the functions
# Each public function declared (decision 0013): ``python -m tools.api`` writes the typed
# functions, their ci= overloads and docstrings into _api_classification.py.


#: the parameters the declarations take, in signature order
_TAKES_RATE = (*THRESHOLDED, "zero_division", "pos_label", *_INTERVAL)
_TAKES_AVERAGED = (*THRESHOLDED, "zero_division", "average", "pos_label", "labels", *_INTERVAL)
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
#: the threshold metrics' shared texts (:func:`_threshold`)
_PREDICTED = """
    A row is predicted positive when ``score >= threshold`` (default 0.5), or when its
    ``prediction`` column is 1 (true).
    """
_ANIMALS = (
    """
    Multiclass, with ``average=`` (scikit-learn's cat/dog/pig example):
"""
    + ANIMALS
)
_RETURNS_AVERAGED = """
    float or pandas.Series
        A float in [0, 1], or NaN when undefined; a Series (one value per class) when
        ``average=None``. The type depends on ``average`` only, never on the data.
    """
_RETURNS_RATE = """
    float
        The metric in [0, 1], or NaN when undefined.
    """
#: what a threshold metric's InvalidParameterError refuses, of the options it takes
_CHECKED = {
    "threshold": "``threshold`` not a finite number",
    "beta": "``beta`` negative or not finite",
    "zero_division": "an unknown ``zero_division``",
    "normalize": "an unknown ``normalize``",
}
_RAISES_THRESHOLD = """
    ColumnNotFoundError, InvalidDataError, DataSourceError
        A missing column, bad values (NULLs, labels outside {0, 1}, NaN scores), no rows, or
        unreadable data.
    InvalidParameterError
"""
#: the multiclass averages' errors (precision, recall, f1, fbeta), after the binary ones
_RAISES_MULTICLASS = """    InvalidDataError
        With a multiclass ``average``: label and prediction of incomparable types.
    InvalidParameterError
        An unknown ``average``, or a multiclass ``average`` without ``prediction`` or with
        ``threshold``.
    """
_THRESHOLD_ARGS = args(
    """
    prediction : str, optional
        Column of 0/1 (or boolean) predictions, used instead of ``score`` and ``threshold``.
    beta : float
        Weight of recall against precision, >= 0 (1 gives F1; 0 gives precision, as
        scikit-learn's ``fbeta_score(beta=0)``).
    zero_division : {"warn", 0.0, 1.0, nan}, default "warn"
        Value returned when the denominator is 0: "warn" returns NaN with an
        UndefinedMetricWarning; a number is returned silently.
    average : {"binary", "macro", "micro", "weighted"} or None, default "binary"
        "binary": 0/1 labels, the metric of class 1 (a float). Otherwise multiclass: ``label``
        and ``prediction`` hold classes of any type (the classes are the values seen in either)
        and ``prediction=`` is required: "macro" is the plain mean over classes, "weighted"
        the mean weighted by support (true rows per class), "micro" the metric of the counts
        summed over classes (all floats); None gives one value per class (a pandas Series
        indexed by class, sorted). With ``zero_division="warn"`` or nan, a class whose value is
        0/0 is NaN and left out of "macro" and "weighted" (scikit-learn's zero_division=nan);
        0.0 or 1.0 count it as that value (scikit-learn's default is 0.0 with a warning).
    labels : list, optional
        With a multiclass ``average``: the classes to include (scikit-learn's ``labels``),
        in their order for ``average=None``. A listed class absent from the data counts with
        support 0 (its precision and recall are 0/0, see ``zero_division``); a class left out
        still counts in the other classes' counts (e.g. as their false positives); "micro"
        sums the listed classes only. Strings, numbers or booleans, as the label column's
        type. Not with ``average="binary"`` (use ``pos_label``).
    normalize : {"true", "pred", "all"}, optional
        Fractions instead of counts, as scikit-learn's ``confusion_matrix(normalize=)``:
        ``"true"`` divides by the count of each true class (tp and fn by the positives, tn
        and fp by the negatives), ``"pred"`` by each predicted class (tp and fp by the
        predicted positives, tn and fn by the predicted negatives), ``"all"`` by all rows
        (weights with ``weight``). A zero total gives 0, as there. None: counts.
    """,
    prediction=("str | None", None),
    beta=("float", REQUIRED),
    zero_division=("float | str | None", None),
    average=("str | None", "binary"),
    labels=("Sequence[Any] | None", None),
    normalize=("str | None", None),
)


def _threshold(
    name: str,
    summary: str,
    takes: tuple[str, ...],
    example: str = "",
    multiclass: str = "",
    **fields: Any,
) -> Function:
    """A threshold metric's declaration: its Raises, Warns, Notes, See Also and References
    written from its undefined case (:data:`_THRESHOLD`) and what it takes; ``example``: the
    call's arguments after ``df`` and its value; ``multiclass``: the value of the macro average
    of the cat/dog/pig example (``example``'s arguments added).
    """
    undefined = _THRESHOLD[name][1]
    never = undefined == "never"
    averaged = "average" in takes
    checked = ", ".join(text for option, text in _CHECKED.items() if option in takes)
    zero_division = "zero_division" in takes
    warned = ', with ``zero_division="warn"``' if zero_division else ""
    warns = f"When {undefined}{warned}; NaN is returned."
    sql = f"``sql/classification/{name}.sql``"
    if averaged:
        sql += f" (``sql/multiclass/{name}_<average>.sql`` for a multiclass ``average``)"
    arguments, value = example.split("\n") if example else ("", "")
    examples = f"{EXAMPLE}    >>> round(sqlmetrics.{name}(df{arguments}), 4)\n    {value}"
    if multiclass:
        call = f'sqlmetrics.{name}(animals, label="y", prediction="p", average="macro"{arguments})'
        examples += f"\n{_ANIMALS}\n    >>> round({call}, 4)\n    {multiclass}"
    sections: dict[str, Any] = {
        "call": _averaged_metric if averaged else _threshold_metric,
        "summary": summary + "\n\n" + inspect.cleandoc(_PREDICTED),
        "returns": _RETURNS_AVERAGED
        if averaged
        else _RETURNS_RATE.replace(", or NaN when undefined" * never, ""),
        "raises": _RAISES_THRESHOLD
        + textwrap.indent(
            prose(f"{checked}, or both ``threshold`` and ``prediction`` given.", 88), " " * 8
        )
        + "\n"
        + (_RAISES_MULTICLASS if averaged else ""),
        "warns": ""
        if never
        else "\nUndefinedMetricWarning\n" + textwrap.indent(prose(warns, 92), "    "),
        "see_also": "confusion_matrix : the four counts behind every threshold metric.",
        "notes": prose(
            "Ties: a score equal to ``threshold`` is predicted positive (``>=``), so tied scores "
            "are never split. Undefined: "
            + (
                "never (no rows is an error)"
                if never
                else f"when {undefined}, NaN" + " (or the ``zero_division`` value)" * zero_division
            )
            + f". The SQL is {sql}; :func:`render` shows it."
        ),
        "references": SOKOLOVA,
        "examples": examples if example else "",
        "own": tuple(arg for arg in _THRESHOLD_ARGS if arg.name in takes),
        "returns_type": "float | pd.Series" if averaged else "float",
    }
    return Function(name, takes, **{**sections, **fields})


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
    own=args(
        """
        max_fpr : float, optional
            The partial AUC over ``0 <= FPR <= max_fpr`` (``0 < max_fpr <= 1``),
            McClish-standardised, as scikit-learn's ``roc_auc_score(max_fpr=)``: computed by
            :func:`partial_auc` (see there). None: the whole area.
        """,
        max_fpr=("float | None", None),
    ),
)
_GAUC = Function(
    "gauc",
    takes=("data", "group", "label", "score", "weighting", "pos_label", *_INTERVAL),
    call=_one_value,
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
    references=references(
        """Zhou, G. et al. (2018). Deep Interest Network for Click-Through Rate Prediction.
        KDD 2018, section 6.3."""
    ),
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "label": [1, 0, 0, 0, 1, 1],
    ...                    "score": [.9, .3, .5, .4, .2, .8]})
    >>> round(sqlmetrics.gauc(df, group="user"), 4)
    0.75
    """,
    own=args(
        """
        group : str
            Column identifying the group (user, session, query). Must not be NULL.
        weighting : {"samples", "positives", "uniform"}, default "samples"
            Weight of a group's AUC in the mean: its number of rows (impressions; the DIN paper),
            its number of positives (clicks), or 1.
        """,
        group=("str", REQUIRED),
        weighting=("str", "samples"),
    ),
)
_CONFUSION_MATRIX = _threshold(
    "confusion_matrix",
    "Confusion-matrix counts of a binary classifier: tp, fp, tn, fn.",
    (*THRESHOLDED, "pos_label", "normalize", "convention", "con"),
    call=_confusion_matrix,
    returns="""
    dict
        ``{"tp": ..., "fp": ..., "tn": ..., "fn": ...}``: ints, or floats with ``weight`` or
        ``normalize``.
    """,
    see_also="precision, recall, f1 : metrics of these counts.",
    examples=EXAMPLE
    + """    >>> sqlmetrics.confusion_matrix(df)
    {'tp': 2, 'fp': 2, 'tn': 1, 'fn': 1}
    >>> fractions = sqlmetrics.confusion_matrix(df, normalize="true")
    >>> {key: round(value, 4) for key, value in fractions.items()}
    {'tp': 0.6667, 'fp': 0.6667, 'tn': 0.3333, 'fn': 0.3333}
    """,
    returns_type="dict[str, float]",
    interval=False,
)
_ACCURACY = _threshold(
    "accuracy",
    "Accuracy: the share of rows classified correctly.\n\n    (tp + tn) / (tp + fp + tn + fn)",
    (*THRESHOLDED, "pos_label", *_INTERVAL),
    "\n0.5",
)
_PRECISION = _threshold(
    "precision",
    "Precision (positive predictive value).\n\n    tp / (tp + fp)",
    _TAKES_AVERAGED,
    "\n0.5",
    "0.2222",
)
_RECALL = _threshold(
    "recall",
    "Recall: true positive rate (TPR, sensitivity).\n\n    tp / (tp + fn)",
    _TAKES_AVERAGED,
    "\n0.6667",
    "0.3333",
)
_SPECIFICITY = _threshold(
    "specificity",
    "Specificity: true negative rate (TNR).\n\n    tn / (tn + fp)",
    _TAKES_RATE,
    "\n0.3333",
)
_FPR = _threshold(
    "fpr",
    "False positive rate (fall-out): 1 - specificity.\n\n    fp / (fp + tn)",
    _TAKES_RATE,
    "\n0.6667",
)
_F1 = _threshold(
    "f1",
    "F1 score: the harmonic mean of precision and recall.\n\n    2 tp / (2 tp + fp + fn)",
    _TAKES_AVERAGED,
    "\n0.5714",
    "0.2667",
)
_FBETA = _threshold(
    "fbeta",
    "F-beta score: a weighted harmonic mean of precision and recall.\n\n"
    "    (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)",
    ("data", "beta", *_TAKES_AVERAGED[1:]),
    ", beta=2\n0.625",
    "0.303",
    doc_order=("data", "label", "score", "threshold", "prediction", "beta", *_TAKES_AVERAGED[5:]),
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
