"""The sqlmetrics command line: eval/render/list, formats that round-trip, one-line errors."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.cli import _io

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"
TREC = ROOT / "tests" / "data" / "trec_eval"
ARGS = [
    "-m",
    "auc",
    "-m",
    "gauc",
    "-m",
    "f1",
    "--label",
    "click",
    "--score",
    "pctr",
    "--group",
    "user_id",
    "--by",
    "country",
    "--by",
    "day",
    "--option",
    "threshold=0.3",
]


def expected() -> pd.DataFrame:
    frame = sqlmetrics.evaluate(
        CTR,
        ["auc", "gauc", "f1"],
        label="click",
        score="pctr",
        group="user_id",
        by=["country", "day"],
        threshold=0.3,
    )
    assert pd.api.types.is_datetime64_any_dtype(frame["day"])  # DuckDB reads the CSV dates
    return frame.assign(day=frame["day"].dt.strftime("%Y-%m-%d"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sqlmetrics.cli", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_csv_round_trips_exactly() -> None:
    result = CliRunner().invoke(cli.main, ["eval", str(CTR), *ARGS, "--format", "csv"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.output), float_precision="round_trip")
    pd.testing.assert_frame_equal(frame, expected(), check_dtype=False, check_exact=True)


def test_json_round_trips_exactly(tmp_path: Path) -> None:
    out = tmp_path / "metrics.json"
    result = CliRunner().invoke(
        cli.main, ["eval", str(CTR), *ARGS, "--format", "json", "--output", str(out)]
    )
    assert result.exit_code == 0 and result.output == ""
    records = json.loads(out.read_text())
    assert isinstance(records, list) and set(records[0]) == {
        "country",
        "day",
        "auc",
        "gauc",
        "f1",
        "n_rows",
        "n_groups",
    }
    pd.testing.assert_frame_equal(
        pd.DataFrame(records), expected(), check_dtype=False, check_exact=True
    )


def test_table_is_aligned() -> None:
    result = CliRunner().invoke(cli.main, ["eval", str(CTR), *ARGS])
    lines = result.output.splitlines()
    assert lines[0].split() == ["country", "day", "auc", "gauc", "f1", "n_rows", "n_groups"]
    assert len(lines) == 1 + len(expected())
    assert len({len(line) for line in lines}) == 1  # every line as wide: aligned columns


def test_duckdb_table_argument(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(f"create table events as select * from read_csv('{CTR}')")
    result = CliRunner().invoke(cli.main, ["eval", f"{db}:events", *ARGS, "--format", "csv"])
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(
        pd.read_csv(io.StringIO(result.output), float_precision="round_trip"),
        expected(),
        check_dtype=False,
        check_exact=True,
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["eval", "missing.parquet", "-m", "auc"],
            r"DATA 'missing.parquet' matches no file; pass an existing Parquet or CSV path, a glob "
            r"such as 'logs/\*.parquet' or path/to/db.duckdb:table$",
        ),
        (["eval", str(CTR), "-m", "auc"], r"column 'label' \(--label\) not found"),
        (["eval", str(CTR), "-m", "acu", "--label", "click"], r"did you mean 'auc'\?"),
        (
            [
                "eval",
                str(CTR),
                "-m",
                "auc",
                "--label",
                "click",
                "--score",
                "pctr",
                "--option",
                "gain=linear",
            ],
            r"option gain= is accepted by none",
        ),
        (
            [
                "eval",
                str(CTR),
                "-m",
                "f1",
                "--label",
                "click",
                "--score",
                "pctr",
                "--option",
                "threshold",
            ],
            r"--option 'threshold': write NAME=VALUE",
        ),
        (
            ["eval", "nope.duckdb:events", "-m", "auc"],
            r"database file 'nope.duckdb' does not exist",
        ),
        (
            ["render", "auc", "--gain"],
            r"render: unexpected argument '--gain'; give options as --option NAME=VALUE",
        ),
        (["render", "aucc"], r"did you mean 'auc'"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert re.search(message, lines[0]), lines[0]
    assert lines[0].startswith("sqlmetrics: error: ")


def test_usage_errors_exit_2() -> None:
    result = run("eval", str(CTR))  # no -m
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_render_prints_the_sql() -> None:
    result = CliRunner().invoke(
        cli.main,
        ["render", "gauc", "--group", "user_id", "--weighting", "uniform", "--data", "events"],
    )
    assert result.exit_code == 0
    assert result.output == sqlmetrics.render(
        "gauc", "events", group="user_id", weighting="uniform"
    )


def test_list_shows_every_metric() -> None:
    result = CliRunner().invoke(cli.main, ["list"])
    assert result.exit_code == 0
    header, *lines = result.output.splitlines()
    assert header.split() == ["METRIC", "IR_MEASURES", "TREC_EVAL", "DEFINITION"]
    shown = {line.split()[0] for line in lines if not line.startswith(" ")}
    assert shown == set(sqlmetrics.metric_names())


def test_list_shows_ir_measures_and_trec_eval_names() -> None:
    listed = CliRunner().invoke(cli.main, ["list"]).output.splitlines()
    rows = {line.split()[0]: line.split()[1:3] for line in listed[1:] if not line.startswith(" ")}
    assert rows["ndcg@k"] == ["nDCG@k", "ndcg_cut_k"]
    assert rows["precision@k"] == ["P@k", "P_k"]
    assert rows["map@k"] == ["AP@k", "map_cut_k"]
    assert rows["mrr@k"] == ["RR@k", "recip_rank"]
    assert rows["hit_rate@k"] == ["Success@k", "success_k"]
    assert rows["iprec_at_recall"] == ["IPrec@recall", "iprec_at_recall_L"]
    assert rows["gm_map@k"] == ["-", "gm_map"]
    assert rows["auc"] == ["-", "-"]
    card = CliRunner().invoke(cli.main, ["list", "nDCG@10"]).output
    assert card.startswith("ndcg@k: ")
    assert "  ir_measures: nDCG@k; trec_eval: ndcg_cut_k\n" in card


def test_progress_is_tracked_only_when_stderr_is_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DuckDB's own bar prints to stdout (mixed with the results): never printed; its
    # tracking is on when stderr, where our progress line goes, is a terminal
    def setting(con: duckdb.DuckDBPyConnection, name: str) -> bool:
        row = con.execute(f"select current_setting('{name}')").fetchall()[0]
        return bool(row[0])

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    with _io.connection(None) as con:
        assert setting(con, "enable_progress_bar") is False
        assert setting(con, "enable_progress_bar_print") is False
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with _io.connection(None) as con:
        assert setting(con, "enable_progress_bar") is True
        assert setting(con, "enable_progress_bar_print") is False


def test_piped_output_is_clean_csv() -> None:
    result = run("eval", str(CTR), *ARGS, "--format", "csv")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.splitlines()[0] == "country,day,auc,gauc,f1,n_rows,n_groups"


@pytest.mark.parametrize(
    "text,value", [("10", 10), ("0.5", 0.5), ("none", None), ("true", True), ("linear", "linear")]
)
def test_option_values(text: str, value: object) -> None:
    assert _io.parse_value(text) == value


def test_trec_files_reproduce_trec_eval() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.test"),
            "--qrels",
            str(TREC / "qrels.test"),
            "-m",
            "map",
            "-m",
            "ndcg",
            "-m",
            "precision@10",
            "-m",
            "mrr",
            "--option",
            "gain=linear",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    published = {}
    for line in (TREC / "out.test.a").read_text().splitlines():
        measure, _topic, value = line.split()
        published[measure] = value
    assert f"{row['map']:.4f}" == published["map"]
    assert f"{row['ndcg']:.4f}" == published["ndcg"]
    assert f"{row['precision@10']:.4f}" == published["P_10"]
    assert f"{row['mrr']:.4f}" == published["recip_rank"]
    assert row["n_groups"] == int(published["num_q"])


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sqlmetrics: error: "), lines[0]
    return lines[0]


CTR_ARGS = ["-m", "auc", "--label", "click", "--score", "pctr"]


@pytest.mark.parametrize(
    "command,suffix",
    [
        (["eval", str(CTR), *CTR_ARGS], "x.csv"),
        (["plot", "roc", str(CTR), "--label", "click", "--score", "pctr"], "x.png"),
    ],
)
def test_output_into_a_missing_directory(tmp_path: Path, command: list[str], suffix: str) -> None:
    target = tmp_path / "missing" / suffix
    line = one_line_error(run(*command, "--output", str(target)))
    assert (
        f"--output {str(target)!r}: directory {str(tmp_path / 'missing')!r} does not exist" in line
    )


@pytest.mark.parametrize(
    "command",
    [
        ["eval", str(CTR), *CTR_ARGS],
        ["plot", "roc", str(CTR), "--label", "click", "--score", "pctr"],
    ],
)
def test_output_a_directory_is_one_line(command: list[str]) -> None:
    line = one_line_error(run(*command, "--output", "."))
    assert "'--output'" in line and "'.' is a directory" in line and "--help" in line


def test_usage_error_is_one_line() -> None:
    line = one_line_error(run("eval", str(CTR)))
    assert "Missing option '-m' / '--metric'" in line
    assert line.endswith(" eval --help')")


def test_trec_file_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "run.txt"
    bad.write_bytes(b"301 Q0 doc1 1 0.5 r\n301 Q0 d\xff2 2 0.4 r\n")
    line = one_line_error(
        run("eval", "--trec", str(bad), "--qrels", str(TREC / "qrels.test"), "-m", "map")
    )
    assert f"read_trec_run: line 2 of {str(bad)!r} is not UTF-8 text" in line


# ----------------------------------------------------------------- several inputs, directories
def test_several_files_as_the_shell_expands_a_glob(tmp_path: Path) -> None:
    frame = pd.read_csv(CTR)
    halves = [tmp_path / "part-1.csv", tmp_path / "part-2.csv"]
    frame.iloc[: len(frame) // 2].to_csv(halves[0], index=False)
    frame.iloc[len(frame) // 2 :].to_csv(halves[1], index=False)
    result = run("eval", *map(str, halves), *CTR_ARGS, "--format", "json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert row["auc"] == sqlmetrics.auc(CTR, label="click", score="pctr")
    assert row["n_rows"] == len(frame)


@pytest.mark.parametrize("hive", [True, False])
def test_directory_of_parquet_files(tmp_path: Path, hive: bool) -> None:
    frame = pd.read_csv(CTR)
    for country, part in frame.groupby("country"):
        folder = tmp_path / "export" / (f"country={country}" if hive else str(country))
        folder.mkdir(parents=True)
        part.drop(columns="country" if hive else []).to_parquet(folder / "part-0.parquet")
    result = CliRunner().invoke(
        cli.main,
        ["eval", str(tmp_path / "export"), *CTR_ARGS, "--by", "country", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    expected_rows = sqlmetrics.evaluate(
        CTR, ["auc"], label="click", score="pctr", by="country"
    ).to_dict(orient="records")
    assert json.loads(result.stdout) == expected_rows


def test_directory_without_data_files(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}")
    line = one_line_error(run("eval", str(tmp_path), "-m", "auc"))
    assert f"DATA {str(tmp_path)!r} is a directory with no Parquet or CSV file" in line


def test_directory_of_csv_files(tmp_path: Path) -> None:
    """A directory without Parquet files is read as its CSV files (issue 28)."""
    (tmp_path / "a.csv").write_text("label,score\n1,0.5\n0,0.2\n")
    (tmp_path / "b.csv").write_text("label,score\n1,0.1\n0,0.3\n")
    result = CliRunner().invoke(cli.main, ["eval", str(tmp_path), "-m", "auc", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["auc"] == 0.5


def test_plot_reports_a_missing_database(tmp_path: Path) -> None:
    line = one_line_error(
        run("plot", "roc", "nope.duckdb:events", "--output", str(tmp_path / "x.png"))
    )
    assert "database file 'nope.duckdb' does not exist" in line


# ----------------------------------------------------------------- flags, warnings, names
def test_messages_name_flags_not_python_arguments() -> None:
    line = one_line_error(
        run("eval", str(CTR), "-m", "gauc", "--label", "click", "--score", "pctr")
    )
    assert "'gauc' needs --group" in line and "group=" not in line


def test_undefined_metric_warning_is_one_plain_line() -> None:
    result = run(
        "eval",
        str(CTR),
        "-m",
        "precision",
        "--label",
        "click",
        "--score",
        "pctr",
        "--threshold",
        "2",
        "--format",
        "csv",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "sqlmetrics: warning: evaluate: precision is undefined in 1 of 1 slice(s) (no predicted "
        "positive (tp + fp = 0)); NaN there"
    ]


def test_metric_names_are_case_insensitive() -> None:
    upper = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(CTR),
            "-m",
            "AUC",
            "-m",
            "GAuc",
            "--label",
            "click",
            "--score",
            "pctr",
            "--group",
            "user_id",
            "--format",
            "csv",
        ],
    )
    lower = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(CTR),
            "-m",
            "auc",
            "-m",
            "gauc",
            "--label",
            "click",
            "--score",
            "pctr",
            "--group",
            "user_id",
            "--format",
            "csv",
        ],
    )
    assert upper.exit_code == 0, upper.output
    assert upper.output == lower.output


# ----------------------------------------------------------------- several thresholds
def test_several_thresholds_give_a_column_each() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(CTR),
            "-m",
            "auc",
            "-m",
            "f1",
            "-m",
            "precision",
            "--label",
            "click",
            "--score",
            "pctr",
            "--by",
            "country",
            "--threshold",
            "0.3",
            "--threshold",
            "0.5",
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.output), float_precision="round_trip")
    assert list(frame.columns) == [
        "country",
        "auc",
        "f1@t=0.3",
        "precision@t=0.3",
        "f1@t=0.5",
        "precision@t=0.5",
        "n_rows",
    ]
    for t in (0.3, 0.5):
        one = sqlmetrics.evaluate(
            CTR, ["f1", "precision"], label="click", score="pctr", by="country", threshold=t
        )
        assert frame[f"f1@t={t}"].tolist() == one["f1"].tolist()
        assert frame[f"precision@t={t}"].tolist() == one["precision"].tolist()


def test_one_threshold_flag_keeps_plain_names() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(CTR),
            "-m",
            "f1",
            "--label",
            "click",
            "--score",
            "pctr",
            "--threshold",
            "0.3",
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "f1,n_rows"
    value = float(result.output.splitlines()[1].split(",")[0])
    assert value == sqlmetrics.f1(CTR, label="click", score="pctr", threshold=0.3)


def test_a_repeated_threshold_is_an_error() -> None:
    # it gave two columns of the same name f1@t=0.3
    line = one_line_error(
        run(
            "eval",
            str(CTR),
            "-m",
            "f1",
            "--label",
            "click",
            "--score",
            "pctr",
            "--threshold",
            "0.3",
            "--threshold",
            "0.30",
        )
    )
    assert "--threshold 0.3 is given twice" in line


def test_threshold_flag_and_option_together_is_an_error() -> None:
    line = one_line_error(
        run(
            "eval",
            str(CTR),
            "-m",
            "f1",
            "--label",
            "click",
            "--score",
            "pctr",
            "--threshold",
            "0.3",
            "--option",
            "threshold=0.5",
        )
    )
    assert "give thresholds with --threshold only" in line


# ----------------------------------------------------------------- --format trec
def test_format_trec_is_trec_eval_q_layout() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.test"),
            "--qrels",
            str(TREC / "qrels.test"),
            "-m",
            "map",
            "-m",
            "precision@10",
            "--format",
            "trec",
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    ours = [line.split("\t") for line in result.output.splitlines()]
    assert all(len(fields) == 3 and len(fields[0]) >= 22 for fields in ours)
    got = {(m.strip(), t): v for m, t, v in ours}
    published = {}
    for line in (TREC / "out.test.aq").read_text().splitlines():
        measure, topic, value = line.split("\t")
        published[(measure.strip(), topic)] = value
    for topic in ("301", "302", "303", "all"):
        for name in ("map", "P_10", "num_ret", "num_rel", "num_rel_ret"):  # trec_eval's names
            assert got[(name, topic)] == published[(name, topic)], (name, topic)
    assert got[("num_q", "all")] == published[("num_q", "all")]
    assert got[("runid", "all")] == published[("runid", "all")] == "STANDARD"
    # per topic first (in topic order), `all` last, as trec_eval -q prints
    topics = [t for _m, t, _v in ours]
    assert topics == sorted(topics[:-7]) + ["all"] * 7


def trec_cli(*args: str, run_file: str = "results.test", qrels: str = "qrels.test") -> str:
    result = CliRunner().invoke(
        cli.main,
        ["eval", "--trec", str(TREC / run_file), "--qrels", str(TREC / qrels), *args],
    )
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_format_trec_without_m_is_trec_evals_standard_measures() -> None:
    """``trec_eval qrels run`` (no -m, no -q): the same lines in the same order, the eleven
    iprec_at_recall_* lines included.
    """
    published = (TREC / "out.test").read_text().splitlines()
    assert len(published) == 30
    assert trec_cli("--format", "trec").splitlines() == published


def test_format_trec_writes_trec_evals_names_per_topic_with_q() -> None:
    """ir_measures' and our names of one measure print as trec_eval's: the values of
    ``trec_eval -q -m all_trec`` (out.test.aq) for each topic and ``all``.
    """
    text = trec_cli(
        "--format",
        "trec",
        "-q",
        "-m",
        "nDCG@10",
        "-m",
        "P@5",
        "-m",
        "success@10",
        "-m",
        "RR",
        "-m",
        "map@100",
        "-m",
        "R@100",
        "-m",
        "Rprec",
        "-m",
        "gm_map",
    )
    got = _trec_lines(text)
    published = _trec_lines((TREC / "out.test.aq").read_text())
    names = ("ndcg_cut_10", "P_5", "success_10", "recip_rank", "map_cut_100", "recall_100", "Rprec")
    for topic in ("301", "302", "303", "all"):
        for name in names:
            assert got[(name, topic)] == published[(name, topic)], (name, topic)
    assert got[("gm_map", "all")] == published[("gm_map", "all")]
    assert ("gm_map", "301") not in got  # trec_eval prints its geometric mean for all only
    # a metric trec_eval has no name for keeps its own: RR@10 (recip_rank takes no cut-off)
    assert ("RR@10", "all") in _trec_lines(trec_cli("--format", "trec", "-m", "RR@10"))


def test_q_without_format_trec_is_an_error() -> None:
    line = one_line_error(run("eval", str(CTR), *CTR_ARGS, "-q"))
    assert line == (
        "sqlmetrics: error: -q prints per topic in trec_eval's layout: add --format trec "
        "(got table)"
    )


def test_ir_measures_names_on_the_command_line() -> None:
    """Written as ir_measures writes them, the output columns keep the names; case matters
    there (P is ir_measures' P), while our names stay case-insensitive.
    """
    text = trec_cli(
        "-m",
        "nDCG@10",
        "-m",
        "P(rel=2)@5",
        "-m",
        "NDCG@10",
        "--format",
        "csv",
        qrels="qrels.rel_level",
    )
    frame = pd.read_csv(io.StringIO(text), float_precision="round_trip")
    assert list(frame.columns[:3]) == ["nDCG@10", "P(rel=2)@5", "ndcg@10"]
    run_frame = sqlmetrics.read_trec_run(TREC / "results.test")
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.rel_level")
    cols = {"group": "group", "item": "item", "qrels": qrels, "empty": "zero"}
    assert frame["P(rel=2)@5"][0] == sqlmetrics.precision_at_k(
        run_frame, k=5, relevance_level=2, **cols
    )
    assert frame["nDCG@10"][0] == sqlmetrics.ndcg(run_frame, k=10, gain="linear", **cols)


def test_format_trec_needs_a_group_and_no_by() -> None:
    line = one_line_error(
        run(
            "eval", str(CTR), "-m", "auc", "--label", "click", "--score", "pctr", "--format", "trec"
        )
    )
    assert "--format trec prints one block per topic: give the topic column with --group" in line


@pytest.mark.parametrize(
    "args,message",
    [
        (["--threshold", "nan", "-m", "f1"], r"f1: --threshold must be a finite number; got nan$"),
        (
            ["--option", "threshold=0.3", "-m", "auc"],
            r"evaluate: --threshold \(or --option threshold=\) is accepted by none of the "
            r"requested "
            r"metrics \(auc\)",
        ),
        (["--option", "gain=linear", "-m", "auc"], r"evaluate: --option gain= is accepted by none"),
    ],
)
def test_messages_translate_every_kind_of_argument(args: list[str], message: str) -> None:
    line = one_line_error(run("eval", str(CTR), "--label", "click", "--score", "pctr", *args))
    assert re.search(message, line), line


def _trec_lines(text: str) -> dict[tuple[str, str], str]:
    return {(m.strip(), t): v for m, t, v in (line.split("\t") for line in text.splitlines())}


def test_format_trec_counts_follow_trec_eval_c_and_unjudged_topics(tmp_path: Path) -> None:
    # -c (missing=zero): topic 302, absent from results.trunc, has num_rel 77 (was 0, and the
    # `all` num_rel 484 instead of 561); a run topic without judgments is not evaluated or
    # counted by trec_eval (it was printed with map nan and added to num_ret)
    run_file = tmp_path / "results.trunc.extra"
    run_file.write_text(
        (TREC / "results.trunc").read_text()
        + "999 Q0 doc-x 1 1.0 extra\n999 Q0 doc-y 2 0.5 extra\n"
    )
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(run_file),
            "--qrels",
            str(TREC / "qrels.test"),
            "-m",
            "map",
            "-m",
            "precision@10",
            "--option",
            "missing=zero",
            "--format",
            "trec",
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    got = _trec_lines(
        "\n".join(line for line in result.output.splitlines() if line.count("\t") == 2)
    )
    published = _trec_lines((TREC / "out.test.aqc").read_text())
    assert {t for _m, t in got} == {"301", "302", "303", "all"}
    for topic in ("301", "302", "303", "all"):
        for name in ("map", "P_10", "num_ret", "num_rel", "num_rel_ret"):  # trec_eval's names
            assert got[(name, topic)] == published[(name, topic)], (name, topic)
    assert got[("num_q", "all")] == published[("num_q", "all")]


def test_python_dash_m_sqlmetrics_is_the_command_line() -> None:
    """``python -m sqlmetrics`` runs the same command line as the script (issue 28)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sqlmetrics",
            "eval",
            str(CTR),
            "-m",
            "auc",
            "--label",
            "click",
            "--score",
            "pctr",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = sqlmetrics.auc(str(CTR), label="click", score="pctr")
    frame = pd.read_csv(io.StringIO(done.stdout), float_precision="round_trip")
    assert frame["auc"].tolist() == [expected]
    usage = subprocess.run(
        [sys.executable, "-m", "sqlmetrics", "--help"], capture_output=True, text=True, check=False
    )
    assert usage.returncode == 0
    assert usage.stdout.startswith("Usage: sqlmetrics ")
