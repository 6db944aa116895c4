"""``evaluate(..., scores=)``: the wide class-score forms of :func:`sqlmetrics.evaluate`.

A score column per class, with the true class in ``label=`` (multiclass) or a 0/1 column per
class in ``indicators=`` (multilabel), feeds the metrics that declare that form
(``MetricSpec.wide``: multiclass_auc, top_k_accuracy, multilabel_average_precision); each
runs through its own kernel over the long view of the wide columns
(:func:`sqlmetrics._metrics.multiclass_roc.wide_frame`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core.names import parse_metric
from .._core.registry import REGISTRY
from .._engine.run import normalize_by
from .._metrics.multiclass_roc import wide_frame
from ..errors import InvalidParameterError, UndefinedMetricWarning, warn

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate_wide", "wide_metrics"]


def wide_metrics(form: str) -> list[str]:
    """The metrics fed by wide form ``form`` (``"multiclass"`` or ``"multilabel"``), in the
    registry's order.
    """
    return [spec.name for spec in REGISTRY.values() if form in spec.wide]


def evaluate_wide(
    data: Any,
    metrics: Any,
    *,
    label: str,
    scores: Any,
    indicators: Any = None,
    by: Any,
    others: Mapping[str, Any],
    options: dict[str, Any],
    con: Any,
) -> pd.DataFrame:
    """``evaluate(..., scores=)``: multiclass_auc and top_k_accuracy from wide score
    columns, or with ``indicators=`` (multilabel) multiclass_auc and
    multilabel_average_precision, per slice; the columns evaluate returns (slices, the metrics
    as requested, n_rows).
    """
    import pandas as pd

    texts = [metrics] if isinstance(metrics, str) else list(metrics)
    requests = [parse_metric(t, "evaluate") for t in texts]
    form = "multiclass" if indicators is None else "multilabel"
    if not requests or any(form not in r.spec.wide for r in requests):
        if indicators is None:
            raise InvalidParameterError(
                f"evaluate: scores= (a score column per class) feeds "
                f"{' and '.join(wide_metrics(form))} only; got metrics={texts!r}: evaluate the "
                f"other metrics in a separate call"
            )
        raise InvalidParameterError(
            f"evaluate: scores= with indicators= (a score and a 0/1 column per class) feed "
            f"{' and '.join(wide_metrics(form))} only; got metrics={texts!r}: evaluate the other "
            f"metrics in a separate call"
        )
    names = [r.spec.name for r in requests]
    asked = [(r.spec.name, r.k) for r in requests]  # top_k_accuracy@1 and @3: two metrics
    if len(set(asked)) != len(asked):
        twice = next(r.text for r, a in zip(requests, asked) if asked.count(a) > 1)
        raise InvalidParameterError(
            f"evaluate: metric {twice!r} is requested twice in metrics={texts!r}; name it once"
        )
    if others.get("ci") is not None or others.get("ci_method") is not None:
        raise InvalidParameterError(
            f"evaluate: ci= with wide scores= is not supported; call "
            f"sqlmetrics.{requests[0].spec.function}(..., scores=..., ci=) (per slice: on "
            f"each slice's rows) for an interval, or drop ci="
        )
    weight = others.get("weight")
    unweighted = [r.text for r in requests if "weight" not in {x.name for x in r.spec.roles}]
    if weight is not None and len(unweighted) < len(requests):  # top_k_accuracy reads it
        if unweighted:
            raise InvalidParameterError(
                f"evaluate: weight={weight!r} with wide scores= is read by top_k_accuracy "
                f"only, not by {', '.join(unweighted)}; evaluate those in a call without weight="
            )
        others = {name: value for name, value in others.items() if name != "weight"}
    given = sorted(name for name, value in others.items() if value is not None)
    if given:
        raise InvalidParameterError(
            f"evaluate: scores= (wide class scores) with {', '.join(n + '=' for n in given)}: "
            f"the wide form reads label= (the true class) or indicators=, and scores= only"
        )
    options = dict(options)
    labels = options.pop("labels", None)
    convention = options.pop("convention", None)
    # the requested metrics' own options, in the registry's order (labels= is read here)
    accepted = [
        p
        for spec in REGISTRY.values()
        if spec.name in names
        for p in spec.params
        if p not in ("k", "labels")
    ]
    taken = {name: options.pop(name) for name in accepted if name in options}
    if options:
        who = "it accepts" if len(texts) == 1 else "they accept"
        raise InvalidParameterError(
            f"evaluate: option {sorted(options)[0]}= is accepted by none of the requested "
            f"metrics ({', '.join(texts)}); options {who}: {', '.join([*accepted, 'labels'])}"
        )
    by_cols = normalize_by("evaluate", by)
    frame: pd.DataFrame | None = None
    for request in requests:
        metric = request.spec.name
        params: dict[str, Any] = {"convention": convention}
        params.update({k: v for k, v in taken.items() if k in request.spec.params})
        if request.spec.takes_k:  # top_k_accuracy@k (no @k: every class)
            params["k"] = request.k
        part = wide_frame(
            "evaluate",
            data,
            label,
            scores,
            labels,
            params,
            by_cols,
            con,
            metric,
            indicators,
            weight,
        )
        part = part.rename(columns={metric: request.text})[[*by_cols, request.text, "n_rows"]]
        if frame is None:
            frame = part
        elif by_cols:  # NULL slices merge as equal
            frame = frame.drop(columns="n_rows").merge(part, on=by_cols, how="outer")
        else:
            frame = pd.concat([frame.drop(columns="n_rows"), part.drop(columns=by_cols)], axis=1)
    assert frame is not None
    frame = frame[[*by_cols, *(r.text for r in requests), "n_rows"]]
    for request in requests:
        text = request.text
        missing = int(frame[text].isna().sum())
        if missing:
            warn(
                f"evaluate: {text} is undefined in {missing} of {len(frame)} slice(s) "
                f"({request.spec.undefined}); NaN there",
                UndefinedMetricWarning,
            )
        frame[text] = frame[text].astype(float)
    frame["n_rows"] = frame["n_rows"].astype("int64")
    if by_cols:
        frame = frame.sort_values(by_cols, na_position="last", kind="stable")
    return frame.reset_index(drop=True)
