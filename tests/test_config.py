"""configure(): limits of sqlmetrics' own in-memory database."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import sqlmetrics


def test_configure_sets_and_reports(tmp_path: Path) -> None:
    before = sqlmetrics.configure()
    try:
        now = sqlmetrics.configure(memory_limit="1GB", threads=1, temp_directory=tmp_path)
        assert now["threads"] == "1" and now["temp_directory"] == str(tmp_path)
        assert now["memory_limit"] != before["memory_limit"]
        frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4, 0.4]})
        assert sqlmetrics.auc(frame) == 0.875  # still computes under the limits
    finally:
        sqlmetrics.configure(
            threads=int(before["threads"]),
            memory_limit=before["memory_limit"],
            temp_directory=before["temp_directory"] or None,
        )


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"memory_limit": "lots"}, r"configure: memory_limit= must be a size with a unit"),
        ({"memory_limit": 2}, r"memory_limit= .* got 2"),
        ({"threads": 0}, r"configure: threads= must be an integer >= 1; got 0"),
        ({"threads": 1.5}, r"threads= must be an integer"),
    ],
)
def test_configure_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.configure(**kwargs)  # type: ignore[arg-type]
