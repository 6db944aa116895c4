"""The examples in examples/ run, and print what they claim."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import duckdb
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


def test_ctr_export_is_the_click_log(tmp_path: Path) -> None:
    """examples/data/ctr_export/ (Hive partition folders day=/country=, a _SUCCESS marker) is
    what make_example_data.py writes, and holds the rows of ctr.csv with the challenger's score
    (integration_tests/models/predictions.sql's formula)."""
    script = ROOT / "examples" / "make_example_data.py"
    namespace = runpy.run_path(str(script))
    committed = ROOT / "examples" / "data" / "ctr_export"
    namespace["ctr_export"](ROOT / "examples" / "data" / "ctr.csv", tmp_path / "ctr_export")

    def files(folder: Path) -> list[str]:
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())

    assert files(tmp_path / "ctr_export") == files(committed)
    assert "day=2026-11-01/country=DE/part-0.parquet" in files(committed)

    def rows(folder: Path) -> list[tuple[object, ...]]:
        return duckdb.sql(
            "select user_id, item_id, cast(country as varchar), cast(day as varchar), click, "
            "pctr, pctr_challenger from read_parquet("
            f"'{folder}/**/*.parquet', hive_partitioning = true) order by all"
        ).fetchall()

    log = duckdb.sql(
        f"select user_id, item_id, country, cast(day as varchar), click, pctr, "
        f"(pctr + cast(item_id % 7 as double) / 20.0) / 1.3 from '{ROOT}/examples/data/ctr.csv' "
        "order by all"
    ).fetchall()
    assert rows(committed) == rows(tmp_path / "ctr_export") == log
    assert len(log) == 2869
