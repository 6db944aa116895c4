"""ir_measures' names (``nDCG@10``, ``P(rel=2)@5``) and ``convention="ir_measures"``: the same
values as ir_measures 0.4.3 itself, to 1e-9, on trec_eval's test collection (vendored in
tests/data/trec_eval) and on graded runs with tied scores and unretrieved relevant documents.
The new measures of issue 27 (ERR, infAP, Judged, the set measures, the counts) are in
tests/test_ir_names_new_measures.py.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.ir_names import parse_ir_name, trec_eval_name
from sqlmetrics._core.names import parse_metric
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics.errors import InvalidDataError, InvalidParameterError, UnknownMetricError

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"
COLS = {"group": "group", "item": "item"}

#: every name of ours that ir_measures computes as here, with parameters and cut-offs
NAMES = [
    "nDCG@10",
    "nDCG",
    "nDCG@5",
    "P@5",
    "P(rel=2)@5",
    "P@10",
    "AP",
    "AP@100",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "RR@10",
    "RR(rel=3)@5",
    "R@5",
    "R@1000",
    "Rprec",
    "Rprec(rel=2)",
    "Bpref",
    "Success@1",
    "Success@5",
    "Success(rel=2)@10",
    # pytrec_eval's trec_eval 9: recall level p at (long)(p R + 0.9) relevant items
    "IPrec@0.2",
    "IPrec@0.6",
    "IPrec(rel=2)@0.3",
    "IPrec@0.7",
]


def ir_values(names: list[str], qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, float]:
    """ir_measures' aggregate of each name, from the same frames."""
    ir_qrels = [
        ir_measures.Qrel(str(q), str(d), int(r))
        for q, d, r in qrels[["group", "item", "label"]].itertuples(index=False)
    ]
    ir_run = [
        ir_measures.ScoredDoc(str(q), str(d), float(s))
        for q, d, s in run[["group", "item", "score"]].itertuples(index=False)
    ]
    measures = {name: ir_measures.parse_measure(name) for name in names}
    values = ir_measures.calc_aggregate(list(measures.values()), ir_qrels, ir_run)
    return {name: float(values[m]) for name, m in measures.items()}


def ours(names: list[str], qrels: pd.DataFrame, run: pd.DataFrame) -> dict[str, float]:
    frame = sqlmetrics.evaluate(run, names, qrels=qrels, convention="ir_measures", **COLS)
    assert list(frame.columns[: len(names)]) == names  # the names as written
    return {name: float(frame[name].iloc[0]) for name in names}


@pytest.mark.parametrize(
    ("qrels_file", "run_file"),
    [
        ("qrels.test", "results.test"),
        ("qrels.rel_level", "results.test"),  # graded, with -1 judgments
        ("qrels.test", "results.trunc"),  # judged topics absent from the run: 0
    ],
)
def test_ir_measures_names_on_trec_evals_collection(qrels_file: str, run_file: str) -> None:
    qrels = sqlmetrics.read_trec_qrels(TREC / qrels_file)
    run = sqlmetrics.read_trec_run(TREC / run_file)
    want = ir_values(NAMES, qrels, run)
    got = ours(NAMES, qrels, run)
    for name in NAMES:
        assert got[name] == pytest.approx(want[name], abs=1e-9), name
    assert len({round(v, 9) for v in want.values()}) > 8  # the names differ in value


def graded(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A graded run with many tied scores, relevant documents it does not retrieve, a query
    with no relevant document, a judged query absent from the run and a run query without
    judgments. Text ids (the tie orders are by the id as text; gdeval wants numeric topics).
    """
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(8):
        docs = [f"d{rng.randrange(40)}" for _ in range(14)]
        docs = list(dict.fromkeys(docs))
        for doc in docs:
            level = 0 if q == 3 else rng.choice([0, 0, 1, 2, 3])
            qrels.append((str(301 + q), doc, level))
        if q == 5:
            continue  # judged, not retrieved
        retrieved = rng.sample(docs, len(docs) // 2) + [f"u{q}_{i}" for i in range(3)]
        for doc in retrieved:  # unjudged documents too
            run.append((str(301 + q), doc, float(rng.randrange(4))))  # few distinct: ties
    run += [("399", "d1", 1.0), ("399", "d2", 0.5)]  # no judgments: not evaluated
    return (
        pd.DataFrame(qrels, columns=["group", "item", "label"]),
        pd.DataFrame(run, columns=["group", "item", "score"]),
    )


@pytest.mark.parametrize("seed", range(6))
def test_ir_measures_names_on_graded_tied_runs(seed: int) -> None:
    qrels, run = graded(seed)
    want = ir_values(NAMES, qrels, run)
    got = ours(NAMES, qrels, run)
    for name in NAMES:
        assert got[name] == pytest.approx(want[name], abs=1e-9), (seed, name)


def test_iprec_needs_trec_eval_9s_recall_rounding() -> None:
    """IPrec@p with trec_eval 10's lround(p R) (our default) is not ir_measures' value on
    these data: the IPrec names above test the rule, not a case where both rules agree.
    """
    iprec = [name for name in NAMES if name.startswith("IPrec")]
    differ = set()
    for qrels, run in [graded(seed) for seed in range(6)]:
        want = ir_values(iprec, qrels, run)
        frame = sqlmetrics.evaluate(
            run, iprec, qrels=qrels, convention="ir_measures", **COLS
        )  # the same call with trec_eval 10's rule is refused: ir_measures cannot produce it
        lround = sqlmetrics.evaluate(
            run, iprec, qrels=qrels, recall_rounding="trec_eval_10", ties="text_desc",
            empty="zero", missing="zero", **COLS,
        )  # fmt: skip
        for name in iprec:
            assert float(frame[name].iloc[0]) == pytest.approx(want[name], abs=1e-9)
            if abs(float(lround[name].iloc[0]) - want[name]) > 1e-6:
                differ.add(name)
    assert differ == set(iprec)


def test_rr_at_k_follows_msmarcos_tie_order_and_rr_pytrec_evals() -> None:
    """ir_measures computes RR@k with its msmarco provider (ties by docno ascending) and RR
    with pytrec_eval (descending): one tie decides which relevant document is first.
    """
    qrels = pd.DataFrame({"group": ["q", "q"], "item": ["a", "b"], "label": [1, 0]})
    run = pd.DataFrame({"group": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    want = ir_values(["RR", "RR@10"], qrels, run)
    assert want == {"RR": 0.5, "RR@10": 1.0}
    assert ours(["RR", "RR@10"], qrels, run) == want


def test_exp_log2_ndcg_is_gdevals_to_its_printed_precision() -> None:
    """nDCG(dcg='exp-log2')@k comes from gdeval in ir_measures, which prints 5 decimals."""
    qrels, run = graded(1)
    name = "nDCG(dcg='exp-log2')@10"
    want = ir_values([name], qrels, run)[name]
    got = ours([name], qrels, run)[name]
    assert got == pytest.approx(want, abs=1e-5)
    linear = ours(["nDCG@10"], qrels, run)["nDCG@10"]
    assert abs(got - linear) > 1e-3  # the gain formulation changes the value


def test_names_without_a_convention_fix_what_the_name_defines() -> None:
    """Without convention=, a name still fixes its own parameters (rel, nDCG's linear gain),
    the library defaults the rest; one call mixes them with our names.
    """
    qrels, run = graded(2)
    frame = sqlmetrics.evaluate(
        run, ["P(rel=2)@5", "P@5", "nDCG@10", "ndcg@10"], qrels=qrels, empty="zero", **COLS
    )
    p2 = sqlmetrics.precision_at_k(run, qrels=qrels, k=5, relevance_level=2, empty="zero", **COLS)
    p1 = sqlmetrics.precision_at_k(run, qrels=qrels, k=5, empty="zero", **COLS)
    linear = sqlmetrics.ndcg(run, qrels=qrels, k=10, gain="linear", empty="zero", **COLS)
    exponential = sqlmetrics.ndcg(run, qrels=qrels, k=10, empty="zero", **COLS)
    assert frame["P(rel=2)@5"][0] == pytest.approx(p2, abs=1e-12)
    assert frame["P@5"][0] == pytest.approx(p1, abs=1e-12)
    assert frame["nDCG@10"][0] == pytest.approx(linear, abs=1e-12)
    assert frame["ndcg@10"][0] == pytest.approx(exponential, abs=1e-12)
    assert p1 != p2 and linear != exponential


def test_parsed_names_map_onto_the_registry() -> None:
    assert parse_ir_name("P(rel=2)@5") == (REGISTRY["precision_at_k"], 5, {"relevance_level": 2})
    spec, k, options = parse_ir_name("IPrec@0.2")  # type: ignore[misc]
    assert (spec.name, k, options) == (
        "iprec_at_recall",
        None,
        {"relevance_level": 1, "recall_level": 0.2},
    )
    assert parse_ir_name("nDCG(dcg='exp-log2')@10")[2] == {  # type: ignore[index]
        "relevance_level": 1,  # pytrec_eval's nDCG runs at rel 1
        "gain": "exponential",
        "log_base": 2.0,
    }
    assert parse_metric("Success@5").spec.name == "hit_rate"
    assert parse_metric("R@1000").spec.name == "recall_at_k"
    assert parse_metric("ndcg@10").params == {}  # ours unchanged
    assert parse_ir_name("ndcg@10") is None  # not ir_measures' name


def test_trec_eval_names() -> None:
    cases = {
        ("precision_at_k", 10): "P_10",
        ("ndcg", 10): "ndcg_cut_10",
        ("ndcg", None): "ndcg",
        ("map", 10): "map_cut_10",
        ("map", None): "map",
        ("mrr", None): "recip_rank",
        ("hit_rate", 10): "success_10",
        ("recall_at_k", 100): "recall_100",
        ("r_precision", None): "Rprec",
        ("bpref", None): "bpref",
        ("mrr", 10): None,  # trec_eval's recip_rank takes no cut-off
        ("auc", None): None,
    }
    for (name, k), want in cases.items():
        assert trec_eval_name(REGISTRY[name], k) == want, name
    assert trec_eval_name(REGISTRY["iprec_at_recall"], None, {"recall_level": 0.2}) == (
        "iprec_at_recall_0.20"
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "P(rl=2)@5",
            "evaluate: metric 'P(rl=2)@5': P takes no parameter rl=; did you mean rel=? its "
            "parameters here: rel=, judged_only=; drop rl= or write e.g. 'P(rel=2)'",
        ),
        (
            "P(rel=0)@5",
            "evaluate: metric 'P(rel=0)@5': rel=0 must be an integer >= 1 (a document is "
            "relevant when its judgment is >= rel), e.g. 'P(rel=2)'",
        ),
        (
            "P(rel=1.5)@5",
            "evaluate: metric 'P(rel=1.5)@5': rel=1.5 must be an integer >= 1",
        ),
        ("Rprec@5", "evaluate: metric 'Rprec@5': Rprec takes no cut-off; write 'Rprec'"),
        (
            "IPrec@2",
            "evaluate: metric 'IPrec@2': the recall level after '@' must be a number in "
            "[0, 1], e.g. 'IPrec@0.2'",
        ),
        (
            "P@x",
            "evaluate: metric 'P@x': the cut-off after '@' must be an integer >= 1, e.g. 'P@10'",
        ),
        (
            "P(2)@5",
            "evaluate: metric 'P(2)@5': the parameters in parentheses must be name=value "
            "pairs separated by commas, e.g. 'P(rel=2)'",
        ),
        (
            "P(rel=x)@5",
            "evaluate: metric 'P(rel=x)@5': parameter value 'x' is not a literal; write "
            "numbers, quoted strings, True/False or a dict such as {0:0,1:1,2:3}",
        ),
        (
            "nDCG(dcg='exp')@10",
            "evaluate: metric \"nDCG(dcg='exp')@10\": dcg='exp' is not one of ir_measures' DCG "
            "formulations; write dcg='log2' (linear gains, the default) or dcg='exp-log2' "
            "(gains 2^rel - 1), e.g. \"nDCG(dcg='exp-log2')@10\"",
        ),
        (
            "RR(judged_only='yes')",
            "evaluate: metric \"RR(judged_only='yes')\": judged_only='yes' must be True or "
            "False, e.g. 'RR(judged_only=True)'",
        ),
    ],
)
def test_bad_parameters_name_the_name_the_parameter_and_the_fix(name: str, message: str) -> None:
    qrels, run = graded(0)
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.evaluate(run, [name], qrels=qrels, **COLS)
    assert str(info.value).startswith(message)


def test_unknown_names_suggest_the_closest_of_both_vocabularies() -> None:
    with pytest.raises(UnknownMetricError) as info:
        parse_metric("MAP@10")
    message = str(info.value)
    assert message.startswith(
        "evaluate: unknown metric 'MAP@10'; did you mean 'map@10' or 'AP@10'? known metrics: "
    )
    assert (
        "ir_measures' names: AP@k, Bpref, ERR@k, IPrec@recall, Judged@k, NumQ, NumRel, "
        "NumRelRet, NumRet, P@k, R@k, RR@k, Rprec, SetF, SetP, SetR, Success@k, infAP, nDCG@k"
        in message
    )
    with pytest.raises(UnknownMetricError, match=r"did you mean 'bpref'\?"):
        parse_metric("BPref")  # ours and ir_measures' differ in case only: ours
    with pytest.raises(UnknownMetricError, match=r"did you mean 'Rprec'\?"):
        parse_metric("RPrc")
    with pytest.raises(UnknownMetricError, match=r"did you mean 'Success@10'\?"):
        parse_metric("Sucess@10")


def test_an_option_conflicting_with_the_name_is_refused() -> None:
    qrels, run = graded(0)
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.evaluate(run, ["P@5"], qrels=qrels, relevance_level=2, **COLS)
    assert str(info.value) == (
        "evaluate: relevance_level=2 conflicts with metric 'P@5', whose name fixes "
        "relevance_level=1 (ir_measures' definition of P); write the parameter in the name "
        "(e.g. 'P(rel=2)@5', \"nDCG(dcg='exp-log2')@10\") or leave relevance_level= out"
    )
    # the same value is no conflict
    frame = sqlmetrics.evaluate(run, ["P@5"], qrels=qrels, relevance_level=1, empty="zero", **COLS)
    assert 0 < frame["P@5"][0] < 1


def test_render_takes_the_names_with_their_parameters() -> None:
    two = sqlmetrics.render("P(rel=2)@5", "runs", qrels="qrels", group="q", item="d")
    one = sqlmetrics.render("P@5", "runs", qrels="qrels", group="q", item="d")
    assert two != one
    assert two == sqlmetrics.render(
        "precision@5", "runs", qrels="qrels", group="q", item="d", relevance_level=2
    )


def test_the_convention_refuses_what_ir_measures_computes_otherwise() -> None:
    qrels, run = graded(0)
    with pytest.raises(InvalidParameterError, match="convention='ir_measures' does not define"):
        sqlmetrics.evaluate(run, ["11pt_avg"], qrels=qrels, convention="ir_measures", **COLS)


def test_compare_and_intervals_apply_the_names_parameters() -> None:
    """compare and ci= compute a name with the options it fixes, not the call's."""
    qrels, run = graded(3)
    other = run.assign(score=run["score"].rank(method="first"))
    result = sqlmetrics.compare(
        metrics=["P(rel=2)@5", "precision@5"],
        runs={"a": run, "b": other},
        qrels=qrels,
        empty="zero",
        **COLS,
    )
    ours_two = sqlmetrics.compare(
        metrics=["precision@5"],
        runs={"a": run, "b": other},
        qrels=qrels,
        empty="zero",
        relevance_level=2,
        **COLS,
    )
    named = result[result["metric"] == "P(rel=2)@5"].reset_index(drop=True)
    plain = result[result["metric"] == "precision@5"].reset_index(drop=True)
    want = ours_two.reset_index(drop=True)
    value_columns = [  # p_adjusted: corrected for the number of metrics compared
        c for c in want.columns if want[c].dtype.kind == "f" and c != "p_adjusted"
    ]
    assert value_columns
    pd.testing.assert_frame_equal(named[value_columns], want[value_columns])
    assert not named[value_columns].equals(plain[value_columns])
    frame = sqlmetrics.evaluate(run, ["P(rel=2)@5"], qrels=qrels, empty="zero", ci=0.9, **COLS)
    direct = sqlmetrics.precision_at_k(
        run, qrels=qrels, k=5, relevance_level=2, empty="zero", ci=0.9, **COLS
    )
    assert (frame["P(rel=2)@5_lo"][0], frame["P(rel=2)@5_hi"][0]) == pytest.approx(
        (direct.lo, direct.hi), abs=1e-12
    )


ENGINE_NAMES = ["P(rel=2)@5", "nDCG@10", "RR@10", "AP", "Success@5", "Bpref", "IPrec@0.6"]


@pytest.mark.postgres
def test_names_on_postgresql(pg_engine: Any) -> None:
    """Several kernel parts (rel=2, msmarco's tie order for RR@10) in one PostgreSQL
    statement: ir_measures' values.
    """
    qrels, run = graded(5)
    run.to_sql("ir_run", pg_engine, index=False, if_exists="replace")
    qrels.to_sql("ir_qrels", pg_engine, index=False, if_exists="replace")
    frame = sqlmetrics.evaluate(
        "ir_run", ENGINE_NAMES, qrels="ir_qrels", con=pg_engine, convention="ir_measures", **COLS
    )
    want = ir_values(ENGINE_NAMES, qrels, run)
    for name in ENGINE_NAMES:
        assert float(frame[name].iloc[0]) == pytest.approx(want[name], abs=1e-9), name


@pytest.mark.spark
def test_names_on_spark(spark: Any) -> None:
    qrels, run = graded(5)
    frame = sqlmetrics.evaluate(
        spark.createDataFrame(run),
        ENGINE_NAMES,
        qrels=spark.createDataFrame(qrels),
        con=spark,
        convention="ir_measures",
        **COLS,
    )
    want = ir_values(ENGINE_NAMES, qrels, run)
    for name in ENGINE_NAMES:
        assert float(frame[name].iloc[0]) == pytest.approx(want[name], abs=1e-9), name


def test_the_functions_take_the_convention_with_its_cut_off_rule() -> None:
    """mrr(k=...) under convention="ir_measures" is ir_measures' RR@k (msmarco's ascending
    tie order), mrr without k its RR (pytrec_eval's descending order).
    """
    qrels = pd.DataFrame({"group": ["q", "q"], "item": ["a", "b"], "label": [1, 0]})
    run = pd.DataFrame({"group": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    kw = {"qrels": qrels, "convention": "ir_measures", **COLS}
    assert sqlmetrics.mrr(run, k=10, **kw) == 1.0
    assert sqlmetrics.mrr(run, **kw) == 0.5
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.mrr(run, k=10, ties="text_desc", **kw)
    assert str(info.value) == (
        "mrr: ties='text_desc' cannot be reproduced with convention='ir_measures': ir_measures "
        "uses ties='item_asc'. Leave ties= out to follow ir_measures, or drop convention="
    )


def test_a_gain_fixed_by_the_name_is_checked_for_overflow() -> None:
    """nDCG(dcg='exp-log2') under a linear-gain convention still has 2^label - 1 gains: a
    label of 1000 overflows, and is refused as with gain='exponential' (it was inf/NaN).
    """
    qrels = pd.DataFrame({"group": ["1", "1"], "item": ["a", "b"], "label": [1000, 1]})
    run = pd.DataFrame({"group": ["1", "1"], "item": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(InvalidDataError, match="overflow a double"):
        sqlmetrics.evaluate(
            run, ["nDCG(dcg='exp-log2')@10"], qrels=qrels, convention="ir_measures", **COLS
        )
    frame = sqlmetrics.evaluate(run, ["nDCG@10"], qrels=qrels, convention="ir_measures", **COLS)
    assert frame["nDCG@10"][0] == pytest.approx(1.0, abs=1e-12)  # linear gains: no overflow


def test_error_policies_refuse_metrics_computed_on_other_options() -> None:
    """empty='error' reads the groups of the call's options; P(rel=3)@5 has other empty
    groups, so the pair is refused rather than checked on the wrong groups.
    """
    qrels, run = graded(0)
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.evaluate(run, ["precision@5", "P(rel=3)@5"], qrels=qrels, empty="error", **COLS)
    assert str(info.value) == (
        "evaluate: empty='error' is checked on the groups of one set of options, and "
        "'P(rel=3)@5' fix other options in their names (another relevance level, gain or tie "
        "order); evaluate them in a separate call, or pass empty='skip' or 'zero'"
    )
    with pytest.raises(InvalidDataError, match="no relevant item"):  # alone: checked
        sqlmetrics.evaluate(run, ["P(rel=3)@5"], qrels=qrels, empty="error", **COLS)


def test_render_on_the_command_line_keeps_the_names_case() -> None:
    """The command line lower-cases our names only: render (and compare) take ir_measures'."""
    from click.testing import CliRunner

    from sqlmetrics import cli

    shown = CliRunner().invoke(
        cli.main, ["render", "P(rel=2)@5", "--qrels", "qrels", "--group", "q", "--item", "d"]
    )
    assert shown.exit_code == 0, shown.output
    assert (
        shown.output.strip()
        == sqlmetrics.render(
            "precision@5", "source_table", qrels="qrels", group="q", item="d", relevance_level=2
        ).strip()
    )


#: issue 27's example names, as the issue writes them
ISSUE_NAMES = [
    "nDCG@10",
    "P(rel=2)@5",
    "AP@100",
    "RR(rel=2)",
    "R@1000",
    "Judged@10",
    "ERR@20",
    "infAP",
    "Bpref",
    "Rprec",
    "SetP",
    "SetR",
    "SetF",
    "NumRel",
    "NumRet",
    "NumRelRet",
    "NumQ",
    "IPrec@0.2",
    "Success@5",
    "nDCG(dcg='exp-log2')",
    "nDCG(gains={0:0,1:1,2:3})",
]
#: ir_measures reads ERR@k from gdeval, which prints 5 decimals (compared to gdeval itself at
#: full precision in tests/test_ir_measures.py::test_err_equals_gdeval_at_full_precision)
GDEVAL_NAMES = {"ERR@20"}
#: ir_measures computes nDCG(dcg='exp-log2') without a cut-off with ranx, which fails when a
#: judged query is absent from the run (and, under pandas 3, unless string ids are objects)
#: and orders equal scores by the run's input order, which SQL cannot reproduce
RANX_NAMES = {"nDCG(dcg='exp-log2')"}
#: NumQ and NumRel skip a judged query absent from the run here (ir_measures counts it 0,
#: which adds nothing to a count): a call of their own
OWN_CALL = ["NumQ", "NumRel"]


def ir_values_as_asked(
    names: list[str], qrels: pd.DataFrame, run: pd.DataFrame
) -> dict[str, float]:
    """ir_measures' value of each name asked alone, as a user asking for it gets it: in one
    call its pytrec_eval provider puts nDCG without gains= into whichever invocation comes
    first, which may be a rel=2 one, and NumRet into a judged-only one. ranx's names with
    string ids as objects (its ranx provider asserts that dtype, which pandas 3 no longer
    infers)."""
    out = {}
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas' deprecation of the option
            with pd.option_context("future.infer_string", name not in RANX_NAMES):
                out.update(ir_values([name], qrels, run))
    return out


def issue_source(source: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run): trec_eval's test collection (its graded judgments, 500 documents a topic)
    or a graded run with tied scores, unretrieved relevant documents, a query without a
    relevant document, a judged query absent from the run and unjudged documents."""
    if source == "trec_eval":
        qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.rel_level")
        return qrels, sqlmetrics.read_trec_run(TREC / "results.test")
    return graded(int(source.removeprefix("graded")))


@pytest.mark.parametrize("source", ["trec_eval", "graded2", "graded5"])
def test_every_name_of_issue_27_gives_ir_measures_value(source: str) -> None:
    """Each example name of issue 27 under convention="ir_measures", in one evaluate call
    (NumQ and NumRel in a second), against ir_measures itself, to 1e-9 (gdeval's ERR to its 5
    printed decimals). ranx's nDCG(dcg='exp-log2'): the next test (numba compiles ranx).
    """
    qrels, run = issue_source(source)
    batched = [name for name in ISSUE_NAMES if name not in OWN_CALL]
    frame = sqlmetrics.evaluate(run, batched, qrels=qrels, convention="ir_measures", **COLS)
    got = {name: float(frame[name].iloc[0]) for name in batched}
    counts = sqlmetrics.evaluate(run, OWN_CALL, qrels=qrels, convention="ir_measures", **COLS)
    got.update({name: float(counts[name].iloc[0]) for name in OWN_CALL})
    assert set(got) == set(ISSUE_NAMES)
    asked = [name for name in ISSUE_NAMES if name not in RANX_NAMES]
    want = ir_values_as_asked(asked, qrels, run)
    for name in asked:
        tolerance = 5e-6 + 1e-12 if name in GDEVAL_NAMES else 1e-9
        assert got[name] == pytest.approx(want[name], abs=tolerance), (source, name)
    assert len({round(v, 6) for v in want.values()}) > 15  # the names differ in value


@pytest.mark.slow
def test_ranxs_exp_log2_ndcg_name_gives_ir_measures_value() -> None:
    """nDCG(dcg='exp-log2') without a cut-off, which ir_measures computes with ranx: on
    trec_eval's collection as it is; on the graded run with its ties broken (ranx orders
    equal scores by the run's input order) and on the queries both hold, the absent one
    adding 0 (ir_measures' rule; its ranx provider refuses a run lacking a judged query).
    """
    name = "nDCG(dcg='exp-log2')"
    qrels, run = issue_source("trec_eval")
    want = ir_values_as_asked([name], qrels, run)[name]
    got = sqlmetrics.evaluate(run, [name], qrels=qrels, convention="ir_measures", **COLS)
    assert float(got[name].iloc[0]) == pytest.approx(want, abs=1e-9)
    qrels, run = issue_source("graded2")
    untied = run.assign(score=run["score"] + [i / 1e4 for i in range(len(run))])
    both = set(qrels["group"]) & set(untied["group"])
    assert len(both) < qrels["group"].nunique()
    present = ir_values_as_asked(
        [name], qrels[qrels["group"].isin(both)], untied[untied["group"].isin(both)]
    )
    want = present[name] * len(both) / qrels["group"].nunique()
    got = sqlmetrics.evaluate(untied, [name], qrels=qrels, convention="ir_measures", **COLS)
    assert float(got[name].iloc[0]) == pytest.approx(want, abs=1e-9)


def test_ranxs_order_of_long_ties_is_warned_under_the_ir_measures_convention() -> None:
    """ir_measures takes nDCG(dcg='exp-log2') without a cut-off from ranx, whose order of
    equal scores in lists over 15 items SQL cannot reproduce: a TieOrderWarning names that
    name (and no name that pytrec_eval or gdeval computes), only where such ties exist.
    """
    rows = [
        (f"q{q}", f"d{i:02d}", float(i // 5), (i * 7 + q) % 3) for q in range(3) for i in range(20)
    ]
    run = pd.DataFrame(rows, columns=["group", "item", "score", "label"])
    names = ["nDCG(dcg='exp-log2')", "nDCG(dcg='exp-log2')@10", "nDCG"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sqlmetrics.evaluate(run, names, convention="ir_measures", **COLS)
    ties = [str(w.message) for w in caught if issubclass(w.category, sqlmetrics.TieOrderWarning)]
    assert len(ties) == 1
    assert ties[0].startswith("evaluate: nDCG(dcg='exp-log2'): 3 group(s) have equal scores")
    untied = run.assign(score=[float(i) for i in range(len(run))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", sqlmetrics.TieOrderWarning)
        sqlmetrics.evaluate(untied, names, convention="ir_measures", **COLS)
        sqlmetrics.evaluate(run, names[1:], convention="ir_measures", **COLS)


#: one name per ir_measures provider and tie order (issue 39): pytrec_eval (trec_eval's order,
#: docno descending as text), msmarco's RR@k and the judged provider's Judged@k (docno
#: ascending, ``key=(-score, doc_id)``), gdeval's ERR@k and nDCG(dcg='exp-log2')@k (docno
#: descending as text); the names whose value ignores the order of ties are here too, so that
#: every measure ir_measures names is checked (ranx's nDCG(dcg='exp-log2'): see above)
TIED_NAMES = [
    "P@5", "P(rel=2)@3", "R@5", "AP", "AP@5", "RR", "RR@5", "RR(rel=2)@3", "Rprec",
    "Success@3", "nDCG", "nDCG@5", "nDCG(gains={0:0,1:1,2:3,3:5})@5", "Bpref", "infAP",
    "IPrec@0.3", "Judged@3", "Judged@5", "Judged@10", "Judged", "ERR@5", "ERR@10",
    "nDCG(dcg='exp-log2')@5", "SetP", "SetR", "SetF", "NumRet", "NumRelRet",
]  # fmt: skip
GDEVAL_TIED = {"ERR@5", "ERR@10", "nDCG(dcg='exp-log2')@5"}


@pytest.mark.parametrize("seed", range(4))
def test_every_provider_s_tie_order_is_ir_measures_own(seed: int) -> None:
    """convention="ir_measures" orders equal scores as the provider ir_measures computes each
    name with (issue 39: Judged@10 was 0.6817 against ir_measures' 0.6933 with trec_eval's
    order): on graded runs whose scores are tied, against ir_measures itself."""
    qrels, run = graded(seed)
    covered = {parse_metric(n).spec.ir_measures for n in [*TIED_NAMES, *OWN_CALL, *RANX_NAMES]}
    assert covered == {s.ir_measures for s in REGISTRY.values() if s.ir_measures}
    want = ir_values_as_asked(TIED_NAMES, qrels, run)
    frame = sqlmetrics.evaluate(run, TIED_NAMES, qrels=qrels, convention="ir_measures", **COLS)
    for name in TIED_NAMES:
        tolerance = 5e-6 + 1e-12 if name in GDEVAL_TIED else 1e-9
        assert float(frame[name].iloc[0]) == pytest.approx(want[name], abs=tolerance), name


def test_the_tied_runs_tell_the_tie_orders_apart() -> None:
    """The runs above separate docno ascending from descending for each provider's names that
    depend on the order (else the test above could not fail)."""
    for name in ("Judged@3", "RR@5", "P@5", "ERR@5"):
        differ = []
        for qrels, run in [graded(seed) for seed in range(4)]:
            values = {
                ties: float(
                    sqlmetrics.evaluate(run, [name], qrels=qrels, ties=ties, empty="zero", **COLS)[
                        name
                    ].iloc[0]
                )
                for ties in ("text_desc", "item_asc")
            }
            differ.append(abs(values["text_desc"] - values["item_asc"]) > 1e-4)
        assert any(differ), name


def _declared(base: str) -> set[str]:
    """ir_measures' declared parameters of measure ``base``, without the cut-off."""
    measure = getattr(ir_measures.measures, base)
    return set(measure.SUPPORTED_PARAMS) - {"cutoff", "recall"}


def test_the_names_take_exactly_ir_measures_declared_parameters() -> None:
    """A parameter ir_measures declares for a measure is taken where ours has the option it
    sets; one it does not declare is refused (issue 39: ERR(rel=2)@5 changed the value
    though ir_measures refuses rel= on ERR), for every measure and parameter."""
    from sqlmetrics._core.ir_names import IR_DECLARED, IR_PARAMS

    values = {"rel": 2, "dcg": "'exp-log2'", "gains": "{0:0,1:1,2:3}", "judged_only": True}
    values["beta"] = 2.0
    checked = 0
    for base, spec in parse_ir_names_specs().items():
        assert set(IR_DECLARED[base]) == _declared(base) & set(IR_PARAMS), base
        cut = "@5" if spec.takes_k else "@0.2" if "recall_level" in spec.params else ""
        for param, ours_option in IR_PARAMS.items():
            name = f"{base}({param}={values[param]}){cut}"
            takes = param in _declared(base) and ours_option in spec.params
            if takes:
                parse_metric(name)  # accepted
            else:
                with pytest.raises(InvalidParameterError, match=rf"{base} takes no parameter"):
                    parse_metric(name)
                checked += 1
                if param in _declared(base):
                    continue
                with pytest.raises(AssertionError, match="unsupported params"):
                    ir_measures.parse_measure(name).validate_params()
    assert checked > 20


def parse_ir_names_specs() -> dict[str, Any]:
    from sqlmetrics._core.ir_names import ir_names

    return ir_names()


def test_err_with_rel_is_refused_naming_what_it_takes() -> None:
    with pytest.raises(InvalidParameterError) as caught:
        parse_metric("ERR(rel=2)@5")
    assert str(caught.value) == (
        "evaluate: metric 'ERR(rel=2)@5': ERR takes no parameter rel= (ir_measures' ERR does "
        "not declare it); its parameters here: none; drop rel= or write e.g. 'ERR'"
    )
