"""Files of one input (a Hive folder, a glob, a list) whose columns disagree in type (issue 39,
item 5): refused in either order with an error naming the column, the files and their types;
numbers of different widths are read as one wider type, never cast to the first file's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import InvalidDataError

DAY1 = {"label": [1, 0, 1, 0, 1, 0], "score": [0.9, 0.1, 0.8, 0.35, 0.3, 0.4]}
DAY2 = {"label": [1, 0, 0, 1, 1, 0], "score": [0.7, 0.2, 0.6, 0.4, 0.65, 0.5]}

# (column, its type in the odd file as pyarrow writes it, the odd values)
ODD_PARQUET = [
    ("score", pa.string(), [str(v) for v in DAY2["score"]]),  # text scores
    ("label", pa.bool_(), [bool(v) for v in DAY2["label"]]),  # booleans against ints
    ("label", pa.string(), [str(v) for v in DAY2["label"]]),  # '0'/'1' text against ints
]


def _write_parquet(folder: Path, odd: tuple[str, Any, list[Any]], odd_day: int) -> None:
    """A Hive export of two days, day ``odd_day`` with the odd column type."""
    column, arrow_type, values = odd
    for day, rows in ((1, DAY1), (2, DAY2)):
        table = pa.table(rows)
        if day == odd_day:
            table = table.set_column(
                table.schema.get_field_index(column), column, pa.array(values, arrow_type)
            )
        (folder / f"day={day}").mkdir(parents=True)
        pq.write_table(table, folder / f"day={day}" / "part-0.parquet")


def _types_named(message: str, column: str) -> None:
    assert f"column {column!r}" in message
    # both files, each with its type
    assert re.search(r"in '[^']*day=1[/\\]part-0\.\w+'", message), message
    assert re.search(r"in '[^']*day=2[/\\]part-0\.\w+'", message), message


@pytest.mark.parametrize("odd", ODD_PARQUET, ids=["text-scores", "bool-labels", "text-labels"])
@pytest.mark.parametrize("odd_day", [1, 2], ids=["odd-first", "odd-second"])
def test_a_parquet_folder_of_two_types_is_refused_naming_file_column_and_types(
    tmp_path: Path, odd: tuple[str, Any, list[Any]], odd_day: int
) -> None:
    folder = tmp_path / "export"
    _write_parquet(folder, odd, odd_day)
    column, arrow_type, _ = odd
    inputs = [
        str(folder),
        str(folder / "*" / "*.parquet"),
        [str(folder / "day=1" / "part-0.parquet"), str(folder / "day=2" / "part-0.parquet")],
    ]
    for data in inputs:
        with pytest.raises(InvalidDataError, match="has a different type from file to file") as e:
            sqlmetrics.evaluate(data, ["auc", "log_loss"], label="label", score="score")
        message = str(e.value)
        _types_named(message, column)
        assert str(arrow_type) in message  # the odd type
        assert ("double" if column == "score" else "int64") in message  # and the usual one


CSV_ODD = {
    # column: the odd day's rows (the other day has numbers)
    "score": "label,score\n1,high\n0,low\n1,high\n0,low\n1,mid\n0,low\n",
    "label": "label,score\ntrue,0.7\nfalse,0.2\nfalse,0.6\ntrue,0.4\ntrue,0.65\nfalse,0.5\n",
}


@pytest.mark.parametrize("column", ["score", "label"])
@pytest.mark.parametrize("odd_day", [1, 2], ids=["odd-first", "odd-second"])
def test_a_csv_folder_of_two_types_is_refused_naming_file_column_and_types(
    tmp_path: Path, column: str, odd_day: int
) -> None:
    folder = tmp_path / "export"
    for day, rows in ((1, DAY1), (2, DAY2)):
        (folder / f"day={day}").mkdir(parents=True)
        text = CSV_ODD[column] if day == odd_day else pd.DataFrame(rows).to_csv(index=False)
        (folder / f"day={day}" / "part-0.csv").write_text(text)
    for data in (str(folder), str(folder / "*" / "*.csv")):
        with pytest.raises(InvalidDataError, match="has a different type from file to file") as e:
            sqlmetrics.auc(data, label="label", score="score")
        message = str(e.value)
        _types_named(message, column)
        assert ("VARCHAR" if column == "score" else "BOOLEAN") in message
        assert ("DOUBLE" if column == "score" else "BIGINT") in message


def test_the_cli_names_the_file_and_the_column(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _write_parquet(folder, ODD_PARQUET[0], 2)
    result = CliRunner().invoke(cli.main, ["eval", str(folder), "-m", "auc"])
    assert result.exit_code == 2
    assert "column 'score' has a different type from file to file" in result.output
    assert "day=2" in result.output and "string" in result.output


WIDTHS = [
    # (day 1's score type, day 2's): numbers of different widths, read as the wider
    (pa.int64(), pa.float64()),
    (pa.float64(), pa.int64()),
    (pa.float32(), pa.float64()),
    (pa.decimal128(10, 1), pa.float64()),
]


@pytest.mark.parametrize("first,second", WIDTHS, ids=lambda t: str(t))
def test_numbers_of_different_widths_are_widened_not_cast_to_the_first(
    tmp_path: Path, first: Any, second: Any
) -> None:
    """DuckDB casts every file to the first file's type: an int64 day first made 0.9 a 1 and
    0.1 a 0 in the next (AUC 0.5 instead of the real value), a float32 day rounded the doubles.
    """
    folder = tmp_path / "export"
    scores = {1: [1, 0, 1, 0, 1, 0], 2: DAY2["score"]}
    if first == pa.decimal128(10, 1):
        scores[1] = [0.5, 0.1, 0.8, 0.3, 0.3, 0.4]
    frames = []
    for day, arrow_type in ((1, first), (2, second)):
        values = scores[day]
        if pa.types.is_decimal(arrow_type):
            import decimal

            values = [decimal.Decimal(str(v)) for v in values]
        table = pa.table(
            {"label": DAY1["label"] if day == 1 else DAY2["label"], "score": values},
            schema=pa.schema([("label", pa.int64()), ("score", arrow_type)]),
        )
        (folder / f"day={day}").mkdir(parents=True)
        pq.write_table(table, folder / f"day={day}" / "part-0.parquet")
        frames.append(table.to_pandas().assign(score=lambda f: f["score"].astype("float64")))
    expected = pd.concat(frames, ignore_index=True).dropna()
    got = sqlmetrics.evaluate(str(folder), ["auc", "log_loss"], label="label", score="score")
    want = sqlmetrics.evaluate(expected, ["auc", "log_loss"], label="label", score="score")
    assert got["auc"].tolist() == want["auc"].tolist()
    assert got["log_loss"].tolist() == pytest.approx(want["log_loss"].tolist(), rel=1e-12)


def test_a_parquet_day_whose_column_has_no_type_agrees_with_any_type(tmp_path: Path) -> None:
    """A column of nulls only (pyarrow's null type) in one day: DuckDB failed to cast the next
    day's values to it ("from type VARCHAR to NULL"); it holds no value to disagree with.
    """
    folder = tmp_path / "export"
    for day, rows, country in ((1, DAY1, pa.nulls(6)), (2, DAY2, pa.array(["DE"] * 6))):
        (folder / f"day={day}").mkdir(parents=True)
        pq.write_table(
            pa.table(rows).append_column("country", country), folder / f"day={day}" / "p.parquet"
        )
    got = sqlmetrics.evaluate(str(folder), ["auc"], label="label", score="score", by="country")
    assert got["country"].tolist()[0] == "DE" and pd.isna(got["country"].tolist()[1])
    assert got["auc"].tolist() == [
        sqlmetrics.auc(pd.DataFrame(rows), label="label", score="score") for rows in (DAY2, DAY1)
    ]


def test_a_csv_day_whose_column_is_all_empty_agrees_with_any_type(tmp_path: Path) -> None:
    """A CSV column of empty fields is detected as text; it holds no value to disagree with."""
    folder = tmp_path / "export"
    for day, text in (
        (1, "label,score,weight\n1,0.9,\n0,0.1,\n"),
        (2, "label,score,weight\n1,0.8,2\n0,0.3,1\n"),
    ):
        (folder / f"day={day}").mkdir(parents=True)
        (folder / f"day={day}" / "part-0.csv").write_text(text)
    assert sqlmetrics.auc(str(folder), label="label", score="score") == 1.0


@pytest.mark.parametrize("missing_first", [True, False])
def test_a_file_without_a_column_is_named(tmp_path: Path, missing_first: bool) -> None:
    full = pa.table(DAY1)
    short = pa.table({"label": DAY2["label"]})
    pq.write_table(short if missing_first else full, tmp_path / "a.parquet")
    pq.write_table(full if missing_first else short, tmp_path / "b.parquet")
    with pytest.raises(InvalidDataError, match=r"column 'score' is in '.*' and not in '.*'") as e:
        sqlmetrics.auc(str(tmp_path / "*.parquet"), label="label", score="score")
    assert ("a.parquet" if missing_first else "b.parquet") in str(e.value).split("not in")[1]


def test_column_order_and_name_case_are_not_differences(tmp_path: Path) -> None:
    pq.write_table(pa.table(DAY1), tmp_path / "a.parquet")
    pq.write_table(
        pa.table({"SCORE": DAY2["score"], "label": DAY2["label"]}), tmp_path / "b.parquet"
    )
    frame = pd.concat([pd.DataFrame(DAY1), pd.DataFrame(DAY2)])
    got = sqlmetrics.auc(str(tmp_path / "*.parquet"), label="label", score="score")
    assert got == sqlmetrics.auc(frame, label="label", score="score")


def test_csv_files_of_whole_and_decimal_scores_are_read_as_decimals(tmp_path: Path) -> None:
    """Twelve days: eleven of whole-number scores, the last of decimals. DuckDB detects the
    types of the first ten files only and refused the twelfth (BIGINT against DOUBLE)."""
    frames = []
    for day in range(12):
        scores = [0.9, 0.1, 0.8, 0.35, 0.3, 0.4] if day == 11 else [day % 3, 0, 2, 1, 0, 1]
        frame = pd.DataFrame({"label": DAY1["label"], "score": scores})
        (tmp_path / f"day={day:02d}").mkdir()
        frame.to_csv(tmp_path / f"day={day:02d}" / "part-0.csv", index=False)
        frames.append(frame)
    got = sqlmetrics.auc(str(tmp_path), label="label", score="score")
    assert got == sqlmetrics.auc(pd.concat(frames), label="label", score="score")
