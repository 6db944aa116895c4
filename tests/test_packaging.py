"""The wheel ships the SQL templates and finds them from any working directory."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_templates_and_runs_elsewhere(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = (tmp_path / "dist").glob("sqlmetrics-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    templates = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "sql").rglob("*.sql"))
    assert templates and all(f"sqlmetrics/{t}" in names for t in templates)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import json, sqlmetrics; from sqlmetrics._templates import sql_dir; "
        f"v = sqlmetrics.auc({str(ROOT / 'examples' / 'data' / 'ctr.csv')!r}, label='click', "
        "score='pctr'); print(json.dumps([sqlmetrics.__file__, str(sql_dir()), v]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=elsewhere,
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )
    module_file, templates_dir, value = json.loads(out.stdout)
    assert module_file.startswith(str(site)) and templates_dir.startswith(str(site))
    assert 0.5 < value < 1.0
