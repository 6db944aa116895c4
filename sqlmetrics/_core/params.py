"""The shared parameters of the public functions, each declared once with its documentation.

A parameter that many public functions take (``data``, ``con``, ``label``, ``ci``, ...) has one
:class:`Param` here: its name, type (the annotation, as a string), default, allowed values, and
its numpydoc entry (``name : type`` and one paragraph of description). Where a name genuinely
means different things in different functions (``label``: relevance grades in the ranking
metrics, 0/1 in the binary ones, classes in the multiclass ones), it has a few *variants*, each
naming the functions that use it. The functions' docstrings hold the declared text: it is written
into them by ``python -m tools.api`` (``--check``, run by tests/test_params.py, fails
while one differs), and tests/test_params.py checks every public function's entry for a declared
name against it.

A function whose entry for a declared name says something of its own (``evaluate``'s ``ci``
adds columns; ``compare``'s ``ci`` has a default of 0.95) is listed in :data:`OWN` with the
reason. Entries that document several parameters at once (``state``'s "As for evaluate") are not
entries for one shared parameter and are left as written.

A description may hold ``{default_method}`` and ``{methods}``: the metric's interval methods,
filled from the registry per function by the generator (``tools.api``).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

__all__ = ["OWN", "PARAMS", "REQUIRED", "WIDTH", "Param", "variants"]

#: the width of a description's lines (it is indented by 4 under its entry, by 8 in a source
#: docstring: 100 columns at most)
WIDTH = 88


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: the default of a parameter without one
REQUIRED = _Required()


@dataclass(frozen=True)
class Param:
    """One declared parameter (or one variant of it).

    ``key`` is the variant's name (the parameter's name, or ``name:variant``); ``functions``
    the public functions that use it, or ``None``: every public function taking ``name`` that
    no other variant claims and :data:`OWN` does not list.
    """

    key: str
    type: str  # the annotation in the signatures, as a string
    default: object  # the default in the signatures (REQUIRED: none)
    doc_type: str  # the numpydoc type, after ``name : ``
    description: str  # one paragraph, wrapped to WIDTH when written
    choices: tuple[object, ...] | None = None  # the allowed values, where they are a set
    bounds: str | None = None  # the allowed range, in words, where there is one
    functions: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        return self.key.partition(":")[0]

    def entry(self, indent: str = "", **fill: str) -> str:
        """The numpydoc entry, indented by ``indent`` (its description by 4 more)."""
        text = self.description
        for placeholder, value in fill.items():
            text = text.replace("{" + placeholder + "}", value)
        body = textwrap.fill(
            " ".join(text.split()),
            width=WIDTH,
            break_long_words=False,
            break_on_hyphens=False,
        )
        head = f"{indent}{self.name} : {self.doc_type}"
        return "\n".join([head, *(f"{indent}    {line}" for line in body.splitlines())])


RANKING = (
    "bpref", "cg", "dcg", "err", "fallout", "gm_map", "hit_rate", "hit_ratio", "idcg", "infap",
    "iprec_11pt_avg", "iprec_at_recall", "judged", "mean_average_precision", "mrr", "ndcg",
    "num_q", "num_rel", "num_rel_ret", "num_ret", "precision_at_k", "r_precision", "rbp",
    "recall_at_k", "set_f", "set_precision", "set_recall",
)  # fmt: skip
#: the ranking metrics on the shared kernel (``sql/_macros/ranking.sql``)
KERNEL = (
    "cg", "dcg", "hit_rate", "hit_ratio", "idcg", "mean_average_precision", "mrr", "ndcg",
    "precision_at_k", "r_precision", "recall_at_k",
)  # fmt: skip
TREC_ONLY = tuple(f for f in RANKING if f not in KERNEL)
#: the binary metrics that take ``pos_label``
BINARY = (
    "accuracy", "auc", "auc_bounds", "average_precision", "brier_score", "calibration_curve",
    "calibration_ratio", "confusion_matrix", "expected_calibration_error", "f1", "fbeta", "fpr",
    "gauc", "ks_point", "ks_statistic", "lift_table", "log_loss", "normalized_entropy",
    "partial_auc", "pr_curve", "precision", "recall", "roc_curve", "specificity",
)  # fmt: skip
#: the metrics of a thresholded score or a prediction column
THRESHOLDED = (
    "accuracy", "confusion_matrix", "f1", "fbeta", "fpr", "mcc", "precision", "recall",
    "specificity",
)  # fmt: skip
PROBABILITY = (
    "brier_score", "calibration_curve", "calibration_ratio", "expected_calibration_error",
    "log_loss", "normalized_entropy",
)  # fmt: skip
CLASSES = (
    "balanced_accuracy", "classification_report", "hamming_loss", "jaccard",
    "multiclass_confusion_matrix",
)  # fmt: skip
LONG_FORM = ("multiclass_auc", "multilabel_average_precision", "top_k_accuracy")
REFUSED_CI = ("auc_bounds", "num_q", "num_rel", "num_rel_ret", "num_ret")

TIES = ("item_desc", "item_asc", "text_desc", "average")
_TIES_TEXT = (
    "Order of equal scores: by item descending in the item column's own type (numbers in "
    'numeric order), ascending, ``"text_desc"``: the item as text in byte order, descending '
    '(trec_eval\'s rule for docnos, which ``convention="trec_eval"`` sets; integer ids compare '
    'as their digits: "9" ranks above "10")'
)
_DATA_TEXT = (
    "A table or view name in ``con``, a Parquet/CSV path or glob (or a list of them), a "
    "DataFrame, an Arrow table or a DuckDB relation"
)
_DATA_TYPE = "str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation"
_CI_METHOD_TYPE = '{"wilson", "delong", "t", "bootstrap"}, optional'
_CI_METHOD_TEXT = (
    "The interval's method; None: this metric's default, {default_method} (the methods that "
    'apply: {methods}; README, "How sure is the number?").'
)


def _params() -> tuple[Param, ...]:
    return (
        # ------------------------------------------------------------------ the input
        Param("data", "Any", REQUIRED, _DATA_TYPE, _DATA_TEXT + "."),
        Param(
            "data:ranking",
            "Any",
            REQUIRED,
            _DATA_TYPE,
            _DATA_TEXT + ": one row per (group, item).",
            functions=RANKING,
        ),
        Param(
            "data:recommendations",
            "Any",
            REQUIRED,
            _DATA_TYPE,
            _DATA_TEXT + ": the recommendations, one row per recommended (user, item), e.g. "
            "every user's top k.",
            functions=("catalog_coverage", "distributional_coverage", "gini_index", "novelty"),
        ),
        Param(
            "data:long_form",
            "Any",
            REQUIRED,
            _DATA_TYPE,
            _DATA_TEXT + ": one row per (row id, class) in the long form, one row per "
            "classified row with ``scores=``.",
            functions=LONG_FORM,
        ),
        Param(
            "con",
            "Any",
            None,
            "duckdb connection, str, SQLAlchemy engine, SparkSession or ClickHouse client, "
            "optional",
            "The engine that runs the statement and holds ``data`` (and ``qrels=``, "
            "``train=``) when they are table names. None (default): a fresh in-memory DuckDB "
            "connection. DuckDB: a ``duckdb`` connection, or a database file path (opened "
            "read-only). PostgreSQL: a SQLAlchemy ``Engine`` or ``Connection``. Spark: a "
            "``pyspark.sql.SparkSession``. ClickHouse: a ``chdb`` session or connection (in "
            'process) or a ``clickhouse_connect`` client (over HTTP). README, "Other engines".',
        ),
        # ------------------------------------------------------------------ columns
        Param(
            "label:ranking",
            "str",
            "label",
            'str, default "label"',
            "Column of graded relevance >= 0 (0 = not relevant): in ``data``, or in ``qrels`` "
            "when given (then ``data`` needs no label).",
            functions=RANKING,
        ),
        Param(
            "label:binary",
            "str",
            "label",
            'str, default "label"',
            "Column of true labels: 0/1 or boolean (a CSV's yes/no, true/false), or any two "
            "values with ``pos_label``.",
            functions=BINARY,
        ),
        Param(
            "label:classes",
            "str",
            "label",
            'str, default "label"',
            "Column of true classes (any type, no NULL).",
            functions=CLASSES,
        ),
        Param(
            "score:ranking",
            "str",
            "score",
            'str, default "score"',
            "Column of finite scores; higher ranks first.",
            functions=RANKING,
        ),
        Param(
            "score:thresholded",
            "str",
            "score",
            'str, default "score"',
            "Column of finite scores, compared with ``threshold``; ignored with ``prediction``.",
            functions=THRESHOLDED,
        ),
        Param(
            "score:probability",
            "str",
            "score",
            'str, default "score"',
            "Column of predicted probabilities of label 1, in [0, 1].",
            functions=PROBABILITY,
        ),
        Param(
            "score:binary",
            "str",
            "score",
            'str, default "score"',
            "Column of scores, any finite numbers; higher means label 1 more likely.",
            functions=(
                "auc",
                "auc_bounds",
                "average_precision",
                "gauc",
                "ks_point",
                "ks_statistic",
                "lift_table",
                "partial_auc",
                "pr_curve",
                "roc_curve",
            ),
        ),
        Param(
            "group:ranking",
            "str",
            "group",
            'str, default "group"',
            "Column identifying the ranked list (query, user, session). Must not be NULL.",
            functions=RANKING,
        ),
        Param(
            "item:ranking",
            "str",
            "item",
            'str, default "item"',
            "Column identifying the item (document, product). (group, item) pairs must be "
            "unique, unless ``duplicates=`` merges them.",
            functions=RANKING,
        ),
        Param(
            "item:recommendations",
            "str",
            "item",
            'str, default "item"',
            "The item column, in ``data`` (and in ``train`` where the function takes it). No NULL.",
            functions=("catalog_coverage", "distributional_coverage", "gini_index", "novelty"),
        ),
        Param(
            "weight",
            "str | None",
            None,
            "str, optional",
            "Column of non-negative sample weights: each row counts its weight. None "
            "(default) weighs every row 1.",
        ),
        Param(
            "weight:curves",
            "str | None",
            None,
            "str, optional",
            "Column of non-negative sample weights: each row counts its weight, and rows of "
            "weight 0 are left out (as scikit-learn does). None (default) weighs every row 1.",
            functions=("average_precision", "pr_curve", "roc_curve"),
        ),
        Param(
            "pos_label",
            "Any",
            None,
            "str, number or bool, optional",
            "The label value of the positive class, for a label column of two other values "
            '(e.g. ``"spam"``, as scikit-learn\'s ``pos_label``); None: 0/1 or boolean labels.',
        ),
        Param(
            "threshold",
            "float | None",
            None,
            "float, optional",
            "Predicted positive (1) when ``score >= threshold``. Default 0.5. Not with "
            "``prediction``.",
        ),
        Param(
            "by:curves",
            "str | Sequence[str] | None",
            None,
            "str or list of str, optional",
            "Slice columns: one result (curve, row or table) per distinct combination of "
            "their values, the slice columns first.",
            functions=("calibration_curve", "ks_point", "lift_table", "pr_curve", "roc_curve"),
        ),
        # ------------------------------------------------------------------ ranking options
        Param(
            "qrels:ranking",
            "Any",
            None,
            "same kinds as ``data``, optional",
            "Judgments: columns ``group``, ``item``, ``label`` (same names). They may hold "
            "relevant items the run never scored; a run item absent from them has label 0; a "
            "run group absent from them is not evaluated (nothing is judged), as in trec_eval.",
            functions=RANKING,
        ),
        Param(
            "k",
            "int | None",
            None,
            "int, optional",
            "Cut-off: only the top ``k`` positions count. None (default) = the whole list.",
            bounds="an integer >= 1, or None",
        ),
        Param(
            "relevance_level",
            "float",
            1,
            "float, default 1",
            "An item is relevant when ``label >= relevance_level`` (trec_eval's ``-l``).",
            bounds="a finite number > 0",
        ),
        Param(
            "relevance_level:gains",
            "float",
            1,
            "float, default 1",
            "An item is relevant when ``label >= relevance_level`` (trec_eval's ``-l``). For "
            "the gains, graded labels are used as they are; the level decides which groups are "
            "empty.",
            bounds="a finite number > 0",
            functions=("cg", "dcg", "idcg", "ndcg"),
        ),
        Param(
            "ties",
            "str | None",
            None,
            '{"item_desc", "item_asc", "text_desc", "average"}, default "item_desc"',
            _TIES_TEXT + ', or ``"average"``: the expected value over every order of the '
            "tied items (McSherry & Najork 2008).",
            choices=TIES,
        ),
        Param(
            "ties:no_average",
            "str | None",
            None,
            '{"item_desc", "item_asc", "text_desc"}, default "item_desc"',
            _TIES_TEXT + '. ``"average"`` is refused: the metric is not linear in the '
            "positions, and has no closed form for it.",
            choices=TIES[:3],
            functions=("bpref", "err", "infap", "iprec_11pt_avg", "iprec_at_recall", "judged"),
        ),
        Param(
            "ties:map",
            "str | None",
            None,
            '{"item_desc", "item_asc", "text_desc", "average"}, default "item_desc"',
            _TIES_TEXT + ', or ``"average"``: the expected value over every order of the '
            "tied items (McSherry & Najork 2008): not with ``ap_denominator='hits'``, which "
            "has no closed form.",
            choices=TIES,
            functions=("mean_average_precision",),
        ),
        Param(
            "empty",
            "str | None",
            None,
            '{"skip", "zero", "one", "error"}, default "skip"',
            "What to do with an *empty* group: one with no relevant item (label >= "
            '``relevance_level``). ``"skip"`` leaves it out of the mean (every metric of one '
            "call averages over the same groups; a warning says how many when ``empty=`` and "
            '``convention=`` are both left out). ``"zero"`` keeps it: its value is 0 where '
            'it is 0/0 (trec_eval, with or without ``-c``). ``"one"`` keeps it with the '
            'value 1 (torchmetrics\' ``empty_target_action="pos"``). ``"error"`` raises.',
            choices=("skip", "zero", "one", "error"),
            functions=KERNEL,
        ),
        Param(
            "empty:with_one",
            "str | None",
            None,
            '{"skip", "zero", "one", "error"}, default "skip"',
            "Groups with no relevant item: left out, counted 0 (trec_eval), counted 1 "
            "(torchmetrics), or an error.",
            choices=("skip", "zero", "one", "error"),
            functions=("err", "infap", "judged", "set_f", "set_precision", "set_recall"),
        ),
        Param(
            "empty:without_one",
            "str | None",
            None,
            '{"skip", "zero", "error"}, default "skip"',
            "Groups with no relevant item: left out of the mean, counted 0 (trec_eval), or an "
            "error.",
            choices=("skip", "zero", "error"),
            functions=("bpref", "fallout", "gm_map", "iprec_11pt_avg", "iprec_at_recall", "rbp"),
        ),
        Param(
            "empty:counts",
            "str | None",
            None,
            '{"skip", "zero", "error"}, default "skip"',
            "Groups with no relevant item: left out, counted (trec_eval), or an error.",
            choices=("skip", "zero", "error"),
            functions=("num_q", "num_rel", "num_rel_ret", "num_ret"),
        ),
        Param(
            "missing",
            "str | None",
            None,
            '{"skip", "zero", "error"}, default "skip"',
            "With ``qrels``: what to do with a *missing* group, one the judgments hold but the "
            'run has no row for. ``"skip"`` leaves it out (trec_eval without ``-c``); '
            '``"zero"`` counts it as a group that retrieved nothing: 0 for every metric '
            "except ``idcg``, whose value comes from the judgments alone (``trec_eval -c``); "
            '``"error"`` raises. A missing group without a relevant item is kept only when '
            '``empty="zero"`` too. Without ``qrels`` no group is missing. trec_eval\'s '
            'default is ``empty="zero", missing="skip"``, its ``-c`` ``empty="zero", '
            'missing="zero"``.',
            choices=("skip", "zero", "error"),
            functions=KERNEL,
        ),
        Param(
            "missing:trec",
            "str | None",
            None,
            '{"skip", "zero", "error"}, default "skip"',
            "With ``qrels``, judged groups the run has no row for: left out (trec_eval), "
            "counted as a group that retrieved nothing (trec_eval ``-c``), or an error.",
            choices=("skip", "zero", "error"),
            functions=TREC_ONLY,
        ),
        Param(
            "duplicates",
            "str",
            "error",
            '{"error", "max", "sum"}, default "error"',
            'Repeated (group, item) rows of ``data`` (an impression log): ``"error"`` '
            'raises; ``"max"`` merges them into one item with the highest score and the '
            'highest label (relevant if any impression was); ``"sum"`` keeps the highest '
            "score and sums the labels (e.g. clicks as graded relevance). Every metric then "
            "sees each item once, at its best position. ``qrels`` must never repeat a pair.",
            choices=("error", "max", "sum"),
        ),
        Param(
            "judged_only",
            "bool",
            False,
            "bool, default False",
            "With ``qrels``, remove the run's items absent from the judgments before ranking "
            "(the condensed list, Sakai 2007; trec_eval ``-J``). Without ``qrels`` every row "
            "is judged.",
            choices=(True, False),
        ),
        Param(
            "gain",
            "str | None",
            None,
            '{"exponential", "linear"}, default "exponential"',
            "Gain of a label: ``2**label - 1`` (Burges et al. 2005) or ``label`` itself "
            "(Jarvelin & Kekalainen 2002; trec_eval and scikit-learn).",
            choices=("exponential", "linear"),
        ),
        Param(
            "gains",
            "Mapping[int, float] | None",
            None,
            "dict, optional",
            "A gain per relevance level, e.g. ``{0: 0, 1: 1, 2: 3}`` (trec_eval's gain map, "
            "ir_measures' ``nDCG(gains=...)``): integer levels, finite gains; a label not in it "
            "keeps its own value as gain, and the ideal order is by gain. Replaces ``gain=``.",
        ),
        # ------------------------------------------------------------------ intervals
        Param(
            "ci",
            "float | None",
            None,
            "float, optional",
            "Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` "
            "``(value, lo, hi, level, method)`` instead of a float. None (default): the float "
            "alone.",
            bounds="a level in (0, 1), or None",
        ),
        Param(
            "ci:counts",
            "float | None",
            None,
            "float, optional",
            "Confidence level in (0, 1), e.g. 0.95: return an :class:`~sqlmetrics.Interval` "
            "``(value, lo, hi, level, method)`` instead of a float. None (default): the float "
            "alone. Refused here: a count summed over groups has no interval.",
            functions=("num_q", "num_rel", "num_rel_ret", "num_ret"),
        ),
        Param(
            "ci_method",
            "CiMethod | None",
            None,
            _CI_METHOD_TYPE,
            _CI_METHOD_TEXT,
            choices=("wilson", "delong", "t", "bootstrap"),
        ),
        Param(
            "ci_method:losses",
            "CiMethod | None",
            None,
            _CI_METHOD_TYPE,
            _CI_METHOD_TEXT + " 't': the mean of the per-row losses +- t_{n-1} times its "
            "standard error, sqrt(n / (n - 1) sum w_i^2 (l_i - mean)^2) / sum w_i over the n "
            "rows of nonzero weight (s / sqrt(n) without weights); NaN for n < 2. "
            "'bootstrap': the Poisson row bootstrap, percentile interval.",
            choices=("wilson", "delong", "t", "bootstrap"),
            functions=("brier_score", "hamming_loss", "log_loss"),
        ),
        Param(
            "ci_method:refused",
            "CiMethod | None",
            None,
            "str, optional",
            "Not available here (see ``ci``).",
            functions=REFUSED_CI,
        ),
        Param(
            "n_boot",
            "int",
            200,
            "int, default 200",
            'Bootstrap replicates (>= 10), for ``ci_method="bootstrap"``.',
            bounds="an integer >= 10",
        ),
        Param(
            "seed",
            "int",
            0,
            "int, default 0",
            "Seed of the bootstrap's hashed Poisson weights, in [0, 2^31): the same seed gives "
            "the same interval on every engine and under any row order.",
            bounds="an integer in [0, 2^31)",
        ),
        Param(
            "convention",
            "str | None",
            None,
            "str, optional",
            'Follow another tool\'s definition: ``"trec_eval"``, ``"trec_eval_c"``, '
            '``"sklearn"``, ``"ranx"``, ``"torchmetrics"``, ``"recommenders"``, ``"spark"`` '
            'or ``"ir_measures"`` (the README\'s conventions table lists what each sets). '
            "Options left out take the tool's values; an option passed explicitly wins where "
            "the tool can produce it, else it is an error.",
        ),
    )


#: every declaration, by key
PARAMS: dict[str, Param] = {p.key: p for p in _params()}

#: (function, parameter) -> why the function's entry is its own text, not a declaration
OWN: dict[tuple[str, str], str] = {
    ("auc_bounds", "ci"): "returns two bounds, so ci= is refused with its reason",
    ("auc_bounds", "n_boot"): "refused with ci=",
    ("auc_bounds", "seed"): "refused with ci=",
    ("cohen_kappa", "label"): "the first rater",
    ("compare", "by"): "one comparison per slice",
    ("compare", "ci"): "the level of the difference's interval, default 0.95",
    ("compare", "convention"): "as in evaluate",
    ("compare", "data"): "one table of one score column per model, optional with runs=",
    ("compare", "group"): "as in evaluate",
    ("compare", "item"): "as in evaluate",
    ("compare", "label"): "as in evaluate",
    ("compare", "n_boot"): "the bootstrap test's replicates",
    ("compare", "qrels"): "as in evaluate",
    ("compare", "score"): "as in evaluate",
    ("compare", "seed"): "also the seed of the sign flips",
    ("compare", "weight"): "as in evaluate",
    ("evaluate", "by"): "one output row per slice",
    ("evaluate", "ci"): "adds interval columns",
    ("evaluate", "ci_method"): "one method for every metric",
    ("evaluate", "group"): "optional: the default of the metrics that read one",
    ("evaluate", "item"): "optional: the default of the metrics that read one",
    ("evaluate", "label"): "any metric's label",
    ("evaluate", "qrels"): "for the ranking metrics",
    ("evaluate", "score"): "any metric's score",
    ("evaluate", "weight"): "for the metrics that accept one",
    ("calibration_curve", "weight"): "quantile edges unweighted",
    ("expected_calibration_error", "weight"): "quantile edges unweighted",
    ("gauc", "group"): "required, no default",
    ("kendall_tau", "group"): "optional: one tau per group",
    ("kendall_tau", "label"): "numeric labels with few levels",
    ("kendall_tau", "score"): "no NULL",
    ("mcc", "label"): "0/1 with score=, classes with prediction=",
    ("multiclass_auc", "label"): "long form or scores=",
    ("multiclass_auc", "score"): "long form",
    ("multilabel_average_precision", "label"): "long form",
    ("multilabel_average_precision", "score"): "long form",
    ("normalized_entropy", "weight"): "the base rate is weighted too",
    ("render", "by"): "renders a statement",
    ("render", "ci"): "the interval written as SQL",
    ("render", "data"): "a table name or path only, with a default",
    ("render_evaluate", "data"): "a table name or path only, with a default",
    ("render_evaluate", "qrels"): "a table name or path only",
    ("render_state", "data"): "a table name or path only, with a default",
    ("spearman", "group"): "optional: one rho per group",
    ("spearman", "label"): "numeric labels",
    ("spearman", "score"): "no NULL",
    ("top_k_accuracy", "k"): "how many classes count, default 2",
    ("top_k_accuracy", "label"): "long form or scores=",
    ("top_k_accuracy", "score"): "long form",
    ("top_k_accuracy", "weight"): "repeated on each line of the long form",
}


def variants(name: str) -> list[Param]:
    """The declarations of the parameter ``name``, the one without ``functions`` last."""
    found = [p for p in PARAMS.values() if p.name == name]
    return sorted(found, key=lambda p: p.functions is None)
