"""The template contract (decision 0007): the files under ``sql/`` are one macro namespace, as
in a dbt package: macros only, unique names, no dbt builtin shadowed, dialect differences
through ``adapter.dispatch``."""

from __future__ import annotations

import dataclasses
import os
import re
import uuid
from collections import Counter
from pathlib import Path

import jinja2
import pytest

from sqlmetrics._core.registry import REGISTRY, MetricSpec
from sqlmetrics._engine.run import entry, kernel_sql
from sqlmetrics._templating.literals import sql_double
from sqlmetrics._templating.templates import (
    DBT_BUILTINS,
    Adapter,
    environment,
    macro_names,
    namespace_files,
    render_macro,
    sql_dir,
    sql_files,
)
from sqlmetrics.errors import InvalidParameterError


def test_macro_names_are_unique_across_the_namespace() -> None:
    counts = Counter(name for path in namespace_files() for name in macro_names(path))
    assert [name for name, n in counts.items() if n > 1] == []


def test_no_macro_shadows_a_dbt_builtin() -> None:
    names = {name for path in sql_files() for name in macro_names(path)}
    namespace = {name for path in namespace_files() for name in macro_names(path)}
    assert namespace & DBT_BUILTINS == set()
    assert {"ref", "source", "config", "var", "log", "run_query", "return"} <= DBT_BUILTINS
    assert names  # the scan found macros at all


@pytest.mark.parametrize("path", namespace_files())
def test_namespace_files_hold_macros_only(path: str) -> None:
    text = (sql_dir() / path).read_text()
    code = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    assert "import" not in code, path
    assert "with context" not in code, path
    # outside macro bodies: nothing but whitespace
    outside = re.sub(r"\{%-?\s*macro\b.*?\{%-?\s*endmacro\s*-?%\}", "", code, flags=re.S)
    assert outside.strip() == "", (path, outside.strip()[:80])


def test_every_namespace_macro_is_loaded() -> None:
    namespace = environment().globals["sqlmetrics"]
    for path in namespace_files():
        for name in macro_names(path):
            assert name in namespace, (path, name)  # type: ignore[operator]


def test_every_file_under_sql_is_in_the_namespace() -> None:
    # no family is loaded the old way (per-file templates with imports) any more
    assert namespace_files() == sql_files()
    assert "_macros/shared/common.sql" in sql_files() and "ranking/ndcg.sql" in sql_files()
    for path in sql_files():
        code = re.sub(r"\{#.*?#\}", "", (sql_dir() / path).read_text(), flags=re.S)
        assert "import" not in code and "with context" not in code, path


def test_dispatch_prefers_the_dialect_variant_over_the_default() -> None:
    namespace = environment().globals["sqlmetrics"]
    duckdb = Adapter(namespace, "duckdb")  # type: ignore[arg-type]
    other = Adapter(namespace, "postgres")  # type: ignore[arg-type]
    assert str(duckdb.dispatch("float_type", "sqlmetrics")()) == "double"
    assert str(other.dispatch("float_type", "sqlmetrics")()) == "double precision"
    assert str(duckdb.dispatch("exact_int")()) == "hugeint"
    assert str(other.dispatch("exact_int")()) == "decimal(38, 0)"
    with pytest.raises(jinja2.TemplateRuntimeError, match="default__no_such_macro"):
        duckdb.dispatch("no_such_macro", "sqlmetrics")


def test_dialect_dispatch_reaches_the_shared_macros() -> None:
    assert "as hugeint" in render_macro("exact_sum", "x", "0")
    assert render_macro("safe_div", "a", "b").strip() == (
        "cast(a as double) / nullif(cast(b as double), 0)"
    )


def test_raise_compiler_error_is_our_error() -> None:
    env = environment()
    template = env.from_string("{{ exceptions.raise_compiler_error('bad k') }}")
    with pytest.raises(InvalidParameterError, match="bad k"):
        template.render()


def test_a_file_breaking_the_contract_is_named() -> None:
    from sqlmetrics._templating.templates import _check_file

    env = environment()
    with pytest.raises(jinja2.TemplateSyntaxError, match=r"sql/my/bad\.sql breaks the"):
        _check_file(env, "my/bad.sql", "{% macro ok() %}1{% endmacro %}\nselect 1\n")
    _check_file(env, "my/good.sql", "{# header #}\n{% macro ok() %}1{% endmacro %}\n")


# ----------------------------------------------------------------------------- kernels
RANKING_COLUMNS: dict[str, str | None] = {
    "group": '"g"',
    "item": '"i"',
    "score": '"s"',
    "label": '"y"',
}


def _ranking_sql(*specs: MetricSpec, **options: object) -> str:
    entries = [entry(spec, f"m{i}", 10) for i, spec in enumerate(specs)]
    return kernel_sql("ranking_kernel", '"t"', [], RANKING_COLUMNS, options, entries)


def test_the_cumulative_window_follows_the_declared_needs() -> None:
    ap = REGISTRY["map"]
    assert "cum" in ap.needs
    assert "cum_rel" in _ranking_sql(ap)
    # the same metric without the declaration: no cumulative window, whatever its text reads
    undeclared = dataclasses.replace(ap, needs=())
    sql = _ranking_sql(undeclared)
    assert "cum_rel" not in sql and "as ap_term" not in sql and "as p_first" not in sql
    assert "cum_rel" not in _ranking_sql(REGISTRY["precision_at_k"])
    # mrr needs no window with a total order (the first relevant position is a min)
    assert "cum" not in REGISTRY["mrr"].needs and "cum_rel" not in _ranking_sql(REGISTRY["mrr"])


def test_gain_exponent_n_rel_and_ideal_follow_the_declared_needs() -> None:
    ndcg = REGISTRY["ndcg"]
    assert {"gain_exp", "ideal"} <= set(ndcg.needs)
    sql = _ranking_sql(ndcg)
    assert " as gain_exp," in sql.split("run_groups as")[0] and "ideal_groups as" in sql
    bare = _ranking_sql(dataclasses.replace(ndcg, needs=()), gain="exponential")
    assert " as gain_exp," not in bare.split("run_groups as")[0]
    assert "ideal_groups as" not in bare
    r_precision = REGISTRY["r_precision"]
    assert "n_rel" in r_precision.needs
    assert "over (partition by grp) as n_rel" in _ranking_sql(r_precision)
    assert "as n_rel" not in _ranking_sql(REGISTRY["mrr"]).split("run_groups as")[0]


def test_every_kernel_metric_defines_its_pieces() -> None:
    namespace = environment().globals["sqlmetrics"]
    for spec in REGISTRY.values():
        if spec.kernel is None or spec.output != "scalar":
            continue
        assert spec.kernel in namespace, spec.name  # type: ignore[operator]
        if spec.kernel == f"{spec.name}_kernel":
            continue  # a family of its own: the kernel is the metric
        pieces = ["_value"]
        if spec.kernel == "ranking_kernel":
            pieces.append("_group_columns")
            if "ideal" in spec.needs:
                pieces.append("_ideal_columns")
        for piece in pieces:
            assert spec.name + piece in namespace, (spec.name, piece)  # type: ignore[operator]


@pytest.mark.parametrize("value", [0.5, 1, 0.0, 1e200, 1e-300, 0.1 + 0.2, -2.5, 123456789.125])
def test_float_literal_is_the_exact_double_literal(value: float) -> None:
    assert render_macro("float_literal", value).strip() == sql_double(value)


def test_float_literal_refuses_non_finite_numbers() -> None:
    with pytest.raises(InvalidParameterError, match="finite"):
        render_macro("float_literal", float("inf"))


def test_templates_use_no_filter_of_our_own() -> None:
    # dbt's Jinja has only the builtin filters: ours would break every template there
    assert set(environment().filters) == set(jinja2.Environment().filters)


def test_the_compiled_namespace_is_cached_and_a_changed_source_is_checked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Compiling the namespace costs seconds per process; the bytecode cache keeps it."""
    from sqlmetrics._templating import templates as _templates

    checked: list[str] = []
    original = _templates._check_file

    def counting(env: object, path: str, text: str, label: str | None = None) -> object:
        checked.append(path)
        return original(env, path, text, label)

    monkeypatch.setattr(_templates, "_check_file", counting)
    _templates.environment.cache_clear()
    _templates.environment()  # compiled now or by an earlier process: cached either way
    _templates.environment.cache_clear()
    checked.clear()
    _templates.environment()
    assert checked == []  # same source: the cached code, no second compile or check
    # a source no process has compiled before (the cache outlives the process)
    files = [("x.sql", "{% macro x_one() %}1{% endmacro %}\n{# " + uuid.uuid4().hex + " #}")]
    env = _templates.environment()
    _templates._compile(env, files[0][1], files)
    assert checked == ["x.sql"]  # a source never compiled before is checked first
    _templates.environment.cache_clear()


#: folders of a checkout that hold no source (tools' caches, dbt's installs and outputs)
_NOT_SOURCE = {"dbt_packages", "target", "logs", "__pycache__", "build", "dist", "node_modules"}


def repeated_templates(root: Path) -> list[str]:
    """Where a ``.sql`` file of the repository at ``root`` repeats a template of ``sql/``: a
    macro defined in two files, or a file outside ``sql/`` holding the body of a template's
    macro (calls qualified or not). One line per finding; empty when ``sql/`` is the one
    source (issue 23: the dbt package reads ``sql/`` itself).
    """
    files: dict[str, str] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _NOT_SOURCE]
        for name in names:
            if name.endswith(".sql"):
                path = Path(folder) / name
                files[path.relative_to(root).as_posix()] = path.read_text()
    defined: dict[str, list[str]] = {}
    bodies: dict[str, str] = {}  # a template macro's body, calls unqualified -> its file
    block = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(.*?%\}(.*?)\{%-?\s*endmacro", re.S)
    for path, text in files.items():
        for name, body in block.findall(re.sub(r"\{#.*?#\}", "", text, flags=re.S)):
            defined.setdefault(name, []).append(path)
            if path.startswith("sql/") and len(body.strip()) > 80:
                bodies[body.replace("sqlmetrics.", "").strip()] = path
    found = [f"macro {n} defined in {', '.join(p)}" for n, p in defined.items() if len(p) > 1]
    for path, text in files.items():
        if not path.startswith("sql/"):
            plain = text.replace("sqlmetrics.", "")
            found += [
                f"{path} repeats a macro of {src}" for body, src in bodies.items() if body in plain
            ]
    return sorted(found)


def test_no_file_outside_sql_repeats_a_template() -> None:
    """One source for Python and dbt: no macro defined twice across the repository's ``.sql``
    files, no copy of a template anywhere (the committed copies under dbt/ failed this)."""
    root = sql_dir().parent
    assert (root / "sql").is_dir() and (root / "dbt_project.yml").is_file()
    assert repeated_templates(root) == []
