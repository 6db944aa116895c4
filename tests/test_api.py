"""The public API, name by name: ``sqlmetrics.<name>`` (``__all__``), ``sqlmetrics.plot.<name>``
and ``sqlmetrics.errors.<name>``, each with its call signature, against the reviewed snapshot
``tests/data/api.txt``. A public name that moves or disappears, or a signature that changes,
fails here; regenerate with ``SQLMETRICS_UPDATE_GOLDEN=1`` only for a change that is meant
(and say it in CHANGELOG.md).
"""

from __future__ import annotations

import inspect
import os
import types
from pathlib import Path

import sqlmetrics
import sqlmetrics.errors
import sqlmetrics.plot

SNAPSHOT = Path(__file__).parent / "data" / "api.txt"


def describe(namespace: str, obj: object) -> str:
    """One line: the dotted name and what it is (a callable with its signature)."""
    if isinstance(obj, type):
        return f"{namespace}: class {obj.__name__}({', '.join(b.__name__ for b in obj.__bases__)})"
    if callable(obj):
        return f"{namespace}{inspect.signature(obj)}"
    return f"{namespace}: {type(obj).__name__}"


def api_lines() -> list[str]:
    lines = []
    for module, names in (
        (sqlmetrics, sqlmetrics.__all__),
        (sqlmetrics.plot, sqlmetrics.plot.__all__),
        (sqlmetrics.errors, sqlmetrics.errors.__all__),
    ):
        for name in sorted(names):
            lines.append(describe(f"{module.__name__}.{name}", getattr(module, name)))
    return lines


def test_public_api_matches_the_snapshot() -> None:
    lines = api_lines()
    if os.environ.get("SQLMETRICS_UPDATE_GOLDEN") == "1":
        SNAPSHOT.write_text("\n".join(lines) + "\n")
    expected = SNAPSHOT.read_text().splitlines()
    gone = sorted(set(expected) - set(lines))
    new = sorted(set(lines) - set(expected))
    names = {line.split("(")[0].split(":")[0] for line in gone + new}
    assert not gone and not new, f"the public API changed at {sorted(names)}:\n- {gone}\n+ {new}"


def test_all_is_explicit_and_complete() -> None:
    """``__all__`` lists every public callable and class of the package, and only those: the
    modules behind them are private (``sqlmetrics._metrics``, ``sqlmetrics._core``, ...).
    """
    public = {
        name
        for name, value in vars(sqlmetrics).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"  # from __future__ import annotations
    }
    assert public == set(sqlmetrics.__all__)
    modules = {
        name
        for name, value in vars(sqlmetrics).items()
        if not name.startswith("_") and isinstance(value, types.ModuleType)
    }
    assert modules <= {"errors", "plot", "cli"}, sorted(modules - {"errors", "plot", "cli"})
    assert len(sqlmetrics.__all__) == len(set(sqlmetrics.__all__))


def test_help_of_the_package_opens_on_what_a_user_needs() -> None:
    """``help(sqlmetrics)`` opens on what the package is, where it runs and three examples
    (doctested with the module), and where the reference is; the private layers come last."""
    doc = sqlmetrics.__doc__ or ""
    first_screen = "\n".join(doc.splitlines()[:50])
    for words in ("DuckDB", "PostgreSQL", "Spark", "ClickHouse", "sqlmetrics.auc(clicks)"):
        assert words in first_screen, words
    assert first_screen.count(">>> sqlmetrics.") >= 3
    assert "sqlmetrics list" in doc and "help(sqlmetrics.ndcg)" in doc
    assert "_core" not in first_screen and "_templating" not in doc
