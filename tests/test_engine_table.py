"""The engines table (issue 45), declared once in tools/engines.py: README.md's and
docs/concepts/engines.md's copies are generated (``python -m tools.docs``) and fresh, and each
row's tier is backed by tests that ``pytest --all`` collects: a row claims no engine, tier or
suite the tests do not run."""

from __future__ import annotations

import subprocess
import sys

from docpages import ROOT
from test_engines import CONNECT, ENGINES

from tools.docs import (
    ENGINES_END,
    ENGINES_START,
    SHORT_ENGINES_END,
    SHORT_ENGINES_START,
    section,
)
from tools.engines import ENGINES as ROWS
from tools.engines import TIERS, engines_table


def test_the_tables_are_generated_fresh() -> None:
    stale = "stale: run `python -m tools.docs`"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs/concepts/engines.md").read_text(encoding="utf-8")
    assert section(readme, SHORT_ENGINES_START, SHORT_ENGINES_END) == (engines_table(short=True)), (
        f"README.md's engines table is {stale}"
    )
    assert section(page, ENGINES_START, ENGINES_END) == engines_table(), (
        f"docs/concepts/engines.md's engines table is {stale}"
    )


def test_every_row_has_a_tier_and_evidence() -> None:
    assert {row.tier for row in ROWS} == set(TIERS)
    assert all(row.evidence for row in ROWS)
    assert len({row.name for row in ROWS}) == len(ROWS)


def test_the_evidence_is_collected() -> None:
    """Every node id a row names is one ``pytest --all`` collects (the engine tiers too), and
    every engine of the engine contract suite is named by a row."""
    files = sorted({e.split("::")[0] for row in ROWS for e in row.evidence})
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--all", "-n", "0",
         "-p", "no:cacheprovider", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    collected = [line for line in out.stdout.splitlines() if "::" in line]
    missing = [
        (row.name, e)
        for row in ROWS
        for e in row.evidence
        if not any(node.startswith(e) for node in collected)
    ]
    assert missing == []
    named = " ".join(e for row in ROWS for e in row.evidence)
    for engine in (*ENGINES, CONNECT):
        assert f"[{engine}-" in named, f"{engine} runs the contract suite: name it in a row"
