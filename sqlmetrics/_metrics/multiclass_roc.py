"""Multiclass and multilabel ROC AUC from a long table (one row per row id and class), as
scikit-learn's ``roc_auc_score(y, scores, multi_class=, average=)``.

Template: ``sql/multiclass/multiclass_auc.sql``. The long table is the one-hot form of the
labels next to the scores: ``row_id``, ``class_col``, ``score`` (that class's score) and
``label`` (1 where the class is a true class of the row). Multiclass data have one true class
per row; multilabel data any number. The wide forms (a score column per class, with the
true class in one column or, multilabel, a 0/1 indicator column per class) are turned into
that long table in SQL (``multiclass_wide_scores``, sql/_macros/kernels/multiclass.sql) and run
through the same kernels (multiclass_auc, multilabel_average_precision, top_k_accuracy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._core.params import WARNS_NO_WEIGHT, Function, args, references
from .._core.registry import (
    ParamSpec,
    Role,
    check_choice,
    declare_param,
    get_spec,
)
from .._engine.run import (
    Call,
    check_params,
    compute,
    entry,
    kernel_sql,
    normalize_by,
    open_checked,
    scalar,
)
from .._inference.intervals import CiRequest, serve
from .._templating.quoting import quote_ident
from .._templating.templates import macro
from ..errors import InvalidDataError, InvalidParameterError
from .multiclass import (
    _RETURNS_UNIT,
    check_labels,
    check_labels_type,
    register_multiclass,
    with_interval,
)
from .ranking import _INTERVAL

if TYPE_CHECKING:
    import pandas as pd

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_multiclass_roc.py`` by ``python -m tools.api`` (decision 0013)
__all__: list[str] = []

declare_param(
    ParamSpec(
        "multi_class",
        "ovr",
        check_choice("ovr", "ovo"),
        "multiclass AUC: one-vs-rest (ovr) or one-vs-one pairs (ovo, Hand & Till)",
    )
)
declare_param(
    ParamSpec(
        "auc_average",
        "macro",
        check_choice("macro", "weighted", "micro", "samples"),
        "multiclass AUC average: macro | weighted (by support) | micro (pooled) | samples",
    )
)


def _check_combination(metric: str, params: dict[str, Any]) -> None:
    if params["multi_class"] == "ovo" and params["auc_average"] not in ("macro", "weighted"):
        raise InvalidParameterError(
            f"{metric}: multi_class='ovo' averages pairs of classes with average='macro' or "
            f"'weighted'; got average={params['auc_average']!r} (micro and samples are "
            f"one-vs-rest averages: use multi_class='ovr')"
        )


#: the columns of a table of scores, a row per (row id, class): group, item, score, label
SCORES_ROLES = (
    Role("group", "key"),
    Role("item", "key"),
    Role("score", "score"),
    Role("label", "binary"),
)
register_multiclass(
    "multiclass_auc",
    "multiclass / multilabel ROC AUC: one-vs-rest or one-vs-one, macro, weighted, micro, samples",
    ("multi_class", "auc_average"),
    SCORES_ROLES,
    "multiclass_scores",
    undefined="a class, pair or row of the average without positives or negatives",
    aliases=("roc_auc_multiclass",),
    check_params=_check_combination,
    rank_based=True,
    wide=("multiclass", "multilabel"),
)

register_multiclass(
    "top_k_accuracy",
    "fraction of rows whose true class is among the k highest scores (ties: later class)",
    ("k", "labels"),
    (*SCORES_ROLES, Role("weight", "weight", required=False)),
    "multiclass_scores",
    undefined="the weights sum to 0",
    takes_k=True,
    aliases=("top_k_accuracy_score",),
    rank_based=True,
    wide=("multiclass",),
)

declare_param(
    ParamSpec(
        "ap_average",
        "macro",
        check_choice("macro", "weighted", "micro", "samples"),
        "multilabel AP average: macro | weighted (by support) | micro (pooled) | samples",
    )
)
register_multiclass(
    "multilabel_average_precision",
    "multilabel average precision per class, row or pooled: macro, weighted, micro, samples",
    ("ap_average",),
    SCORES_ROLES,
    "multiclass_scores",
    undefined="a class, row or the pooled table of the average without a positive label",
    rank_based=True,
    wide=("multilabel",),
)


def _all_listed(
    metric: str, backend: Any, source: Any, column: str, listed: tuple[Any, ...], refusal: str
) -> None:
    """The ``listed`` classes are of ``column``'s kind and hold each of its values, else
    ``refusal`` is raised, its ``{shown}`` up to five values not listed (``"'x', 'y' ..."``
    when there are more). One query on the engine: nothing is pulled into Python but those.
    """
    sql_type = source.columns[column]
    check_labels_type(metric, listed, column, sql_type, backend.family(sql_type))
    quoted = quote_ident(column, backend.dialect)
    inside = macro("class_in", backend.dialect)(quoted, list(listed))
    found = backend.query(
        f"select distinct {quoted} as c from {source.sql} as t where not ({inside}) "
        f"order by 1 limit 5"
    )["c"].tolist()
    shown = ", ".join(repr(v) for v in found) + (" ..." if len(found) == 5 else "")
    if shown:
        raise InvalidDataError(f"{metric}: " + refusal.replace("{shown}", shown))


def listed_classes(
    metric: str, class_col: str, labels: Any
) -> Callable[[Any, Any, dict[str, Any]], None] | None:
    """The data check of ``labels=`` on a table of scores: the classes are of the column's
    kind, and every class of ``class_col`` is listed (scikit-learn's ``labels`` index every
    score column); None without ``labels``.
    """
    listed = check_labels(metric, "labels", labels)
    if listed is None:
        return None

    def check(backend: Any, source: Any, extra: dict[str, Any]) -> None:
        _all_listed(
            metric,
            backend,
            source,
            class_col,
            listed,
            f"column {class_col!r} (class_col=) holds classes not in labels={list(listed)!r}: "
            "{shown}; list every class of the data (the labels index the scores), or pass "
            "labels=None",
        )

    return check


def _score_columns(
    metric: str, scores: Any, labels: Any
) -> tuple[list[str], tuple[Any, ...] | None]:
    """``scores=`` (a list of columns, or a mapping class -> column) and ``labels=`` checked:
    the score columns and the classes they are for (None: read from the data, sorted).
    """
    if isinstance(scores, Mapping):
        if labels is not None:
            raise InvalidParameterError(
                f"{metric}: scores= is a mapping (class -> column) and labels={labels!r} is "
                f"given too; the mapping names the classes: leave labels= out"
            )
        listed = check_labels(metric, "scores", list(scores))
        columns = list(scores.values())
    elif isinstance(scores, (list, tuple)) and not isinstance(scores, str):
        columns = list(scores)
        listed = check_labels(metric, "labels", labels)
    else:
        raise InvalidParameterError(
            f"{metric}: scores= must be a list of score columns, one per class (with labels=, "
            f"the class of each), or a mapping class -> column; got {scores!r}"
        )
    if not columns or not all(isinstance(c, str) and c for c in columns):
        raise InvalidParameterError(
            f"{metric}: scores= must name one score column (a non-empty string) per class, at "
            f"least two; got {scores!r}"
        )
    if len(columns) < 2:
        what = "a multiclass AUC" if metric == "multiclass_auc" else "it"
        binary = " (for one class use sqlmetrics.auc)" if metric == "multiclass_auc" else ""
        raise InvalidParameterError(
            f"{metric}: scores= names one column ({columns[0]!r}); {what} needs a score column "
            f"per class, at least two{binary}"
        )
    if len(set(columns)) != len(columns):
        twice = next(c for c in columns if columns.count(c) > 1)
        raise InvalidParameterError(
            f"{metric}: scores= names column {twice!r} twice; each class has its own column"
        )
    if listed is not None and len(listed) != len(columns):
        raise InvalidParameterError(
            f"{metric}: labels= lists {len(listed)} classes but scores= names {len(columns)} "
            f"columns; give the class of each score column, in the same order"
        )
    return columns, listed


def _indicator_columns(
    metric: str, scores: Any, indicators: Any, listed: tuple[Any, ...] | None
) -> tuple[list[str], tuple[Any, ...]]:
    """``indicators=`` (multilabel: a 0/1 column per class, scikit-learn's ``Y``) checked
    against ``scores=``: of the same form (both lists of one length, or both mappings of the
    same classes). Returns the indicator columns in the order of the score columns and the
    classes (a list form without ``labels=``: the column positions 0, 1, ...).
    """
    if isinstance(scores, Mapping):
        if not isinstance(indicators, Mapping):
            raise InvalidParameterError(
                f"{metric}: scores= is a mapping (class -> column) but indicators={indicators!r} "
                f"is not; give indicators= as a mapping class -> 0/1 column too"
            )
        missing = [c for c in scores if c not in indicators]
        extra = [c for c in indicators if c not in scores]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"classes in scores= but not in indicators=: {missing!r}")
            if extra:
                parts.append(f"classes in indicators= but not in scores=: {extra!r}")
            raise InvalidParameterError(
                f"{metric}: scores= and indicators= must map the same classes; {'; '.join(parts)}"
            )
        columns = [indicators[c] for c in scores]
    elif isinstance(indicators, (list, tuple)) and not isinstance(indicators, str):
        columns = list(indicators)
        n_scores = len(scores)
        if len(columns) != n_scores:
            raise InvalidParameterError(
                f"{metric}: indicators= names {len(columns)} columns but scores= names "
                f"{n_scores}; give the 0/1 column of each score column's class, in the same "
                f"order"
            )
    else:
        raise InvalidParameterError(
            f"{metric}: indicators= must be a list of 0/1 columns, one per score column of "
            f"scores= (a list), or a mapping class -> column (with scores= a mapping); got "
            f"{indicators!r}"
        )
    if not all(isinstance(c, str) and c for c in columns):
        raise InvalidParameterError(
            f"{metric}: indicators= must name one 0/1 column (a non-empty string) per class; "
            f"got {indicators!r}"
        )
    classes = listed if listed is not None else tuple(range(len(columns)))
    return columns, classes


def wide_frame(
    caller: str,
    data: Any,
    label: str,
    scores: Any,
    labels: Any,
    params: dict[str, Any],
    by: Sequence[str],
    con: Any,
    metric: str = "multiclass_auc",
    indicators: Any = None,
    weight: str | None = None,
    ci: CiRequest | None = None,
) -> pd.DataFrame:
    """``metric`` (multiclass_auc or top_k_accuracy, or multilabel_average_precision with
    ``indicators``) from wide columns, per slice of ``by``: the long table built by
    ``multiclass_wide_scores`` (sql/_macros/kernels/multiclass.sql) under the metric's own kernel.
    Multiclass: ``label`` holds the true class; multilabel (``indicators``): a 0/1 column per
    class. ``weight``: the row's weight column (top_k_accuracy). Returns the slice columns
    under their names, ``metric``, the kernel's counts and ``n_rows`` (rows of ``data`` in
    the slice). ``ci``: the calling function's interval request, served on the long view.
    """
    spec = get_spec(metric)
    checked = check_params(spec, params)
    average = checked.get("auc_average", checked.get("ap_average"))
    top_k = metric == "top_k_accuracy"
    if indicators is None and metric == "multilabel_average_precision":
        raise InvalidParameterError(
            f"{metric}: wide scores= need indicators= (a 0/1 column per class, scikit-learn's "
            f"indicator matrix Y); or pass the long table (row_id=, class_col=, score=, label=)"
        )
    if indicators is None and average == "samples":
        raise InvalidParameterError(
            f"{metric}: average='samples' averages over the rows of multilabel data; wide "
            f"scores= hold one true class per row: use 'macro', 'weighted' or 'micro' (or "
            f"give multilabel truth as indicators=, a 0/1 column per class)"
        )
    if indicators is not None and checked.get("multi_class") == "ovo":
        raise InvalidParameterError(
            f"{metric}: multi_class='ovo' needs one true class per row; indicators= (multilabel "
            f"truth) is one-vs-rest only, as in scikit-learn: use multi_class='ovr'"
        )
    columns, listed = _score_columns(metric, scores, labels)
    flags: list[str] = []
    used: list[tuple[Role, str]] = []
    if indicators is not None:
        flags, listed = _indicator_columns(metric, scores, indicators, listed)
        used = [(Role("indicators", "binary"), c) for c in dict.fromkeys(flags)]
    else:
        if not (isinstance(label, str) and label):
            raise InvalidParameterError(
                f"{metric}: label= must be a column name (a non-empty string); got {label!r}"
            )
        used = [(Role("label", "key"), label)]
    used += [(Role("score", "score"), c) for c in columns]
    if weight is not None:
        used.append((Role("weight", "weight"), weight))
    by_cols = normalize_by(caller, by)
    named = {} if indicators is not None else {"label": label}
    with open_checked(caller, data, con, named, used, by_cols) as (backend, source, _):
        dialect = backend.dialect
        quoted_by = [quote_ident(b, dialect) for b in by_cols]
        if indicators is None:
            listed = _true_classes(metric, backend, source, label, columns, listed)
            quoted: str | None = quote_ident(label, dialect)
            pairs = [[cls, quote_ident(col, dialect)] for cls, col in zip(listed, columns)]
        else:
            assert listed is not None  # _indicator_columns names the classes
            quoted = None
            pairs = [
                [cls, quote_ident(col, dialect), quote_ident(flag, dialect)]
                for cls, col, flag in zip(listed, columns, flags)
            ]
        request = ci
        # rows keyed (numbered) for top_k and the samples average (they partition by the row)
        # and for the bootstrap (one sample per row: its classes share a replicate weight)
        numbered = top_k or request is not None or (indicators is not None and average == "samples")
        quoted_weight = quote_ident(weight, dialect) if weight is not None else None
        view = wide_view(source.sql, by_cols, quoted, pairs, numbered, dialect, quoted_weight)
        roles: dict[str, str | None] = dict(WIDE_ROLES)
        if top_k:
            roles["weight"] = WIDE_WEIGHT if weight is not None else None
            # ties by column position (scikit-learn's argsort): the list's order with labels=;
            # else the sorted classes, the kernel's own rule (a mapping's order is not read)
            given = labels is not None and not isinstance(scores, Mapping)
            checked = {**checked, "labels": listed if given else None}
        sql = wide_sql(metric, view, by_cols, checked, dialect, roles)
        if request is None:
            frame = backend.query(sql)
        else:
            call = Call(spec, backend, view, roles, checked, list(by_cols), None)
            frame = serve(request, call, sql)
        groups = f" group by {', '.join(quoted_by)}" if by_cols else ""
        slices = "".join(f"{b} as slice_{i}, " for i, b in enumerate(quoted_by))
        counts = backend.query(f"select {slices}count(*) as n_rows from {source.sql} as t{groups}")
    keys = [f"slice_{i}" for i in range(len(by_cols))]
    frame = frame.drop(columns=[c for c in ("n_rows",) if c in frame.columns])
    if keys:  # NULL slices join as equal (a slice of their own)
        frame = frame.merge(counts, on=keys, how="left")
    else:
        frame["n_rows"] = counts["n_rows"].iloc[0]
    frame = frame.rename(columns=dict(zip(keys, by_cols)))
    return frame


#: the roles of the long view of the wide forms: its columns (multiclass_wide_scores)
WIDE_ROLES = {
    "group": "sqlmetrics_truth",
    "item": "sqlmetrics_class",
    "score": "sqlmetrics_score",
    "label": "sqlmetrics_label",
}
#: the weight column of that view (top_k_accuracy's weight=)
WIDE_WEIGHT = "sqlmetrics_weight"


def wide_view(
    relation: str,
    by: Sequence[str],
    label: str | None,
    pairs: Sequence[Sequence[Any]],
    numbered: bool,
    dialect: str,
    weight: str | None = None,
) -> str:
    """The long view of wide columns (``multiclass_wide_scores``; ``label``, ``pairs`` and
    ``weight`` quoted for ``dialect``, the slices ``by`` by their names), without an alias.
    """
    quoted_by = [quote_ident(b, dialect) for b in by]
    return str(
        macro("multiclass_wide_scores", dialect)(
            relation, quoted_by, label, pairs, numbered, weight
        )
    )


def wide_sql(
    metric: str,
    view: str,
    by: Sequence[str],
    params: Mapping[str, Any],
    dialect: str,
    columns: Mapping[str, str | None] | None = None,
) -> str:
    """The statement of ``metric`` (its kernel, the checked ``params``, ``k`` among them for
    top_k_accuracy) over ``view``, whose columns by role are ``columns`` (default WIDE_ROLES).
    """
    spec = get_spec(metric)
    roles = {
        role: (quote_ident(column, dialect) if column else None)
        for role, column in (WIDE_ROLES if columns is None else columns).items()
    }
    return kernel_sql(
        str(spec.kernel),
        f"{view} as wide_scores",
        by,
        roles,
        params,
        [entry(spec, metric, params.get("k"))],
        dialect=dialect,
    )


def _true_classes(
    metric: str,
    backend: Any,
    source: Any,
    label: str,
    columns: list[str],
    listed: tuple[Any, ...] | None,
) -> tuple[Any, ...]:
    """The classes of the score columns of the multiclass wide form: ``listed``, or the
    sorted classes of ``label`` (as many as columns); every class of ``label`` has a column.
    """
    dialect = backend.dialect
    quoted = quote_ident(label, dialect)
    if listed is None:
        found = backend.query(f"select distinct {quoted} as c from {source.sql} as t order by 1")[
            "c"
        ].tolist()
        if len(found) != len(columns):
            raise InvalidDataError(
                f"{metric}: label column {label!r} holds {len(found)} classes "
                f"({', '.join(map(repr, found[:10]))}{' ...' if len(found) > 10 else ''}) "
                f"but scores= names {len(columns)} columns; pass labels= (the class of "
                f"each score column, in order) or scores={{class: column}}"
            )
        listed = check_labels(metric, "labels", found)
    assert listed is not None
    _all_listed(
        metric,
        backend,
        source,
        label,
        listed,
        f"label column {label!r} holds classes without a score column: {{shown}}; give each "
        "class a column in scores= (and labels=)",
    )
    return listed


#: the registry's name of the option ``average`` of the metrics that take one
_AVERAGE = {"multiclass_auc": "auc_average", "multilabel_average_precision": "ap_average"}


@with_interval
def _class_scores(
    metric: str,
    data: Any,
    *,
    row_id: str | None,
    class_col: str | None,
    score: str,
    label: str,
    scores: Sequence[str] | Mapping[Any, str] | None,
    labels: Sequence[Any] | None,
    convention: str | None,
    con: Any,
    ci: CiRequest | None,
    indicators: Sequence[str] | Mapping[Any, str] | None = None,
    weight: str | None = None,
    **options: Any,
) -> float:
    """The body of multiclass_auc, multilabel_average_precision and top_k_accuracy: from the
    wide columns (``scores=``, the true class in ``label`` or the 0/1 ``indicators=``) or the
    long table (``row_id=``, ``class_col=``); ``options``: the metric's own (``multi_class``,
    ``average``, ``k``).
    """
    if "average" in options:
        options[_AVERAGE[metric]] = options.pop("average")
    params = {**options, "convention": convention}
    multilabel = metric == "multilabel_average_precision"
    if indicators is not None and scores is None:
        shown = "" if multilabel else repr(indicators)
        rest = "" if multilabel else "; the long form reads the 0/1 truth from label="
        raise InvalidParameterError(
            f"{metric}: indicators={shown} (a 0/1 column per class) needs scores= (the score "
            f"column of each class){rest}"
        )
    if scores is not None:
        if row_id is not None or class_col is not None:
            wide = (
                "scores=/indicators= (wide: a score and a 0/1 column per class)"
                if multilabel
                else f"scores={scores!r} (wide: a score column per class)"
            )
            raise InvalidParameterError(
                f"{metric}: {wide} and row_id=/class_col= (long: a row per class) both given; "
                f"pass one form"
            )
        frame = wide_frame(
            metric, data, label, scores, labels, params, [], con, metric, indicators, weight, ci
        )
        return scalar(frame, metric)
    if labels is not None and metric != "top_k_accuracy":
        raise InvalidParameterError(
            f"{metric}: labels={labels!r} names the classes of the "
            f"{'columns' if multilabel else 'score columns'} of scores= (wide form); the long "
            f"form reads them from class_col="
        )
    if row_id is None or class_col is None:
        wide = (
            "scores= and indicators= (a score and a 0/1 column per class)"
            if multilabel
            else "scores= (a column per class, with the true class in label=)"
        )
        raise InvalidParameterError(
            f"{metric}: give the scores as {wide} or as a long table with row_id= and "
            f"class_col= (a row per class, label= 0/1)"
        )
    columns: dict[str, str | None] = {
        "group": row_id,
        "item": class_col,
        "score": score,
        "label": label,
    }
    if metric == "top_k_accuracy":
        columns["weight"] = weight
        params["labels"] = labels
    frame = compute(
        metric,
        data,
        con=con,
        columns=columns,
        params=params,
        unique=("group", "item"),
        check=listed_classes(metric, class_col, labels),
        ci=ci,
    )
    return scalar(frame, metric)


#: the columns of the long form (a row per row id and class), in signature order
_LONG_FORM = ("data", "row_id", "class_col", "score", "label")
#: the annotations and defaults of the functions' own parameters
_TYPES: dict[str, tuple[str, object]] = {
    "label": ("str", "label"),
    "weight": ("str | None", None),
    "k": ("int", 2),
    "multi_class": ("str", "ovr"),
    "average": ("str", "macro"),
    "scores": ("Sequence[str] | Mapping[Any, str] | None", None),
    "indicators": ("Sequence[str] | Mapping[Any, str] | None", None),
    "labels": ("Sequence[Any] | None", None),
}
_SETUP = """
    >>> import pandas as pd
    >>> import sqlmetrics"""


def _example(scores: str, truth: str) -> str:
    """The examples' setup: ``scores``, a score column per class, in their long form, whose
    label is 1 on each row's true class (``truth``: a letter per row).
    """
    return f"""{_SETUP}
    >>> wide = pd.DataFrame({scores})
    >>> long = wide.reset_index(names="row").melt("row", var_name="cls", value_name="score")
    >>> long["label"] = (long["cls"] == long["row"].map(dict(enumerate("{truth}")))).astype(int)
"""


_ERRORS = """
    InvalidDataError
        NULLs, labels{} outside {{0, 1}}, non-finite scores,"""
_COLUMNS = """
    ColumnNotFoundError
        A column named by any argument is missing.
    """
_FORMS = "both forms (``scores`` and ``row_id``/``class_col``) or neither."


def _scores_function(name: str, takes: tuple[str, ...], own: str, **sections: Any) -> Function:
    """A metric of a table of scores, declared: it takes the long form's columns, ``takes`` and
    the interval options; ``own``: the entries of its own parameters (types: :data:`_TYPES`).
    """
    declared = (*_LONG_FORM, *takes, *_INTERVAL)
    return Function(name, declared, _class_scores, own=args(own, **_TYPES), **sections)


_MULTICLASS_AUC = _scores_function(
    "multiclass_auc",
    ("scores", "indicators", "labels", "multi_class", "average"),
    summary="""
    ROC AUC of a multiclass or multilabel classifier, from a long table of scores or
    from a score column per class.

    Equal to scikit-learn's ``roc_auc_score(y, scores, multi_class=multi_class,
    average=average)``: ``scores`` the wide matrix, given as its columns (``scores=``, with
    ``label`` the true class, as scikit-learn's ``y``) or as a long table (``row_id=``,
    ``class_col=``, ``score=``, ``label`` 0/1).
    """,
    returns=_RETURNS_UNIT,
    raises=_ERRORS.format("")
    + """ no rows; with ``scores=``, a class of
        ``label`` without a score column, or (without ``labels``) as many classes as columns;
        with ``indicators=``, an indicator column not of 0/1 numbers or booleans.
    InvalidParameterError
        ``multi_class`` or ``average`` unknown, or ``multi_class="ovo"`` with "micro" or
        "samples" (or with ``indicators``); ``scores`` not a list or mapping of two or more
        distinct columns, ``labels`` of another length, repeated, or not of the label
        column's type; ``indicators`` not of the form of ``scores`` (a list of its length, a
        mapping of its classes), or without ``scores``; both forms (``scores`` and
        ``row_id``/``class_col``) or neither."""
    + _COLUMNS,
    warns="""
    UndefinedMetricWarning
        When a class, pair or row of the average has no positive or no negative (scikit-learn
        raises there); NaN is returned.
    """,
    see_also="auc : the binary AUC.",
    notes=r"""
    Each binary AUC is the Mann-Whitney statistic with average ranks (a tied pair counts
    1/2). One-vs-one, as Hand and Till (2001):

    .. math:: AUC_{ovo} = \frac{1}{|pairs|} \sum_{a < b} \frac{A(a|b) + A(b|a)}{2}

    with :math:`A(a|b)` the AUC of class :math:`a`'s score between the rows of true class
    :math:`a` and those of true class :math:`b`. The wide form (one score column per class)
    is the same table after an unpivot, e.g. DuckDB's ``unpivot t on a, b, c into name
    class_col value score``.
    """,
    references=references(
        """Hand, D. J. and Till, R. J. (2001). A simple generalisation of the area under the
        ROC curve for multiple class classification problems. Machine Learning 45, 171-186.""",
        """Provost, F. and Domingos, P. (2000). Well-trained PETs: improving probability
        estimation trees. CeDER Working Paper IS-00-04, NYU.""",
    ),
    examples=_example(
        '{"a": [.7, .2, .1, .3], "b": [.2, .5, .3, .3], "c": [.1, .3, .6, .4]}', "abcb"
    )
    + """    >>> round(sqlmetrics.multiclass_auc(long, row_id="row", class_col="cls"), 4)
    0.9583
    >>> wide["y"] = list("abcb")  # the same scores, a column per class
    >>> round(sqlmetrics.multiclass_auc(wide, label="y", scores=["a", "b", "c"]), 4)
    0.9583
    >>> round(sqlmetrics.multiclass_auc(wide, label="y", scores={"c": "c", "a": "a", "b": "b"},
    ...                                 multi_class="ovo"), 4)
    0.9583
    >>> wide[["y_a", "y_b", "y_c"]] = [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 1, 0]]  # multilabel
    >>> round(sqlmetrics.multiclass_auc(wide, scores=["a", "b", "c"],
    ...                                 indicators=["y_a", "y_b", "y_c"], average="samples"), 4)
    0.75
    """,
    own="""
        label : str, default "label"
            Long form: column of 0/1 (or booleans), 1 where the class is a true class of the row
            (multiclass: exactly one per row id; multilabel: any number). With ``scores=``: the
            column of the row's true class (strings, numbers or booleans), scikit-learn's ``y``.
        scores : list of str or dict, optional
            Wide form: a score column per class (at least two), scikit-learn's ``y_score``
            columns; their classes are ``labels`` in the same order (default: the sorted classes
            of ``label``, which must then number as many), or give a mapping ``{class: column}``.
            Every class of ``label`` needs a column. With the true class in ``label`` (multiclass,
            one true class per row): not with ``average="samples"``; with ``indicators=``
            (multilabel): every average. In ``evaluate``: ``scores=``; on the command line:
            ``--class-score CLASS=COLUMN`` per class.
        indicators : list of str or dict, optional
            Wide multilabel truth, with ``scores=``: a 0/1 (or boolean) column per class,
            scikit-learn's indicator matrix ``Y`` in ``roc_auc_score(Y, S, average=)``: a list
            in the order of the ``scores`` list, or a mapping ``{class: column}`` of the classes
            of the ``scores`` mapping. ``label`` is then not read; one-vs-rest only. In
            ``evaluate``: ``indicators=``; on the command line: ``--class-indicator
            CLASS=COLUMN`` per class. With ``scores=`` and ``ci=``, each row is one sample of the
            bootstrap (docs/concepts/uncertainty.md).
        labels : list, optional
            With ``scores=`` as a list: the class of each score column (scikit-learn's
            ``labels``, which must be sorted there; any order here). A listed class that is never
            true leaves its one-vs-rest AUC (and so the average) undefined, as there. With
            ``indicators=`` it only names the classes (default: their positions 0, 1, ...).
        multi_class : {"ovr", "ovo"}, default "ovr"
            "ovr": each class against the rest; "ovo": each pair of classes (Hand & Till),
            multiclass data only.
        average : {"macro", "weighted", "micro", "samples"}, default "macro"
            "macro": the mean over classes (ovr) or pairs (ovo); "weighted": weighted by the
            classes' support (ovr) or the pairs' prevalence (ovo); "micro": one AUC over all
            (row, class) pairs pooled; "samples": the mean over rows of each row's AUC across its
            classes (multilabel). micro and samples are one-vs-rest only. In ``evaluate``:
            ``auc_average=``.
        """,
)
_MULTILABEL_AVERAGE_PRECISION = _scores_function(
    "multilabel_average_precision",
    ("scores", "indicators", "labels", "average"),
    summary="""
    Average precision of a multilabel classifier, averaged over classes, rows or pooled.

    Equal to scikit-learn's ``average_precision_score(Y, scores, average=average)``, with
    ``Y`` and ``scores`` given as a long table (``row_id=``, ``class_col=``, ``score=``,
    ``label=`` 0/1) or as their wide columns (``scores=`` and ``indicators=``).
    """,
    returns=_RETURNS_UNIT,
    raises=_ERRORS.format(" (or indicators)")
    + f""" a class twice for a
        row, no rows.
    InvalidParameterError
        ``average`` unknown; ``scores`` and ``indicators`` not two or more distinct score
        columns with a 0/1 column each (both lists of one length, or both mappings of the
        same classes); {_FORMS}"""
    + _COLUMNS,
    warns="""
    UndefinedMetricWarning
        When a class (macro, weighted), a row (samples) or the whole table (micro) has no
        positive label; NaN is returned.
    """,
    see_also="average_precision : the binary AP.",
    notes=r"""
    .. math:: AP = \sum_t (R_t - R_{t'}) P_t

    over the distinct scores as thresholds (rows of equal score form one step), as
    scikit-learn's ``average_precision_score``.
    """,
    references=references(
        """Zhu, M. (2004). Recall, precision and average precision. Working paper 2004-09,
        University of Waterloo."""
    ),
    examples=_SETUP
    + """
    >>> long = pd.DataFrame({"row": [0, 0, 1, 1, 2, 2], "cls": ["a", "b"] * 3,
    ...                      "score": [.9, .2, .4, .6, .3, .8], "label": [1, 0, 0, 1, 1, 1]})
    >>> round(sqlmetrics.multilabel_average_precision(long, row_id="row", class_col="cls"), 4)
    0.9167
    >>> wide = pd.DataFrame({"p_a": [.9, .4, .3], "p_b": [.2, .6, .8], "y_a": [1, 0, 1],
    ...                      "y_b": [0, 1, 1]})  # the same, a score and a 0/1 column per class
    >>> round(sqlmetrics.multilabel_average_precision(wide, scores=["p_a", "p_b"],
    ...                                               indicators=["y_a", "y_b"]), 4)
    0.9167
    """,
    own="""
        label : str, default "label"
            Long form: column of 0/1: 1 where the class is a true class of the row.
        scores : list of str or dict, optional
            Wide form: a score column per class (at least two), scikit-learn's ``y_score``
            columns, as a list or a mapping ``{class: column}``; with ``indicators=``. In
            ``evaluate``: ``scores=``; on the command line: ``--class-score CLASS=COLUMN``.
        indicators : list of str or dict, optional
            Wide form: a 0/1 (or boolean) column per class, scikit-learn's ``Y``: a list in the
            order of the ``scores`` list, or a mapping of the classes of the ``scores`` mapping.
            On the command line: ``--class-indicator CLASS=COLUMN``.
        labels : list, optional
            With ``scores=`` as a list: names of the classes (they do not change the value).
        average : {"macro", "weighted", "micro", "samples"}, default "macro"
            "macro": the mean of the classes' AP; "weighted": weighted by the classes' positives;
            "micro": one AP over all (row, class) pairs; "samples": the mean over rows of each
            row's AP across its classes. In ``evaluate``: ``ap_average=``.
        """,
)
_TOP_K_ACCURACY = _scores_function(
    "top_k_accuracy",
    ("weight", "scores", "k", "labels"),
    summary="""
    Top-k accuracy: the fraction of rows whose true class is among the k best-scored.

    Equal to scikit-learn's ``top_k_accuracy_score(y, scores, k=k, labels=labels,
    sample_weight=w)``, from the long table of :func:`multiclass_auc` or from its wide
    columns (``scores=``, a score column per class, and the true class in ``label=``).
    """,
    returns=_RETURNS_UNIT,
    raises=_ERRORS.format("")
    + f""" a class twice for a row, no rows;
        with ``scores=``, a class of ``label`` without a score column, or (without
        ``labels``) as many classes as columns.
    InvalidParameterError
        ``k`` not an integer >= 1; ``scores`` not a list or mapping of two or more distinct
        columns, ``labels`` of another length, repeated, or not of the class column's type;
        {_FORMS}"""
    + _COLUMNS,
    warns=WARNS_NO_WEIGHT,
    notes="""
    Classes of equal score are ordered by class, the later first, as scikit-learn's
    reversed stable ``argsort`` orders its columns (sorted classes, or ``labels``' order:
    scikit-learn requires it sorted, any order is taken here). A row with no class labelled
    1 counts as a miss. The wide form is the same table after an unpivot, with the same
    rule: ties by the position of the class in ``labels`` (the list's column order), else
    (no ``labels``, or a mapping, whose order is not read) by class, the later first.
    """,
    examples=_example(
        '{"a": [.5, .3, .2, .7], "b": [.2, .4, .2, .1], "c": [.3, .3, .6, .2]}', "bcab"
    )
    + """    >>> sqlmetrics.top_k_accuracy(long, row_id="row", class_col="cls", k=2)
    0.25
    >>> wide["y"] = list("bcab")  # the same scores, a column per class
    >>> sqlmetrics.top_k_accuracy(wide, label="y", scores=["a", "b", "c"], k=2)
    0.25
    """,
    own="""
        label : str, default "label"
            Long form: column of 0/1, 1 on the row's true class. With ``scores=``: the column of
            the row's true class (scikit-learn's ``y_true``).
        weight : str, optional
            Column of the row's non-negative weight (long form: repeated on each of its lines).
        scores : list of str or dict, optional
            Wide form: a score column per class (at least two), scikit-learn's ``y_score``
            columns, as a list (the classes: ``labels=``, else the sorted classes of ``label``,
            as many as columns) or a mapping ``{class: column}``. In ``evaluate``: ``scores=``;
            on the command line: ``--class-score CLASS=COLUMN``.
        k : int, default 2
            How many of the best-scored classes count (>= 1; scikit-learn's default 2). In
            ``evaluate``: ``"top_k_accuracy@3"`` (the name without ``@k`` counts every class, as
            a ranking metric without a cut-off does).
        labels : list, optional
            The classes, in the order of scikit-learn's score columns (its ``labels``): classes
            of equal score are ordered by their position here, the later first. Every class of
            ``class_col`` (with ``scores=``: of ``label``) must be listed; with ``scores=`` (a
            list), the class of each column, in order. Strings, numbers or booleans, as the
            class column's type. None: the classes in sorted order.
        """,
)

#: the public functions of this module, generated into _api_multiclass_roc.py
API = (_MULTICLASS_AUC, _TOP_K_ACCURACY, _MULTILABEL_AVERAGE_PRECISION)
