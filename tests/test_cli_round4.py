"""Issue 39, items 15, 17, 18 and 19 (parts): several models from the command line, where= in
Python, metric and option names, the report's first screen, and what the CLI prints.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._core.names import parse_metric
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._metrics import FUNCTIONS
from sqlmetrics.cli import _io

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 300
    return pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "a": rng.random(n),
            "b": rng.random(n),
            "user": rng.integers(0, 12, n),
            "item": np.arange(n),
            "day": rng.integers(1, 4, n),
        }
    )


@pytest.fixture(scope="module")
def parquet(frame: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("data") / "d.parquet"
    frame.to_parquet(path)
    return str(path)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli.main, list(args))
    return result.exit_code, result.stdout, result.stderr


def error_line(*args: str) -> str:
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sqlmetrics: error: "), err
    return lines[0]


# ------------------------------------------------------------------ item 15: several models
def test_eval_repeated_score_gives_a_row_per_model(parquet: str, frame: pd.DataFrame) -> None:
    code, out, err = invoke(
        "eval", parquet, "-m", "auc", "-m", "gauc", "--group", "user", "--by", "day",
        "--score", "a", "--score", "b", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), float_precision="round_trip")  # pandas 2 parses "high"
    assert list(got.columns) == ["day", "model", "auc", "gauc", "n_rows", "n_groups"]
    assert got["model"].tolist() == ["a", "b"] * 3
    for model in ("a", "b"):
        one = sqlmetrics.evaluate(frame, ["auc", "gauc"], score=model, group="user", by="day")
        mine = got[got["model"] == model].reset_index(drop=True)
        np.testing.assert_array_equal(mine["auc"].to_numpy(), one["auc"].to_numpy())
        np.testing.assert_array_equal(mine["gauc"].to_numpy(), one["gauc"].to_numpy())


def test_eval_repeated_score_with_thresholds_keeps_the_model_column_second(
    parquet: str,
) -> None:
    code, out, err = invoke(
        "eval", parquet, "-m", "f1", "--score", "a", "--score", "b",
        "--threshold", "0.3", "--threshold", "0.6", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    assert [list(r) for r in rows] == [["model", "f1@t=0.3", "f1@t=0.6", "n_rows"]] * 2
    assert [r["model"] for r in rows] == ["a", "b"]


def test_eval_one_score_is_unchanged(parquet: str) -> None:
    code, out, _ = invoke("eval", parquet, "-m", "auc", "--score", "a", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "auc,n_rows"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "-m", "auc", "--score", "a", "--score", "a"], "--score a is given twice"),
        (["plot", "roc", "--score", "a", "--score", "b", "-o", "x.png"], "sqlmetrics report"),
        (["plot", "gains", "--score", "a", "--score", "b", "-o", "x.png"], "sqlmetrics compare"),
        (["render", "auc", "--score", "a", "--score", "b"], "--score given 2 times (a, b)"),
    ],
)
def test_repeated_score_where_one_model_is_read_is_refused(
    parquet: str, args: list[str], message: str
) -> None:
    if args[0] == "plot":
        args = [*args[:2], parquet, *args[2:]]
    elif args[0] == "eval":
        args = [args[0], parquet, *args[1:]]
    assert message in error_line(*args)


def test_report_repeated_score_is_the_models(parquet: str, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    code, _, err = invoke(
        "report", parquet, "-m", "auc", "--score", "a", "--score", "b", "-o", str(out)
    )
    assert code == 0, err
    page = out.read_text()
    assert '<section id="comparison">' in page  # compare ran: two models, not the last one
    metrics = page.split('id="metrics-table"')[1].split("</table>")[0]
    assert re.findall(r'<td class="text" data-value="([ab])">', metrics) == ["a", "b"]


# ------------------------------------------------------------------ item 17: names, where=
def test_where_in_python_equals_the_filtered_frame(frame: pd.DataFrame, parquet: str) -> None:
    want = sqlmetrics.evaluate(frame[frame["day"] >= 2], ["auc", "gauc"], score="a", group="user")
    for data in (frame, parquet):
        got = sqlmetrics.evaluate(data, ["auc", "gauc"], score="a", group="user", where="day >= 2")
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    # the checks see the filtered rows only: a NULL label outside the filter is no error
    dirty = frame.astype({"label": "float"})
    dirty.loc[dirty["day"] == 1, "label"] = np.nan
    got = sqlmetrics.evaluate(dirty, "auc", score="a", where="day >= 2")
    assert got["auc"].iloc[0] == want["auc"].iloc[0]


def test_render_evaluate_where_runs_to_evaluates_numbers(frame: pd.DataFrame) -> None:
    import duckdb

    sql = sqlmetrics.render_evaluate("events", ["auc"], score="b", by="day", where="user < 6")
    con = duckdb.connect()
    con.register("events", frame)
    got = con.sql(sql).df()
    want = sqlmetrics.evaluate(frame[frame["user"] < 6], "auc", score="b", by="day")
    np.testing.assert_array_equal(got["auc"].to_numpy(), want["auc"].to_numpy())


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("day = 1; drop table t", r"holds a ';'"),
        ("day = 1 -- all", r"holds a comment"),
        ("day = 1) or (1 = 1", r"closes a parenthesis it did not open"),
        ("   ", r"is empty"),
        ("dya = 1", r"cannot be applied to data=DataFrame: .*dya.*columns \(label, a, b"),
        (3, r"must be text"),
    ],
)
def test_where_is_one_checked_expression(frame: pd.DataFrame, where: object, message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"evaluate: where=.*" + message):
        sqlmetrics.evaluate(frame, "auc", score="a", where=where)
    if isinstance(where, str) and ";" in where:
        with pytest.raises(sqlmetrics.InvalidParameterError, match="render_evaluate: where="):
            sqlmetrics.render_evaluate("t", "auc", where=where)


def test_where_allows_semicolons_in_quoted_text(frame: pd.DataFrame) -> None:
    tagged = frame.assign(tag=np.where(frame["day"] == 1, "a;b", "c"))
    got = sqlmetrics.evaluate(tagged, "auc", score="a", where="tag = 'a;b'")
    assert got["n_rows"].iloc[0] == int((frame["day"] == 1).sum())


def test_cli_metric_comma_lists(parquet: str) -> None:
    code, out, err = invoke(
        "eval", parquet, "-m", "auc,gauc", "-m", "log_loss", "--score", "a", "--group", "user",
        "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[0] == "auc,gauc,log_loss,n_rows,n_groups"
    assert "an empty metric name" in error_line("eval", parquet, "-m", "auc,", "--score", "a")
    code, out, err = invoke("render", "-m", "auc,log_loss")
    assert code == 0 and 'as "log_loss"' in out, err


def test_hr_at_k_suggests_hit_rate() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'hit_rate@10'"):
        sqlmetrics.evaluate(pd.DataFrame(), ["HR@10"])
    line = error_line("render", "HR@5")
    assert "did you mean 'hit_rate@5'" in line and "'R@5'" not in line.split("known")[0]


def test_option_typos_get_did_you_mean(parquet: str) -> None:
    line = error_line("eval", parquet, "-m", "f1", "--score", "a", "--option", "thresold=0.3")
    assert "did you mean --threshold?" in line
    line = error_line("render", "ndcg@3", "--option", "gian=linear")
    assert "did you mean --option gain=?" in line
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"did you mean threshold=\?"):
        sqlmetrics.render("f1", thresold=0.3)


def test_every_public_function_name_is_a_metric_name() -> None:
    specs = {s.function for s in REGISTRY.values()}
    public = [n for n in sqlmetrics.__all__ if n in specs]
    assert "mean_average_precision" in public and "jaccard" in public
    for name in public:
        spec = parse_metric(name, scalar_only=False).spec
        assert spec.function == name
        if sum(s.function == name for s in REGISTRY.values()) > 1:  # the default's spec
            default = inspect.signature(FUNCTIONS[name]).parameters["average"].default
            assert spec.average == (None if default == "binary" else default), name
    sql = sqlmetrics.render("mean_average_precision", "t", group="g", item="i")
    assert sql == sqlmetrics.render("map", "t", group="g", item="i")
    code, out, err = invoke("render", "mean_average_precision@10", "--group", "g", "--item", "i")
    assert code == 0, err
    assert out == invoke("render", "map@10", "--group", "g", "--item", "i")[1]


def test_evaluate_defaults_group_and_item_as_the_functions() -> None:
    ranked = pd.DataFrame(
        {"group": [1, 1, 2, 2], "item": [1, 2, 1, 2], "label": [1, 0, 0, 1],
         "score": [0.9, 0.1, 0.8, 0.3]}
    )  # fmt: skip
    got = sqlmetrics.evaluate(ranked, ["ndcg@2", "mrr", "auc"])
    assert got["ndcg@2"].iloc[0] == sqlmetrics.ndcg(ranked, k=2)
    assert got["mrr"].iloc[0] == sqlmetrics.mrr(ranked)
    # gauc's function has no default group: neither has evaluate's gauc
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"'gauc' needs group="):
        sqlmetrics.evaluate(ranked, ["gauc", "ndcg@2"])
    # a metric that reads neither: no group or item column needed
    assert sqlmetrics.evaluate(ranked.drop(columns=["group", "item"]), "auc")["n_rows"][0] == 4


def test_score_list_is_a_clear_error(frame: pd.DataFrame) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"evaluate: score=\['a', 'b'\] must be one column name .*sqlmetrics\.compare",
    ):
        sqlmetrics.evaluate(frame, "auc", score=["a", "b"])  # type: ignore[arg-type]


def test_bare_command_prints_its_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sqlmetrics.cli"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("Usage: ") and "\nCommands:\n" in result.stdout


# ------------------------------------------------------------------ item 18: the report
def test_report_names_a_folder_and_its_file_count(frame: pd.DataFrame, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    for day in (1, 2, 3):
        part = folder / f"day={day}"
        part.mkdir(parents=True)
        for i in range(4):
            frame[frame["day"] == day].drop(columns="day").iloc[i::4].to_parquet(
                part / f"part-{i:05d}.parquet"
            )
    out = tmp_path / "r.html"
    code, _, err = invoke("report", str(folder), "-m", "auc", "--score", "a", "-o", str(out))
    assert code == 0, err
    page = out.read_text()
    assert page.count("part-") == 2  # one example file, in the header and in the about list
    assert f"{folder}{os.sep} (12 files, e.g. " in page


def test_report_tables_scroll_and_p_values_do_not_read_zero(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n = 20_000
    y = rng.integers(0, 2, n)
    data = pd.DataFrame({"label": y, "a": rng.random(n), "b": y * 0.5 + rng.random(n) * 0.01})
    assert sqlmetrics.compare(data, ["auc"], scores=["a", "b"])["p_value"].iloc[1] == 0.0
    page = sqlmetrics.report(data, ["auc"], scores=["a", "b"], path=tmp_path / "r.html")
    text = page.read_text()
    assert '<div class="scroll"><table id="metrics-table"' in text
    assert ".scroll { max-width: 100%; overflow-x: auto; }" in text
    comparison = text.split('id="comparison-table"')[1].split("</table>")[0]
    # b's p_value and p_adjusted underflowed to 0.0: they read "< 1e-308", not 0
    assert comparison.count('data-value="0.0">&lt; 1e-308</td>') == 2


def test_report_warnings_name_the_step_once(tmp_path: Path) -> None:
    data = pd.DataFrame({"label": [1, 1, 0, 0], "score": [0.9, 0.8, 0.1, 0.2], "c": list("xxyy")})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning):
        page = sqlmetrics.report(data, ["auc"], by="c", path=tmp_path / "r.html")
    text = page.read_text()
    assert "evaluate: auc is undefined" in text and "evaluate: evaluate:" not in text


def test_p_values_in_the_table_format(tmp_path: Path) -> None:
    table = _io.format_frame(pd.DataFrame({"p_value": [0.0, 1e-320, 0.5]}), "table")
    assert [line.strip() for line in table.split("\n")[1:4]] == ["< 1e-308", "1e-320", "0.5"]


# ------------------------------------------------------------------ item 19 (parts)
def test_cli_errors_name_the_flag_not_the_python_option(parquet: str) -> None:
    line = error_line(
        "compare", parquet, "-m", "auc", "--score", "a", "--score", "b",
        "--test", "randomization", "--n-permutations", "0",
    )  # fmt: skip
    assert "--n-permutations must be" in line and "n_permutations=" not in line


def test_a_huge_cut_off_is_a_clear_error(parquet: str) -> None:
    huge = "9" * 5000
    for name in (f"ndcg@{huge}", f"nDCG@{huge}"):
        with pytest.raises(sqlmetrics.InvalidParameterError, match=r"\(5000 digits\).*at most"):
            sqlmetrics.evaluate(pd.DataFrame(), [name])
    line = error_line("eval", parquet, "-m", f"ndcg@{huge}", "--group", "user", "--item", "item")
    assert "(5000 digits)" in line and len(line) < 400
    assert parse_metric(f"ndcg@{2**63 - 1}").k == 2**63 - 1


def test_csv_floats_are_the_shortest_round_trip_text(parquet: str, frame: pd.DataFrame) -> None:
    code, out, err = invoke(
        "eval", parquet, "-m", "auc", "-m", "log_loss", "--score", "a", "--by", "day",
        "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    want = sqlmetrics.evaluate(frame, ["auc", "log_loss"], score="a", by="day")
    rows = [line.split(",") for line in out.splitlines()[1:]]
    for row, (_, expected) in zip(rows, want.iterrows()):
        assert row[1] == repr(float(expected["auc"]))  # shortest text ...
        assert float(row[2]) == float(expected["log_loss"])  # ... that reads back exactly
    shown = _io.format_frame(pd.DataFrame({"x": [0.1, 1 / 3, 5e-324, np.nan], "n": 1}), "csv")
    assert shown == "x,n\n0.1,1\n0.3333333333333333,1\n5e-324,1\n,1\n"


# ------------------------------------------------------------------ where= on ClickHouse
@pytest.mark.clickhouse
def test_where_on_clickhouse_equals_duckdb(chdb_session: object, frame: pd.DataFrame) -> None:
    from conftest import chdb_table

    chdb_table(chdb_session, "round4_where", frame)
    got = sqlmetrics.evaluate(
        "round4_where", ["auc", "gauc"], score="a", group="user", where="day >= 2",
        con=chdb_session,
    )  # fmt: skip
    want = sqlmetrics.evaluate(frame[frame["day"] >= 2], ["auc", "gauc"], score="a", group="user")
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"where='dya = 1' cannot be"):
        sqlmetrics.evaluate("round4_where", "auc", score="a", where="dya = 1", con=chdb_session)
