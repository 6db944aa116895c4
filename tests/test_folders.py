"""Warehouse exports as folders, and empty files, through every entry point (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import DataSourceError, InvalidDataError, InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """The example click log as a Hive-partitioned Parquet export, one folder per day."""
    folder = tmp_path / "export"
    duckdb.sql(
        f"copy (select * from read_csv('{CTR}')) to '{folder}' (format parquet, partition_by (day))"
    )
    return folder


def test_a_folder_is_read_with_its_partition_columns(export: Path) -> None:
    expected = sqlmetrics.evaluate(
        str(CTR), ["auc", "log_loss"], label="click", score="pctr", by=["day", "country"]
    )
    for data in (export, str(export), str(export) + "/"):
        got = sqlmetrics.evaluate(
            data, ["auc", "log_loss"], label="click", score="pctr", by=["day", "country"]
        )
        got["day"] = got["day"].astype(str)
        want = expected.assign(day=expected["day"].astype(str))
        pd.testing.assert_frame_equal(got, want)
    assert sqlmetrics.auc(str(export), label="click", score="pctr") == sqlmetrics.auc(
        str(CTR), label="click", score="pctr"
    )


def test_a_rendered_folder_runs_where_it_is_rendered(export: Path) -> None:
    sql = sqlmetrics.render_evaluate(str(export), ["auc"], label="click", score="pctr", by="day")
    assert "hive_partitioning = true" in sql
    got = duckdb.sql(sql).df()
    expected = sqlmetrics.evaluate(str(export), ["auc"], label="click", score="pctr", by="day")
    assert got["auc"].tolist() == expected["auc"].tolist()


def test_a_folder_renders_for_spark_and_is_named_for_postgres(export: Path) -> None:
    spark = sqlmetrics.render("auc", str(export), label="click", score="pctr", dialect="spark")
    assert f"parquet.`{export}`" in spark
    with pytest.raises(InvalidParameterError, match="is a directory of Parquet files"):
        sqlmetrics.render("auc", str(export), label="click", score="pctr", dialect="postgres")


def test_a_folder_without_data_files(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(DataSourceError, match="is a directory with no Parquet or CSV file"):
        sqlmetrics.auc(str(tmp_path), label="click", score="pctr")


def test_empty_and_header_only_csv_files(tmp_path: Path) -> None:
    empty, header = tmp_path / "empty.csv", tmp_path / "header.csv"
    empty.write_text("")
    header.write_text("click,pctr\n")
    with pytest.raises(DataSourceError, match=r"is an empty file \(0 bytes\)"):
        sqlmetrics.auc(str(empty), label="click", score="pctr")
    with pytest.raises(InvalidDataError, match="header.csv' has no rows"):
        sqlmetrics.auc(str(header), label="click", score="pctr")
    result = CliRunner().invoke(
        cli.main, ["eval", str(header), "-m", "auc", "--label", "click", "--score", "pctr"]
    )
    assert result.exit_code != 0
    assert "has no rows" in result.output


def test_the_cli_reads_a_folder_as_python_does(export: Path) -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(export),
            "-m",
            "auc",
            "--label",
            "click",
            "--score",
            "pctr",
            "--by",
            "day",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    expected = sqlmetrics.evaluate(str(export), ["auc"], label="click", score="pctr", by="day")
    assert [row["auc"] for row in json.loads(result.stdout)] == expected["auc"].tolist()


@pytest.fixture
def deep_export(tmp_path: Path) -> Path:
    """The example click log as a two-level Hive export (day=/country=), Spark-style: a
    ``_SUCCESS`` marker and hidden ``.crc`` files beside the parts."""
    folder = tmp_path / "exports"
    duckdb.sql(
        f"copy (select * from read_csv('{CTR}')) to '{folder}' "
        f"(format parquet, partition_by (day, country))"
    )
    (folder / "_SUCCESS").write_text("")
    for part in folder.rglob("*.parquet"):
        (part.parent / f".{part.name}.crc").write_text("crc")
    return folder


def test_a_recursive_glob_reads_every_depth_with_its_partitions(deep_export: Path) -> None:
    """`exports/**/*.parquet` (DuckDB's own recursive glob) was "matches no file" (issue 39)."""
    expected = sqlmetrics.evaluate(
        str(CTR), ["auc", "log_loss"], label="click", score="pctr", by=["day", "country"]
    )
    expected["day"] = expected["day"].astype(str)
    patterns = [
        str(deep_export / "**" / "*.parquet"),
        str(deep_export / "**" / "country=*" / "*.parquet"),
        str(deep_export / "day=*" / "**" / "*.parquet"),
    ]
    for pattern in patterns:
        got = sqlmetrics.evaluate(
            pattern, ["auc", "log_loss"], label="click", score="pctr", by=["day", "country"]
        )
        got["day"] = got["day"].astype(str)
        pd.testing.assert_frame_equal(got, expected)
    # relative, as typed in a shell from the export's parent
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(deep_export.parent)
        assert sqlmetrics.auc("exports/**/*.parquet", label="click", score="pctr") == (
            sqlmetrics.auc(str(CTR), label="click", score="pctr")
        )


def test_the_cli_reads_a_recursive_glob(deep_export: Path) -> None:
    args = ["-m", "auc", "--label", "click", "--score", "pctr", "--by", "country"]
    result = CliRunner().invoke(
        cli.main, ["eval", str(deep_export / "**" / "*.parquet"), *args, "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    expected = sqlmetrics.evaluate(str(CTR), ["auc"], label="click", score="pctr", by="country")
    rows = json.loads(result.stdout)
    assert [r["country"] for r in rows] == expected["country"].tolist()
    assert [r["auc"] for r in rows] == expected["auc"].tolist()
