"""Nothing else lists metrics: every registered metric has its four parts, and the reverse.

A metric is its template, its registry entry with its public function, its oracle and its
tests; these assertions fail when one of them is missing or left over.
"""

from __future__ import annotations

import inspect
import math

import pytest
from docpages import page
from oracle.index import ORACLES

import sqlmetrics
from sqlmetrics._core.names import metric_form
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._templating.templates import sql_dir
from tools.docs import metrics_table

# exported functions that compute no registered metric (readers and helpers)
NOT_METRICS = {
    "compare",
    "configure",
    "convention_names",
    "evaluate",
    "metric_names",
    "render",
    "render_evaluate",
    "render_state",
    "state",
    "merge",
    "metric_anomalies",
    "off_policy_value",
    "report",
    "read_trec_qrels",
    "read_trec_run",
    "trec_eval_options",
    "register_sql",
    "registered_sql",
    "unregister_sql",
    "load_metrics_dir",
}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_metric_has_its_parts(name: str) -> None:
    spec = REGISTRY[name]
    assert (sql_dir() / spec.template).is_file(), f"{name}: no template {spec.template}"
    assert spec.function in sqlmetrics.__all__, f"{name}: {spec.function} is not exported"
    assert callable(getattr(sqlmetrics, spec.function))
    assert callable(ORACLES.get(name)), f"{name}: no oracle in tests/oracle/index.py"
    row = f"| `{metric_form(spec)}`"
    assert any(line.startswith(row) for line in metrics_table().splitlines()), name
    assert f"{row}" in page("reference/metrics.md"), f"{name}: not in the site's metric table"


def test_every_oracle_is_of_a_registered_metric() -> None:
    assert set(ORACLES) == set(REGISTRY)


def test_name_dispatched_oracles_know_their_metric() -> None:
    # the partials bound to a name must not fail on it (a typo would only show when called)
    labels, predicted = [1, 0, 1, 0], [1, 1, 0, 0]
    threshold = [n for n, s in REGISTRY.items() if "threshold" in s.params and s.output == "scalar"]
    for name in threshold:
        assert not math.isnan(ORACLES[name](labels, predicted)), name
    for name in (n for n, s in REGISTRY.items() if s.family == "multiclass" and s.average):
        assert not math.isnan(ORACLES[name](["a", "b", "a"], ["a", "b", "b"])), name
    rows = [(1, "a", 0.9, 1.0), (1, "b", 0.5, 0.0), (2, "a", 0.3, 2.0), (2, "b", 0.7, 0.0)]
    for name in (n for n, s in REGISTRY.items() if s.family == "ranking"):
        assert not math.isnan(
            ORACLES[name](rows, **({"k": 2} if REGISTRY[name].takes_k else {}))
        ), name


def test_every_exported_metric_function_is_registered() -> None:
    functions = {spec.function for spec in REGISTRY.values()}
    exported = {
        name
        for name in sqlmetrics.__all__
        if inspect.isfunction(getattr(sqlmetrics, name)) and name not in NOT_METRICS
    }
    assert exported == functions
