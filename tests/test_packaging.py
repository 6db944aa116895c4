"""The wheel ships the SQL templates and finds them from any working directory."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: development-only code, which the wheel must not ship (issue 40): the generators and the
#: Python replay of the resampling weights live in tools/ at the repository root
DEV_ONLY = ("tools/", "tests/", "sqlmetrics/_tools/", "sqlmetrics/_inference/resample.py")


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
    shipped = [n for n in names if n.startswith(DEV_ONLY)]
    assert not shipped, f"the wheel ships development-only code: {shipped}"
    modules = {n for n in names if n.endswith(".py")}
    assert modules == {p.relative_to(ROOT).as_posix() for p in (ROOT / "sqlmetrics").rglob("*.py")}
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import json, sqlmetrics; from sqlmetrics._templating.templates import sql_dir; "
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


def test_lowest_pins_are_the_declared_lower_bounds() -> None:
    """.ci/lowest.txt pins every runtime dependency at the lower bound pyproject.toml declares,
    and every runtime dependency declares an upper bound (the tested range, issue 22)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = dict(
        line.split("==")
        for line in (ROOT / ".ci" / "lowest.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    for requirement in declared:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+),<([0-9.]+)", requirement)
        assert match, f"{requirement!r}: declare the tested range as name>=low,<high"
        name, low, _ = match.groups()
        assert pins.get(name) in (low, f"{low}.0", f"{low}.0.0"), (name, low, pins.get(name))
