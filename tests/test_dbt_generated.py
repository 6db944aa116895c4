"""The dbt package's generated files are fresh (fast tier: no dbt, no engine).

``python -m tools.dbt --check`` names every file under ``dbt/macros`` that the generator
would change: the registry facts, the option checks as data (``_generated/checks.sql``, whose
messages are read from the Python checks) and the per-metric macros. A message or an option
changed in Python fails here until the command is run (tests/test_dbt.py holds the rest).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools import dbt as _dbt

ROOT = Path(__file__).resolve().parent.parent


def test_generated_files_are_fresh() -> None:
    stale = _dbt.check()
    assert stale == [], f"run `python -m tools.dbt`: stale {stale}"


def test_check_names_a_stale_file(tmp_path: Path) -> None:
    for folder in ("sql", "dbt"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    template = tmp_path / "sql" / "classification" / "auc.sql"
    qualified = template.read_text()
    assert "{{ sqlmetrics.slice_cols(by) }}" in qualified
    template.write_text(
        qualified.replace("{{ sqlmetrics.slice_cols(by) }}", "{{ slice_cols(by) }}")
    )
    target = tmp_path / "dbt" / "macros" / "metrics" / "auc.sql"
    target.write_text(target.read_text() + "\n{# edited by hand #}\n")
    (tmp_path / "dbt" / "macros" / "metrics" / "gone.sql").write_text("")
    checks = tmp_path / "dbt" / "macros" / "_generated" / "checks.sql"
    generated = checks.read_text()
    assert "must be a finite number >= 0 (recall weighs beta" in generated  # Python's message
    checks.write_text(generated.replace("must be a finite number >= 0", "must be >= 0"))
    (tmp_path / "dbt" / "macros" / "_generated" / "old.sql").write_text("")
    assert _dbt.check(tmp_path) == [
        "sql/classification/auc.sql",
        "dbt/macros/_generated/checks.sql",
        "dbt/macros/metrics/auc.sql",
        "dbt/macros/_generated/old.sql",
        "dbt/macros/metrics/gone.sql",
    ]
    _dbt.write(tmp_path)
    assert _dbt.check(tmp_path) == []
    assert template.read_text() == qualified
    assert checks.read_text() == generated
    assert not (tmp_path / "dbt" / "macros" / "metrics" / "gone.sql").exists()
    assert not (tmp_path / "dbt" / "macros" / "_generated" / "old.sql").exists()


def test_main_check_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert _dbt.main(["--check"]) == 0
    assert capsys.readouterr().err == ""
