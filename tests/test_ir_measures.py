"""The IR measures of issue 27 (err, infap, judged, set_precision, set_recall, set_f, num_q,
num_rel, num_ret, num_rel_ret; ndcg's gains=; judged_only= on every ranking metric):
trec_eval's own test suite, ir_measures itself (a test dependency) on trec_eval's test
collection and on a graded run with tied scores and unretrieved relevant documents, gdeval's
ERR at full precision, the naive oracle (tests/oracle/ir.py) with tied scores, and every error
message.

Tie order: each comparison sets ties= to the order of the ir_measures provider it checks
(pytrec_eval / trec_eval and gdeval: docno descending as text, ``ties="text_desc"``; the
judged provider: docno ascending, ``ties="item_asc"``); the docnos of the graded run have one
length, so text and natural order agree, and its scores are multiples of 1/4 in [0, 1.25]:
ties within and across every cut-off, so a wrong tie order shows.
"""

from __future__ import annotations

import math
import pkgutil
import re
import subprocess
import warnings
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from hypothesis import given
from hypothesis import strategies as st
from ir_measures import (
    AP,
    ERR,
    Judged,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    SetF,
    SetP,
    SetR,
    infAP,
    nDCG,
)
from oracle import ir as oir
from test_ranking import ranking_frames

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"
NEW = ("err", "infap", "judged", "set_precision", "set_recall", "set_f", *oir.COUNTS)
MEANS = tuple(n for n in NEW if n not in oir.COUNTS)
COLS = {"group": "query_id", "item": "doc_id", "label": "relevance"}
# the 5 decimals gdeval prints (ir_measures reads them back)
GDEVAL_DECIMALS = 5e-6 + 1e-12


def graded_collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run of 8 queries (3-24 documents, scores k/4: heavy ties) and graded judgments 0-4
    covering ~70 % of the retrieved documents (the rest unjudged) plus two unretrieved
    documents per query (often relevant); query 5 has no relevant document (empty) and query
    9 is judged but absent from the run (missing)."""
    rng = np.random.default_rng(27)
    run, qrels = [], []
    for q in range(1, 9):
        n = int(rng.integers(3, 25))
        for j in range(n):
            run.append((str(q), f"d{j:02d}", float(rng.integers(0, 6)) / 4))
        for j in [*range(n), 40, 41]:
            if rng.random() < 0.7:
                label = int(rng.choice([0, 0, 1, 2, 3, 4])) if q != 5 else 0
                qrels.append((str(q), f"d{j:02d}", label))
    qrels.append(("9", "d00", 2))
    return (
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
    )


def trec_collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    run = sqlmetrics.read_trec_run(TREC / "results.test")
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.test")
    return (
        run.rename(columns={"group": "query_id", "item": "doc_id"})[
            ["query_id", "doc_id", "score"]
        ],
        qrels.rename(columns={"group": "query_id", "item": "doc_id", "label": "relevance"}),
    )


def per_query(measures: list[Any], run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, Any]:
    """ir_measures' per-query values: measure name -> {query: value}."""
    out: dict[str, dict[str, float]] = {}
    qrels = qrels.assign(relevance=qrels["relevance"].astype(int))
    for m in ir_measures.iter_calc(measures, qrels, run):
        out.setdefault(str(m.measure), {})[str(m.query_id)] = float(m.value)
    return out


def ours_per_query(
    run: pd.DataFrame, qrels: pd.DataFrame, name: str, **options: Any
) -> dict[str, float]:
    """Our per-query values (by= the query column) with ir_measures' rules: a judged query
    with no relevant document counts (empty='zero'), one absent from the run counts 0
    (missing='zero'); its own query in its own slice."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        frame = sqlmetrics.evaluate(
            run, [name], by="query_id", qrels=qrels, empty="zero", missing="zero",
            **COLS, **options,
        )  # fmt: skip
    return {str(g): float(v) for g, v in zip(frame["query_id"], frame[name])}


# (ours, options, ir_measures' measure); pytrec_eval's ties: docno descending as text
PYTREC = [
    ("infap", {"ties": "text_desc"}, infAP),
    ("set_precision", {}, SetP),
    ("set_recall", {}, SetR),
    ("set_f", {}, SetF),
    ("num_rel_ret", {}, NumRelRet),
    ("num_ret", {}, NumRet),
    ("num_q", {}, NumQ),
    ("num_rel", {}, NumRel),
    ("ndcg@10", {"ties": "text_desc", "gains": {0: 0, 1: 1, 2: 3, 3: 3, 4: 10}},
     nDCG(gains={0: 0, 1: 1, 2: 3, 3: 3, 4: 10}) @ 10),
    ("ndcg@5", {"ties": "text_desc", "gain": "linear", "judged_only": True},
     nDCG(judged_only=True) @ 5),
    ("map", {"ties": "text_desc", "judged_only": True}, AP(judged_only=True)),
    ("precision@5", {"ties": "text_desc", "judged_only": True}, P(judged_only=True) @ 5),
    ("judged@5", {"ties": "item_asc"}, Judged @ 5),
    ("judged@10", {"ties": "item_asc"}, Judged @ 10),
]  # fmt: skip


@pytest.mark.parametrize("collection", ["trec", "graded"])
@pytest.mark.parametrize(
    ("name", "options", "measure"), PYTREC, ids=[p[0] + str(i) for i, p in enumerate(PYTREC)]
)
def test_per_query_values_equal_ir_measures(
    collection: str, name: str, options: dict[str, Any], measure: Any
) -> None:
    """Every query ir_measures reports (the missing query 9 as 0), to 1e-9; the counts are
    ir_measures' per-query counts (its summary sums them: test_counts_sum_as_ir_measures)."""
    run, qrels = trec_collection() if collection == "trec" else graded_collection()
    want = per_query([measure], run, qrels)[str(measure)]
    got = ours_per_query(run, qrels, name, **options)
    if name in ("num_q", "num_rel"):
        # ir_measures reports a query the run lacks as 0 where trec_eval -c counts it (1 query,
        # its relevant documents): our missing='zero' is trec_eval's -c
        want = {q: v for q, v in want.items() if q in set(run["query_id"])}
        got = {q: v for q, v in got.items() if q in set(run["query_id"])}
    assert want.keys() == got.keys()
    assert len(want) >= 3
    bad = {q: (got[q], v) for q, v in want.items() if not abs(got[q] - v) <= 1e-9}
    assert not bad, bad


def test_counts_sum_as_ir_measures() -> None:
    """ir_measures' summary of NumQ, NumRel, NumRet, NumRelRet is the sum over the queries it
    evaluated (its SumAgg), the judged queries of the run: missing='skip' (a query absent from
    the run adds 0), empty='zero' (one without a relevant document is a query)."""
    run, qrels = graded_collection()
    measures = [NumQ, NumRel, NumRet, NumRelRet]
    want = ir_measures.calc_aggregate(measures, qrels, run)
    names = ["num_q", "num_rel", "num_ret", "num_rel_ret"]
    got = sqlmetrics.evaluate(run, names, qrels=qrels, empty="zero", **COLS).iloc[0]
    assert [got[n] for n in names] == [want[m] for m in measures] == [8, 55, 113, 49]


def test_means_equal_ir_measures_aggregate() -> None:
    """The summary of the means: ir_measures averages over the judged queries, a query absent
    from the run counting 0 (missing='zero', empty='zero')."""
    run, qrels = graded_collection()
    measures = [infAP, SetP, SetR, SetF, Judged @ 5]
    want = ir_measures.calc_aggregate(measures, qrels, run)
    names = ["infap", "set_precision", "set_recall", "set_f"]
    got = sqlmetrics.evaluate(
        run, names, qrels=qrels, empty="zero", missing="zero", ties="text_desc", **COLS
    ).iloc[0]
    for n, m in zip(names, measures):
        assert abs(got[n] - want[m]) <= 1e-9, n
    judged = sqlmetrics.judged(
        run, k=5, qrels=qrels, empty="zero", missing="zero", ties="item_asc", **COLS
    )
    assert abs(judged - want[Judged @ 5]) <= 1e-9


@pytest.mark.parametrize("collection", ["trec", "graded"])
def test_err_equals_ir_measures_to_gdevals_decimals(collection: str) -> None:
    """ERR@k through ir_measures (its gdeval provider prints 5 decimals): per query."""
    run, qrels = trec_collection() if collection == "trec" else graded_collection()
    for k in (5, 20):
        want = per_query([ERR @ k], run, qrels)[str(ERR @ k)]
        got = ours_per_query(run, qrels, f"err@{k}", ties="text_desc")
        assert want.keys() == got.keys()
        bad = {q: (got[q], v) for q, v in want.items() if not abs(got[q] - v) <= GDEVAL_DECIMALS}
        assert not bad, (k, bad)
    assert max(want.values()) > 0.1


def test_err_equals_gdeval_at_full_precision(tmp_path: Path) -> None:
    """gdeval.pl as ir_measures ships it, its printf widened from %.5f to %.17g: the same
    per-query ERR@k to 1e-9 on the graded run (queries with a relevant judgment: gdeval's)."""
    source = pkgutil.get_data("ir_measures", "bin/gdeval.pl")
    assert source is not None
    script = source.decode().replace('"$runid,$topicCurrent,%.5f,%.5f\\n"',
                                     '"$runid,$topicCurrent,%.17g,%.17g\\n"')  # fmt: skip
    assert "%.17g,%.17g" in script
    (tmp_path / "gdeval.pl").write_text(script)
    run, qrels = graded_collection()
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False))
    )
    (tmp_path / "run").write_text(
        "".join(
            f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(run.itertuples(index=False))
        )
    )
    for k in (3, 10, 1000):
        out = subprocess.run(
            ["perl", str(tmp_path / "gdeval.pl"), str(tmp_path / "qrels"), str(tmp_path / "run"),
             str(k)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        want = {line.split(",")[1]: float(line.split(",")[3]) for line in out.splitlines()[1:]}
        assert len(want) == 7  # the queries with a relevant judgment and a run
        frame = quiet(
            sqlmetrics.evaluate,
            run, [f"err@{k}"], by="query_id", qrels=qrels, ties="text_desc", empty="skip", **COLS,
        )  # fmt: skip
        # query 5 (no relevant judgment) is its own slice, with no group left: NaN
        got = {str(g): float(v) for g, v in zip(frame["query_id"], frame[f"err@{k}"]) if v == v}
        assert got.keys() == want.keys()
        bad = {q: (got[q], v) for q, v in want.items() if not abs(got[q] - v) <= 1e-9}
        assert not bad, (k, bad)


# ----------------------------------------------------------------------------- trec_eval
TREC_MEASURES = {
    "infAP": "infap",
    "set_P": "set_precision",
    "set_recall": "set_recall",
    "set_F": "set_f",
    "num_q": "num_q",
    "num_rel": "num_rel",
    "num_ret": "num_ret",
    "num_rel_ret": "num_rel_ret",
}
CASES = {
    "out.test.aq": ("qrels.test", "results.test", {}),
    # topic 303 of qrels.rel_level holds trec_eval's "pooled but not judged" label -1, which
    # infAP alone reads (it has no form here: labels are >= 0, read_trec_qrels reads -1 as 0,
    # judged non-relevant); its infAP of 303 and "all" are left out, the rest compared
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_conformance(case: str) -> None:
    """trec_eval's own suite, per topic (-q) and `all`, to its 4 decimals (counts exactly);
    the spec's trec_eval name is the measure's."""
    qrels_file, run_file, options = CASES[case]
    qrels = sqlmetrics.read_trec_qrels(TREC / qrels_file)
    run = sqlmetrics.read_trec_run(TREC / run_file)
    assert {REGISTRY[n].trec_eval for n in TREC_MEASURES.values()} == set(TREC_MEASURES)
    expected = {}
    for line in (TREC / case).read_text().splitlines():
        measure, topic, value = re.split(r"\s+", line.strip())
        if measure in TREC_MEASURES and not (
            case == "out.test.aql" and measure == "infAP" and topic in ("303", "all")
        ):
            expected[(measure, topic)] = float(value)
    names = sorted(set(TREC_MEASURES.values()))
    kwargs = {"group": "group", "item": "item", "qrels": qrels, "empty": "zero",
              "ties": "text_desc", **options}  # fmt: skip
    per_topic = sqlmetrics.evaluate(run, names, by="group", **kwargs)
    overall = sqlmetrics.evaluate(run, names, **kwargs).iloc[0]
    got = {(m, "all"): float(overall[n]) for m, n in TREC_MEASURES.items()}
    for _, row in per_topic.iterrows():
        got.update({(m, str(row["group"])): float(row[n]) for m, n in TREC_MEASURES.items()})
    bad = [
        (key, got.get(key), v)
        for key, v in sorted(expected.items())
        if not abs(got.get(key, math.nan) - v) <= 5e-5 + 1e-12
    ]
    assert not bad, bad
    assert len(expected) >= 24


# ----------------------------------------------------------------------------- the oracle
@st.composite
def judged_runs(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A tied graded run and judgments holding some of its items (the rest unjudged), some
    unretrieved items (relevant or not) and, at times, a group the run lacks."""
    run = draw(ranking_frames())
    rows = []
    for n, (g, i, _, y) in enumerate(run.itertuples(index=False)):
        if n == 0 or draw(st.booleans()) or draw(st.booleans()):  # one judged row at least
            rows.append((g, i, y))
    for g in sorted(set(run["g"])) + ([99] if draw(st.booleans()) else []):
        for j in range(draw(st.integers(0, 2))):
            rows.append((g, f"x{j}", float(draw(st.sampled_from([0, 1, 2, 4])))))
    return run.drop(columns="y"), pd.DataFrame(rows, columns=["g", "i", "y"])


ORACLE_COLS = {"group": "g", "item": "i", "score": "s", "label": "y"}


def _ours(name: str, run: pd.DataFrame, **options: Any) -> float:
    kwargs = {**ORACLE_COLS, **options}
    if name.startswith("num_"):
        kwargs.pop("empty", None) if options.get("empty") == "one" else None
    return float(quiet(getattr(sqlmetrics, REGISTRY[name].function), run, **kwargs))


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(1.0, abs(b))


@given(
    frame=ranking_frames(),
    name=st.sampled_from(NEW),
    ties=st.sampled_from(["item_desc", "item_asc", "average"]),
    empty=st.sampled_from(["skip", "zero"]),
    k=st.sampled_from([1, 2, 4]),
)
def test_oracle_without_qrels(
    frame: pd.DataFrame, name: str, ties: str, empty: str, k: int
) -> None:
    if ties == "average" and name in oir.NO_AVERAGE:
        ties = "item_asc"
    options: dict[str, Any] = {"ties": ties, "empty": empty}
    if REGISTRY[name].takes_k:
        options["k"] = k
    want = oir.metric(name, [tuple(r) for r in frame.itertuples(index=False)], **options)
    assert _close(_ours(name, frame, **options), want)


@given(
    data=judged_runs(),
    name=st.sampled_from(NEW),
    ties=st.sampled_from(["item_desc", "item_asc"]),
    empty=st.sampled_from(["skip", "zero"]),
    missing=st.sampled_from(["skip", "zero"]),
    judged_only=st.booleans(),
    level=st.sampled_from([1, 2]),
)
def test_oracle_with_qrels(
    data: tuple[pd.DataFrame, pd.DataFrame],
    name: str,
    ties: str,
    empty: str,
    missing: str,
    judged_only: bool,
    level: int,
) -> None:
    run, qrels = data
    options: dict[str, Any] = {
        "ties": ties, "empty": empty, "missing": missing, "judged_only": judged_only,
        "relevance_level": level,
    }  # fmt: skip
    if REGISTRY[name].takes_k:
        options["k"] = 3
    rows = [(g, i, s, None) for g, i, s in run.itertuples(index=False)]
    judged = [tuple(r) for r in qrels.itertuples(index=False)]
    want = oir.metric(name, rows, qrels=judged, **options)
    assert _close(_ours(name, run, qrels=qrels, **options), want), (want, options)


@given(data=judged_runs(), ties=st.sampled_from(["item_desc", "text_desc"]))
def test_judged_only_is_the_run_without_its_unjudged_items_for_every_ranking_metric(
    data: tuple[pd.DataFrame, pd.DataFrame], ties: str
) -> None:
    """The condensed list (Sakai 2007) is a filter before ranking: judged_only=True on the
    run equals judged_only=False on the run's judged rows, for every ranking-kernel metric of
    the registry in one statement (a group left with no item is missing in both)."""
    run, qrels = data
    names = [
        f"{n.removesuffix('_at_k')}@2" if s.takes_k else n
        for n, s in sorted(REGISTRY.items())
        if s.kernel == "ranking_kernel"
    ]
    kept = run.merge(qrels[["g", "i"]], on=["g", "i"])
    options = {"group": "g", "item": "i", "score": "s", "label": "y", "qrels": qrels,
               "ties": ties, "empty": "zero", "missing": "zero"}  # fmt: skip
    condensed = quiet(sqlmetrics.evaluate, run, names, judged_only=True, **options)
    filtered = quiet(sqlmetrics.evaluate, kept, names, **options)
    for n in names:
        assert _close(float(condensed[n].iloc[0]), float(filtered[n].iloc[0])), n


@given(
    frame=ranking_frames(),
    gains=st.dictionaries(
        st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0, 3.0, 7.0]), min_size=1
    ),
    k=st.sampled_from([None, 1, 3]),
    ties=st.sampled_from(["item_desc", "item_asc"]),
)
def test_ndcg_gains_equal_the_oracle(
    frame: pd.DataFrame, gains: dict[int, float], k: int | None, ties: str
) -> None:
    rows = [tuple(r) for r in frame.itertuples(index=False)]
    want = oir.metric("ndcg", rows, k=k, ties=ties, empty="zero", gains=gains)
    got = quiet(sqlmetrics.ndcg, frame, k=k, ties=ties, empty="zero", gains=gains, **ORACLE_COLS)
    assert _close(got, want)


def test_gains_of_the_two_built_in_forms_give_their_values() -> None:
    """gains={l: 2^l - 1} is gain='exponential' and gains={l: l} gain='linear', on dcg, idcg
    and ndcg; a level missing from the map keeps its label as gain (linear)."""
    run, qrels = graded_collection()
    for fn in (sqlmetrics.ndcg, sqlmetrics.dcg, sqlmetrics.idcg, sqlmetrics.cg):
        kwargs = {"qrels": qrels, "empty": "zero", **COLS}
        exp = fn(run, gains={lv: 2.0**lv - 1 for lv in range(5)}, **kwargs)
        assert exp == pytest.approx(fn(run, gain="exponential", **kwargs), rel=1e-12)
        assert fn(run, gains={0: 0}, **kwargs) == pytest.approx(
            fn(run, gain="linear", **kwargs), rel=1e-12
        )


def test_a_gain_map_reorders_the_ideal_list() -> None:
    """A map that ranks level 1 above level 2 orders the ideal list by gain (trec_eval)."""
    run = pd.DataFrame({"g": [1, 1], "i": ["a", "b"], "s": [2.0, 1.0], "y": [2.0, 1.0]})
    gains = {1: 5.0, 2: 1.0}
    ideal = 5.0 + 1.0 / math.log2(3)
    got = sqlmetrics.ndcg(run, gains=gains, **ORACLE_COLS)
    assert got == pytest.approx((1.0 + 5.0 / math.log2(3)) / ideal, rel=1e-12)


def test_infap_is_ap_within_the_epsilon_when_everything_is_judged() -> None:
    run, qrels = trec_collection()
    everything = run.merge(qrels, on=["query_id", "doc_id"], how="left").fillna({"relevance": 0})
    kwargs = {"empty": "zero", "ties": "text_desc", **COLS}
    infap = sqlmetrics.infap(everything, **kwargs)
    ap = sqlmetrics.mean_average_precision(everything, **kwargs)
    assert infap != ap and abs(infap - ap) <= 2e-5


# ----------------------------------------------------------------------------- errors
@pytest.fixture(scope="module")
def tiny() -> pd.DataFrame:
    return pd.DataFrame({"g": [1, 1, 2], "i": ["a", "b", "a"], "s": [0.5, 0.2, 0.1],
                         "y": [1.0, 0.0, 5.0]})  # fmt: skip


@pytest.mark.parametrize(
    ("gains", "message"),
    [
        ([0, 1], r"ndcg: gains= must be a non-empty mapping of relevance level -> gain, e\.g\. "
                 r"gains=\{0: 0, 1: 1, 2: 3\} \(trec_eval's gain map\), or None for gain=; "
                 r"got \[0, 1\]"),
        ({}, r"gains= must be a non-empty mapping .*; got \{\}"),
        ({1.5: 1}, r"ndcg: gains= levels must be integers \(the labels' relevance levels\), "
                   r"e\.g\. .*; got the level 1\.5"),
        ({True: 1}, r"levels must be integers .*; got the level True"),
        ({1: float("inf")}, r"ndcg: gains= gains must be finite numbers, e\.g\. .*; got inf "
                            r"for level 1"),
        ({1: "3"}, r"gains must be finite numbers, .*; got '3' for level 1"),
        ({2**60: 1}, r"levels must lie within \+-2\^53 \(exact as doubles\)"),
    ],
)  # fmt: skip
def test_bad_gains_are_named(tiny: pd.DataFrame, gains: Any, message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.ndcg(tiny, gains=gains, **ORACLE_COLS)


def test_judged_only_must_be_a_boolean(tiny: pd.DataFrame) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"map: judged_only= must be True or False \(True: with qrels=, the run's items "
        r"absent from the judgments are removed before ranking, trec_eval -J\); got 'yes'",
    ):
        sqlmetrics.mean_average_precision(tiny, judged_only="yes", **ORACLE_COLS)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, -1, float("nan"), 961, True, "4"])
def test_bad_max_grade(tiny: pd.DataFrame, value: Any) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"err: max_grade= must be a number in \(0, 960\], the highest grade of the "
        r"judgments \(ERR's R = \(2\^label - 1\) / 2\^max_grade; gdeval's default 4\); got ",
    ):
        sqlmetrics.err(tiny, max_grade=value, **ORACLE_COLS)


def test_a_label_above_max_grade_is_named(tiny: pd.DataFrame) -> None:
    message = (
        r"err: label column 'y' \(label=\) has 1 value\(s\) above max_grade=4 \(largest 5\.0\); "
        r"ERR's R = \(2\^label - 1\) / 2\^max_grade must stay below 1\. Pass max_grade= the "
        r"highest grade of your judgments \(gdeval's default is 4\)"
    )
    with pytest.raises(sqlmetrics.InvalidDataError, match=message):
        sqlmetrics.err(tiny, **ORACLE_COLS)
    with pytest.raises(sqlmetrics.InvalidDataError, match=message.replace("err:", "evaluate:")):
        sqlmetrics.evaluate(tiny, ["err@3", "ndcg@3"], **ORACLE_COLS)
    assert sqlmetrics.err(tiny, max_grade=5, empty="zero", **ORACLE_COLS) > 0


@pytest.mark.parametrize("name", ["err", "infap", "judged"])
def test_ties_average_is_refused(tiny: pd.DataFrame, name: str) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=rf"{name}: ties='average' has no closed form for {name} \(it is not linear in the "
        r"positions of the tied items\); use ties='item_desc', 'item_asc' or 'text_desc'",
    ):
        getattr(sqlmetrics, name)(tiny, ties="average", max_grade=5, **ORACLE_COLS) if (
            name == "err"
        ) else getattr(sqlmetrics, name)(tiny, ties="average", **ORACLE_COLS)


@pytest.mark.parametrize("name", oir.COUNTS)
def test_counts_refuse_empty_one_and_intervals(tiny: pd.DataFrame, name: str) -> None:
    fn = getattr(sqlmetrics, name)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=rf"{name}: empty='one' gives an empty group the value 1 in a mean, but {name} is "
        r"a count summed over groups; use empty='zero' to count the groups with no relevant "
        r"item \(trec_eval\) or empty='skip' to leave them out",
    ):
        fn(tiny, empty="one", **ORACLE_COLS)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=rf"{name}: ci= has no interval here: {name} is a count summed over groups, not a "
        r"mean or a proportion; drop ci= \(and ci_method=\)",
    ):
        fn(tiny, ci=0.9, **ORACLE_COLS)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=rf"{name}: ci= has no interval"):
        sqlmetrics.evaluate(tiny, ["ndcg@2", name], ci=0.9, **ORACLE_COLS)


def test_the_specs_carry_the_tools_names() -> None:
    names = {n: (REGISTRY[n].ir_measures, REGISTRY[n].trec_eval) for n in NEW}
    assert names == {
        "err": ("ERR", None),
        "infap": ("infAP", "infAP"),
        "judged": ("Judged", None),
        "set_precision": ("SetP", "set_P"),
        "set_recall": ("SetR", "set_recall"),
        "set_f": ("SetF", "set_F"),
        "num_q": ("NumQ", "num_q"),
        "num_rel": ("NumRel", "num_rel"),
        "num_ret": ("NumRet", "num_ret"),
        "num_rel_ret": ("NumRelRet", "num_rel_ret"),
    }
    for n, (irm, _) in names.items():
        assert irm in ir_measures.measures.registry, n


# ----------------------------------------------------------------------------- engines
ENGINE_NAMES = [
    "err@10", "infap", "judged@5", "set_precision", "set_recall", "set_f", "num_q", "num_rel",
    "num_ret", "num_rel_ret", "ndcg@10", "map",
]  # fmt: skip
ENGINE_OPTIONS: list[dict[str, Any]] = [
    {"ties": "text_desc", "missing": "zero", "gains": {0: 0, 1: 1, 2: 3, 4: 10}},
    # by= the group column: check_unique once listed the column twice (PostgreSQL refused)
    {"ties": "item_asc", "judged_only": True, "by": "query_id"},
]


def _on_engine(run: Any, qrels: Any, con: Any) -> list[pd.DataFrame]:
    return [
        quiet(
            sqlmetrics.evaluate,
            run,
            ENGINE_NAMES,
            qrels=qrels,
            empty="zero",
            con=con,
            **COLS,
            **options,
        )
        for options in ENGINE_OPTIONS
    ]


def _same_frames(got: list[pd.DataFrame], want: list[pd.DataFrame]) -> None:
    for g, w in zip(got, want, strict=True):
        g = g.assign(query_id=g["query_id"].astype(str)) if "query_id" in g else g
        assert list(g.columns) == list(w.columns) and len(g) == len(w)
        for name in ENGINE_NAMES:
            for a, b in zip(g[name], w[name], strict=True):
                assert abs(float(a) - float(b)) <= 1e-12 * max(1.0, abs(float(b))), name


@pytest.mark.postgres
def test_the_new_measures_on_postgres_equal_duckdb(pg_engine: Any) -> None:
    """Every new measure, gains= and judged_only= (by query) on PostgreSQL, in two statements."""
    run, qrels = graded_collection()
    run.to_sql("irm_run", pg_engine, index=False, if_exists="replace")
    qrels.to_sql("irm_qrels", pg_engine, index=False, if_exists="replace")
    _same_frames(_on_engine("irm_run", "irm_qrels", pg_engine), _on_engine(run, qrels, None))


@pytest.mark.spark
def test_the_new_measures_on_spark_equal_duckdb(spark: Any) -> None:
    """The same on Spark."""
    run, qrels = graded_collection()
    spark.createDataFrame(run).createOrReplaceTempView("irm_run")
    spark.createDataFrame(qrels).createOrReplaceTempView("irm_qrels")
    try:
        _same_frames(_on_engine("irm_run", "irm_qrels", spark), _on_engine(run, qrels, None))
    finally:
        spark.catalog.dropTempView("irm_run")
        spark.catalog.dropTempView("irm_qrels")
