"""The test suite reads nothing outside the repository (a bare clone runs `pytest -q`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDORED = ROOT / "tests" / "data" / "trec_eval"

# ways a test could reach above the repository root
OUTSIDE = re.compile(
    r"\.\./shared|parents\[[2-9]\]|parent\.parent\.parent|ROOT\.parent|"
    r"conformance/trec_eval|/work/"
)


def test_no_test_reads_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path.name != "test_self_contained.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert offenders == []


def test_vendored_trec_eval_suite_is_complete() -> None:
    names = {
        "qrels.test",
        "qrels.rel_level",
        "results.test",
        "results.trunc",
        "out.test",
        "out.test.a",
        "out.test.aq",
        "out.test.aqc",
        "out.test.aql",
        "README.md",
    }
    assert names <= {p.name for p in VENDORED.iterdir()}
    readme = (VENDORED / "README.md").read_text(encoding="utf-8")
    assert "github.com/usnistgov/trec_eval" in readme and "NIST" in readme
    assert "licen" in readme.lower()
