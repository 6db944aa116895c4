"""The one declared registry of metrics, their column roles and their parameters.

Every public metric function is backed by a :class:`MetricSpec` here. The registry feeds the
functions themselves, :func:`render`, the names users write (``_core.names``: ``@k`` forms,
"did you mean" errors), the site's metric table and the completeness tests.
Parameters are declared once in :data:`PARAMS`, so ``threshold`` or ``k`` mean and check the same
thing for every metric that takes them.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParameterError, UnknownMetricError

__all__ = [
    "ALIASES",
    "CI_METHODS",
    "CI_PARAM_NAMES",
    "PAIRED_TESTS",
    "PARAMS",
    "REGISTRY",
    "STATE_KINDS",
    "DataChecks",
    "Flag",
    "Inference",
    "MetricSpec",
    "Number",
    "ParamSpec",
    "Role",
    "default_of",
    "find_spec",
    "get_spec",
]


# --------------------------------------------------------------------------- column roles
@dataclass(frozen=True)
class Role:
    """A column a metric reads, and what its values must satisfy.

    kind: ``binary`` (0/1 or boolean, no NULL), ``score`` (numeric, finite, no NULL),
    ``weight`` (numeric, finite, >= 0, no NULL), ``key`` (any type, no NULL),
    ``relevance`` (numeric, >= 0, no NULL), ``probability`` (numeric, in [0, 1], no NULL).
    """

    name: str
    kind: str
    required: bool = True


# --------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class Number:
    """A numeric option's check declared as data, as scikit-learn's parameter constraints are:
    its kind and range, whether None (or a word) stands for a value, an upper ``limit`` with a
    message of its own, and the text of its one message (``{metric}: {name}= must be {must};
    got {value!r}``). Calling it checks a value; the dbt package's table-driven check
    (``tools.dbt``: :meth:`rule`) and the ranking functions' Raises (:meth:`range_text`) are
    written from the same fields.

    kind: ``"real"`` (a finite number) or ``"int"`` (an integer); ``low``/``high`` with
    ``low_in``/``high_in`` (the bound included); ``out``: the value returned as ``"float"``,
    ``"int"`` or ``"num"`` (an int when integral); ``words``: strings that stand for a value.
    """

    must: str
    kind: str = "real"
    low: float | None = None
    low_in: bool = True
    high: float | None = None
    high_in: bool = True
    none: bool = False
    out: str = "float"
    words: tuple[tuple[str, float], ...] = ()
    limit: int | None = None
    #: the limit message's tails: ``must be <= {limit}{limit_why}; got {value!r}{limit_fix}``
    limit_why: str = ""
    limit_fix: str = ""

    def _inside(self, number: Any) -> bool:
        low, high = self.low, self.high
        return (low is None or (number >= low if self.low_in else number > low)) and (
            high is None or (number <= high if self.high_in else number < high)
        )

    def __call__(self, metric: str, name: str, value: Any) -> Any:
        if value is None and self.none:
            return None
        for word, stands_for in self.words:
            if value == word:
                return stands_for
        kind = numbers.Integral if self.kind == "int" else numbers.Real
        if (
            isinstance(value, bool)
            or not isinstance(value, kind)
            or (not isinstance(value, numbers.Integral) and not math.isfinite(value))
            or not self._inside(value)
        ):
            raise InvalidParameterError(
                f"{metric}: {name}= must be {self.must.format(name=name)}; got {value!r}"
            )
        if self.limit is not None and value > self.limit:
            fix = self.limit_fix.format(name=name)
            raise InvalidParameterError(
                f"{metric}: {name}= must be <= {self.limit}{self.limit_why}; got {value!r}{fix}"
            )
        if self.kind == "int" or (self.out == "num" and float(value).is_integer()):
            return int(value)
        return float(value)

    def range_text(self) -> str:
        """The accepted range in words (``an integer >= 1``, ``a number in (0, 1]``)."""
        what = "an integer" if self.kind == "int" else "a number"
        low, high = (None if b is None else int(b) if float(b).is_integer() else b
                     for b in (self.low, self.high))  # fmt: skip
        if low is not None and high is not None:
            left, right = "[" if self.low_in else "(", "]" if self.high_in else ")"
            return f"{what} in {left}{low}, {high}{right}"
        if low is not None:
            return f"{what} {'>=' if self.low_in else '>'} {low}"
        if high is not None:
            return f"{what} {'<=' if self.high_in else '<'} {high}"
        return what

    def rule(self) -> dict[str, Any]:
        """The rule of dbt's table-driven check (dbt/macros/core/checks.sql)."""
        out: dict[str, Any] = {"none": True} if self.none else {}
        if self.words:
            out["words"] = dict(self.words)
        out["number"] = self.kind
        if self.low is not None or self.high is not None:
            out["range"] = [  # an absent bound is "not included", as the table reads it
                self.low,
                self.low_in and self.low is not None,
                self.high,
                self.high_in and self.high is not None,
            ]
        if self.kind == "real":
            out["out"] = self.out
        if self.limit is not None:
            out["limit"] = self.limit
        return out


@dataclass(frozen=True)
class Flag:
    """A True/False option's check declared as data (None passes where ``none``); its message
    ``{metric}: {name}= must be True or False{why}; got {value!r}``.
    """

    why: str = ""
    none: bool = False

    def __call__(self, metric: str, name: str, value: Any) -> bool | None:
        if isinstance(value, bool) or (value is None and self.none):
            return value
        raise InvalidParameterError(
            f"{metric}: {name}= must be True or False{self.why}; got {value!r}"
        )

    def rule(self) -> dict[str, Any]:
        """The rule of dbt's table-driven check."""
        return {"none": True, "bool": True} if self.none else {"bool": True}


def _real(metric: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InvalidParameterError(f"{metric}: {name}= must be a finite number; got {value!r}")
    return float(value)


def check_real(metric: str, name: str, value: Any) -> float:
    return _real(metric, name, value)


def check_beta(metric: str, name: str, value: Any) -> float:
    beta = _real(metric, name, value)
    if beta < 0:
        raise InvalidParameterError(
            f"{metric}: {name}= must be a finite number >= 0 (recall weighs beta times "
            f"precision; 0 gives precision, as scikit-learn's fbeta_score); got {value!r}"
        )
    if beta != 0 and not 0 < beta * beta < math.inf:
        raise InvalidParameterError(
            f"{metric}: {name}={value!r} is out of range: {name}**2 must be a finite double > 0,"
            f" so {name} must lie in [1.5e-154, 1.3e+154]"
        )
    return beta


def check_choice(*allowed: str) -> Callable[[str, str, Any], str]:
    def check(metric: str, name: str, value: Any) -> str:
        if value not in allowed:
            hint = difflib.get_close_matches(str(value), allowed, n=1)
            near = f"; did you mean {hint[0]!r}?" if hint else ""
            raise InvalidParameterError(
                f"{metric}: {name}= must be one of {', '.join(map(repr, allowed))}; "
                f"got {value!r}{near}"
            )
        return str(value)

    check.allowed = allowed  # type: ignore[attr-defined]
    return check


def check_zero_division(metric: str, name: str, value: Any) -> float | str:
    if value == "warn":
        return "warn"
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and (math.isnan(value) or value in (0, 1))
    ):
        # a float subclass (conventions.SklearnWarn: 0.0 with a warning) is kept as it is
        return value if isinstance(value, float) else float(value)
    raise InvalidParameterError(
        f"{metric}: {name}= must be 'warn' (NaN with a warning), 0.0, 1.0 or "
        f"float('nan'); got {value!r}"
    )


K_MAX = 2**31 - 1  # a rank is a 32-bit integer in SQL; no list is longer


check_k = Number(
    "an integer >= 1, or None for the whole list",
    kind="int",
    low=1,
    none=True,
    limit=K_MAX,
    limit_fix="; pass None for the whole list",
)


@dataclass(frozen=True)
class ParamSpec:
    """An option a metric accepts: its default, its check and one line of documentation."""

    name: str
    default: Any
    check: Callable[[str, str, Any], Any]
    doc: str

    def validate(self, metric: str, value: Any) -> Any:
        """Check ``value`` for ``metric``; return it normalised, or raise a clear error."""
        return self.check(metric, self.name, value)


PARAMS: dict[str, ParamSpec] = {}


def declare_param(spec: ParamSpec) -> ParamSpec:
    PARAMS[spec.name] = spec
    return spec


declare_param(ParamSpec("threshold", 0.5, check_real, "predicted 1 when score >= threshold"))
declare_param(
    ParamSpec("beta", 1.0, check_beta, "weight of recall against precision (>= 0; 0: precision)")
)
declare_param(
    ParamSpec(
        "weighting",
        "samples",
        check_choice("samples", "positives", "uniform"),
        "group weight in the mean: samples (rows) | positives | uniform",
    )
)
declare_param(
    ParamSpec(
        "zero_division",
        "warn",
        check_zero_division,
        "value for 0/0: 'warn' (NaN + UndefinedMetricWarning) | 0.0 | 1.0 | nan",
    )
)
declare_param(ParamSpec("k", None, check_k, "cut-off rank (integer >= 1), None = whole list"))


def check_pos_label(metric: str, name: str, value: Any) -> str | float | bool | None:
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):  # exactly: float() rounds above 2**53
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(value):
        number = float(value)
        return int(number) if number.is_integer() else number
    raise InvalidParameterError(
        f"{metric}: {name}= must be a string, a finite number or a boolean (the label value "
        f"of the positive class), or None for 0/1 or boolean labels; got {value!r}"
    )


declare_param(
    ParamSpec(
        "pos_label",
        None,
        check_pos_label,
        "label value of the positive class (e.g. 'spam'); None: labels are 0/1 or booleans",
    )
)


# --------------------------------------------------------------------------- intervals
#: the interval options every scalar metric function takes (sqlmetrics/_inference/intervals.py)
CI_PARAM_NAMES = ("ci", "ci_method", "n_boot", "seed")
#: the interval methods of ``ci_method=``
CI_METHODS = ("bootstrap", "delong", "t", "wilson")


#: ``ci=``: None, or a level strictly between 0 and 1
check_level = Number(
    "a confidence level strictly between 0 and 1 (e.g. 0.95), or None for no interval",
    low=0,
    low_in=False,
    high=1,
    high_in=False,
    none=True,
)


def check_ci_method(metric: str, name: str, value: Any) -> str | None:
    """``ci_method=``: None (the metric's default) or one of :data:`CI_METHODS`."""
    if value is None or value in CI_METHODS:
        return value  # type: ignore[no-any-return]
    hint = difflib.get_close_matches(str(value), CI_METHODS, n=1)
    near = f"; did you mean {hint[0]!r}?" if hint else ""
    raise InvalidParameterError(
        f"{metric}: {name}= must be one of {', '.join(map(repr, CI_METHODS))} or None (the "
        f"metric's default); got {value!r}{near}"
    )


#: the most bootstrap replicates (and randomization-test permutations) accepted: the Monte
#: Carlo error of a 2.5 % percentile end is sqrt(.025 * .975 / B) in probability, 0.05
#: percentile points at B = 100,000, far below any interval's own width; each replicate is
#: a pass over the rows, and 10**9 overflowed DuckDB's 32-bit replicate arithmetic
N_BOOT_MAX = 100_000


#: ``n_boot=``: an integer from 10 to :data:`N_BOOT_MAX`
check_n_boot = Number(
    "an integer >= 10 (bootstrap replicates; 200 is the default, 1000 or more for a 99% interval)",
    kind="int",
    low=10,
    limit=N_BOOT_MAX,
    limit_why=" (each replicate is a pass over the data)",
    limit_fix="; pass a smaller number, e.g. {name}=2000",
)

#: ``seed=``: an integer in [0, 2^31)
check_seed = Number(
    "an integer in [0, 2^31) (the bootstrap's hash seed)",
    kind="int",
    low=0,
    high=2**31,
    high_in=False,
)

declare_param(
    ParamSpec(
        "ci", None, check_level, "confidence level in (0, 1): return an Interval; None: a float"
    )
)
declare_param(
    ParamSpec(
        "ci_method",
        None,
        check_ci_method,
        "interval method: wilson | delong | t | bootstrap; None: the metric's default",
    )
)
declare_param(ParamSpec("n_boot", 200, check_n_boot, "bootstrap replicates (integer >= 10)"))
declare_param(ParamSpec("seed", 0, check_seed, "seed of the bootstrap's hashed weights, [0, 2^31)"))


#: compare's paired tests (sqlmetrics/_inference/compare.py)
PAIRED_TESTS = ("t", "randomization", "wilcoxon", "delong", "mcnemar", "bootstrap")
#: the paired tests over per-group values, the default first
GROUP_TESTS = ("t", "randomization", "wilcoxon")
#: the statements compare runs, one per kind of metric (``sql/_macros/inference/compare.sql``)
PAIRED_KINDS = ("groups", "delong", "confusion", "losses")


# --------------------------------------------------------------------------- inference facts
@dataclass(frozen=True)
class Inference:
    """How intervals (``ci=``) and paired comparisons (``compare``) treat a metric: declared
    once per metric (usually once per family) on its :class:`MetricSpec`, and read by
    ``_inference/intervals.py`` and ``_inference/compare.py``, which know no metric by name.

    ci_methods: the interval methods (:data:`CI_METHODS`) that apply, the default first.
    ``"delong"`` applies without ``weight=`` only, and ``"t"`` (and ``"wilson"`` over groups)
    only to a mean over groups, so with a ``group`` column when the group role is optional
    (spearman, kendall_tau), or to a mean over rows (``row_mean``: t over the per-row
    losses); ``"bootstrap"`` applies to every scalar metric.
    group_mean: ``"mean"`` or ``"geometric"`` (gm_map) when the metric is a mean of per-group
    values (the cluster bootstrap and the t interval resample groups), else None.
    group_weights: how the groups weigh in that mean, when not equally: ``"weighting"`` (by
    the ``weighting=`` option: GAUC) or ``"relevant"`` (by the group's relevant items:
    hit_ratio); compare weighs by ``"weighting"`` only.
    proportion: a proportion of confusion counts, ``(successes, trials)``, for Wilson's
    interval (e.g. recall: ``(("tp",), ("tp", "fn"))``).
    bucket_bootstrap: its unweighted bootstrap draws per-score-bucket counts from one sort
    (``ci_auc_bootstrap``) instead of per-row weights.
    counts_macro: the macro turning binary confusion counts into the metric in each bootstrap
    replicate, when its function computes it from the counts of a table metric
    (binary mcc from confusion_matrix's counts: ``ci_binary_mcc``).
    intervals: False when its function returns more than one number (auc_bounds), so that
    ``ci=`` is refused there.
    paired: compare's statement for it (:data:`PAIRED_KINDS`), None when compare has no
    paired test for it. tests: the paired tests (:data:`PAIRED_TESTS`) that apply, the
    default first. loss: the per-row loss of a mean loss (``compare_losses``: ``"ll"`` log
    loss, ``"sq"`` squared error); loss_scale: ``"entropy"`` when the mean loss is divided by
    the entropy of the base rate (normalized_entropy).
    item_weights: ``"list"`` when ``weight=`` (per item) gives each group TF-Ranking's per-list
    weight and leaves the per-group values unweighted (the ranking means of ``LIST_WEIGHTED``):
    intervals and compare's group tests then weigh the groups by it; None otherwise.
    row_mean: the per-row term when the metric is a (weighted) mean over rows of a per-row
    loss, for the t interval over rows and the one-pass row bootstrap
    (``ci_row_mean_query``): ``"ll"`` log loss, ``"sq"`` squared error, ``"miss"`` the 0/1
    miss of a prediction (hamming_loss); None otherwise (normalized_entropy divides its mean
    by the base rate's entropy: not a mean of per-row terms).
    """

    ci_methods: tuple[str, ...] = ("bootstrap",)
    group_mean: str | None = None
    group_weights: str | None = None
    proportion: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    bucket_bootstrap: bool = False
    counts_macro: str | None = None
    intervals: bool = True
    paired: str | None = None
    tests: tuple[str, ...] = ()
    loss: str | None = None
    loss_scale: str | None = None
    row_mean: str | None = None
    item_weights: str | None = None

    def __post_init__(self) -> None:
        """Refuse facts that intervals.py or compare.py could not act on."""
        bad = [m for m in self.ci_methods if m not in CI_METHODS]
        if bad or not self.ci_methods:
            raise RuntimeError(f"ci_methods={self.ci_methods!r}: each one of {CI_METHODS}")
        if self.group_mean not in (None, "mean", "geometric"):
            raise RuntimeError(f"group_mean={self.group_mean!r}: None, 'mean' or 'geometric'")
        if self.group_weights not in (None, "weighting", "relevant"):
            raise RuntimeError(f"group_weights={self.group_weights!r}")
        if self.paired not in (None, *PAIRED_KINDS):
            raise RuntimeError(f"paired={self.paired!r}: None or one of {PAIRED_KINDS}")
        if bool(self.paired) != bool(self.tests) or not set(self.tests) <= set(PAIRED_TESTS):
            raise RuntimeError(f"paired={self.paired!r} with tests={self.tests!r}")
        if self.item_weights not in (None, "list"):
            raise RuntimeError(f"item_weights={self.item_weights!r}: None or 'list'")
        if self.row_mean not in (None, "ll", "sq", "miss"):
            raise RuntimeError(f"row_mean={self.row_mean!r}: None, 'll', 'sq' or 'miss'")
        if self.paired == "losses" and self.loss_scale is None and self.row_mean != self.loss:
            raise RuntimeError(f"loss={self.loss!r} with row_mean={self.row_mean!r}")
        if (self.paired == "losses") != (self.loss is not None):
            raise RuntimeError(f"paired={self.paired!r} with loss={self.loss!r}")


@dataclass(frozen=True)
class DataChecks:
    """A family's checks of the data around one statement of several metrics (``evaluate``),
    declared by the family's module on its specs, so that the generic layers call them
    without importing the family (ranking: the gain overflow, ranx's tie order, the empty and
    missing groups).

    inputs: the family's extra inputs, keyword -> their column roles (ranking: ``qrels``).
    before: ``before(caller, backend, run_sql, judged_sql, columns, options, requests,
    warn_ties)``, run before the statement: ``run_sql`` the checked data's relation,
    ``judged_sql`` the judgments' (or None), ``columns`` role -> user column, ``options``
    the call's checked options, ``requests`` every requested metric of the call
    (``names.Request``), ``warn_ties`` the call's convention (``"ranx"`` and
    ``"ir_measures"`` reproduce ranx's order of ties for some values) or None.
    after: ``after(caller, frame, options, judged, requests, warn_skips)``, run on the
    statement's frame (generated column names): ``judged`` whether judgments were given,
    ``warn_skips`` whether the default ``empty="skip"`` warns.
    bounds: ``bounds(caller, options, requests)``, the ceilings on the values
    (``_engine.validate.Bound``) counted with the values' checks, in no statement of their
    own (ranking: the gain overflow, ERR's ``max_grade``).
    """

    inputs: Mapping[str, tuple[Role, ...]]
    before: Callable[..., None]
    after: Callable[..., None]
    bounds: Callable[..., Sequence[Any]]


#: the kinds of mergeable state (``MetricSpec.state``): ``"rows"``, the distinct rows of the
#: metric's columns and slices with their counts (sql/_macros/shared/state.sql); ``"confusion"``,
#: those rows with the score kept only as ``score >= threshold``
STATE_KINDS = ("rows", "confusion")


#: the facts of a metric without other declarations: the row bootstrap, no paired test
ROW_BOOTSTRAP = Inference()


# --------------------------------------------------------------------------- metrics
@dataclass(frozen=True)
class MetricSpec:
    """What the registry knows about one metric.

    name: public name (also the output column of its template). template: path under
    ``sql/``. roles: the columns it reads. params: the options it accepts (keys of
    :data:`PARAMS`). summary: one-line definition. undefined: when it is undefined (returns
    NaN with :class:`UndefinedMetricWarning`). output: "scalar" (one value per slice, usable
    in ``evaluate``) or "table" (a curve).
    function: the public function computing it, exported from ``sqlmetrics`` (default: the
    name; e.g. ``mean_average_precision`` for ``map``). average: for a multiclass entry such
    as ``precision_macro``, the ``average=`` that ``function`` takes for it.
    defaults: the metric's own defaults where they differ from :data:`PARAMS` (e.g. a curve's
    ``drop_intermediate``); read them with :func:`default_of`. check_params: a check across
    several options, ``check_params(metric, checked_params)``, run after each option's own
    check (e.g. a combination without a closed form).
    kernel: the family's kernel macro (``sql/_macros/``) that computes it, with every other
    requested metric of that kernel, in one statement (decision 0007). needs: what the metric
    reads from the kernel's shared work beyond the basics (ranking: ``"cum"`` cumulative hits
    and the first relevant position, ``"n_rel"`` relevant items per group, ``"gain_exp"`` the
    group's gain exponent, ``"ideal"`` the ideal ordering), passed to the kernel in its entry.
    rank_based: its value depends on the scores only through their order (ties included), so
    any strictly increasing transform of the scores leaves it unchanged (AUC, NDCG, Spearman;
    not a threshold metric, a probability's loss, equal-width score buckets, nor a table that
    reports score thresholds); tests/test_invariance.py checks it.
    inference: what intervals and compare need to know (:class:`Inference`).
    better: which way is better: ``"higher"``, ``"lower"`` (a loss, an error rate) or
    ``"neither"`` (calibration_ratio, best at 1; idcg, a property of the judgments).
    wide: the wide class-score forms ``evaluate(..., scores=)`` feeds it from:
    ``"multiclass"`` (a score column per class, the true class in ``label=``) and
    ``"multilabel"`` (a 0/1 column per class in ``indicators=``).
    data_checks: its family's checks around ``evaluate``'s statement (:class:`DataChecks`),
    None when it needs none.
    state: how :func:`sqlmetrics.state` keeps it for :func:`sqlmetrics.merge`
    (:data:`STATE_KINDS`): ``"rows"``, its value is a function of the multiset of the rows
    of its columns (and its slices), which evaluate computes in the same bits in any row
    order (exact sums, decision 0006), so the distinct rows with their counts merge
    exactly; ``"confusion"``, the same, and it reads the score only as ``score >=
    threshold`` (the threshold metrics), so when every metric of a state that reads the
    score is one, the state keeps the score as one of two values on either side of the
    threshold (its confusion counts); None: it has no mergeable state (merge refuses it).
    ir_measures, trec_eval: the base names of the same measure in ir_measures (``nDCG``,
    written ``nDCG@10``) and trec_eval (``ndcg_cut``, printed ``ndcg_cut_10``), read by
    ``_core.ir_names`` (the names users write, ``sqlmetrics list``, ``--format trec``).
    """

    name: str
    template: str
    family: str
    summary: str
    roles: tuple[Role, ...]
    params: tuple[str, ...] = ()
    undefined: str = "never"
    takes_k: bool = False
    aliases: tuple[str, ...] = ()
    output: str = "scalar"  # "scalar": one value per slice; "table": e.g. a curve
    function: str = ""  # "" = name
    average: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    check_params: Callable[[str, dict[str, Any]], None] | None = None
    kernel: str | None = None
    needs: tuple[str, ...] = ()
    rank_based: bool = False
    inference: Inference = ROW_BOOTSTRAP
    data_checks: DataChecks | None = None
    wide: tuple[str, ...] = ()
    better: str = "higher"
    state: str | None = "rows"
    #: ir_measures' base measure name (``"nDCG"``, ``"P"``), None when it has none
    ir_measures: str | None = None
    #: trec_eval's base measure name (``"ndcg_cut"``, ``"P"``), None when it has none
    trec_eval: str | None = None

    def __post_init__(self) -> None:
        """Default ``function`` to the metric's name."""
        if not self.function:
            object.__setattr__(self, "function", self.name)

    @property
    def role_names(self) -> tuple[str, ...]:
        """The names of the column roles the metric reads, in order."""
        return tuple(r.name for r in self.roles)


REGISTRY: dict[str, MetricSpec] = {}
#: alias -> registry name (``roc_auc`` -> ``auc``)
ALIASES: dict[str, str] = {}


def register(spec: MetricSpec) -> MetricSpec:
    """Add ``spec`` to the registry (each name and alias once)."""
    for name in (spec.name, *spec.aliases):
        if name in REGISTRY or name in ALIASES:
            raise RuntimeError(f"metric {name!r} registered twice")
    for p in spec.params:
        if p not in PARAMS:
            raise RuntimeError(f"metric {spec.name!r} declares unknown parameter {p!r}")
    if spec.better not in ("higher", "lower", "neither"):
        raise RuntimeError(
            f"metric {spec.name!r}: better={spec.better!r}, not higher|lower|neither"
        )
    if spec.state is not None and spec.state not in STATE_KINDS:
        raise RuntimeError(f"metric {spec.name!r}: state={spec.state!r}, not one of {STATE_KINDS}")
    for p in spec.defaults:
        if p not in spec.params:
            raise RuntimeError(f"metric {spec.name!r} has a default for {p!r}, not its option")
    REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        ALIASES[alias] = spec.name
    return spec


def default_of(spec: MetricSpec, param: str) -> Any:
    """The default of option ``param`` for metric ``spec``: the metric's own (declared in
    ``spec.defaults``, e.g. a curve's ``drop_intermediate``) or the shared one.
    """
    return spec.defaults.get(param, PARAMS[param].default)


def find_spec(name: str) -> MetricSpec | None:
    """The spec of ``name`` or of an alias, or None if neither is registered."""
    return REGISTRY.get(ALIASES.get(name, name))


def get_spec(name: str) -> MetricSpec:
    """Return the spec of ``name`` (or an alias), or raise :class:`UnknownMetricError`."""
    key = ALIASES.get(name, name)
    if key in REGISTRY:
        return REGISTRY[key]
    known = sorted([*REGISTRY, *ALIASES])
    hint = difflib.get_close_matches(name, known, n=1)
    near = f"did you mean {hint[0]!r}? " if hint else ""
    names = sorted(metric_form(spec) for spec in REGISTRY.values())
    raise UnknownMetricError(f"unknown metric {name!r}; {near}known metrics: {', '.join(names)}")


def metric_form(spec: MetricSpec) -> str:
    """The name users write for ``spec``: ``"ndcg@k"``, ``"precision@k"``, ``"auc"``."""
    return f"{spec.name.removesuffix('_at_k')}@k" if spec.takes_k else spec.name
