"""Every code block of the site runs and prints what its page shows (issue 42).

Each page's ``python`` blocks run in order in one namespace (a page stands alone: a block may
use what an earlier block of its page defined, never another page's), from the repository's
root, with warnings as errors: an example must not warn. Where the page shows ``prints`` and
an output block after a code block, the output must equal it. Each ``sqlmetrics`` command of a
``bash`` block runs in a folder holding the files the commands name (``tests/test_cli_readme``'s
``workdir``: the repository's click log and search run as ``events.parquet``, ``run.txt``, ...,
beside ``examples/`` and ``tests/data/``), and must exit 0; its output, where shown, must be
equal. Blocks tagged ``python spark`` / ``python postgres`` and commands with ``--spark`` or
``--db-url`` run on their engines in ``tests/test_readme_engines.py`` and
``tests/test_cli_readme.py``; ``pip``, ``cd`` and ``dbt`` lines are CI's and
``tests/test_dbt.py``'s, and each dbt model call and gate a page shows is one of the
integration project's, which that file builds.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from docpages import ROOT, blocks, page, pages
from test_cli_readme import commands, run, workdir  # noqa: F401  (workdir: a fixture)

CODE_PAGES = [p for p in [*pages(), "README.md"] if "```" in page(p)]
#: commands that need an engine of their own, run in the engine tiers
ENGINE_FLAGS = ("--spark", "--db-url")
#: what a page's commands write, checked after them (the rest print, and are compared)
WRITES = {
    "guide/cli.md": ["metrics.csv", "roc.png"],
    "recipes/html-report.md": ["report.html"],
}


@pytest.mark.parametrize("path", CODE_PAGES)
def test_python_blocks_print_what_the_page_shows(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in blocks(page(path)):
        if block.info != "python":
            continue
        out = io.StringIO()
        with warnings.catch_warnings(), contextlib.redirect_stdout(out):
            warnings.simplefilter("error")
            exec(compile(block.code, f"docs/{path}", "exec"), namespace)
        if block.shown is not None:
            assert out.getvalue() == block.shown, f"{path}: {block.code[:80]!r}"


@pytest.mark.parametrize("path", CODE_PAGES)
def test_commands_print_what_the_page_shows(path: str, workdir: Path) -> None:  # noqa: F811
    for name in ("examples", "tests", "integration_tests"):
        (workdir / name).symlink_to(ROOT / name)
    for block in blocks(page(path)):
        if block.info != "bash":
            continue
        argvs = [a for a in commands(block.code) if not set(a) & set(ENGINE_FLAGS)]
        outputs = [run(argv, workdir) for argv in argvs]
        if block.shown is not None:
            assert len(outputs) == 1, f"{path}: one command shows one output"
            assert outputs[0] == block.shown, f"{path}: {block.code[:80]!r}"
    for name in WRITES.get(path, []):
        assert (workdir / name).stat().st_size > 0, f"{path}: {name} not written"
    if path == "guide/cli.md":
        written = pd.read_csv(workdir / "metrics.csv")  # its first command's output
        assert {"auc", "gauc", "ndcg@10"} <= set(written.columns) and len(written) == 6


def _gates(tree: object) -> list[tuple[str, object]]:
    """The ``sqlmetrics.<test>`` entries of a parsed YAML file, with their arguments."""
    if isinstance(tree, dict):
        return [
            found
            for key, value in tree.items()
            for found in (
                [(key, (value or {}).get("arguments"))]
                if str(key).startswith("sqlmetrics.")
                else []
            )
            + _gates(value)
        ]
    if isinstance(tree, list):
        return [found for item in tree for found in _gates(item)]
    return []


def test_dbt_examples_are_the_integration_projects() -> None:
    """Every dbt model call (``{{ sqlmetrics.... }}`` of a ``sql`` block) and every gate of a
    ``yaml`` block in the site is one of the integration project's, which tests/test_dbt.py
    builds on dbt-duckdb, dbt-postgres and dbt-spark: the site shows nothing dbt never ran.
    """
    import yaml

    project = ROOT / "integration_tests"
    flat = "".join("".join(p.read_text().split()) for p in project.rglob("*.sql"))
    gates = [g for p in project.rglob("*.yml") for g in _gates(yaml.safe_load(p.read_text()))]
    shown = 0
    for path in CODE_PAGES:
        for block in blocks(page(path)):
            if block.info == "sql":
                for call in re.findall(r"\{\{.*?\}\}", block.code, flags=re.S):
                    assert "".join(call.split()) in flat, f"{path}: {call[:80]!r}"
                    shown += 1
            elif block.info == "yaml":
                for gate in _gates(yaml.safe_load(block.code)):
                    assert gate in gates, f"{path}: {gate}"
                    shown += 1
    assert shown >= 9
