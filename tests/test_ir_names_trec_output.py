"""``sqlmetrics eval --format trec``: one name, one definition (issue 39 item 6).

A requested metric prints under trec_eval's name only where it is trec_eval's measure with the
call's options (relevance level = the call's, trec_eval's ``-l``; linear gains; ...); else
under ir_measures' name of its definition; else as written, with what sets it apart in
brackets where the written name is one of those tools' names. Two requests of one definition
print once. Checked against trec_eval's own output (tests/data/trec_eval/out.test.aql: ``-l 2``
on the graded judgments).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sqlmetrics import cli
from sqlmetrics._core.ir_names import ir_measures_name, shown_name, trec_eval_name
from sqlmetrics._core.registry import REGISTRY, default_of

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"


def trec_lines(*args: str) -> dict[str, float]:
    """The ``all`` lines of ``eval --trec --format trec`` on trec_eval's graded collection:
    measure -> value; every measure printed once."""
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "--trec",
            str(TREC / "results.test"),
            "--qrels",
            str(TREC / "qrels.rel_level"),
            "--format",
            "trec",
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    shown = [re.split(r"\t", line) for line in result.stdout.splitlines()]
    shown = [s for s in shown if s[1] == "all" and s[0].strip() != "runid"]
    names = [m.strip() for m, _, _ in shown]
    assert len(names) == len(set(names)), names  # one line per name
    return {m.strip(): float(v) for m, _, v in shown}


def aql(measure: str) -> float:
    """trec_eval -l 2's value of ``measure`` on the graded collection (its ``all`` line)."""
    for line in (TREC / "out.test.aql").read_text().splitlines():
        name, topic, value = line.split()
        if name == measure and topic == "all":
            return float(value)
    raise AssertionError(measure)


def test_a_relevance_level_of_its_own_keeps_ir_measures_name() -> None:
    """P@10 and P(rel=2)@10 were both P_10; map, AP and AP(rel=2) all map."""
    got = trec_lines("-m", "P@10", "-m", "P(rel=2)@10", "-m", "map", "-m", "AP", "-m", "AP(rel=2)")
    assert [n for n in got if not n.startswith("num_")] == [
        "P_10",
        "P(rel=2)@10",
        "map",
        "AP(rel=2)",
    ]
    # the rel=2 lines are trec_eval -l 2's P_5 and map
    assert got["P(rel=2)@10"] == pytest.approx(aql("P_10"), abs=5e-5)
    assert got["AP(rel=2)"] == pytest.approx(aql("map"), abs=5e-5)
    assert got["P_10"] != pytest.approx(got["P(rel=2)@10"], abs=1e-3)
    assert got["map"] != pytest.approx(got["AP(rel=2)"], abs=1e-3)


def test_the_calls_relevance_level_is_trec_evals_l() -> None:
    """--option relevance_level=2 is trec_eval -l 2: its measures keep trec_eval's names."""
    got = trec_lines("-m", "precision@10", "-m", "map", "--option", "relevance_level=2")
    assert got["P_10"] == pytest.approx(aql("P_10"), abs=5e-5)
    assert got["map"] == pytest.approx(aql("map"), abs=5e-5)


def test_an_exponential_gain_ndcg_is_not_ndcg_cut() -> None:
    got = trec_lines("-m", "nDCG@10", "-m", "nDCG(dcg='exp-log2')@10")
    assert "ndcg_cut_10" in got and "nDCG(dcg='exp-log2')@10" in got
    assert got["ndcg_cut_10"] != pytest.approx(got["nDCG(dcg='exp-log2')@10"], abs=1e-3)
    exponential = trec_lines("-m", "ndcg@10", "--option", "gain=exponential")
    assert "ndcg_cut_10" not in exponential
    assert exponential["nDCG(dcg='exp-log2')@10"] == got["nDCG(dcg='exp-log2')@10"]
    assert got["ndcg_cut_10"] == pytest.approx(
        trec_lines("-m", "ndcg@10", "--option", "relevance_level=1")["ndcg_cut_10"]
    )


def test_a_definition_no_tool_names_keeps_the_written_name_marked() -> None:
    got = trec_lines("-m", "map", "-m", "SetF(beta=2)", "-m", "SetF", "--option", "empty=skip")
    assert {"map[empty='skip']", "SetF(beta=2)[empty='skip']", "SetF[empty='skip']"} <= set(got)
    plain = trec_lines("-m", "SetF(beta=2)", "-m", "SetF")
    assert "set_F" in plain and "SetF(beta=2)" in plain  # beta=2 was set_F


@pytest.mark.parametrize(
    ("metric", "k", "options", "want"),
    [
        ("precision_at_k", 3, {"relevance_level": 2}, "P(rel=2)@3"),
        ("ndcg", 3, {"gain": "exponential"}, "nDCG(dcg='exp-log2')@3"),
        ("ndcg", None, {"gains": {0.0: 0.0, 1.0: 1.0, 2.0: 3.0}}, "nDCG(gains={0:0,1:1,2:3})"),
        ("ndcg", 3, {"log_base": 10.0}, None),
        ("ndcg", 3, {"relevance_level": 2}, None),  # ir_measures' nDCG has no rel=
        ("map", None, {"judged_only": True}, "AP(judged_only=True)"),
        ("bpref", None, {"judged_only": True}, None),
        ("set_f", None, {"beta": 2.0}, "SetF(beta=2)"),
        ("iprec_at_recall", None, {"recall_level": 0.2}, None),  # trec_eval 10's rounding
        (
            "iprec_at_recall",
            None,
            {"recall_level": 0.2, "recall_rounding": "trec_eval_9"},
            "IPrec@0.2",
        ),
        ("map", None, {"empty": "skip"}, None),
        ("auc", None, {}, None),
    ],
)
def test_ir_measures_name_of_a_definition(
    metric: str, k: int | None, options: dict[str, object], want: str | None
) -> None:
    spec = REGISTRY[metric]
    # the library's defaults with trec_eval's gain and empty, then the case's options
    resolved = {
        p: {"empty": "zero", "gain": "linear"}.get(p, default_of(spec, p))
        for p in spec.params
        if p != "k"
    }
    resolved.update(options)
    assert ir_measures_name(spec, k, resolved) == want
    if want is not None and shown_name(spec, k, resolved, "x") != want:
        assert shown_name(spec, k, resolved, "x") == trec_eval_name(spec, k, resolved)


def test_a_conventions_per_cut_off_tie_order_keeps_the_names() -> None:
    """--convention ir_measures sets RR@k's and Judged@k's tie order per metric: the names are
    still worked out (RR@10 has no trec_eval name; mrr is recip_rank), with evaluate's values."""
    import sqlmetrics

    names = ["P@5", "RR@10", "mrr", "Judged@10"]
    got = trec_lines(*(a for n in names for a in ("-m", n)), "--convention", "ir_measures")
    run = sqlmetrics.read_trec_run(TREC / "results.test")
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.rel_level")
    want = sqlmetrics.evaluate(
        run, names, qrels=qrels, convention="ir_measures", group="group", item="item"
    )
    shown = {"P@5": "P_5", "RR@10": "RR@10", "mrr": "recip_rank", "Judged@10": "Judged@10"}
    for name, line in shown.items():
        assert got[line] == pytest.approx(float(want[name].iloc[0]), abs=5e-5), name
