"""Every name ``metric_names()`` lists is one ``evaluate``, ``render`` and the CLI accept."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.names import metric_form, metric_names, parse_metric
from sqlmetrics._core.registry import ALIASES, REGISTRY

FRAME = pd.DataFrame({
    "group": [1, 1, 1, 2, 2, 2],
    "item": ["a", "b", "c", "a", "b", "c"],
    "label": [1, 0, 1, 0, 1, 0],
    "score": [0.9, 0.3, 0.5, 0.4, 0.2, 0.8],
    "prediction": [1, 0, 0, 0, 1, 1],
})  # fmt: skip


def _written(form: str) -> str:
    return form.replace("@k", "@3")


def _columns(form: str) -> dict[str, str]:
    spec = parse_metric(_written(form), scalar_only=False).spec
    columns = {role: role for role in ("group", "item") if role in spec.role_names}
    if spec.family == "multiclass":
        columns["prediction"] = "prediction"
    return columns


@pytest.mark.parametrize("form", metric_names())
def test_every_listed_name_renders(form: str) -> None:
    spec = parse_metric(_written(form), "render", scalar_only=False).spec
    assert metric_form(spec) == form
    extra = {"train": "train_events"} if spec.family == "beyond" else {}  # the interactions
    assert "select" in sqlmetrics.render(_written(form), "events", **extra)


@pytest.mark.parametrize("form", metric_names(scalar_only=True))
def test_every_listed_scalar_name_is_evaluated(form: str) -> None:
    text = _written(form)
    beyond = parse_metric(text).spec.family == "beyond"  # they take the interactions, train=
    extra: dict[str, object] = {"train": "train_events"} if beyond else {}
    assert "select" in sqlmetrics.render_evaluate("events", [text], **_columns(form), **extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        extra = {"train": FRAME} if beyond else {}
        frame = sqlmetrics.evaluate(FRAME, [text], **_columns(form), **extra)
    assert text in frame.columns and frame[text].notna().all()


def test_metric_names_are_the_forms_evaluate_takes() -> None:
    names = metric_names()
    assert "precision@k" in names and "precision_at_k@k" not in names
    assert "precision" in names  # the classifier's precision at a threshold
    assert len(names) == len(set(names)) == len(REGISTRY)
    assert sqlmetrics.metric_names() == names
    scalar = metric_names(scalar_only=True)
    assert set(scalar) < set(names) and "roc_curve" not in scalar


def test_registry_names_and_aliases_stay_accepted() -> None:
    for name, spec in REGISTRY.items():
        assert parse_metric(name, scalar_only=False).spec is spec
    for alias, name in ALIASES.items():
        assert parse_metric(alias, scalar_only=False).spec is REGISTRY[name]


def test_did_you_mean_uses_the_listed_forms() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'precision@5'") as e:
        parse_metric("precison@5")
    assert "precision@k" in str(e.value) and "precision_at_k" not in str(e.value)
