"""Golden rendered SQL: every metric's SQL is reviewed like code; a change shows up in a diff.

Regenerate after an intended change with
``SQLMETRICS_UPDATE_GOLDEN=1 pytest tests/test_golden_sql.py`` and review the diff of
``tests/golden/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SQLMETRICS_UPDATE_GOLDEN") == "1"


def rendered(name: str) -> str:
    spec = REGISTRY[name]
    params: dict[str, object] = {"k": 10} if spec.takes_k else {}
    if spec.family == "beyond":  # the second input: interactions defining the catalog
        params["train"] = "train_events"
    return sqlmetrics.render(name, "events", by=["country"], **params)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_rendered_sql_matches_golden(name: str) -> None:
    path = GOLDEN / f"{name}.sql"
    sql = rendered(name)
    if UPDATE:
        path.write_text(sql)
    assert path.exists(), f"no golden SQL for {name}: run with SQLMETRICS_UPDATE_GOLDEN=1"
    assert sql == path.read_text()


def test_no_stale_golden_files() -> None:
    assert {p.stem for p in GOLDEN.glob("*.sql")} == set(REGISTRY)
