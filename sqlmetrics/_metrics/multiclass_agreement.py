"""Agreement between a label column and a prediction column of classes: balanced accuracy,
Cohen's kappa, the Jaccard index and the Hamming loss, as scikit-learn defines them.

Templates under ``sql/multiclass/`` (``balanced_accuracy.sql``, ``cohen_kappa.sql``,
``jaccard.sql``, ``hamming_loss.sql``), built on the per-class counts of
``sql/_macros/kernels/multiclass.sql``. Classes may be of any type; label and prediction must hold
comparable types (checked as for :func:`sqlmetrics.mcc`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._core.params import WARNS_NO_WEIGHT, Arg, Function
from .._core.registry import (
    Flag,
    Inference,
    MetricSpec,
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    get_spec,
    register,
)
from .._engine.run import compute, scalar
from .._inference.intervals import CiMethod, Interval, ci_request, ci_result
from ..errors import InvalidParameterError
from .multiclass import _CLASSES, _RETURNS_UNIT, check_class_columns
from .ranking import _INTERVAL

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_multiclass_agreement.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

CLASS_LABEL = Role("label", "key")
CLASS_PREDICTION = Role("prediction", "key")
WEIGHT = Role("weight", "weight", required=False)
ROLES = (CLASS_LABEL, CLASS_PREDICTION, WEIGHT)

JACCARD_AVERAGES = ("macro", "micro", "weighted")


_check_adjusted = Flag()

_kappa_choice = check_choice("linear", "quadratic")


def _check_kappa_weights(metric: str, name: str, value: Any) -> str | None:
    if value is None:
        return None
    try:
        return _kappa_choice(metric, name, value)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{exc} (or None for unweighted kappa)") from None


declare_param(
    ParamSpec(
        "adjusted",
        False,
        _check_adjusted,
        "balanced accuracy rescaled so that chance scores 0: (score - 1/K) / (1 - 1/K)",
    )
)
declare_param(
    ParamSpec(
        "weights",
        None,
        _check_kappa_weights,
        "kappa's disagreement weights: None | 'linear' |i - j| | 'quadratic' (i - j)^2",
    )
)

register(
    MetricSpec(
        "balanced_accuracy",
        "multiclass/balanced_accuracy.sql",
        "multiclass",
        "mean over the classes of the label of the recall (adjusted=: chance = 0)",
        ROLES,
        params=("adjusted",),
        undefined="no class in the label with weight; adjusted with one class",
        aliases=("balanced_accuracy_score",),
        kernel="balanced_accuracy_kernel",
    )
)
register(
    MetricSpec(
        "cohen_kappa",
        "multiclass/cohen_kappa.sql",
        "multiclass",
        "Cohen's kappa 1 - sum v_ij C_ij / sum v_ij E_ij (weights: None, linear, quadratic)",
        ROLES,
        params=("weights", "labels"),
        undefined="no expected disagreement (one class in label and prediction alike, or the "
        "weights sum to 0)",
        aliases=("cohen_kappa_score",),
        kernel="cohen_kappa_kernel",
    )
)
register(
    MetricSpec(
        "hamming_loss",
        "multiclass/hamming_loss.sql",
        "multiclass",
        "fraction of rows whose prediction differs from the label (1 - accuracy)",
        ROLES,
        undefined="the weights sum to 0",
        kernel="hamming_loss_kernel",
        inference=Inference(ci_methods=("t", "bootstrap"), row_mean="miss"),
        better="lower",
    )
)
for _average in JACCARD_AVERAGES:
    register(
        MetricSpec(
            f"jaccard_{_average}",
            "multiclass/jaccard.sql",
            "multiclass",
            f"Jaccard index tp / (tp + fp + fn) per class, {_average}-averaged",
            ROLES,
            params=("labels",),
            undefined="the weights sum to 0, or no class of labels= true or predicted",
            function="jaccard",
            average=_average,
            kernel="multiclass_kernel",
        )
    )


def _columns(label: str, prediction: str, weight: str | None) -> dict[str, str | None]:
    return {"label": label, "prediction": prediction, "weight": weight}


def _agreement(
    metric: str,
    data: Any,
    *,
    label: str,
    prediction: str,
    weight: str | None,
    ci: float | None,
    ci_method: CiMethod | None,
    n_boot: int,
    seed: int,
    convention: str | None,
    con: Any,
    adjusted: bool = False,
    weights: str | None = None,
    average: str = "macro",
    labels: Sequence[Any] | None = None,
) -> float | Interval:
    """The public functions of this module (``metric``); each passes the options it takes, and
    those its metric declares (``MetricSpec.params``) are sent. jaccard's metric is
    ``jaccard_<average>``; its intervals are those of ``jaccard_macro``.
    """
    interval = "jaccard_macro" if metric == "jaccard" else metric
    iv_request = ci_request(interval, ci, ci_method, n_boot, seed)
    name = metric
    if metric == "jaccard":
        check_choice(*JACCARD_AVERAGES)(metric, "average", average)
        name = f"jaccard_{average}"
    check_class_columns(metric, data, con, label, prediction, labels)
    options = {"adjusted": adjusted, "weights": weights, "labels": labels}
    frame = compute(
        name,
        data,
        con=con,
        columns=_columns(label, prediction, weight),
        params={
            **{k: v for k, v in options.items() if k in get_spec(name).params},
            "convention": convention,
        },
        ci=iv_request,
    )
    return ci_result(interval, scalar(frame, name), iv_request)


_PREDICTION = Arg(
    "prediction",
    "str",
    "prediction",
    """
    prediction : str, default "prediction"
        Column of predicted classes, of a type comparable with ``label``'s.
    """,
)


_BALANCED_ACCURACY_ADJUSTED = Arg(
    "adjusted",
    "bool",
    False,
    """
    adjusted : bool, default False
        Rescale so that a chance-level prediction scores 0 and a perfect one 1:
        ``(score - 1/K) / (1 - 1/K)``, K the classes of the label.
    """,
)


_BALANCED_ACCURACY = Function(
    "balanced_accuracy",
    takes=("data", *_CLASSES, "adjusted", *_INTERVAL),
    call=_agreement,
    summary="""
    Balanced accuracy: the mean recall over the classes of the label.

    Equal to scikit-learn's ``balanced_accuracy_score``.
    """,
    returns="""
    float
        In [0, 1] (adjusted: <= 1, 0 at chance).
    """,
    raises="""
    InvalidDataError
        NULL classes, label and prediction of incomparable types, negative weights, no rows.
    InvalidParameterError
        ``adjusted`` not a boolean.
    """,
    warns="""
    UndefinedMetricWarning
        When no class of the label has weight, or adjusted with a single class; NaN is
        returned.
    """,
    see_also="""
    recall : ``average="macro"`` includes the classes that are only predicted.
    """,
    notes=r"""
    .. math:: BA = \frac{1}{K} \sum_{c:\, n_c > 0} \frac{tp_c}{n_c}

    over the K classes occurring in the label (a class only predicted has no recall and is
    left out, as scikit-learn leaves it out). No ties are involved.
    """,
    references="""
    .. [1] Brodersen, K. H. et al. (2010). The balanced accuracy and its posterior
       distribution. ICPR 2010.
    """,
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 1, 0, 0, 1, 0], "prediction": [0, 1, 0, 0, 0, 1]})
    >>> round(sqlmetrics.balanced_accuracy(df), 4)
    0.625
    """,
    own=(
        _PREDICTION,
        _BALANCED_ACCURACY_ADJUSTED,
    ),
)


_COHEN_KAPPA_LABEL = Arg(
    "label",
    "str",
    "label",
    """
    label : str, default "label"
        Column of true classes (any type; the first rater).
    """,
)


_COHEN_KAPPA_PREDICTION = Arg(
    "prediction",
    "str",
    "prediction",
    """
    prediction : str, default "prediction"
        Column of predicted classes (the second rater), of a comparable type.
    """,
)


_COHEN_KAPPA_WEIGHTS = Arg(
    "weights",
    "str | None",
    None,
    """
    weights : {None, "linear", "quadratic"}, default None
        Disagreement weights: None counts every disagreement 1; "linear" and "quadratic"
        weigh classes ``i, j`` by ``|i - j|`` or ``(i - j)^2``, their positions in sorted
        order (ordinal classes), or in ``labels``' order when given.
    """,
)


_COHEN_KAPPA_LABELS = Arg(
    "labels",
    "Sequence[Any] | None",
    None,
    """
    labels : list, optional
        The classes of the confusion matrix, in this order (scikit-learn's ``labels``): rows
        whose label or prediction is not listed are left out; a listed class absent from the
        data counts nothing; the order is the scale of "linear" and "quadratic". Strings,
        numbers or booleans, as the label column's type. None: every class of ``label`` or
        ``prediction``, sorted.
    """,
)


_COHEN_KAPPA = Function(
    "cohen_kappa",
    takes=("data", *_CLASSES, "weights", "labels", *_INTERVAL),
    call=_agreement,
    summary="""
    Cohen's kappa: agreement between label and prediction beyond chance.

    Equal to scikit-learn's ``cohen_kappa_score(label, prediction, weights=weights,
    sample_weight=weight)``.
    """,
    returns="""
    float
        At most 1 (perfect agreement); 0 at chance; negative below chance.
    """,
    raises="""
    InvalidDataError
        NULL classes, label and prediction of incomparable types, negative weights, no rows.
    InvalidParameterError
        ``weights`` not None, "linear" or "quadratic".
    """,
    warns="""
    UndefinedMetricWarning
        When no disagreement is expected by chance (a single class in label and prediction
        alike); NaN is returned.
    """,
    see_also="""
    mcc : another chance-corrected agreement.
    """,
    notes=r"""
    .. math:: \kappa = 1 - \frac{\sum_{ij} v_{ij} C_{ij}}{\sum_{ij} v_{ij} E_{ij}},
              \quad E_{ij} = \frac{t_i p_j}{s}

    with :math:`C` the confusion matrix over the union of the classes (sorted), :math:`t, p`
    its row and column sums, :math:`s` its total and :math:`v` the disagreement weights.
    """,
    references="""
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement 20(1), 37-46.
    .. [2] Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4), 213-220.
    """,
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 1, 2, 2, 1, 0], "prediction": [0, 2, 2, 1, 1, 0]})
    >>> round(sqlmetrics.cohen_kappa(df), 4)
    0.5
    >>> round(sqlmetrics.cohen_kappa(df, weights="quadratic"), 4)
    0.75
    """,
    own=(
        _COHEN_KAPPA_LABEL,
        _COHEN_KAPPA_PREDICTION,
        _COHEN_KAPPA_WEIGHTS,
        _COHEN_KAPPA_LABELS,
    ),
)


_HAMMING_LOSS = Function(
    "hamming_loss",
    takes=("data", *_CLASSES, *_INTERVAL),
    call=_agreement,
    summary="""
    Hamming loss: the fraction of rows whose predicted class differs from the label.

    Equal to scikit-learn's ``hamming_loss`` for single-label (binary or multiclass) data.
    """,
    returns="""
    float
        In [0, 1]; 1 - accuracy.
    """,
    raises="""
    InvalidDataError
        NULL classes, label and prediction of incomparable types, negative weights, no rows.
    """,
    warns=WARNS_NO_WEIGHT,
    notes=r"""
    .. math:: HL = \frac{\sum_i w_i [y_i \neq \hat y_i]}{\sum_i w_i}
    """,
    references="""
    .. [1] Tsoumakas, G. and Katakis, I. (2007). Multi-label classification: an overview.
       International Journal of Data Warehousing and Mining 3(3), 1-13.
    """,
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": ["a", "b", "c", "a"], "prediction": ["a", "c", "c", "b"]})
    >>> sqlmetrics.hamming_loss(df)
    0.5
    """,
    own=(_PREDICTION,),
)


_JACCARD_AVERAGE = Arg(
    "average",
    "str",
    "macro",
    """
    average : {"macro", "micro", "weighted"}, default "macro"
        "macro": the mean of the per-class indices; "weighted": their mean weighted by the
        classes' support; "micro": the index of the summed counts. In ``evaluate``:
        ``jaccard_macro``, ``jaccard_micro``, ``jaccard_weighted``.
    """,
)


_JACCARD_LABELS = Arg(
    "labels",
    "Sequence[Any] | None",
    None,
    """
    labels : list, optional
        The classes to average (scikit-learn's ``labels``); counts come from every row (a
        class left out still counts as the listed classes' false positives or negatives); a
        listed class absent from the data has the index 0 (scikit-learn's zero_division
        default); "micro" sums the listed classes only. Strings, numbers or booleans, as the
        label column's type. None: every class of ``label`` or ``prediction``.
    """,
)


_JACCARD = Function(
    "jaccard",
    takes=("data", *_CLASSES, "average", "labels", *_INTERVAL),
    call=_agreement,
    summary="""
    Jaccard index (intersection over union) per class, averaged over the classes.

    Equal to scikit-learn's ``jaccard_score(label, prediction, average=average)`` for
    multiclass data.
    """,
    returns=_RETURNS_UNIT,
    raises="""
    InvalidDataError
        NULL classes, label and prediction of incomparable types, negative weights, no rows.
    InvalidParameterError
        ``average`` not one of "macro", "micro", "weighted".
    """,
    warns=WARNS_NO_WEIGHT,
    notes=r"""
    .. math:: J_c = \frac{tp_c}{tp_c + fp_c + fn_c}

    over the union of the classes of label and prediction, so every :math:`J_c` is defined.
    """,
    references="""
    .. [1] Jaccard, P. (1912). The distribution of the flora in the alpine zone. New
       Phytologist 11(2), 37-50.
    """,
    examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 1, 2, 0, 1, 2], "prediction": [0, 2, 1, 0, 0, 1]})
    >>> round(sqlmetrics.jaccard(df), 4)
    0.2222
    >>> round(sqlmetrics.jaccard(df, average="micro"), 4)
    0.2
    """,
    own=(
        _PREDICTION,
        _JACCARD_AVERAGE,
        _JACCARD_LABELS,
    ),
)


#: the public functions of this module, generated into _api_multiclass_agreement.py
API = (
    _BALANCED_ACCURACY,
    _COHEN_KAPPA,
    _HAMMING_LOSS,
    _JACCARD,
)
