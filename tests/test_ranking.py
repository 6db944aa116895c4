"""Ranking metrics: SQL == naive oracle == published numbers, on tied graded data."""

from __future__ import annotations

import itertools
import math
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import ranking as orc
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._engine.run import entry, kernel_sql
from sqlmetrics._templating.quoting import quote_ident

RANKING = sorted(name for name, spec in REGISTRY.items() if spec.family == "ranking")
FUNCTIONS = {name: getattr(sqlmetrics, REGISTRY[name].function) for name in RANKING}
GAIN_METRICS = {"cg", "dcg", "idcg", "ndcg"}
TIES = ["item_desc", "item_asc", "average"]
COLS = {"group": "g", "item": "i", "score": "s", "label": "y"}


# ----------------------------------------------------------------------------- helpers
def rows_of(frame: pd.DataFrame) -> list[tuple[Any, Any, float, float]]:
    return list(zip(frame["g"], frame["i"], frame["s"], frame["y"]))


def composed(
    frame: pd.DataFrame,
    metrics: list[tuple[str, int | None]],
    qrels: pd.DataFrame | None = None,
    by: list[str] | None = None,
    columns: dict[str, str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Several ranking metrics in one statement, the way evaluate() composes them (0001)."""
    names = columns or COLS
    cols: dict[str, str | None] = {role: quote_ident(name) for role, name in names.items()}
    con = duckdb.connect()
    con.register("run_t", frame)
    if qrels is not None:
        cols["label"] = None  # judged by qrels
    extra = None
    if qrels is not None:
        con.register("qrels_t", qrels)
        extra = {"qrels": ("qrels_t", {role: names[role] for role in ("group", "item", "label")})}
    entries = [entry(REGISTRY[name], f"c{index}", k) for index, (name, k) in enumerate(metrics)]
    sql = kernel_sql("ranking_kernel", "run_t", by or [], cols, options, entries, extra)
    return con.execute(sql).df()


@st.composite
def ranking_frames(draw: st.DrawFn, max_groups: int = 4, max_items: int = 6) -> pd.DataFrame:
    """Small groups (<= 6 items, so the oracle can list every order of tied items), scores
    from a small set so that ties are the rule, graded labels 0..3."""
    records = []
    for g in range(draw(st.integers(1, max_groups))):
        n = draw(st.integers(1, max_items))
        for i in range(n):
            records.append(
                (
                    g,
                    f"d{i:02d}",
                    draw(st.sampled_from([0.0, 0.5, 0.5, 1.0, 2.0])),
                    float(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))),
                )
            )
    return pd.DataFrame(records, columns=["g", "i", "s", "y"])


# ----------------------------------------------------------------------------- published
def test_every_ranking_metric_is_tested_against_the_oracle() -> None:
    assert set(RANKING) == {
        "hit_ratio",
        "hit_rate",
        "precision_at_k",
        "recall_at_k",
        "r_precision",
        "map",
        "mrr",
        "cg",
        "dcg",
        "idcg",
        "ndcg",
    }


def test_hit_ratio_example_from_the_issue() -> None:
    # 3 users with 10, 12, 8 relevant items, of which 6, 5, 4 in the top 10: 15 / 30
    records = []
    for g, (n_rel, hits) in enumerate([(10, 6), (12, 5), (8, 4)]):
        labels = [1] * hits + [0] * (10 - hits) + [1] * (n_rel - hits)
        records += [(g, j, float(100 - j), float(y)) for j, y in enumerate(labels)]
    frame = pd.DataFrame(records, columns=["g", "i", "s", "y"])
    assert orc.metric("hit_ratio", rows_of(frame), k=10) == 0.5
    assert sqlmetrics.hit_ratio(frame, k=10, **COLS) == 0.5


SK_TRUE = [10, 0, 0, 1, 5]


@pytest.mark.parametrize(
    ("scores", "k", "metric", "expected"),
    [  # scikit-learn's dcg_score / ndcg_score docstring examples (linear gain, tie averaging)
        ([0.1, 0.2, 0.3, 4, 70], None, "dcg", 9.49),
        ([0.1, 0.2, 0.3, 4, 70], 2, "dcg", 5.63),
        ([0.1, 0.2, 0.3, 4, 70], None, "ndcg", 0.69),
        ([0.05, 1.1, 1.0, 0.5, 0.0], None, "ndcg", 0.49),
        ([0.05, 1.1, 1.0, 0.5, 0.0], 4, "ndcg", 0.35),
        ([10, 0, 0, 1, 5], 4, "ndcg", 1.0),
        ([1, 0, 0, 0, 1], 1, "ndcg", 0.75),
    ],
)
def test_scikit_learn_docstring_examples(
    scores: list[float], k: int | None, metric: str, expected: float
) -> None:
    frame = pd.DataFrame({"g": 0, "i": range(5), "s": scores, "y": SK_TRUE}).astype(
        {"s": float, "y": float}
    )
    oracle = orc.metric(metric, rows_of(frame), k=k, gain="linear", ties="average")
    got = FUNCTIONS[metric](frame, k=k, gain="linear", ties="average", **COLS)
    assert math.floor(oracle * 100) / 100 == expected  # the docstrings truncate: 9.49...
    assert got == pytest.approx(oracle, abs=1e-12)


def test_ties_change_ndcg_as_scikit_learn_documents() -> None:
    frame = pd.DataFrame({"g": 0, "i": range(5), "s": [1.0, 0, 0, 0, 1], "y": SK_TRUE})
    frame["y"] = frame["y"].astype(float)
    # scikit-learn's ignore_ties=True gives 0.5 here (item 4 first), as item_desc does
    assert sqlmetrics.ndcg(frame, k=1, gain="linear", ties="item_desc", **COLS) == 0.5
    assert sqlmetrics.ndcg(frame, k=1, gain="linear", ties="item_asc", **COLS) == 1.0
    assert sqlmetrics.ndcg(frame, k=1, gain="linear", ties="average", **COLS) == 0.75


# ----------------------------------------------------------------------------- oracle
@given(
    ranking_frames(),
    st.sampled_from(TIES),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from([1, 2, 3, None]),
    st.sampled_from([1, 2]),
    st.sampled_from(["exponential", "linear"]),
    st.sampled_from(["relevant", "min_k_relevant", "hits"]),
)
def test_every_metric_equals_oracle(
    frame: pd.DataFrame,
    ties: str,
    empty: str,
    k: int | None,
    level: int,
    gain: str,
    ap_denominator: str,
) -> None:
    if ties == "average" and ap_denominator == "hits":
        ap_denominator = "relevant"
    wanted = [(name, None if name == "r_precision" else k) for name in RANKING]
    out = composed(
        frame,
        wanted,
        ties=ties,
        empty=empty,
        relevance_level=level,
        gain=gain,
        ap_denominator=ap_denominator,
    )
    for index, (name, kk) in enumerate(wanted):
        expected = orc.metric(
            name,
            rows_of(frame),
            k=kk,
            ties=ties,
            gain=gain,
            empty=empty,
            relevance_level=level,
            ap_denominator=ap_denominator,
        )
        got = out[f"c{index}"].iloc[0]
        got = math.nan if got is None or pd.isna(got) else float(got)
        assert orc.is_close(got, expected), (name, kk, got, expected)


@given(
    ranking_frames(),
    st.sampled_from(TIES),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from(["skip", "zero"]),
    st.sampled_from([2, None]),
    st.data(),
)
def test_every_metric_with_qrels_equals_oracle(
    frame: pd.DataFrame, ties: str, empty: str, missing: str, k: int | None, data: st.DataObject
) -> None:
    # judgments: a random part of the run's labels, plus judged items the run never scored and
    # a judged group the run does not have; run group 0 (if any) has no judgments at all
    keep = data.draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
    qrels = frame.loc[keep, ["g", "i", "y"]]
    qrels = qrels[qrels["g"] != 0]
    extra = pd.DataFrame(
        {"g": [1, 1, 99, 99], "i": ["x1", "x2", "d00", "d01"], "y": [2.0, 0.0, 1.0, 0.0]}
    )
    qrels = pd.concat([qrels, extra], ignore_index=True)
    run = frame.assign(y=-1.0)  # the run's labels must not be read
    wanted = [(name, None if name == "r_precision" else k) for name in RANKING]
    out = composed(
        run[["g", "i", "s"]], wanted, qrels=qrels, ties=ties, empty=empty, missing=missing
    )
    judged = list(zip(qrels["g"], qrels["i"], qrels["y"]))
    for index, (name, kk) in enumerate(wanted):
        expected = orc.metric(
            name, rows_of(run), qrels=judged, k=kk, ties=ties, empty=empty, missing=missing
        )
        got = out[f"c{index}"].iloc[0]
        got = math.nan if got is None or pd.isna(got) else float(got)
        assert orc.is_close(got, expected), (name, kk, got, expected)


@given(ranking_frames(max_groups=3), st.sampled_from(TIES))
def test_public_functions_equal_oracle(frame: pd.DataFrame, ties: str) -> None:
    for name in RANKING:
        kwargs: dict[str, Any] = {} if name == "r_precision" else {"k": 3}
        expected = orc.metric(name, rows_of(frame), ties=ties, **kwargs)
        got = float(quiet(FUNCTIONS[name], frame, ties=ties, **COLS, **kwargs))
        assert orc.is_close(got, expected), name


@given(ranking_frames(max_groups=3))
def test_slices_equal_one_call_per_slice(frame: pd.DataFrame) -> None:
    frame = frame.assign(part=frame["g"] % 2)
    wanted = [(name, 2) for name in ("ndcg", "map", "hit_ratio", "mrr")]
    out = composed(frame, wanted, by=["part"], empty="zero")
    for _, row in out.iterrows():
        subset = frame[frame["part"] == row["slice_0"]]
        for index, (name, k) in enumerate(wanted):
            expected = orc.metric(name, rows_of(subset), k=k, empty="zero")
            assert orc.is_close(float(row[f"c{index}"]), expected), name


# ----------------------------------------------------------------------------- properties
@given(ranking_frames(max_groups=6, max_items=8), st.sampled_from(TIES))
def test_row_order_and_id_renaming_change_nothing(frame: pd.DataFrame, ties: str) -> None:
    wanted = [(name, None if name == "r_precision" else 3) for name in RANKING]
    out = composed(frame, wanted, ties=ties, empty="zero", gain="linear")
    shuffled = frame.sample(frac=1.0, random_state=11).reset_index(drop=True)
    again = composed(shuffled, wanted, ties=ties, empty="zero", gain="linear")
    pd.testing.assert_frame_equal(out, again, check_exact=True)  # bit-identical
    renamed = frame.assign(g=frame["g"].map(lambda g: f"user-{g * 7 % 5}-{g}"))
    if ties == "average":  # item ids matter only for breaking ties
        renamed = renamed.assign(i=renamed["i"].str.upper())
    third = composed(renamed, wanted, ties=ties, empty="zero", gain="linear")
    for col in out.columns:
        assert float(third[col].iloc[0]) == pytest.approx(float(out[col].iloc[0]), abs=1e-12)


@given(ranking_frames(max_groups=5, max_items=8), st.sampled_from(TIES))
def test_bounds_monotonicity_and_identities(frame: pd.DataFrame, ties: str) -> None:
    ks = [1, 2, 3, 5, 8]
    wanted = (
        [("recall_at_k", k) for k in ks]
        + [("precision_at_k", k) for k in ks]
        + [("hit_ratio", k) for k in ks]
        + [("ndcg", k) for k in ks]
    )
    out = composed(frame, wanted, ties=ties, empty="zero").iloc[0]
    values = [float(out[f"c{i}"]) for i in range(len(wanted))]
    recall, precision, hits = values[0:5], values[5:10], values[10:15]
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(recall))  # never decreases in k
    assert all(0 <= v <= 1 + 1e-12 for v in values)
    # precision@k x k = mean hits@k; hit_ratio@k x sum(R) = total hits@k
    n_groups = frame["g"].nunique()
    n_rel = float((frame["y"] >= 1).sum())
    for k, p, h in zip(ks, precision, hits):
        assert p * k * n_groups == pytest.approx(h * n_rel, abs=1e-9)


@given(ranking_frames(), st.sampled_from(TIES), st.sampled_from(["exponential", "linear"]))
def test_a_perfect_ranking_scores_one(frame: pd.DataFrame, ties: str, gain: str) -> None:
    # score = label + a distinct tie-breaker: the ideal order, without ties
    perfect = frame.assign(s=frame["y"] * 100 + frame.groupby("g").cumcount() / 100)
    if not (perfect["y"] >= 1).any():
        return
    wanted = [("ndcg", None), ("ndcg", 2), ("map", None), ("mrr", None), ("r_precision", None)]
    out = composed(perfect, wanted, ties=ties, gain=gain).iloc[0]
    for index in range(len(wanted)):
        assert float(out[f"c{index}"]) == pytest.approx(1.0, abs=1e-12), wanted[index]


# ----------------------------------------------------------------------------- scikit-learn
@given(
    ranking_frames(),
    st.sampled_from(["exponential", "linear", "gains"]),
    st.sampled_from([1.0, 0.3, 2.5]),
    st.booleans(),
    st.data(),
)
def test_ideal_from_counts_equals_the_sorted_ideal(
    frame: pd.DataFrame, gain: str, scale: float, with_qrels: bool, data: st.DataObject
) -> None:
    """The ideal DCG from per-label counts (every cut k <= 100: ranking_ideal_counted) and
    from a sort of every judged item (k > 100 or none: ranking_ideal_sorted) are the same bits:
    on groups of at most 100 items, idcg and ndcg at k = 100 equal those at k = 101 and with
    no cut. Fractional labels (scale) and a gain map that reorders the labels included; NULL
    slices without judgments, one slice with them."""
    frame = frame.assign(y=frame["y"] * scale)
    options: dict[str, Any] = (
        {"gains": {1.0 * scale: 5.0, 3.0 * scale: 0.5}} if gain == "gains" else {"gain": gain}
    )
    qrels = None
    by = None
    if with_qrels:
        keep = data.draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
        qrels = pd.concat(
            [frame.loc[keep, ["g", "i", "y"]], pd.DataFrame({"g": [99], "i": ["x"], "y": [scale]})]
        )
        frame = frame[["g", "i", "s"]]
    else:
        slices = data.draw(
            st.lists(st.sampled_from([None, "a", "b"]), min_size=len(frame), max_size=len(frame))
        )
        frame = frame.assign(part=slices)
        by = ["part"]
    outs = [
        composed(frame, [("idcg", k), ("ndcg", k)], qrels=qrels, by=by, empty="zero", **options)
        for k in (100, 101, None)
    ]
    for out in outs[1:]:
        assert outs[0].columns.tolist() == out.columns.tolist()
        for column in ("c0", "c1"):
            a, b = outs[0][column].to_numpy(float), out[column].to_numpy(float)
            assert np.array_equal(a, b, equal_nan=True), (column, a.tolist(), b.tolist())


def test_the_ideal_is_counted_up_to_k_100_and_sorted_beyond() -> None:
    """Which formulation the kernel writes (ranking_ideal): counts for cuts <= 100, else a sort."""
    cols: dict[str, str | None] = {role: quote_ident(name) for role, name in COLS.items()}

    def sql(*ks: int | None) -> str:
        entries = [entry(REGISTRY["ndcg"], f"c{i}", k) for i, k in enumerate(ks)]
        return kernel_sql("ranking_kernel", "run_t", [], cols, {}, entries, None)

    assert "ideal_runs" in sql(10) and "ideal_runs" in sql(5, 100)
    for ks in [(101,), (None,), (10, None), (10, 101)]:
        text = sql(*ks)
        assert "ideal_runs" not in text and "row_number() over" in text.split("ideal as (")[1], ks


def test_ndcg_and_dcg_equal_scikit_learn_with_ties() -> None:
    rng = np.random.default_rng(5)
    n_groups, n_items = 40, 12
    y = rng.integers(0, 4, size=(n_groups, n_items)).astype(float)
    s = rng.integers(0, 5, size=(n_groups, n_items)) / 4  # many ties
    y[:, 0] = np.maximum(y[:, 0], 1)  # every group has a relevant item
    frame = pd.DataFrame(
        {
            "g": np.repeat(np.arange(n_groups), n_items),
            "i": np.tile(np.arange(n_items), n_groups),
            "s": s.ravel(),
            "y": y.ravel(),
        }
    )
    for k in (None, 1, 3, 5):
        got = sqlmetrics.ndcg(frame, k=k, gain="linear", ties="average", **COLS)
        assert got == pytest.approx(skm.ndcg_score(y, s, k=k), abs=1e-12)
        got = sqlmetrics.dcg(frame, k=k, gain="linear", ties="average", **COLS)
        assert got == pytest.approx(skm.dcg_score(y, s, k=k), abs=1e-12)


# ----------------------------------------------------------------------------- semantics
def test_empty_policies() -> None:
    frame = pd.DataFrame(
        {
            "g": [1, 1, 2, 2],
            "i": ["a", "b", "a", "b"],
            "s": [0.9, 0.1, 0.5, 0.4],
            "y": [1.0, 0.0, 0.0, 0.0],
        }
    )
    assert sqlmetrics.mrr(frame, **COLS) == 1.0  # skip: group 2 left out
    assert sqlmetrics.mrr(frame, empty="zero", **COLS) == 0.5
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"mrr: 1 group\(s\) have no relevant item .*e\.g\. group 2",
    ):
        sqlmetrics.mrr(frame, empty="error", **COLS)
    none = frame.assign(y=0.0)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="ndcg is undefined: no group"):
        assert math.isnan(sqlmetrics.ndcg(none, **COLS))
    assert sqlmetrics.ndcg(none, empty="zero", **COLS) == 0.0


def test_qrels_semantics() -> None:
    run = pd.DataFrame({"g": ["q1", "q1", "q3"], "i": ["a", "b", "a"], "s": [0.9, 0.1, 0.5]})
    qrels = pd.DataFrame({"g": ["q1", "q1", "q2"], "i": ["b", "z", "a"], "y": [1.0, 1.0, 1.0]})
    # q1: relevant b (retrieved at 2) and z (never retrieved); q2: judged, not in the run;
    # q3: in the run, not judged -> not evaluated
    assert sqlmetrics.recall_at_k(run, qrels=qrels, **COLS) == 0.5
    assert sqlmetrics.mean_average_precision(run, qrels=qrels, **COLS) == 0.25
    # q2 is missing, not empty: empty= alone no longer counts it (trec_eval's default)
    assert sqlmetrics.recall_at_k(run, qrels=qrels, empty="zero", **COLS) == 0.5
    assert sqlmetrics.recall_at_k(run, qrels=qrels, empty="error", **COLS) == 0.5
    assert sqlmetrics.recall_at_k(run, qrels=qrels, missing="zero", **COLS) == 0.25
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"recall_at_k: 1 judged group\(s\) of qrels= have no row in the "
        r"run, e\.g\. group q2; with missing='error'",
    ):
        sqlmetrics.recall_at_k(run, qrels=qrels, missing="error", **COLS)


def test_item_order_breaks_ties_in_the_column_type() -> None:
    # numeric ids: 10 > 9; text ids: "9" > "10" (trec_eval compares byte strings)
    numbers = pd.DataFrame({"g": 0, "i": [9, 10], "s": [1.0, 1.0], "y": [1.0, 0.0]})
    assert sqlmetrics.mrr(numbers, **COLS) == 0.5
    assert sqlmetrics.mrr(numbers.astype({"i": str}), **COLS) == 1.0
    assert sqlmetrics.mrr(numbers, ties="item_asc", **COLS) == 1.0


def test_precision_divides_by_k_even_for_short_lists() -> None:
    frame = pd.DataFrame({"g": 0, "i": ["a", "b"], "s": [1.0, 0.5], "y": [1.0, 1.0]})
    assert sqlmetrics.precision_at_k(frame, k=10, **COLS) == 0.2
    assert sqlmetrics.precision_at_k(frame, **COLS) == 1.0


def test_ap_denominators() -> None:
    # relevant at positions 1 and 3 of 4; 3 relevant in all
    frame = pd.DataFrame({"g": 0, "i": list("abcd"), "s": [4.0, 3, 2, 1], "y": [1.0, 0, 1, 1]})
    ap = sqlmetrics.mean_average_precision
    assert ap(frame, k=3, **COLS) == pytest.approx((1 + 2 / 3) / 3)
    assert ap(frame, k=2, ap_denominator="min_k_relevant", **COLS) == pytest.approx(1 / 2)
    assert ap(frame, k=3, ap_denominator="hits", **COLS) == pytest.approx((1 + 2 / 3) / 2)
