"""ir_measures' and trec_eval's names of issue 27's new measures (ERR, infAP, Judged, SetP,
SetR, SetF, NumQ, NumRel, NumRet, NumRelRet) and of the new parameters (``gains=``,
``judged_only=``), against ir_measures 0.4.3 itself.

These measures and parameters come from a parallel branch (h27m); the names are read from their
``MetricSpec.ir_measures`` / ``trec_eval`` fields only (sqlmetrics/_core/ir_names.py), so this
file passes once both branches are merged, and fails on the names branch alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ir_names import COLS, graded, ir_values

import sqlmetrics
from sqlmetrics._core.ir_names import ir_forms, trec_eval_name
from sqlmetrics._core.names import parse_metric
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics.errors import InvalidParameterError

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"

#: ir_measures' name -> (our registry name, trec_eval's name)
NEW = {
    "ERR@20": ("err", None),
    "infAP": ("infap", "infAP"),
    "Judged@10": ("judged", None),
    "SetP": ("set_precision", "set_P"),
    "SetR": ("set_recall", "set_recall"),
    "SetF": ("set_f", "set_F"),
    "NumQ": ("num_q", "num_q"),
    "NumRel": ("num_rel", "num_rel"),
    "NumRet": ("num_ret", "num_ret"),
    "NumRelRet": ("num_rel_ret", "num_rel_ret"),
}
#: the names pytrec_eval computes (ERR@k is gdeval's, 5 decimals; Judged@k the judged provider's)
EXACT = [
    "infAP",
    "SetP",
    "SetR",
    "SetF",
    "NumRelRet",
    "Judged@10",
    "SetP(rel=2)",
    "nDCG(gains={0:0,1:1,2:3})@10",
    "P(judged_only=True)@5",
    "AP(judged_only=True)",
]


def test_the_new_names_map_onto_their_metrics() -> None:
    for name, (metric, trec) in NEW.items():
        request = parse_metric(name)
        assert request.spec.name == metric, name
        assert trec_eval_name(request.spec, request.k, dict(request.params)) == trec, name
    assert parse_metric("ERR@20").k == 20
    assert parse_metric("nDCG(gains={0:0,1:1,2:3})@10").params["gains"] == {0: 0, 1: 1, 2: 3}
    assert parse_metric("P(judged_only=True)@5").params["judged_only"] is True
    assert "ERR@k" in ir_forms()


@pytest.mark.parametrize("source", ["trec", "graded"])
def test_the_new_names_give_ir_measures_values(source: str) -> None:
    if source == "trec":
        qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.rel_level")
        run = sqlmetrics.read_trec_run(TREC / "results.trunc")
    else:
        qrels, run = graded(4)
    want = ir_values([*EXACT, "ERR@20"], qrels, run)
    frame = sqlmetrics.evaluate(
        run, [*EXACT, "ERR@20", "NumRet"], qrels=qrels, convention="ir_measures", **COLS
    )
    for name in EXACT:
        assert float(frame[name].iloc[0]) == pytest.approx(want[name], abs=1e-9), name
    assert float(frame["ERR@20"].iloc[0]) == pytest.approx(want["ERR@20"], abs=1e-5)
    # NumQ and NumRel: ir_measures counts a judged query absent from the run as 0; the
    # convention skips it for them (missing='skip'), so they take a call of their own
    counts = ir_values(["NumQ", "NumRel"], qrels, run)
    got = sqlmetrics.evaluate(
        run, ["NumQ", "NumRel"], qrels=qrels, convention="ir_measures", **COLS
    )
    for name in ("NumQ", "NumRel"):
        assert float(got[name].iloc[0]) == counts[name], name
    with pytest.raises(InvalidParameterError, match="missing='zero' for infap but missing='skip'"):
        sqlmetrics.evaluate(run, ["infAP", "NumQ"], qrels=qrels, convention="ir_measures", **COLS)


def test_the_new_metrics_are_listed_with_both_names() -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    listed = CliRunner().invoke(cli.main, ["list"]).output.splitlines()
    rows = {line.split()[0]: line.split()[1:3] for line in listed[1:] if not line.startswith(" ")}
    for name, (metric, trec) in NEW.items():
        spec = REGISTRY[metric]
        shown = f"{metric.removesuffix('_at_k')}@k" if spec.takes_k else metric
        assert rows[shown][0] == name.replace("@20", "@k").replace("@10", "@k"), name
        assert rows[shown][1] == (trec or "-"), name


def test_trec_format_prints_the_new_measures_under_trec_evals_names() -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.test"),
            "--qrels",
            str(TREC / "qrels.test"),
            "-m",
            "SetP",
            "-m",
            "SetR",
            "-m",
            "infAP",
            "-m",
            "NumRet",
            "--format",
            "trec",
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [line.split("\t") for line in result.output.splitlines()]
    assert [t for m, t, _ in lines if m.strip() == "num_ret"] == ["301", "302", "303", "all"]
    got = {(m.strip(), t): v for m, t, v in lines}
    published = {
        (m.strip(), t): v
        for m, t, v in (
            line.split("\t") for line in (TREC / "out.test.aq").read_text().splitlines()
        )
    }
    for topic in ("301", "302", "303", "all"):
        for name in ("set_P", "set_recall", "infAP"):
            assert got[(name, topic)] == published[(name, topic)], (name, topic)
