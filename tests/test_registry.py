"""Completeness: every template has a spec, every spec a template, a function and a docstring."""

from __future__ import annotations

import inspect
import re

import pytest

import sqlmetrics
from sqlmetrics._core.names import metric_names
from sqlmetrics._core.registry import REGISTRY, get_spec
from sqlmetrics._templating.templates import sql_dir, template_names


def test_every_template_is_registered_and_every_spec_has_a_template() -> None:
    registered = {spec.template for spec in REGISTRY.values()}
    assert set(template_names()) == registered


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_metric_has_a_documented_public_function(name: str) -> None:
    spec = REGISTRY[name]
    function = getattr(sqlmetrics, spec.function)
    assert function.__name__ in sqlmetrics.__all__
    doc = inspect.getdoc(function) or ""
    for section in ("Parameters", "Returns", "Examples"):
        assert section in doc, f"{name}: docstring lacks {section}"
    header = (sql_dir() / spec.template).read_text()
    assert header.startswith("{#") and f"{name}:" in header.split("#}")[0]


_SQL_FILES = sorted(p.relative_to(sql_dir()).as_posix() for p in sql_dir().rglob("*.sql"))
# an aggregate with its own order by (`sum(x order by x)`): BigQuery, Snowflake and Spark lack it
_ORDERED_AGGREGATE = re.compile(
    r"\b(sum|avg|list|array_agg|string_agg)\((?:[^()]|\([^()]*\))*\border by\b"
)


@pytest.mark.parametrize("path", _SQL_FILES)
def test_templates_are_portable(path: str) -> None:
    # every file under sql/, the shared macros in sql/_macros/ included; Jinja comments skipped
    text = re.sub(r"\{#.*?#\}", "", (sql_dir() / path).read_text(), flags=re.S).lower()
    for banned in ("qualify", "group by all", "list(", "array_", " filter (", "log("):
        assert banned not in text.replace("log2(", "").replace("ln(", ""), (path, banned)
    assert not _ORDERED_AGGREGATE.search(text), (path, "ordered aggregate")


def test_portability_scan_covers_macros_and_every_template() -> None:
    assert "_macros/shared/common.sql" in _SQL_FILES
    assert {REGISTRY[name].template for name in REGISTRY} <= set(_SQL_FILES)
    assert _ORDERED_AGGREGATE.search("select sum(x order by x) from t")
    assert _ORDERED_AGGREGATE.search("sum(case when a then b end order by (b))")
    assert not _ORDERED_AGGREGATE.search("sum(x) over (partition by g order by s)")


def test_unknown_metric_suggests_nearest() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'gauc'"):
        get_spec("gaucc")
    with pytest.raises(ValueError, match="known metrics: .*auc"):
        get_spec("nonsense_metric_name")


def test_metric_names_lists_registry() -> None:
    names = metric_names()
    assert "auc" in names and names == sorted(names)
    assert len(names) == len(REGISTRY)


def test_metric_spec_fields_are_typed_not_a_free_dict() -> None:
    # what used to hide in `extra`: the function's name, per-metric defaults, combined checks
    from sqlmetrics._core.registry import MetricSpec, default_of, register

    assert REGISTRY["map"].function == "mean_average_precision"
    assert REGISTRY["auc"].function == "auc"  # the name, when not given
    assert (REGISTRY["precision_macro"].function, REGISTRY["precision_macro"].average) == (
        "precision",
        "macro",
    )
    assert default_of(REGISTRY["roc_curve"], "drop_intermediate") is True
    assert default_of(REGISTRY["pr_curve"], "drop_intermediate") is False
    assert REGISTRY["map"].check_params is not None
    assert not hasattr(REGISTRY["auc"], "extra")  # no free dict left
    for spec in REGISTRY.values():
        assert spec.kernel, spec.name  # every metric is computed by a declared kernel
    bad = MetricSpec("x_bad_default", "x.sql", "x", "x", (), params=("k",), defaults={"beta": 2})
    with pytest.raises(RuntimeError, match="default for 'beta'"):
        register(bad)
    assert "x_bad_default" not in REGISTRY
