"""A user's template file is code from elsewhere (issue 22): it runs sandboxed, cannot change
the built-in metrics, is compiled and trial-rendered before it is accepted, and its errors
name the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import jinja2.exceptions
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import TemplateContractError, TemplateSecurityError
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._engine.user import dispatched_names
from sqlmetrics._templating import templates as _templates
from sqlmetrics.cli import main

FRONT = "{#\n  name: m\n  roles: label=binary, score=score\n  summary: a test metric\n#}\n"
#: line 6 of the file: the kernel's first line of SQL
KERNEL = (
    "{% macro m_kernel(relation, by, columns, options, entries) -%}\n"
    "select {{ slice_cols(by) }} {{ BODY }} as {{ entries[0].alias }}\n"
    "from (select {{ slice_source(by) }} {{ binary_label(columns.label) }} as label,\n"
    "    {{ columns.score }} as score from {{ relation }}) as s {{ group_by(by) }}\n"
    "{%- endmacro %}\n"
)
GOOD = FRONT + KERNEL.replace("{{ BODY }}", "avg(label)")
FRAME = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.2, 0.3, 0.6], "c": list("aabb")})
ATTACK = "lipsum.__globals__['os'].getcwd()"


@pytest.fixture(autouse=True)
def _clean_registry() -> Iterator[None]:
    yield
    if "m" in _templates.USER_FILES:
        sqlmetrics.unregister_sql("m")


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.sql"
    path.write_text(text)
    return path


def _builtins_unchanged() -> None:
    assert sqlmetrics.auc(FRAME) == 0.75
    assert "m" not in REGISTRY and "m" not in _templates.USER_FILES


def test_a_good_file_still_works(tmp_path: Path) -> None:
    with sqlmetrics.registered_sql(_file(tmp_path, GOOD)):
        got = sqlmetrics.evaluate(FRAME, ["m", "auc"], by="c")
    assert list(got["m"]) == [0.5, 0.5] and list(got["auc"]) == [1.0, 0.0]


def test_python_internals_are_refused_at_registration(tmp_path: Path) -> None:
    path = _file(tmp_path, FRONT + KERNEL.replace("BODY", ATTACK))
    with pytest.raises(
        TemplateSecurityError, match=rf"{re.escape(str(path))}, line 7: .*__globals__"
    ):
        sqlmetrics.register_sql(path)
    _builtins_unchanged()


def test_security_error_is_jinjas_and_ours(tmp_path: Path) -> None:
    path = _file(tmp_path, FRONT + KERNEL.replace("BODY", ATTACK))
    with pytest.raises(jinja2.exceptions.SecurityError):
        sqlmetrics.register_sql(path)
    with pytest.raises(sqlmetrics.SqlMetricsError):
        sqlmetrics.register_sql(path)


def test_python_internals_are_refused_when_rendered(tmp_path: Path) -> None:
    """An attack on a path the trial rendering does not take (slices) fails when it runs."""
    body = "{{ (" + ATTACK + ") if by else 'avg(label)' }}"
    path = _file(tmp_path, FRONT + KERNEL.replace("{{ BODY }}", body))
    sqlmetrics.register_sql(path)
    assert sqlmetrics.evaluate(FRAME, ["m"])["m"][0] == 0.5
    with pytest.raises(TemplateSecurityError, match=rf"{re.escape(str(path))}, line 7: "):
        sqlmetrics.evaluate(FRAME, ["m"], by="c")
    with pytest.raises(TemplateSecurityError, match=rf"{re.escape(str(path))}, line 7: "):
        sqlmetrics.render("m", "t", by="c")


def test_metrics_dir_refuses_the_attack(tmp_path: Path) -> None:
    path = _file(tmp_path, FRONT + KERNEL.replace("BODY", ATTACK))
    out = CliRunner().invoke(main, ["list", "--metrics-dir", str(tmp_path)])
    assert out.exit_code != 0
    assert str(path) in out.output and "sandbox" in out.output
    assert "Traceback" not in out.output
    _builtins_unchanged()


def test_the_shared_namespace_is_read_only(tmp_path: Path) -> None:
    body = "{% do sqlmetrics.update({'auc_kernel': sqlmetrics['m_kernel']}) %}avg(label)"
    path = _file(tmp_path, FRONT + KERNEL.replace("{{ BODY }}", body))
    with pytest.raises(TemplateContractError, match=re.escape(str(path))):
        sqlmetrics.register_sql(path)
    _builtins_unchanged()


@pytest.mark.parametrize("base", dispatched_names())
@pytest.mark.parametrize("prefix", ["duckdb", "default", "postgres", "databricks"])
def test_dispatched_names_are_reserved(tmp_path: Path, prefix: str, base: str) -> None:
    name = f"{prefix}__{base}"
    path = _file(tmp_path, GOOD + f"{{% macro {name}(a, b, c) -%}}x{{%- endmacro %}}\n")
    with pytest.raises(TemplateContractError, match=rf"{re.escape(str(path))}: macro '{name}'"):
        sqlmetrics.register_sql(path)
    assert "m" not in REGISTRY


def test_as_boolean_cannot_be_hijacked(tmp_path: Path) -> None:
    """The audit's case: AUC 0.1111 instead of 0.8889 for every built-in metric."""
    hijack = "{% macro duckdb__as_boolean(expr) -%}(not cast({{ expr }} as boolean)){%- endmacro %}"
    with pytest.raises(TemplateContractError, match="reserved: adapter.dispatch"):
        sqlmetrics.register_sql(_file(tmp_path, GOOD + hijack + "\n"))
    _builtins_unchanged()


@pytest.mark.parametrize("name", ["range", "namespace", "lipsum", "dict"])
def test_jinja_globals_cannot_be_shadowed(tmp_path: Path, name: str) -> None:
    path = _file(tmp_path, GOOD + f"{{% macro {name}() -%}}x{{%- endmacro %}}\n")
    with pytest.raises(TemplateContractError, match=f"shadows Jinja's global '{name}'"):
        sqlmetrics.register_sql(path)
    _builtins_unchanged()


def test_extends_in_a_macro_is_refused_and_breaks_nothing(tmp_path: Path) -> None:
    text = GOOD + "{% macro m_helper() %}{% extends 'base.sql' %}{% endmacro %}\n"
    path = _file(tmp_path, text)
    with pytest.raises(TemplateContractError, match=rf"{re.escape(str(path))}, line 11: .*extend"):
        sqlmetrics.register_sql(path)
    _builtins_unchanged()
    assert sqlmetrics.evaluate(FRAME, ["auc", "f1"])["auc"][0] == 0.75


def test_render_errors_name_the_file_and_line(tmp_path: Path) -> None:
    body = "{{ 'avg(label)' if not by else no_such_variable }}"
    path = _file(tmp_path, FRONT + KERNEL.replace("{{ BODY }}", body))
    sqlmetrics.register_sql(path)
    with pytest.raises(
        TemplateContractError,
        match=rf"{re.escape(str(path))}, line 7: UndefinedError: 'no_such_variable' is undefined",
    ):
        sqlmetrics.evaluate(FRAME, ["m"], by="c")


def test_python_errors_in_a_user_file_name_it(tmp_path: Path) -> None:
    body = "{{ 'avg(label)' if not by else (1 + 'a') }}"
    path = _file(tmp_path, FRONT + KERNEL.replace("{{ BODY }}", body))
    sqlmetrics.register_sql(path)
    with pytest.raises(TemplateContractError, match=rf"{re.escape(str(path))}, line 7: TypeError"):
        sqlmetrics.render("m", "t", by="c")


def test_a_kernels_own_check_does_not_block_registration(tmp_path: Path) -> None:
    """raise_compiler_error on the defaults is the kernel's choice, not a broken file."""
    body = "{{ exceptions.raise_compiler_error('m needs slices') if not by else 'avg(label)' }}"
    path = _file(tmp_path, FRONT + KERNEL.replace("{{ BODY }}", body))
    sqlmetrics.register_sql(path)
    with pytest.raises(sqlmetrics.InvalidParameterError, match="m needs slices"):
        sqlmetrics.evaluate(FRAME, ["m"])
    assert list(sqlmetrics.evaluate(FRAME, ["m"], by="c")["m"]) == [0.5, 0.5]
