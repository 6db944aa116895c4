"""Completeness: every template has a spec, every spec a template, a function and a docstring."""

from __future__ import annotations

import inspect

import pytest

import sqlmetrics
from sqlmetrics._templates import sql_dir, template_names
from sqlmetrics.registry import REGISTRY, get_spec, metric_names


def test_every_template_is_registered_and_every_spec_has_a_template() -> None:
    registered = {spec.template for spec in REGISTRY.values()}
    assert set(template_names()) == registered


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_metric_has_a_documented_public_function(name: str) -> None:
    spec = REGISTRY[name]
    function = getattr(sqlmetrics, spec.extra.get("function", name))
    assert function.__name__ in sqlmetrics.__all__
    doc = inspect.getdoc(function) or ""
    for section in ("Parameters", "Returns", "Examples"):
        assert section in doc, f"{name}: docstring lacks {section}"
    header = (sql_dir() / spec.template).read_text()
    assert header.startswith("{#") and f"{name}:" in header.split("#}")[0]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_templates_are_portable(name: str) -> None:
    text = (sql_dir() / REGISTRY[name].template).read_text().lower()
    for banned in ("qualify", "group by all", "list(", "array_", " filter (", "log("):
        assert banned not in text.replace("log2(", "").replace("ln(", ""), (name, banned)


def test_unknown_metric_suggests_nearest() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'gauc'"):
        get_spec("gaucc")
    with pytest.raises(ValueError, match="known metrics: .*auc"):
        get_spec("nonsense_metric_name")


def test_metric_names_lists_registry() -> None:
    names = metric_names()
    assert "auc" in names and names == sorted(names)
    assert len(names) == len(REGISTRY)
