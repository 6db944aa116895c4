"""The public functions' entries for the shared parameters, written from their declarations.

Each shared parameter is declared once, with its numpydoc entry, in
:mod:`sqlmetrics._core.params`; this tool writes the declared entry into the docstring of every
public function (``sqlmetrics.__all__``) that takes the parameter, in the source, in place of
the entry there. It is idempotent, and ``--check`` (run by tests/test_params.py) lists what it
would change without writing.

python -m tools.api           # rewrite the entries in sqlmetrics/
python -m tools.api --check   # exit 1, naming the stale entries, if one differs
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import sqlmetrics
from sqlmetrics._core.params import OWN, Param, variants
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._inference.intervals import methods_for

_HEADER = re.compile(r"-{3,}")


def public_functions() -> dict[str, Callable[..., Any]]:
    """The functions among ``sqlmetrics.__all__``, unwrapped, by name."""
    found: dict[str, Callable[..., Any]] = {}
    for name in sqlmetrics.__all__:
        obj = getattr(sqlmetrics, name)
        if inspect.isfunction(obj):
            found[name] = inspect.unwrap(obj)
    return found


def declaration(function: str, name: str) -> Param | None:
    """The declaration that ``function``'s entry for ``name`` must equal; None where ``name``
    is not declared or ``function`` has its own text (:data:`~sqlmetrics._core.params.OWN`).
    """
    if (function, name) in OWN:
        return None
    for param in variants(name):
        if param.functions is None or function in param.functions:
            return param
    return None


def fill(function: str) -> dict[str, str]:
    """The values of a description's placeholders for ``function``: its interval methods."""
    specs = [s for s in REGISTRY.values() if s.function == function]
    specs.sort(key=lambda s: s.name != function)
    if not specs or specs[0].output != "scalar":
        return {}
    methods = methods_for(specs[0])
    return {
        "default_method": f"'{methods[0]}'",
        "methods": ", ".join(f"'{m}'" for m in methods),
    }


def expected(function: str, name: str, indent: str = "") -> str | None:
    """``function``'s entry for ``name`` as declared, indented by ``indent``; None where it has
    no declaration.
    """
    param = declaration(function, name)
    if param is None:
        return None
    return param.entry(indent, **fill(function))


def parameter_entries(lines: list[str]) -> Iterator[tuple[list[str], int, int]]:
    """The entries of the Parameters section in a docstring's ``lines``: (the names of the
    entry, its first line, one past its last line). An entry is its ``name : type`` line at the
    section's indent and the deeper (or blank, inside) lines below it.
    """
    start = next(
        (
            i
            for i in range(len(lines) - 1)
            if lines[i].strip() == "Parameters" and _HEADER.fullmatch(lines[i + 1].strip())
        ),
        None,
    )
    if start is None:
        return
    indent = len(lines[start]) - len(lines[start].lstrip())
    i = start + 2
    while i < len(lines):
        line = lines[i]
        if not line.strip() or len(line) - len(line.lstrip()) != indent:
            break  # the end of the section
        end = i + 1
        while lines[end - 1].endswith("\\") and end < len(lines):
            end += 1  # a header continued on the next line (a backslash in the source)
        head = " ".join(line.strip().rstrip("\\") for line in lines[i:end]).split(" : ")[0]
        names = [n.strip().lstrip("*") for n in head.split(",")]
        while end < len(lines):
            below = lines[end]
            if below.strip() and len(below) - len(below.lstrip()) > indent:
                end += 1
            elif not below.strip() and end + 1 < len(lines):
                after = lines[end + 1]
                if after.strip() and len(after) - len(after.lstrip()) > indent:
                    end += 1  # a blank line inside the entry
                else:
                    break
            else:
                break
        yield names, i, end
        i = end


def entries(doc: str) -> dict[str, str]:
    """The Parameters entries of a docstring (cleaned: its entries at column 0), by the name
    they document, for the entries of one name.
    """
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, str] = {}
    for names, start, end in parameter_entries(lines):
        if len(names) == 1:
            found[names[0]] = "\n".join(lines[start:end]).rstrip()
    return found


def _docstring_span(tree: ast.Module, function: str) -> tuple[int, int] | None:
    """The lines (0-based, end exclusive) of ``function``'s docstring in a module's ``tree``
    (the definition with a body, not an ``@overload`` stub).
    """
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and first.end_lineno is not None
            ):
                return first.lineno - 1, first.end_lineno
    return None


def rewrite(text: str, functions: list[str]) -> tuple[str, list[str]]:
    """``text`` (a module's source) with the declared entries of ``functions`` written in, and
    the ``function(name)`` of each entry that changed.
    """
    lines = text.splitlines(keepends=True)
    tree = ast.parse(text)
    changed: list[str] = []
    for function in functions:
        span = _docstring_span(tree, function)
        if span is None:
            continue
        first, last = span
        block = [line.rstrip("\n") for line in lines[first:last]]
        out: list[str] = []
        done = 0
        for names, start, end in parameter_entries(block):
            if len(names) != 1:
                continue
            indent = block[start][: len(block[start]) - len(block[start].lstrip())]
            new = expected(function, names[0], indent)
            if new is None:
                continue
            old = "\n".join(block[start:end]).rstrip()
            if new != old:
                changed.append(f"{function}({names[0]})")
            out += block[done:start] + new.splitlines()
            done = end
        out += block[done:]
        if out != block:
            lines[first:last] = [line + "\n" for line in out]
            tree = ast.parse("".join(lines))  # the spans below have moved
    return "".join(lines), changed


def run(check: bool) -> list[str]:
    """Write (or with ``check``, only compare) every public function's declared entries;
    the entries that differ(ed), as ``path: function(name)``.
    """
    by_file: dict[Path, list[str]] = {}
    for name, function in public_functions().items():
        source = inspect.getsourcefile(function)
        if source is not None:
            by_file.setdefault(Path(source), []).append(name)
    stale: list[str] = []
    for path, names in sorted(by_file.items()):
        text = path.read_text(encoding="utf-8")
        new, changed = rewrite(text, sorted(names))
        stale += [f"{path.name}: {c}" for c in changed]
        if new != text and not check:
            path.write_text(new, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    """``python -m tools.api [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m tools.api")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if an entry is stale"
    )
    args = parser.parse_args(argv)
    stale = run(args.check)
    if args.check:
        if stale:
            print("stale parameter entries (run `python -m tools.api`):")
            print("\n".join(f"  {s}" for s in stale))
            return 1
        print("parameter entries up to date")
        return 0
    print(f"{len(stale)} parameter entries rewritten" if stale else "parameter entries up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
