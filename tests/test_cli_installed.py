"""Issue 28's command-line items through the installed ``sqlmetrics`` script (the console
script of the environment running the tests: in CI a fresh venv), not through CliRunner."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import sqlmetrics

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"
SCRIPT = Path(sys.executable).parent / "sqlmetrics"
CLICK = ["--label", "click", "--score", "pctr"]


def script(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert SCRIPT.exists(), f"no installed console script at {SCRIPT}: pip install -e ."
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, timeout=300, check=False
    )


def csv(done: subprocess.CompletedProcess[str]) -> pd.DataFrame:
    assert done.returncode == 0, done.stderr
    return pd.read_csv(io.StringIO(done.stdout), float_precision="round_trip")


def test_a_hive_folder_with_pos_label_and_where(tmp_path: Path) -> None:
    export = tmp_path / "export"
    duckdb.sql(
        f"copy (select *, case when click = 1 then 'yes' else 'no' end as clicked "
        f"from read_csv('{CTR}')) to '{export}' (format parquet, partition_by (day))"
    )
    got = csv(
        script(
            "eval",
            str(export),
            "-m",
            "auc",
            "--label",
            "clicked",
            "--score",
            "pctr",
            "--pos-label",
            "yes",
            "--where",
            "country <> 'US'",
            "--by",
            "day",
            "--format",
            "csv",
        )
    )
    frame = pd.read_csv(CTR)
    want = sqlmetrics.evaluate(
        frame[frame["country"] != "US"], ["auc"], by="day", label="click", score="pctr"
    )
    assert got["auc"].tolist() == want["auc"].tolist()


def test_render_takes_the_same_option_grammar() -> None:
    done = script(
        "render",
        "-m",
        "ndcg@10",
        "--data",
        str(ROOT / "examples" / "data" / "search.csv"),
        "--group",
        "query_id",
        "--item",
        "doc_id",
        "--label",
        "relevance",
        "--score",
        "score",
        "--option",
        "duplicates=max",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().lower().startswith(("with", "--", "select", "/*"))


def test_list_prints_one_metrics_card() -> None:
    done = script("list", "auc")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("auc: ")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["eval", "{header}", "-m", "auc", *CLICK], "has no rows"),
        (["eval", "{empty}", "-m", "auc", *CLICK], "is an empty file (0 bytes)"),
        (["eval", str(CTR), "-m", "auc", *CLICK, "--option", "seed=3"], "--seed"),
        (["eval", str(CTR), "-m", "auc", *CLICK, "--where", "1 = 1; select 2"], "--where"),
    ],
)
def test_errors_are_one_line_naming_the_fix(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "header.csv").write_text("click,pctr\n")
    (tmp_path / "empty.csv").write_text("")
    paths = {"{header}": str(tmp_path / "header.csv"), "{empty}": str(tmp_path / "empty.csv")}
    done = script(*[paths.get(a, a) for a in args])
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sqlmetrics: error: "), done.stderr
    assert says in lines[0]
    assert "Traceback" not in done.stderr


def test_python_dash_m_is_the_same_script() -> None:
    args = ["eval", str(CTR), "-m", "auc", *CLICK, "--format", "csv"]
    module = subprocess.run(
        [sys.executable, "-m", "sqlmetrics", *args], capture_output=True, text=True, check=False
    )
    assert csv(module).equals(csv(script(*args)))
