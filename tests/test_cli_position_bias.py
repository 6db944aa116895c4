"""``sqlmetrics propensities`` and ``sqlmetrics clicks`` (issue 43): ``position_propensities``
and ``click_metrics`` from the command line, the same rows as Python; the propensities file
the first writes is what the second reads; bad input exits 2 with one line naming the flag.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A click log of 300 lists of 5 (half of them shown in a random order) under a
    propensity 1 / position, with a new score and a text country."""
    rng = np.random.default_rng(43)
    rows = []
    for q in range(300):
        randomised = q % 2 == 0
        rel = np.sort(rng.uniform(0, 1, 5))[::-1]
        if randomised:
            rel = rng.permutation(rel)
        for pos in range(1, 6):
            click = int(rng.random() < rel[pos - 1] / pos)
            score = round(float(rel[pos - 1] + rng.normal(0, 0.2)), 2)
            rows.append((q, ["de", "fr"][q % 4 // 2], pos, click, randomised, score))
    columns = ["q", "country", "pos", "clicked", "randomised", "new"]
    path = tmp_path_factory.mktemp("position_bias") / "log.csv"
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    return path


PROPS = ["--position", "pos", "--click", "clicked", "--intervention", "randomised"]
CLICKS = ["--group", "q", "--position", "pos", "--click", "clicked", "--score", "new"]


def _run(*args: str) -> pd.DataFrame:
    result = CliRunner().invoke(cli.main, list(args))
    assert result.exit_code == 0, result.output
    return pd.read_csv(StringIO(result.stdout), float_precision="round_trip")


def test_the_propensities_are_pythons(log: Path) -> None:
    printed = _run("propensities", str(log), *PROPS, "--by", "country", "--max-position", "4",
                   "--ci-level", "0.9", "--format", "csv")  # fmt: skip
    python = sqlmetrics.position_propensities(
        str(log), position="pos", click="clicked", intervention="randomised", by="country",
        max_position=4, ci_level=0.9,
    )  # fmt: skip
    assert list(printed.columns) == list(python.columns)
    assert printed["country"].tolist() == ["de"] * 4 + ["fr"] * 4
    # CSV writes each double in its shortest exact text: the same numbers
    pd.testing.assert_frame_equal(printed, python, check_dtype=False, rtol=0, atol=0)


def test_clicks_read_the_file_propensities_writes(log: Path, tmp_path: Path) -> None:
    """propensities --output FILE, then clicks --propensity FILE: Python's click_metrics
    given position_propensities' DataFrame; as JSON and Parquet too."""
    table = tmp_path / "props.csv"
    result = CliRunner().invoke(
        cli.main, ["propensities", str(log), *PROPS, "--format", "csv", "--output", str(table)]
    )
    assert result.exit_code == 0, result.output
    estimated = sqlmetrics.position_propensities(
        str(log), position="pos", click="clicked", intervention="randomised"
    )
    want = sqlmetrics.click_metrics(
        str(log), group="q", position="pos", click="clicked", score="new",
        propensity=estimated, k=3, by="country",
    )  # fmt: skip
    printed = _run("clicks", str(log), *CLICKS, "--propensity", str(table), "--k", "3",
                   "--by", "country", "--format", "csv")  # fmt: skip
    assert list(printed.columns)[:4] == ["country", "ctr@3", "dcg@3", "recall@3"]
    pd.testing.assert_frame_equal(printed, want, check_dtype=False, rtol=0, atol=0)
    parquet = tmp_path / "props.parquet"
    pd.read_csv(table, float_precision="round_trip").to_parquet(parquet)
    result = CliRunner().invoke(
        cli.main,
        ["clicks", str(log), *CLICKS, "--propensity", str(parquet), "--k", "3", "--by",
         "country", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = pd.read_json(StringIO(result.stdout))
    np.testing.assert_allclose(shown["dcg@3"], want["dcg@3"], rtol=1e-15)


def test_clicks_with_a_propensity_column_and_whole_lists(log: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(log, float_precision="round_trip")
    frame["p"] = 1.0 / frame["pos"]
    path = tmp_path / "with_p.parquet"
    frame.to_parquet(path)
    where = ["--where", "country = 'de'"]
    printed = _run("clicks", str(path), *CLICKS, "--propensity", "p", "--k", "none",
                   "-m", "recall", "-m", "ctr", *where, "--format", "csv")  # fmt: skip
    want = sqlmetrics.click_metrics(
        frame[frame["country"] == "de"], group="q", position="pos", click="clicked",
        score="new", propensity="p", k=None, metrics=["recall", "ctr"],
    )  # fmt: skip
    assert list(printed.columns)[:2] == ["recall", "ctr"]
    pd.testing.assert_frame_equal(printed, want, check_dtype=False, rtol=0, atol=0)
    table = CliRunner().invoke(cli.main, ["clicks", str(path), *CLICKS, "--propensity", "p"])
    assert table.exit_code == 0 and "ctr@10" in table.stdout, table.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["propensities", "{log}", *PROPS, "--max-position", "0"],
         "--max-position 0 must be an integer >= 1"),
        (["propensities", "{log}", *PROPS, "--ci-level", "95"],
         "--ci-level 95.0 must be strictly between 0 and 1"),
        (["propensities", "{log}", *PROPS, "--by", "pos"],
         "--by ['pos'] holds the position column 'pos'"),
        (["propensities", "{log}", "--position", "pos", "--click", "clickd"],
         "column 'clickd' (--click) not found"),
        (["clicks", "{log}", *CLICKS, "--propensity", "p", "--k", "0"],
         "--k 0 must be an integer >= 1 or None"),
        (["clicks", "{log}", *CLICKS, "--propensity", "p", "-m", "ndcg"],
         "--metric ['ndcg'] must be distinct names among 'ctr', 'dcg', 'recall'"),
        (["clicks", "{log}", *CLICKS, "--propensity", "missing.csv"],
         "--propensity 'missing.csv': no such file"),
        (["clicks", "{log}", *CLICKS, "--propensity", "{log}"],
         "--propensity is a table without the columns 'position' and 'propensity'"),
        (["clicks", "{log}", *CLICKS, "--propensity", "p"], "column 'p' (--propensity) not found"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line_naming_the_flag(
    log: Path, args: list[str], message: str
) -> None:
    result = CliRunner().invoke(cli.main, [a.replace("{log}", str(log)) for a in args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_a_required_flag_missing_exits_2(log: Path) -> None:
    result = CliRunner().invoke(cli.main, ["clicks", str(log), "--group", "q"])
    assert result.exit_code == 2 and "--position" in result.stderr
