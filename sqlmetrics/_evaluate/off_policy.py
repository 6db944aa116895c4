"""Off-policy evaluation where the logs live: ``off_policy_value`` (issue 43).

The statement is ``off_policy_value`` of sql/_macros/counterfactual/off_policy.sql, whose
header states each estimator as obp defines it (IPS, SNIPS, DR; the slate estimators), the
clipping, the diagnostics and the intervals. Python checks the arguments and the logged values,
renders, runs, and turns the t interval's sums into bounds (a t quantile per slice).
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._backends import on_source
from .._core.params import REQUIRED, args, entry_point
from .._core.registry import PARAMS
from .._engine.run import normalize_by
from .._engine.validate import check_columns, check_unique, is_numeric
from .._engine.where import check_where, filtered
from .._inference.intervals import t_row_interval
from .._templating.literals import FLOAT_TYPES
from .._templating.quoting import quote_ident
from .._templating.templates import render_macro
from ..errors import (
    InvalidDataError,
    InvalidParameterError,
    UndefinedMetricWarning,
)
from ..errors import warn as warn_user

if TYPE_CHECKING:
    import pandas as pd

    from .._core._calls import OffPolicyValueCall

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_off_policy.py`` by ``python -m tools.api`` (decision 0013)
__all__ = ["ESTIMATORS", "run_off_policy_value"]

NAME = "off_policy_value"
#: the single-action estimators (rows are rounds)
SINGLE = ("ips", "snips", "dr")
#: the slate estimators (rows are (slate, position); slate= names the slate)
SLATE = ("slate_standard_ips", "slate_independent_ips", "slate_rips")
ESTIMATORS = SINGLE + SLATE
CI_METHODS = ("t", "bootstrap")


def _estimators(estimator: Any) -> list[str]:
    names = [estimator] if isinstance(estimator, str) else estimator
    if not isinstance(names, Sequence) or isinstance(names, str) or not names:
        raise InvalidParameterError(
            f"{NAME}: estimator={estimator!r} must be an estimator's name or a non-empty list "
            f"of them (e.g. estimator=['ips', 'snips'])"
        )
    out: list[str] = []
    for name in names:
        if name not in ESTIMATORS:
            close = difflib.get_close_matches(str(name), ESTIMATORS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InvalidParameterError(
                f"{NAME}: estimator={name!r} is not an estimator; {hint}the estimators: "
                f"{', '.join(ESTIMATORS)}"
            )
        if name in out:
            raise InvalidParameterError(
                f"{NAME}: estimator= names {name!r} twice; name each estimator once"
            )
        out.append(name)
    return out


def _check_options(
    names: list[str],
    reward_hat: Any,
    reward_hat_target: Any,
    slate: Any,
    position: Any,
    clip: Any,
) -> float | None:
    if slate is None:
        slates = [n for n in names if n in SLATE]
        if slates:
            raise InvalidParameterError(
                f"{NAME}: estimator={slates[0]!r} is a slate estimator and needs slate=, the "
                f"column of the slate (impression) id, each row one (slate, position); for "
                f"single actions use 'ips', 'snips' or 'dr'"
            )
    else:
        singles = [n for n in names if n in SINGLE]
        if singles:
            raise InvalidParameterError(
                f"{NAME}: estimator={singles[0]!r} is a single-action estimator, but slate="
                f"{slate!r} makes each row one (slate, position); use the slate estimators "
                f"({', '.join(SLATE)}) or drop slate="
            )
    if "slate_rips" in names and position is None:
        raise InvalidParameterError(
            f"{NAME}: estimator='slate_rips' needs position=, the column of the row's "
            f"position in its slate (the cascade propensities run along it)"
        )
    if "dr" in names and (reward_hat is None or reward_hat_target is None):
        raise InvalidParameterError(
            f"{NAME}: estimator='dr' needs reward_hat= (the reward model's estimate for the "
            f"logged action) and reward_hat_target= (its expectation under the target policy); "
            f"got reward_hat={reward_hat!r}, reward_hat_target={reward_hat_target!r}"
        )
    if clip is None:
        return None
    real = isinstance(clip, numbers.Real) and not isinstance(clip, bool)
    if not real or not 0 < float(clip) < math.inf:
        raise InvalidParameterError(
            f"{NAME}: clip={clip!r} must be a positive number, the largest importance weight "
            f"kept (e.g. clip=10.0), or None for no clipping"
        )
    return float(clip)


def _check_ci(ci: Any, ci_method: Any, n_boot: Any, seed: Any) -> float | None:
    level: float | None = None
    if ci is not None:
        level = PARAMS["ci"].validate(NAME, ci)
    if ci_method not in CI_METHODS:
        close = difflib.get_close_matches(str(ci_method), CI_METHODS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidParameterError(
            f"{NAME}: ci_method={ci_method!r} must be 't' (the t interval; SNIPS: the delta "
            f"method) or 'bootstrap'{hint}"
        )
    PARAMS["n_boot"].validate(NAME, n_boot)
    PARAMS["seed"].validate(NAME, seed)
    return level


def run_off_policy_value(a: OffPolicyValueCall) -> pd.DataFrame:
    """The body of :func:`off_policy_value`, its arguments in ``a``."""
    names = _estimators(a.estimator)
    clipped = _check_options(names, a.reward_hat, a.reward_hat_target, a.slate, a.position, a.clip)
    level = _check_ci(a.ci, a.ci_method, a.n_boot, a.seed)
    by_cols = normalize_by(NAME, a.by)
    named = [("reward", a.reward), ("pscore", a.pscore), ("target", a.target)]
    named += [
        (arg, col)
        for arg, col in (
            ("reward_hat", a.reward_hat),
            ("reward_hat_target", a.reward_hat_target),
            ("slate", a.slate),
            ("position", a.position),
        )
        if col is not None
    ]
    for arg, col in named:
        if not (isinstance(col, str) and col):
            raise InvalidParameterError(
                f"{NAME}: {arg}= must be a column name (a non-empty string); got {col!r}"
            )
    data = filtered(a.data, check_where(NAME, a.where))
    options: dict[str, Any] = {
        "estimators": names,
        "clip": clipped,
        "method": a.ci_method if level is not None else None,
        "n_boot": int(a.n_boot),
        "seed": int(a.seed),
        "level": level,
    }
    return on_source(NAME, data, a.con, lambda source: _run(source, named, by_cols, options))


def _check_values(
    source: Any, named: list[tuple[str, str]], options: dict[str, Any], columns: dict[str, Any]
) -> dict[str, int] | None:
    """The logged values checked in one aggregate query (and the slates' consistency).

    Single actions: the same query takes the summed quantities' table-wide exponents
    (``off_policy_bounds``), returned for the statement (``options["exponents"]``); None for
    slates, or when an exponent is NULL (all terms 0 or one non-finite).
    """
    backend = source.backend
    present = source.columns
    for arg, col in named:
        if arg not in ("slate", "position") and not is_numeric(present[col]):
            raise InvalidDataError(
                f"{NAME}: {arg} column {col!r} has type {present[col]}; {arg}= must name a "
                f"numeric column (cast it first, e.g. cast({col} as double))"
            )
    q = {arg: backend.ident(col) for arg, col in named}
    checks: list[tuple[str, str, str]] = []  # (argument, problem, condition)
    for arg in q:
        checks.append((arg, "NULL (missing, or NaN in a pandas DataFrame)", f"{q[arg]} is null"))
        if arg not in ("slate", "position") and backend.is_floating(present[dict(named)[arg]]):
            checks.append((arg, "NaN or infinite", backend.is_not_finite(q[arg])))
    checks.append(("pscore", "<= 0 or > 1", f"({q['pscore']} <= 0 or {q['pscore']} > 1)"))
    checks.append(("target", "outside [0, 1]", f"({q['target']} < 0 or {q['target']} > 1)"))
    parts = [f"sum(case when {expr} then 1 else 0 end)" for *_, expr in checks]
    # the t interval squares the weighted rewards: their size, read in the same pass
    sizes = [arg for arg in ("reward", "reward_hat", "reward_hat_target") if arg in q]
    if options["method"] == "t":
        # as off_policy_bounds writes them (a double): one aggregate, not two that an engine
        # names alike (Sail names max(abs(r)) and max(abs(cast(r as double))) the same and
        # refuses the select); the same value (the cast is monotone)
        double = FLOAT_TYPES[backend.dialect]
        parts += [f"max(abs(cast({q[arg]} as {double})))" for arg in sizes]
        parts += [f"max(case when {q['pscore']} > 0 then {q['target']} / {q['pscore']} end)"]
    # each aliased: two arguments may name one column (reward_hat= reward_hat_target=), and an
    # engine may refuse two result columns of one name (Sail)
    counts = ", ".join(f"{part} as sqlmetrics_check_{i}" for i, part in enumerate(parts))
    bounds = ""
    if not columns["slate"]:
        bounds = ", " + render_macro("off_policy_bounds", columns, options, dialect=backend.dialect)
    row = backend.rows(f"select count(*), {counts}{bounds} from {source.sql}")[0]
    if options["method"] == "t":
        largest = row[1 + len(checks) : 2 + len(checks) + len(sizes)]
        row = row[: 1 + len(checks)] + row[2 + len(checks) + len(sizes) :]
    row, maxima = row[: 1 + len(checks)], row[1 + len(checks) :]
    n = int(row[0])
    fixes = {
        "pscore": "propensities of the logged action must lie in (0, 1] (a zero propensity "
        "breaks common support: such rows cannot be reweighted)",
        "target": "the target policy's probabilities must lie in [0, 1]",
    }
    for (arg, problem, _), bad in zip(checks, row[1:]):
        if bad:
            col = dict(named)[arg]
            fix = fixes.get(arg) if problem[0] in "<o" else None
            raise InvalidDataError(
                f"{NAME}: {arg} column {col!r} ({arg}=) has {int(bad)} of {n} rows {problem}; "
                f"{fix or 'drop or fill them first (e.g. filter `' + col + ' is not null`)'}"
            )
    if options["method"] == "t":
        _check_squares(dict(named), dict(zip(sizes, largest[:-1], strict=True)), largest[-1])
    names = options["estimators"]
    slate = dict(named).get("slate")
    if "slate_standard_ips" in names and slate:
        varying = backend.rows(
            f"select count(*) from (select {q['slate']} from {source.sql} group by {q['slate']} "
            f"having max({q['pscore']}) <> min({q['pscore']}) or max({q['target']}) <> "
            f"min({q['target']})) as varying"
        )[0][0]
        if varying:
            raise InvalidDataError(
                f"{NAME}: estimator='slate_standard_ips' reads the slate's joint propensity, "
                f"but {int(varying)} slates ({slate!r}) have pscore= or target= values that "
                f"vary within the slate; pass the joint propensities (the same on every row of "
                f"a slate), or use 'slate_independent_ips' for marginal ones"
            )
    if "slate_rips" in names:
        position = dict(named)["position"]
        check_unique(
            NAME, source, [("slate", slate or ""), ("position", position)],
            fix=" (one row per slate and position)",
        )  # fmt: skip
        window = f"over (partition by {q['slate']} order by {q['position']})"
        growing = backend.rows(
            f"select count(*) from (select {q['pscore']} as p, lag({q['pscore']}) {window} as "
            f"p0, {q['target']} as t, lag({q['target']}) {window} as t0, row_number() {window} "
            f"as k from {source.sql}) as cascade where k > 1 and (p > p0 or t > t0)"
        )[0][0]
        if growing:
            raise InvalidDataError(
                f"{NAME}: estimator='slate_rips' reads cascade propensities (of the slate's "
                f"first k items), which cannot grow along the positions, but {int(growing)} "
                f"rows have a pscore= or target= above the previous position's; pass the "
                f"cascade propensities ({position!r} orders the positions)"
            )
    if not maxima or any(e is None for e in maxima):
        return None
    keys = ["e_a", "e_w", "e_ww"] + (["e_r"] if options["method"] == "t" else [])
    keys += ["e_d"] if columns["reward_hat"] else []
    return {key: int(e) for key, e in zip(keys, maxima, strict=True)}


#: the largest |reward| x weight the t interval takes: its centred squares (and a slate's sums
#: of up to 2^20 items) stay far inside a double's range (about 2^1024)
_LARGEST = 2.0**480


def _check_squares(named: dict[str, str], largest: dict[str, Any], max_weight: Any) -> None:
    """The t interval (``ci_method='t'``) sums squared weighted rewards: refused, naming the
    column, where they would overflow a double (the bootstrap sums no squares).
    """
    weight = max(1.0, float(max_weight or 0.0))
    for arg, value in largest.items():
        if value is not None and float(value) * weight > _LARGEST:
            raise InvalidDataError(
                f"{NAME}: {arg} column {named[arg]!r} ({arg}=) holds values up to "
                f"{float(value):.3g} (weights up to {weight:.3g}): the t interval "
                f"(ci_method='t') squares them, which overflows a double past about 1e144; "
                f"divide the column by a constant first (the value and its interval scale "
                f"with it), or use ci_method='bootstrap'"
            )


def _run(
    source: Any, named: list[tuple[str, str]], by_cols: list[str], options: dict[str, Any]
) -> pd.DataFrame:
    import pandas as pd

    check_columns(NAME, source, named + [("by", c) for c in by_cols])
    backend = source.backend
    dialect = backend.dialect
    given = dict(named)
    columns = {
        arg: quote_ident(given[arg], dialect) if arg in given else None
        for arg in ("reward", "pscore", "target", "reward_hat", "reward_hat_target", "slate")
    }
    exponents = _check_values(source, named, options, columns)
    quoted_by = [quote_ident(c, dialect) for c in by_cols]
    out = None
    if exponents is not None:
        # the sums at the check pass's table-wide exponents: kept where every slice's own
        # exponents are those (fixed_ok), which are then the bits of the statement without
        sql = render_macro(
            "off_policy_value", source.sql, quoted_by, columns,
            {**options, "exponents": exponents}, dialect=dialect,
        )  # fmt: skip
        out = backend.query(sql)
        if not (pd.to_numeric(out["fixed_ok"]) == 1).all():
            out = None
    if out is None:
        sql = render_macro(
            "off_policy_value", source.sql, quoted_by, columns, options, dialect=dialect
        )
        out = backend.query(sql)
    n_by = len(by_cols)
    frame = out.iloc[:, :n_by].copy()
    frame.columns = by_cols
    frame["estimator"] = out["estimator"].astype(object).to_numpy()
    frame["value"] = pd.to_numeric(out["value"], errors="coerce").astype("float64").to_numpy()
    level, method = options["level"], options["method"]
    if method == "t":
        sums = _numeric(out, ["n", "a", "b", "ss"])
        bounds = [
            t_row_interval({"n": r.n, "sv": r.b, "svx": r.a, "su": r.b, "ss": r.ss}, level)
            for r in sums.itertuples()
        ]
        frame["value_lo"] = [b[0] for b in bounds]
        frame["value_hi"] = [b[1] for b in bounds]
    elif method == "bootstrap":
        frame["value_lo"] = pd.to_numeric(out["lo"], errors="coerce").astype("float64").to_numpy()
        frame["value_hi"] = pd.to_numeric(out["hi"], errors="coerce").astype("float64").to_numpy()
    frame["n"] = pd.to_numeric(out["n"]).astype("int64").to_numpy()
    for column in ("ess", "max_weight", "mean_weight"):
        frame[column] = pd.to_numeric(out[column], errors="coerce").astype("float64").to_numpy()
    if n_by == 0 and frame.empty:  # unreachable: an aggregate without slices gives a row
        raise InvalidDataError(f"{NAME}: no result")
    undefined = frame["value"].isna()
    if undefined.any():
        warn_user(
            f"{NAME}: {int(undefined.sum())} estimate(s) undefined (no rows, or snips with all "
            f"weights 0); their value is NaN",
            UndefinedMetricWarning,
        )
    if level is not None:
        bad = (frame["value_lo"].isna() | frame["value_hi"].isna()) & ~undefined
        if bad.any():
            warn_user(
                f"{NAME}: the {method} interval is undefined for {int(bad.sum())} estimate(s) "
                f"(fewer than 2 rounds or slates, or no defined bootstrap replicate); "
                f"value_lo and value_hi are NaN there",
                UndefinedMetricWarning,
            )
    return frame


def _numeric(out: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {c: pd.to_numeric(out[c], errors="coerce").astype("float64") for c in columns}
    )


API = (
    entry_point(
        "off_policy_value",
        takes=(
            "data",
            "reward",
            "pscore",
            "target",
            "estimator",
            "reward_hat",
            "reward_hat_target",
            "slate",
            "position",
            "clip",
            "by",
            "where",
            "ci",
            "ci_method",
            "n_boot",
            "seed",
            "con",
        ),
        call=run_off_policy_value,
        summary="""
    The value of a target policy estimated from logged bandit feedback (off-policy
    evaluation), by slice, in one statement on the engine that holds the logs.

    Each row of ``data`` is one logged round (or, with ``slate=``, one position of a logged
    slate): the observed reward, the logging policy's probability of the logged action and
    the target policy's. The estimators are obp's (Open Bandit Pipeline, Saito et al. 2021):
    ``"ips"``, ``"snips"``, ``"dr"`` for single actions, ``"slate_standard_ips"``,
    ``"slate_independent_ips"`` and ``"slate_rips"`` for slates; with their importance weight
    diagnostics (effective sample size, largest and mean weight) and, with ``ci=``, intervals.
    """,
        returns="""
    pandas.DataFrame
        One row per (slice, estimator), ordered by the slices (NULL last), then the
        estimators as given: the slice columns, ``estimator``, ``value``, with ``ci=``
        ``value_lo`` and ``value_hi``, ``n`` (rounds; slates for the slate estimators),
        ``ess`` (Kish's effective sample size of the weights, ``(sum w)^2 / sum w^2``; for
        slates of each slate's mean weight), ``max_weight`` and ``mean_weight`` (``sum w /
        n``: near 1 when the logging policy covers the target's support). Undefined values
        (no rows; snips with all weights 0; an interval over fewer than 2 units) are NaN,
        with an :class:`~sqlmetrics.errors.UndefinedMetricWarning`.
    """,
        raises="""
    InvalidParameterError
        An unknown estimator, ``dr`` without ``reward_hat=``/``reward_hat_target=``, a slate
        estimator without ``slate=`` or a single-action one with it, ``slate_rips`` without
        ``position=``, ``clip <= 0``, a bad ``ci``/``ci_method``/``n_boot``/``seed``.
    ColumnNotFoundError
        A named column is not in ``data``.
    InvalidDataError
        A non-numeric column; a NULL or non-finite reward; ``pscore`` NULL, <= 0 or > 1;
        ``target`` NULL or outside [0, 1]; a NULL slate id or position; ``slate_standard_ips``
        with propensities that vary within a slate; ``slate_rips`` with cascade propensities
        that grow along a slate's positions, or a position twice in a slate; with
        ``ci_method='t'``, rewards (or reward-model values) so large, times the weights, that
        their squares would overflow a double (past about 1e144).
    """,
        see_also="""
    evaluate : Many metrics per slice in one statement.
    """,
        notes="""
    With ``w_i = min(target_i / pscore_i, clip)`` and ``n`` rounds::

        ips   = sum_i w_i r_i / n
        snips = sum_i w_i r_i / sum_i w_i
        dr    = sum_i [g_i + w_i (r_i - q_i)] / n
        slate = sum_rows w r / #slates

    Assumptions: common support (``target > 0`` only where ``pscore > 0``), the logged
    propensities are the logging policy's, and for DR the reward model enters only through
    ``reward_hat`` and ``reward_hat_target``. The full definitions, the diagnostics and the
    intervals are the header of sql/_macros/counterfactual/off_policy.sql. Every sum is exact
    (decision 0006): the same bits in any row order.
    """,
        references="""
    .. [1] Horvitz, D. G. & Thompson, D. J. (1952). A generalization of sampling without
       replacement from a finite universe. JASA 47(260).
    .. [2] Swaminathan, A. & Joachims, T. (2015). The self-normalized estimator for
       counterfactual learning. NeurIPS.
    .. [3] Dudik, M., Langford, J. & Li, L. (2011). Doubly robust policy evaluation and
       learning. ICML.
    .. [4] Swaminathan, A. et al. (2017). Off-policy evaluation for slate recommendation.
       NeurIPS.
    .. [5] McInerney, J. et al. (2020). Counterfactual evaluation of slate recommendations
       with sequential reward interactions. KDD.
    .. [6] Saito, Y., Aihara, S., Matsutani, M. & Narita, Y. (2021). Open Bandit Dataset and
       Pipeline: towards realistic and reproducible off-policy evaluation. NeurIPS Datasets
       and Benchmarks.
    """,
        examples="""
    >>> import pandas as pd
    >>> import sqlmetrics
    >>> logs = pd.DataFrame({"click": [1, 0, 1, 0], "p": [0.5, 0.5, 0.25, 0.8],
    ...                      "t": [1.0, 0.5, 0.5, 0.2]})
    >>> out = sqlmetrics.off_policy_value(logs, reward="click", pscore="p", target="t")
    >>> out[["estimator", "value", "n", "ess", "max_weight", "mean_weight"]]
      estimator     value  n       ess  max_weight  mean_weight
    0       ips  1.000000  4  3.041379         2.0       1.3125
    1     snips  0.761905  4  3.041379         2.0       1.3125
    """,
        own=args(
            """
    data : str, path, pandas.DataFrame, pyarrow.Table, duckdb.DuckDBPyRelation or ibis.Table
        The logs: a table or view name in ``con``, a Parquet/CSV path, a DataFrame, an Arrow
        table or a DuckDB relation. One row per round (per (slate, position) with ``slate=``).
    reward : str
        The observed reward (click, conversion) of the logged action: numeric, finite, no NULL.
    pscore : str
        The logging policy's probability of the logged action, in (0, 1] (slates: the
        propensity the estimator reads, see ``estimator``).
    target : str
        The target policy's probability of the logged action, in [0, 1].
    estimator : str or list of str, default ("ips", "snips")
        The estimators, in the output's order. Single actions: ``"ips"`` (mean of ``w r``),
        ``"snips"`` (``sum w r / sum w``), ``"dr"`` (mean of ``reward_hat_target + w (r -
        reward_hat)``). Slates, with ``slate=`` (``sum w r`` over the rows divided by the
        number of slates): ``"slate_standard_ips"`` (``pscore``/``target`` the slate's joint
        propensities, constant within a slate), ``"slate_independent_ips"`` (each
        item-position's marginal propensities), ``"slate_rips"`` (the cascade propensities
        of the slate's first k items; needs ``position=``).
    reward_hat : str, optional
        DR: the reward model's estimate for the logged action, q^(x_i, a_i).
    reward_hat_target : str, optional
        DR: the reward model's expectation under the target policy, sum_a pi_e(a | x_i)
        q^(x_i, a).
    slate : str, optional
        The slate (impression) id column: each row is then one (slate, position), the units
        are the slates (the ``n`` of the output, the bootstrap's clusters).
    position : str, optional
        The position column of a slate (``slate_rips``: its cascade propensities must not
        grow along the positions).
    clip : float, optional
        Importance weights clipped from above, ``w = min(target / pscore, clip)`` (obp's
        ``lambda_``), in every estimator; None (default): no clipping.
    by : str or list of str, optional
        Compute per slice: one row per combination of these columns' values, NULL being a
        value of its own.
    where : str, optional
        Keep only the rows of ``data`` where this SQL boolean expression over its columns
        holds, e.g. ``where="country = 'DE'"``; one expression, as ``evaluate``'s ``where=``.
    ci : float, optional
        A confidence level in (0, 1): add ``value_lo`` and ``value_hi``.
    ci_method : {"t", "bootstrap"}, default "t"
        ``"t"``: the t interval over rounds (ips, dr) or slates, the delta-method interval for
        snips; ``"bootstrap"``: the library's Poisson bootstrap with hashed weights, clustered
        by slate for the slate estimators, percentile interval.
    """,
            data=("Any", REQUIRED),
            reward=("str", REQUIRED),
            pscore=("str", REQUIRED),
            target=("str", REQUIRED),
            estimator=("str | Sequence[str]", ("ips", "snips")),
            reward_hat=("str | None", None),
            reward_hat_target=("str | None", None),
            slate=("str | None", None),
            position=("str | None", None),
            clip=("float | None", None),
            by=("str | Sequence[str] | None", None),
            where=("str | None", None),
            ci=("float | None", None),
            ci_method=("str", "t"),
        ),
    ),
)
