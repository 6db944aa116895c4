"""Metric names as users write them: the one place that knows the ``@k`` forms.

A metric that takes a cut-off is written ``"<base>@k"``, its registry name without a trailing
``_at_k`` (``ndcg@10``, ``precision@5`` for the registry's ``precision_at_k``). The plain
registry name and the registered aliases are accepted too (``"ndcg"``: the whole list).
:func:`metric_names`, :func:`parse_metric` (``evaluate``, ``render``, the CLI), the CLI's
``list``, the site's metric table and the "did you mean" hints all use these forms.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidParameterError, UnknownMetricError
from .ir_names import ir_forms, ir_hint, parse_ir_name
from .registry import ALIASES, REGISTRY, MetricSpec, metric_form

__all__ = ["Request", "metric_form", "metric_names", "parse_metric"]


@dataclass(frozen=True)
class Request:
    """One requested metric: the text as written (the output column), its spec and its k.

    params: the options its name fixes (ir_measures' names: ``P(rel=2)@5`` fixes
    ``relevance_level=2``), applied to this metric only; empty for our own names.
    """

    text: str
    spec: MetricSpec
    k: int | None
    params: Mapping[str, Any] = field(default_factory=dict)


def metric_names(scalar_only: bool = False) -> list[str]:
    """Return the name of every registered metric as :func:`sqlmetrics.evaluate` takes it.

    Metrics that take a cut-off are listed with ``@k``: write ``"ndcg@10"`` or
    ``"precision@5"`` (ranking precision at 5; plain ``"precision"`` is the classifier's
    precision at a threshold).

    Parameters
    ----------
    scalar_only : bool, default False
        List only the metrics that give one number per slice (those ``evaluate`` takes);
        False adds those that give a table (curves, counts, reports; :func:`sqlmetrics.render`
        takes them).

    Returns
    -------
    list of str
        The names, sorted.

    Examples
    --------
    >>> import sqlmetrics
    >>> names = sqlmetrics.metric_names()
    >>> "ndcg@k" in names and "precision@k" in names and "precision" in names
    True
    """
    return sorted(
        metric_form(spec)
        for spec in REGISTRY.values()
        if not scalar_only or spec.output == "scalar"
    )


#: the abbreviations users write for a metric that is registered under another name, and
#: the metric they usually mean: suggested, never accepted (``HR@10`` is ambiguous; most
#: recommender papers mean the share of groups with a hit, ``hit_rate@10``)
USUAL_MEANING = {"hr": "hit_rate"}

#: the largest cut-off: a BIGINT of every engine (a longer number is refused before ``int()``,
#: whose own error for thousands of digits is a raw ValueError)
MAX_K = 2**63 - 1


def function_spec(name: str) -> MetricSpec | None:
    """The spec behind the public function ``name`` (``sqlmetrics.mean_average_precision`` ->
    ``map``), so that every function's name works wherever a metric name does; for a function
    shared by several specs, the one its default ``average=`` computes: the spec without an
    average (``precision``: binary), else the macro one (``jaccard``: ``jaccard_macro``, as
    scikit-learn's multiclass default; tests/test_cli_round4.py checks each against the
    function's signature). None when ``name`` is no metric function.
    """
    specs = [s for s in REGISTRY.values() if s.function == name]
    for rule in (lambda s: True, lambda s: s.average is None, lambda s: s.average == "macro"):
        chosen = [s for s in specs if rule(s)]
        if len(chosen) == 1:
            return chosen[0]
    return None


def _lookup(base: str, with_k: bool) -> MetricSpec | None:
    candidates = [base, f"{base}_at_k"] if with_k else [base]
    for name in candidates:
        spec = REGISTRY.get(ALIASES.get(name, name))
        if spec is not None and (spec.takes_k or not with_k):
            return spec
    spec = function_spec(base)
    if spec is not None and (spec.takes_k or not with_k):
        return spec
    return None


def _cutoff(caller: str, text: str, base: str, k_text: str) -> int:
    """``k_text`` (after the '@') as an integer in [1, :data:`MAX_K`], else a clear error."""
    if not re.fullmatch(r"[1-9][0-9]*", k_text):
        raise InvalidParameterError(
            f"{caller}: metric {text if len(text) <= 60 else text[:40] + '...'!r}: the cut-off "
            f"after '@' must be an integer >= 1, e.g. '{base}@10'"
        )
    if len(k_text) > len(str(MAX_K)) or int(k_text) > MAX_K:
        raise InvalidParameterError(
            f"{caller}: metric '{base}@{k_text[:12]}...' ({len(k_text)} digits): the cut-off "
            f"after '@' must be at most {MAX_K} (2^63 - 1); a cut-off above the largest group "
            f"keeps every item, so write e.g. '{base}@1000' or '{base}' (no cut-off: every item)"
        )
    return int(k_text)


def parse_metric(text: Any, caller: str = "evaluate", scalar_only: bool = True) -> Request:
    """Parse ``"ndcg@10"``, ``"map"``, ``"auc"`` into a :class:`Request`.

    The one parser of metric names (``evaluate``, ``render``, the CLI). ``caller`` starts the
    error messages; ``scalar_only=False`` also accepts the metrics that give a table (curves).
    Our names first, then ir_measures' (``nDCG@10``, ``P(rel=2)@5``: ``_core.ir_names``).
    """
    if not isinstance(text, str) or not text:
        raise InvalidParameterError(
            f"{caller}: metrics= must hold metric names such as 'auc' or 'ndcg@10'; got {text!r}"
        )
    base, at, k_text = text.partition("@")
    if "(" in base or _lookup(base, with_k=bool(at)) is None:
        parsed = parse_ir_name(text, caller)
        if parsed is not None:
            ir_spec, k_ir, params = parsed
            return Request(text, ir_spec, k_ir, params)
    k: int | None = None
    if at:
        k = _cutoff(caller, text, base, k_text)
    spec = _lookup(base, with_k=bool(at))
    if spec is None:
        forms = metric_names(scalar_only)
        # with a cut-off written, suggest a metric that takes one ('precison@5': 'precision@5')
        offered = [f for f in forms if f.endswith("@k")] if at else forms
        plain = [f.removesuffix("@k") for f in offered]
        hint = difflib.get_close_matches(base.lower(), plain, n=1)  # 'AUC' -> 'auc'
        theirs = ir_hint(text, k_text)  # 'nDGC@10' -> 'nDCG@10'
        near = ""
        usual = USUAL_MEANING.get(base.lower())
        if at and _lookup(base, with_k=False) is not None:
            near = f"{base!r} takes no cut-off; write {base!r}. "
        elif usual is not None and _lookup(usual, with_k=bool(at)) is not None:
            meant = f"{usual}@{k}" if at else usual
            near = f"did you mean {meant!r} (what {base!r} usually means)? "
        elif hint or theirs:
            ours = [offered[plain.index(h)].replace("@k", f"@{k}" if k else "@10") for h in hint]
            # ir_measures' name only where it is not ours in other case ('nDCG@10', 'ndcg@10')
            theirs = [t for t in theirs if t.lower() not in {o.lower() for o in ours}]
            near = f"did you mean {' or '.join(map(repr, [*ours, *theirs]))}? "
        raise UnknownMetricError(
            f"{caller}: unknown metric {text!r}; {near}known metrics: {', '.join(forms)}; "
            f"ir_measures' names: {', '.join(ir_forms())}"
        )
    if scalar_only and spec.output != "scalar":
        raise InvalidParameterError(
            f"{caller}: {text!r} gives several values per slice (a curve, counts or a "
            f"report), not one number; call sqlmetrics.{spec.function}(...) for it"
        )
    return Request(text, spec, k)
