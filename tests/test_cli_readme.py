"""The site's command-line examples run as written (issue 28, items 3 and 8): the folder holding
the files they name (built from the repository's own click log and search run), in which
tests/test_site_pages.py runs every command of every page; the repeated-impressions error the
command-line page names; its Spark command; the help's example, the README's first command.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner
from docpages import page, section

from sqlmetrics import cli

ROOT = Path(__file__).resolve().parents[1]
README = page("README.md")
CTR = ROOT / "examples" / "data" / "ctr.csv"
SEARCH = ROOT / "examples" / "data" / "search.csv"


def commands(text: str) -> list[list[str]]:
    """The ``sqlmetrics ...`` commands of a bash block: continuation lines joined, ``&&``
    chains split, comments dropped, each split as the shell would (an unquoted glob left for
    :func:`expand`).
    """
    joined = text.replace("\\\n", " ")
    parts = [part for line in joined.splitlines() for part in line.split(" && ")]
    lines = [part for part in parts if part.startswith("sqlmetrics ")]
    return [shlex.split(line, comments=True) for line in lines]


def section_block(heading: str) -> str:
    return str(re.findall(r"```bash\n(.*?)\n```", section(heading), flags=re.S)[0])


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clicks = pd.read_csv(CTR)
    clicks["day"] = clicks["day"].astype(str)
    clicks["pctr_v2"] = clicks["pctr"].round(1)
    clicks.to_parquet(tmp_path / "events.parquet", index=False)
    scores = clicks.rename(columns={"pctr": "model_a", "pctr_v2": "model_b"})
    scores.to_parquet(tmp_path / "scores.parquet", index=False)
    answers = pd.DataFrame(
        {"answer": clicks["click"].map({1: "yes", 0: "no"}), "p_yes": clicks["pctr"]}
    )
    answers.to_parquet(tmp_path / "answers.parquet", index=False)
    (tmp_path / "ctr").mkdir()
    for day, part in clicks.groupby("day"):
        part.to_parquet(tmp_path / "ctr" / f"{day}.parquet", index=False)
    for country, part in clicks.groupby("country"):
        folder = tmp_path / "export" / f"country={country}"
        folder.mkdir(parents=True)
        part.drop(columns="country").to_parquet(folder / "part-0.parquet", index=False)
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as con:
        con.register("clicks", clicks)
        con.execute("create table events as select * from clicks")
    run = pd.read_csv(SEARCH)
    run["rank"] = run.groupby("query_id")["score"].rank(ascending=False, method="first")
    with open(tmp_path / "run.txt", "w") as handle:
        for row in run.itertuples():
            handle.write(f"{row.query_id} Q0 {row.doc_id} {int(row.rank)} {row.score} r\n")
    with open(tmp_path / "qrels.txt", "w") as handle:
        for row in run.itertuples():
            handle.write(f"{row.query_id} 0 {row.doc_id} {row.rel}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def expand(argv: list[str], cwd: Path) -> list[str]:
    """An unquoted glob, as the shell expands it."""
    out: list[str] = []
    for arg in argv:
        if "*" in arg and not arg.startswith("-"):
            out.extend(sorted(str(p.relative_to(cwd)) for p in cwd.glob(arg)))
        else:
            out.append(arg)
    return out


def run(argv: list[str], cwd: Path) -> str:
    assert argv[0] == "sqlmetrics"
    import matplotlib

    matplotlib.use("Agg")
    result = CliRunner().invoke(cli.main, expand(argv[1:], cwd))
    assert result.exit_code == 0, (argv, result.output, result.stderr)
    assert "error" not in result.stderr, (argv, result.stderr)
    return result.stdout


def test_the_repeated_impressions_need_the_option_the_readme_names(workdir: Path) -> None:
    first = commands(section_block("Command line"))[0]
    without = [a for a in first if a != "duplicates=max"]
    i = without.index("--option")
    del without[i]
    result = CliRunner().invoke(cli.main, without[1:])
    assert result.exit_code == 2
    assert "--option duplicates=max or --option duplicates=sum" in result.stderr
    assert "'max'" not in result.stderr


@pytest.mark.spark
def test_the_spark_command_runs_in_a_new_local_session(workdir: Path) -> None:
    block = section_block("Other engines")
    (argv,) = [a for a in commands(block) if "--spark" in a]
    out = run(argv, workdir)
    frame = pd.read_parquet(workdir / "events.parquet")
    import sqlmetrics

    want = sqlmetrics.auc(frame, label="click", score="pctr")
    assert f"{want:.6f}" in out


def test_help_ends_with_the_readmes_first_command_and_points_to_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sqlmetrics --help`` and ``sqlmetrics eval --help`` end with an example, the README's
    first command (so it stays true), which runs, and point to ``sqlmetrics list``."""
    first = README.split("```bash\n", 1)[1].split("\n```", 1)[0]
    readme_eval = first.split("&& sqlmetrics ", 1)[1]
    runner = CliRunner()
    for args in ([], ["eval"]):
        result = runner.invoke(cli.main, [*args, "--help"], terminal_width=100)
        assert result.exit_code == 0, result.output
        tail = result.output.rsplit("Example", 1)[1]
        assert tail.rstrip().endswith("sqlmetrics list"), tail
        (shown,) = commands("\n".join(line.strip() for line in tail.splitlines()))
        assert shown == ["sqlmetrics", *shlex.split(readme_eval)], shown
    monkeypatch.chdir(ROOT)
    result = runner.invoke(cli.main, shown[1:])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].split()[:4] == ["country", "auc", "gauc", "f1"]
