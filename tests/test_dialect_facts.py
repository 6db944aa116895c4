"""The SQL dialects' facts are declared once, in ``sqlmetrics/_core/dialects.py`` (issue 40):
no other module spells a list of dialects, and the SQL side (the ``<dialect>__`` macros of
``sql/``) names only declared dialects."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sqlmetrics._core.dialects import DEFAULT, DIALECTS, NAMES, SQLALCHEMY_DIALECTS
from sqlmetrics._templating.literals import FLOAT_TYPES
from sqlmetrics._templating.quoting import quote_ident
from sqlmetrics._templating.templates import macro_names, render_macro, sql_files

PACKAGE = Path(__file__).resolve().parents[1] / "sqlmetrics"

#: modules that still spell dialect names, each with its reason (to be emptied)
KNOWN = {
    # report's SQL section renders for the engine's dialect when it is one of these three:
    # sqlmetrics/_evaluate/ is being reworked by issue 40's evaluate(ci=) change
    "_evaluate/report.py",
}


def dialect_lists(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """(line, names) for every tuple, list, set or dict literal holding two or more dialect
    names (as elements or keys)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements = node.elts
        elif isinstance(node, ast.Dict):
            elements = [k for k in node.keys if k is not None]
        else:
            continue
        names = [e.value for e in elements if isinstance(e, ast.Constant) and e.value in DIALECTS]
        if len(names) >= 2:
            found.append((node.lineno, names))
    return found


def test_the_scan_sees_a_list_of_dialects() -> None:
    tree = ast.parse('X = ("spark", "bigquery")\nY = {"duckdb": 1, "postgres": 2}\nZ = ("spark",)')
    assert dialect_lists(tree) == [(1, ["spark", "bigquery"]), (2, ["duckdb", "postgres"])]


def test_no_module_but_the_declaration_lists_dialects() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "_core/dialects.py" or relative in KNOWN:
            continue
        for line, names in dialect_lists(ast.parse(path.read_text())):
            found.append(
                f"sqlmetrics/{relative}:{line}: {names} (read sqlmetrics/_core/dialects.py)"
            )
    assert not found, "\n".join(found)


def test_dispatched_macros_name_declared_dialects() -> None:
    """Every ``<dialect>__<name>`` macro of sql/ is for a declared dialect (or ``default__``)."""
    prefixes = {
        name.split("__")[0]
        for path in sql_files()
        for name in macro_names(path)
        if re.fullmatch(r"[a-z]+__\w+", name)
    }
    assert prefixes - {"default"} <= set(DIALECTS), prefixes - {"default"} - set(DIALECTS)
    assert {"duckdb", "postgres", "spark", "clickhouse"} <= prefixes


def test_the_declarations_are_whole() -> None:
    assert DEFAULT in DIALECTS and tuple(DIALECTS) == NAMES
    assert set(FLOAT_TYPES) == set(DIALECTS)
    assert set(SQLALCHEMY_DIALECTS.values()) <= set(DIALECTS)
    assert SQLALCHEMY_DIALECTS["postgresql"] == "postgres"
    for name, facts in DIALECTS.items():
        assert facts.name == name
        assert quote_ident("x", name) in ('"x"', "`x`", '"X"'), name
        for kind, reader in facts.file_readers.items():
            assert "{paths}" in reader, (name, kind)
    assert {d.name for d in DIALECTS.values() if d.runs} == {
        "duckdb", "postgres", "spark", "sail", "clickhouse",
    }  # fmt: skip
    for facts in DIALECTS.values():
        chain = facts.dispatch()
        assert chain[0] == facts.name and chain[-1] == "default", chain
        assert all(prefix in DIALECTS for prefix in chain[:-1]), chain


def test_a_child_dialect_writes_its_parents_sql_but_its_own_macros() -> None:
    """Sail renders Spark's SQL except where a ``sail__`` macro says otherwise: the AUC
    family's bucket bounds (Sail's percentile_approx takes one percentage)."""
    assert DIALECTS["sail"].parent == "spark"
    for name in ("float_type", "exact_int", "string_type", "null_safe_equal"):
        args = ("a", "b") if name == "null_safe_equal" else ()
        assert render_macro(name, *args, dialect="sail") == render_macro(
            name, *args, dialect="spark"
        )
    spark = render_macro("auc_quantiles", "score", 4, dialect="spark")
    sail = render_macro("auc_quantiles", "score", 4, dialect="sail")
    assert "array(cast(0.25e0" in " ".join(spark.split())
    assert sail.count("percentile_approx(score, cast(") == 3, sail


def test_python_facts_of_a_kernel_follow_the_macro_dispatch_resolves() -> None:
    """Python facts about a dialect's variant of a kernel (plan.UNCOUNTED: spark__auc_kernel
    reads replayed state rows, so it takes no count) are keyed by the macro that
    ``adapter.dispatch`` resolves, so a child dialect gets its parent's: keyed by the dialect's
    name, Sail's states went to Spark's kernel with counts it ignores (a wrong AUC)."""
    from sqlmetrics._engine.plan import UNCOUNTED
    from sqlmetrics._templating.templates import dispatched

    assert dispatched("auc_kernel", "sail") == dispatched("auc_kernel", "spark")
    assert dispatched("auc_kernel", "spark") in UNCOUNTED
    assert dispatched("auc_kernel", "duckdb") not in UNCOUNTED
    assert dispatched("no_such_kernel", "sail") is None
    assert {dispatched(name.split("__", 1)[1], "spark") for name in UNCOUNTED} >= UNCOUNTED
