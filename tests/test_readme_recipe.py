"""The site's warehouse-export recipe (issue 39, Done-when; docs/recipes/warehouse-export.md):
its Python block and its `sqlmetrics eval` command (two models, `**`, `where`) print what the
page shows (tests/test_site_pages.py runs them; here, that they show what the recipe is
about), the report that the same command writes, and its dbt model, which is the integration
project's own file (built and checked against Python in tests/test_dbt.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from docpages import blocks, section

from sqlmetrics import cli

ROOT = Path(__file__).resolve().parents[1]
SECTION = section("Recipe: a warehouse export, by day and country")


def block(kind: str) -> str:
    return str(re.findall(rf"```{kind}\n(.*?)\n```", SECTION, flags=re.S)[0])


def test_the_recipe_shows_the_export_by_day_and_country() -> None:
    python, command = (b for b in blocks(SECTION) if b.info in ("python", "bash"))
    assert python.shown is not None and command.shown is not None  # both compared there
    assert "US" not in python.shown and "day country" in python.shown
    argv = shlex.split(command.code)
    assert argv[0] == "sqlmetrics" and argv.count("--score") == 2 and "**" in argv[2]
    assert "pctr_challenger" in command.shown


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
