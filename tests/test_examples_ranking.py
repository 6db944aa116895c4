"""The ranking example runs, and its data file is what its seeded generator writes."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from oracle import ranking as orc

ROOT = Path(__file__).resolve().parents[1]


def test_generator_reproduces_the_committed_file(tmp_path: Path) -> None:
    module = runpy.run_path(str(ROOT / "examples" / "make_ranking_data.py"))
    module["search"](tmp_path / "search.csv")
    committed = ROOT / "examples" / "data" / "search.csv"
    assert (tmp_path / "search.csv").read_bytes() == committed.read_bytes()


def test_ranking_example_prints_what_the_oracle_computes() -> None:
    results = runpy.run_path(str(ROOT / "examples" / "ranking.py"))["main"]()
    frame = pd.read_csv(ROOT / "examples" / "data" / "search.csv")
    rows = list(zip(frame["query_id"], frame["doc_id"], frame["score"], frame["rel"]))
    assert results["ndcg@10"] == pytest.approx(orc.metric("ndcg", rows, k=10), abs=1e-12)
    assert results["map@10"] == pytest.approx(orc.metric("map", rows, k=10), abs=1e-12)
    assert results["r_precision (rel >= 2)"] == pytest.approx(
        orc.metric("r_precision", rows, relevance_level=2), abs=1e-12
    )
    assert all(0 <= v <= 1 for v in results.values())
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ranking.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "ndcg@10" in out and f"{results['mrr']:.4f}" in out
