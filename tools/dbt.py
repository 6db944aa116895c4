"""Keep the dbt package one source with ``sql/`` (decision 0009).

The repository root is the dbt package: ``dbt_project.yml`` there reads its macros from
``sql/`` (the templates themselves, no copies) and ``dbt/macros/`` (dbt only). Three things
keep it whole, all done by ``python -m tools.dbt`` and checked by ``--check`` (run by
the tests), which names every file that is stale:

- the calls between templates are written ``sqlmetrics.<name>(...)`` in ``sql/`` itself
  (:func:`qualify_templates`): dbt needs them so (a package macro does not see its siblings by
  bare name), and in Python ``sqlmetrics`` is the namespace mapping, so the same text renders
  the same SQL. A template written with bare calls is qualified by the command, never by hand;
- ``dbt/macros/_generated/registry.sql``: the macro ``sqlmetrics_registry()`` returning the
  registry's facts as a Jinja literal: metric names, roles, options with their defaults,
  aliases, ``@k`` forms, kernels and needs, the output columns of the table
  metrics, and the conventions table (``convention=``, sqlmetrics/_core/conventions.py);
  ``dbt/macros/metrics/<metric>.sql``: one public macro per registered metric, a one-line call
  of the package's implementation (``sqlmetrics_metric`` or ``sqlmetrics_table``). Generated
  from the Python registry (the name table dbt cannot compute), committed, kept fresh by
  ``--check``;
- ``dbt/macros/_generated/checks.sql``: the option checks as data (``sqlmetrics_checks()``):
  per option what it accepts (:data:`RULES`: None, booleans, words, a number's kind and range,
  an upper limit, the allowed strings) and its messages, read from the Python check itself by
  calling it with values it refuses (:func:`option_checks`), so that a message changed in
  Python reaches dbt by this command alone; the cross-option checks and the checks of
  ir_measures' parameters in a name likewise. dbt/macros/core/checks.sql reads the table; a
  new option whose check has no rule here stops the command.
"""

from __future__ import annotations

import argparse
import inspect
import math
import re
import sys
from pathlib import Path
from typing import Any

import duckdb

from sqlmetrics._core.conventions import CONVENTIONS, DEFINITIONAL
from sqlmetrics._core.ir_names import (
    DCG,
    IR_DECLARED,
    IR_DEFAULTS,
    IR_PARAMS,
    _translate,
    ir_forms,
    ir_names,
)
from sqlmetrics._core.names import metric_form, metric_names
from sqlmetrics._core.registry import (
    ALIASES,
    CI_METHODS,
    CI_PARAM_NAMES,
    K_MAX,
    N_BOOT_MAX,
    PARAMS,
    REGISTRY,
    Flag,
    MetricSpec,
    Number,
    default_of,
)
from sqlmetrics._engine.run import check_params, render_sql
from sqlmetrics._evaluate import monitor
from sqlmetrics._evaluate._api_monitor import metric_anomalies
from sqlmetrics._evaluate._api_position_bias import click_metrics, position_propensities
from sqlmetrics._evaluate.position_bias import METRICS as CLICK_METRICS
from sqlmetrics._inference.intervals import AUC_BOOT_BUCKETS
from sqlmetrics._metrics.calibration import N_BINS_MAX
from sqlmetrics._metrics.classification_bounds import MAX_BINS
from sqlmetrics._metrics.classification_curves import DOUBLE_EPS
from sqlmetrics._templating.quoting import quote_ident
from sqlmetrics._templating.templates import macro_names, sql_dir, sql_files
from sqlmetrics.errors import InvalidParameterError

from .resample import AS241_A, AS241_B, AS241_C, AS241_D

__all__ = ["check", "generated_files", "main", "package_dir", "write"]

#: a Python ParamSpec check that is not declared as data (a registry.Number or Flag, whose
#: :meth:`rule` it is) (by its function's name) -> what it accepts, as the table-driven
#: Jinja check reads it (dbt/macros/core/checks.sql::sqlmetrics_check_option): ``none``,
#: ``bool``, ``string``: None, booleans, any string pass as they are; ``words``: strings that
#: stand for a value; ``number``: ``real`` (finite), ``int`` or ``any`` (NaN included), within
#: ``range`` ([low, low included, high, high included], None: open) and, where given, one of
#: ``values``; ``out``: the number returned as ``float``, as ``num`` (an int when integral) or
#: as it is; ``limit``: an upper bound with a message of its own; ``special``: the checks with
#: several messages over their items (beta, gains, labels). The messages are not written here:
#: :func:`option_checks` reads them from the Python check itself (:data:`PROBES`).
RULES: dict[str, dict[str, Any]] = {
    "check_real": {"number": "real", "out": "float"},
    "check_beta": {"number": "real", "out": "float", "special": "beta"},
    "check": {},  # check_choice(*allowed): the allowed strings
    "check_zero_division": {"words": {"warn": "warn"}, "number": "any", "values": [0, 1, "nan"],
                            "out": "float"},
    "check_pos_label": {"none": True, "bool": True, "string": True, "number": "real", "out": "num"},
    "_check_kappa_weights": {"none": True, "allowed": ["linear", "quadratic"]},
    "check_gains": {"none": True, "special": "gains"},
    "check_labels": {"none": True, "special": "labels"},
    # the interval options (ci=, ci_method=, n_boot=, seed=: dbt/macros/core/intervals.sql)
    "check_ci_method": {"none": True, "allowed": list(CI_METHODS)},
}  # fmt: skip

#: a cross-option check (by its function's name) -> its Jinja name and when it refuses: every
#: option of ``when`` has one of its values and no option of ``unless`` has one of its; the
#: message is read from the Python check (:func:`option_checks`), ``{value}`` the value of the
#: ``unless`` option
CROSS_CHECKS: dict[str, tuple[str, dict[str, Any]]] = {
    "_check_map_params": ("map_ties_hits", {"when": {"ties": ["average"],
                                                     "ap_denominator": ["hits"]}}),
    "_check_ties": ("no_tie_average", {"when": {"ties": ["average"]}}),
    "_check_hit_ratio_params": ("hit_ratio_empty", {"when": {"empty": ["one"]}}),
    "_check_count_params": ("count_empty_one", {"when": {"empty": ["one"]}}),
    "_check_combination": ("ovo_average", {"when": {"multi_class": ["ovo"]},
                                           "unless": {"auc_average": ["macro", "weighted"]}}),
}  # fmt: skip


class _Probe:
    """A value no check accepts, whose ``repr`` marks where a message shows the value."""

    def __init__(self, mark: str) -> None:
        self.mark = mark

    def __repr__(self) -> str:
        return f"\x00{self.mark}\x00"

    __str__ = __repr__


#: the metric name a probed message is given, written ``{metric}`` in its template
_METRIC = "\x00metric\x00"


def _refusal(call: Any, *args: Any) -> str:
    """The message of the InvalidParameterError ``call(*args)`` raises."""
    try:
        call(*args)
    except InvalidParameterError as exc:
        return str(exc)
    raise RuntimeError(f"{call.__name__}{args!r} raised nothing: the probe needs updating")


def _template(message: str, **shown: str) -> str:
    """``message`` with the metric and each text of ``shown`` (in order) as ``{name}``."""
    out = message.replace(_METRIC, "{metric}")
    for placeholder, text in shown.items():
        if text not in out:
            raise RuntimeError(f"probe: {text!r} not in {message!r}")
        out = out.replace(text, "{" + placeholder + "}")
    if "\x00" in out:
        raise RuntimeError(f"probe: a mark left in {out!r}")
    return out


def _messages(name: str, rule: dict[str, Any]) -> dict[str, str]:
    """Option ``name``'s messages, read from its Python check by values that make it refuse."""
    validate = PARAMS[name].validate
    value = _Probe("value")

    def say(probe: Any, **shown: str) -> str:
        return _template(_refusal(validate, _METRIC, probe), **shown)

    out = {"type": say(value, value=repr(value))}
    if "limit" in rule:
        out["limit"] = say(rule["limit"] + 1, value=repr(rule["limit"] + 1))
    special = rule.get("special")
    if special == "beta":
        out["negative"] = say(-1.0, value="-1.0")
        out["square"] = say(1e155, value="1e+155")
    elif special == "gains":
        out["level"] = say({1.5: 1}, level="1.5")
        out["gain"] = say({12345: value}, gain=repr(value), level="12345")
        out["range"] = say({2**60: 1}, level=str(2**60))
    elif special == "labels":
        out["empty"] = say([])
        out["holds"] = say([value], item=repr(value))
        out["mixes"] = say(["a", 1], kinds="number, text", value="['a', 1]")
        out["twice"] = say(["a", "a"], value="['a', 'a']", item="'a'")
    return out


def option_checks() -> dict[str, Any]:
    """The option checks as data for dbt/macros/core/checks.sql: per option its rule
    (:data:`RULES`) and its messages, per cross-option check its condition and message; every
    message is the Python check's own, read by calling it (``{metric}``, ``{value}``, ...
    stand for what dbt fills in).
    """
    options: dict[str, Any] = {}
    for name, spec in PARAMS.items():
        validate = spec.check
        declared = isinstance(validate, (Number, Flag))  # the check is its rule's data
        rule = (
            validate.rule()
            if isinstance(validate, (Number, Flag))
            else RULES.get(validate.__name__)
        )
        if rule is None:
            raise RuntimeError(
                f"option {name!r}: its check {validate.__name__} has no rule in "
                f"tools.dbt.RULES; declare it as a registry.Number or Flag, or describe what it "
                f"accepts there"
            )
        rule = dict(rule)
        if not declared and validate.__name__ == "check":
            rule["allowed"] = list(spec.check.allowed)  # type: ignore[attr-defined]
        options[name] = {**rule, "messages": _messages(name, rule)}
    cross: dict[str, Any] = {}
    for metric in REGISTRY.values():
        check = metric.check_params
        if check is None or check.__name__ in {c for c, _ in cross.values()}:
            continue
        if check.__name__ not in CROSS_CHECKS:
            raise RuntimeError(f"{metric.name}: cross-option check {check.__name__} has no rule")
        jinja, condition = CROSS_CHECKS[check.__name__]
        params = {o: values[0] for o, values in condition["when"].items()}
        shown: dict[str, str] = {}
        for option in condition.get("unless", {}):
            params[option] = _Probe("value")
            shown["value"] = repr(params[option])
        message = _template(_refusal(check, _METRIC, params), **shown)
        cross[jinja] = (check.__name__, {**condition, "message": message})
    return {
        "options": options,
        "cross": {jinja: facts for jinja, (_, facts) in sorted(cross.items())},
        "ir": _ir_checks(),
        "anomalies": anomaly_checks(),
        "position_bias": position_bias_checks(),
    }


#: metric_anomalies' options in the order monitor.check_options takes them (after the metric)
ANOMALY_OPTIONS = (*monitor.OPTIONS, "ci_level")
#: of them, the integers (monitor._integer): their lowest value is probed
ANOMALY_INTEGERS = ("window", "delay", "min_rows", "min_history")


def anomaly_checks() -> dict[str, Any]:
    """The checks of metric_anomalies' options (sqlmetrics/_evaluate/monitor.py::check_options) for
    the dbt test metric_anomaly (dbt/macros/tests/metric_anomaly_options.sql): the defaults
    (the Python function's signature), the allowed words, each integer's lowest value and
    every message, read by calling ``check_options`` with a value it refuses (``{value}`` the
    value's repr; ``{name}`` the metric's and ``{default}`` its default direction's, in
    direction='s).
    """
    signature = inspect.signature(metric_anomalies).parameters
    defaults = {name: signature[name].default for name in ANOMALY_OPTIONS}
    value = _Probe("value")

    def refusal(metric: Any, **given: Any) -> str:
        args = {**defaults, **given}
        return _refusal(monitor.check_options, metric, *(args[n] for n in ANOMALY_OPTIONS))

    def accepts(name: str, given: int) -> bool:
        try:
            monitor.check_options("auc", *({**defaults, name: given}[n] for n in ANOMALY_OPTIONS))
        except InvalidParameterError:
            return False
        return True

    name_mark, default_mark = "\x00name\x00", "\x00default\x00"

    def marked_default(metric: str) -> str:
        return default_mark

    messages = {"metric": _template(refusal(value), value=repr(value))}
    for name in ANOMALY_OPTIONS:
        if name == "direction":
            original = monitor.default_direction
            monitor.default_direction = marked_default
            try:
                message = refusal(name_mark, direction=value)
            finally:
                monitor.default_direction = original
            messages[name] = _template(
                message, value=repr(value), name=repr(name_mark), default=repr(default_mark)
            )
        else:
            messages[name] = _template(refusal("auc", **{name: value}), value=repr(value))
    return {
        "defaults": defaults,
        "seasonalities": list(monitor.SEASONALITIES),
        "directions": list(monitor.DIRECTIONS),
        "lowest": {n: next(i for i in range(10) if accepts(n, i)) for n in ANOMALY_INTEGERS},
        "messages": messages,
    }


#: the column arguments of position_propensities and click_metrics, in the order checked
PROPENSITY_COLUMNS = ("position", "click", "intervention")
CLICK_COLUMNS = ("group", "position", "click", "score")


def position_bias_checks() -> dict[str, Any]:
    """The argument checks of position_propensities and click_metrics
    (sqlmetrics/_evaluate/position_bias.py) for their dbt macros
    (dbt/macros/api/position_bias.sql): the defaults (the functions' signatures), the
    metrics, and every message, read by calling the Python function with a value it refuses
    before it reads any data (``{value}`` the value's repr; ``{by}``, ``{col}``, ``{pos}``,
    ``{p}`` the other values a message shows).
    """
    value = _Probe("value")
    col = "probe_column"

    def say(call: Any, given: dict[str, Any], **shown: str) -> str:
        def run() -> None:
            call(None, **given)

        run.__name__ = call.__name__
        return _template(_refusal(run), **shown)

    props: dict[str, Any] = {"position": "p", "click": "c"}
    clicks: dict[str, Any] = {"group": "g", "position": "p", "click": "c", "score": "s",
                              "propensity": "q"}  # fmt: skip
    messages: dict[str, dict[str, str]] = {"position_propensities": {}, "click_metrics": {}}
    out = messages["position_propensities"]
    for arg in PROPENSITY_COLUMNS:
        out[arg] = say(position_propensities, {**props, arg: value}, value=repr(value))
        by = [col]
        out[f"{arg}_in_by"] = say(
            position_propensities, {**props, arg: col, "by": by}, by=repr(by), col=repr(col)
        )
    out["max_position"] = say(
        position_propensities, {**props, "max_position": value}, value=repr(value)
    )
    out["ci_level"] = say(position_propensities, {**props, "ci_level": value}, value=repr(value))
    out = messages["click_metrics"]
    for arg in CLICK_COLUMNS:
        out[arg] = say(click_metrics, {**clicks, arg: value}, value=repr(value))
    by = [col]
    out["group_in_by"] = say(
        click_metrics, {**clicks, "group": col, "by": by}, by=repr(by), col=repr(col)
    )
    out["k"] = say(click_metrics, {**clicks, "k": value}, value=repr(value))
    names = [col]
    out["metrics"] = say(click_metrics, {**clicks, "metrics": names}, value=repr(names))
    out["propensity_empty"] = say(click_metrics, {**clicks, "propensity": ""})
    out["propensity"] = say(click_metrics, {**clicks, "propensity": value}, value=repr(value))
    pos, p = _Probe("pos"), _Probe("p")
    out["propensity_item"] = say(
        click_metrics, {**clicks, "propensity": {pos: p}}, pos=repr(pos), p=repr(p)
    )
    defaults = {
        function.__name__: {
            name: list(param.default) if isinstance(param.default, tuple) else param.default
            for name, param in inspect.signature(function).parameters.items()
            if param.default is not inspect.Parameter.empty and name not in ("con", "where")
        }
        for function in (position_propensities, click_metrics)
    }
    return {"defaults": defaults, "metrics": list(CLICK_METRICS), "messages": messages}


#: ir_measures' parameters with a check of their own before their option's
#: (sqlmetrics/_core/ir_names.py::_translate), as :data:`RULES` reads them, and a metric
#: that takes each
IR_RULES: dict[str, tuple[str, dict[str, Any]]] = {
    "dcg": ("ndcg", {"allowed": sorted(DCG)}),
    "rel": ("precision_at_k", {"number": "int", "range": [1, True, None, False]}),
    "judged_only": ("map", {"bool": True}),
}


def _ir_checks() -> dict[str, Any]:
    """The checks of ir_measures' parameters in a name (``P(rel=0)@5``) with the Python
    messages (``{who}``, ``{text}``, ``{name}``, ``{param}``, ``{value}`` filled by dbt), and
    the words around an option's own message (``is not valid (...)``).
    """
    who, text, name = "\x00who\x00", "\x00text\x00", "\x00name\x00"
    value = _Probe("value")
    shown = {"who": who, "text": repr(text), "name": name}

    def template(message: str, **more: str) -> str:
        for placeholder, mark in shown.items():
            message = message.replace(mark, "{" + placeholder + "}")
        return _template(message, **more)

    rules: dict[str, Any] = {}
    for param, (metric, rule) in IR_RULES.items():
        spec = REGISTRY[metric]
        message = _refusal(_translate, who, text, name, spec, param, value)
        rules[param] = {**rule, "messages": {"type": template(message, value=repr(value))}}
    # gains= whose own check refuses: the words around the option's message
    bad = {0: value}
    inner = _refusal(PARAMS["gains"].validate, text, bad)
    outer = _refusal(_translate, who, text, name, REGISTRY["ndcg"], "gains", bad)
    before, after = outer.split(inner)
    return {
        "params": rules,
        "invalid": [
            template(before, value=repr(bad), param="gains"),
            template(after, param="gains"),
        ],
    }


def _checks_file() -> str:
    return (
        "{# generated by `python -m tools.dbt` from the option checks of the registry\n"
        "   (sqlmetrics/_core/registry.py PARAMS and check_params, tools/dbt.py RULES): what\n"
        "   each option accepts and the Python check's own messages; do not edit, run the\n"
        "   generator #}\n"
        "{% macro sqlmetrics_checks() -%}\n"
        "{{ return(" + jinja_literal(option_checks(), 0) + ") }}\n"
        "{%- endmacro %}\n"
    )


def package_dir() -> Path:
    """The dbt package of the checkout: its root (``dbt_project.yml``, ``sql/``, ``dbt/``)."""
    return sql_dir().parent


#: where the generated files go, relative to the package root
GENERATED = "dbt/macros"


def jinja_literal(value: Any, indent: int = 0) -> str:
    """``value`` (dicts, lists, strings, numbers, booleans, None) as a Jinja literal."""
    pad = "    " * (indent + 1)
    end = "    " * indent
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"no Jinja literal for {value!r}")
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{pad}{jinja_literal(k)}: {jinja_literal(v, indent + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{end}}}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return "[" + ", ".join(jinja_literal(v) for v in value) + "]"
        items = [f"{pad}{jinja_literal(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{end}]"
    raise TypeError(f"no Jinja literal for {type(value).__name__}")


def _param_facts(name: str) -> dict[str, Any]:
    return {"default": PARAMS[name].default}


def _table_columns(spec: MetricSpec) -> dict[str, list[str]]:
    """The output columns of a table metric after its slices, without and with a weight.

    Rendered by the Python layer over an empty table and read back from DuckDB, so the
    dbt macros name exactly the columns the template gives.
    """
    con = duckdb.connect()
    con.execute(
        "create table t (label integer, score double, prediction integer, weight double, "
        '"group" integer, item integer)'
    )
    out: dict[str, list[str]] = {}
    for weighted in (False, True):
        columns: dict[str, str | None] = {r.name: r.name for r in spec.roles}
        if not weighted:
            columns["weight"] = None
        if "prediction" in columns and "threshold" in spec.params:
            columns["prediction"] = None
        sql = render_sql(spec, quote_ident("t"), columns, check_params(spec, {}))
        names = [d[0] for d in con.execute(f"select * from ({sql}) as q limit 0").description]
        out["weighted" if weighted else "plain"] = names
    con.close()
    return out


def _convention_value(value: Any) -> Any:
    """A convention's value as the dbt facts hold it: scikit-learn's ``'warn'``
    (``SklearnWarn``) as 0.0 (a model has no warnings; an undefined value is 0 there too),
    NaN as the string ``'nan'`` (a Jinja literal has no NaN; conventions.sql compares so).
    """
    if isinstance(value, float):
        return "nan" if math.isnan(value) else float(value)
    return value


def convention_facts() -> dict[str, Any]:
    """:data:`sqlmetrics._core.conventions.CONVENTIONS` as plain data for the dbt macros."""
    out: dict[str, Any] = {}
    for name, c in CONVENTIONS.items():  # in their order: messages list them so
        out[name] = {
            "name": c.name,
            "tool": c.tool,
            "metrics": list(c.metrics),
            "sets": {o: _convention_value(v) for o, v in c.sets.items()},
            "by_metric": {
                m: {o: _convention_value(v) for o, v in options.items()}
                for m, options in c.by_metric.items()
            },
            "adjustable": {
                o: {
                    "allowed": None if allowed is None else [_convention_value(v) for v in allowed],
                    "switch": switch,
                }
                for o, (allowed, switch) in c.adjustable.items()
            },
            "spelled": {
                o: {word: _convention_value(v) for word, v in words.items()}
                for o, words in c.spelled.items()
            },
            "with_cutoff": {
                m: {o: _convention_value(v) for o, v in options.items()}
                for m, options in c.with_cutoff.items()
            },
        }
    return out


def _inference_facts(spec: MetricSpec) -> dict[str, Any]:
    """A metric's interval facts as the dbt ``ci`` macros read them
    (dbt/macros/core/intervals.sql): its methods, default first, and what picks the SQL.
    """
    inference = spec.inference
    proportion = inference.proportion
    return {
        "ci_methods": list(inference.ci_methods),
        "proportion": [list(proportion[0]), list(proportion[1])] if proportion else None,
        "bucket_bootstrap": inference.bucket_bootstrap,
        "group_mean": inference.group_mean,
        # the per-row loss of a mean over rows ("ll", "sq", "miss"): ci_row_mean_query
        "row_mean": inference.row_mean,
        "counts_macro": inference.counts_macro,
        # compare's paired statement and tests, default first (champion_challenger's test=)
        "paired": inference.paired,
        "tests": list(inference.tests),
        # compare_losses' per-row loss ("ll", "sq") of the losses' t-test
        "loss": inference.loss,
        # how the groups weigh in the groups' t-test ("weighting": GAUC's weights)
        "group_weights": inference.group_weights,
    }


def ir_facts() -> dict[str, Any]:
    """ir_measures' names (sqlmetrics/_core/ir_names.py) as the dbt macros read them
    (dbt/macros/core/ir_names.sql): base name -> metric, its parameters -> our options,
    nDCG's DCG formulations, the defaults a name fixes, the names as users write them.
    """
    return {
        "names": {base: spec.name for base, spec in sorted(ir_names().items())},
        "params": dict(IR_PARAMS),
        "declared": {base: list(params) for base, params in IR_DECLARED.items()},
        "dcg": {name: dict(options) for name, options in DCG.items()},
        "defaults": dict(IR_DEFAULTS),
        "forms": ir_forms(),
    }


def registry_facts() -> dict[str, Any]:
    """What the dbt macros know of the registry, as plain data."""
    metrics: dict[str, Any] = {}
    for spec in sorted(REGISTRY.values(), key=lambda s: s.name):
        check = spec.check_params
        if check is not None and check.__name__ not in CROSS_CHECKS:
            raise RuntimeError(
                f"{spec.name}: cross-option check {check.__name__} has no Jinja twin"
            )
        facts: dict[str, Any] = {
            "form": metric_form(spec),
            "family": spec.family,
            "kernel": spec.kernel,
            "output": spec.output,
            # which way is better: metric_anomaly's default direction (monitor.default_direction)
            "better": spec.better,
            "roles": [{"name": r.name, "kind": r.kind, "required": r.required} for r in spec.roles],
            "params": list(spec.params),
            "defaults": {p: default_of(spec, p) for p in spec.params},
            "takes_k": spec.takes_k,
            "needs": list(spec.needs),
            "undefined": spec.undefined,
            "state": spec.state,
            "cross_check": CROSS_CHECKS[check.__name__][0] if check is not None else None,
            "inference": _inference_facts(spec),
        }
        if spec.output == "table":
            facts["columns"] = _table_columns(spec)
        metrics[spec.name] = facts
    kernels: dict[str, dict[str, Any]] = {}
    for spec in REGISTRY.values():  # the options kernel_sql fills, in its order
        filled = kernels.setdefault(str(spec.kernel), {})
        for name in spec.params:
            if name != "k":
                filled[name] = default_of(spec, name)
    return {
        "metrics": metrics,
        "aliases": dict(sorted(ALIASES.items())),
        "params": {name: _param_facts(name) for name in PARAMS},
        "ci": {
            "params": list(CI_PARAM_NAMES),
            "methods": list(CI_METHODS),
            "n_boot_max": N_BOOT_MAX,
            "auc_boot_buckets": AUC_BOOT_BUCKETS,
            # AS241 (PPND16), the normal quantile of the interval's level, as CPython's
            # statistics.NormalDist computes it
            # (sql/_macros/inference/intervals.sql::ci_normal_factor)
            "as241": [list(AS241_A), list(AS241_B), list(AS241_C), list(AS241_D)],
        },
        "forms": metric_names(),
        "scalar_forms": metric_names(scalar_only=True),
        "known": sorted([*REGISTRY, *ALIASES]),
        "kernel_defaults": kernels,
        "double_eps": DOUBLE_EPS,
        "k_max": K_MAX,
        "max_bins": MAX_BINS,
        "n_bins_max": N_BINS_MAX,
        "conventions": convention_facts(),
        "definitional": sorted(DEFINITIONAL),
        "ir_measures": ir_facts(),
    }


def _registry_file() -> str:
    return (
        "{# generated by `python -m tools.dbt` from sqlmetrics/_core/registry.py\n"
        "   (the metrics' names, roles, options, defaults, aliases) and\n"
        "   sqlmetrics/_core/conventions.py (convention=), sqlmetrics/_core/ir_names.py\n"
        "   (ir_measures' names): do not edit, run the generator #}\n"
        "{% macro sqlmetrics_registry() -%}\n"
        "{{ return(" + jinja_literal(registry_facts(), 0) + ") }}\n"
        "{%- endmacro %}\n"
        "\n"
        "{# A family's kernel called by its name (the registry's kernel of a metric): every\n"
        "   kernel written out once, so that each is a plain call dbt's static analysis of a\n"
        "   generic test finds (dbt compiles a test with only the macros it finds called) #}\n"
        "{% macro sqlmetrics_kernel(kernel, relation, by, columns, options, entries) -%}\n"
        + _kernel_chain()
        + "{%- endmacro %}\n"
    )


def _kernel_chain() -> str:
    """The body of ``sqlmetrics_kernel``: one branch per kernel of the registry."""
    kernels = sorted({spec.kernel for spec in REGISTRY.values() if spec.kernel})
    lines = [
        f"{{%- {'if' if i == 0 else 'elif'} kernel == '{name}' -%}}"
        f"{{{{ sqlmetrics.{name}(relation, by, columns, options, entries) }}}}\n"
        for i, name in enumerate(kernels)
    ]
    fail = (
        "{%- else -%}{{ sqlmetrics.sqlmetrics_fail('sqlmetrics_kernel: no kernel ' ~ "
        "sqlmetrics.sqlmetrics_repr(kernel) ~ ' in the registry; run python -m "
        "tools.dbt') }}\n"
    )
    return "".join(lines) + fail + "{%- endif -%}\n"


def _api_file(spec: MetricSpec) -> str:
    roles = ", ".join(
        f"{r.name}=" + ("" if r.required else "(optional)") for r in spec.roles
    ).replace("=(optional)", "= (optional)")
    options = ", ".join(f"{p}={default_of(spec, p)!r}" for p in spec.params) or "none"
    impl = "sqlmetrics_metric" if spec.output == "scalar" else "sqlmetrics_table"
    return (
        "{#\n"
        f"  {spec.name}: {spec.summary}.\n"
        f"  Columns: {roles}; by= slice columns. Options (defaults): {options}.\n"
        f"  Undefined: {spec.undefined}.\n"
        + (
            f"  ci=level (ci_method=, n_boot=, seed=): adds {spec.name}_lo, {spec.name}_hi, "
            f"computed in SQL as {spec.name}(..., ci=) computes them; methods "
            f"{', '.join(spec.inference.ci_methods)} (t and weighted Wilson: Python only).\n"
            if spec.output == "scalar"
            else ""
        )
        + "  Generated by `python -m tools.dbt` from sqlmetrics/_core/registry.py;\n"
        "  the SQL is"
        f"  sql/{spec.template}.\n"
        "#}\n"
        f"{{% macro {spec.name}(relation, by=none) -%}}\n"
        f"{{{{ return(sqlmetrics.{impl}('{spec.name}', relation, by, kwargs)) }}}}\n"
        "{%- endmacro %}\n"
    )


_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_DEFINES = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(")

#: a string literal inside a Jinja tag
_STRING = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", re.S)

#: a Jinja comment (left alone), expression or statement tag
_TAG = re.compile(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", re.S)


def qualify(text: str, names: set[str]) -> str:
    """``text`` with every call of one of ``names`` inside a Jinja tag written
    ``sqlmetrics.<name>(...)``; comments, SQL text, string literals inside tags and
    ``{% macro %}`` lines untouched. Idempotent: a call already qualified is left as it is.

    dbt resolves an unqualified macro name in the namespace of the node being compiled (the
    user's model), not in the package that defines the macro: a package macro reaches its
    siblings only as ``<package>.<name>`` (dbt-utils writes ``dbt_utils.`` everywhere). In
    the Python environment ``sqlmetrics`` is the namespace mapping and Jinja's attribute
    lookup falls back to its items, so the qualified text renders the same SQL there.
    """
    if not names:
        return text
    call = re.compile(r"(?<![\w.])(" + "|".join(sorted(names, key=len, reverse=True)) + r")\s*\(")

    def tag(match: re.Match[str]) -> str:
        body = match.group(0)
        if body.startswith("{#") or re.match(r"\{%-?\s*macro\b", body):
            return body
        # the odd parts are string literals ('row_number() over' is SQL, not a call)
        parts = _STRING.split(body)
        return "".join(
            part if i % 2 else call.sub(r"sqlmetrics.\1(", part) for i, part in enumerate(parts)
        )

    return _TAG.sub(tag, text)


def _qualified(root: Path) -> dict[str, tuple[str, str]]:
    """Per file under ``<root>/sql`` (``sql/<path>``): its text and its text qualified."""
    folder = root / "sql"
    files = {p.relative_to(root).as_posix(): p.read_text() for p in sorted(folder.rglob("*.sql"))}
    names = {name for text in files.values() for name in _DEFINES.findall(_COMMENT.sub("", text))}
    return {path: (text, qualify(text, names)) for path, text in files.items()}


def unqualified(root: Path | None = None) -> list[str]:
    """The files ``sql/<path>`` where a template macro is called by its bare name
    (:func:`qualify` would change them).
    """
    return [p for p, (text, new) in _qualified(root or package_dir()).items() if new != text]


def qualify_templates(root: Path | None = None) -> list[str]:
    """Rewrite every file ``sql/<path>`` whose calls are not all qualified; return them.

    The one way calls get qualified: write a template with bare or qualified calls and run
    ``python -m tools.dbt`` (``--check`` and a test fail until then).
    """
    root = root or package_dir()
    changed = []
    for path, (text, new) in _qualified(root).items():
        if new != text:
            (root / path).write_text(new)
            changed.append(path)
    return changed


def template_macros() -> set[str]:
    """The names of every macro defined under ``sql/``."""
    return {name for path in sql_files() for name in macro_names(path)}


def generated_files() -> dict[str, str]:
    """Every generated file of the package: path relative to its root -> its text."""
    files: dict[str, str] = {
        f"{GENERATED}/_generated/registry.sql": _registry_file(),
        f"{GENERATED}/_generated/checks.sql": _checks_file(),
    }
    for spec in REGISTRY.values():
        files[f"{GENERATED}/metrics/{spec.name}.sql"] = _api_file(spec)
    return files


def _generated_on_disk(root: Path) -> set[str]:
    found = {p.relative_to(root).as_posix() for p in (root / GENERATED / "metrics").glob("*.sql")}
    found |= {
        p.relative_to(root).as_posix() for p in (root / GENERATED / "_generated").glob("*.sql")
    }
    return {p for p in found if (root / p).is_file()}


def check(root: Path | None = None) -> list[str]:
    """What ``python -m tools.dbt`` would change, relative to the package root: the
    files of ``sql/`` with a bare call, and the generated files missing, stale or left over.
    """
    root = root or package_dir()
    wanted = generated_files()
    stale = [
        p
        for p, text in wanted.items()
        if not (root / p).is_file() or (root / p).read_text() != text
    ]
    extra = sorted(_generated_on_disk(root) - set(wanted))
    return unqualified(root) + sorted(stale) + extra


def write(root: Path | None = None) -> list[str]:
    """Qualify the calls of ``sql/``, write the generated files (and remove left-over ones);
    return what changed.
    """
    root = root or package_dir()
    changed = check(root)
    qualify_templates(root)
    wanted = generated_files()
    for path in _generated_on_disk(root) - set(wanted):
        (root / path).unlink()
    for path, text in wanted.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m tools.dbt [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m tools.dbt", description=__doc__)
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; fail if a template of sql/ has a bare call or a generated file "
        "is stale",
    )
    args = parser.parse_args(argv)
    if args.check:
        stale = check()
        for path in stale:
            print(f"{path} is stale: run python -m tools.dbt", file=sys.stderr)
        return 1 if stale else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
