"""`sqlmetrics compare`: the CLI gives what sqlmetrics.compare gives, and clean errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli


def _data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    n = 200
    label = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "user": np.repeat(np.arange(20), 10),
            "doc": np.arange(n),
            "label": label,
            "model_a": (rng.random(n) + 0.2 * label).round(2),
            "model_b": (rng.random(n) + 0.5 * label).round(2),
            "country": rng.choice(["DE", "FR"], n),
        }
    )
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path)
    return path


def test_csv_equals_the_python_call(tmp_path: Path) -> None:
    path = _data(tmp_path)
    args = [
        "compare",
        str(path),
        "-m",
        "auc",
        "-m",
        "NDCG@5",
        "-m",
        "f1",
        "--score",
        "model_a",
        "--score",
        "model_b",
        "--group",
        "user",
        "--item",
        "doc",
        "--by",
        "country",
        "--n-boot",
        "50",
        "--format",
        "csv",
    ]
    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.output), float_precision="round_trip")
    expected = sqlmetrics.compare(
        str(path),
        ["auc", "ndcg@5", "f1"],
        scores=["model_a", "model_b"],
        group="user",
        item="doc",
        by="country",
        n_boot=50,
    )
    pd.testing.assert_frame_equal(
        got.drop(columns=["n_rows", "n_groups"]),
        expected.drop(columns=["n_rows", "n_groups"]),
        check_exact=True,
    )
    assert list(got["n_rows"]) == list(expected["n_rows"])


def test_json_baseline_and_test(tmp_path: Path) -> None:
    path = _data(tmp_path)
    args = [
        "compare",
        str(path),
        "-m",
        "ndcg@5",
        "--score",
        "model_a",
        "--score",
        "model_b",
        "--baseline",
        "model_b",
        "--test",
        "randomization",
        "--n-permutations",
        "100",
        "--group",
        "user",
        "--item",
        "doc",
        "--format",
        "json",
    ]
    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert [r["model"] for r in records] == ["model_b", "model_a"]
    assert records[0]["p_value"] is None and records[1]["test"] == "randomization"
    assert records[1]["n_groups"] == 20
    # randomization p-values are multiples of 1 / (1 + n_permutations)
    assert abs(records[1]["p_value"] * 101 - round(records[1]["p_value"] * 101)) < 1e-9


def test_table_format(tmp_path: Path) -> None:
    path = _data(tmp_path)
    result = CliRunner().invoke(
        cli.main,
        [
            "compare",
            str(path),
            "-m",
            "accuracy",
            "--score",
            "model_a",
            "--score",
            "model_b",
            "--option",
            "threshold=0.6",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:4] == ["metric", "model", "value", "diff"]
    assert "mcnemar" in lines[2]


def test_one_score_is_a_clean_error(tmp_path: Path) -> None:
    path = _data(tmp_path)
    result = CliRunner().invoke(cli.main, ["compare", str(path), "-m", "auc", "--score", "model_a"])
    assert result.exit_code == 2
    assert (
        "compare: --score needs at least two models to compare; got ['model_a']; pass e.g. "
        "--score model_a --score model_b" in result.output
    )
    assert "Traceback" not in result.output
