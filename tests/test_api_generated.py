"""The generated public functions (decision 0013): the committed modules of ``tools.api.GENERATED``
are what their declarations give, ``python -m tools.api --check`` fails while one is stale, and
a shared parameter's text reaches every generated docstring from its one declaration.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

import sqlmetrics
from sqlmetrics._core import params
from tools import api


def test_the_generated_modules_are_fresh() -> None:
    assert api.generate(check=True) == [], "run `python -m tools.api`"


@pytest.mark.parametrize("path", sorted(api.GENERATED))
def test_a_generated_module_is_marked_and_exported(path: str) -> None:
    """The mark the line count looks for is in the first 10 lines; each declared function is
    the public one, generated there, with its declared parameters in order.
    """
    text = (api.ROOT / path).read_text(encoding="utf-8")
    assert any(api.MARK in line for line in text.splitlines()[:10])
    module = importlib.import_module(api.GENERATED[path])
    generated = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    assert module.API, path
    for function in module.API:
        public = getattr(sqlmetrics, function.name)
        assert public is getattr(generated, function.name)
        assert function.name in sqlmetrics.__all__
        assert tuple(inspect.signature(public).parameters) == function.takes
        assert inspect.getdoc(public) == api.docstring(function)


def test_the_check_fails_on_a_stale_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited (or missing) generated module makes ``--check`` exit 1 naming it; writing it
    makes it fresh again.
    """
    path, module = next(iter(sorted(api.GENERATED.items())))
    copy = api.ROOT / path
    target = tmp_path / "generated.py"
    fresh = copy.read_text(encoding="utf-8")
    target.write_text(fresh.replace("ClickHouse", "Clickhouse", 1), encoding="utf-8")
    monkeypatch.setattr(api, "GENERATED", {str(target): module})
    assert api.main(["--check"]) == 1
    assert str(target) in capsys.readouterr().out
    target.unlink()
    assert api.main(["--check"]) == 1  # missing
    assert api.main([]) == 0  # writes it
    assert target.read_text(encoding="utf-8") == fresh
    assert api.main(["--check"]) == 0


def test_a_shared_entry_has_one_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Changing a shared parameter's declaration changes its entry in every generated function
    that takes it, and nothing else is needed.
    """
    con = params.PARAMS["con"]
    edited = dataclasses.replace(con, description=con.description + " Declared once.")
    monkeypatch.setitem(params.PARAMS, "con", edited)
    for module in sorted(set(api.GENERATED.values())):
        declared = importlib.import_module(module).API
        source = api.module_source(module)
        assert source.count("Declared once.") == len(declared)
        for function in declared:
            assert edited.entry() in api.docstring(function)


def test_an_undeclared_parameter_is_refused() -> None:
    """A declared function may take only parameters with a declaration or an own entry."""
    function = importlib.import_module("sqlmetrics._metrics.ranking").API[0]
    bad = dataclasses.replace(function, takes=(*function.takes, "no_such_parameter"))
    with pytest.raises(ValueError, match="no_such_parameter"):
        api.function_source(bad)


def test_a_dataframe_return_is_imported_for_type_checking_only() -> None:
    """A declared function returning ``pd.DataFrame`` (``classification_report``) gets pandas
    imported under ``TYPE_CHECKING`` only, so ``import sqlmetrics`` still loads no pandas
    (tests/test_startup.py), and the annotation names the attribute, not a name to import.
    """
    source = api.module_source("sqlmetrics._metrics.multiclass")
    tree = ast.parse(source)
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imports and not any("pandas" in ast.unparse(n) for n in imports)
    guarded = [
        ast.unparse(line)
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for line in node.body
    ]
    assert guarded == ["import pandas as pd"]
    assert "from typing import TYPE_CHECKING, Any, overload" in source
    assert "\n) -> pd.DataFrame:\n" in source
    assert inspect.signature(sqlmetrics.classification_report).return_annotation == "pd.DataFrame"
