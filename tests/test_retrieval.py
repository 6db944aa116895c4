"""Retrieval extras (rbp, fallout, bpref, iprec_at_recall, iprec_11pt_avg, gm_map, success@k):
trec_eval's own test suite, pytrec-eval-terrier on random runs, the naive oracle with tied
scores, and every error message."""

from __future__ import annotations

import itertools
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import retrieval as ort
from test_ranking import COLS, composed, ranking_frames, rows_of

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"
NAMES = ("rbp", "fallout", "bpref", "iprec_at_recall", "iprec_11pt_avg", "gm_map")
NO_AVERAGE = ("bpref", "iprec_at_recall", "iprec_11pt_avg")
LEVELS = ("0.00", "0.10", "0.20", "0.25", "0.30", "0.40", "0.50", "0.60", "0.70", "0.75",
          "0.80", "0.90", "1.00")  # fmt: skip

# trec_eval measure -> (evaluate name, recall_level)
MEASURES: dict[str, tuple[str, float]] = {
    "bpref": ("bpref", 0.0),
    "rbp": ("rbp", 0.0),
    "gm_map": ("gm_map", 0.0),
    "11pt_avg": ("11pt_avg", 0.0),
    **{f"iprec_at_recall_{lv}": ("iprec_at_recall", float(lv)) for lv in LEVELS},
    **{f"success_{k}": (f"success@{k}", 0.0) for k in (1, 2, 5, 10, 20)},
}
CASES = {
    # expected output: (qrels, run, options)  -- tests/data/trec_eval/README.md
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"empty": "zero", "missing": "zero"}),
    "out.test.meas_params": ("qrels.test", "results.test", {}),
}


def expected_values(name: str) -> dict[tuple[str, str], float]:
    values = {}
    for line in (TREC / name).read_text().splitlines():
        measure, topic, value = re.split(r"\s+", line.strip())
        # rbp with graded labels: trec_eval rescales the labels to gains in [0, 1], ours is
        # binary (label >= relevance_level): the same only for 0/1 judgments
        if measure in MEASURES and not (name == "out.test.aql" and measure == "rbp"):
            values[(measure, topic)] = float(value)
    return values


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_conformance(case: str) -> None:
    """Per topic (evaluate by the group column: trec_eval -q) and `all`, to trec_eval's 4
    decimals; gm_map is printed for `all` only. One statement per recall level (recall_level
    is one option of the call)."""
    qrels_file, run_file, options = CASES[case]
    qrels = sqlmetrics.read_trec_qrels(TREC / qrels_file)
    run = sqlmetrics.read_trec_run(TREC / run_file)
    expected = expected_values(case)
    measures = sorted({m for m, _ in expected})
    assert case.endswith("params") or {"bpref", "11pt_avg", "iprec_at_recall_0.50"} <= set(measures)
    got: dict[tuple[str, str], float] = {}
    for level in sorted({MEASURES[m][1] for m in measures}):
        asked = [m for m in measures if MEASURES[m][1] == level]
        names = sorted({MEASURES[m][0] for m in asked})
        kwargs = {"group": "group", "item": "item", "qrels": qrels, **options}
        if "iprec_at_recall" in names:
            kwargs["recall_level"] = level
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
            per_topic = sqlmetrics.evaluate(run, names, by="group", **kwargs)
            overall = sqlmetrics.evaluate(run, names, **kwargs)
        for m in asked:
            got[(m, "all")] = float(overall[MEASURES[m][0]].iloc[0])
            for _, row in per_topic.iterrows():
                got[(m, str(row["group"]))] = float(row[MEASURES[m][0]])
    mismatches = [
        (key, got.get(key), value)
        for key, value in sorted(expected.items())
        if not abs(got.get(key, math.nan) - value) <= 5e-5 + 1e-12
    ]
    assert not mismatches, mismatches
    assert len(expected) >= 20


@pytest.mark.parametrize(
    ("recall_rounding", "same"), [("trec_eval_10", True), ("trec_eval_9", False)]
)
def test_trec_eval_convention_with_trec_eval_10s_rule_reproduces_its_suite(
    recall_rounding: str, same: bool
) -> None:
    """convention="trec_eval" takes trec_eval 10's lround(p R) (its recall_rounding switch):
    then every iprec_at_recall level and 11pt_avg of out.test.aq (trec_eval 10) per topic;
    with its own trec_eval 9 rule some differ."""
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.test")
    run = sqlmetrics.read_trec_run(TREC / "results.test")
    expected = expected_values("out.test.aq")
    kwargs = {
        "qrels": qrels,
        "convention": "trec_eval",
        "recall_rounding": recall_rounding,
        "group": "group",
        "item": "item",
    }
    got = {}
    for level in LEVELS:
        frame = sqlmetrics.evaluate(
            run, ["iprec_at_recall"], by="group", recall_level=float(level), **kwargs
        )
        got.update({(f"iprec_at_recall_{level}", str(g)): v for g, v in frame.values[:, :2]})
    frame = sqlmetrics.evaluate(run, ["11pt_avg"], by="group", **kwargs)
    got.update({("11pt_avg", str(g)): v for g, v in frame.values[:, :2]})
    wanted = {key: v for key, v in expected.items() if key in got}
    assert len(wanted) == 3 * 12  # 11 levels (0.25 and 0.75 are not printed) and 11pt_avg
    off = [key for key, v in wanted.items() if abs(got[key] - v) > 5e-5 + 1e-12]
    assert (not off) == same, off


def test_trec_eval_names_through_evaluate() -> None:
    """`success@5` and `11pt_avg` are trec_eval's names (aliases), in one evaluate call."""
    qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.test")
    run = sqlmetrics.read_trec_run(TREC / "results.test")
    expected = expected_values("out.test.aq")
    names = ["success@5", "11pt_avg", "bpref", "rbp", "gm_map", "iprec_at_recall", "ndcg@10"]
    out = sqlmetrics.evaluate(
        run, names, group="group", item="item", qrels=qrels, empty="zero", recall_level=0.5
    ).iloc[0]
    for name, measure in zip(names, ["success_5", "11pt_avg", "bpref", "rbp", "gm_map",
                                     "iprec_at_recall_0.50"]):  # fmt: skip
        assert abs(out[name] - expected[(measure, "all")]) <= 5e-5 + 1e-12, name
    assert out["n_groups"] == 3


def test_pytrec_eval_on_random_runs() -> None:
    import pytrec_eval

    rng = np.random.default_rng(14)
    run: dict[str, dict[str, float]] = {}
    qrel: dict[str, dict[str, int]] = {}
    for q in range(25):
        qid = f"q{q}"
        docs = [f"d{j:03d}" for j in range(int(rng.integers(5, 60)))]
        run[qid] = {d: float(s) for d, s in zip(docs, rng.integers(0, 30, len(docs)) / 7)}
        qrel[qid] = {"x0": 1}  # a relevant item the run never retrieved
        for d in [*docs, "x1", "x2"]:
            if rng.random() < 0.7:  # the rest is unjudged
                qrel[qid][d] = int(rng.choice([0, 0, 0, 1, 2]))
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["group", "item", "score"],
    )
    judged = pd.DataFrame(
        [(q, d, float(v)) for q, docs in qrel.items() for d, v in docs.items()],
        columns=["group", "item", "label"],
    )
    measures = {"bpref", "iprec_at_recall", "11pt_avg", "success", "gm_map"}
    per_query = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)

    def ours(recall_rounding: str) -> pd.DataFrame:
        return sqlmetrics.evaluate(
            frame,
            ["bpref", "iprec_11pt_avg", "iprec_at_recall", "success@10"],
            group="group",
            item="item",
            qrels=judged,
            recall_level=0.3,
            recall_rounding=recall_rounding,
            by="group",
        ).set_index("group")

    # pytrec-eval-terrier bundles trec_eval 9, which turns a recall level L into
    # (long)(L R + 0.9) relevant items: recall_rounding="trec_eval_9"; trec_eval 10 (its test
    # suite, reproduced above, and our default) rounds: lround(L R)
    out, v10 = ours("trec_eval_9"), ours("trec_eval_10")
    assert len(out) == len(per_query) == 25
    differ = 0
    for q, values in per_query.items():
        assert out.loc[q, "bpref"] == pytest.approx(values["bpref"], abs=1e-12), q
        assert out.loc[q, "success@10"] == values["success_10"]
        assert out.loc[q, "iprec_11pt_avg"] == pytest.approx(values["11pt_avg"], abs=1e-12), q
        assert out.loc[q, "iprec_at_recall"] == pytest.approx(
            values["iprec_at_recall_0.30"], abs=1e-12
        ), q
        differ += abs(v10.loc[q, "iprec_11pt_avg"] - values["11pt_avg"]) > 1e-6
    assert differ >= 3  # the rule matters on these runs
    # pytrec_eval's per-query gm_map is ln max(AP, eps); the mean is then exponentiated
    geometric = math.exp(sum(v["gm_map"] for v in per_query.values()) / len(per_query))
    assert sqlmetrics.gm_map(frame, qrels=judged) == pytest.approx(geometric, rel=1e-12)


# ----------------------------------------------------------------------------- oracle
def _wanted(ties: str, k: int | None) -> list[tuple[str, int | None]]:
    names = [n for n in NAMES if not (ties == "average" and n in NO_AVERAGE)]
    return [(n, k if REGISTRY[n].takes_k else None) for n in names]


@given(
    ranking_frames(),
    st.sampled_from(["item_desc", "item_asc", "average"]),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from([1, 2, None]),
    st.sampled_from([1, 2]),
    st.sampled_from([0.5, 0.9]),
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 1.0]),
    st.sampled_from(["trec_eval_10", "trec_eval_9"]),
)
def test_every_metric_equals_oracle(
    frame: pd.DataFrame,
    ties: str,
    empty: str,
    k: int | None,
    level: int,
    persistence: float,
    recall_level: float,
    recall_rounding: str,
) -> None:
    wanted = _wanted(ties, k)
    options = {
        "relevance_level": level,
        "persistence": persistence,
        "recall_level": recall_level,
        "recall_rounding": recall_rounding,
    }
    out = composed(frame, wanted, ties=ties, empty=empty, **options)
    for index, (name, kk) in enumerate(wanted):
        expected = ort.metric(name, rows_of(frame), k=kk, ties=ties, empty=empty, **options)
        got = out[f"c{index}"].iloc[0]
        got = math.nan if got is None or pd.isna(got) else float(got)
        assert ort_close(got, expected), (name, kk, got, expected)


def ort_close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


@given(
    ranking_frames(),
    st.sampled_from(["item_desc", "item_asc", "average"]),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from([2, None]),
    st.data(),
)
def test_every_metric_with_qrels_equals_oracle(
    frame: pd.DataFrame, ties: str, empty: str, missing: str, k: int | None, data: st.DataObject
) -> None:
    # a random part of the run judged (the rest unjudged: bpref skips it), judged items the
    # run never scored, a judged group the run lacks; run group 0 has no judgments at all
    keep = data.draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
    qrels = frame.loc[keep, ["g", "i", "y"]]
    qrels = qrels[qrels["g"] != 0]
    extra = pd.DataFrame(
        {"g": [1, 1, 99, 99], "i": ["x1", "x2", "d00", "d01"], "y": [2.0, 0.0, 1.0, 0.0]}
    )
    qrels = pd.concat([qrels, extra], ignore_index=True)
    run = frame.assign(y=-1.0)
    wanted = _wanted(ties, k)
    out = composed(
        run[["g", "i", "s"]], wanted, qrels=qrels, ties=ties, empty=empty, missing=missing
    )
    judged = list(zip(qrels["g"], qrels["i"], qrels["y"]))
    for index, (name, kk) in enumerate(wanted):
        expected = ort.metric(
            name, rows_of(run), qrels=judged, k=kk, ties=ties, empty=empty, missing=missing
        )
        got = out[f"c{index}"].iloc[0]
        got = math.nan if got is None or pd.isna(got) else float(got)
        assert ort_close(got, expected), (name, kk, got, expected)


@given(ranking_frames(max_groups=3), st.sampled_from(["item_desc", "item_asc"]))
def test_public_functions_equal_oracle(frame: pd.DataFrame, ties: str) -> None:
    for name in NAMES:
        kwargs: dict[str, Any] = {"k": 3} if REGISTRY[name].takes_k else {}
        expected = ort.metric(name, rows_of(frame), ties=ties, **kwargs)
        got = float(quiet(getattr(sqlmetrics, name), frame, ties=ties, **COLS, **kwargs))
        assert ort_close(got, expected), name


@given(ranking_frames(max_groups=6, max_items=8), st.sampled_from(["item_desc", "average"]))
def test_row_order_and_group_renaming_change_nothing(frame: pd.DataFrame, ties: str) -> None:
    wanted = _wanted(ties, 3)
    out = composed(frame, wanted, ties=ties, empty="zero")
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(out, composed(shuffled, wanted, ties=ties, empty="zero"))
    renamed = frame.assign(g=frame["g"].map(lambda g: f"user-{g * 7 % 5}-{g}"))
    again = composed(renamed, wanted, ties=ties, empty="zero")
    for col in out.columns:
        assert float(again[col].iloc[0]) == pytest.approx(float(out[col].iloc[0]), abs=1e-12)


@given(ranking_frames(max_groups=5, max_items=8), st.sampled_from(["item_desc", "average"]))
def test_bounds_and_monotonicity(frame: pd.DataFrame, ties: str) -> None:
    ks = [1, 2, 3, 5, 8]
    wanted = [("fallout", k) for k in ks] + [("rbp", k) for k in ks]
    out = composed(frame, wanted, ties=ties, empty="zero").iloc[0]
    values = [float(out[f"c{i}"]) for i in range(len(wanted))]
    for series in (values[:5], values[5:]):  # never decrease in k; in [0, 1]
        assert all(a <= b + 1e-12 for a, b in itertools.pairwise(series))
        assert all(-1e-12 <= v <= 1 + 1e-12 for v in series)
    levels = [("iprec_at_recall", None)]
    for level in (0.0, 0.3, 0.7, 1.0):  # interpolated precision never rises with the level
        got = composed(frame, levels, empty="zero", recall_level=level)["c0"].iloc[0]
        values.append(float(got))
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(values[10:]))


@given(ranking_frames(), st.sampled_from(["item_desc", "average"]))
def test_a_perfect_ranking(frame: pd.DataFrame, ties: str) -> None:
    perfect = frame.assign(s=frame["y"] * 100 + frame.groupby("g").cumcount() / 100)
    if not (perfect["y"] >= 1).any():
        return
    wanted = _wanted(ties, None)
    out = composed(perfect, wanted, ties=ties).iloc[0]
    for index, (name, _) in enumerate(wanted):
        value = float(out[f"c{index}"])
        if name in ("bpref", "iprec_at_recall", "iprec_11pt_avg", "gm_map"):
            assert value == pytest.approx(1.0, abs=1e-12), name
        else:  # rbp < 1 (its weights sum to 1 over an infinite list); fallout of the whole
            # list is 1 for a group with a non-relevant item, 0 without
            assert 0 <= value <= 1, name


def test_rbp_example_by_hand() -> None:
    # relevant at positions 1 and 3, p = 0.5: (1 - 0.5) (1 + 0.25) = 0.625
    frame = pd.DataFrame(
        {"g": [1, 1, 1], "i": ["a", "b", "c"], "s": [3.0, 2.0, 1.0], "y": [1.0, 0.0, 1.0]}
    )
    assert sqlmetrics.rbp(frame, persistence=0.5, **COLS) == 0.625
    assert sqlmetrics.rbp(frame, persistence=0.5, k=2, **COLS) == 0.5
    # fallout@1: no non-relevant item in the top 1; @2 the only one
    assert sqlmetrics.fallout(frame, k=1, **COLS) == 0.0
    assert sqlmetrics.fallout(frame, k=2, **COLS) == 1.0


def test_bpref_skips_unjudged_items() -> None:
    run = pd.DataFrame({"g": [1] * 4, "i": ["u", "n", "r", "s"], "s": [4.0, 3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"g": [1, 1, 1, 1], "i": ["n", "r", "s", "m"], "y": [0.0, 1.0, 1.0, 0]})
    # R = 2, N = 2: r and s each have 1 judged non-relevant above them (u is unjudged)
    assert sqlmetrics.bpref(run, qrels=qrels, **COLS) == pytest.approx((0.5 + 0.5) / 2)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("function", "kwargs", "message"),
    [
        ("rbp", {"persistence": 1.0}, r"rbp: persistence= must be a number in \(0, 1\).*got 1.0"),
        ("rbp", {"persistence": 0}, r"rbp: persistence= must be a number in \(0, 1\).*got 0"),
        ("rbp", {"persistence": "x"}, r"persistence= must be a number in \(0, 1\).*got 'x'"),
        (
            "iprec_at_recall",
            {"recall_level": 1.5},
            r"iprec_at_recall: recall_level= must be a number in \[0, 1\].*got 1.5",
        ),
        ("iprec_at_recall", {"recall_level": True}, r"recall_level= must be a number"),
        (
            "iprec_at_recall",
            {"recall_rounding": "trec_eval_11"},
            r"^iprec_at_recall: recall_rounding= must be one of 'trec_eval_10', 'trec_eval_9'; "
            r"got 'trec_eval_11'; did you mean 'trec_eval_10'\?$",
        ),
        (
            "iprec_11pt_avg",
            {"recall_rounding": 9},
            r"^iprec_11pt_avg: recall_rounding= must be one of 'trec_eval_10', 'trec_eval_9'; "
            r"got 9$",
        ),
        (
            "bpref",
            {"ties": "average"},
            r"bpref: ties='average' has no closed form for bpref.*use ties='item_desc'",
        ),
        ("iprec_11pt_avg", {"ties": "average"}, r"iprec_11pt_avg: ties='average' has no closed"),
        ("iprec_at_recall", {"ties": "average"}, r"iprec_at_recall: ties='average' has no"),
        (
            "gm_map",
            {"ties": "average", "ap_denominator": "hits"},
            r"gm_map: ties='average' has no closed form with ap_denominator='hits'",
        ),
        ("fallout", {"ties": "avg"}, r"fallout: ties= must be one of .*did you mean 'average'"),
        ("gm_map", {"k": 0}, r"gm_map: k= must be an integer >= 1"),
    ],
)
def test_errors(function: str, kwargs: dict[str, Any], message: str) -> None:
    frame = pd.DataFrame({"g": [1, 1], "i": ["a", "b"], "s": [1.0, 0.5], "y": [1.0, 0.0]})
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        getattr(sqlmetrics, function)(frame, **COLS, **kwargs)


def test_evaluate_checks_the_new_options() -> None:
    frame = pd.DataFrame({"g": [1, 1], "i": ["a", "b"], "s": [1.0, 0.5], "y": [1.0, 0.0]})
    cols = {"group": "g", "item": "i", "score": "s", "label": "y"}
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"rbp@5: persistence= must"):
        sqlmetrics.evaluate(frame, ["ndcg@5", "rbp@5"], persistence=2, **cols)
    with pytest.raises(sqlmetrics.InvalidParameterError, match="accepted by none"):
        sqlmetrics.evaluate(frame, ["ndcg@5"], persistence=0.5, **cols)
    with pytest.raises(sqlmetrics.InvalidParameterError, match="bpref: ties='average'"):
        sqlmetrics.evaluate(frame, ["ndcg@5", "bpref"], ties="average", **cols)


def test_undefined_when_no_group_is_left() -> None:
    frame = pd.DataFrame({"g": [1, 1], "i": ["a", "b"], "s": [1.0, 0.5], "y": [0.0, 0.0]})
    for name in NAMES:
        with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=f"{name} is undefined"):
            assert math.isnan(getattr(sqlmetrics, name)(frame, **COLS))


def test_slices_in_evaluate_equal_one_call_per_slice() -> None:
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "g": rng.integers(0, 12, 300),
            "i": [f"d{j}" for j in range(300)],
            "s": rng.integers(0, 9, 300) / 4,
            "y": rng.choice([0.0, 0.0, 1.0, 2.0], 300),
        }
    ).assign(part=lambda f: f["g"] % 3)
    names = ["rbp@5", "fallout@3", "bpref", "iprec_11pt_avg", "gm_map@10", "ndcg@10"]
    out = sqlmetrics.evaluate(frame, names, by="part", **COLS)
    for _, row in out.iterrows():
        part = frame[frame["part"] == row["part"]]
        assert row["rbp@5"] == sqlmetrics.rbp(part, k=5, **COLS)
        assert row["fallout@3"] == sqlmetrics.fallout(part, k=3, **COLS)
        assert row["bpref"] == sqlmetrics.bpref(part, **COLS)
        assert row["iprec_11pt_avg"] == sqlmetrics.iprec_11pt_avg(part, **COLS)
        assert row["gm_map@10"] == sqlmetrics.gm_map(part, k=10, **COLS)
