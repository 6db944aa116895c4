"""An output never lands on the input (issue 39, item 9): ``report(path=)`` and every writing
option of the command line (``eval``/``compare --output``, ``report -o``, ``plot --output``)
refuse a file the call reads, a file inside a folder it reads or a file its glob matches,
naming both; and a NUL in a path is a clear error naming the argument (item 19).
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import InvalidParameterError

ROWS = pd.DataFrame(
    {
        "label": [1, 0, 1, 0, 1, 0],
        "score": [0.9, 0.1, 0.8, 0.35, 0.3, 0.4],
        "other": [0.5, 0.2, 0.7, 0.1, 0.6, 0.3],
    }
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "events.csv"
    ROWS.to_csv(path, index=False)
    return path


def _unchanged(path: Path) -> None:
    pd.testing.assert_frame_equal(pd.read_csv(path), ROWS)


def test_report_refuses_to_write_over_its_data_file(data: Path) -> None:
    link = data.parent / "link.html"
    link.symlink_to(data)
    hard = data.parent / "hard.html"
    os.link(data, hard)
    for path in (
        data,
        str(data),
        link,
        hard,
        data.parent / "." / ".." / data.parent.name / data.name,
    ):
        with pytest.raises(InvalidParameterError) as e:
            sqlmetrics.report(str(data), ["auc"], path=path)
        message = str(e.value)
        assert message.startswith(f"report: path={os.fspath(path)!r} is the file data=")
        assert repr(str(data)) in message
        _unchanged(data)


def test_report_refuses_a_relative_path_naming_the_data(data: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(data.parent)
        with pytest.raises(InvalidParameterError, match=r"path='\./events\.csv' is the file"):
            sqlmetrics.report(str(data), ["auc"], path="./events.csv")
    _unchanged(data)


def test_report_refuses_a_file_inside_a_read_folder_or_matched_by_a_glob(tmp_path: Path) -> None:
    folder = tmp_path / "export" / "day=1"
    folder.mkdir(parents=True)
    ROWS.to_csv(folder / "part-0.csv", index=False)
    export = tmp_path / "export"
    with pytest.raises(InvalidParameterError, match=r"lies inside the folder data="):
        sqlmetrics.report(str(export), ["auc"], path=export / "report.html")
    with pytest.raises(InvalidParameterError, match=r"lies inside the folder data="):
        sqlmetrics.report([str(folder / "part-0.csv"), str(export)], ["auc"], path=folder / "x.csv")
    with pytest.raises(InvalidParameterError, match=r"is matched by data='.*\*\*.*'"):
        sqlmetrics.report(str(export / "**" / "*.csv"), ["auc"], path=folder / "new.csv")
    with pytest.raises(InvalidParameterError, match=r"is the file data="):
        sqlmetrics.report([str(folder / "part-0.csv")], ["auc"], path=folder / "part-0.csv")
    assert sorted(p.name for p in export.rglob("*")) == ["day=1", "part-0.csv"]
    # beside the folder, or not matched by the glob: written
    assert sqlmetrics.report(str(export), ["auc"], path=tmp_path / "report.html").exists()
    assert sqlmetrics.report(
        str(export / "**" / "*.csv"), ["auc"], path=folder / "report.html"
    ).exists()


def test_report_refuses_to_write_over_its_database(tmp_path: Path) -> None:
    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as con:
        con.register("rows", ROWS)
        con.execute("create table events as select * from rows")
    size = database.stat().st_size
    with pytest.raises(InvalidParameterError, match=r"is the file con="):
        sqlmetrics.report("events", ["auc"], con=str(database), path=database)
    with duckdb.connect(str(database), read_only=True) as con:
        with pytest.raises(InvalidParameterError, match=r"warehouse\.duckdb"):
            sqlmetrics.report("events", ["auc"], con=con, path=database)
        assert con.execute("select count(*) from events").fetchall() == [(6,)]
    assert database.stat().st_size == size


def test_report_refuses_to_write_over_its_qrels(tmp_path: Path) -> None:
    run = pd.DataFrame({"group": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.5, 0.1]})
    qrels = tmp_path / "qrels.csv"
    pd.DataFrame({"group": [1, 1], "item": [1, 3], "label": [1, 1]}).to_csv(qrels, index=False)
    with pytest.raises(InvalidParameterError, match=r"is the file qrels="):
        sqlmetrics.report(run, ["ndcg@3"], qrels=str(qrels), group="group", path=qrels)
    assert qrels.read_text().startswith("group,item,label")


def _run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli.main, args)
    return result.exit_code, result.output


def test_every_writing_option_of_the_cli_refuses_its_input(data: Path, tmp_path: Path) -> None:
    d = str(data)
    commands = [
        ["eval", d, "-m", "auc", "--output", d],
        ["eval", d, "-m", "auc", "--format", "csv", "--output", d],
        ["compare", d, "-m", "auc", "--score", "score", "--score", "other", "--output", d],
        ["report", d, "-m", "auc", "-o", d],
        ["report", d, "-m", "auc", "--output", d],
    ]
    for args in commands:
        code, output = _run(args)
        assert code == 2, (args, output)
        assert f"--output {d!r} is the file DATA {d!r}, which this command reads" in output
        _unchanged(data)
    png = tmp_path / "plots.png"
    png.write_bytes(b"not an image, only a file read by the glob")
    for kind in ("roc", "pr", "calibration", "gains"):
        code, output = _run(["plot", kind, str(tmp_path / "*"), "--output", str(png)])
        assert code == 2, output
        assert "is matched by DATA" in output
    assert png.read_bytes() == b"not an image, only a file read by the glob"


def test_the_cli_refuses_to_write_over_a_database_or_qrels(tmp_path: Path) -> None:
    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as con:
        con.register("rows", ROWS)
        con.execute("create table events as select * from rows")
    size = database.stat().st_size
    code, output = _run(["eval", f"{database}:events", "-m", "auc", "--output", str(database)])
    assert code == 2
    assert f"is the file DATA {str(database)!r}" in output
    assert database.stat().st_size == size
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("group,item,label\n1,1,1\n")
    run = tmp_path / "run.csv"
    run.write_text("group,item,score\n1,1,0.5\n")
    code, output = _run(
        ["eval", str(run), "-m", "ndcg@3", "--group", "group", "--item", "item",
         "--qrels", str(qrels), "--output", str(qrels)]
    )  # fmt: skip
    assert code == 2
    assert "is the file --qrels" in output
    assert qrels.read_text() == "group,item,label\n1,1,1\n"


def test_the_cli_writes_beside_its_input(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "metrics.csv"
    code, output = _run(["eval", str(data), "-m", "auc", "--format", "csv", "--output", str(out)])
    assert code == 0, output
    assert out.read_text().startswith("auc")


def test_a_nul_in_a_path_names_the_argument(data: Path) -> None:
    with pytest.raises(InvalidParameterError, match=r"report: path='r\\x00\.html' holds a NUL"):
        sqlmetrics.report(str(data), ["auc"], path="r\x00.html")
    for call in (
        lambda: sqlmetrics.auc("events\x00.csv"),
        lambda: sqlmetrics.auc([str(data), "x\x00.parquet"]),
        lambda: sqlmetrics.evaluate(str(data.parent / "*\x00.csv"), ["auc"]),
    ):
        with pytest.raises(InvalidParameterError, match=r"data='[^']*\\x00[^']*' holds a NUL"):
            call()
