"""Multiclass metrics: averaged precision / recall / F-beta, the classification report, the
confusion matrix as a long table, and Matthews' correlation coefficient.

Labels and predictions may be of any type (integers, strings, booleans...); the classes of a
slice are the values seen in either column, as scikit-learn's default ``labels``. The
averaged metrics are reached through :func:`sqlmetrics.precision`, :func:`sqlmetrics.recall`,
:func:`sqlmetrics.f1` and :func:`sqlmetrics.fbeta` with ``average=``; in the registry (and so
in ``evaluate`` and the CLI) they are ``precision_macro``, ``f1_weighted``, ... as
scikit-learn's scorer names. See docs/decisions/0003-multiclass.md.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._backends import backend_for
from .._backends.source import open_source
from .._core.conventions import resolved, warns_zero
from .._core.params import Function, args, references
from .._core.registry import (
    PARAMS,
    Inference,
    MetricSpec,
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    register,
)
from .._engine.run import compute, undefined
from .._engine.validate import check_columns, is_numeric
from .._inference.intervals import CiMethod, CiRequest, Interval, ci_request, ci_result
from ..errors import InvalidDataError, InvalidParameterError, SqlMetricsError, warn
from .ranking import _INTERVAL

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_multiclass.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

T = TypeVar("T")
CLASS_LABEL = Role("label", "key")
CLASS_PREDICTION = Role("prediction", "key")
WEIGHT = Role("weight", "weight", required=False)

AVERAGES = ("binary", "macro", "micro", "weighted")


def _label_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "text"
    if isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value)
    ):
        return "number"
    return ""


def check_labels(metric: str, name: str, value: Any) -> tuple[Any, ...] | None:
    """``labels=``: None, or a non-empty list of distinct classes of one kind (strings,
    finite numbers or booleans); integral numbers become ints (``2.0`` is the class ``2``).
    """
    import numpy as np
    import pandas as pd

    if value is None:
        return None
    one_dim = isinstance(value, (list, tuple, pd.Index, pd.Series)) or (
        isinstance(value, np.ndarray) and value.ndim == 1
    )
    if isinstance(value, (str, bytes)) or not one_dim:
        raise InvalidParameterError(
            f"{metric}: {name}= must be a list of classes (e.g. ['cat', 'dog']), or None for "
            f"the classes in the data; got {value!r}"
        )
    # numpy scalars (an array's items) as Python values
    values = [v.item() if isinstance(v, np.generic) else v for v in value]
    if not values:
        raise InvalidParameterError(
            f"{metric}: {name}= is an empty list; list at least one class, or pass None for "
            f"the classes in the data"
        )
    kinds = [_label_kind(v) for v in values]
    for v, kind in zip(values, kinds):
        if not kind:
            raise InvalidParameterError(
                f"{metric}: {name}= holds {v!r}; a class must be a string, a finite number or a "
                f"boolean"
            )
    if len(set(kinds)) > 1:
        raise InvalidParameterError(
            f"{metric}: {name}= mixes kinds of classes ({', '.join(sorted(set(kinds)))}): "
            f"{values!r}; list classes of the label column's one type"
        )
    if kinds[0] == "number":
        values = [  # integers exactly: float() rounds above 2**53
            int(v) if isinstance(v, numbers.Integral) or float(v).is_integer() else float(v)
            for v in values
        ]
    seen: set[Any] = set()
    for v in values:
        if v in seen:  # 1 and 1.0 (and True and 1) are the same class
            raise InvalidParameterError(
                f"{metric}: {name}= lists class {v!r} twice: {values!r}; list each class once"
            )
        seen.add(v)
    return tuple(values)


declare_param(
    ParamSpec(
        "labels",
        None,
        check_labels,
        "the classes to include and their order (scikit-learn's labels); None: those in the data",
    )
)
_check_average = check_choice(*AVERAGES)

# metric -> (column of the per-class report, why a class is undefined)
_UNDEFINED = {
    "precision": ("precision", "never predicted: tp + fp = 0"),
    "recall": ("recall", "never true: tp + fn = 0"),
    "f1": ("fbeta", "neither true nor predicted (listed by labels=): tp + fp + fn = 0"),
    "fbeta": ("fbeta", "neither true nor predicted (listed by labels=): tp + fp + fn = 0"),
}


def register_multiclass(
    name: str,
    summary: str,
    params: tuple[str, ...],
    roles: tuple[Role, ...] = (CLASS_LABEL, CLASS_PREDICTION, WEIGHT),
    family: str = "multiclass",
    **facts: Any,
) -> None:
    """Register the metric ``name`` of ``sql/multiclass/<name>.sql`` (default: a label and a
    prediction column of classes, and a weight), its kernel ``<name>_kernel`` unless given.
    """
    facts.setdefault("kernel", f"{name}_kernel")
    register(
        MetricSpec(name, f"multiclass/{name}.sql", family, summary, roles, params=params, **facts)
    )


for _metric in ("precision", "recall", "f1", "fbeta"):
    for _average in ("macro", "micro", "weighted"):
        register_multiclass(
            f"{_metric}_{_average}",
            f"multiclass {_metric}, {_average}-averaged over the classes",
            ("beta", "zero_division", "labels")
            if _metric == "fbeta"
            else ("zero_division", "labels"),
            undefined="every class undefined"
            if _average != "micro"
            else "no class of labels= true or predicted (0/0 summed over them)",
            function=_metric,
            average=_average,
            kernel="multiclass_kernel",
        )
register_multiclass(
    "classification_report",
    "per-class precision, recall, F-beta and support, with micro, macro, weighted rows",
    ("beta", "zero_division", "labels"),
    undefined="precision of a class never predicted, recall of a class never true",
    output="table",
)
register_multiclass(
    "multiclass_confusion_matrix",
    "count of rows for every (label, prediction) pair of classes, as a long table",
    ("labels",),
    output="table",
)
register_multiclass(
    "mcc",
    "Matthews correlation coefficient (multiclass R_K; binary phi coefficient)",
    ("zero_division",),
    undefined="one class only in label or in prediction (a zero factor under the root)",
    aliases=("matthews_corrcoef",),
    # binary mcc (a score and a threshold) comes from confusion_matrix's counts
    inference=Inference(counts_macro="ci_binary_mcc"),
)


# --------------------------------------------------------------------------- helpers
def with_interval(body: Callable[..., T]) -> Callable[..., T | Interval]:
    """A public function's call from ``body(metric, data, ci=request, **options)``: the
    interval request of its ``ci``, ``ci_method``, ``n_boot`` and ``seed`` checked first, and
    its value returned as it is, or as an Interval with ``ci=``.
    """

    @functools.wraps(body)
    def call(
        metric: str,
        data: Any,
        *,
        ci: float | None,
        ci_method: CiMethod | None,
        n_boot: int,
        seed: int,
        **options: Any,
    ) -> T | Interval:
        request = ci_request(metric, ci, ci_method, n_boot, seed)
        return ci_result(metric, body(metric, data, ci=request, **options), request)

    return call


_check_normalize = check_choice("true", "pred", "all")


def _optional(check: Any, metric: str, name: str, value: Any, none: str) -> str | None:
    """``value`` checked by ``check``, or None; a refusal says what None gives (``none``)."""
    if value is None:
        return None
    try:
        return str(check(metric, name, value))
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{exc} (or None {none})") from None


def check_normalize_arg(normalize: Any, metric: str = "multiclass_confusion_matrix") -> str | None:
    """``normalize`` checked: "true", "pred", "all" or None."""
    return _optional(_check_normalize, metric, "normalize", normalize, "for counts")


def _normalized(frame: pd.DataFrame, how: str) -> pd.Series:
    """The counts of a long confusion table divided as scikit-learn's ``normalize=``."""
    import pandas as pd

    counts = frame["count"].astype(float)
    if how == "all":
        totals = pd.Series(counts.sum(), index=frame.index)
    else:
        key = frame["label" if how == "true" else "prediction"]
        totals = counts.groupby(key).transform("sum")
    return (counts / totals.where(totals != 0)).fillna(0.0)


def check_average(metric: str, average: Any) -> str | None:
    """``average`` checked: one of binary, macro, micro, weighted, or None (per class)."""
    return _optional(_check_average, metric, "average", average, "for one value per class")


def _family(sql_type: str) -> str:
    if is_numeric(sql_type) or sql_type.upper() in ("BOOLEAN", "BOOL"):
        return "number"
    return sql_type.upper()


def check_class_columns(
    metric: str, data: Any, con: Any, label: str, prediction: str, labels: Any = None
) -> None:
    """Label and prediction must hold comparable types (a class 1 never equals a class '1'),
    and the classes of ``labels=`` (checked by :func:`check_labels`) must be of their kind.
    """
    if not (isinstance(label, str) and label and isinstance(prediction, str) and prediction):
        return  # compute() reports the bad argument
    listed = check_labels(metric, "labels", labels)
    with backend_for(con, data) as backend, open_source(data, backend, metric) as source:
        check_columns(metric, source, [("label", label), ("prediction", prediction)])
        t_label, t_pred = source.columns[label], source.columns[prediction]
        family = backend.family(t_label)
    if _family(t_label) != _family(t_pred):
        raise InvalidDataError(
            f"{metric}: label column {label!r} has type {t_label} but prediction column "
            f"{prediction!r} has type {t_pred}; classes must compare equal across the two, so "
            f"cast one of them (e.g. cast({prediction} as {t_label}))"
        )
    check_labels_type(metric, listed, label, t_label, family)


def check_labels_type(
    metric: str, listed: tuple[Any, ...] | None, column: str, sql_type: str, family: str
) -> None:
    """The classes of ``labels=`` must be of the label column's kind: strings for a text
    column, numbers for a numeric one, booleans for a boolean one.
    """
    if listed is None:
        return
    kind = _label_kind(listed[0])
    if family not in ("text", "number", "boolean"):
        raise InvalidParameterError(
            f"{metric}: labels= needs a text, numeric or boolean label column; column "
            f"{column!r} has type {sql_type}: cast it (e.g. cast({column} as varchar)) or pass "
            f"labels=None"
        )
    if kind != family:
        example = {"text": "'a'", "number": "1", "boolean": "True"}[family]
        raise InvalidParameterError(
            f"{metric}: labels={list(listed)!r} holds {kind} classes but label column "
            f"{column!r} has type {sql_type}; list {family} classes (e.g. [{example}, ...])"
        )


def _columns(
    label: str, prediction: str | None, weight: str | None, metric: str, average: str
) -> dict[str, str | None]:
    if prediction is None:
        raise InvalidParameterError(
            f"{metric}: average={average!r} needs prediction= (a column of predicted classes); "
            f"a score and threshold give binary predictions only: use average='binary'"
        )
    return {"label": label, "prediction": prediction, "weight": weight}


def averaged(
    metric: str,
    data: Any,
    *,
    label: str,
    prediction: str | None,
    weight: str | None,
    average: str | None,
    zero_division: float | str,
    beta: float | None,
    con: Any,
    labels: Any = None,
    ci: CiRequest | None = None,
) -> float | pd.Series:
    """The multiclass path of precision / recall / f1 / fbeta (average != "binary")."""
    import pandas as pd

    columns = _columns(label, prediction, weight, metric, str(average))
    params: dict[str, Any] = {"zero_division": zero_division, "labels": labels}
    if beta is not None:
        params["beta"] = beta
    check_class_columns(metric, data, con, label, str(prediction), labels)
    column, why = _UNDEFINED[metric]
    if average is None:
        report = compute(
            "classification_report",
            data,
            con=con,
            columns=columns,
            params={"beta": 1.0 if beta is None else beta, **params},
            ci=ci,
        )
        per_class = report[report["average"].isna()]
        values = pd.Series(
            per_class[column].to_numpy(dtype=float),
            index=pd.Index(per_class["class"].tolist(), name="class"),
            name=metric,
        )
        n_bad = int(values.isna().sum())
        if n_bad and zero_division == "warn":
            undefined(
                metric,
                f"{n_bad} of {len(values)} classes are {why}; their value is "
                f"NaN (pass zero_division=0.0 for scikit-learn's default)",
            )
        return values
    name = f"{metric}_{average}"
    frame = compute(name, data, con=con, columns=columns, params=params, ci=ci)
    value = frame[name].iloc[0]
    n_bad = int(frame["n_undefined"].iloc[0])
    value = math.nan if value is None or pd.isna(value) else float(value)
    if average == "micro" and math.isnan(value):  # 0/0 summed over the classes of labels=
        reason = (
            f"the counts summed over the classes of labels={list(labels or [])!r} are 0/0 "
            f"(all {why.split(' (')[0].split(':')[0]})"
        )
        if zero_division == "warn" or math.isnan(float(zero_division)):
            return undefined(metric, reason, warn=zero_division == "warn")
        return undefined(metric, reason, float(zero_division), warn=warns_zero(zero_division))
    if zero_division == "warn" and (n_bad or math.isnan(value)):
        n_classes = int(frame["n_classes"].iloc[0])
        undefined(
            metric,
            f"{n_bad} of {n_classes} classes are {why} and left out of the "
            f"{average} average (pass zero_division=0.0 to count them as 0, "
            f"scikit-learn's default)",
            value,
        )
    elif warns_zero(zero_division) and n_bad:  # scikit-learn's zero_division="warn"
        n_classes = int(frame["n_classes"].iloc[0])
        undefined(
            metric,
            f"{n_bad} of {n_classes} classes are {why} and count as 0 in the {average} "
            f"average (scikit-learn's zero_division='warn')",
            value,
        )
    return value


# --------------------------------------------------------------------------- functions
def _classification_report(
    metric: str,
    data: Any,
    *,
    label: str,
    prediction: str,
    weight: str | None,
    zero_division: float | str | None,
    labels: Sequence[Any] | None,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    import pandas as pd

    zero_division = resolved(metric, "zero_division", zero_division, convention)
    columns = _columns(label, prediction, weight, metric, "report")
    check_class_columns(metric, data, con, label, prediction, labels)
    frame = compute(
        metric,
        data,
        con=con,
        columns=columns,
        params={"beta": 1.0, "zero_division": zero_division, "labels": labels},
    )
    per_class = frame["average"].isna()
    micro = "micro avg" if labels is not None else "accuracy"  # scikit-learn's row names
    names = [
        *frame.loc[per_class, "class"].tolist(),
        *(micro if a == "micro" else f"{a} avg" for a in frame.loc[~per_class, "average"]),
    ]
    out = pd.DataFrame(
        {
            "precision": frame["precision"].to_numpy(dtype=float),
            "recall": frame["recall"].to_numpy(dtype=float),
            "f1": frame["fbeta"].to_numpy(dtype=float),
            "support": frame["support"].to_numpy(dtype=float if weight else "int64"),
        },
        index=pd.Index(names, name="class", dtype=object),
    )
    if zero_division != "warn" and not math.isnan(float(zero_division)):
        # the micro row is 0/0 only when no listed class (labels=) is true or predicted
        cols = ["precision", "recall", "f1"]
        out.loc[micro, cols] = out.loc[micro, cols].fillna(float(zero_division))
    if zero_division == "warn":
        head = out.iloc[: int(per_class.sum())]
        bad_p, bad_r = int(head["precision"].isna().sum()), int(head["recall"].isna().sum())
        if bad_p or bad_r:
            warn(
                f"{metric}: precision is undefined for {bad_p} class(es) never predicted and "
                f"recall for {bad_r} class(es) never true; NaN there, left out of the macro and "
                f"weighted averages (pass zero_division=0.0 for scikit-learn's default)",
                __import__("sqlmetrics").UndefinedMetricWarning,
            )
    return out


def _multiclass_confusion_matrix(
    metric: str,
    data: Any,
    *,
    label: str,
    prediction: str,
    weight: str | None,
    normalize: str | None,
    labels: Sequence[Any] | None,
    as_matrix: bool,
    convention: str | None,
    con: Any,
) -> pd.DataFrame:
    import pandas as pd

    columns = _columns(label, prediction, weight, metric, "matrix")
    how = check_normalize_arg(normalize)
    if not isinstance(as_matrix, bool):
        raise InvalidParameterError(
            f"{metric}: as_matrix= must be True or False; got {as_matrix!r}"
        )
    check_class_columns(metric, data, con, label, prediction, labels)
    frame = compute(
        metric, data, con=con, columns=columns, params={"convention": convention, "labels": labels}
    )
    frame["count"] = frame["count"].astype(float if weight else "int64")
    if how is not None:
        frame["fraction"] = _normalized(frame, how)
    if not as_matrix:
        return frame
    classes = frame["label"].drop_duplicates().tolist()  # the long table's order, K of them
    values = frame["fraction" if how is not None else "count"].to_numpy()
    return pd.DataFrame(
        values.reshape(len(classes), len(classes)),
        index=pd.Index(classes, name="label", dtype=object),
        columns=pd.Index(classes, name="prediction", dtype=object),
    )


@with_interval
def _mcc(
    metric: str,
    data: Any,
    *,
    label: str,
    score: str,
    threshold: float | None,
    prediction: str | None,
    weight: str | None,
    zero_division: float | str | None,
    convention: str | None,
    con: Any,
    ci: CiRequest | None,
) -> float:
    import pandas as pd

    zero_division = resolved(metric, "zero_division", zero_division, convention)
    if prediction is not None and threshold is not None:
        raise InvalidParameterError(
            f"mcc: threshold={threshold!r} and prediction={prediction!r} both given; pass a "
            f"score column with threshold=, or a prediction column, not both"
        )
    if prediction is None:
        value = _binary_mcc(data, label, score, threshold, weight, zero_division, con, ci=ci)
    else:
        check_class_columns(metric, data, con, label, prediction)
        frame = compute(
            metric,
            data,
            con=con,
            columns={"label": label, "prediction": prediction, "weight": weight},
            params={"zero_division": zero_division},
            ci=ci,
        )
        raw = frame[metric].iloc[0]
        value = math.nan if raw is None or pd.isna(raw) else float(raw)
    if not math.isnan(value):
        return value
    if zero_division == "warn":
        reason = "one class only in label or in prediction (a zero factor under the root)"
        return undefined(metric, reason)
    return float(zero_division)


def _binary_mcc(
    data: Any,
    label: str,
    score: str,
    threshold: float | None,
    weight: str | None,
    zero_division: float | str,
    con: Any,
    ci: CiRequest | None = None,
) -> float:
    PARAMS["zero_division"].validate("mcc", zero_division)
    try:
        frame = compute(
            "confusion_matrix",
            data,
            con=con,
            columns={"label": label, "score": score, "prediction": None, "weight": weight},
            params={"threshold": PARAMS["threshold"].default if threshold is None else threshold},
            ci=ci,
        )
    except SqlMetricsError as exc:  # name the metric the user called
        raise type(exc)(str(exc).replace("confusion_matrix:", "mcc:", 1)) from None
    counts = [float(frame[k].iloc[0]) for k in ("tp", "fp", "tn", "fn")]
    # MCC does not change when every count is scaled: divide by the largest, and take the root
    # factor by factor, so that weights of 1e160 or 1e-170 neither overflow nor underflow
    largest = max(counts)
    tp, fp, tn, fn = (c / largest for c in counts) if largest > 0 else counts
    factors = (tp + fp, tp + fn, tn + fp, tn + fn)
    if min(factors) <= 0:
        return math.nan
    return (tp * tn - fp * fn) / math.prod(math.sqrt(f) for f in factors)


#: the columns of the functions of a label and a prediction column, in signature order
_CLASSES = ("label", "prediction", "weight")
#: those of a score and a threshold, or a prediction column (mcc, the binary metrics)
THRESHOLDED = ("data", "label", "score", "threshold", "prediction", "weight")
_RETURNS_UNIT = """
    float
        In [0, 1].
    """
#: the examples' data: a binary score (also classification's), three animals (scikit-learn's)
EXAMPLE = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .6, .35, .8, .5, .5]})
"""
ANIMALS = """
    >>> animals = pd.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                         "p": ["cat", "pig", "dog", "cat", "cat", "dog"]})"""
_ANIMALS_DF = """
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "prediction": ["cat", "pig", "dog", "cat", "cat", "dog"]})
"""
SOKOLOVA = references(
    """Sokolova, M. and Lapalme, G. (2009). A systematic analysis of performance measures
    for classification tasks. Information Processing & Management 45(4), 427-437."""
)
_RAISES_CLASSES = """
    ColumnNotFoundError, InvalidDataError, DataSourceError
        As in :func:`classification_report`"""
_PREDICTION = args(
    """
    prediction : str, default "prediction"
        Column of predicted classes, of a type comparable with ``label``.
    """,
    prediction=("str", "prediction"),
)


_CLASSIFICATION_REPORT = Function(
    "classification_report",
    takes=("data", *_CLASSES, "zero_division", "labels", "convention", "con"),
    call=_classification_report,
    summary="""
    Per-class precision, recall, F1 and support, with micro, macro and weighted averages.

    scikit-learn's ``classification_report(..., output_dict=True)`` as a DataFrame, computed
    in SQL. Labels and predictions may be of any (comparable) type.
    """,
    returns="""
    pandas.DataFrame
        Index ``class``: the classes in sorted order, then "accuracy", "macro avg",
        "weighted avg"; columns precision, recall, f1, support (int, or float with
        ``weight``; the averages' support is the number of rows). The "accuracy" row holds
        the micro averages, equal to the accuracy for single-label data, as scikit-learn
        prints it; with ``labels=`` it is named "micro avg" (over the listed classes only).
    """,
    raises="""
    ColumnNotFoundError, DataSourceError
        A missing column, or unreadable data.
    InvalidDataError
        No rows; NULL labels, predictions or weights; label and prediction of incomparable
        types (e.g. integers and strings); negative weights.
    InvalidParameterError
        ``zero_division`` not one of the allowed values.
    """,
    warns="""
    UndefinedMetricWarning
        With ``zero_division="warn"``, when a class's precision or recall is 0/0.
    """,
    see_also="""
    multiclass_confusion_matrix : the counts behind it.
    precision, recall, f1, fbeta : one average at a time, with ``average=``.
    """,
    notes="""
    For class :math:`c`: :math:`P_c = tp_c / (tp_c + fp_c)`, :math:`R_c = tp_c / (tp_c +
    fn_c)`, :math:`F_c = 2 tp_c / (2 tp_c + fp_c + fn_c)`, support :math:`= tp_c + fn_c`.
    micro: the same of the counts summed over classes (equal to accuracy for single-label
    data); macro: the plain mean over classes; weighted: the mean weighted by support. The
    classes are the union of the values of ``label`` and ``prediction``. No ties arise.
    """,
    references=SOKOLOVA,
    examples=_ANIMALS_DF
    + """    >>> sqlmetrics.classification_report(df).round(4)  # doctest: +NORMALIZE_WHITESPACE
                  precision  recall      f1  support
    class
    cat              0.6667  1.0000  0.8000        2
    dog              0.0000  0.0000  0.0000        2
    pig              0.0000  0.0000  0.0000        2
    accuracy         0.3333  0.3333  0.3333        6
    macro avg        0.2222  0.3333  0.2667        6
    weighted avg     0.2222  0.3333  0.2667        6
    """,
    own=_PREDICTION
    + args(
        """
        zero_division : {"warn", 0.0, 1.0, nan}, default "warn"
            A class never predicted has precision 0/0, a class never true recall 0/0. "warn" and
            nan give NaN (left out of the macro and weighted rows; "warn" also warns); 0.0 or 1.0
            replace it and count in the averages (scikit-learn's ``zero_division``).
        labels : list, optional
            The classes to report and average, in this order (scikit-learn's ``labels``). A
            listed class absent from the data has support 0 and precision and recall 0/0; the
            rows of a class left out still count in the listed classes' counts (e.g. as their
            false positives); the averages run over the listed classes only, their support is
            the listed classes' total. Strings, numbers or booleans, as the label column's type.
            None: every class of ``label`` or ``prediction``, sorted.
        """,
        zero_division=("float | str | None", None),
        labels=("Sequence[Any] | None", None),
    ),
    returns_type="pd.DataFrame",
    interval=False,
)
_MCC = Function(
    "mcc",
    takes=(*THRESHOLDED, "zero_division", *_INTERVAL),
    call=_mcc,
    summary="""
    Matthews correlation coefficient (MCC), binary or multiclass.

    With ``prediction=``: the classes in ``label`` and ``prediction`` (any type, two or
    more), as scikit-learn's ``matthews_corrcoef``. Without: binary 0/1 labels, predicted 1
    when ``score >= threshold`` (default 0.5).
    """,
    returns="""
    float
        MCC in [-1, 1] (1 perfect, 0 no better than chance), or NaN when undefined.
    """,
    raises=_RAISES_CLASSES
    + """; with ``score``, also labels outside {0, 1}.
    InvalidParameterError
        Both ``threshold`` and ``prediction`` given, or a bad ``threshold``/``zero_division``.
    """,
    warns="""
    UndefinedMetricWarning
        When undefined and ``zero_division="warn"``.
    """,
    notes=r"""
    .. math:: MCC = \frac{c\,s - \sum_k t_k p_k}
              {\sqrt{(s^2 - \sum_k p_k^2)(s^2 - \sum_k t_k^2)}}

    with :math:`t_k, p_k` the rows truly in / predicted as class :math:`k`, :math:`c` the
    rows predicted correctly and :math:`s` all rows (sums of weights with ``weight``). For
    two classes: :math:`(tp\,tn - fp\,fn) / \sqrt{(tp+fp)(tp+fn)(tn+fp)(tn+fn)}`.
    Undefined when one factor under the root is 0.
    """,
    references=references(
        """Matthews, B. W. (1975). Comparison of the predicted and observed secondary
        structure of T4 phage lysozyme. Biochimica et Biophysica Acta 405(2), 442-451.""",
        """Gorodkin, J. (2004). Comparing two K-category assignments by a K-category
        correlation coefficient. Computational Biology and Chemistry 28(5-6), 367-374.""",
    ),
    examples=EXAMPLE
    + """    >>> round(sqlmetrics.mcc(df), 4)
    0.0
    >>> round(sqlmetrics.mcc(df, threshold=0.7), 4)
    0.4472"""
    + ANIMALS
    + """
    >>> round(sqlmetrics.mcc(animals, label="y", prediction="p"), 4)
    0.0
    """,
    own=args(
        """
        label : str, default "label"
            Column of true classes: 0/1 or boolean with ``score``; any type with ``prediction``.
        prediction : str, optional
            Column of predicted classes, used instead of ``score`` and ``threshold``.
        zero_division : {"warn", 0.0, 1.0, nan}, default "warn"
            Value when MCC is 0/0 (a single class in label or in prediction): "warn" returns NaN
            with an UndefinedMetricWarning; scikit-learn returns 0.0 (pass 0.0 for that).
        """,
        label=("str", "label"),
        prediction=("str | None", None),
        zero_division=("float | str | None", None),
    ),
)
_MULTICLASS_CONFUSION_MATRIX = Function(
    "multiclass_confusion_matrix",
    takes=("data", *_CLASSES, "normalize", "labels", "as_matrix", "convention", "con"),
    call=_multiclass_confusion_matrix,
    summary="""
    Confusion matrix of a (multiclass) classifier as a long table: label, prediction, count.

    One row for every pair of classes, zeros included, so that
    ``.pivot(index="label", columns="prediction", values="count")`` gives scikit-learn's
    ``confusion_matrix(y_true, y_pred)`` (rows: true class, columns: predicted class);
    ``as_matrix=True`` returns that square frame.
    """,
    returns="""
    pandas.DataFrame
        Columns label, prediction, count (int, or float with ``weight``); K * K rows for K
        classes, ordered by label, then prediction (with ``labels``: by their positions in
        the list). With ``as_matrix=True``: the K x K matrix (see ``as_matrix``).
    """,
    raises=_RAISES_CLASSES + ".",
    see_also="""
    confusion_matrix : the binary counts tp, fp, tn, fn at a threshold.
    """,
    notes="""
    The classes are the union of the values of ``label`` and ``prediction``. A long table
    scales to many classes and slices and joins like any other table; K * K rows are
    returned, so prefer :func:`classification_report` for thousands of classes.
    """,
    references=references(
        """Stehman, S. V. (1997). Selecting and interpreting measures of thematic
        classification accuracy. Remote Sensing of Environment 62(1), 77-89."""
    ),
    examples=_ANIMALS_DF
    + """    >>> table = sqlmetrics.multiclass_confusion_matrix(df)
    >>> table.pivot(index="label", columns="prediction", values="count")
    ... # doctest: +NORMALIZE_WHITESPACE
    prediction  cat  dog  pig
    label
    cat           2    0    0
    dog           1    0    1
    pig           0    2    0
    >>> sqlmetrics.multiclass_confusion_matrix(df, labels=["pig", "cat", "cow"])["count"].tolist()
    [0, 0, 0, 0, 2, 0, 0, 0, 0]
    >>> sqlmetrics.multiclass_confusion_matrix(df, as_matrix=True).to_numpy().tolist()
    [[2, 0, 0], [1, 0, 1], [0, 2, 0]]
    """,
    own=_PREDICTION
    + args(
        """
        normalize : {"true", "pred", "all"}, optional
            Add a column ``fraction``: the count divided by the row's true-class total
            ("true"), its predicted-class total ("pred") or the grand total ("all"), as
            scikit-learn's ``confusion_matrix(normalize=)``; a zero total gives 0, as there.
        labels : list, optional
            The classes of the matrix, in this order (scikit-learn's ``labels``): a listed class
            absent from the data gets a row and a column of zeros; rows whose label or prediction
            is not listed are left out (also of the ``normalize`` totals). Strings, numbers or
            booleans, as the label column's type. None: every class of ``label`` or
            ``prediction``, sorted.
        as_matrix : bool, default False
            Return the K x K matrix of scikit-learn's ``confusion_matrix`` instead of the long
            table: index ``label`` (true class), columns ``prediction``, in the long table's class
            order; the values are the counts, or the fractions with ``normalize``.
        """,
        normalize=("str | None", None),
        labels=("Sequence[Any] | None", None),
        as_matrix=("bool", False),
    ),
    returns_type="pd.DataFrame",
    interval=False,
)

#: the public functions of this module, generated into _api_multiclass.py
API = (_CLASSIFICATION_REPORT, _MULTICLASS_CONFUSION_MATRIX, _MCC)
