"""The site's "Other engines" examples (docs/concepts/engines.md) run: the PostgreSQL block on
the test server (its ``DATABASE_URL`` pointing there, its table loaded from the example click
log) and its ``--db-url`` command (the URL pointing there), the Spark block on the test
session; all give DuckDB's numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from docpages import page
from test_cli_readme import commands

import sqlmetrics
from sqlmetrics import cli

ROOT = Path(__file__).resolve().parents[1]
ENGINES_PAGE = page("concepts/engines.md")
CTR = ROOT / "examples" / "data" / "ctr.csv"
METRICS = ["auc", "gauc", "log_loss"]


def block(engine: str) -> str:
    blocks = re.findall(rf"```python {engine}\n(.*?)\n```", ENGINES_PAGE, flags=re.S)
    assert len(blocks) == 1, f"the page has {len(blocks)} '```python {engine}' blocks"
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
    exec(compile(block("postgres"), "docs/concepts/engines.md", "exec"), namespace)
    check(namespace)
    (command,) = [c for c in commands(ENGINES_PAGE.split("```bash\n", 1)[1]) if "--db-url" in c]
    url = pg_engine.url.render_as_string(hide_password=False)
    argv = [url if a.startswith("postgresql") else a for a in command]
    result = CliRunner().invoke(cli.main, argv[1:])
    assert result.exit_code == 0, result.output
    want = sqlmetrics.auc(str(CTR), label="click", score="pctr")
    assert f"{want:.6f}" in result.stdout, result.stdout


def test_the_spark_example_runs(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    exec(compile(block("spark"), "docs/concepts/engines.md", "exec"), namespace)
    assert namespace["spark"] is spark  # getOrCreate: the test session
    check(namespace)
