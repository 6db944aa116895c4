"""One command-line grammar (issue 28, items 2, 3, 4 and 6): eval, render, compare and plot
share their column flags, --option, --pos-label and --where; messages name flags as typed;
only sqlmetrics' warnings are relayed; progress on stderr; list METRIC; p-values readable.
"""

from __future__ import annotations

import io
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.cli import _io as _cli_io

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"
CLICK = ["--label", "click", "--score", "pctr"]


def invoke(args: list[str]) -> Any:
    return CliRunner().invoke(cli.main, args)


def error_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return str(lines[0])


# --------------------------------------------------------------------------- one grammar
SHARED = ("--label", "--score", "--by", "--option", "--pos-label")


@pytest.mark.parametrize(
    "path,more",
    [
        (["eval"], ("--group", "--item", "--weight", "--prediction", "--qrels", "--where")),
        (["render"], ("--group", "--item", "--weight", "--prediction", "--qrels")),
        (["compare"], ("--group", "--item", "--weight", "--qrels", "--where")),
        (["plot", "roc"], ("--weight", "--where")),
        (["plot", "calibration"], ("--weight", "--where")),
        (["plot", "gains"], ("--where",)),
    ],
)
def test_every_command_has_the_shared_flags_in_its_help(path: list[str], more: tuple[str]) -> None:
    result = invoke([*path, "--help"])
    assert result.exit_code == 0, result.output
    for flag in (*SHARED, *more):
        assert f"  {flag} " in result.output, (path, flag)


def test_the_flags_are_declared_once() -> None:
    # each command's option comes from the one declaration in _cli_io.GRAMMAR
    commands = [cli.main.commands[n] for n in ("eval", "render", "compare")]
    commands += list(cli.main.commands["plot"].commands.values())  # type: ignore[attr-defined]
    for command in commands:
        params = {p.name: p for p in command.params}
        label = params["label"]
        assert label.opts == ["--label"]
        assert params["option_pairs"].metavar == "NAME=VALUE"
        assert params["pos_label"].metavar == "CLASS"


def test_render_takes_option_as_eval_does() -> None:
    args = ["render", "ndcg@10", "--group", "g", "--item", "i"]
    new = invoke([*args, "--option", "duplicates=max"])
    assert new.exit_code == 0, new.output
    want = sqlmetrics.render("ndcg@10", group="g", item="i", duplicates="max")
    assert new.stdout == want
    old = invoke([*args, "--duplicates", "max"])  # the earlier spelling still works
    assert old.exit_code == 0 and old.stdout == want
    plain = invoke(args)
    assert plain.stdout != want  # the option reached the SQL


def test_render_columns_are_flags() -> None:
    result = invoke(["render", "auc", "--label", "click", "--score", "pctr", "--data", "events"])
    assert result.exit_code == 0, result.output
    assert result.stdout == sqlmetrics.render("auc", "events", label="click", score="pctr")


def test_render_option_given_both_ways_is_refused() -> None:
    line = error_line(invoke(["render", "ndcg", "--option", "gain=linear", "--gain", "linear"]))
    assert "--gain and --option gain= both given" in line


def test_render_reads_a_duckdb_table_as_eval_does(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    duckdb.connect(str(path)).close()
    result = invoke(["render", "auc", "--data", f"{path}:events"])
    assert result.exit_code == 0, result.output
    assert result.stdout == sqlmetrics.render("auc", "events")


def hive_export(tmp_path: Path) -> Path:
    frame = pd.read_csv(CTR)
    for day, part in frame.groupby("day"):
        folder = tmp_path / "export" / f"day={day}"
        folder.mkdir(parents=True)
        part.drop(columns="day").to_parquet(folder / "part-0.parquet", index=False)
    return tmp_path / "export"


def test_render_spark_refuses_a_glob_over_hive_folders(tmp_path: Path) -> None:
    export = hive_export(tmp_path)
    glob = f"{export}/*/*.parquet"
    line = error_line(invoke(["render", "auc", "--data", glob, "--dialect", "spark", *CLICK]))
    assert f"--data {glob!r} is a glob over Hive partition folders" in line
    assert "'day' column would be lost" in line and line.endswith(
        f"pass the folder instead, {export}/ (Spark reads its partitions as columns)"
    )
    # eval --spark: the same refusal, before a JVM starts
    spark = error_line(invoke(["eval", glob, "--spark", "local[2]", "-m", "auc", *CLICK]))
    assert f"--spark: DATA {glob!r} is a glob over Hive partition folders" in spark
    assert f"instead, {export}/ " in spark
    folder = invoke(["render", "auc", "--data", f"{export}/", "--dialect", "spark", *CLICK])
    assert folder.exit_code == 0, folder.output
    assert f"parquet.`{export}/`" in folder.stdout  # Spark discovers day= from the folder
    # DuckDB's glob keeps the partition column (hive partitioning auto-detected)
    duck = invoke(["render", "auc", "--data", glob, "--by", "day", *CLICK])
    assert duck.exit_code == 0, duck.output
    days = duckdb.sql(duck.stdout).df()["slice_0"]
    assert sorted(days.astype(str)) == ["2026-11-01", "2026-11-02"]


# --------------------------------------------------------------------------- messages
def test_duplicates_error_names_the_cli_option() -> None:
    args = ["eval", str(CTR), "-m", "ndcg@10", *CLICK, "--group", "user_id", "--item", "item_id"]
    line = error_line(invoke(args))
    assert "--option duplicates=max or --option duplicates=sum" in line
    assert "duplicates='max'" not in line and "'sum'" not in line
    merged = invoke([*args, "--option", "duplicates=max"])
    assert merged.exit_code == 0, merged.output


def test_skipped_groups_warning_names_options_as_typed() -> None:
    args = ["eval", str(CTR), "-m", "ndcg@10", *CLICK, "--group", "user_id", "--item", "item_id"]
    result = invoke([*args, "--option", "duplicates=max"])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("sqlmetrics: warning:")]
    assert "--option empty=zero to count them as 0" in line
    assert "--option empty=skip" in line and "or --convention to follow a tool" in line
    assert "='" not in line and " convention=" not in line


def test_as_flags_leaves_unknown_names_alone() -> None:
    assert _cli_io.as_flags("use foo='x' here") == "use foo='x' here"


# --------------------------------------------------------------------------- --pos-label
def answers(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    frame = pd.read_csv(CTR)
    named = pd.DataFrame(
        {
            "answer": frame["click"].map({1: "yes", 0: "no"}),
            "code": frame["click"].map({1: "1", 0: "2"}),
            "p": frame["pctr"],
            "country": frame["country"],
        }
    )
    path = tmp_path / "answers.parquet"
    named.to_parquet(path, index=False)
    return path, named


def test_pos_label_names_the_positive_class(tmp_path: Path) -> None:
    path, named = answers(tmp_path)
    args = ["eval", str(path), "-m", "auc", "-m", "log_loss", "--label", "answer", "--score", "p"]
    refused = error_line(invoke(args))
    assert "--pos-label 'yes'" in refused or "--pos-label" in refused
    result = invoke([*args, "--pos-label", "yes", "--format", "csv", "--by", "country"])
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    want = sqlmetrics.evaluate(
        named, ["auc", "log_loss"], label="answer", score="p", pos_label="yes", by="country"
    )
    assert got["auc"].tolist() == pytest.approx(want["auc"].tolist(), rel=1e-12)
    assert got["log_loss"].tolist() == pytest.approx(want["log_loss"].tolist(), rel=1e-12)


def test_pos_label_in_quotes_stays_text(tmp_path: Path) -> None:
    path, named = answers(tmp_path)
    args = ["eval", str(path), "-m", "auc", "--label", "code", "--score", "p", "--format", "csv"]
    result = invoke([*args, "--pos-label", "'1'"])
    assert result.exit_code == 0, result.output
    want = sqlmetrics.auc(named, label="code", score="p", pos_label="1")
    assert float(
        pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")["auc"][0]
    ) == pytest.approx(want)
    # typed as --labels classes: 1 the number, '1' the text, yes the text
    assert _cli_io.command_options((), {}, "1") == {"pos_label": 1}
    assert _cli_io.command_options((), {}, "'1'") == {"pos_label": "1"}
    assert _cli_io.command_options((), {}, "true") == {"pos_label": True}


def test_pos_label_given_twice_is_refused() -> None:
    args = ["eval", str(CTR), "-m", "auc", *CLICK, "--pos-label", "1"]
    line = error_line(invoke([*args, "--option", "pos_label=1"]))
    assert "--pos-label and --option pos_label= both given" in line


def test_plot_takes_pos_label(tmp_path: Path) -> None:
    path, _ = answers(tmp_path)
    out = tmp_path / "roc.png"
    args = ["plot", "roc", str(path), "--label", "answer", "--score", "p", "-o", str(out)]
    result = invoke([*args, "--pos-label", "yes"])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


# --------------------------------------------------------------------------- --where
def test_where_filters_before_the_metrics_with_slices() -> None:
    args = ["eval", str(CTR), "-m", "auc", "-m", "gauc", *CLICK, "--group", "user_id"]
    result = invoke([*args, "--by", "country", "--format", "csv", "--where", "day >= '2026-11-02'"])
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    frame = pd.read_csv(CTR)
    kept = frame[frame["day"].astype(str) >= "2026-11-02"]
    want = sqlmetrics.evaluate(
        kept, ["auc", "gauc"], label="click", score="pctr", group="user_id", by="country"
    )
    assert got["country"].tolist() == want["country"].tolist()
    assert got["n_rows"].tolist() == want["n_rows"].tolist() != [892, 718, 1259]
    assert got["auc"].tolist() == pytest.approx(want["auc"].tolist(), rel=1e-12)
    assert got["gauc"].tolist() == pytest.approx(want["gauc"].tolist(), rel=1e-12)


def test_where_is_wrapped_in_parentheses() -> None:
    # 'a or b' must not escape the filter: select * from (data) where (a or b)
    args = ["eval", str(CTR), "-m", "auc", *CLICK, "--format", "csv", "--by", "country"]
    result = invoke([*args, "--where", "country = 'DE' or country = 'FR'"])
    assert result.exit_code == 0, result.output
    assert pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")[
        "country"
    ].tolist() == ["DE", "FR"]


@pytest.mark.parametrize(
    "where,message",
    [
        ("1 = 1; drop table t", r"--where '1 = 1; drop table t' holds a ';'"),
        ("clik = 1", r"--where 'clik = 1' cannot be applied to DATA: .*clik"),
        ("  ", r"--where '': give a SQL boolean expression"),
    ],
)
def test_where_errors_name_the_flag(where: str, message: str) -> None:
    import re

    line = error_line(invoke(["eval", str(CTR), "-m", "auc", *CLICK, "--where", where]))
    assert re.search(message, line), line


def test_compare_and_plot_take_where(tmp_path: Path) -> None:
    frame = pd.read_csv(CTR)
    frame["coarse"] = frame["pctr"].round(1)
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path, index=False)
    args = ["compare", str(path), "-m", "auc", "--label", "click", "--score", "pctr"]
    result = invoke([*args, "--score", "coarse", "--where", "country = 'DE'", "--format", "csv"])
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    assert got["n_rows"].tolist() == [892, 892]
    out = tmp_path / "de.png"
    plotted = invoke(
        ["plot", "roc", str(path), *CLICK, "--where", "country = 'DE'", "-o", str(out)]
    )
    assert plotted.exit_code == 0, plotted.output


# --------------------------------------------------------------------------- warnings
def test_only_our_warnings_become_sqlmetrics_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    module = sys.modules["sqlmetrics._evaluate._api_evaluate"]
    real = module.evaluate

    def noisy(*args: Any, **kwargs: Any) -> pd.DataFrame:
        warnings.warn("The copy keyword is deprecated", FutureWarning, stacklevel=1)
        warnings.warn("pyspark says hello", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "evaluate", noisy)
    frame = pd.DataFrame({"label": [1, 1], "score": [0.2, 0.4]})  # one class: AUC undefined
    frame.to_csv(tmp_path / "one.csv", index=False)
    with pytest.warns(UserWarning, match="pyspark says hello"):  # Python's own display
        result = CliRunner().invoke(cli.main, ["eval", str(tmp_path / "one.csv"), "-m", "auc"])
    assert result.exit_code == 0, result.output
    ours = [x for x in result.stderr.splitlines() if x.startswith("sqlmetrics: warning:")]
    assert len(ours) == 1 and "auc is undefined" in ours[0]
    assert "pyspark says hello" not in "".join(ours)
    assert "copy keyword" not in "".join(ours)


# --------------------------------------------------------------------------- progress
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cli_io, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(_cli_io, "PROGRESS_EVERY", 0.05)
    stream = Terminal()
    con = duckdb.connect()
    try:
        with _cli_io.progress_on_stderr(con, stream) as stop:
            assert stop is not None
            con.execute(
                "select count(distinct (i * 7919) % 1000003) from range(8000000) t(i)"
            ).fetchall()
    finally:
        con.close()
    text = stream.getvalue()
    assert "sqlmetrics:" in text and "% done" in text
    assert text.endswith("\r")  # the line is cleared at the end


def test_no_progress_on_a_pipe() -> None:
    stream = io.StringIO()
    con = duckdb.connect()
    try:
        with _cli_io.progress_on_stderr(con, stream) as stop:
            assert stop is None
            con.execute("select 1").fetchall()
    finally:
        con.close()
    assert stream.getvalue() == ""


def test_configure_progress_turns_on_duckdbs_bar_on_our_connections() -> None:
    from sqlmetrics._backends import backend_for

    def settings(con: Any) -> tuple[bool, bool]:
        row = con.execute(
            "select current_setting('enable_progress_bar'), "
            "current_setting('enable_progress_bar_print')"
        ).fetchall()[0]
        return bool(row[0]), bool(row[1])

    mine = duckdb.connect()
    before = settings(mine)
    try:
        assert sqlmetrics.configure(progress=True)["progress"] == "true"
        with backend_for(None) as backend:
            assert settings(backend.con) == (True, True)  # type: ignore[attr-defined]
        with backend_for(mine) as backend:
            assert settings(backend.con) == before  # a connection of yours: untouched
    finally:
        assert sqlmetrics.configure(progress=False)["progress"] == "false"
    with backend_for(None) as backend:
        assert settings(backend.con) == (False, False)  # type: ignore[attr-defined]
    mine.close()
    with pytest.raises(sqlmetrics.InvalidParameterError, match="progress= must be True or"):
        sqlmetrics.configure(progress="yes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- list METRIC
def test_list_prints_a_metrics_card() -> None:
    result = invoke(["list", "AUC"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("auc: ROC AUC")
    assert "aliases: roc_auc" in text and "--option pos_label=none" in text
    assert "definition (sql/classification/auc.sql):" in text
    assert "AUC = (sum_{i: label_i = 1} r_i - P (P + 1) / 2) / (P N)" in text
    assert "sklearn" in text
    ranked = invoke(["list", "ndcg@10"]).stdout
    assert "--option gain=exponential" in ranked and "--option duplicates=error" in ranked
    assert "trec_eval: ties=text_desc, gain=linear, empty=zero" in ranked
    assert invoke(["list", "roc_auc"]).stdout == text  # an alias: the same card


def test_list_prints_a_user_metrics_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    try:
        result = invoke(["list", "ctr_lift", "--metrics-dir", "examples/my_metrics/"])
    finally:
        sqlmetrics.unregister_sql("ctr_lift")
    assert result.exit_code == 0, result.output
    assert "--option threshold=0.5" in result.stdout
    assert "definition (examples/my_metrics/ctr_lift.sql):" in result.stdout
    assert "ctr_lift = (clicks_top / n_top) / (clicks / n)" in result.stdout


def test_list_of_an_unknown_metric_suggests() -> None:
    assert "did you mean 'auc'" in error_line(invoke(["list", "acu"]))


# --------------------------------------------------------------------------- p-values
def test_compare_table_shows_small_p_values_in_scientific_notation(tmp_path: Path) -> None:
    frame = pd.read_csv(CTR)
    frame["worse"] = frame["pctr"].round(1)
    frame["noise"] = np.random.default_rng(0).random(len(frame))
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path, index=False)
    args = ["compare", str(path), "-m", "auc", "-m", "accuracy", "--label", "click"]
    args += ["--score", "pctr", "--score", "worse", "--score", "noise"]
    result = invoke([*args, "--option", "threshold=0.3"])
    assert result.exit_code == 0, result.output
    want = sqlmetrics.compare(
        frame,
        ["auc", "accuracy"],
        scores=["pctr", "worse", "noise"],
        label="click",
        threshold=0.3,
    )
    tiny = want[want["p_value"] < 1e-6]
    assert len(tiny) >= 1
    lines = result.stdout.splitlines()
    at = lines[0].split().index("p_value")
    shown = [line.split()[at] for line in lines[1:]]
    assert "0.000000" not in shown and "0.0187" in shown
    for p in tiny["p_value"]:
        assert f"{p:.3g}" in result.stdout and "e-" in f"{p:.3g}"
    assert all(math.isnan(p) for p in want.loc[want["model"] == "pctr", "p_value"])
    csv = invoke([*args, "--option", "threshold=0.3", "--format", "csv"])
    got = pd.read_csv(io.StringIO(csv.stdout), float_precision="round_trip")
    assert got["p_value"].tolist() == pytest.approx(want["p_value"].tolist(), nan_ok=True)


@pytest.mark.spark
def test_where_on_spark(spark: Any, tmp_path: Path) -> None:
    frame = pd.read_csv(CTR)
    path = tmp_path / "events.parquet"
    frame.to_parquet(path, index=False)
    args = ["eval", str(path), "--spark", "local[2]", "-m", "auc", *CLICK, "--format", "csv"]
    result = invoke([*args, "--by", "country", "--where", "country <> 'US'"])
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    want = sqlmetrics.evaluate(
        frame[frame["country"] != "US"], ["auc"], label="click", score="pctr", by="country"
    )
    assert got["country"].tolist() == want["country"].tolist() == ["DE", "FR"]
    assert got["auc"].tolist() == pytest.approx(want["auc"].tolist(), rel=1e-12)
    refused = invoke([*args, "--where", "clik = 1"])
    assert refused.exit_code == 2 and "Traceback" not in refused.stderr
    # the last line is ours (Spark's JVM may log the analysis error before it)
    line = refused.stderr.strip().splitlines()[-1]
    assert line.startswith("sqlmetrics: error: --where 'clik = 1' cannot be applied to DATA")
    assert "`clik` cannot be resolved" in line and ";;" not in line


def test_where_with_db_url_filters_in_the_database(pg_engine: Any) -> None:
    url = pg_engine.url.render_as_string(hide_password=False)
    frame = pd.read_csv(CTR)
    frame.to_sql("grammar_clicks", pg_engine, index=False, if_exists="replace")
    try:
        args = ["eval", "grammar_clicks", "--db-url", url, "-m", "auc", *CLICK, "--format", "csv"]
        result = invoke([*args, "--by", "country", "--where", "country <> 'US'"])
        line = error_line(invoke([*args, "--where", "clik = 1"]))
    finally:
        with pg_engine.begin() as c:
            c.exec_driver_sql("drop table if exists grammar_clicks")
    assert result.exit_code == 0, result.output
    got = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    want = sqlmetrics.evaluate(
        frame[frame["country"] != "US"], ["auc"], label="click", score="pctr", by="country"
    )
    assert got["country"].tolist() == want["country"].tolist() == ["DE", "FR"]
    assert got["auc"].tolist() == pytest.approx(want["auc"].tolist(), rel=1e-12)
    assert line.startswith("sqlmetrics: error: --where 'clik = 1' cannot be applied to DATA")
    assert 'column "clik" does not exist' in line
