"""The README's "Other engines" examples run: the PostgreSQL block on the test server (its
``DATABASE_URL`` pointing there, its table loaded from the example click log), the Spark block
on the test session; both give DuckDB's numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import sqlmetrics

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CTR = ROOT / "examples" / "data" / "ctr.csv"
METRICS = ["auc", "gauc", "log_loss"]


def block(engine: str) -> str:
    blocks = re.findall(rf"```python {engine}\n(.*?)\n```", README, flags=re.S)
    assert len(blocks) == 1, f"README has {len(blocks)} '```python {engine}' blocks"
    return str(blocks[0])


def expected() -> pd.DataFrame:
    return sqlmetrics.evaluate(
        str(CTR), METRICS, label="click", score="pctr", group="user_id", by="country"
    )


def check(namespace: dict[str, Any]) -> None:
    got, want = namespace["per_country"], expected()
    assert list(got.columns) == list(want.columns)
    assert got["country"].tolist() == want["country"].tolist()
    for metric in METRICS:
        assert got[metric].tolist() == pytest.approx(want[metric].tolist(), rel=1e-9)


def test_the_postgres_example_runs(pg_engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with pg_engine.begin() as c:
        c.exec_driver_sql("create schema if not exists analytics")
    pd.read_csv(CTR).to_sql(
        "clicks", pg_engine, schema="analytics", index=False, if_exists="replace"
    )
    monkeypatch.setenv("DATABASE_URL", pg_engine.url.render_as_string(hide_password=False))
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    exec(compile(block("postgres"), "README.md", "exec"), namespace)
    check(namespace)


def test_the_spark_example_runs(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    exec(compile(block("spark"), "README.md", "exec"), namespace)
    assert namespace["spark"] is spark  # getOrCreate: the test session
    check(namespace)
