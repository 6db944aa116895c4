"""Metric facts live on ``MetricSpec`` (issue 23): the generic layers know no metric by name.

Intervals, compare, evaluate and the CLI read what they need (interval methods, paired tests,
group means, the family's data checks) from the registry; a metric's name written into one of
them as a string would be a second declaration of a fact, out of the registry's reach.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from sqlmetrics._core.registry import ALIASES, REGISTRY, Inference, get_spec
from sqlmetrics.errors import InvalidParameterError

#: the generic layers: no metric-name literal in them
GENERIC = (
    "sqlmetrics._inference.intervals",
    "sqlmetrics._inference.compare",
    "sqlmetrics._evaluate.evaluate",
    "sqlmetrics._engine.plan",
    "sqlmetrics._engine.run",
    "sqlmetrics._evaluate.wide",
    "sqlmetrics.cli._main",
    "sqlmetrics.cli._eval",
    "sqlmetrics.cli._trec",
    "sqlmetrics.cli._render",
    "sqlmetrics.cli._list",
    "sqlmetrics.cli._compare",
    "sqlmetrics.cli._report",
    "sqlmetrics.cli._engines",
    "sqlmetrics.cli._io",
    "sqlmetrics.cli._plot",
)


def _source(module: str) -> tuple[Path, str]:
    importlib.import_module(module)
    path = Path(str(inspect.getfile(importlib.import_module(module))))
    return path, path.read_text()


def _name_literals(text: str) -> list[tuple[int, str]]:
    """Every string constant of ``text`` that is a registry name or alias, or its ``@k`` form."""
    names = set(REGISTRY) | set(ALIASES)
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            if value in names or (value.partition("@")[0] in names and "@" in value):
                found.append((node.lineno, value))
    return sorted(found)


@pytest.mark.parametrize("module", GENERIC)
def test_no_metric_name_literal_in_the_generic_layers(module: str) -> None:
    path, text = _source(module)
    found = _name_literals(text)
    assert not found, (
        f"{path.name} names metrics as string literals (line, name): {found}; declare the "
        f"fact on MetricSpec (registry.Inference, DataChecks, ...) and read it from the spec"
    )


def test_the_scan_finds_a_name_literal() -> None:
    # the check above can fail: a literal like today's `spec.name == "auc"` is found
    assert _name_literals('if spec.name == "auc" or x in ("ndcg@10",):\n    pass\n') == [
        (1, "auc"),
        (1, "ndcg@10"),
    ]


@pytest.mark.parametrize(
    "module",
    ["sqlmetrics._evaluate.evaluate", "sqlmetrics._engine.plan", "sqlmetrics._inference.compare"],
)
def test_evaluate_and_compare_do_not_import_the_ranking_family(module: str) -> None:
    # they reach the ranking checks (and qrels' roles) through MetricSpec.data_checks
    _, text = _source(module)
    imported = [
        node.module
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert not [m for m in imported if m.split(".")[-1] in ("ranking", "retrieval")], imported


def test_every_ranking_kernel_metric_declares_the_ranking_checks() -> None:
    ranking = [s for s in REGISTRY.values() if s.kernel == "ranking_kernel"]
    assert ranking
    checks = {id(s.data_checks) for s in ranking}
    assert len(checks) == 1 and all(s.data_checks is not None for s in ranking)
    assert "qrels" in ranking[0].data_checks.inputs  # type: ignore[union-attr]
    assert all(s.data_checks is None for s in REGISTRY.values() if s.kernel != "ranking_kernel")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_declared_facts_are_consistent(name: str) -> None:
    facts = REGISTRY[name].inference
    assert facts.ci_methods and "bootstrap" in facts.ci_methods
    if facts.proportion or "wilson" in facts.ci_methods:
        assert "wilson" in facts.ci_methods
    if "t" in facts.ci_methods:  # t is over per-group values, or over the rows' losses
        assert (facts.group_mean is None) != (facts.row_mean is None)
    if facts.paired == "groups":
        assert facts.group_mean is not None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ci_methods": ("wald",)}, "ci_methods"),
        ({"ci_methods": ()}, "ci_methods"),
        ({"group_mean": "median"}, "group_mean"),
        ({"paired": "groups"}, "tests"),
        ({"paired": "losses", "tests": ("t",)}, "loss"),
        ({"paired": "ranks", "tests": ("t",)}, "paired"),
        ({"row_mean": "abs"}, "row_mean"),
        ({"paired": "losses", "tests": ("t",), "loss": "ll", "row_mean": "sq"}, "row_mean"),
    ],
)
def test_inference_refuses_facts_no_layer_can_act_on(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(RuntimeError, match=match):
        Inference(**kwargs)  # type: ignore[arg-type]


def test_the_facts_decide_the_methods_and_tests() -> None:
    from sqlmetrics._inference import intervals as intervals

    assert intervals.methods_for(get_spec("auc"), {"weight": "w"}) == ("bootstrap",)
    assert intervals.methods_for(get_spec("spearman"), {"group": None}) == ("bootstrap",)
    assert intervals.methods_for(get_spec("spearman"), {"group": "g"}) == ("t", "bootstrap")
    assert intervals.methods_for(get_spec("hit_rate")) == ("wilson", "t", "bootstrap")
    assert intervals.methods_for(get_spec("gm_map")) == ("bootstrap",)
    assert get_spec("accuracy").inference.tests == ("mcnemar", "bootstrap")
    assert get_spec("precision").inference.tests == ("bootstrap",)
    with pytest.raises(InvalidParameterError, match=r"ci_method='t'.*pass group="):
        intervals.check_method(get_spec("kendall_tau"), "t", {"group": None})


def test_direction_is_declared_with_the_metric() -> None:
    assert get_spec("auc").better == "higher"
    assert {get_spec(n).better for n in ("log_loss", "brier_score", "fpr", "hamming_loss")} == {
        "lower"
    }
    assert get_spec("calibration_ratio").better == "neither"  # best at 1
    assert {s.better for s in REGISTRY.values()} <= {"higher", "lower", "neither"}


def test_register_refuses_an_unknown_direction() -> None:
    from sqlmetrics._core.registry import MetricSpec, register

    spec = MetricSpec("facts_probe", "x.sql", "user", "probe", (), better="up")
    with pytest.raises(RuntimeError, match="better='up'"):
        register(spec)
    assert "facts_probe" not in REGISTRY


@pytest.mark.parametrize(
    ("metric", "lines"),
    [
        (
            "accuracy",
            [
                "  better: higher",
                "  intervals (--ci-method): wilson, bootstrap (default wilson)",
                "  paired tests (compare --test): mcnemar, bootstrap (default mcnemar)",
            ],
        ),
        ("log_loss", ["  better: lower", "  paired tests (compare --test): t (default t)"]),
        (
            "auc_bounds",
            ["  intervals (--ci-method): none", "  paired tests (compare --test): none"],
        ),
    ],
)
def test_the_cli_card_shows_the_declared_facts(metric: str, lines: list[str]) -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    result = CliRunner().invoke(cli.main, ["list", metric])
    assert result.exit_code == 0, result.output
    shown = result.output.splitlines()
    for line in lines:
        assert line in shown


def _graded(top: int) -> object:
    import pandas as pd

    return pd.DataFrame(
        {
            "q": [1, 1, 1, 2, 2, 2],
            "doc": [1, 2, 3, 1, 2, 3],
            "a": [0.9, 0.8, 0.7, 0.9, 0.8, 0.7],
            "b": [0.7, 0.8, 0.9, 0.7, 0.9, 0.8],
            "rel": [top, 0, 2, 0, 0, 1],
        }
    )


@pytest.mark.parametrize("form", ["scores", "runs", "qrels"])
def test_compare_runs_the_ranking_familys_gain_check(form: str) -> None:
    import sqlmetrics

    frame = _graded(1024)
    kwargs: dict[str, object] = {"group": "q", "item": "doc", "label": "rel"}
    if form == "scores":
        kwargs.update(data=frame, scores=["a", "b"])
    else:
        runs = {m: frame[["q", "doc", m, "rel"]].rename(columns={m: "score"}) for m in "ab"}
        kwargs["runs"] = runs
        if form == "qrels":
            kwargs["runs"] = {m: r.drop(columns="rel") for m, r in runs.items()}
            kwargs["qrels"] = frame[["q", "doc", "rel"]]
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"compare: label column 'rel' \(label=\) has 1 value\(s\) >= 960",
    ):
        sqlmetrics.compare(metrics=["ndcg@2"], **kwargs)  # type: ignore[arg-type]
    ok = sqlmetrics.compare(metrics=["ndcg@2"], gain="linear", **kwargs)  # type: ignore[arg-type]
    assert list(ok["model"]) == ["a", "b"]
