"""Conformance with trec_eval's own test suite (vendored in tests/data/trec_eval) and TREC I/O."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_ranking import composed

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

# trec_eval measure -> (registry name, options)
MEASURES: dict[str, tuple[str, dict[str, Any]]] = {
    "map": ("map", {}),
    "Rprec": ("r_precision", {}),
    "recip_rank": ("mrr", {}),
    "ndcg": ("ndcg", {}),
}
for _k in CUTS:
    MEASURES[f"map_cut_{_k}"] = ("map", {"k": _k})
    MEASURES[f"P_{_k}"] = ("precision_at_k", {"k": _k})
    MEASURES[f"recall_{_k}"] = ("recall_at_k", {"k": _k})
    MEASURES[f"ndcg_cut_{_k}"] = ("ndcg", {"k": _k})
for _k in (1, 5, 10):
    MEASURES[f"success_{_k}"] = ("hit_rate", {"k": _k})
TREC_COLUMNS = {"group": "group", "item": "item", "score": "score", "label": "label"}

CASES = {
    # expected output: (qrels, run, options)  -- README of the suite
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"empty": "zero", "missing": "zero"}),
}


def expected_values(name: str) -> dict[tuple[str, str], float]:
    values = {}
    for line in (TREC / name).read_text().splitlines():
        measure, topic, value = re.split(r"\s+", line.strip())
        if measure in MEASURES:
            values[(measure, topic)] = float(value)
    return values


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_conformance(case: str) -> None:
    """Every measure, per topic and for `all`, to trec_eval's 4 decimals.

    Per topic: the whole run against that topic's judgments (a run topic without judgments is
    not evaluated; with missing="zero" a judged topic the run lacks counts 0). All measures of
    one topic are computed in one statement, as evaluate() composes them; `all` also goes
    through the public functions.
    """
    qrels_file, run_file, options = CASES[case]
    qrels = sqlmetrics.read_trec_qrels(TREC / qrels_file)
    run = sqlmetrics.read_trec_run(TREC / run_file)
    expected = expected_values(case)
    assert {m for m, _ in expected} == set(MEASURES)  # every measure we claim is checked
    topics = sorted({t for _, t in expected if t != "all"})
    assert len(topics) == 3
    measures = sorted(MEASURES)
    wanted = [(MEASURES[m][0], MEASURES[m][1].get("k")) for m in measures]
    mismatches = []
    for topic in [*topics, "all"]:
        judged = qrels if topic == "all" else qrels[qrels["group"] == topic]
        out = composed(
            run, wanted, qrels=judged, columns=TREC_COLUMNS, gain="linear", **options
        ).iloc[0]
        for index, measure in enumerate(measures):
            got, value = float(out[f"c{index}"]), expected[(measure, topic)]
            if abs(got - value) > 5e-5 + 1e-12:
                mismatches.append((measure, topic, got, value))
    assert not mismatches, mismatches
    for measure in ("map", "ndcg_cut_10", "P_5", "recall_100", "Rprec", "recip_rank", "success_5"):
        name, kwargs = MEASURES[measure]
        function = getattr(sqlmetrics, REGISTRY[name].function)
        if name in ("ndcg",):
            kwargs = {**kwargs, "gain": "linear"}
        got = function(run, qrels=qrels, **kwargs, **options)
        assert abs(got - expected[(measure, "all")]) <= 5e-5 + 1e-12, measure


def test_without_c_judged_topics_missing_from_the_run_are_skipped() -> None:
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.test")
    run = sqlmetrics.read_trec_run(TREC / "results.trunc")
    # trec_eval without -c averages over topics 301 and 303 (out.test.aqc has P_5 of 0.0 and
    # 0.6 for them); missing="skip" (the default) does the same, missing="zero" is -c
    assert sqlmetrics.precision_at_k(run, qrels=qrels, k=5) == pytest.approx(0.3)
    assert sqlmetrics.precision_at_k(run, qrels=qrels, k=5, empty="zero") == pytest.approx(0.3)
    assert sqlmetrics.precision_at_k(run, qrels=qrels, k=5, missing="zero") == pytest.approx(0.2)


def test_trec_ids_stay_text_and_break_ties_as_trec_eval(tmp_path: Path) -> None:
    (tmp_path / "run").write_text("7 Q0 9 1 1.0 r\n7 Q0 10 2 1.0 r\n7 Q0 010 3 0.5 r\n")
    (tmp_path / "qrels").write_text("7 0 9 1\n7 0 10 0\n7 0 010 1\n")
    run = sqlmetrics.read_trec_run(tmp_path / "run")
    qrels = sqlmetrics.read_trec_qrels(tmp_path / "qrels")
    assert run["item"].tolist() == ["9", "10", "010"]
    assert str(run["group"].dtype) == "string"
    # "9" > "10" as strings: 9 is ranked first
    assert sqlmetrics.mrr(run, qrels=qrels) == 1.0
    assert sqlmetrics.mean_average_precision(run, qrels=qrels) == pytest.approx((1 + 2 / 3) / 2)


def test_trec_readers_ignore_trailing_fields_and_blank_lines(tmp_path: Path) -> None:
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r more junk\n\n1 Q0 b 2 1.0 r\n")
    run = sqlmetrics.read_trec_run(tmp_path / "run")
    assert run[["item", "rank", "score", "run"]].to_dict("list") == {
        "item": ["a", "b"],
        "rank": [1, 2],
        "score": [2.0, 1.0],
        "run": ["r", "r"],
    }


def test_negative_relevance(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("1 0 a -1\n1 0 b 2\n")
    assert sqlmetrics.read_trec_qrels(tmp_path / "qrels")["label"].tolist() == [0, 2]
    kept = sqlmetrics.read_trec_qrels(tmp_path / "qrels", negative="keep")
    assert kept["label"].tolist() == [-1, 2]
    run = pd.DataFrame({"group": ["1"], "item": ["a"], "score": [1.0]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"ndcg: label column 'label' \(label=\) has 1 of 2 rows negative",
    ):
        sqlmetrics.ndcg(run, qrels=kept)
    with pytest.raises(sqlmetrics.InvalidParameterError, match="negative= must be 'zero' or"):
        sqlmetrics.read_trec_qrels(tmp_path / "qrels", negative="drop")


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (sqlmetrics.read_trec_run, "1 Q0 a 1 2.0\n", r"line 1 of .* has 5 fields; a run line"),
        (
            sqlmetrics.read_trec_run,
            "1 Q0 a 1 2.0 r\n1 Q0 b x 1 r\n",
            r"line 2 of .*: rank 'x' is not an integer",
        ),
        (sqlmetrics.read_trec_run, "1 Q0 a 1 high r\n", r"score 'high' is not a number"),
        (sqlmetrics.read_trec_qrels, "1 0 a\n", r"line 1 of .* has 3 fields; a qrels line"),
        (sqlmetrics.read_trec_qrels, "1 0 a 0.5\n", r"relevance '0.5' is not an integer"),
    ],
)
def test_malformed_trec_files(
    tmp_path: Path, reader: Callable[..., Any], text: str, message: str
) -> None:
    (tmp_path / "f").write_text(text)
    with pytest.raises(sqlmetrics.InvalidDataError, match=message):
        reader(tmp_path / "f")


def test_missing_trec_file(tmp_path: Path) -> None:
    with pytest.raises(sqlmetrics.DataSourceError, match="read_trec_run: .* not an existing"):
        sqlmetrics.read_trec_run(tmp_path / "nope")


# ----------------------------------------------------------------------------- trec_eval default
ISSUE_RUN = """1 Q0 a 1 3.0 r
1 Q0 b 2 2.0 r
2 Q0 a 1 3.0 r
2 Q0 b 2 2.0 r
2 Q0 c 3 1.0 r
3 Q0 a 1 3.0 r
"""
# topic 3 is judged with no relevant document; topic 4 is judged but absent from the run
ISSUE_QRELS = """1 0 a 1
2 0 c 1
3 0 a 0
4 0 a 1
"""


def _trec_cli(tmp_path: Path, *args: str) -> dict[str, Any]:
    from click.testing import CliRunner

    from sqlmetrics import cli

    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(ISSUE_RUN)
    qrels.write_text(ISSUE_QRELS)
    result = CliRunner().invoke(
        cli.main, ["eval", "--trec", str(run), "--qrels", str(qrels), "--format", "json", *args]
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    return dict(row)


def test_trec_cli_default_is_trec_eval_default(tmp_path: Path) -> None:
    """Issue 16 item 2: AP 1, 1/3 and 0 (topic 3 counts 0, topic 4 is left out): 4/9."""
    row = _trec_cli(tmp_path, "-m", "map")
    assert row["map"] == pytest.approx(4 / 9)
    assert row["n_groups"] == 3


def test_trec_cli_options_still_win(tmp_path: Path) -> None:
    # trec_eval -c: topic 4 counts 0 too
    row = _trec_cli(tmp_path, "-m", "map", "--option", "missing=zero")
    assert row["map"] == pytest.approx(4 / 12)
    # the library's default: topic 3 left out
    row = _trec_cli(tmp_path, "-m", "map", "--option", "empty=skip")
    assert row["map"] == pytest.approx(2 / 3)


def test_python_split_reproduces_trec_eval_and_c(tmp_path: Path) -> None:
    (tmp_path / "run.txt").write_text(ISSUE_RUN)
    (tmp_path / "qrels.txt").write_text(ISSUE_QRELS)
    run = sqlmetrics.read_trec_run(tmp_path / "run.txt")
    qrels = sqlmetrics.read_trec_qrels(tmp_path / "qrels.txt")
    assert sqlmetrics.mean_average_precision(run, qrels=qrels, empty="zero") == pytest.approx(4 / 9)
    assert sqlmetrics.mean_average_precision(
        run, qrels=qrels, empty="zero", missing="zero"
    ) == pytest.approx(1 / 3)
    assert sqlmetrics.mean_average_precision(run, qrels=qrels) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("expected", "qrels_file", "args"),
    [
        ("out.test", "qrels.test", []),  # trec_eval qrels.test results.test, no options
        ("out.test.aql", "qrels.rel_level", ["--option", "relevance_level=2"]),
    ],
)
def test_trec_cli_reproduces_trec_eval_output_without_options(
    expected: str, qrels_file: str, args: list[str]
) -> None:
    """Every measure we claim in trec_eval's `all` row, from the command line's defaults
    (graded ndcg in out.test.aql needs trec_eval's linear gain)."""
    from click.testing import CliRunner

    from sqlmetrics import cli

    published = {m: v for (m, t), v in expected_values(expected).items() if t == "all"}
    names = {"map": "map", "Rprec": "r_precision", "recip_rank": "mrr", "ndcg": "ndcg"}
    names.update({f"P_{k}": f"precision@{k}" for k in CUTS})
    names.update({f"recall_{k}": f"recall@{k}" for k in CUTS})
    names.update({f"ndcg_cut_{k}": f"ndcg@{k}" for k in CUTS})
    wanted = {m: n for m, n in names.items() if m in published}
    assert "map" in wanted and "P_5" in wanted
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.test"),
            "--qrels",
            str(TREC / qrels_file),
            *[a for n in wanted.values() for a in ("-m", n)],
            *args,
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    for measure, name in wanted.items():
        assert f"{row[name]:.4f}" == f"{published[measure]:.4f}", measure


def test_trec_cli_per_topic_with_c_prints_the_missing_topic() -> None:
    """`--by group --option missing=zero` is trec_eval -q -c: out.test.aqc per topic, with a
    row for topic 302, which results.trunc lacks (n_rows 0, every measure 0)."""
    from click.testing import CliRunner

    from sqlmetrics import cli

    published = expected_values("out.test.aqc")
    names = {
        "map": "map",
        "Rprec": "r_precision",
        "recip_rank": "mrr",
        "ndcg": "ndcg",
        "P_5": "precision@5",
        "recall_100": "recall@100",
        "ndcg_cut_10": "ndcg@10",
        "success_5": "hit_rate@5",
        "map_cut_20": "map@20",
    }
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.trunc"),
            "--qrels",
            str(TREC / "qrels.test"),
            *[a for n in names.values() for a in ("-m", n)],
            "--by",
            "group",
            "--option",
            "missing=zero",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = {row["group"]: row for row in json.loads(result.stdout)}
    assert sorted(rows) == ["301", "302", "303"]
    assert rows["302"]["n_rows"] == 0
    for topic, row in rows.items():
        for measure, name in names.items():
            assert f"{row[name]:.4f}" == f"{published[(measure, topic)]:.4f}", (measure, topic)
