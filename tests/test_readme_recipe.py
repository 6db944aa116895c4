"""The README's warehouse-export recipe (issue 39, Done-when) runs and prints what it shows:
its Python block, its `sqlmetrics eval` command (two models, `**`, `where`), the report that
the same command writes, and its dbt model, which is the integration project's own file (built
and checked against Python in tests/test_dbt.py).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from sqlmetrics import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README.split("\n## Recipe: a warehouse export, by day and country\n", 1)[1].split(
    "\n## ", 1
)[0]


def block(kind: str) -> str:
    return str(re.findall(rf"```{kind}\n(.*?)\n```", SECTION, flags=re.S)[0])


def shown_after(text: str) -> str:
    """The output block printed after ``text`` (its ``prints`` block)."""
    rest = SECTION.split(text, 1)[1]
    return str(re.search(r"\nprints\n\n```\n(.*?)```", rest, flags=re.S).group(1))  # type: ignore[union-attr]


def test_python_block_prints_what_the_recipe_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code = block("python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue() == shown_after(code)
    assert "US" not in out.getvalue() and "day country" in out.getvalue()


def test_cli_command_prints_what_the_recipe_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    command = block("bash")
    argv = shlex.split(command)
    assert argv[0] == "sqlmetrics" and argv.count("--score") == 2 and "**" in argv[2]
    result = CliRunner().invoke(cli.main, argv[1:], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output == shown_after(command)


def test_the_same_command_writes_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(block("bash"))
    argv[1] = "report"
    out = tmp_path / "export.html"
    result = CliRunner().invoke(cli.main, [*argv[1:], "-o", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "pctr_challenger" in html and "2026-11-02" in html
    assert "report -o export.html" in SECTION


def test_dbt_block_is_the_integration_projects_model() -> None:
    model = ROOT / "integration_tests/models/warehouse_export/export_metrics.sql"
    assert block("sql") == model.read_text(encoding="utf-8").rstrip()
