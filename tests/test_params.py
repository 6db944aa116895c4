"""Each shared parameter is documented once (sqlmetrics/_core/params.py): every public
function's numpydoc entry for it is the declared text, written by
``python -m tools.api`` and checked fresh here; the declarations match the
signatures and the option checks; ``con`` names every engine it accepts.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from sqlmetrics._backends import backend_for
from sqlmetrics._core.params import OWN, PARAMS, REQUIRED, WIDTH, variants
from sqlmetrics._core.registry import PARAMS as OPTIONS
from sqlmetrics.errors import DataSourceError, InvalidParameterError
from tools import api

FUNCTIONS = api.public_functions()
DECLARED = sorted({p.name for p in PARAMS.values()})


def taking(name: str) -> list[str]:
    """The public functions with a parameter ``name``."""
    return [f for f, fn in FUNCTIONS.items() if name in inspect.signature(fn).parameters]


def test_the_entries_are_fresh() -> None:
    stale = api.run(check=True)
    assert stale == [], f"run `python -m tools.api`: stale {stale}"


@pytest.mark.parametrize("name", DECLARED)
def test_every_entry_is_its_declaration(name: str) -> None:
    """Every public function that documents ``name`` in an entry of its own has the declared
    text, or is listed in OWN with its reason; none is left without either.
    """
    checked = 0
    for function in taking(name):
        documented = api.entries(FUNCTIONS[function].__doc__ or "")
        if (function, name) in OWN:
            continue
        if name not in documented:
            continue  # documented with others in one entry ("As for evaluate"), or not at all
        want = api.expected(function, name)
        assert want is not None, (
            f"{function}({name}=): no declaration claims it; add it to a variant's functions "
            f"in sqlmetrics/_core/params.py or to OWN with the reason"
        )
        assert documented[name] == want, (
            f"{function}'s entry for {name} is not its declaration "
            f"({api.declaration(function, name)}); run `python -m tools.api`"
        )
        checked += 1
    assert checked > 0, f"no public function's entry for {name} is checked"


def test_the_check_fails_on_an_edited_copy() -> None:
    """An edited entry (one copy of a shared text) is found, in the source and in the
    docstring the function has.
    """
    function = FUNCTIONS["ndcg"]
    path = Path(inspect.getsourcefile(function) or "")
    text = path.read_text(encoding="utf-8")
    declared = api.expected("ndcg", "con", "    ")
    assert declared is not None and declared in text
    at = text.rindex("\ndef ndcg(")  # the definition with the docstring, after the overloads
    copy = declared.replace("ClickHouse", "Clickhouse", 1)
    edited = text[:at] + text[at:].replace(declared, copy, 1)
    assert edited != text
    restored, changed = api.rewrite(edited, ["ndcg"])
    assert changed == ["ndcg(con)"]
    assert restored == text
    assert api.rewrite(text, ["ndcg"]) == (text, [])  # idempotent

    doc = function.__doc__ or ""
    entry = api.entries(doc)["con"]
    assert entry == api.expected("ndcg", "con")
    edited_doc = doc.replace("ClickHouse", "Clickhouse", 1)
    assert api.entries(edited_doc)["con"] != api.expected("ndcg", "con")


def test_con_names_every_engine() -> None:
    """The declared ``con`` names each kind of connection that backend_for accepts."""
    con = PARAMS["con"].entry()
    for needle in (
        "duckdb",  # a DuckDB connection
        "database file path",  # a DuckDB file, opened read-only
        "SQLAlchemy",
        "PostgreSQL",
        "SparkSession",
        "chdb",
        "clickhouse_connect",
        "ClickHouse",
    ):
        assert needle in con, needle
    with pytest.raises(DataSourceError) as refused, backend_for(object()):
        pass
    accepted = str(refused.value)  # what backend_for says it accepts
    for kind in ("duckdb", "SQLAlchemy", "SparkSession", "chdb", "clickhouse_connect"):
        assert kind in accepted and kind in con, kind
    assert [v.key for v in variants("con")] == ["con"]  # one text, every function


@pytest.mark.parametrize("key", sorted(PARAMS))
def test_each_declaration_fits_its_functions(key: str) -> None:
    """A variant's functions exist and take the parameter, with the declared annotation and
    default; every variant is used; its entry fits the line width and needs no escapes.
    """
    param = PARAMS[key]
    users = [
        f
        for f in taking(param.name)
        if (f, param.name) not in OWN
        and api.declaration(f, param.name) is param
        and param.name in api.entries(FUNCTIONS[f].__doc__ or "")
    ]
    assert users, f"{key}: no public function uses it"
    for function in param.functions or ():
        assert function in FUNCTIONS, f"{key}: {function} is not a public function"
        assert function in users, f"{key}: {function} takes no {param.name}= (or OWN has it)"
    for function in users:
        signature = inspect.signature(FUNCTIONS[function]).parameters[param.name]
        assert signature.annotation == param.type, (function, key, signature.annotation)
        default = REQUIRED if signature.default is inspect.Parameter.empty else signature.default
        assert default == param.default, (function, key, default)
    for line in param.entry(**api.fill(users[0])).splitlines():
        assert len(line) <= WIDTH + 8, (key, line)  # 100 columns in a source docstring
    assert "\\" not in param.description  # the same text in a raw and a plain docstring


@pytest.mark.parametrize("key", sorted(k for k, p in PARAMS.items() if p.choices is not None))
def test_declared_choices_are_the_checks(key: str) -> None:
    """The declared choices are in the entry's type, and the option check takes each of them
    (and refuses another value).
    """
    param = PARAMS[key]
    assert param.choices is not None
    for choice in param.choices:
        shown = f'"{choice}"' if isinstance(choice, str) else repr(choice)
        assert shown in param.doc_type or isinstance(choice, bool), (key, choice)
    option = OPTIONS.get(param.name)
    if option is None:
        return  # ci_method: checked by the interval layer
    for choice in param.choices:
        option.validate("a_metric", choice)
    with pytest.raises(InvalidParameterError):
        option.validate("a_metric", "not_a_choice")


def test_own_entries_name_real_parameters() -> None:
    for function, name in OWN:
        assert function in FUNCTIONS, function
        assert name in inspect.signature(FUNCTIONS[function]).parameters, (function, name)
        assert name in DECLARED, (function, name)
