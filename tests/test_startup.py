"""Start-up (issue 24): ``import sqlmetrics`` and ``sqlmetrics --version`` load none of the
heavy or optional third-party modules; a call that needs one imports it (tests/test_layout.py
checks where the imports are). The timings are in benchmarks/RESULTS.md, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "pyarrow", "sqlalchemy", "pyspark", "matplotlib", "chdb")


def loaded_after(code: str) -> list[str]:
    """The HEAVY modules in sys.modules after running ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_import_loads_no_heavy_module() -> None:
    assert loaded_after("import sqlmetrics") == []


def test_version_loads_no_heavy_module() -> None:
    code = (
        "import sys\nfrom sqlmetrics.cli import main\nsys.argv = ['sqlmetrics', '--version']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code"
    )
    assert loaded_after(code) == []


def test_a_call_that_needs_pandas_imports_it() -> None:
    """The probe sees a heavy module once one is loaded: evaluate returns a pandas DataFrame."""
    code = (
        "import duckdb, sqlmetrics\n"
        "rows = duckdb.sql('select * from (values (1, 0.9), (0, 0.2)) as t(y, s)')\n"
        "assert type(sqlmetrics.evaluate(rows, ['auc'], label='y', score='s')).__name__ "
        "== 'DataFrame'"
    )
    assert "pandas" in loaded_after(code)
