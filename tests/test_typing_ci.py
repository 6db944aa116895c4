"""``ci=`` is visible to a type checker: ``mypy --strict`` on a user's script accepts
``auc(..., ci=0.95)`` and ``ndcg(..., ci=0.9)`` with precise result types (an ``Interval``
with a level, the float with ``ci=None``), and reports wrong calls.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api

# mypy's own run over the package (some 12 s): every tier but the fast one
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

GOOD = """\
from sqlmetrics import Interval, auc, log_loss, ndcg, recall

data = "events.parquet"
iv = auc(data, label="y", score="s", ci=0.95)
width: float = iv.hi - iv.lo
method: str = ndcg(data, k=10, ci=0.9, ci_method="bootstrap", n_boot=50, seed=1).method
same: Interval = recall(data, ci=0.99)
plain: float = auc(data, label="y", score="s", ci=None) + 1.0
loss: float = log_loss(data) * 2.0


def maybe(level: float | None) -> float:
    result = ndcg(data, k=5, ci=level)
    return result if isinstance(result, float) else result.value
"""

# each line must be reported: (the line, what mypy says about it)
BAD = [
    ('auc(data, ci="high")', "No overload variant"),
    ("ndcg(data, k=5, cii=0.9)", "No overload variant"),  # a misspelled keyword
    ('auc(data, ci=0.9, ci_method="normal")', "No overload variant"),
    ("x: float = auc(data, ci=0.95)", "Interval"),
    ("y: float = auc(data).lo", '"float" has no attribute "lo"'),
]


def run_mypy(tmp_path: Path, source: str) -> list[tuple[int, str]]:
    """mypy --strict on ``source`` against this checkout's sqlmetrics, as a user's installed
    package: errors inside sqlmetrics are not the script's (follow_imports=silent).
    """
    script = tmp_path / "user_script.py"
    script.write_text(source, encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\nstrict = True\nmypy_path = {ROOT}\n"
        "[mypy-sqlmetrics,sqlmetrics.*]\nfollow_imports = silent\n",
        encoding="utf-8",
    )
    out, err, _ = api.run(
        [
            "--config-file",
            str(config),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            "--show-absolute-path",
            str(script),
        ]
    )
    assert not err, err
    errors = []
    for line in out.splitlines():
        m = re.match(rf"{re.escape(str(script))}:(\d+): error: (.*)", line)
        if m:
            errors.append((int(m.group(1)), m.group(2)))
        else:
            assert ": note: " in line, line  # nothing but the script's errors and their notes
    return errors


def test_mypy_strict_accepts_ci_and_reports_wrong_calls(tmp_path: Path) -> None:
    first_bad = GOOD.count("\n") + 1
    source = GOOD + "".join(f"{code}\n" for code, _ in BAD)
    errors = run_mypy(tmp_path, source)
    good = [e for e in errors if e[0] < first_bad]
    assert good == [], good  # the correct calls type-check, results used as typed
    for i, (code, says) in enumerate(BAD):
        reported = [msg for line, msg in errors if line == first_bad + i]
        assert any(says in msg for msg in reported), (code, reported)
