"""The examples in examples/ run, and print what they claim."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import sqlmetrics

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_runs(capsys: pytest.CaptureFixture[str]) -> None:
    module = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    results = module["main"]()
    out = capsys.readouterr().out
    assert "auc" in out and "gauc" in out
    data = ROOT / "examples" / "data" / "ctr.csv"
    assert results["auc"] == sqlmetrics.auc(data, label="click", score="pctr")
    assert 0.5 < results["auc"] < 1 and 0.5 < results["gauc"] < 1


def test_example_data_is_reproducible(tmp_path: Path) -> None:
    script = ROOT / "examples" / "make_example_data.py"
    namespace = runpy.run_path(str(script))
    namespace["ctr"](tmp_path / "ctr.csv")
    assert (tmp_path / "ctr.csv").read_bytes() == (ROOT / "examples/data/ctr.csv").read_bytes()


def test_quickstart_as_a_script() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.count("\n") == 5


def test_example_export_folder_is_reproducible(tmp_path: Path) -> None:
    # the warehouse-export recipe's Hive folder (day=/country=, two models) is made from ctr.csv
    import pyarrow.parquet as pq

    namespace = runpy.run_path(str(ROOT / "examples" / "make_example_data.py"))
    namespace["exports"](ROOT / "examples/data/ctr.csv", tmp_path / "exports")
    shipped = sorted(
        p.relative_to(ROOT / "examples/data")
        for p in (ROOT / "examples/data").glob("exports/**/*.parquet")
    )
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.glob("exports/**/*.parquet"))
    assert shipped == made and len(made) == 6
    for path in made:
        assert pq.read_table(tmp_path / path).equals(pq.read_table(ROOT / "examples/data" / path))
    rows = sum(pq.read_metadata(tmp_path / p).num_rows for p in made)
    assert rows == len((ROOT / "examples/data/ctr.csv").read_text().splitlines()) - 1
