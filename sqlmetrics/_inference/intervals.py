"""Confidence intervals on every scalar metric (``ci=``): the one path from a call to
``(value, lo, hi)``.

Every scalar metric function declares ``ci``, ``ci_method``, ``n_boot`` and ``seed`` in its own
signature (typed, with overloads: ``ci=None`` gives the float, a level an :class:`Interval`;
the options are declared in :data:`sqlmetrics._core.registry.PARAMS`). It checks them with
:func:`ci_request` and passes the :class:`CiRequest` explicitly to its call of
:func:`sqlmetrics._engine.run.compute`, which serves the request (:func:`serve`) on the same
connection, over the same checked data, with the metric's own kernel: the SQL is in
``sql/_macros/inference/intervals.sql``; Python only turns per-slice sums into an interval (a
normal or t quantile from :mod:`~sqlmetrics._inference.stats`, Wilson's formula). With ``ci=None``
nothing changes. ``evaluate(ci=)`` serves every slice's interval from its own plan, on the one
source it opened and checked (:func:`serve_slices`: no second opening, no public function
called again), through the same statements (:func:`_bounds`), one per kernel for the means
over groups.
Any level in (0, 1) works, up to the largest double below 1 (``1 - 2**-53``): the quantiles of
a two-sided interval come from its lower tail ``(1 - level) / 2``, which is exact there
(:func:`sqlmetrics._inference.stats.two_sided_normal`), while ``(1 + level) / 2`` rounds to 1.

Methods (``ci_method=``; None = the metric's default, :func:`default_method`):

``"wilson"``
    Wilson's score interval of a proportion: accuracy, precision, recall, specificity, fpr (at a
    threshold or from a prediction column) and hit_rate (the share of groups with a hit). With
    ``weight=`` the proportion is the weighted one and n is Kish's effective sample size
    ``(sum w)^2 / sum w^2`` of the rows in its denominator, both ratios of sums of the weights
    divided by 2^ceil(log2 max w) (``ci_wilson_weights``): the interval does not depend on the
    weights' scale (a power-of-two factor gives the same bits, any other within an ulp), and
    weights of 1e300 do not overflow their squares. The bounds hold the estimate exactly:
    ``lo <= value <= hi`` (clamped; rounding could leave it outside by an ulp).
``"delong"``
    AUC only, unweighted: DeLong et al. (1988)'s variance from placement values, read from the
    same single sort of the distinct scores that gives the AUC (Sun & Xu 2014); a normal
    interval clipped to [0, 1].
``"t"``
    Metrics that are (weighted) means over groups (ranking and retrieval metrics, gauc,
    spearman / kendall_tau with ``group=``): mean +- t_{n-1} * SE over the per-group values,
    SE^2 = n / (n - 1) * sum_g v_g^2 (x_g - mean)^2 / (sum_g v_g)^2 (the plain s / sqrt(n) when
    every v_g = 1).
    Means over rows of a per-row loss (log_loss, brier_score, hamming_loss; their default):
    the same over the rows, x_i the row's loss, v_i its weight (1 without ``weight=``), n the
    rows of nonzero weight, mean the metric's value bit for bit; undefined (NaN) for n < 2
    (``ci_row_mean_query`` in ``sql/_macros/inference/intervals.sql`` states the sums).
``"bootstrap"``
    Every scalar metric. A Poisson(1) bootstrap with ``n_boot`` replicates, percentile interval.
    Group means resample groups (cluster bootstrap: per-group values computed once, re-averaged
    per replicate); everything else resamples rows (a row's key: its position within its slice
    in the order of the columns the metric reads; a sample id for the multiclass score tables).
    The means of per-row losses draw the same rows in one pass over rows x replicates (the
    loss computed once per row, one grouped sum per slice and replicate: no per-replicate run
    of the kernel).
    AUC without weights draws no per-row weights: one sort of the distinct scores gives score
    buckets, and each bucket's replicate count of positives (negatives), a sum of Poisson(1)
    row weights, is drawn at once as one Poisson(n) count (exact in law when every bucket
    holds one distinct score, i.e. up to 4096 distinct scores per slice; see
    ``ci_auc_bootstrap`` in ``sql/_macros/inference/intervals.sql`` for the approximation beyond).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from .._core.registry import CI_METHODS as METHODS
from .._core.registry import CI_PARAM_NAMES as CI_PARAMS
from .._core.registry import PARAMS, REGISTRY, MetricSpec
from .._engine.run import Call, entry, kernel_sql
from ..errors import InvalidParameterError, UndefinedMetricWarning
from ..errors import warn as warn_user
from .stats import (
    T_TABLE_DF,
    t_expansion_terms,
    two_sided_normal,
    two_sided_t,
    two_sided_t_interval,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CI_PARAMS", "METHODS", "CiMethod", "Interval", "default_method", "methods_for"]

#: the values of ``ci_method=`` (besides None), for the metric functions' signatures: the
#: registry's CI_METHODS (tests/test_intervals.py checks that they agree)
CiMethod = Literal["wilson", "delong", "t", "bootstrap"]

T = TypeVar("T")

#: score buckets of AUC's bucket bootstrap (exact in law up to this many distinct scores)
AUC_BOOT_BUCKETS = 4096


class Interval(NamedTuple):
    """A metric's value with a two-sided confidence interval (``ci=`` of any scalar metric).

    Attributes
    ----------
    value : float
        The metric, exactly as without ``ci=``.
    lo, hi : float
        The interval's bounds (NaN when undefined, with :class:`UndefinedMetricWarning`).
    level : float
        The confidence level, ``ci``.
    method : str
        ``"wilson"``, ``"delong"``, ``"t"`` or ``"bootstrap"``.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> iv = sqlmetrics.accuracy(df, ci=0.95)
    >>> iv.method, round(iv.value, 4), round(iv.lo, 4), round(iv.hi, 4)
    ('wilson', 0.6667, 0.3, 0.9032)
    """

    value: float
    lo: float
    hi: float
    level: float
    method: str


# --------------------------------------------------------------------------- which methods
#: the methods that read per-group values (a mean over groups only)
GROUP_METHODS = ("t",)
#: the methods without weights (DeLong's variance is unweighted)
UNWEIGHTED_METHODS = ("delong",)


def row_mean(spec: MetricSpec) -> str | None:
    """The per-row term of ``spec`` when it is a mean of per-row losses (its declared
    ``inference.row_mean``: ``"ll"``, ``"sq"``, ``"miss"``), else None.
    """
    return spec.inference.row_mean


def group_mean(spec: MetricSpec, columns: Mapping[str, str | None] | None = None) -> str | None:
    """How ``spec`` aggregates per-group values (its declared ``inference.group_mean``), or
    None when it is not a mean over groups: ``"mean"`` or ``"geometric"`` (gm_map). A metric
    whose group column is optional (spearman, kendall_tau) is a group mean only with a
    ``group`` column (``columns``; None: assume one).
    """
    how = spec.inference.group_mean
    optional = any(r.name == "group" and not r.required for r in spec.roles)
    if how is not None and optional and columns is not None and not columns.get("group"):
        return None
    return how


def _applies(spec: MetricSpec, method: str, columns: Mapping[str, str | None] | None) -> bool:
    """Whether declared ``method`` applies to ``spec`` with these ``columns``."""
    if method in UNWEIGHTED_METHODS and columns and columns.get("weight"):
        return False
    if method in GROUP_METHODS and row_mean(spec) is not None:
        return True
    return not (method in GROUP_METHODS and group_mean(spec, columns) is None)


def methods_for(
    spec: MetricSpec, columns: Mapping[str, str | None] | None = None
) -> tuple[str, ...]:
    """The interval methods that apply to ``spec`` (given its ``columns``, if known), default
    first.

    >>> from sqlmetrics._core.registry import get_spec
    >>> methods_for(get_spec("auc")), methods_for(get_spec("ndcg"))
    (('delong', 'bootstrap'), ('t', 'bootstrap'))
    >>> methods_for(get_spec("log_loss"))
    ('t', 'bootstrap')
    """
    return tuple(m for m in spec.inference.ci_methods if _applies(spec, m, columns))


def default_method(spec: MetricSpec, columns: Mapping[str, str | None] | None = None) -> str:
    """The method ``ci_method=None`` uses for ``spec``: delong for auc (bootstrap with
    ``weight=``), wilson for the proportions, t for means over groups and for means of per-row
    losses (log_loss, brier_score, hamming_loss), bootstrap otherwise.

    >>> from sqlmetrics._core.registry import get_spec
    >>> default_method(get_spec("recall")), default_method(get_spec("log_loss"))
    ('wilson', 't')
    >>> default_method(get_spec("normalized_entropy"))
    'bootstrap'
    """
    return methods_for(spec, columns)[0]


# --------------------------------------------------------------------------- the request
@dataclass
class CiRequest:
    """What a ``ci=`` call asks of :func:`serve`, and where the answer goes.

    ``result``: filled by :func:`serve`: ``lo``, ``hi``, one row. ``used``: the method used.
    ``evaluate(ci=)`` serves its slices' intervals from its own plan instead
    (:func:`serve_slices`).
    """

    metric: str
    level: float
    method: str | None
    n_boot: int
    seed: int
    result: pd.DataFrame | None = None
    used: str = ""
    served: list[str] = field(default_factory=list)

    def serve(self, call: Call, metric_sql: str) -> pd.DataFrame:
        """:func:`serve` this request for ``call``, the checked call ``compute`` hands over
        (the engine knows the request by this method only, :class:`IntervalRequest`).
        """
        return serve(self, call, metric_sql)


def check_ci(metric: str, ci: Any, ci_method: Any, n_boot: Any, seed: Any) -> CiRequest:
    """Check the four interval options (their ParamSpecs) and ``ci_method`` against the
    methods that apply to ``metric``; return the request.
    """
    level = PARAMS["ci"].validate(metric, ci)
    method = PARAMS["ci_method"].validate(metric, ci_method)
    boots = PARAMS["n_boot"].validate(metric, n_boot)
    seed_value = PARAMS["seed"].validate(metric, seed)
    spec = REGISTRY.get(metric)
    if spec is not None and method is not None:
        check_method(spec, method)
    return CiRequest(metric, level, method, boots, seed_value)


def check_method(
    spec: MetricSpec, method: str, columns: Mapping[str, str | None] | None = None
) -> None:
    """Raise when ``method`` does not apply to ``spec`` (with these ``columns``), naming those
    that do.
    """
    allowed = methods_for(spec, columns)
    if method in allowed:
        return
    why = ""
    if method in spec.inference.ci_methods and method in UNWEIGHTED_METHODS:
        why = " (DeLong's variance here is unweighted; with weight= use the bootstrap)"
    elif method in spec.inference.ci_methods and method in GROUP_METHODS:
        why = " (t needs per-group values: pass group=)"
    raise InvalidParameterError(
        f"{spec.name}: ci_method={method!r} does not apply to {spec.name}{why}; methods that "
        f"do: {', '.join(map(repr, allowed))} (None = {allowed[0]!r})"
    )


# --------------------------------------------------------------------------- the call
def ci_request(
    metric: str, ci: float | None, ci_method: str | None, n_boot: int, seed: int
) -> CiRequest | None:
    """The interval request of a metric function's call (its own ``ci=``, ``ci_method=``,
    ``n_boot=`` and ``seed=``), checked; None without ``ci=``. The function passes it on to
    :func:`sqlmetrics._engine.run.compute` (``ci=``), which serves it, and ends with
    :func:`ci_result`.
    """
    if ci is None:
        check_unused_ci(metric, ci_method, n_boot, seed)
        return None
    return check_ci(metric, ci, ci_method, n_boot, seed)


def check_unused_ci(metric: str, ci_method: Any, n_boot: Any, seed: Any) -> None:
    """Without ``ci=``: ``ci_method=`` is refused (it needs a level), and ``n_boot=`` and
    ``seed=`` are still checked, so that a bad value is not silently kept until the day a
    level is passed.
    """
    if ci_method is not None:
        raise InvalidParameterError(
            f"{metric}: ci_method={ci_method!r} needs ci= (a level, e.g. ci=0.95)"
        )
    PARAMS["n_boot"].validate(metric, n_boot)
    PARAMS["seed"].validate(metric, seed)


def ci_result(metric: str, value: T, request: CiRequest | None) -> T | Interval:
    """What a metric function returns: ``value`` without ``ci=``, else its :class:`Interval`."""
    if request is None:
        return value
    return to_interval(metric, value, request)


def to_interval(metric: str, value: Any, request: CiRequest) -> Interval:
    """The :class:`Interval` of a finished ``ci=`` call (its value and the served request)."""
    if not isinstance(value, float):
        raise InvalidParameterError(
            f"{metric}: ci= applies to a single value; this call returns "
            f"{type(value).__name__}, not one number (e.g. average=None gives one value per "
            f"class, auc_bounds two bounds): pass an average that gives one number, or drop ci="
        )
    frame = request.result
    if frame is None or len(frame) != 1:
        raise InvalidParameterError(
            f"{metric}: ci= is not available for this call: no interval was computed for it; "
            f"drop ci="
        )
    # an undefined bound is NULL: NaN from DuckDB, None from a SQLAlchemy or Spark result
    lo, hi = (_bound(frame[column].iloc[0]) for column in ("lo", "hi"))
    if math.isnan(value):
        lo = hi = math.nan
    elif request.used == "wilson":
        lo, hi = contain(lo, hi, value)
    return Interval(value, lo, hi, request.level, request.used)


# --------------------------------------------------------------------------- serving
def wilson(
    successes: float, n: float, level: float, n_eff: float | None = None
) -> tuple[float, float]:
    """Wilson's score interval of the proportion ``p = successes / n`` with sample size
    ``n_eff`` (None: ``n``; with weights, Kish's effective size).

    The bounds are clamped to ``[0, p]`` and ``[p, 1]``: ``lo <= p <= hi`` holds exactly (the
    formula's rounding can otherwise leave ``p`` outside by an ulp, e.g. at ``p = 0``).

    >>> [round(x, 4) for x in wilson(4, 6, 0.95)]
    [0.3, 0.9032]
    >>> wilson(0, 7, 0.95)[0], wilson(7, 7, 0.95)[1]
    (0.0, 1.0)
    """
    size = n if n_eff is None else n_eff
    if not (n > 0 and size > 0):
        return math.nan, math.nan
    z = two_sided_normal(level)
    p = min(max(successes / n, 0.0), 1.0)
    denom = 1.0 + z * z / size
    center = (p + z * z / (2.0 * size)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / size + z * z / (4.0 * size * size))
    return min(max(center - half, 0.0), p), max(min(center + half, 1.0), p)


def contain(lo: float, hi: float, value: float) -> tuple[float, float]:
    """``(lo, hi)`` widened to hold ``value`` (the metric as its query computed it), when
    both are defined: a Wilson interval is built around the same proportion, computed once
    in SQL and once here, so this moves a bound by an ulp at most.
    """
    if math.isnan(value) or math.isnan(lo) or math.isnan(hi):
        return lo, hi
    return min(lo, value), max(hi, value)


def t_interval(row: Mapping[str, Any], level: float) -> tuple[float, float]:
    """The t interval of a weighted mean over groups from the sums of ``ci_group_query``."""
    n = float(row["n"])
    if not n >= 2:
        return math.nan, math.nan
    sv, svx = float(row["sv"]), float(row["svx"])
    mean = svx / sv
    ss = float(row["sv2x2"]) - 2.0 * mean * float(row["sv2x"]) + mean * mean * float(row["sv2"])
    se = math.sqrt(max(ss, 0.0) * n / (n - 1.0)) / sv
    half = two_sided_t_interval(level, n - 1.0) * se
    return mean - half, mean + half


def t_row_interval(row: Mapping[str, Any], level: float) -> tuple[float, float]:
    """The t interval of a mean of per-row losses from the sums of ``ci_row_mean_query``
    (n, sv, svx, su, ss): mean = svx / sv (the metric's value), SE = sqrt(ss n / (n - 1)) /
    su, bounds mean -+ t_{n-1} SE; NaN for n < 2 or no weight. ``ci_t_bounds(centred=true)``
    does the same operations in SQL.
    """
    n, sv, su = float(row["n"]), float(row["sv"]), float(row["su"])
    if not (n >= 2 and sv != 0 and su > 0):
        return math.nan, math.nan
    mean = float(row["svx"]) / sv
    se = math.sqrt(max(float(row["ss"]), 0.0) * n / (n - 1.0)) / su
    half = two_sided_t_interval(level, n - 1.0) * se
    return mean - half, mean + half


def serve(request: CiRequest, call: Call, metric_sql: str) -> pd.DataFrame:
    """Compute the interval ``request`` asks for ``call`` (stored in ``request.result``) and
    return the metric's own frame (its query ``metric_sql`` run, or the DeLong query's value).
    """
    import pandas as pd

    spec = call.spec
    # a metric computed from a table metric's counts (binary mcc from confusion_matrix's)
    asked = REGISTRY.get(request.metric, spec)
    counts_macro = asked.inference.counts_macro if spec.output == "table" else None
    checked = asked if counts_macro else spec
    method = request.method or default_method(checked, call.columns)
    check_method(checked, method, call.columns)
    request.used = method
    request.served.append(spec.name)
    result, frame = _bounds(call, list(call.by), request, method, counts_macro)
    request.result = result
    if frame is None:
        frame = call.backend.query(metric_sql)
    values = pd.to_numeric(frame[spec.name], errors="coerce") if spec.name in frame else None
    if values is None or values.notna().all():
        warn_undefined(spec.name, method, result)
    return frame


def warn_undefined(metric: str, method: str, result: pd.DataFrame) -> None:
    """Warn :class:`UndefinedMetricWarning` when the bounds ``result`` (slices, lo, hi) of
    ``metric``'s ``method`` interval are NaN in some slice.
    """
    undefined = result["lo"].isna() | result["hi"].isna()
    if undefined.any():
        warn_user(
            f"{metric}: the {method} interval is undefined in {int(undefined.sum())} "
            f"slice(s) (too few rows, groups or classes, or no defined bootstrap replicate); "
            f"lo and hi are NaN there",
            UndefinedMetricWarning,
        )


def _bounds(
    call: Call,
    by: list[str],
    request: CiRequest,
    method: str,
    counts_macro: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The bounds of ``call``'s ``method`` interval per slice of ``by`` (columns: the slices,
    ``lo``, ``hi``), and the metric's own frame when the interval's query also gives its
    value bit for bit (DeLong, AUC's bucket bootstrap), else None.
    """
    import pandas as pd

    spec = call.spec
    n_by = len(by)
    frame: pd.DataFrame | None = None
    if counts_macro:
        result = _row_bootstrap(call, by, request, counts_macro)
    elif method == "delong":
        sql = call.macro(
            "ci_delong", call.relation, [call.q(b) for b in by], call.quoted(), call.params
        )
        out = call.backend.query(sql)
        z = two_sided_normal(request.level)
        var = pd.to_numeric(out["var"], errors="coerce")
        auc = pd.to_numeric(out[spec.name], errors="coerce")  # the value column
        half = z * var.clip(lower=0) ** 0.5
        lo, hi = (auc - half).clip(0.0, 1.0), (auc + half).clip(0.0, 1.0)
        result = out.iloc[:, :n_by].copy()
        result["lo"], result["hi"] = lo.to_numpy(), hi.to_numpy()
        frame = out.drop(columns=["var"])
    elif method == "wilson" and spec.inference.proportion:
        result = _wilson_frame(call, by, spec.inference.proportion, request.level)
    elif row_mean(spec) and method == "t":
        out = call.backend.query(_row_mean_sql(call, by, request, "t"))
        result = out.iloc[:, :n_by].copy()
        bounds = [t_row_interval(row, request.level) for _, row in out.iterrows()]
        result["lo"] = [b[0] for b in bounds]
        result["hi"] = [b[1] for b in bounds]
    elif row_mean(spec):
        result = call.backend.query(_row_mean_sql(call, by, request, "bootstrap"))
    elif method in ("t", "wilson"):  # per-group sums: t, or wilson over groups (hit_rate)
        if method == "wilson" and (call.columns.get("group_weight") or call.columns.get("weight")):
            raise InvalidParameterError(
                f"{spec.name}: ci_method='wilson' with group_weight= is not supported (a "
                f"weighted share of groups is no proportion of counts); pass ci_method='t' or "
                f"'bootstrap'"
            )
        result = _group_bounds(_group_query(call, by, request, "t"), n_by, method, request)
    elif group_mean(spec, call.columns):
        result = _group_query(call, by, request, "bootstrap")
    elif spec.inference.bucket_bootstrap and not call.columns.get("weight"):
        out = call.backend.query(_auc_bootstrap_sql(call, by, request))
        result = out.drop(columns=[spec.name, "n_pos", "n_neg"])
        frame = out.drop(columns=["lo", "hi", "n_valid"])  # its AUC is the metric's, bit for bit
    else:
        result = _row_bootstrap(call, by, request)
    return _named(result, by), frame


def _named(result: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The bounds ``result`` under the columns ``[*by, "lo", "hi"]`` (``n_valid`` dropped)."""
    result = result.iloc[:, : len(by) + 2] if "n_valid" in result else result
    result.columns = [*by, "lo", "hi"]
    return result


def _group_bounds(out: pd.DataFrame, n_by: int, method: str, request: CiRequest) -> pd.DataFrame:
    """The t bounds (or Wilson's over groups) per slice from the sums of ``ci_group_query``."""
    result = out.iloc[:, :n_by].copy()
    bounds = [
        t_interval(row, request.level)
        if method == "t"
        else wilson(float(row["svx"]), float(row["n"]), request.level)
        for _, row in out.iterrows()
    ]
    result["lo"] = [b[0] for b in bounds]
    result["hi"] = [b[1] for b in bounds]
    return result


# --------------------------------------------------------------------------- evaluate(ci=)
@dataclass
class SliceBounds:
    """One metric's interval in ``evaluate(ci=)``: its bounds per slice (the slice columns,
    ``lo``, ``hi``) and the method used.
    """

    bounds: pd.DataFrame
    method: str


class _Memo:
    """A backend whose ``query`` runs each distinct statement once (the confusion counts that
    serve the Wilson intervals of accuracy, precision, recall, ... alike).
    """

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.dialect = backend.dialect
        self.done: dict[str, pd.DataFrame] = {}

    def query(self, sql: str) -> pd.DataFrame:
        if sql not in self.done:
            self.done[sql] = self.backend.query(sql)
        return self.done[sql].copy()


def serve_slices(
    calls: Mapping[str, Call], by: list[str], request: CiRequest
) -> dict[str, SliceBounds]:
    """``evaluate(ci=)``'s intervals: for each requested metric (its text -> its checked
    ``Call`` on evaluate's one opened, validated source), its bounds per slice of ``by``, the
    same as its own function gives with ``ci=`` on each slice's rows.

    The plan: each metric's method (``request.method`` or its default) is checked against its
    columns first; the means over groups (t, Wilson over groups, the cluster bootstrap) of one
    kernel whose options agree share one statement (:func:`_group_batch_sql`: the kernel once,
    its per-group values stacked with the metric as a further slice); a statement the plan
    asks twice (the confusion counts of the Wilson intervals) runs once; every other method
    runs its own statement, as for a single function.
    """
    methods: dict[str, str] = {}
    memo: dict[int, _Memo] = {}
    for text, call in calls.items():
        method = request.method or default_method(call.spec, call.columns)
        check_method(call.spec, method, call.columns)
        methods[text] = method
    batches: list[tuple[tuple[Any, ...], list[str]]] = []
    for text, call in calls.items():
        key = _batch_key(call, methods[text])
        if key is None:
            continue
        for known, members in batches:
            if known == key and _agree(call, [calls[m] for m in members]):
                members.append(text)
                break
        else:
            batches.append((key, [text]))
    out: dict[str, SliceBounds] = {}
    n_by = len(by)
    for (kind, *_), members in batches:
        found = calls[members[0]].backend.query(
            _group_batch_sql([calls[m] for m in members], by, request, kind)
        )
        index = found.columns[n_by]  # the metric's index, the slice after by's
        for i, text in enumerate(members):
            part = found[found[index] == i].drop(columns=[index]).reset_index(drop=True)
            if not n_by and part.empty:  # no group with a value: its one slice, undefined
                part = part.reindex([0])
            if kind == "t":
                part = _group_bounds(part, n_by, methods[text], request)
            out[text] = SliceBounds(_named(part, by), methods[text])
    for text, call in calls.items():
        if text in out:
            continue
        backend = memo.setdefault(id(call.backend), _Memo(call.backend))
        shared = Call(call.spec, backend, call.relation, call.columns, call.params, by, call.extra)
        result, _ = _bounds(shared, by, request, methods[text])
        out[text] = SliceBounds(result, methods[text])
    return out


def _batch_key(call: Call, method: str) -> tuple[Any, ...] | None:
    """What a metric's interval statement shares with others' (the group query's method, the
    kernel, the aggregate, its columns), or None when it has a statement of its own: a mean
    over groups with group weights, or any other method.
    """
    spec = call.spec
    if row_mean(spec) or (method == "wilson" and spec.inference.proportion):
        return None
    if method in ("t", "wilson"):
        kind = "t"
    elif method == "bootstrap" and group_mean(spec, call.columns):
        kind = "bootstrap"
    else:
        return None
    if (
        spec.inference.group_weights is not None
        or call.columns.get("group_weight")
        or (spec.family == "ranking" and call.columns.get("weight"))
    ):
        return None  # joined per metric: its own statement
    columns = tuple(sorted((r, c) for r, c in call.columns.items() if c))
    return (kind, spec.kernel, group_mean(spec, call.columns) or "mean", columns)


def _agree(call: Call, others: list[Call]) -> bool:
    """Whether ``call``'s options agree with those of ``others`` wherever they share one (the
    cut-off apart): one kernel call then computes them all, each as alone.
    """
    mine = {k: v for k, v in call.params.items() if k != "k"}
    for other in others:
        shared = set(mine) & set(other.params)
        if any(repr(mine[o]) != repr(other.params[o]) for o in shared):
            return False
    return True


def _group_batch_sql(calls: list[Call], by: list[str], request: CiRequest, method: str) -> str:
    """One ``ci_group_query`` over several metrics of one kernel: the kernel once, sliced by
    ``by`` and the group, one entry per metric; its per-group values stacked
    (``ci_stack_values``) with the metric's index as one more slice after ``by``. Per metric
    and slice the sums (exact sums) and bootstrap draws (keyed by the group) are those of its
    own :func:`_group_sql`, bit for bit.
    """
    first = calls[0]
    for call in calls:
        _group_weights(call, by)  # its checks (qrels= with slices); no weights here
    group = str(first.columns.get("group"))
    params: dict[str, Any] = {}
    columns: dict[str, str | None] = {}
    for call in calls:
        params.update({k: v for k, v in call.params.items() if k != "k"})
        columns.update(call.quoted())
    aliases = [f"ci_value_{i}" for i in range(len(calls))]
    entries = [entry(c.spec, a, c.params.get("k")) for c, a in zip(calls, aliases)]
    inner = kernel_sql(
        str(first.spec.kernel),
        first.relation,
        [*by, group],
        columns,
        params,
        entries,
        first.extra,
        dialect=first.dialect,
    )
    stacked = first.macro("ci_stack_values", inner, len(by), aliases, "ci_value")
    return first.macro(
        "ci_group_query",
        stacked,
        len(by) + 1,
        "ci_value",
        method,
        request.n_boot,
        request.seed,
        request.level,
        group_mean(first.spec, first.columns) or "mean",
        None,
    )


def _auc_bootstrap_sql(call: Call, by: list[str], request: CiRequest) -> str:
    """AUC's bucket bootstrap (``ci_auc_bootstrap``): its AUC, counts and bounds per slice."""
    return _rows_macro(
        call, "ci_auc_bootstrap", by, request.n_boot, request.seed, request.level, AUC_BOOT_BUCKETS
    )


def _row_order(call: Call) -> list[str]:
    """The row key's order of the row bootstrap: the score first, the other columns in the
    registry's role order, the weight last (``ci_rows_relation``, ``ci_auc_bootstrap``).
    """
    rank = {"score": 0, "weight": 2}
    return [
        call.q(c) for r, c in sorted(call.columns.items(), key=lambda rc: rank.get(rc[0], 1)) if c
    ]


def _rows_macro(call: Call, name: str, by: list[str], *more: Any) -> str:
    """The interval macro ``name`` over the call's rows: its relation, the slices, the columns
    and the metric's parameters, then ``more``.
    """
    return call.macro(
        name, call.relation, [call.q(b) for b in by], call.quoted(), call.params, *more
    )


def _row_mean_sql(call: Call, by: list[str], request: CiRequest, method: str) -> str:
    """The interval statement of a mean of per-row losses (``ci_row_mean_query``): ``"t"``
    gives the per-slice sums, ``"bootstrap"`` the percentile bounds.
    """
    return _rows_macro(
        call,
        "ci_row_mean_query",
        by,
        row_mean(call.spec),
        method,
        _row_order(call),
        request.n_boot,
        request.seed,
        request.level,
    )


def _wilson_frame(
    call: Call,
    by: list[str],
    proportion: tuple[tuple[str, ...], tuple[str, ...]],
    level: float,
) -> pd.DataFrame:
    """Wilson intervals per slice from the confusion counts. With weights, from the counts of
    the normalised weights u = w / 2^e and of u^2 (``ci_wilson_weights``): the proportion is
    sum u [successes] / sum u and n is Kish's effective size (sum u)^2 / sum u^2 of the
    denominator's rows, both scale-free ratios, n_eff computed exactly (as a fraction) and
    rounded once.
    """
    n_by = len(by)
    slices = [call.q(b) for b in by]
    weight = call.columns.get("weight")
    relation = call.relation
    if weight:
        relation = call.macro("ci_wilson_weights", call.relation, call.q(weight))
    counts = call.backend.query(
        call.macro(str(call.spec.kernel), relation, slices,
                   call.quoted(weight="__sqlm_u") if weight else call.quoted(), call.params, [])
    )  # fmt: skip
    squares = None
    if weight:
        squares = call.backend.query(
            call.macro(str(call.spec.kernel), relation, slices,
                       call.quoted(weight="__sqlm_u2"), call.params, [])
        )  # fmt: skip
    num, den = proportion
    result = counts.iloc[:, :n_by].copy()
    los, his = [], []
    for i in range(len(counts)):
        s = _exact(counts[c].iloc[i] for c in num)
        n = _exact(counts[c].iloc[i] for c in den)
        n_eff = n
        if squares is not None:
            n2 = _exact(squares[c].iloc[i] for c in den)
            n_eff = n * n / n2 if n2 > 0 else Fraction(0)
        lo, hi = wilson(float(s / n), 1.0, level, float(n_eff)) if n > 0 else (
            math.nan, math.nan)  # fmt: skip
        los.append(lo)
        his.append(hi)
    result["lo"], result["hi"] = los, his
    return result


def _exact(values: Any) -> Fraction:
    """The exact sum of the (finite) numbers ``values``; 0 for NULL / NaN ones (no rows)."""
    import pandas as pd

    total = Fraction(0)
    for v in values:
        x = float(v) if v is not None and not pd.isna(v) else 0.0
        total += Fraction(x) if math.isfinite(x) else 0
    return total


def _group_query(call: Call, by: list[str], request: CiRequest, method: str) -> pd.DataFrame:
    return call.backend.query(_group_sql(call, by, request, method))


def _group_sql(call: Call, by: list[str], request: CiRequest, method: str) -> str:
    """The per-group interval statement (``ci_group_query``): ``method`` ``"t"`` gives the
    per-slice sums, ``"bootstrap"`` the percentile bounds.
    """
    spec = call.spec
    weights = _group_weights(call, by)
    # weight= on a TF-Ranking-weighted mean: the per-group values are unweighted (each group
    # is a slice of the inner kernel); the list weights W_g come in `weights`
    unweighted = {"weight": None} if spec.inference.item_weights == "list" else {}
    inner = call.kernel(
        call.relation, [*by, str(call.columns.get("group"))], call.quoted(**unweighted), "ci_value"
    )
    aggregate = group_mean(spec, call.columns) or "mean"
    sql = call.macro(
        "ci_group_query",
        inner,
        len(by),
        "ci_value",
        method,
        request.n_boot,
        request.seed,
        request.level,
        aggregate,
        weights,
    )
    return sql


def _group_weights(call: Call, by: list[str]) -> str | None:
    """The group weights' query of ``call``'s per-group interval (``ci_group_weights``), None
    when every group weighs 1; raises for what the per-group intervals do not support.
    """
    spec = call.spec
    group = call.columns.get("group")
    if not group:
        raise InvalidParameterError(f"{spec.name}: this interval needs group= (per-group values)")
    if call.extra and call.params.get("missing") == "zero" and by:
        raise InvalidParameterError(
            f"{spec.name}: ci= with qrels=, missing='zero' and slices is not supported (a "
            f"missing group has no slice); drop by= or pass missing='skip'"
        )
    group_weight = call.columns.get("group_weight")
    weight = call.columns.get("weight")
    if weight and spec.inference.item_weights == "list":  # weight=: TF-Ranking's list weights
        return call.macro(
            "ci_group_weights",
            call.relation,
            [call.q(b) for b in by],
            call.q(group),
            "tfr",
            call.q(str(call.columns.get("label"))),
            {
                **call.params,
                "relevance_level": call.params.get("relevance_level", 1),
                "weight_column": call.q(str(weight)),
                "group_weight_column": call.q(str(group_weight)) if group_weight else None,
            },
        )
    if group_weight:  # group_weight=: each group's own weight, a column of the run
        return call.macro(
            "ci_group_weights",
            call.relation,
            [call.q(b) for b in by],
            call.q(group),
            "column",
            call.q(str(group_weight)),
            {**call.params, "relevance_level": call.params.get("relevance_level", 1)},
        )
    weights = None
    kind = (
        "relevant"
        if spec.inference.group_weights == "relevant"
        else {"samples": "rows", "positives": "positives"}.get(str(call.params.get("weighting")))
        if spec.inference.group_weights == "weighting"
        else None
    )
    if kind is not None:
        relation, label = call.relation, call.q(str(call.columns.get("label")))
        if call.extra and "qrels" in call.extra:
            relation, qcols = call.extra["qrels"]
            label = call.q(str(qcols["label"]))
            if by:
                raise InvalidParameterError(
                    f"{spec.name}: ci= with qrels= and slices is not supported for "
                    f"{spec.name}; drop by="
                )
            group_q = call.q(str(qcols["group"]))
        else:
            group_q = call.q(group)
        weights = call.macro(
            "ci_group_weights",
            relation,
            [call.q(b) for b in by] if relation == call.relation else [],
            group_q,
            kind,
            label,
            {**call.params, "relevance_level": call.params.get("relevance_level", 1)},
        )
    return weights


def _row_bootstrap(
    call: Call, by: list[str], request: CiRequest, counts_macro: str | None = None
) -> pd.DataFrame:
    return call.backend.query(_row_bootstrap_sql(call, by, request, counts_macro))


def _row_bootstrap_sql(
    call: Call, by: list[str], request: CiRequest, counts_macro: str | None = None
) -> str:
    """The statement of the percentile interval of a Poisson(1) row bootstrap;
    ``counts_macro``: the metric from each replicate's confusion counts (``call`` is then
    the counts' table metric).
    """
    spec = call.spec
    roles = {r.name for r in spec.roles}
    has_weight = "weight" in roles
    group = call.columns.get("group")
    key = call.q(group) if group else None  # a sample id (multiclass score tables)
    order = _row_order(call)
    mode = "weight" if has_weight else "copies"
    relation = call.macro(
        "ci_rows_relation",
        call.relation,
        [call.q(b) for b in by],
        order,
        key,
        request.n_boot,
        request.seed,
        mode,
        call.q(str(call.columns["weight"])) if has_weight and call.columns.get("weight") else None,
        key if mode == "copies" else None,
    )
    relation = f"{relation} as resampled"
    override: dict[str, str | None] = {}
    if has_weight:
        override["weight"] = "__sqlm_w"
    if mode == "copies" and group:
        override["group"] = "__sqlm_g"
    if counts_macro:  # e.g. binary mcc at a threshold, from the confusion counts
        counts = call.macro(str(call.spec.kernel), relation, [*(call.q(b) for b in by), "__sqlm_b"],
                            call.quoted(**override), call.params, [])  # fmt: skip
        inner = call.macro(counts_macro, counts, len(by))
    else:
        inner = call.kernel(relation, [*by, "__sqlm_b"], call.quoted(**override), "ci_value")
    return call.macro("ci_replicate_percentiles", inner, len(by), "ci_value", request.level)


def ci_columns(metric: str) -> tuple[str, str]:
    """``evaluate``'s column names of a metric's interval: ``<metric>_lo``, ``<metric>_hi``."""
    return f"{metric}_lo", f"{metric}_hi"


# --------------------------------------------------------------------------- render(ci=)
#: the methods render(ci=) writes as SQL, for its error messages
RENDERED_METHODS = ("wilson", "delong", "t", "bootstrap")


@functools.lru_cache(maxsize=8)
def t_table(level: float) -> tuple[float, ...]:
    """The t factors of ``level`` for df = 1..T_TABLE_DF (:func:`two_sided_t`), the literal
    table of ``ci_t_bounds``; above it SQL sums :func:`t_expansion_terms` as Python does.
    """
    return tuple(two_sided_t(level, float(df)) for df in range(1, T_TABLE_DF + 1))


def interval_sql(request: CiRequest, call: Call, metric_sql: str) -> str:
    """The one statement of ``call``'s metric with its interval (``render(ci=)``, the dbt
    macros with ``ci``): the slices ``slice_0..``, the value under the metric's name and the
    bounds ``<metric>_lo``, ``<metric>_hi``; run, it gives the bounds of the Python call with
    the same ``ci=`` bit for bit (the same SQL, and the same operations where Python finishes
    an interval: ``ci_normal_bounds``, ``ci_wilson_bounds``; the normal factor ``z`` is an
    exact literal of the level). ``metric_sql``: the metric's own statement.

    ``"t"``: the t factor with n - 1 degrees of freedom per slice is a literal table of
    :func:`two_sided_t` for df = 1..1000 and the Cornish-Fisher expansion above, the rule of
    :func:`~sqlmetrics._inference.stats.two_sided_t_interval` (``ci_t_bounds``).

    Refused (:class:`~sqlmetrics.errors.InvalidParameterError`, naming the method and what
    renders): ``"wilson"`` with ``weight=`` (Kish's effective size is an exact fraction).
    """
    spec = call.spec
    if spec.output != "scalar":
        raise InvalidParameterError(
            f"render: ci= applies to a metric with one value per slice; {spec.name!r} returns a "
            f"table: drop ci="
        )
    if spec.inference.counts_macro is not None:
        raise InvalidParameterError(
            f"render: ci= of {spec.name} is computed from another metric's counts in Python; "
            f"call sqlmetrics.{spec.name}(..., ci=) instead, or drop ci="
        )
    method = request.method or default_method(spec, call.columns)
    check_method(spec, method, call.columns)
    weighted = bool(call.columns.get("weight"))
    if method == "wilson" and weighted and spec.inference.proportion:
        why = "with weight= its effective sample size is an exact fraction computed in Python"
        rendered = [
            m for m in methods_for(spec, call.columns) if m in RENDERED_METHODS and m != method
        ]
        raise InvalidParameterError(
            f"render: ci_method={method!r} of {spec.name} cannot be written as SQL alone ({why}); "
            f"methods render writes for it: {', '.join(map(repr, rendered))}; or call "
            f"sqlmetrics.{spec.name}(..., ci=) to run it"
        )
    by = list(call.by)
    n_by = len(by)
    z = call.macro("float_literal", two_sided_normal(request.level)).strip()
    value = call.q(spec.name)
    lo, hi = (call.q(c) for c in ci_columns(spec.name))
    if method == "delong":
        inner = call.macro(
            "ci_delong", call.relation, [call.q(b) for b in by], call.quoted(), call.params
        )
        bounds = call.macro("ci_normal_bounds", inner, n_by, spec.name, z)
        return call.macro("ci_render", None, bounds, n_by, spec.name, lo, hi)
    if method == "wilson" and spec.inference.proportion:
        counts = call.macro(str(spec.kernel), call.relation, [call.q(b) for b in by],
                            call.quoted(), call.params, [])  # fmt: skip
        num, den = spec.inference.proportion
        bounds = call.macro("ci_wilson_bounds", counts, n_by, " + ".join(num), " + ".join(den), z)
        return call.macro("ci_render", metric_sql, bounds, n_by, value, lo, hi, True)
    if method == "t" and row_mean(spec):
        sums = _row_mean_sql(call, by, request, "t")
        terms = [call.macro("float_literal", g).strip() for g in t_expansion_terms(request.level)]
        bounds = call.macro("ci_t_bounds", sums, n_by, list(t_table(request.level)), terms, True)
        return call.macro("ci_render", metric_sql, bounds, n_by, value, lo, hi)
    if method == "t":
        sums = _group_sql(call, by, request, "t")
        terms = [call.macro("float_literal", g).strip() for g in t_expansion_terms(request.level)]
        bounds = call.macro("ci_t_bounds", sums, n_by, list(t_table(request.level)), terms)
        return call.macro("ci_render", metric_sql, bounds, n_by, value, lo, hi)
    if method == "wilson":  # over groups (hit_rate): the share of groups with a hit
        sums = _group_sql(call, by, request, "t")
        bounds = call.macro("ci_wilson_bounds", sums, n_by, "svx", "n", z)
        return call.macro("ci_render", metric_sql, bounds, n_by, value, lo, hi, True)
    if group_mean(spec, call.columns):
        bounds = _group_sql(call, by, request, "bootstrap")
    elif row_mean(spec):
        bounds = _row_mean_sql(call, by, request, "bootstrap")
    elif spec.inference.bucket_bootstrap and not weighted:
        bounds = _auc_bootstrap_sql(call, by, request)
        return call.macro("ci_render", None, bounds, n_by, spec.name, lo, hi)
    else:
        bounds = _row_bootstrap_sql(call, by, request)
    return call.macro("ci_render", metric_sql, bounds, n_by, value, lo, hi)


def _bound(value: Any) -> float:
    """A bound as a float; NULL (None, pandas' NA) is NaN."""
    try:
        return float(value)
    except TypeError:
        return math.nan
