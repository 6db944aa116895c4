"""Metric names as users write them: the one place that knows the ``@k`` forms.

A metric that takes a cut-off is written ``"<base>@k"``, its registry name without a trailing
``_at_k`` (``ndcg@10``, ``precision@5`` for the registry's ``precision_at_k``). The plain
registry name and the registered aliases are accepted too (``"ndcg"``: the whole list).
:func:`metric_names`, :func:`parse_metric` (``evaluate``, ``render``, the CLI), the CLI's
``list``, the README's metric table and the "did you mean" hints all use these forms.
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


def _lookup(base: str, with_k: bool) -> MetricSpec | None:
    candidates = [base, f"{base}_at_k"] if with_k else [base]
    for name in candidates:
        spec = REGISTRY.get(ALIASES.get(name, name))
        if spec is not None and (spec.takes_k or not with_k):
            return spec
    return None


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
        if not re.fullmatch(r"[1-9][0-9]*", k_text):
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: the cut-off after '@' must be an integer >= 1, "
                f"e.g. '{base}@10'"
            )
        k = int(k_text)
    spec = _lookup(base, with_k=bool(at))
    if spec is None:
        forms = metric_names(scalar_only)
        # with a cut-off written, suggest a metric that takes one ('precison@5': 'precision@5')
        offered = [f for f in forms if f.endswith("@k")] if at else forms
        plain = [f.removesuffix("@k") for f in offered]
        hint = difflib.get_close_matches(base.lower(), plain, n=1)  # 'AUC' -> 'auc'
        theirs = ir_hint(text, k_text)  # 'nDGC@10' -> 'nDCG@10'
        near = ""
        if at and _lookup(base, with_k=False) is not None:
            near = f"{base!r} takes no cut-off; write {base!r}. "
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
