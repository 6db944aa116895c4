"""The generated public functions (decision 0013): the committed modules of ``tools.api.GENERATED``
are what their declarations give, ``python -m tools.api --check`` fails while one is stale, and
a shared parameter's text reaches every generated docstring from its one declaration.
"""

from __future__ import annotations

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
    public_functions = api.public_functions()  # sqlmetrics' and sqlmetrics.plot's
    for function in module.API:
        public = public_functions[function.name]
        assert public is getattr(generated, function.name)
        assert tuple(inspect.signature(public).parameters) == function.takes
        assert inspect.getdoc(public) == api.docstring(function)


def test_the_check_fails_on_a_stale_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited (or missing) generated module makes ``--check`` exit 1 naming it; writing it
    makes it fresh again.
    """
    path, module = next(
        (p, m)
        for p, m in sorted(api.GENERATED.items())
        if "ClickHouse" in (api.ROOT / p).read_text()
    )
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
    taking = 0
    for module in sorted(set(api.GENERATED.values())):
        declared = [  # an entry point's con may share an entry of its own ("As for evaluate")
            f
            for f in importlib.import_module(module).API
            if "con" in f.takes and not any(arg.name == "con" for arg in f.own)
        ]
        source = api.module_source(module)
        assert source.count("Declared once.") == len(declared)
        for function in declared:
            assert edited.entry() in api.docstring(function)
        taking += len(declared)
    assert taking > 60


def test_an_undeclared_parameter_is_refused() -> None:
    """A declared function may take only parameters with a declaration or an own entry."""
    function = importlib.import_module("sqlmetrics._metrics.ranking").API[0]
    bad = dataclasses.replace(function, takes=(*function.takes, "no_such_parameter"))
    with pytest.raises(ValueError, match="no_such_parameter"):
        api.function_source(bad)


def test_a_table_is_typed_without_importing_pandas() -> None:
    """A declared function that returns a table is annotated ``pd.DataFrame``: the generated
    module imports pandas for its annotations only, so ``import sqlmetrics`` stays without it.
    """
    source = api.module_source("sqlmetrics._metrics.classification_curves")
    assert "\nif TYPE_CHECKING:\n    import pandas as pd\n" in source
    assert "\nfrom typing import TYPE_CHECKING, Any, overload\n" in source  # isort's order
    assert "\nimport pandas" not in source and "\nfrom pandas" not in source
    assert "\n) -> pd.DataFrame:\n" in source
    generated = importlib.import_module("sqlmetrics._metrics._api_classification_curves")
    assert "pd" not in vars(generated)
    assert inspect.signature(generated.roc_curve).return_annotation == "pd.DataFrame"


def test_doc_order_orders_the_parameters_entries_only() -> None:
    """``doc_order`` (fbeta documents ``beta`` after ``prediction`` but takes it first) orders
    the Parameters section; the signature keeps ``takes``' order; an order that is not one of
    ``takes`` is refused.
    """
    fbeta = next(f for f in importlib.import_module("sqlmetrics._metrics.classification").API
                 if f.name == "fbeta")  # fmt: skip
    assert fbeta.doc_order and fbeta.doc_order != fbeta.takes
    documented = list(api.entries(api.docstring(fbeta)))
    assert documented == list(fbeta.doc_order)
    assert tuple(inspect.signature(sqlmetrics.fbeta).parameters) == fbeta.takes
    plain = dataclasses.replace(fbeta, doc_order=())
    assert list(api.entries(api.docstring(plain))) == list(fbeta.takes)
    with pytest.raises(ValueError, match="doc_order"):
        api.docstring(dataclasses.replace(fbeta, doc_order=fbeta.doc_order[:-1]))


def test_a_type_only_name_is_imported_for_the_type_checker_only() -> None:
    """``pd.Series`` in a declared return type imports pandas under ``TYPE_CHECKING`` (no
    pandas import at ``import sqlmetrics``); a module without one has no such block.
    """
    source = api.module_source("sqlmetrics._metrics.classification")
    assert "\nif TYPE_CHECKING:\n    import pandas as pd\n" in source
    assert "from typing import TYPE_CHECKING, Any, overload\n" in source
    assert "\nimport pandas" not in source
    assert "TYPE_CHECKING" not in api.module_source("sqlmetrics._metrics.ranking_ir")
