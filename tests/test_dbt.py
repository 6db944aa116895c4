"""The dbt package (the repository root, decision 0009) and its integration tests project
(``integration_tests/``).

dbt runs as users run it: the venv's ``dbt`` executable in a subprocess, on a copy of the
integration tests project in a temporary folder, with ``DBT_PROFILES_DIR``, ``--target-path``
and ``--log-path`` there too (nothing is written into the repository or the home folder).
DuckDB and the throwaway PostgreSQL server of ``tests/pg_server.py`` are both run; the
PostgreSQL project installs the package from a git URL (a repository of this checkout's
files), the others from the checkout (``local:``).
The error-message cases (about 50 ``dbt compile --inline`` calls that must fail) run in one
dbt process (tests/dbt_inline.py): dbt's own programmatic entry point parses the project once
and compiles each call; one process per call cost about 5 s each.
Every scalar metric's value from its dbt macro is compared with the Python API's on the
same rows (1e-9).
"""

from __future__ import annotations

import inspect
import json
import math
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import jinja2
import pandas as pd
import pytest
import yaml
from docpages import page

import sqlmetrics
from sqlmetrics._core.conventions import fill, resolve
from sqlmetrics._core.names import metric_form, parse_metric
from sqlmetrics._core.registry import PARAMS, REGISTRY, MetricSpec, get_spec
from sqlmetrics._engine.run import check_params
from sqlmetrics._evaluate import monitor
from sqlmetrics._templating import templates as _templates
from sqlmetrics.errors import InvalidDataError, SqlMetricsError
from tools import dbt as _dbt

pytestmark = pytest.mark.dbt

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT  # the repository root is the dbt package
MACROS = ROOT / "dbt" / "macros"  # its dbt-only macros
EXAMPLE = ROOT / "integration_tests"
DBT = Path(sys.executable).parent / "dbt"
SCHEMA = "sqlmetrics_integration_tests"  # integration_tests/profiles.yml


# --------------------------------------------------------------------------- generated files
# (their freshness: tests/test_dbt_generated.py, in the fast tier)
def test_templates_are_already_qualified() -> None:
    """Running the qualifier changes nothing: every call between templates in sql/ is written
    sqlmetrics.<macro>(...), as dbt needs it (run `python -m tools.dbt` after writing a
    template with bare calls).
    """
    assert _dbt.unqualified() == []
    names = _dbt.template_macros()
    for path, (text, new) in _dbt._qualified(ROOT).items():
        assert new == text, path
        assert _dbt.qualify(new, names) == new  # idempotent


def test_the_package_reads_its_macros_from_sql() -> None:
    """The root dbt_project.yml is the package: macros from sql/ (the templates themselves)
    and dbt/macros/ (dbt only), nothing else of the repository a dbt resource (tests/ holds
    golden SQL that dbt would otherwise take for data tests).
    """
    project = yaml.safe_load((ROOT / "dbt_project.yml").read_text())
    assert project["name"] == "sqlmetrics"
    assert project["macro-paths"] == ["sql", "dbt/macros"]
    for key in ("model-paths", "seed-paths", "test-paths", "analysis-paths", "snapshot-paths"):
        assert project[key] == [], key
    files = _dbt.generated_files()
    for name in REGISTRY:
        assert f"dbt/macros/metrics/{name}.sql" in files
    assert set(_dbt.registry_facts()["metrics"]) == set(REGISTRY)
    assert not (ROOT / "dbt" / "dbt_project.yml").exists()


def test_qualify_only_touches_calls_in_jinja_tags() -> None:
    text = (
        "{% macro slice_cols(by) -%}x{%- endmacro %}\n"
        "select slice_cols(a) from t -- SQL text is left alone\n"
        "{# a comment: {{ slice_cols(by) }} #}\n"
        "{{ slice_cols(by) }} {{ sqlmetrics.slice_cols(by) }} {{ my_slice_cols(by) }}\n"
        "{% set x = slice_cols (by) %}{{ 'slice_cols(a)' ~ \"it's slice_cols(\" }}"
    )
    want = (
        "{% macro slice_cols(by) -%}x{%- endmacro %}\n"
        "select slice_cols(a) from t -- SQL text is left alone\n"
        "{# a comment: {{ slice_cols(by) }} #}\n"
        "{{ sqlmetrics.slice_cols(by) }} {{ sqlmetrics.slice_cols(by) }} {{ my_slice_cols(by) }}\n"
        "{% set x = sqlmetrics.slice_cols(by) %}{{ 'slice_cols(a)' ~ \"it's slice_cols(\" }}"
    )
    assert _dbt.qualify(text, {"slice_cols"}) == want
    assert _dbt.qualify(want, {"slice_cols"}) == want


def test_qualified_names_reach_the_macros_in_python() -> None:
    """In Python, sqlmetrics.<name> is an attribute lookup on the namespace mapping that falls
    back to its items: a macro named like an attribute of the mapping (``get``, ``items``) or
    a global of Jinja (``range``) would be shadowed.
    """
    namespace = _templates.environment().globals["sqlmetrics"]
    names = _dbt.template_macros()
    assert {n for n in names if hasattr(namespace, n)} == set()
    assert not names & set(jinja2.Environment().globals)
    assert names <= set(namespace)


def test_jinja_literal_round_trips() -> None:
    value = {"a": [1, 2.5, None, True, "it's"], "b": {}, "c": [], "d": [{"e": False}]}
    env = jinja2.Environment()
    assert env.from_string("{{ x == " + _dbt.jinja_literal(value) + " }}").render(x=value) == "True"
    with pytest.raises(ValueError, match="no Jinja literal"):
        _dbt.jinja_literal(math.inf)
    with pytest.raises(TypeError, match="no Jinja literal"):
        _dbt.jinja_literal(object())


def _variants(spec: MetricSpec) -> list[dict[str, Any]]:
    """Renders of a metric covering its weighted / sliced / option branches."""
    roles = {r.name: r.name for r in spec.roles if r.required or r.name == "label"}
    out = [dict(roles), dict(roles, by=["country", "day"])]
    if "weight" in spec.role_names:
        out.append(dict(roles, weight="w"))
    if spec.takes_k:
        out.append(dict(roles, k=5))
    return out


def _render(spec: MetricSpec, params: dict[str, Any]) -> str:
    """render(), or for a beyond-accuracy metric (which needs train=, a second input render
    does not take) render_evaluate with train=.
    """
    if spec.family == "beyond":
        return sqlmetrics.render_evaluate("t", [spec.name], train="train_t", **params)
    return sqlmetrics.render(spec.name, "t", **params)


def test_bare_and_qualified_calls_render_the_same_sql(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the Python environment, sql/ with its calls written bare (as before they were
    qualified for dbt) renders exactly the SQL that sql/ renders: qualifying changes no meaning.
    """
    cases = [(spec, params) for spec in REGISTRY.values() for params in _variants(spec)]
    expected = [_render(spec, params) for spec, params in cases]
    bare = tmp_path / "sql"
    names = _dbt.template_macros()
    call = re.compile(r"(?<![\w.])sqlmetrics\.(" + "|".join(names) + r")\s*\(")
    n_calls = 0
    for path in _templates.sql_files():
        text = (ROOT / "sql" / path).read_text()
        n_calls += len(call.findall(text))
        (bare / path).parent.mkdir(parents=True, exist_ok=True)
        (bare / path).write_text(call.sub(r"\1(", text))
        assert _dbt.qualify((bare / path).read_text(), names) == text, path
    monkeypatch.setattr(_templates, "sql_dir", lambda: bare)
    _templates.environment.cache_clear()
    try:
        got = [_render(spec, params) for spec, params in cases]
    finally:
        monkeypatch.undo()
        _templates.environment.cache_clear()
    assert len(cases) > 100 and n_calls > 300
    for (spec, params), want, have in zip(cases, expected, got):
        assert have == want, (spec.name, params)


# --------------------------------------------------------------------------- Jinja helpers
def _names_module() -> Any:
    """dbt/macros/core/names.sql in a plain Jinja environment (its writing macros only)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    namespace: dict[str, Any] = {}
    env.globals["sqlmetrics"] = namespace
    module = env.from_string((MACROS / "core" / "names.sql").read_text()).module
    namespace.update({k: v for k, v in vars(module).items() if isinstance(v, jinja2.runtime.Macro)})
    return namespace


@pytest.mark.parametrize(
    "value", ["auc", "it's", 'say "x"', 0.5, 10, True, False, None, ["a", 1], {"k": 2.5}]
)
def test_repr_is_pythons(value: Any) -> None:
    assert str(_names_module()["sqlmetrics_repr"](value)) == repr(value)


class _Return(Exception):  # dbt's `return`: a macro's value, raised to its caller
    def __init__(self, value: Any) -> None:
        self.value = value


class _CompilerError(Exception):
    pass


def _raise_compiler_error(message: str) -> None:
    raise _CompilerError(message)


def _return(value: Any) -> None:
    raise _Return(value)


def _checks_module() -> dict[str, Any]:
    """dbt/macros/core/checks.sql with names.sql and the generated registry facts in a plain
    Jinja environment, with dbt's ``return`` (a macro's value) and ``raise_compiler_error``.
    """
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    namespace: dict[str, Any] = {}
    env.globals.update(
        {
            "sqlmetrics": namespace,
            "modules": type("M", (), {"re": re}),
            "return": _return,
            "exceptions": type(
                "E", (), {"raise_compiler_error": staticmethod(_raise_compiler_error)}
            ),
        }
    )
    files = (
        "core/names.sql",
        "core/ir_names.sql",
        "core/checks.sql",
        "tests/metric_anomaly_options.sql",
        "_generated/registry.sql",
        "_generated/checks.sql",
    )
    module = env.from_string("\n".join((MACROS / f).read_text() for f in files)).module

    def returning(macro: Any) -> Any:
        def call(*args: Any) -> Any:
            try:
                return macro(*args)
            except _Return as returned:
                return returned.value

        return call

    for name, value in vars(module).items():
        if isinstance(value, jinja2.runtime.Macro):
            namespace[name] = returning(value)
    return namespace


def _no_hint(message: str) -> str:
    """Python's message without its "did you mean" hint (difflib's close match): the dbt
    macros leave it out and list the valid names, as the message does after it.
    """
    message = re.sub(r" \(did you mean [^)]*\?\)", "", message)
    message = re.sub(r"did you mean [^?]*\? (?=[a-z])", "", message)
    return re.sub(r"; did you mean [^?]*\?", "", message)


def _outcome(call: Any, args: tuple[Any, ...], error: type[Exception]) -> tuple[str, Any]:
    """``('ok', call(*args))`` (tuples as lists, NaN as a string) or ``('error', message)``."""
    try:
        value = call(*args)
    except error as exc:
        return "error", _no_hint(str(exc))

    def plain(v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return "nan" if isinstance(v, float) and math.isnan(v) else v

    return "ok", plain(value)


#: values tried on every option: each kind of wrong, the edges of the ranges, lists for labels=
OPTION_VALUES = [
    None, True, False, 0, 1, 2, 3, -1, 0.0, 0.5, 1.0, 1.5, 2.5, 0.9, 1e-300, 1e155, 1e300,
    2**31, 2**40, math.nan, math.inf, -math.inf, "x", "", "auto", "warn", "linear", "quad",
    "item_desc", "averag", [], ["a", "a"], ["b", "a", "b"], [1, 1.0], ["a", 1], ["a", "b"],
    [1, 2.0], [True], [None], {"a": 1}, {2: 3, 0: 0, 1: 1.5}, {1.5: 1}, {1: "3"}, {True: 1},
    {1: math.inf}, {2**60: 1}, {},
]  # fmt: skip


def test_option_checks_are_pythons() -> None:
    """Every option's Jinja check (checks.sql over the generated rules and messages) accepts
    what Python's accepts, gives the value Python's gives, and refuses with Python's message
    (less its "did you mean"), on each value of OPTION_VALUES and the option's allowed values
    and default; the interval options (ci=, ...) too. (It found labels=' message for a class
    given twice out of date.)
    """
    checks = _checks_module()
    tried = 0
    for name, param in PARAMS.items():
        # the interval options (ci=, ...): checked for a scalar metric by intervals.sql
        spec = next((s for s in REGISTRY.values() if name in s.params), get_spec("auc"))
        for value in [*OPTION_VALUES, *getattr(param.check, "allowed", ()), param.default]:
            want = _outcome(param.validate, (spec.name, value), SqlMetricsError)
            jinja = checks["sqlmetrics_check_option"]
            got = _outcome(jinja, (spec.name, name, value), _CompilerError)
            assert got == want, (name, value)
            tried += 1
    assert tried > 1000


def test_check_params_is_pythons() -> None:
    """sqlmetrics_check_params fills every metric's defaults as check_params does, refuses an
    option the metric does not take, and runs the same cross-option checks with Python's text.
    """
    checks = _checks_module()
    cases = [(spec, {}) for spec in REGISTRY.values()]
    cases += [(spec, {"threshold_x": 1}) for spec in REGISTRY.values()]
    cases += [
        (get_spec("map"), {"ties": "average", "ap_denominator": "hits"}),
        (get_spec("bpref"), {"ties": "average"}),
        (get_spec("hit_ratio"), {"k": 5, "empty": "one"}),
        (get_spec("err"), {"k": 5, "ties": "average"}),
        (get_spec("num_rel"), {"empty": "one"}),
        (get_spec("ndcg"), {"k": 5, "gains": {2: 3, 0: 0}, "judged_only": True}),
        (get_spec("multiclass_auc"), {"multi_class": "ovo", "auc_average": "micro"}),
        (get_spec("multiclass_auc"), {"multi_class": "ovo", "auc_average": "weighted"}),
    ]
    for spec, params in cases:
        want = _outcome(check_params, (spec, params), SqlMetricsError)
        got = _outcome(checks["sqlmetrics_check_params"], (spec.name, params), _CompilerError)
        assert got == want, (spec.name, params)


#: ir_measures' names as users write them, right and wrong (each error of ir_names.py)
IR_TEXTS = [
    "nDCG@10", "P(rel=2)@5", "AP@100", "RR(rel=2)", "R@1000", "Rprec", "Bpref", "Success@5",
    "nDCG(dcg='exp-log2')@10", 'nDCG(dcg="log2", rel=2)@10', "IPrec@0.2", "IPrec@1", "AP",
    "RR", "nDCG", "P( rel = 2 )@5", "RR(rel=2,)", " nDCG@10 ", "P@5", "ndcg@10", "map",
    "nDGC@10", "Succes@5", "P(rell=2)@5", "RR(rel=0)", "RR(rel=2.0)", "RR(rel=True)",
    "nDCG(dcg='exp')@10", "nDCG(dcg=2)@10", "P(rel=two)@5", "P(2)@5", "P(rel=2", "Rprec@10",
    "P@0", "P@x", "IPrec@1.5", "IPrec@x", "Bpref(rel=2)", "AP(judged_only=True)",
    "RR(rel=1, rel=2)", "nDCG(gains={0:0,1:1,2:3})@10", "P(rel=2)@5@5", "P(rel=)@5",
    "P(=2)@5", "RR(rel=-1)", "RR(rel=+2)", "IPrec@.2", "IPrec@nan", "IPrec@2e-1",
    "P(rel=None)@5", "P(rel={1:2})@5", "P(rel='2')@5", "P(rel=2)@05", "nDCG(gain=1)@10",
    "nDCG(gains={0:'a'})@10", "nDCG(gains={0:0,1:1,2:3}, dcg='exp-log2')@10",
    "AP(judged_only=1)", "AP(judged_only=True)@10",
    "ERR(rel=2)@5", "Judged(rel=2)@5", "Bpref(judged_only=True)", "NumQ(rel=2)",
]  # fmt: skip


def test_ir_names_are_pythons() -> None:
    """dbt's parser of ir_measures' names (core/ir_names.sql, in names.sql's parse_metric)
    gives Python's metric, cut-off and options for every name of IR_TEXTS, and refuses with
    Python's message (unknown names with the same hints, bad parameters, bad cut-offs).
    """
    checks = _checks_module()

    def python(text: str) -> dict[str, Any]:
        req = parse_metric(text, "evaluate")
        return {"text": req.text, "name": req.spec.name, "k": req.k, "params": dict(req.params)}

    for text in IR_TEXTS:
        want = _outcome(python, (text,), SqlMetricsError)
        got = _outcome(checks["sqlmetrics_parse_metric"], (text, "evaluate"), _CompilerError)
        assert got == want, text
    assert sum(_outcome(python, (t,), SqlMetricsError)[0] == "ok" for t in IR_TEXTS) >= 20


# --------------------------------------------------------------------------- running dbt
@dataclass
class Project:
    """A copy of the example project with its profile, ready for dbt commands."""

    root: Path
    target: str
    env: dict[str, str]

    def _env(self) -> dict[str, str]:
        env = dict(
            os.environ,
            DBT_PROFILES_DIR=str(self.root / "project"),  # the example's own profiles.yml
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            **self.env,
        )
        env.pop("DBT_TARGET_PATH", None)
        return env

    def _options(self, command: str) -> list[str]:
        """The options ``command`` takes here (``deps`` writes no target folder)."""
        options = ["--target", self.target, "--log-path", str(self.root / "logs")]
        if command != "deps":
            options += ["--target-path", str(self.root / "target")]
        return options

    def dbt(
        self, *args: str, check: bool = True, timeout: int = 900
    ) -> subprocess.CompletedProcess[str]:
        command = [str(DBT), *args, *self._options(args[0])]
        done = subprocess.run(
            command,
            cwd=self.root / "project",
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"dbt {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done

    def compile_inline(self, calls: list[str]) -> dict[str, Compiled]:
        """Each of ``calls`` compiled as ``dbt compile --inline "{{ call }}"`` would, all in one
        dbt process that parses the project once (tests/dbt_inline.py): dbt's outcome and output
        per call."""
        tmp = self.root / "inline"
        tmp.mkdir(exist_ok=True)
        options = self._options("compile")
        (tmp / "in.json").write_text(json.dumps({"args": options, "calls": calls}))
        helper = Path(__file__).parent / "dbt_inline.py"
        done = subprocess.run(
            [sys.executable, str(helper), str(tmp / "in.json"), str(tmp / "out.json")],
            cwd=self.root / "project",
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise AssertionError(f"{helper.name} failed:\n{done.stdout}\n{done.stderr}")
        outcomes = json.loads((tmp / "out.json").read_text())
        return {call: Compiled(o["success"], o["output"]) for call, o in outcomes.items()}


@dataclass(frozen=True)
class Compiled:
    """One call's ``dbt compile --inline`` outcome: whether dbt succeeded, and what it logged
    (with the error it raised)."""

    success: bool
    output: str


#: the columns each family reads in the example data
BINARY = {"label": "click", "score": "pctr"}
RANKING = {"group": "query_id", "item": "doc_id", "label": "rel", "score": "score"}
MULTICLASS = {"label": "segment", "prediction": "segment_predicted"}


#: the long table of class scores (integration_tests/models/segment_scores.sql): one group per
#: prediction row, one item per class
CLASS_SCORES = {"group": "row_id", "item": "class", "score": "class_score", "label": "is_true"}
#: beyond-accuracy metrics: the recommendations' item column; train= is the click log seed
BEYOND = {"item": "item_id"}
TRAIN = "ctr"


def parity_call(spec: MetricSpec) -> tuple[str, dict[str, Any], str, str]:
    """(model relation, the call's arguments, the slice column, the metric as evaluate takes
    it) for one scalar metric's parity model; weighted where the metric takes weights.
    ``train`` in the arguments is the name of a model or seed (``ref`` in dbt).
    """
    roles = spec.role_names
    if spec.kernel == "ranking_kernel":  # the ranking metrics and the retrieval extras
        args: dict[str, Any] = dict(RANKING)
        if spec.takes_k:
            args["k"] = 5
        form = metric_form(spec).replace("@k", "@5")
        return "search_runs", args, "half", form
    if spec.family == "beyond":
        return "predictions", dict(BEYOND, train=TRAIN), "country", spec.name
    if spec.family == "multiclass_scores":
        args = dict(CLASS_SCORES)
        if spec.takes_k:
            args["k"] = 2
        if "weight" in roles:
            args["weight"] = "weight"
        return "segment_scores", args, "country", metric_form(spec).replace("@k", "@2")
    if spec.family == "multiclass":
        args = dict(MULTICLASS)
    else:
        args = dict(BINARY)
        if "group" in roles:
            args["group"] = "user_id"
        if "threshold" in spec.params:
            args["threshold"] = 0.3
        if "bins" in spec.params:
            args["bins"] = 64
    if "weight" in roles:
        args["weight"] = "weight"
    return "predictions", args, "country", spec.name


def _jinja_args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}=ref({v!r})" if k == "train" else f"{k}={v!r}" for k, v in args.items())


SCALARS = sorted(name for name, spec in REGISTRY.items() if spec.output == "scalar")
EVALUATED = [
    "auc", "gauc", "accuracy", "precision", "recall", "specificity", "fpr", "f1", "fbeta",
    "log_loss", "brier_score", "average_precision", "auc_bounds",
]  # fmt: skip

#: GAUC and ranking metrics in one call: a group count column each (issue 22)
GROUPED = ["gauc", "ndcg@10", "mrr"]

_RANKING_ARGS = "group='query_id', item='doc_id', label='rel', score='score'"
_RANKED = ["ndcg@10", "map@10", "mrr", "precision@5", "recall@5", "hit_rate@5", "r_precision"]

#: model -> (the dbt call with convention=, the Python call on the model's relation)
CONVENTION_MODELS: dict[str, tuple[str, Any]] = {
    "conv_ndcg_trec_eval": (
        f"ndcg(ref('search_runs'), {_RANKING_ARGS}, k=5, convention='trec_eval')",
        lambda read: sqlmetrics.ndcg(
            read("search_runs"), k=5, convention="trec_eval", **RANKING
        ),
    ),
    "conv_map_trec_eval_by": (
        f"map(ref('search_runs'), {_RANKING_ARGS}, k=10, "
        "convention='trec_eval', relevance_level=2, by='half')",
        lambda read: sqlmetrics.evaluate(
            read("search_runs"), ["map@10"], by="half", convention="trec_eval",
            relevance_level=2, **RANKING,
        ).rename(columns={"map@10": "map"}),
    ),
    "conv_evaluate_ranx": (
        f"evaluate(ref('search_runs'), metrics={_RANKED!r}, {_RANKING_ARGS}, by='half', "
        "convention='ranx')",
        lambda read: sqlmetrics.evaluate(
            read("search_runs"), _RANKED, by="half", convention="ranx", **RANKING
        ),
    ),
    "conv_mrr_torchmetrics": (
        f"mrr(ref('search_runs'), {_RANKING_ARGS}, k=3, convention='torchmetrics', "
        "empty='one')",
        lambda read: sqlmetrics.mrr(
            read("search_runs"), k=3, convention="torchmetrics", empty="one", **RANKING
        ),
    ),
    # ir_measures' RR@k: msmarco's order of ties (Convention.with_cutoff), in dbt too
    "conv_mrr_ir_measures": (
        f"mrr(ref('search_runs'), {_RANKING_ARGS}, k=3, convention='ir_measures')",
        lambda read: sqlmetrics.mrr(
            read("search_runs"), k=3, convention="ir_measures", **RANKING
        ),
    ),
    "conv_evaluate_sklearn": (
        "evaluate(ref('predictions'), metrics=['precision', 'recall', 'f1'], label='click', "
        "score='pctr', threshold=0.98, by='country', convention='sklearn')",
        lambda read: sqlmetrics.evaluate(
            read("predictions"), ["precision", "recall", "f1"], label="click", score="pctr",
            threshold=0.98, by="country", convention="sklearn",
        ),
    ),
}  # fmt: skip


#: ir_measures' names in dbt's evaluate (dbt/macros/core/ir_names.sql): model -> (the
#: names, evaluate's other arguments); two metrics whose names fix different options
#: (P(rel=2)@5 and nDCG@10) run in two parts of the ranking kernel, as in Python
IR_NAMES = [
    "nDCG@10", "P(rel=2)@5", "AP@100", "RR(rel=2)", "R@1000", "Rprec", "Bpref",
    "Success@5", "nDCG(dcg='exp-log2')@10", "map@100",
]  # fmt: skip
IR_MODELS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "ir_names": (IR_NAMES, {}),
    "ir_names_convention": (
        ["nDCG@5", "RR@3", "P(rel=2)@5", "AP"], {"by": "half", "convention": "ir_measures"}
    ),
    # IPrec@p: trec_eval 9's recall levels (recall_rounding='trec_eval_9'), set by the convention
    "ir_names_iprec": (
        ["IPrec@0.2", "IPrec@0.6", "IPrec(rel=2)@0.3"], {"convention": "ir_measures"}
    ),
}  # fmt: skip


#: the positive class of the model text_pos_label, written into SQL by string_literal
TEXT_POS_LABEL = "a  \nb\\'x"


def write_parity_models(project: Path) -> None:
    """One model per scalar metric (its own macro, sliced) and one evaluate model."""
    folder = project / "models" / "parity"
    folder.mkdir()
    for name in SCALARS:
        relation, args, by, _ = parity_call(REGISTRY[name])
        (folder / f"m_{name}.sql").write_text(
            f"{{{{ sqlmetrics.{name}(ref('{relation}'), {_jinja_args(args)}, by='{by}') }}}}\n"
        )
    (folder / "evaluated.sql").write_text(
        f"{{{{ sqlmetrics.evaluate(ref('predictions'), metrics={EVALUATED!r}, label='click', "
        f"score='pctr', group='user_id', threshold=0.3, bins=64, by=['country']) }}}}\n"
    )
    (folder / "evaluated_grouped.sql").write_text(
        f"{{{{ sqlmetrics.evaluate(ref('predictions'), metrics={GROUPED!r}, label='click', "
        f"score='pctr', group='user_id', item='item_id', duplicates='max', by=['country']) }}}}\n"
    )
    for model, (names, extra) in IR_MODELS.items():
        (folder / f"{model}.sql").write_text(
            f"{{{{ sqlmetrics.evaluate(ref('search_runs'), metrics={names!r}, {_RANKING_ARGS}"
            + "".join(f", {k}={v!r}" for k, v in extra.items())
            + ") }}\n"
        )
    for model, (call, _) in CONVENTION_MODELS.items():
        (folder / f"{model}.sql").write_text(f"{{{{ sqlmetrics.{call} }}}}\n")
    # a text pos_label with a line break, trailing spaces, a backslash and a quote (issue 22)
    (folder / "text_labels.sql").write_text(
        "select case when click = 1 then 'a  ' || chr(10) || 'b' || chr(92) || chr(39) || 'x'"
        " else 'neg' end as y, pctr from {{ ref('predictions') }}\n"
    )
    (folder / "text_pos_label.sql").write_text(
        "{{ sqlmetrics.auc(ref('text_labels'), label='y', score='pctr', "
        + f"pos_label={TEXT_POS_LABEL!r}) }}}}\n"
    )


def make_project(tmp: Path, target: str, env: dict[str, str], package: str) -> Project:
    """A copy of the integration tests project under ``tmp`` with ``package``
    (a packages.yml entry) and the parity models; ``env`` fills the profile's variables.
    """
    root = tmp / target
    project = root / "project"
    shutil.copytree(
        EXAMPLE,
        project,
        ignore=shutil.ignore_patterns(
            "dbt_packages", "target", "logs", "*.duckdb", "package-lock.yml", ".user.yml"
        ),
    )
    # the seeds are the Python examples' CSV files (seed-paths: ../examples/data)
    shutil.copytree(ROOT / "examples" / "data", root / "examples" / "data")
    (project / "packages.yml").write_text(f"packages:\n{package}")
    write_parity_models(project)
    return Project(root, target, env)


def checkout_files() -> list[str]:
    """The files of this checkout a clone would hold (tracked or new, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [p for p in listed.split("\0") if p and (ROOT / p).is_file()]


def git_package(tmp: Path) -> str:
    """A git repository of this checkout's files (the package at its root, as decision 0009
    has it), as a user's packages.yml names it: dbt clones all of it.
    """
    repo = tmp / "repo"
    for path in checkout_files():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, repo / path)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")  # fmt: skip
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "pkg"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True)
    return f'  - git: "file://{repo}"\n    revision: main\n'


@dataclass
class Built:
    project: Project
    read: Any  # relation name -> DataFrame
    build: subprocess.CompletedProcess[str]


def _build(project: Project) -> subprocess.CompletedProcess[str]:
    project.dbt("deps")
    # the Python model runs in its own test (test_python_model_runs_the_api_on_dbt_duckdb)
    return project.dbt("build", "--exclude", "tag:deliberately_failing", "auc_python")


@pytest.fixture(scope="module")
def duckdb_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    tmp = tmp_path_factory.mktemp("dbt_duckdb")
    path = tmp / "example.duckdb"
    env = {"SQLMETRICS_DUCKDB_PATH": str(path)}
    project = make_project(tmp, "duckdb", env, f"  - local: '{PACKAGE}'\n")
    build = _build(project)

    def read(name: str, schema: str = SCHEMA) -> pd.DataFrame:
        with duckdb.connect(str(path), read_only=True) as con:
            return con.execute(f'select * from {schema}."{name}"').df()

    yield Built(project, read, build)


@pytest.fixture(scope="module")
def postgres_build(
    tmp_path_factory: pytest.TempPathFactory, pg_server: Any, pg_engine: Any
) -> Iterator[Built]:
    tmp = tmp_path_factory.mktemp("dbt_postgres")
    env = {
        "PGHOST": pg_server.host,
        "PGPORT": str(pg_server.port),
        "PGUSER": pg_server.user,
        "PGPASSWORD": "",
        "PGDATABASE": pg_server.database,
    }
    project = make_project(tmp, "postgres", env, git_package(tmp))
    build = _build(project)

    def read(name: str, schema: str = SCHEMA) -> pd.DataFrame:
        return pd.read_sql(f'select * from {schema}."{name}"', pg_engine)

    yield Built(project, read, build)


@pytest.fixture(scope="module")
def spark_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The example's click-log models on dbt-spark (method: session, local pyspark); tables are
    Parquet files of ./spark-warehouse, read back with DuckDB.
    """
    tmp = tmp_path_factory.mktemp("dbt_spark")
    project = make_project(tmp, "spark", {}, f"  - local: '{PACKAGE}'\n")
    project.dbt("deps")
    # one process (Spark starts once, the seed stays in its catalog): seeds and models, and of
    # the tests the anomaly tests only (metric_anomaly: passing, warning and deliberately
    # failing ones, test_metric_anomaly_passes_warns_fails_and_stores_the_alerts)
    build = project.dbt(
        "build",
        "--select",
        "ctr",
        "predictions",
        "auc_by_country",
        "ctr_metrics_by_country",
        "anomaly_rows",
        "anomaly_daily",
        "anomaly_states",
        "test_name:metric_anomaly",
        "--indirect-selection",
        "empty",
        timeout=2400,
        check=False,
    )
    # the two deliberately failing anomaly tests fail the build; nothing else may
    done = re.search(r"Done\. PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+)", build.stdout)
    assert done is not None and done.groups() == ("9", "1", "2", "0"), build.stdout
    assert build.stdout.count("FAIL 1 anomaly_") == 2, build.stdout
    warehouse = project.root / "project" / "spark-warehouse"

    def read(name: str, schema: str = SCHEMA) -> pd.DataFrame:
        path = warehouse / f"{schema}.db" / name
        return duckdb.sql(f"select * from read_parquet('{path}/*.parquet')").df()

    yield Built(project, read, build)


@pytest.mark.spark  # dbt-spark, method session: a local pyspark in the dbt process
def test_spark_session_builds_the_example_models(spark_build: Built) -> None:
    frame = spark_build.read("predictions")
    got = spark_build.read("auc_by_country").sort_values("country", ignore_index=True)
    want = sqlmetrics.evaluate(frame, ["auc"], by="country", **BINARY)
    assert list(got["country"]) == list(want["country"]) == ["DE", "FR", "US"]
    assert all(_same(a, b) for a, b in zip(got["auc"], want["auc"]))
    metrics = ["auc", "gauc", "log_loss", "precision", "recall"]
    got = spark_build.read("ctr_metrics_by_country").sort_values("country", ignore_index=True)
    want = sqlmetrics.evaluate(
        frame, metrics, by="country", group="user_id", threshold=0.3, **BINARY
    )
    for column in metrics:
        assert all(_same(a, b) for a, b in zip(got[column], want[column])), column


BUILDS = ["duckdb_build", pytest.param("postgres_build", marks=pytest.mark.postgres)]


def _same(got: Any, want: Any) -> bool:
    if want is None or (isinstance(want, float) and math.isnan(want)):
        return got is None or (isinstance(got, float) and math.isnan(got))
    return math.isclose(float(got), float(want), rel_tol=1e-9, abs_tol=1e-12)


def _python(spec: MetricSpec, frame: pd.DataFrame, train: pd.DataFrame | None) -> pd.DataFrame:
    """The Python API's value per slice on the same rows (evaluate with one request)."""
    _, args, by, form = parity_call(spec)
    args = {k: v for k, v in args.items() if k != "k"}
    if "train" in args:
        args["train"] = train
    return sqlmetrics.evaluate(frame, [form], by=by, **args)


@pytest.mark.parametrize("build", BUILDS)
def test_build_passes_and_runs_everything(build: str, request: pytest.FixtureRequest) -> None:
    built: Built = request.getfixturevalue(build)
    out = built.build.stdout
    # the one warning: the anomaly test with warn_if (test_metric_anomaly_...)
    assert "Completed with 1 warning" in out and "WARN 1 anomaly_daily_alerts" in out
    assert re.search(r"Done\. PASS=\d+ WARN=1 ERROR=0 ", out), out
    for model in (
        "ctr_metrics_by_country", "auc_by_country", "search_metrics", "roc_points",
        "auc_ci_by_country", "log_loss_ci_by_country", "off_policy_by_country",
        "position_propensities_by_country", "click_metrics_joined", "click_metrics_mapped",
        "ranking_weighted_ndcg", "ranking_weighted_map", "ranking_varying_weight",
        "ranking_weighted_evaluate",
    ):  # fmt: skip
        assert f"OK created sql table model {SCHEMA}.{model}" in out
    # two plain threshold tests and two with ci= (auc by DeLong, log_loss by the bootstrap),
    # and the two ci= gates on the daily states (states: true)
    assert out.count("PASS sqlmetrics_metric_threshold") == 6
    # margin 0.2, DeLong's paired test, GAUC's and the Brier score's t-tests at alpha 0.05
    assert out.count("PASS sqlmetrics_champion_challenger") == 4
    # not in the main selection (the passing ci= test at 0.7 has 0_95 in its name)
    assert "deliberately" not in out and "predictions_country__click__auc__0_7__pctr" not in out


@pytest.mark.parametrize("name", SCALARS)
@pytest.mark.parametrize("build", BUILDS)
def test_every_scalar_metric_equals_python(
    name: str, build: str, request: pytest.FixtureRequest
) -> None:
    built: Built = request.getfixturevalue(build)
    spec = REGISTRY[name]
    relation, args, by, form = parity_call(spec)
    got = built.read(f"m_{name}")
    train = built.read(args["train"]) if "train" in args else None
    want = _python(spec, built.read(relation), train)
    assert list(got.columns) == [by, name, "n_rows", *(["n_groups"] if "n_groups" in want else [])]
    assert list(got[by]) == list(want[by])
    assert len(got) >= 2
    for have, expected in zip(got[name], want[form]):
        assert _same(have, expected), (name, have, expected)
    assert list(got["n_rows"]) == list(want["n_rows"])


@pytest.mark.parametrize("build", BUILDS)
def test_evaluate_equals_python(build: str, request: pytest.FixtureRequest) -> None:
    built: Built = request.getfixturevalue(build)
    got = built.read("evaluated")
    want = sqlmetrics.evaluate(
        built.read("predictions"), EVALUATED, label="click", score="pctr", group="user_id",
        threshold=0.3, bins=64, by=["country"],
    )  # fmt: skip
    assert list(got.columns) == list(want.columns)
    for column in EVALUATED:
        for have, expected in zip(got[column], want[column]):
            assert _same(have, expected), (column, have, expected)
    # the example's own models
    ranked = built.read("search_metrics")
    want = sqlmetrics.evaluate(
        built.read("search_runs"), ["ndcg@10", "map", "mrr", "precision@5"], by="half", **RANKING
    )
    assert list(ranked.columns) == list(want.columns)
    for column in ["ndcg@10", "map", "mrr", "precision@5"]:
        assert all(_same(a, b) for a, b in zip(ranked[column], want[column]))


@pytest.mark.parametrize("build", BUILDS)
def test_ir_measures_names_equal_python(build: str, request: pytest.FixtureRequest) -> None:
    """evaluate with ir_measures' names (nDCG@10, P(rel=2)@5, RR(rel=2), ...) in dbt gives
    Python's evaluate with the same names: bit for bit on DuckDB (the same kernels, options
    and parts), to 1e-9 on PostgreSQL (Python's runs on DuckDB).
    """
    built: Built = request.getfixturevalue(build)
    search = built.read("search_runs")
    for model, (names, extra) in IR_MODELS.items():
        got = built.read(model)
        want = sqlmetrics.evaluate(search, names, **RANKING, **extra)
        assert list(got.columns) == list(want.columns), model
        for column in want.columns:
            if build == "duckdb_build" or column == "half":
                assert list(got[column]) == list(want[column]), (model, column)
            else:
                assert all(_same(a, b) for a, b in zip(got[column], want[column])), column
    # the names fix their options: P(rel=2)@5 is not P@5, exp-log2 is not log2
    got = built.read("ir_names").iloc[0]
    assert got["AP@100"] == got["map@100"]  # ours and theirs in one call
    assert got["nDCG(dcg='exp-log2')@10"] != got["nDCG@10"]
    assert got["P(rel=2)@5"] != sqlmetrics.evaluate(search, ["P@5"], **RANKING)["P@5"].iloc[0]
    # IPrec@p under the convention: trec_eval 9's recall levels, not our default lround(p R)
    names, _ = IR_MODELS["ir_names_iprec"]
    iprec = built.read("ir_names_iprec").iloc[0]
    lround = sqlmetrics.evaluate(
        search, names, recall_rounding="trec_eval_10", ties="text_desc", empty="zero",
        missing="zero", **RANKING,
    ).iloc[0]  # fmt: skip
    assert any(iprec[name] != lround[name] for name in names)


@pytest.mark.parametrize("build", BUILDS)
def test_evaluate_counts_each_mean_as_python(build: str, request: pytest.FixtureRequest) -> None:
    built: Built = request.getfixturevalue(build)
    got = built.read("evaluated_grouped").sort_values("country", ignore_index=True)
    with pytest.warns(sqlmetrics.SkippedGroupsWarning):  # Python warns, dbt cannot
        want = sqlmetrics.evaluate(
            built.read("predictions"), GROUPED, label="click", score="pctr", group="user_id",
            item="item_id", duplicates="max", by=["country"],
        )  # fmt: skip
    counts = [f"n_groups_{m}" for m in GROUPED]
    assert list(got.columns) == ["country", *GROUPED, "n_rows", *counts] == list(want.columns)
    for column in [*GROUPED, "n_rows", *counts]:
        assert all(_same(a, b) for a, b in zip(got[column], want[column])), column


@pytest.mark.parametrize("build", BUILDS)
def test_tables_equal_python(build: str, request: pytest.FixtureRequest) -> None:
    built: Built = request.getfixturevalue(build)
    frame = built.read("predictions")
    roc = built.read("roc_points").sort_values(["country", "fpr", "tpr"], ignore_index=True)
    want = sqlmetrics.roc_curve(frame, by="country", max_points=50, **BINARY)
    want = want.sort_values(["country", "fpr", "tpr"], ignore_index=True)
    assert list(roc.columns) == list(want.columns)
    assert len(roc) == len(want)
    for column in ("fpr", "tpr", "threshold"):
        assert all(_same(a, b) for a, b in zip(roc[column], want[column])), column
    report = built.read("segment_report")
    expected = sqlmetrics.classification_report(frame, **MULTICLASS)
    assert list(report.columns) == list(expected.reset_index().columns) or len(report) == len(
        expected
    )
    assert len(report) == len(expected)


@pytest.mark.parametrize("build", BUILDS)
def test_failing_threshold_test_names_the_slices(
    build: str, request: pytest.FixtureRequest
) -> None:
    built: Built = request.getfixturevalue(build)
    done = built.project.dbt("test", "--select", "tag:deliberately_failing", check=False)
    out = done.stdout
    assert done.returncode == 1, out
    assert "FAIL 2 sqlmetrics_metric_threshold" in out
    auc = built.read("auc_by_country").set_index("country")["auc"]
    assert auc["DE"] >= 0.7 > max(auc["FR"], auc["US"])  # so FR and US fail, DE passes
    plain = re.findall(r"metric_threshold failed in slice country='(\w+)': metric auc, value "
                       r"[0-9.]+, reason below min 0.7$", out, flags=re.M)  # fmt: skip
    assert sorted(plain) == ["FR", "US"]  # DE passes
    assert "FAIL 3 sqlmetrics_champion_challenger" in out
    assert "champion_challenger failed in slice country='DE': metric auc" in out
    _check_failing_ci_gates(built, out)
    _check_failing_state_gates(built, out)
    _check_failing_anomaly_tests(built, out)
    # a ranking metric's t-test over the queries (the search run against its challenger)
    found = re.findall(r"champion_challenger failed in slice half='(\w+)': metric ndcg@10, .*"
                       r"p_value ([0-9.e-]+), reason .*\(t p < 0.1\)", out)  # fmt: skip
    compared = sqlmetrics.compare(
        built.read("search_runs"), ["ndcg@10"], scores=["score", "score_challenger"],
        by="half", test="t", group="query_id", item="doc_id", label="rel",
    )  # fmt: skip
    p = compared[compared.model == "score_challenger"].set_index("half")["p_value"]
    assert sorted({half for half, _ in found}) == ["second"] == sorted(p.index[p < 0.1])
    for half, value in found:
        assert math.isclose(float(value), p[half], rel_tol=1e-9), (half, value, p[half])
    if build == "duckdb_build":  # the site's failing rows, as dbt logs them (digits too)
        gates = page("recipes/dbt-gates.md")
        shown = re.search(r"naming its slice with the interval.*?```\n(.*?)```", gates, re.S)
        assert shown is not None
        lines = shown.group(1).strip().splitlines()
        assert len(lines) == 3 and "(t p < 0.4)" in lines[2]
        for line in lines:
            assert line in out, line


def _check_failing_state_gates(built: Built, out: str) -> None:
    """The gates on merged states (states: true) fail where the same gate on the rows of all
    days fails, with evaluate's value and interval over those rows."""
    frame = built.read("predictions")
    rows = _logged(out, "metric_threshold", "below min 0.71 (upper bound of the 0.95 interval)")
    want = sqlmetrics.evaluate(frame, ["auc"], by="country", ci=0.95, **BINARY)
    want = want.set_index("country")
    assert sorted(rows) == ["US"] == sorted(want.index[want["auc_hi"] < 0.71])
    for col, cell in [("auc", "value"), ("auc_lo", "lo"), ("auc_hi", "hi")]:
        assert _same(float(rows["US"][cell]), want.loc["US", col]), col
    rows = _logged(out, "metric_threshold", "metric gauc, value")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gauc = sqlmetrics.evaluate(frame, ["gauc"], by="country", group="user_id", **BINARY)
    gauc = gauc.set_index("country")["gauc"]
    assert sorted(rows) == ["FR", "US"] == sorted(gauc.index[gauc < 0.67])
    for country, cells in rows.items():
        assert _same(float(cells["value"]), gauc[country]), country
        assert cells["reason"] == "below min 0.67"
    # one day picked by dbt's where:, the bootstrap keys rows by their values: the interval of
    # the replayed rows is evaluate(ci=)'s on that day's rows
    rows = _logged(out, "metric_threshold", "below min 0.99 (upper bound of the 0.95 interval)")
    day = frame[pd.to_datetime(frame["day"]).dt.strftime("%Y-%m-%d") == "2026-11-02"]
    want = sqlmetrics.evaluate(
        day.reset_index(drop=True), ["auc"], by="country", ci=0.95, ci_method="bootstrap",
        n_boot=20, **BINARY,
    ).set_index("country")  # fmt: skip
    assert sorted(rows) == ["DE", "FR", "US"] and len(day) < len(frame)
    for country, cells in rows.items():
        for col, cell in [("auc", "value"), ("auc_lo", "lo"), ("auc_hi", "hi")]:
            assert _same(float(cells[cell]), want.loc[country, col]), (country, col)


#: the seeded series of the anomaly tests (integration_tests/seeds/anomaly_rows.csv): the
#: tests' alerts, as Python's metric_anomalies gives them on the same daily table
ANOMALY_COLUMNS = ["segment", "day", "value", "band_lo", "band_hi", "z", "deviation"]


def _python_alerts(daily: pd.DataFrame, **options: Any) -> pd.DataFrame:
    """Python's metric_anomalies over a daily table of the seeded series: its alert rows."""
    daily = daily.assign(day=pd.to_datetime(daily["day"]))
    out = sqlmetrics.metric_anomalies(daily, "auc", by="segment", **options)
    # segment a, the passing tests' series, is scored (the test is not vacuous) and quiet
    scored = out[out["status"] == "scored"]
    assert (scored["segment"] == "a").sum() >= 10 and not out[out["segment"] == "a"].anomaly.any()
    return out.loc[out["anomaly"], ANOMALY_COLUMNS].reset_index(drop=True)


def _python_state_alerts(built: Built) -> pd.DataFrame:
    """The states test's alerts in Python: metric_anomalies over the same table of daily
    states (read as the rows they stand for, evaluated by day and segment with ci_level
    intervals), which equal evaluate(ci=0.95)'s daily table of the seeded rows, then the
    bands."""
    alerts = _python_alerts(built.read("anomaly_states"))
    rows = built.read("anomaly_rows").assign(day=lambda f: pd.to_datetime(f["day"]))
    daily = sqlmetrics.evaluate(rows, ["auc"], by=["day", "segment"], ci=0.95, **BINARY)
    pd.testing.assert_frame_equal(_python_alerts(daily), alerts)
    return alerts


def _anomaly_logged(out: str) -> list[tuple[Any, ...]]:
    """The alerts metric_anomaly wrote to dbt's log, one per logged line (each test's once)."""
    found = []
    for line in out.splitlines():
        match = re.search(r"metric_anomaly failed in slice segment='(\w+)': (.*)", line)
        if match:
            cells = dict(cell.split(" ", 1) for cell in match.group(2).split(", "))
            assert cells["metric"] == "auc", line
            found.append((match.group(1), cells["day"], *(float(cells[c]) for c in
                          ANOMALY_COLUMNS[2:6]), cells["deviation"]))  # fmt: skip
    return sorted(found)


def _as_logged(alerts: pd.DataFrame) -> list[tuple[Any, ...]]:
    return [(r.segment, str(pd.Timestamp(r.day).date()), r.value, r.band_lo, r.band_hi, r.z,
             r.deviation) for r in alerts.itertuples()]  # fmt: skip


def _same_alerts(got: list[tuple[Any, ...]], want: list[tuple[Any, ...]], exact: bool) -> None:
    assert len(got) == len(want), (got, want)
    for have, expected in zip(sorted(got), sorted(want)):
        assert have[:2] == expected[:2] and have[6] == expected[6], (have, expected)
        for a, b in zip(have[2:6], expected[2:6]):
            assert a == b if exact else _same(a, b), (have, expected)


def _check_failing_anomaly_tests(built: Built, out: str, warned: bool = False) -> None:
    """The deliberately failing anomaly tests fail with one alert each, segment b's last day,
    the rows Python's metric_anomalies flags on the same table (window 14 on the daily model,
    28 on the replayed states); ``warned``: the log holds the warning test's alert too."""
    assert "FAIL 1 anomaly_daily_fails" in out and "FAIL 1 anomaly_states_fails" in out
    daily = built.read("anomaly_daily")
    want = _as_logged(_python_alerts(daily, window=14)) + _as_logged(_python_state_alerts(built))
    if warned:
        want += _as_logged(_python_alerts(daily))
    assert [w[:2] for w in want] == [("b", "2026-10-20")] * len(want)
    # dbt's log prints the floats' repr: Python's doubles on DuckDB, bit for bit
    _same_alerts(_anomaly_logged(out), want, exact=built.project.target == "duckdb")


ANOMALY_BUILDS = [*BUILDS, pytest.param("spark_build", marks=pytest.mark.spark)]


@pytest.mark.parametrize("build", ANOMALY_BUILDS)
def test_metric_anomaly_passes_warns_fails_and_stores_the_alerts(
    build: str, request: pytest.FixtureRequest
) -> None:
    """The anomaly tests of the build (dbt/macros/tests/metric_anomaly.sql): the quiet series
    passes (dbt's where: segment a) on the daily model and on the replayed states; the series
    with the drop warns (warn_if >0, error_if >1: one alert) and its store_failures table
    holds the alert rows, Python's metric_anomalies' on the same daily table (bit for bit on
    DuckDB). On Spark the build runs the deliberately failing ones too."""
    built: Built = request.getfixturevalue(build)
    out = built.build.stdout
    assert "PASS anomaly_daily_segment_a" in out and "PASS anomaly_states_segment_a" in out
    assert "WARN 1 anomaly_daily_alerts" in out
    daily = built.read("anomaly_daily")
    assert list(daily.columns) == ["day", "segment", "auc", "auc_lo", "auc_hi", "n_rows"]
    want = _python_alerts(daily)
    stored = built.read("anomaly_daily_alerts", schema=f"{SCHEMA}_dbt_test__audit")
    assert list(stored.columns) == ["segment", "day", "metric", "value", "band_lo", "band_hi",
                                    "z", "deviation"]  # fmt: skip
    assert list(stored["metric"]) == ["auc"]
    _same_alerts(_as_logged(stored), _as_logged(want), exact=build == "duckdb_build")
    # the states test's daily table is the rows' evaluate(ci=0.95): the same alert
    _same_alerts(_as_logged(_python_state_alerts(built)), _as_logged(want), exact=False)
    if build == "spark_build":
        _check_failing_anomaly_tests(built, out, warned=True)


#: the anomaly test's argument checks: Python's _options values tried on each option
ANOMALY_VALUES = [None, True, False, 0, 1, 2, 7, -1, 0.0, 0.5, 1.0, 1.5, 3.5, 28.0, 1e300,
                  math.nan, math.inf, -math.inf, "x", "", "weekday", "drop", "rise", "both",
                  [], ["drop"]]  # fmt: skip


def test_anomaly_options_are_pythons() -> None:
    """The anomaly test's option checks (dbt/macros/tests/metric_anomaly_options.sql over the
    generated defaults and messages) accept what monitor.check_options accepts, return its
    options (its z aside: the warehouse computes it) and refuse with its messages, word for
    word; the default direction from the registry's `better` (drop, rise, both)."""
    checks = _checks_module()
    names = _dbt.ANOMALY_OPTIONS
    signature = inspect.signature(sqlmetrics.metric_anomalies).parameters
    defaults = {n: p.default for n, p in signature.items() if n in names}
    cases = [("auc", {}), ("log_loss", {}), ("ndcg@10", {}), ("mystery", {}), ("", {}),
             (None, {}), (3, {})]  # fmt: skip
    cases += [(m, {n: v}) for m in ("auc", "log_loss", "nope") for n in names
              for v in ANOMALY_VALUES]  # fmt: skip
    flagged = set()
    for metric, given in cases:
        args = {**defaults, **given}
        want = _outcome(monitor.check_options, (metric, *(args[n] for n in names)),
                        SqlMetricsError)  # fmt: skip
        got = _outcome(checks["sqlmetrics_anomaly_options"], (metric, given), _CompilerError)
        if want[0] == "ok":
            want[1].pop("z")
            assert got[0] == "ok", (metric, given, got)
            assert got[1].pop("ci_level") == float(args["ci_level"])
            flagged.add(tuple(want[1]["flagged"]))
        assert got == want, (metric, given)
    assert flagged == {("drop",), ("rise",), ("drop", "rise")}


def _position_bias_macros() -> dict[str, Any]:
    """dbt/macros/api/position_bias.sql with what it calls (names, checks, plan, the
    generated facts) in a plain Jinja environment: dbt's ``return`` and
    ``raise_compiler_error``, ``execute`` false (parsing: no column lookup, z 1.0), the
    statements of sql/ stubbed (``stub:<name>``).
    """
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    namespace: dict[str, Any] = {}
    adapter = type("A", (), {"quote": staticmethod(lambda name: f'"{name}"')})
    env.globals.update(
        {
            "sqlmetrics": namespace,
            "modules": type("M", (), {"re": re}),
            "return": _return,
            "execute": False,
            "adapter": adapter,
            "exceptions": type(
                "E", (), {"raise_compiler_error": staticmethod(_raise_compiler_error)}
            ),
        }
    )
    files = ("core/names.sql", "core/checks.sql", "core/plan.sql",
             "tests/metric_anomaly_options.sql", "_generated/registry.sql",
             "_generated/checks.sql", "api/position_bias.sql")  # fmt: skip
    module = env.from_string("\n".join((MACROS / f).read_text() for f in files)).module

    def returning(macro: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return macro(*args, **kwargs)
            except _Return as returned:
                return returned.value

        return call

    for name, value in vars(module).items():
        if isinstance(value, jinja2.runtime.Macro):
            namespace[name] = returning(value)
    for name in ("rand_top_n_propensities", "ips_click_metrics", "slice_order"):
        namespace[name] = lambda *args, _name=name: f"stub:{_name}"
    return namespace


#: values tried on each argument of the position-bias macros: each kind of wrong, the edges
PB_VALUES = [
    None, True, False, 0, 1, 2, -1, 0.0, 0.5, 0.95, 1.0, 1.5, math.nan, math.inf, "", "x",
    "country", "position", "query_id", "p", "ctr", "recall", [], ["country"],
    ["country", "country"], ["position"], ["query_id"], [""], ["ndcg"], ["ctr", "ctr"],
    ["recall", "ctr"], {}, {1: 1.0}, {1: 1.0, 2: 0.5}, {0: 1.0}, {1: 0}, {1: -1.0},
    {1: math.inf}, {1: math.nan}, {True: 1.0}, {1.5: 1.0}, {1: True}, {1: "x"}, [1.0, 0.5],
]  # fmt: skip


def test_position_bias_checks_are_pythons() -> None:
    """The argument checks of sqlmetrics.position_propensities and sqlmetrics.click_metrics in
    dbt (dbt/macros/api/position_bias.sql over the messages generated from Python) refuse
    what the Python functions refuse before reading data, with their messages word for word,
    and accept the rest (the statement rendered), on each value of PB_VALUES for every
    argument.
    """
    macros = _position_bias_macros()
    log = _LOG
    calls = {
        "position_propensities": (sqlmetrics.position_propensities, _PB_ARGS,
                                  ("position", "click", "intervention", "by", "max_position",
                                   "ci_level")),
        "click_metrics": (sqlmetrics.click_metrics, {**_CM_ARGS, "propensity": "p"},
                          ("group", "position", "click", "score", "propensity", "k",
                           "metrics", "by")),
    }  # fmt: skip
    refused = 0
    for name, (function, base, arguments) in calls.items():
        for argument in arguments:
            for value in PB_VALUES:
                given = {**base, argument: value}
                if (
                    isinstance(value, str)
                    and value not in (*log.columns, "")
                    and (argument != "metrics")
                ):
                    continue  # a column that is not there: dbt looks it up at execution
                try:
                    function(log, **given)
                    want = None
                except SqlMetricsError as exc:
                    want = str(exc) if type(exc).__name__ == "InvalidParameterError" else None
                try:
                    sql = str(macros[name]("t", **given))
                    got = None
                except _CompilerError as exc:
                    got, sql = str(exc), ""
                assert got == want, (name, argument, value)
                if want is None:
                    assert "stub:" in sql, (name, argument, value)
                else:
                    refused += 1
    assert refused > 100
    # the accepted mapping is passed on as [position, p] pairs, sorted, floats
    captured: list[Any] = []
    macros["ips_click_metrics"] = lambda *args: captured.append(args[3]) or "stub"
    macros["click_metrics"]("t", **_CM_ARGS, propensity={3: 1, 1: 1.0, 2: 0.5}, k=None)
    assert captured[0]["propensities"] == [[1, 1.0], [2, 0.5], [3, 1.0]]
    assert captured[0]["k"] is None and captured[0]["metrics"] == ["ctr", "dcg", "recall"]


def _logged(out: str, test: str, needle: str) -> dict[str, dict[str, str]]:
    """The failing rows a gate logged whose line holds ``needle``: country -> {cell: text}."""
    rows: dict[str, dict[str, str]] = {}
    pattern = re.compile(test + r" failed in slice country='(\w+)': (.*)")
    for line in out.splitlines():
        found = pattern.search(line)
        if found and needle in line:
            cells = dict(cell.split(" ", 1) for cell in found.group(2).split(", "))
            rows[found.group(1)] = cells
    return rows


def _check_failing_ci_gates(built: Built, out: str) -> None:
    """The gates that know their uncertainty fail where they should, naming the slices with
    the interval (metric_threshold ci=) or the p-value (champion_challenger test=), and the
    numbers are the Python API's: evaluate(ci=) and compare()."""
    frame = built.read("predictions")
    # AUC min 0.72 on the upper bound of the 95% DeLong interval: US only (its hi < 0.72)
    assert "FAIL 1 sqlmetrics_metric_threshold" in out
    rows = _logged(out, "metric_threshold", "below min 0.72 (upper bound of the 0.95 interval)")
    want = sqlmetrics.evaluate(frame, ["auc"], by="country", ci=0.95, **BINARY)
    want = want.set_index("country")
    assert sorted(rows) == ["US"]
    assert (
        want.loc["US", "auc_hi"] < 0.72 <= min(want.loc["DE", "auc_hi"], want.loc["FR", "auc_hi"])
    )
    for col, cell in [("auc", "value"), ("auc_lo", "lo"), ("auc_hi", "hi")]:
        assert _same(float(rows["US"][cell]), want.loc["US", col]), col
    # champion_challenger with test=: p-values as compare() gives them
    compared = sqlmetrics.compare(
        frame, ["auc", "precision", "accuracy"], scores=["pctr", "pctr_challenger"], by="country",
        threshold=0.3, **{"label": "click"},
    )  # fmt: skip
    p = compared[compared.model == "pctr_challenger"].set_index(["metric", "country"])["p_value"]
    delong = _logged(out, "champion_challenger", "(delong p < 0.6)")
    assert sorted(delong) == ["DE", "FR", "US"]
    for country, cells in delong.items():
        assert math.isclose(float(cells["p_value"]), p["auc", country], rel_tol=1e-6), country
    mcnemar = _logged(out, "champion_challenger", "(mcnemar p < 0.05)")
    assert sorted(mcnemar) == ["DE", "FR", "US"]  # accuracy at 0.3, compare()'s default test
    for country, cells in mcnemar.items():
        assert math.isclose(float(cells["p_value"]), p["accuracy", country], rel_tol=1e-6)
    boot = _logged(out, "champion_challenger", "(bootstrap p < 0.05)")
    assert sorted(boot) == ["DE", "US"]  # FR's challenger has the higher precision
    for country, cells in boot.items():
        assert float(cells["p_value"]) == p["precision", country] < 0.05, country
    assert "FAIL 2 sqlmetrics_champion_challenger" in out
    # the tests over per-group values (GAUC) and per-row losses (the Brier score): Student's t
    # in SQL to 1e-9 of compare()'s, the randomization test's p exactly (the same sign flips)
    tests = {
        "t": ("gauc", "(t p < 0.4)"),
        "randomization": ("gauc", "(randomization p < 0.4)"),
        "wilcoxon": ("gauc", "(wilcoxon p < 0.4)"),
        "brier": ("brier_score", "(t p < 0.5)"),
    }
    failing = {"t": ["DE", "US"], "randomization": ["DE", "US"], "wilcoxon": ["US"],
               "brier": ["DE", "US"]}  # fmt: skip
    for name, (metric, needle) in tests.items():
        test = "t" if name == "brier" else name
        compared = sqlmetrics.compare(
            frame, [metric], scores=["pctr", "pctr_challenger"], by="country", test=test,
            label="click", group="user_id",
        )  # fmt: skip
        p = compared[compared.model == "pctr_challenger"].set_index("country")["p_value"]
        rows = _logged(out, "champion_challenger", needle)
        assert sorted(rows) == failing[name], name
        level = float(needle.split("< ")[1].rstrip(")"))
        assert all(p[c] >= level for c in p.index if c not in rows), name  # the others pass
        for country, cells in rows.items():
            got = float(cells["p_value"])
            if name == "randomization":
                assert got == p[country], country
            elif name == "wilcoxon":  # erfc by the Chebyshev fit, as DeLong's
                assert math.isclose(got, p[country], rel_tol=2e-7), country
            else:
                assert math.isclose(got, p[country], rel_tol=1e-9), (name, country, got)


@pytest.mark.parametrize("build", BUILDS)
def test_metric_macros_with_ci_equal_python(build: str, request: pytest.FixtureRequest) -> None:
    """ci= of the metric macros: the interval computed in the warehouse is the Python call's
    (DeLong: the same sums and its normal factor by AS241 in SQL in CPython's order of
    operations; the bootstrap: the same SQL), bit for bit on DuckDB."""
    built: Built = request.getfixturevalue(build)
    frame = built.read("predictions")
    cases = [
        ("auc_ci_by_country", "auc", {}),
        (
            "log_loss_ci_by_country",
            "log_loss",
            {"weight": "weight", "ci_method": "bootstrap", "n_boot": 100, "seed": 1},
        ),
    ]
    for model, metric, options in cases:
        got = built.read(model).sort_values("country", ignore_index=True)
        level = 0.95 if metric == "auc" else 0.9
        want = sqlmetrics.evaluate(frame, [metric], by="country", ci=level, **BINARY, **options)
        assert list(got.columns) == ["country", metric, f"{metric}_lo", f"{metric}_hi"]
        assert list(got["country"]) == list(want["country"]) == ["DE", "FR", "US"]
        for col in got.columns[1:]:
            assert all(_same(a, b) for a, b in zip(got[col], want[col])), (model, col)
            if build == "duckdb_build":  # the same SQL (and z by AS241 as CPython's): bits
                assert list(got[col]) == list(want[col]), (model, col)


@pytest.mark.parametrize("build", BUILDS)
def test_off_policy_equals_python(build: str, request: pytest.FixtureRequest) -> None:
    """sqlmetrics.off_policy (dbt/macros/api/off_policy.sql) in a model gives Python's
    off_policy_value on the same logged rows: IPS, SNIPS and DR with clipping and the
    bootstrap interval, per country (the same statement: to 1e-9, bit for bit on DuckDB).
    """
    built: Built = request.getfixturevalue(build)
    got = built.read("off_policy_by_country")
    want = sqlmetrics.off_policy_value(
        built.read("off_policy_logged"), reward="click", pscore="pscore", target="target",
        estimator=["ips", "snips", "dr"], reward_hat="pctr", reward_hat_target="pctr_target",
        clip=3.0, by=["country"], ci=0.9, ci_method="bootstrap", n_boot=50, seed=3,
    )  # fmt: skip
    assert list(got.columns) == list(want.columns)
    assert list(got["country"]) == list(want["country"]) and len(got) >= 6
    assert list(got["estimator"]) == list(want["estimator"])
    for column in ("value", "value_lo", "value_hi", "n", "ess", "max_weight", "mean_weight"):
        for have, expected in zip(got[column], want[column]):
            assert _same(have, expected), (column, have, expected)


def _frames_equal(got: pd.DataFrame, want: pd.DataFrame, bits: bool) -> None:
    """The same columns and rows; each value to 1e-9, and bit for bit where ``bits``."""
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want) >= 1
    for column in want.columns:
        pairs = list(zip(got[column], want[column]))
        if not pd.api.types.is_numeric_dtype(want[column]):
            assert list(got[column]) == list(want[column]), column
            continue
        assert all(_same(a, b) for a, b in pairs), (column, pairs)
        if bits and pd.api.types.is_float_dtype(want[column]):
            assert [float(a) for a, _ in pairs] == [float(b) for _, b in pairs], column


@pytest.mark.parametrize("build", BUILDS)
def test_position_bias_equals_python(build: str, request: pytest.FixtureRequest) -> None:
    """sqlmetrics.position_propensities and sqlmetrics.click_metrics
    (dbt/macros/api/position_bias.sql) in models give Python's functions on the same click log
    (seeds/click_log.csv): the propensities per country with 90% intervals (a boolean
    intervention column, top 5 randomised); click metrics with the estimated propensities
    joined as a column (by country, k=3) and with a mapping (k=None, two metrics in the given
    order). The same statements: to 1e-9, bit for bit on DuckDB (z by AS241 in SQL).
    """
    built: Built = request.getfixturevalue(build)
    log = built.read("click_log")
    bits = build == "duckdb_build"
    common = {"position": "position", "click": "click", "intervention": "randomised"}
    want = sqlmetrics.position_propensities(
        log, **common, max_position=5, by=["country"], ci_level=0.9
    )
    got = built.read("position_propensities_by_country")
    assert list(got["country"]) == list(want["country"]) and len(set(want["country"])) == 3
    _frames_equal(got, want, bits)
    table = sqlmetrics.position_propensities(log, **common)
    _frames_equal(built.read("position_propensities_all"), table, bits)
    clicks = {"group": "query_id", "position": "position", "click": "click", "score": "new_score"}
    want = sqlmetrics.click_metrics(log, **clicks, propensity=table, k=3, by=["country"])
    got = built.read("click_metrics_joined")
    assert list(got.columns)[1:4] == ["ctr@3", "dcg@3", "recall@3"]
    _frames_equal(got, want, bits)
    mapping = {1: 1.0, 2: 0.6, 3: 0.45, 4: 0.35, 5: 0.3}
    want = sqlmetrics.click_metrics(
        log, **clicks, propensity=mapping, k=None, metrics=["recall", "ctr"]
    )
    _frames_equal(built.read("click_metrics_mapped"), want, bits)


def _slices(column: pd.Series) -> list[Any]:
    """A slice column's values, a NULL slice as None (pandas may hold it as NaN)."""
    return [None if pd.isna(v) else v for v in column]


@pytest.mark.parametrize("build", BUILDS)
def test_ranking_weights_equal_python(build: str, request: pytest.FixtureRequest) -> None:
    """weight= and group_weight= of the ranking macros (issue 43) in models give Python's
    values on the same rows (models/search_weighted.sql): NDCG@5 with item and query weights
    and MAP@10 with query weights (some 0), per tier with a NULL tier; bit for bit on DuckDB
    (the same statement), to 1e-12 on PostgreSQL. A weight column that varies within a query
    (Python refuses it, dbt cannot check it) leaves that query's tier without a value (NULL)
    and the other tiers with Python's values on their own rows.
    """
    built: Built = request.getfixturevalue(build)
    frame = built.read("search_weighted")
    assert frame["tier"].isna().any() and (frame["gw"] == 0).any()
    bits = build == "duckdb_build"
    cases = [
        ("ranking_weighted_ndcg", "ndcg@5", "ndcg", {"weight": "w", "group_weight": "gw"}),
        ("ranking_weighted_map", "map@10", "map", {"group_weight": "gw"}),
    ]
    for model, metric, column, options in cases:
        got = built.read(model)
        want = sqlmetrics.evaluate(frame, [metric], by="tier", **options, **RANKING)
        want = want.rename(columns={metric: column})
        assert list(got.columns) == list(want.columns), model
        assert _slices(got["tier"]) == _slices(want["tier"]) == ["a", "b", None], model
        for name in want.columns[1:]:
            for have, expected in zip(got[name], want[name]):
                assert _same(have, expected), (model, name, have, expected)
                assert math.isclose(have, expected, rel_tol=1e-12), (model, name)
                if bits:
                    assert float(have) == float(expected), (model, name)
        # the weights change the values on this data
        plain = sqlmetrics.evaluate(frame, [metric], by="tier", **RANKING)
        assert not all(_same(a, b) for a, b in zip(got[column], plain[metric])), model
    # evaluate(group_weight=): two metrics in one statement, Python's evaluate's frame
    got = built.read("ranking_weighted_evaluate")
    want = sqlmetrics.evaluate(frame, ["map@10", "mrr"], by="tier", group_weight="gw", **RANKING)
    assert list(got.columns) == list(want.columns)
    assert _slices(got["tier"]) == _slices(want["tier"]) == ["a", "b", None]
    for name in want.columns[1:]:
        for have, expected in zip(got[name], want[name]):
            assert math.isclose(have, expected, rel_tol=1e-12), ("evaluate", name)
            if bits:
                assert float(have) == float(expected), ("evaluate", name)
    got = built.read("ranking_varying_weight")
    assert _slices(got["tier"]) == ["a", "b", None]
    assert pd.isna(got["mrr"].iloc[1])
    kept = frame[frame["tier"] != "b"]  # keeps the NULL tier
    want = sqlmetrics.evaluate(kept, ["mrr"], by="tier", group_weight="gw_varying", **RANKING)
    assert _slices(want["tier"]) == ["a", None]
    for have, expected in zip(got["mrr"].iloc[[0, 2]], want["mrr"]):
        assert math.isclose(have, expected, rel_tol=1e-12)
        if bits:
            assert float(have) == float(expected)
    with pytest.raises(InvalidDataError, match="not constant"):
        sqlmetrics.mrr(frame, group_weight="gw_varying", **RANKING)


def test_python_model_runs_the_api_on_dbt_duckdb(duckdb_build: Built) -> None:
    """integration_tests/models/auc_python.py: sqlmetrics.auc(dbt.ref(...), con=session)."""
    done = duckdb_build.project.dbt("run", "--select", "auc_python", check=False)
    assert f"OK created python table model {SCHEMA}.auc_python" in done.stdout, done.stdout
    got = duckdb_build.read("auc_python")["auc"].iloc[0]
    assert _same(got, sqlmetrics.auc(duckdb_build.read("predictions"), **BINARY))


@pytest.mark.parametrize("build", BUILDS)
def test_text_pos_label_survives_dbt(build: str, request: pytest.FixtureRequest) -> None:
    """A literal holds no raw line break (dbt's indent would change it) and reads the same
    under every quoting setting (issue 22)."""
    built: Built = request.getfixturevalue(build)
    labels = built.read("text_labels")
    assert set(labels["y"]) == {TEXT_POS_LABEL, "neg"}
    got = built.read("text_pos_label")["auc"].iloc[0]
    assert _same(got, sqlmetrics.auc(built.read("predictions"), label="click", score="pctr"))


# --------------------------------------------------------------------------- compile errors
def _python_error(call: Any) -> str:
    with pytest.raises(SqlMetricsError) as info:
        call()
    return _no_hint(str(info.value))


_TINY = pd.DataFrame({"label": [0, 1], "score": [0.2, 0.8], "item": [1, 2]})
_DAILY = pd.DataFrame({"day": pd.to_datetime(["2026-10-01"]), "segment": ["a"], "auc": [0.8]})
#: the click log's columns (seeds/click_log.csv) for the position-bias error cases
_LOG = pd.DataFrame({"query_id": [1], "country": ["DE"], "position": [1], "click": [1],
                     "randomised": [True], "new_score": [0.5], "p": [1.0]})  # fmt: skip
_PB_ARGS = {"position": "position", "click": "click"}
_PB = "position='position', click='click'"
_CM_ARGS = {"group": "query_id", "position": "position", "click": "click", "score": "new_score"}
_CM = "group='query_id', position='position', click='click', score='new_score'"

ERRORS = {
    "unknown metric": (
        "sqlmetrics.evaluate(ref('predictions'), metrics=['aucc'], label='click', score='pctr')",
        lambda: parse_metric("aucc", "evaluate"),
    ),
    "unknown metric with k": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['ndgc@10'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("ndgc@10", "evaluate"),
    ),
    "bad cut-off in a name": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['ndcg@0'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("ndcg@0", "evaluate"),
    ),
    "unknown ir_measures name": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['nDGC@10'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("nDGC@10", "evaluate"),
    ),
    "ir_measures name with an unknown parameter": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['P(rell=2)@5'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("P(rell=2)@5", "evaluate"),
    ),
    "ir_measures name with a bad rel": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['RR(rel=0)'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("RR(rel=0)", "evaluate"),
    ),
    "ir_measures name with a bad dcg": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=[\"nDCG(dcg='exp')@10\"], "
        "group='query_id', item='doc_id', label='rel', score='score')",
        lambda: parse_metric("nDCG(dcg='exp')@10", "evaluate"),
    ),
    "ir_measures name that is not a literal": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['P(rel=two)@5'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("P(rel=two)@5", "evaluate"),
    ),
    "ir_measures name with a cut-off it does not take": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['Rprec@10'], group='query_id', "
        "item='doc_id', label='rel', score='score')",
        lambda: parse_metric("Rprec@10", "evaluate"),
    ),
    "option that conflicts with an ir_measures name": (
        "sqlmetrics.evaluate(ref('search_runs'), metrics=['P(rel=2)@5'], group='query_id', "
        "item='doc_id', label='rel', score='score', relevance_level=3)",
        lambda: sqlmetrics.evaluate(
            pd.DataFrame(columns=["query_id", "doc_id", "rel", "score"]),
            ["P(rel=2)@5"],
            relevance_level=3,
            **RANKING,
        ),
    ),
    "unknown option": (
        "sqlmetrics.auc(ref('predictions'), label='click', score='pctr', threshold=0.3)",
        lambda: check_params(get_spec("auc"), {"threshold": 0.3}),
    ),
    "bad k": (
        "sqlmetrics.ndcg(ref('search_runs'), group='query_id', item='doc_id', label='rel', "
        "score='score', k=0)",
        lambda: check_params(get_spec("ndcg"), {"k": 0}),
    ),
    "negative beta": (
        "sqlmetrics.fbeta(ref('predictions'), label='click', score='pctr', beta=-1)",
        lambda: check_params(get_spec("fbeta"), {"beta": -1}),
    ),
    "bad choice": (
        "sqlmetrics.ndcg(ref('search_runs'), group='query_id', item='doc_id', label='rel', "
        "score='score', ties='averag')",
        lambda: check_params(get_spec("ndcg"), {"ties": "averag"}),
    ),
    "evaluate option": (
        "sqlmetrics.evaluate(ref('predictions'), metrics=['auc'], label='click', score='pctr', "
        "gain='linear')",
        lambda: sqlmetrics.render_evaluate("t", ["auc"], gain="linear"),
    ),
    # the option checks and cross-option checks of issue 14 (their Jinja twins)
    "bad log_base": (
        "sqlmetrics.ndcg(ref('search_runs'), group='query_id', item='doc_id', label='rel', "
        "score='score', log_base=1)",
        lambda: check_params(get_spec("ndcg"), {"log_base": 1}),
    ),
    "bad max_fpr": (
        "sqlmetrics.partial_auc(ref('predictions'), label='click', score='pctr', max_fpr=0)",
        lambda: check_params(get_spec("partial_auc"), {"max_fpr": 0}),
    ),
    "bad n_bins": (
        "sqlmetrics.expected_calibration_error(ref('predictions'), label='click', "
        "score='pctr', n_bins=0)",
        lambda: check_params(get_spec("expected_calibration_error"), {"n_bins": 0}),
    ),
    "too many n_bins": (
        "sqlmetrics.expected_calibration_error(ref('predictions'), label='click', "
        "score='pctr', n_bins=5000)",
        lambda: check_params(get_spec("expected_calibration_error"), {"n_bins": 5000}),
    ),
    "bad persistence": (
        "sqlmetrics.rbp(ref('search_runs'), group='query_id', item='doc_id', label='rel', "
        "score='score', persistence=1)",
        lambda: check_params(get_spec("rbp"), {"persistence": 1}),
    ),
    "bad recall_level": (
        "sqlmetrics.iprec_at_recall(ref('search_runs'), group='query_id', item='doc_id', "
        "label='rel', score='score', recall_level=2)",
        lambda: check_params(get_spec("iprec_at_recall"), {"recall_level": 2}),
    ),
    "bad kappa weights": (
        "sqlmetrics.cohen_kappa(ref('predictions'), label='segment', "
        "prediction='segment_predicted', weights='quad')",
        lambda: check_params(get_spec("cohen_kappa"), {"weights": "quad"}),
    ),
    "bad adjusted": (
        "sqlmetrics.balanced_accuracy(ref('predictions'), label='segment', "
        "prediction='segment_predicted', adjusted='yes')",
        lambda: check_params(get_spec("balanced_accuracy"), {"adjusted": "yes"}),
    ),
    "bad recall_rounding": (
        f"sqlmetrics.iprec_at_recall(ref('search_runs'), {_RANKING_ARGS}, "
        "recall_rounding='trec_eval_11')",
        lambda: check_params(get_spec("iprec_at_recall"), {"recall_rounding": "trec_eval_11"}),
    ),
    "bad max_label_levels": (
        "sqlmetrics.kendall_tau(ref('predictions'), label='click', score='pctr', "
        "max_label_levels=1)",
        lambda: check_params(get_spec("kendall_tau"), {"max_label_levels": 1}),
    ),
    "bpref without tie average": (
        "sqlmetrics.bpref(ref('search_runs'), group='query_id', item='doc_id', label='rel', "
        "score='score', ties='average')",
        lambda: check_params(get_spec("bpref"), {"ties": "average"}),
    ),
    "hit_ratio empty one": (
        "sqlmetrics.hit_ratio(ref('search_runs'), group='query_id', item='doc_id', "
        "label='rel', score='score', k=5, empty='one')",
        lambda: check_params(get_spec("hit_ratio"), {"k": 5, "empty": "one"}),
    ),
    "multiclass_auc ovo micro": (
        "sqlmetrics.multiclass_auc(ref('segment_scores'), group='row_id', item='class', "
        "score='class_score', label='is_true', multi_class='ovo', auc_average='micro')",
        lambda: check_params(
            get_spec("multiclass_auc"), {"multi_class": "ovo", "auc_average": "micro"}
        ),
    ),
    "train without a beyond metric": (
        "sqlmetrics.evaluate(ref('predictions'), metrics=['auc'], label='click', "
        "score='pctr', train=ref('ctr'))",
        lambda: sqlmetrics.evaluate(_TINY, ["auc"], train=_TINY),
    ),
    # ci= of the metric macros (dbt/macros/core/intervals.sql): Python's checks and messages
    "bad ci level": (
        "sqlmetrics.auc(ref('predictions'), label='click', score='pctr', ci=1.5)",
        lambda: sqlmetrics.auc(_TINY, ci=1.5),
    ),
    "table metric in evaluate": (
        "sqlmetrics.evaluate(ref('predictions'), metrics=['roc_curve'], label='click', "
        "score='pctr')",
        lambda: parse_metric("roc_curve", "evaluate"),
    ),
    # the position-bias macros (dbt/macros/api/position_bias.sql): Python's checks and
    # messages, generated from Python (sqlmetrics_checks().position_bias)
    "propensities max_position": (
        f"sqlmetrics.position_propensities(ref('click_log'), {_PB}, max_position=0)",
        lambda: sqlmetrics.position_propensities(_LOG, **_PB_ARGS, max_position=0),
    ),
    "propensities position in by": (
        f"sqlmetrics.position_propensities(ref('click_log'), {_PB}, by=['country', 'position'])",
        lambda: sqlmetrics.position_propensities(_LOG, **_PB_ARGS, by=["country", "position"]),
    ),
    "propensities ci_level": (
        f"sqlmetrics.position_propensities(ref('click_log'), {_PB}, ci_level=95)",
        lambda: sqlmetrics.position_propensities(_LOG, **_PB_ARGS, ci_level=95),
    ),
    "clicks metrics": (
        f"sqlmetrics.click_metrics(ref('click_log'), {_CM}, propensity='p', metrics=['ndcg'])",
        lambda: sqlmetrics.click_metrics(_LOG, **_CM_ARGS, propensity="p", metrics=["ndcg"]),
    ),
    "clicks k": (
        f"sqlmetrics.click_metrics(ref('click_log'), {_CM}, propensity='p', k=0)",
        lambda: sqlmetrics.click_metrics(_LOG, **_CM_ARGS, propensity="p", k=0),
    ),
    "clicks propensity mapping": (
        f"sqlmetrics.click_metrics(ref('click_log'), {_CM}, propensity={{1: 1.0, 2: 0}})",
        lambda: sqlmetrics.click_metrics(_LOG, **_CM_ARGS, propensity={1: 1.0, 2: 0}),
    ),
    "clicks propensity list": (
        f"sqlmetrics.click_metrics(ref('click_log'), {_CM}, propensity=[1.0, 0.5])",
        lambda: sqlmetrics.click_metrics(_LOG, **_CM_ARGS, propensity=[1.0, 0.5]),
    ),
    "clicks group in by": (
        f"sqlmetrics.click_metrics(ref('click_log'), {_CM}, propensity='p', by='query_id')",
        lambda: sqlmetrics.click_metrics(_LOG, **_CM_ARGS, propensity="p", by="query_id"),
    ),
    # the anomaly test's arguments (dbt/macros/tests/metric_anomaly_options.sql): Python's
    # metric_anomalies' messages
    "anomaly window": (
        "sqlmetrics.test_metric_anomaly(model=ref('anomaly_daily'), metric='auc', "
        "by=['segment'], window=0)",
        lambda: sqlmetrics.metric_anomalies(_DAILY, "auc", by="segment", window=0),
    ),
    "anomaly direction": (
        "sqlmetrics.test_metric_anomaly(model=ref('anomaly_daily'), metric='log_loss', "
        "by=['segment'], direction='down')",
        lambda: sqlmetrics.metric_anomalies(_DAILY, "log_loss", by="segment", direction="down"),
    ),
    "anomaly day in by": (
        "sqlmetrics.test_metric_anomaly(model=ref('anomaly_daily'), metric='auc', "
        "by=['segment', 'day'])",
        lambda: sqlmetrics.metric_anomalies(_DAILY, "auc", by=["segment", "day"]),
    ),
    "anomaly ci_level": (
        "sqlmetrics.test_metric_anomaly(model=ref('anomaly_daily'), metric='auc', ci_level=95)",
        lambda: sqlmetrics.metric_anomalies(_DAILY, "auc", ci_level=95),
    ),
}


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def inline_errors(duckdb_build: Built) -> dict[str, Compiled]:
    """Every error case's call below (ERRORS, GATE_ERRORS, CONVENTION_ERRORS, a missing column,
    the state macro) compiled by ``dbt compile --inline``, all in one dbt process."""
    calls = [call for table in (ERRORS, GATE_ERRORS, CONVENTION_ERRORS) for call, _ in
             table.values()] + [MISSING_COLUMN_CALL, STATE_CALL, *EXTERNAL_MISSING,
                                 *STATE_COUNT_CALLS.values()]  # fmt: skip
    return duckdb_build.project.compile_inline(calls)


def _refused(inline_errors: dict[str, Compiled], call: str, message: str) -> None:
    """dbt failed on ``call`` and said ``message`` (whitespace aside)."""
    done = inline_errors[call]
    assert not done.success, done.output
    assert _one_line(message) in _one_line(done.output), (message, done.output)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_compile_errors_have_pythons_message(case: str, inline_errors: dict[str, Compiled]) -> None:
    call, python = ERRORS[case]
    _refused(inline_errors, call, _python_error(python).replace("render_evaluate:", "evaluate:"))


#: the gates' own arguments and the ci= methods dbt does not write (no Python twin): the
#: call and the message
GATE_ERRORS = {
    "weighted wilson": (
        "sqlmetrics.precision(ref('predictions'), label='click', score='pctr', "
        "weight='weight', ci=0.9)",
        "precision: ci_method='wilson' of precision cannot be written as SQL alone (with "
        "weight= its effective sample size is an exact fraction computed in Python); methods "
        "the dbt macros compute for it: 'bootstrap'",
    ),
    "bad on": (
        "sqlmetrics.test_metric_threshold(model=ref('predictions'), metric='auc', "
        "label='click', score='pctr', min=0.7, ci=0.95, on='lowr')",
        "metric_threshold: on= must be 'point', 'lower' or 'upper' (the value or a bound of "
        "its ci= interval); got 'lowr'",
    ),
    "bad alpha": (
        "sqlmetrics.test_champion_challenger(model=ref('predictions'), metric='auc', "
        "label='click', champion='pctr', challenger='pctr_challenger', alpha=1.5)",
        "champion_challenger: alpha= must be a number strictly between 0 and 1 (the "
        "significance level, e.g. 0.05); got 1.5",
    ),
    "test that does not apply": (
        "sqlmetrics.test_champion_challenger(model=ref('predictions'), metric='auc', "
        "label='click', champion='pctr', challenger='pctr_challenger', test='mcnemar')",
        "champion_challenger: test='mcnemar' does not apply to 'auc'; tests that apply: "
        "'delong' (default 'delong'), or test='auto'",
    ),
    "t is unweighted": (
        "sqlmetrics.test_champion_challenger(model=ref('predictions'), metric='log_loss', "
        "label='click', champion='pctr', challenger='pctr_challenger', weight='weight', "
        "alpha=0.05)",
        "champion_challenger: test='t' of 'log_loss' is unweighted, as compare()'s; drop weight=",
    ),
    "bad states": (
        "sqlmetrics.test_metric_threshold(model=ref('daily_states'), metric='auc', "
        "label='click', score='pctr', min=0.7, states='yes')",
        "metric_threshold: states= must be true (the model holds sqlmetrics.evaluate_state's "
        "states) or false; got 'yes'",
    ),
    "bad n_permutations": (
        "sqlmetrics.test_champion_challenger(model=ref('predictions'), metric='gauc', "
        "label='click', champion='pctr', challenger='pctr_challenger', group='user_id', "
        "test='randomization', n_permutations=5)",
        "champion_challenger: n_permutations= must be an integer >= 10 (e.g. 200 or 1000); got 5",
    ),
}


@pytest.mark.parametrize("case", sorted(GATE_ERRORS))
def test_gate_errors_name_the_argument(case: str, inline_errors: dict[str, Compiled]) -> None:
    call, message = GATE_ERRORS[case]
    _refused(inline_errors, call, message)


MISSING_COLUMN_CALL = "sqlmetrics.auc(ref('predictions'), label='clicks', score='pctr')"


def test_missing_column_is_a_compile_error(inline_errors: dict[str, Compiled]) -> None:
    _refused(inline_errors, MISSING_COLUMN_CALL, "auc: column 'clicks' (label=) not found in data=")
    out = _one_line(inline_errors[MISSING_COLUMN_CALL].output)
    assert "predictions" in out and "columns present: user_id, item_id, country" in out


#: the warehouse export (examples/data/ctr_export/: Hive partition folders day=/country=) as
#: integration_tests/models/warehouse_export/ reads it: dbt-duckdb sources with
#: meta.external_location, one a read_parquet(..., hive_partitioning=true) call, one a path
EXPORT = ROOT / "examples" / "data" / "ctr_export"
EXPORT_HIVE = "read_parquet('../examples/data/ctr_export/**/*.parquet', hive_partitioning=true)"
EXPORT_PATH = "'../examples/data/ctr_export/**/*.parquet'"
EXPORT_COLUMNS = "columns present: user_id, item_id, click, pctr, pctr_challenger, country, day"
#: model -> the score it evaluates (its source: export_metrics the read_parquet call,
#: export_challenger_metrics the plain path)
EXPORT_MODELS = {"export_metrics": "pctr", "export_challenger_metrics": "pctr_challenger"}


@pytest.mark.parametrize("model", sorted(EXPORT_MODELS))
def test_external_parquet_source_equals_python(model: str, duckdb_build: Built) -> None:
    """A model on a dbt-duckdb external source builds (the column check describes a query over
    the source: `describe read_parquet(...)` is a parser error) and equals the Python API on
    the folder, slice by slice; the gates on the source pass.
    """
    out = duckdb_build.build.stdout
    assert f"OK created sql table model {SCHEMA}.{model}" in out
    assert out.count("PASS sqlmetrics_source_metric_threshold_ctr_export_ctr_export_hive") == 2
    assert out.count("PASS sqlmetrics_source_champion_challenger_ctr_export_ctr_export_hive") == 1
    got = duckdb_build.read(model)
    metrics = ["auc", "gauc", "log_loss"]
    want = sqlmetrics.evaluate(
        EXPORT, metrics, label="click", score=EXPORT_MODELS[model], group="user_id",
        by=["day", "country"],
    )  # fmt: skip
    assert list(got.columns) == list(want.columns)
    assert len(got) == 6  # 2 days x 3 countries
    for column in ("day", "country"):
        assert list(got[column].astype(str)) == list(want[column].astype(str)), column
    for column in metrics:
        assert all(_same(a, b) for a, b in zip(got[column], want[column])), column
    for column in ("n_rows", "n_groups"):
        assert list(got[column]) == list(want[column]), column


#: a missing column on each kind of external source: call -> what dbt must say
EXTERNAL_MISSING = {
    "sqlmetrics.auc(source('ctr_export', 'ctr_export_hive'), label='clicks', score='pctr')": (
        f"auc: column 'clicks' (label=) not found in data={EXPORT_HIVE}; {EXPORT_COLUMNS}"
    ),
    "sqlmetrics.evaluate(source('ctr_export', 'ctr_export_hive'), metrics=['auc'], "
    "label='click', score='pctr', by=['day', 'region'])": (
        f"evaluate: column 'region' (by=) not found in data={EXPORT_HIVE}; {EXPORT_COLUMNS}"
    ),
    "sqlmetrics.log_loss(source('ctr_export', 'ctr_export'), label='click', score='ctr')": (
        f"log_loss: column 'ctr' (score=) not found in data={EXPORT_PATH}; {EXPORT_COLUMNS}"
    ),
}


@pytest.mark.parametrize("call", sorted(EXTERNAL_MISSING))
def test_missing_column_of_an_external_source(
    call: str, inline_errors: dict[str, Compiled]
) -> None:
    _refused(inline_errors, call, EXTERNAL_MISSING[call])


@pytest.mark.parametrize("build", BUILDS)
def test_convention_equals_python(build: str, request: pytest.FixtureRequest) -> None:
    """convention= in a dbt macro sets what it sets in Python (the same generated table):
    trec_eval's ndcg@5 equals sqlmetrics.ndcg(..., convention='trec_eval'), and so on for
    trec_eval with its -l switch and slices, ranx through evaluate, torchmetrics with an
    explicit empty=, scikit-learn's zero_division (0 where undefined, in dbt without the
    warning).
    """
    built: Built = request.getfixturevalue(build)
    for model, (_, python) in CONVENTION_MODELS.items():
        got = built.read(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
            want = python(built.read)
        if isinstance(want, float):
            assert len(got) == 1, model
            column = next(c for c in got.columns if c not in ("n_rows", "n_groups"))
            assert _same(got[column].iloc[0], want), (model, got[column].iloc[0], want)
            continue
        assert list(got.columns) == list(want.columns), model
        for column in want.columns:
            if column in ("half", "country"):  # the slices
                assert list(got[column]) == list(want[column]), model
                continue
            assert all(_same(a, b) for a, b in zip(got[column], want[column])), (model, column)
    # the conventions change the values on this data (empty queries, ties, precision 0/0)
    search = built.read("search_runs")
    assert not _same(
        built.read("conv_ndcg_trec_eval")["ndcg"].iloc[0],
        sqlmetrics.ndcg(search, k=5, empty="skip", **RANKING),
    )
    sklearn = built.read("conv_evaluate_sklearn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        plain = sqlmetrics.evaluate(
            built.read("predictions"), ["precision"], label="click", score="pctr",
            threshold=0.98, by="country",
        )  # fmt: skip
    assert plain["precision"].isna().any() and not sklearn["precision"].isna().any()


CONVENTION_ERRORS = {
    "unknown convention": (
        f"sqlmetrics.ndcg(ref('search_runs'), {_RANKING_ARGS}, convention='trec')",
        lambda: resolve(get_spec("ndcg"), {"convention": "trec"}),
    ),
    "value the tool cannot produce": (
        f"sqlmetrics.ndcg(ref('search_runs'), {_RANKING_ARGS}, convention='trec_eval', "
        "ties='average')",
        lambda: resolve(get_spec("ndcg"), {"convention": "trec_eval", "ties": "average"}),
    ),
    "value the tool cannot produce, its switch named": (
        f"sqlmetrics.ndcg(ref('search_runs'), {_RANKING_ARGS}, convention='ranx', missing='skip')",
        lambda: resolve(get_spec("ndcg"), {"convention": "ranx", "missing": "skip"}),
    ),
    "recall_rounding ir_measures cannot produce": (
        f"sqlmetrics.iprec_at_recall(ref('search_runs'), {_RANKING_ARGS}, "
        "convention='ir_measures', recall_rounding='trec_eval_10')",
        lambda: resolve(
            get_spec("iprec_at_recall"),
            {"convention": "ir_measures", "recall_rounding": "trec_eval_10"},
        ),
    ),
    "metric the tool does not define": (
        "sqlmetrics.auc(ref('predictions'), label='click', score='pctr', convention='trec_eval')",
        lambda: resolve(get_spec("auc"), {"convention": "trec_eval"}),
    ),
    "evaluate: unknown convention": (
        "sqlmetrics.evaluate(ref('predictions'), metrics=['auc'], label='click', "
        "score='pctr', convention='sklern')",
        lambda: fill("evaluate", [get_spec("auc")], {"convention": "sklern"}),
    ),
    "evaluate: one call, two values": (
        f"sqlmetrics.evaluate(ref('search_runs'), metrics=['map@3', 'ndcg@3'], "
        f"{_RANKING_ARGS}, convention='torchmetrics')",
        lambda: fill(
            "evaluate", [get_spec("map"), get_spec("ndcg")], {"convention": "torchmetrics"}
        ),
    ),
    "evaluate: metric the tool does not define": (
        f"sqlmetrics.evaluate(ref('search_runs'), metrics=['ndcg@3', 'map@3'], "
        f"{_RANKING_ARGS}, convention='sklearn')",
        lambda: fill("evaluate", [get_spec("ndcg"), get_spec("map")], {"convention": "sklearn"}),
    ),
}


@pytest.mark.parametrize("case", sorted(CONVENTION_ERRORS))
def test_convention_errors_have_pythons_message(
    case: str, inline_errors: dict[str, Compiled]
) -> None:
    call, python = CONVENTION_ERRORS[case]
    _refused(inline_errors, call, _python_error(python))


# --------------------------------------------------------------------------- mergeable states
#: integration_tests/dbt_project.yml's var state_metrics, and the arguments of its two models
STATE_METRICS = ["auc", "gauc", "log_loss", "brier_score", "precision"]
STATE_ARGS = {"label": "click", "score": "pctr", "group": "user_id", "by": "country",
              "threshold": 0.3}  # fmt: skip


def _sorted_state(frame: pd.DataFrame) -> pd.DataFrame:
    keys = ["country", "click", "pctr", "user_id"]
    out = frame.astype({"sqlmetrics_state": "int64", "sqlmetrics_n": "int64", "click": "int64",
                        "user_id": "int64", "sqlmetrics_args": "str"})  # fmt: skip
    return out.sort_values(keys, na_position="last", ignore_index=True)[sorted(out.columns)]


@pytest.mark.parametrize("build", BUILDS)
def test_daily_states_are_pythons_and_merge_to_evaluate(
    build: str, request: pytest.FixtureRequest
) -> None:
    built: Built = request.getfixturevalue(build)
    out = built.build.stdout
    assert f"OK created sql incremental model {SCHEMA}.daily_states" in out
    assert f"OK created sql table model {SCHEMA}.merged_states" in out
    predictions = built.read("predictions")
    states = built.read("daily_states")
    days = sorted(predictions["day"].unique())
    assert len(days) == 2 and sorted(states["day"].unique()) == days
    for day in days:  # each day's state is Python's state of that day, its arguments too
        rows = predictions[predictions["day"] == day].reset_index(drop=True)
        want = sqlmetrics.state(rows, STATE_METRICS, **STATE_ARGS)
        got = states[states["day"] == day].drop(columns="day")
        pd.testing.assert_frame_equal(_sorted_state(got), _sorted_state(want))
    # the last two days merged in the warehouse: evaluate over their rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sqlmetrics.evaluate(predictions, STATE_METRICS, **STATE_ARGS)
        python = sqlmetrics.merge(states.drop(columns="day"), STATE_METRICS, **STATE_ARGS)
    merged = built.read("merged_states").sort_values("country", ignore_index=True)
    assert list(merged.columns) == list(want.columns)
    for column in STATE_METRICS:
        for have, expected in zip(merged[column], want[column]):
            assert _same(have, expected), (column, have, expected)
    assert list(merged["n_rows"]) == list(want["n_rows"])
    # the warehouse's states merged by Python: evaluate's frame, bit for bit
    pd.testing.assert_frame_equal(python, want, check_exact=True)


def _check_merged(built: Built, rows: pd.DataFrame) -> None:
    """merged_states (the last two days' states merged in the warehouse) is evaluate's frame
    over ``rows``, to 1e-9 (bit for bit where the engine's sums are DuckDB's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sqlmetrics.evaluate(rows, STATE_METRICS, **STATE_ARGS)
    merged = built.read("merged_states").sort_values("country", ignore_index=True)
    assert list(merged.columns) == list(want.columns)
    assert list(merged["country"]) == list(want["country"])
    for column in STATE_METRICS:
        for have, expected in zip(merged[column], want[column]):
            assert _same(have, expected), (column, have, expected)
    assert list(merged["n_rows"]) == list(want["n_rows"])


@pytest.mark.parametrize("build", BUILDS)
def test_incremental_run_adds_the_new_day(build: str, request: pytest.FixtureRequest) -> None:
    """The incremental model past its first build: daily_states rebuilt with the first day
    alone (var state_last_day), then a plain run adds the second day through the
    is_incremental() branch (its compiled statement holds the new day only); merged_states
    is evaluate over the first day, then over both. The tables end as the build left them.
    """
    built: Built = request.getfixturevalue(build)
    predictions = built.read("predictions")
    days = sorted(str(pd.Timestamp(d).date()) for d in predictions["day"].unique())
    assert len(days) == 2
    day = pd.to_datetime(predictions["day"]).dt.strftime("%Y-%m-%d")
    first = built.project.dbt(
        "run", "--select", "daily_states", "merged_states", "--full-refresh",
        "--vars", f"{{state_last_day: '{days[0]}'}}",
    )  # fmt: skip
    assert "Completed successfully" in first.stdout
    states = built.read("daily_states")
    assert sorted(str(pd.Timestamp(d).date()) for d in states["day"].unique()) == days[:1]
    _check_merged(built, predictions[day == days[0]].reset_index(drop=True))
    second = built.project.dbt("run", "--select", "daily_states", "merged_states")
    assert f"OK created sql incremental model {SCHEMA}.daily_states" in second.stdout
    compiled = next((built.project.root / "target" / "compiled").rglob("daily_states.sql"))
    statement = compiled.read_text()
    assert f"'{days[1]}'" in statement and f"'{days[0]}'" not in statement  # the new day only
    states = built.read("daily_states")
    assert sorted(str(pd.Timestamp(d).date()) for d in states["day"].unique()) == days
    assert len(states) == len(built.read("daily_states").drop_duplicates())
    _check_merged(built, predictions)


STATE_CALL = "sqlmetrics.evaluate_state('t', metrics=['auc'], score='sqlmetrics_n')"


def test_state_macro_errors_have_pythons_message(inline_errors: dict[str, Compiled]) -> None:
    day = pd.DataFrame({"label": [1, 0], "sqlmetrics_n": [0.5, 0.2]})
    message = _python_error(lambda: sqlmetrics.state(day, "auc", score="sqlmetrics_n"))
    _refused(inline_errors, STATE_CALL, message)


def _bad_count_states(count: str) -> str:
    """A relation of two brier_score state rows, (label=1, score=0.9, sqlmetrics_n=1) and
    (label=0, score=0.6, sqlmetrics_n=``count``), as a subquery for a dbt call."""
    rows = f"(1, 'x', 1, cast(0.9 as double), 1), (1, 'x', 0, cast(0.6 as double), {count})"
    names = "sqlmetrics_state, sqlmetrics_args, label, score, sqlmetrics_n"
    return f'"(select * from (values {rows}) as v({names})) as states"'


#: issue 39: a count that is not a positive integer -> merge_states' call on such states
STATE_COUNTS = {"0": 0, "-1": -1, "NULL": None, "1.5": 1.5}
STATE_COUNT_CALLS = {
    shown: f"sqlmetrics.merge_states({_bad_count_states(shown)}, metrics='brier_score')"
    for shown in STATE_COUNTS
}
#: the same states under the gate's states: true mode (the rows it replays)
STATE_COUNT_CALLS["gate"] = (
    f"sqlmetrics.test_metric_threshold(model={_bad_count_states('0')}, metric='brier_score', "
    "max=1, states=true)"
)


@pytest.mark.parametrize("shown", [*STATE_COUNTS, "gate"])
def test_merge_states_refuses_a_count_that_is_not_a_positive_integer(
    shown: str, inline_errors: dict[str, Compiled]
) -> None:
    """merge_states (and the gate on states) refuses a state row whose sqlmetrics_n is 0,
    negative, fractional or NULL with Python merge's message (the fix names dbt's
    evaluate_state), where the replay dropped or miscounted the row silently before."""
    count = STATE_COUNTS.get(shown, 0)
    day = pd.DataFrame({"label": [1, 0], "score": [0.9, 0.6]})
    bad = sqlmetrics.state(day, "brier_score").astype({"sqlmetrics_n": "object"})
    bad.loc[bad["label"] == 0, "sqlmetrics_n"] = count
    message = _python_error(lambda: sqlmetrics.merge([bad], "brier_score"))
    assert "(label=0, score=0.6)" in message
    message = message.removesuffix("sqlmetrics.state") + "sqlmetrics.evaluate_state"
    if shown == "gate":
        message = message.replace("merge:", "metric_threshold:", 1)
    _refused(inline_errors, STATE_COUNT_CALLS[shown], message)


def _gate_macro(name: str) -> Any:
    """A macro of dbt/macros/tests/champion_challenger.sql rendered by plain Jinja, with the
    package's float_literal and float_type as Python renders them for DuckDB."""
    text = (MACROS / "tests" / "champion_challenger.sql").read_text()
    start = text.index("{% macro " + name + "(")
    body = text[start : text.index("{%- endmacro %}", start) + len("{%- endmacro %}")]
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    namespace = _templates.environment().globals["sqlmetrics"]

    class Package:
        def float_literal(self, x: float) -> str:
            return str(namespace["float_literal"](x)).strip()

        def float_type(self) -> str:
            return "double"

    return getattr(env.from_string(body).make_module({"sqlmetrics": Package()}), name)


def test_mcnemar_p_of_the_gate_is_compares() -> None:
    """The gate's McNemar p-value in SQL (exact binomial table below 25 discordant rows,
    chi^2 above) against compare()'s mcnemar_p, for every split of 0..40 discordant rows."""
    from sqlmetrics._inference.compare import mcnemar_p

    pairs = [(a, nd - a) for nd in range(41) for a in range(nd + 1)]
    values = ", ".join(f"({i}, 1, {a}, {b})" for i, (a, b) in enumerate(pairs))
    counts = f"select * from (values {values}) as t(slice_0, model, n10, n01)"
    sql = _gate_macro("sqlmetrics_mcnemar_p")(counts, 1)
    got = duckdb.sql(sql + " order by slice_0").fetchall()
    assert len(got) == len(pairs)
    for (i, p), (a, b) in zip(got, pairs, strict=True):
        assert pairs[i] == (a, b)
        want = mcnemar_p(a, b)
        if a + b < 25:  # the exact table: Python's numbers, bit for bit
            assert p == want, (a, b)
        else:  # erfc by the Chebyshev fit: 1.2e-7 relative
            assert math.isclose(p, want, rel_tol=2e-7), (a, b, p, want)
