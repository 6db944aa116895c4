"""The package's layout (docs/decisions/0012-layout.md): layers that import only downwards,
no import cycle, imports at the top of modules unless lazy loading is the point.

Every ``import`` inside ``sqlmetrics/`` is read with :mod:`ast` (in functions too), so a cycle
held together by a function-level import fails here as one at the top would.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sqlmetrics"

#: each module's layer, by its first part below ``sqlmetrics`` (a module imports its own layer
#: or lower ones only)
LAYERS = {
    "errors": 0,
    "_core": 1,
    "_templating": 2,
    "_backends": 3,
    "_engine": 4,
    "_inference": 5,
    "_metrics": 6,
    "_evaluate": 7,
    "plot": 8,
    "__init__": 8,
    "__main__": 9,
    "cli": 9,
}

#: function-level imports of our own modules, where lazy loading is the point: the command
#: line imports what a command needs when it runs (start-up time), and the engines of optional
#: extras (SQLAlchemy, pyspark) are imported when a connection of theirs is passed
LAZY = {
    ("sqlmetrics._backends", "sqlmetrics._backends.sqlalchemy_backend"),
    ("sqlmetrics._backends", "sqlmetrics._backends.spark_backend"),
}
LAZY_MODULES = ("sqlmetrics.cli.",)

#: third-party modules that are slow to import or optional extras: imported inside the function
#: whose call needs them, and at the top of a module only under ``if TYPE_CHECKING:`` (for
#: annotations), so that ``import sqlmetrics`` loads none of them (start-up time, issue 24;
#: tests/test_startup.py checks sys.modules). Any other function-level import of a module not
#: ours is refused outside LAZY_MODULES.
LAZY_THIRD_PARTY = (
    "chdb", "clickhouse_connect", "ibis", "matplotlib", "numpy", "pandas", "py4j", "pyarrow",
    "pyspark", "sqlalchemy", "sqlglot",
)  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules of ours that ``node`` (in ``module``) imports."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    if len(submodules) == len(node.names):  # from . import a, b: the modules a and b
        return submodules
    return ([target] if target in MODULES else []) + submodules


def edges() -> list[tuple[str, str, bool]]:
    """(importer, imported, at the top of the module) for every import of ours."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        top = set()
        for statement in tree.body:
            top.add(statement)
            if isinstance(statement, (ast.If, ast.Try)):  # TYPE_CHECKING, optional imports
                top.update(statement.body)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in targets(module, node):
                    if target != module:
                        found.append((module, target, node in top))
    return found


def layer(module: str) -> int:
    first = module.split(".")[1] if "." in module else "__init__"
    return LAYERS[first]


def test_every_module_has_a_layer() -> None:
    unknown = sorted({m.split(".")[1] for m in MODULES if "." in m} - set(LAYERS))
    assert not unknown, f"add these to LAYERS (and to decision 0012's picture): {unknown}"


def test_layers_import_only_downwards() -> None:
    upward = [
        f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
        for a, b, _ in edges()
        if layer(b) > layer(a) and b != "sqlmetrics.errors"
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for a, b, _ in edges():
        if b != a and not (b.startswith(a + ".") and MODULES[a].name == "__init__.py"):
            graph[a].add(b)
    # Tarjan's strongly connected components: any component of two or more is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_imports_are_at_the_top_unless_lazy_on_purpose() -> None:
    inner = sorted(
        f"{a} imports {b} inside a function"
        for a, b, at_top in edges()
        if not at_top and (a, b) not in LAZY and not a.startswith(LAZY_MODULES)
    )
    assert not inner, "\n".join(inner)


def third_party_imports() -> list[tuple[str, str, str]]:
    """(importer, imported module, where: 'top' | 'type_checking' | 'function') for every
    absolute import of a module that is not ours."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        where: dict[ast.AST, str] = {}
        for statement in tree.body:
            where[statement] = "top"
            if isinstance(statement, ast.Try):  # optional imports
                where.update(dict.fromkeys(statement.body, "top"))
            if isinstance(statement, ast.If):
                checking = ast.unparse(statement.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                for inner in statement.body:
                    where[inner] = "type_checking" if checking else "top"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                if name.split(".")[0] != "sqlmetrics":
                    found.append((module, name, where.get(node, "function")))
    return found


def test_heavy_modules_are_imported_only_where_a_call_needs_them() -> None:
    at_top = sorted(
        f"{a} imports {b} at the top (move it into the functions that use it; annotations "
        "under `if TYPE_CHECKING:`)"
        for a, b, where in third_party_imports()
        if where == "top" and b.split(".")[0] in LAZY_THIRD_PARTY
    )
    assert not at_top, "\n".join(at_top)


def test_other_modules_are_imported_at_the_top() -> None:
    inner = sorted(
        f"{a} imports {b} inside a function"
        for a, b, where in third_party_imports()
        if where == "function"
        and b.split(".")[0] not in LAZY_THIRD_PARTY
        and not a.startswith(LAZY_MODULES)
    )
    assert not inner, "\n".join(inner)


def test_the_layout_checks_see_a_top_level_heavy_import(tmp_path: Path) -> None:
    """The checks above read the `where` of each import right: a heavy module at the top, under
    TYPE_CHECKING and in a function (a check that cannot fail would pass on any tree)."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "import pandas as pd\n"
        "if TYPE_CHECKING:\n    import numpy as np\n"
        "def f():\n    import pyarrow\n    import json\n"
    )
    module = tmp_path / "probe.py"
    module.write_text(source)
    MODULES["sqlmetrics.probe"] = module
    try:
        found = {(b, where) for a, b, where in third_party_imports() if a == "sqlmetrics.probe"}
    finally:
        del MODULES["sqlmetrics.probe"]
    assert found == {
        ("typing", "top"),
        ("pandas", "top"),
        ("numpy", "type_checking"),
        ("pyarrow", "function"),
        ("json", "function"),
    }
