"""The shape of the templates (issue 23): macros small enough to read at once, every macro
reached by a plain call (no lookup by a computed name, which dbt's static analysis cannot
follow), each kernel's metric table complete."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from sqlmetrics._core.registry import REGISTRY, default_of
from sqlmetrics._templating.templates import (
    environment,
    macro_names,
    ranking_rules,
    render_macro,
    sql_dir,
    sql_files,
    template_header,
)
from sqlmetrics.cli._list import metric_card
from sqlmetrics.errors import InvalidParameterError

ROOT = sql_dir().parent

#: the most lines a macro of sql/ may have (dbt-utils' largest macro has 166)
MACRO_LINES = 120

#: macros longer than the budget today, with the size they may not exceed: each may shrink
#: (then lower or remove its line), none may grow
OVER_BUDGET = {
    "compare_groups": 199,
    "spark__auc_kernel": 140,
    "ci_auc_bootstrap": 130,
}

_MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(.*?\{%-?\s*endmacro\s*-?%\}", re.S)
_COMMENT = re.compile(r"\{#.*?#\}", re.S)


def macro_lines(text: str) -> dict[str, int]:
    """Each macro defined in ``text`` -> its lines, from ``{% macro`` to ``{% endmacro %}``."""
    return {m.group(1): m.group(0).count("\n") + 1 for m in _MACRO.finditer(text)}


def test_macro_lines_counts_from_macro_to_endmacro() -> None:
    text = "{# x #}\n{% macro a() -%}\n1\n2\n{%- endmacro %}\n{% macro b() %}1{% endmacro %}\n"
    assert macro_lines(text) == {"a": 4, "b": 1}


def test_every_macro_fits_the_line_budget() -> None:
    sizes = {
        name: n
        for path in sql_files()
        for name, n in macro_lines((sql_dir() / path).read_text()).items()
    }
    too_long = {name: n for name, n in sizes.items() if n > OVER_BUDGET.get(name, MACRO_LINES)}
    assert not too_long, (
        f"macros over {MACRO_LINES} lines (split them into named stages, as ranking_kernel): "
        f"{too_long}"
    )
    fitting = sorted(name for name in OVER_BUDGET if sizes.get(name, 0) <= MACRO_LINES)
    assert not fitting, f"now within the budget: remove them from OVER_BUDGET: {fitting}"


def test_the_ranking_stages_fit_the_budget() -> None:
    text = (sql_dir() / "_macros" / "kernels" / "ranking.sql").read_text()
    sizes = macro_lines(text)
    stages = [name for name in sizes if name.startswith("ranking_")]
    assert "ranking_kernel" in stages and len(stages) >= 6, stages
    assert max(sizes[name] for name in stages) <= 100, sizes
    assert sizes["ranking_kernel"] <= 40, "the kernel is the composition of its stages"


def _repository_sql_files() -> list[Path]:
    """Every .sql file of the checkout except the rendered golden SQL (no Jinja there)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.sql"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / p for p in listed if not p.startswith("tests/")]


#: a subscript of the macro namespace: ``sqlmetrics[metric ~ '_value']``, ``sqlmetrics[kernel]``
_LOOKUP = re.compile(r"\bsqlmetrics\s*\[")


def computed_lookups(text: str) -> list[str]:
    """The macro lookups by subscript in ``text`` (comments aside)."""
    return [line.strip() for line in _COMMENT.sub("", text).splitlines() if _LOOKUP.search(line)]


def test_computed_lookups_are_found() -> None:
    assert computed_lookups("{{ sqlmetrics[m.metric ~ '_value'](p) }}") != []
    assert computed_lookups("{%- set s = sqlmetrics [kernel](r) -%}") != []
    assert computed_lookups("{# sqlmetrics[x] #}{{ sqlmetrics.auc_kernel(r) }}") == []


def test_no_template_looks_a_macro_up_by_a_computed_name() -> None:
    """Every macro is reached by a plain call (``ranking_value(metric, ...)`` maps a metric to
    its piece with an explicit if-chain): dbt's static analysis sees the calls, Python's Jinja
    and dbt's render them alike, and no workaround names the macros for dbt.
    """
    files = _repository_sql_files()
    assert any(p.name == "ranking.sql" for p in files)
    found = {
        p.relative_to(ROOT).as_posix(): lookups
        for p in files
        if (lookups := computed_lookups(p.read_text()))
    }
    assert not found, f"lookups by a computed name (call the macro by its name): {found}"


# ----------------------------------------------------------------------------- metric tables
def _kernel_metrics(kernel: str) -> list[str]:
    return sorted(
        name for name, spec in REGISTRY.items() if spec.kernel == kernel and spec.output == "scalar"
    )


RANKING_PIECES = {  # piece -> (its arguments after the metric, required)
    "group_columns": (("m0_", 10, ["slice_0"], {}), True),
    "ideal_columns": (("m0_", None, [], {}), False),
    "mean_exponent": (("m0_",), False),
    "value": (("m0_", 10, {}), True),
}


def _options(metric: str) -> dict[str, object]:
    spec = REGISTRY[metric]
    return {p: default_of(spec, p) for p in spec.params if p != "k"}


@pytest.mark.parametrize("piece", sorted(RANKING_PIECES))
def test_the_ranking_table_gives_each_metrics_own_piece(piece: str) -> None:
    """ranking_<piece>(metric, ...) renders exactly the macro <metric>_<piece> of the metric's
    file, for every ranking metric that defines one, and refuses (or, for the optional
    mean_exponent, gives nothing for) a metric that does not.
    """
    namespace = environment().globals["sqlmetrics"]
    args, required = RANKING_PIECES[piece]
    metrics = _kernel_metrics("ranking_kernel")
    assert len(metrics) >= 17
    defined = 0
    for metric in metrics:
        call = [a if a != {} else _options(metric) for a in args]
        name = f"{metric}_{piece}"
        if name in namespace:  # type: ignore[operator]
            defined += 1
            want = render_macro(name, *call)
            assert render_macro(f"ranking_{piece}", metric, *call) == want, metric
        elif required:
            pytest.fail(f"{metric} has no {name}")
        elif piece == "mean_exponent":
            assert render_macro("ranking_mean_exponent", metric, *call).strip() == ""
        else:
            with pytest.raises(InvalidParameterError, match=f"the metric {metric} has no"):
                render_macro(f"ranking_{piece}", metric, *call)
    assert defined >= (len(metrics) if required else 2)
    if piece == "mean_exponent":  # optional: a metric without one has none
        assert render_macro("ranking_mean_exponent", "auc", *args).strip() == ""
    else:
        with pytest.raises(InvalidParameterError, match=f"ranking_{piece}: the metric auc has no"):
            render_macro(f"ranking_{piece}", "auc", *args)


def test_the_confusion_table_gives_each_metrics_value() -> None:
    namespace = environment().globals["sqlmetrics"]
    metrics = _kernel_metrics("confusion_kernel")
    assert len(metrics) >= 7
    for metric in metrics:
        assert f"{metric}_value" in namespace  # type: ignore[operator]
        options = {"beta": 2.0, **_options(metric)}
        want = render_macro(f"{metric}_value", options)
        assert render_macro("confusion_value", metric, options) == want, metric
    with pytest.raises(InvalidParameterError, match="confusion_value: the metric auc has no"):
        render_macro("confusion_value", "auc", {})


def test_the_score_points_table_gives_each_metrics_value() -> None:
    metrics = _kernel_metrics("score_points_kernel")
    assert metrics == [
        "ks_statistic",
        "partial_auc",
        "precision_at_recall",
        "recall_at_precision",
        "tpr_at_fpr",
    ]
    for metric in metrics:
        for max_fpr in (1.0, 0.25):
            options = {**_options(metric), "max_fpr": max_fpr}
            want = render_macro(f"{metric}_value", options)
            assert render_macro("score_points_value", metric, options) == want, metric
    with pytest.raises(InvalidParameterError, match="score_points_value: the metric auc has no"):
        render_macro("score_points_value", "auc", {})


# ----------------------------------------------------------------------------- headers
RULES_LINE = "Ranking rules: sql/_macros/kernels/ranking.sql"


def _header(path: str) -> str:
    return (sql_dir() / path).read_text().split("#}")[0]


def test_the_ranking_rules_are_written_once() -> None:
    rules = ranking_rules()
    first = rules.splitlines()[0]
    assert first.startswith("Per group (user, query): items ordered by score desc")
    holding = [p for p in sql_files() if first in (sql_dir() / p).read_text()]
    assert holding == ["_macros/kernels/ranking.sql"]


def test_each_ranking_header_refers_to_the_rules_in_one_line() -> None:
    for metric in _kernel_metrics("ranking_kernel"):
        header = _header(REGISTRY[metric].template)
        assert header.count(RULES_LINE) == 1, metric
        assert "Per group (user, query)" not in header, metric


def test_no_header_holds_an_unfilled_placeholder() -> None:
    placeholder = re.compile(r"\{\{\s*[A-Z][A-Z_]*\s*\}\}")
    found = {p: placeholder.findall(text) for p in sql_files() for text in [_header(p)]}
    assert not {p: f for p, f in found.items() if f}


def test_a_ranking_metrics_card_prints_the_rules_in_place() -> None:
    rules = ranking_rules().splitlines()
    for metric in ("fallout", "ndcg", "bpref"):
        card = metric_card(REGISTRY[metric])
        assert RULES_LINE not in card and "{{" not in card, metric
        lines = [line.strip() for line in card.splitlines()]
        at = lines.index(rules[0].strip())
        assert lines[at : at + len(rules)] == [r.strip() for r in rules], metric
        assert lines[at + len(rules)].startswith(f"Output: one row per slice; columns {metric},")
        assert "McSherry & Najork 2008" in card
    assert 'ties="average" is refused' in metric_card(REGISTRY["bpref"])
    plain = (sql_dir() / REGISTRY["auc"].template).read_text().split("#}")[0]
    header = template_header(sql_dir() / REGISTRY["auc"].template)
    assert header is not None and header.splitlines()[0] == plain.strip("{#\n ").splitlines()[0]


#: the roles of sql/_macros/ (issue 40): a reader finds a kernel by its family
MACRO_ROLES = {
    "kernels": "a family's kernel and its pieces (auc, ranking, confusion, ...)",
    "inference": "intervals, resampling, compare, Student's t",
    "counterfactual": "estimators from click logs: position bias, off-policy values (issue 43)",
    "shared": "what every template uses (common, dialect, labels, evaluate, state)",
}


def test_shared_macros_are_filed_by_role() -> None:
    """Every file of sql/_macros/ sits in one of its role folders; a shared kernel macro
    (``*_kernel``) in kernels/, an interval or comparison macro (``ci_*``, ``compare_*``) in
    inference/."""
    misplaced = []
    for path in sql_files():
        parts = path.split("/")
        if parts[0] != "_macros":
            continue
        if len(parts) != 3 or parts[1] not in MACRO_ROLES:
            misplaced.append(f"sql/{path}: not in a role folder ({', '.join(MACRO_ROLES)})")
            continue
        for name in macro_names(path):
            base = name.split("__")[-1]
            if base.endswith("_kernel") and parts[1] != "kernels":
                misplaced.append(f"sql/{path}: kernel {name} belongs in _macros/kernels/")
            if base.startswith(("ci_", "compare_")) and parts[1] != "inference":
                misplaced.append(f"sql/{path}: {name} belongs in _macros/inference/")
    assert any(p.startswith("_macros/kernels/") for p in sql_files())
    assert not misplaced, "\n".join(misplaced)
