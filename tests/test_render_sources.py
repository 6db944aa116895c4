"""``render`` reads a name the way running reads it: one detection (``files.data_kind``)."""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._backends.files import data_kind
from sqlmetrics._backends.source import open_source

FRAME = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.6, 0.35, 0.8, 0.5, 0.5]})


def _write(path: Path) -> None:
    name = path.name
    if name.endswith((".parquet", ".pq", ".parq")):
        FRAME.to_parquet(path)
        return
    sep = "\t" if ".tsv" in name else ","
    text = FRAME.to_csv(index=False, sep=sep)
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)


def _run_kind(data: str, con: duckdb.DuckDBPyConnection) -> str:
    with open_source(data, con, "auc") as source:
        sql = source.sql
    if sql.startswith("read_parquet("):
        return "parquet"
    return "csv" if sql.startswith("read_csv(") else "table"


@pytest.mark.parametrize(
    "name",
    ["d.csv", "d.tsv", "d.txt", "d.csv.gz", "d.tsv.gz", "d.txt.gz", "d.parquet", "d.pq", "noext"],
)
def test_a_file_renders_the_way_it_is_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    _write(path)
    con = duckdb.connect()
    kind = _run_kind(str(path), con)
    assert kind == data_kind(str(path)) == ("parquet" if ".p" in name else "csv")
    sql = sqlmetrics.render("auc", str(path))
    assert f"read_{kind}(" in sql
    assert con.execute(sql).fetchall()[0][0] == pytest.approx(sqlmetrics.auc(str(path)))


def test_a_glob_renders_the_way_it_is_read(tmp_path: Path) -> None:
    for part in ("a", "b"):
        _write(tmp_path / f"{part}.txt")
    pattern = str(tmp_path / "*.txt")
    con = duckdb.connect()
    assert _run_kind(pattern, con) == data_kind(pattern) == "csv"
    sql = sqlmetrics.render("auc", pattern)
    assert "read_csv(" in sql and "*.txt" in sql
    assert con.execute(sql).fetchall()[0][0] == pytest.approx(
        sqlmetrics.auc(pd.concat([FRAME, FRAME]))
    )


def test_a_file_with_glob_characters_in_its_name_is_that_file(tmp_path: Path) -> None:
    path = tmp_path / "d[1].csv"
    _write(path)
    _write(tmp_path / "d1.csv")  # the pattern d[1].csv would match this one
    con = duckdb.connect()
    sql = sqlmetrics.render("auc", str(path))
    assert "d[[]1].csv" in sql
    assert con.execute(sql).fetchall()[0][0] == pytest.approx(sqlmetrics.auc(str(path)))


@pytest.mark.parametrize("name", ["events", "main.events", "s.events", "s.events_txt"])
def test_a_dotted_table_name_renders_the_way_it_is_read(name: str) -> None:
    con = duckdb.connect()
    con.execute("create schema s")
    con.register("frame", FRAME)
    con.execute(f"create table {name} as select * from frame")
    assert _run_kind(name, con) == data_kind(name) == "table"
    sql = sqlmetrics.render("auc", name)
    assert "read_" not in sql
    assert con.execute(sql).fetchall()[0][0] == pytest.approx(sqlmetrics.auc(name, con=con))
