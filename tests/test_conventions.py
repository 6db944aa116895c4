"""``convention=``: each named tool reproduced, against the tool itself where it installs here
(pytrec-eval-terrier for trec_eval, ranx, scikit-learn) and against an oracle of its published
reference code where it does not (torchmetrics, recommenders, Spark: tests/oracle/conventions.py).

The random data hold everything the tools disagree on: tied scores, groups without a relevant
item, relevant items the run never retrieved, judged groups missing from the run, run groups
without judgments, and cut-offs beyond the list length.
"""

from __future__ import annotations

import inspect
import math
import random
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from click.testing import CliRunner
from conftest import seeds
from docpages import page
from oracle import conventions as oracle
from ranx import Qrels, Run
from ranx import evaluate as ranx_evaluate
from sklearn import metrics as skm
from test_trec import MEASURES, TREC, expected_values

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._core.conventions import CONVENTIONS, DEFINITIONAL
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics.errors import InvalidParameterError, SkippedGroupsWarning
from tools.docs import CONVENTIONS_END, CONVENTIONS_START, conventions_table, section

CONVENTIONS_PAGE = page("concepts/conventions.md")
COLS = {"group": "group", "item": "item", "score": "score", "label": "label"}
CUTS = (1, 3, 5, 20)  # 20: beyond every list
SEEDS = seeds(8)  # 3 in the fast tier


# ----------------------------------------------------------------------------- random data
def judged_run(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(run, qrels): 8 judged queries (q6, q7 absent from the run; some with no relevant
    item), one run query without judgments (q8), scores on a coarse grid (ties), judged
    relevant documents the run never retrieved.
    """
    rnd = random.Random(seed)
    docs = [f"d{i:02d}" for i in range(12)]
    qrels, run = [], []
    for q in range(8):
        judged = rnd.sample(docs, rnd.randint(1, 8))
        empty = rnd.random() < 0.25
        for d in judged:
            qrels.append((f"q{q}", d, 0 if empty else rnd.choice([0, 0, 1, 2])))
    for q in [*range(6), 8]:
        for d in rnd.sample(docs, rnd.randint(1, 8)):
            run.append((f"q{q}", d, rnd.randint(0, 4) / 4 + 0.25))
    return (
        pd.DataFrame(run, columns=["group", "item", "score"]),
        pd.DataFrame(qrels, columns=["group", "item", "label"]),
    )


def labelled(seed: int, ties: bool = True, graded: bool = True) -> pd.DataFrame:
    """One table of group, item, score, label: 2..7 items per group, some groups empty."""
    rnd = random.Random(seed)
    rows = []
    for g in range(9):
        n = rnd.randint(2, 7)
        empty = rnd.random() < 0.25
        scores = (
            [rnd.randint(0, 3) / 4 + 0.25 for _ in range(n)]
            if ties
            else rnd.sample([(i + 1) / 64 for i in range(60)], n)
        )
        for i in range(n):
            label = 0 if empty else rnd.choice([0, 1, 2, 3] if graded else [0, 1])
            rows.append((f"g{g}", f"i{i:02d}", scores[i], label))
    return pd.DataFrame(rows, columns=["group", "item", "score", "label"])


def test_the_random_data_hold_every_case() -> None:
    """What the tests below claim to cover is in their data: in every seed, judged queries
    absent from the run, a run query without judgments, relevant judged documents the run
    never retrieved, a retrieved judged query without a relevant document, tied scores in a
    query, lists shorter than the largest cut-off; labelled(): ties, short lists, and groups
    without a relevant item in some seeds.
    """
    empty_seen = 0
    for seed in SEEDS:
        run, qrels = judged_run(seed)
        judged, ran = set(qrels["group"]), set(run["group"])
        assert judged - ran and ran - judged, seed
        relevant = qrels[qrels["label"] >= 1]
        retrieved = set(zip(run["group"], run["item"]))
        assert any((g, i) not in retrieved for g, i in zip(relevant["group"], relevant["item"]))
        assert run.duplicated(["group", "score"]).any(), seed
        assert run.groupby("group").size().max() < max(CUTS), seed
        assert (judged - set(relevant["group"])) & ran, seed  # judged, retrieved, no relevant
        frame = labelled(seed)
        assert frame.duplicated(["group", "score"]).any()
        assert frame.groupby("group").size().max() < max(CUTS)
        empty_seen += (frame.groupby("group")["label"].max() == 0).sum()
    assert empty_seen >= 1


def ranked_lists(frame: pd.DataFrame) -> dict[str, list[tuple[Any, float, float]]]:
    """group -> [(item, score, label)] in ties='item_desc' order (score desc, item desc)."""
    out: dict[str, list[tuple[Any, float, float]]] = {}
    for row in frame.sort_values(["score", "item"], ascending=False).itertuples():
        out.setdefault(str(row.group), []).append((row.item, float(row.score), float(row.label)))
    return out


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ----------------------------------------------------------------------------- trec_eval
TREC_NAMES = {"map": "map", "ndcg": "ndcg", "Rprec": "r_precision", "recip_rank": "mrr"}
for _k in CUTS:
    TREC_NAMES.update(
        {
            f"P_{_k}": f"precision@{_k}",
            f"recall_{_k}": f"recall@{_k}",
            f"ndcg_cut_{_k}": f"ndcg@{_k}",
            f"map_cut_{_k}": f"map@{_k}",
            f"success_{_k}": f"hit_rate@{_k}",
        }
    )


def pytrec(run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, dict[str, float]]:
    """pytrec_eval per query: {query: {measure: value}} for the queries of both inputs."""
    judged: dict[str, dict[str, int]] = {}
    for r in qrels.itertuples():
        judged.setdefault(str(r.group), {})[str(r.item)] = int(r.label)
    scored: dict[str, dict[str, float]] = {}
    for r in run.itertuples():
        scored.setdefault(str(r.group), {})[str(r.item)] = float(r.score)
    cuts = ",".join(map(str, CUTS))
    measures = {"map", "ndcg", "Rprec", "recip_rank"} | {
        f"{m}.{cuts}" for m in ("P", "recall", "ndcg_cut", "map_cut", "success")
    }
    return dict(pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(scored))


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_and_trec_eval_c_match_pytrec_eval(seed: int) -> None:
    """trec_eval: mean over the judged queries the run holds (no relevant item: 0). trec_eval
    -c (pytrec_eval has no -c switch): the same sums over every judged query, the absent ones
    adding 0, which is what -c does (trec_eval's own -c output is checked below too).
    """
    run, qrels = judged_run(seed)
    per_query = pytrec(run, qrels)
    assert per_query and len(per_query) < qrels["group"].nunique()  # some judged queries absent
    names = list(TREC_NAMES)
    for convention, n_queries in (
        ("trec_eval", len(per_query)),
        ("trec_eval_c", qrels["group"].nunique()),
    ):
        got = sqlmetrics.evaluate(
            run, [TREC_NAMES[m] for m in names], qrels=qrels, convention=convention, **COLS
        ).iloc[0]
        for m in names:
            want = sum(v[m] for v in per_query.values()) / n_queries
            assert close(got[TREC_NAMES[m]], want), (convention, m, got[TREC_NAMES[m]], want)
    # the single functions agree with evaluate
    assert close(
        sqlmetrics.ndcg(run, k=5, qrels=qrels, convention="trec_eval", **COLS),
        sum(v["ndcg_cut_5"] for v in per_query.values()) / len(per_query),
    )


@pytest.mark.parametrize(
    ("case", "convention", "options"),
    [
        ("out.test.aq", "trec_eval", {}),
        ("out.test.aql", "trec_eval", {"relevance_level": 2}),  # -l2: trec_eval's own switch
        ("out.test.aqc", "trec_eval_c", {}),
    ],
)
def test_trec_eval_conventions_reproduce_its_test_suite(
    case: str, convention: str, options: dict[str, Any]
) -> None:
    qrels_file = {"out.test.aql": "qrels.rel_level"}.get(case, "qrels.test")
    run_file = "results.trunc" if case == "out.test.aqc" else "results.test"
    run = sqlmetrics.read_trec_run(TREC / run_file)
    qrels = sqlmetrics.read_trec_qrels(TREC / qrels_file)
    expected = expected_values(case)
    wanted = {
        m: f"{name.removesuffix('_at_k')}@{kw['k']}" if "k" in kw else name
        for m, (name, kw) in MEASURES.items()
    }
    got = sqlmetrics.evaluate(
        run, sorted(set(wanted.values())), qrels=qrels, convention=convention, **options, **COLS
    ).iloc[0]
    bad = [
        (m, got[w], expected[(m, "all")])
        for m, w in wanted.items()
        if abs(got[w] - expected[(m, "all")]) > 5e-5 + 1e-12
    ]
    assert not bad, bad


# ----------------------------------------------------------------------------- ranx
RANX = {"map": "map", "ndcg": "ndcg", "mrr": "mrr", "r-precision": "r_precision"}
for _k in CUTS:
    RANX.update(
        {
            f"precision@{_k}": f"precision@{_k}",
            f"recall@{_k}": f"recall@{_k}",
            f"ndcg@{_k}": f"ndcg@{_k}",
            f"map@{_k}": f"map@{_k}",
            f"mrr@{_k}": f"mrr@{_k}",
            f"hit_rate@{_k}": f"hit_rate@{_k}",
        }
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_ranx_matches_ranx(seed: int) -> None:
    """ranx.evaluate(make_comparable=True): every judged query, absent ones 0; equal scores
    in the run's input order, here item descending (ties='item_desc', the default).
    """
    run, qrels = judged_run(seed)
    judged: dict[str, dict[str, int]] = {}
    for r in qrels.itertuples():
        judged.setdefault(str(r.group), {})[str(r.item)] = int(r.label)
    ordered = run.sort_values(["group", "score", "item"], ascending=[True, False, False])
    scored: dict[str, dict[str, float]] = {}
    for r in ordered.itertuples():
        scored.setdefault(str(r.group), {})[str(r.item)] = float(r.score)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx_evaluate(Qrels(judged), Run(scored), list(RANX), make_comparable=True)
    got = sqlmetrics.evaluate(
        run, sorted(set(RANX.values())), qrels=qrels, convention="ranx", **COLS
    ).iloc[0]
    for metric, ours in RANX.items():
        assert math.isclose(got[ours], want[metric], rel_tol=1e-9, abs_tol=1e-12), (
            metric,
            got[ours],
            want[metric],
        )


# ----------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_ndcg_and_dcg_match_sklearn(seed: int) -> None:
    """ndcg_score / dcg_score row by row (one row per group), averaged: tied scores averaged
    (ignore_ties=False), linear gain, an all-zero row counts 0, k beyond the row, log_base.
    """
    frame = labelled(seed)
    groups = [g for _, g in frame.groupby("group")]
    for k in (1, 3, None, 20):
        kwargs = {"k": k} if k is not None else {}
        want = np.mean([skm.ndcg_score([g["label"]], [g["score"]], **kwargs) for g in groups])
        got = sqlmetrics.ndcg(frame, k=k, convention="sklearn", **COLS)
        assert math.isclose(got, want, rel_tol=1e-12), (k, got, want)
        for base in (2, 10):
            want = np.mean(
                [skm.dcg_score([g["label"]], [g["score"]], log_base=base, **kwargs) for g in groups]
            )
            got = sqlmetrics.dcg(frame, k=k, log_base=base, convention="sklearn", **COLS)
            assert math.isclose(got, want, rel_tol=1e-12), (k, base, got, want)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_classification_matches_sklearn(seed: int) -> None:
    """zero_division: scikit-learn's 0 where a class has no predicted / no true positive."""
    rng = np.random.default_rng(seed)
    n = 12
    label = rng.integers(0, 2, n) if seed % 3 else np.zeros(n, dtype=int)
    score = rng.integers(0, 4, n) / 4 if seed % 2 else np.full(n, 0.25)
    frame = pd.DataFrame({"label": label, "score": score})
    predicted = (score >= 0.5).astype(int)
    pairs = {
        "precision": skm.precision_score,
        "recall": skm.recall_score,
        "f1": skm.f1_score,
        "accuracy": skm.accuracy_score,
        "mcc": skm.matthews_corrcoef,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, function in pairs.items():
            want = function(label, predicted)
            got = getattr(sqlmetrics, name)(frame, convention="sklearn")
            assert math.isclose(got, want, abs_tol=1e-12), (name, got, want)
        want = skm.average_precision_score(label, score)  # no positive: 0 (with a warning)
        got = sqlmetrics.average_precision(frame, convention="sklearn")
        assert math.isclose(got, want, abs_tol=1e-12), ("average_precision", got, want)
        got = sqlmetrics.evaluate(frame, ["average_precision"], convention="sklearn")
        assert math.isclose(got["average_precision"].iloc[0], want, abs_tol=1e-12)
        for beta in (2.0, 0.0):  # beta=0: precision
            want = skm.fbeta_score(label, predicted, beta=beta)
            got = sqlmetrics.fbeta(frame, beta=beta, convention="sklearn")
            assert math.isclose(got, want, abs_tol=1e-12), (beta, got, want)
        classes = pd.DataFrame(
            {"y": rng.choice(["a", "b", "c"], n), "p": rng.choice(["a", "b"], n)}
        )
        for average in ("macro", "weighted", "micro"):
            want = skm.f1_score(classes["y"], classes["p"], average=average)
            got = sqlmetrics.f1(
                classes, label="y", prediction="p", average=average, convention="sklearn"
            )
            assert math.isclose(got, want, abs_tol=1e-12), (average, got, want)
            want = skm.fbeta_score(classes["y"], classes["p"], beta=0.0, average=average)
            got = sqlmetrics.fbeta(
                classes, label="y", prediction="p", beta=0.0, average=average, convention="sklearn"
            )
            assert math.isclose(got, want, abs_tol=1e-12), ("fbeta 0", average, got, want)


def test_sklearn_zero_division_warn_is_zero_with_a_warning() -> None:
    """scikit-learn's default zero_division="warn": 0.0 with an UndefinedMetricWarning where
    the value is 0/0; zero_division=0 the same value silently; mcc 0 silently. Under
    convention="sklearn", zero_division="warn" means that too (without it: NaN + warning).
    """
    label = np.array([0, 1, 0, 1, 0])
    frame = pd.DataFrame({"label": label, "score": [0.1, 0.2, 0.3, 0.2, 0.1]})  # none >= 0.5
    predicted = np.zeros(5, dtype=int)
    sk = {"convention": "sklearn"}
    for name in ("precision", "recall", "f1", "fbeta"):
        kwargs = {"beta": 2.0} if name == "fbeta" else {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            want = getattr(skm, f"{name}_score")(label, predicted, **kwargs)
        warned = any(
            issubclass(w.category, skm._classification.UndefinedMetricWarning) for w in caught
        )
        assert warned == (name == "precision"), name  # f1 = 2tp / (2tp + fp + fn): fn > 0
        for passed in ({}, {"zero_division": "warn"}):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = getattr(sqlmetrics, name)(frame, **kwargs, **passed, **sk)
            ours = [w for w in caught if issubclass(w.category, sqlmetrics.UndefinedMetricWarning)]
            assert got == want == 0.0 and bool(ours) == warned, (name, passed, got, ours)
        with warnings.catch_warnings():
            warnings.simplefilter("error", sqlmetrics.UndefinedMetricWarning)
            assert getattr(sqlmetrics, name)(frame, zero_division=0.0, **kwargs, **sk) == 0.0
    with pytest.warns(sqlmetrics.UndefinedMetricWarning):
        assert math.isnan(sqlmetrics.precision(frame))  # no convention: NaN
    no_positive = frame.assign(label=0)
    with pytest.warns(skm._classification.UndefinedMetricWarning):
        want = skm.recall_score(no_positive["label"], predicted)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="recall is undefined"):
        assert sqlmetrics.recall(no_positive, **sk) == want == 0.0
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=r"precision is undefined in 1"):
        out = sqlmetrics.evaluate(frame, ["precision", "recall"], **sk)
    assert out["precision"].iloc[0] == 0.0 and out["recall"].iloc[0] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", sqlmetrics.UndefinedMetricWarning)
        assert sqlmetrics.mcc(frame, **sk) == skm.matthews_corrcoef(label, predicted) == 0.0
    # multiclass: a class never predicted counts 0 in the macro average, with the warning
    classes = pd.DataFrame({"y": ["a", "b", "c", "a"], "p": ["a", "a", "b", "a"]})
    with pytest.warns(skm._classification.UndefinedMetricWarning):
        want = skm.precision_score(classes["y"], classes["p"], average="macro")
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=r"count as 0 in the macro"):
        got = sqlmetrics.precision(classes, label="y", prediction="p", average="macro", **sk)
    assert close(got, want)


# ----------------------------------------------------------------------------- torchmetrics
TM_METRICS = ("precision_at_k", "recall_at_k", "map", "mrr", "hit_rate", "r_precision")


@pytest.mark.parametrize("seed", SEEDS)
def test_torchmetrics_matches_its_reference_code(seed: int) -> None:
    """Untied scores (torchmetrics' topk order is unspecified for ties), binary targets;
    ndcg also on tied, graded data (torchmetrics averages ties like scikit-learn).
    empty_target_action neg / pos / skip = empty zero (the convention) / one / skip.
    """
    frame = labelled(seed, ties=False, graded=False)
    queries = list(ranked_lists(frame).values())
    for action, empty in (("neg", None), ("pos", "one"), ("skip", "skip")):
        extra = {"empty": empty} if empty else {}
        for name in TM_METRICS:
            function = getattr(sqlmetrics, REGISTRY[name].function)
            for k in (None, 1, 3, 20) if REGISTRY[name].takes_k else (None,):
                kw = {"k": k} if REGISTRY[name].takes_k else {}
                want = oracle.torchmetrics(name, queries, k, empty_target_action=action)
                got = function(frame, convention="torchmetrics", **kw, **extra, **COLS)
                assert close(got, want), (name, action, k, got, want)
        for k in (1, 3, 20):  # adaptive_k=True
            want = oracle.torchmetrics("precision_at_k", queries, k, action, adaptive_k=True)
            got = sqlmetrics.precision_at_k(
                frame,
                k=k,
                precision_denominator="min_k_retrieved",
                convention="torchmetrics",
                **extra,
                **COLS,
            )
            assert close(got, want), ("adaptive", action, k, got, want)
    graded = labelled(seed)
    tied = list(ranked_lists(graded).values())
    for k in (None, 1, 3, 20):
        want = oracle.torchmetrics("ndcg", tied, k)
        got = sqlmetrics.ndcg(graded, k=k, convention="torchmetrics", **COLS)
        assert close(got, want), ("ndcg", k, got, want)


# ----------------------------------------------------------------------------- recommenders
@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_matches_its_reference_code(seed: int) -> None:
    """rating_true = the relevant judged items with their labels, rating_pred = the run ranked
    item desc on ties: judged queries without a relevant item, run queries without
    judgments, judged queries absent from the run (left out, except by ndcg_at_k, where they
    count 0), relevant items never retrieved and k beyond every list. ndcg_at_k with
    score_type binary (0/1 labels), raw (graded, gain='linear') and exp
    (gain='exponential'); map() (ap_denominator='relevant') besides map_at_k.
    """
    run, qrels = judged_run(seed)
    relevant = qrels[qrels["label"] >= 1]
    true = {
        str(g): {str(i): float(r) for i, r in zip(f["item"], f["label"])}
        for g, f in relevant.groupby("group")
    }
    binary = {g: dict.fromkeys(items, 1.0) for g, items in true.items()}
    qrels01 = qrels.assign(label=qrels["label"].clip(0, 1))
    pred = {g: [r[0] for r in rows] for g, rows in ranked_lists(run.assign(label=0.0)).items()}
    assert set(pred) - set(true) and (seed != 0 or set(true) - set(pred))  # missing users
    rec = {"convention": "recommenders", **COLS}
    for k in CUTS:
        for name in ("precision_at_k", "recall_at_k", "map", "ndcg"):
            function = getattr(sqlmetrics, REGISTRY[name].function)
            want = oracle.recommenders(name, binary, pred, k)
            got = function(run, k=k, qrels=qrels01, **rec)
            assert close(got, want), (name, k, got, want)
        want = oracle.recommenders("map_full", binary, pred, k)
        got = sqlmetrics.mean_average_precision(
            run, k=k, qrels=qrels, ap_denominator="relevant", **rec
        )
        assert close(got, want), ("map()", k, got, want)
        for score_type, gain in (("raw", None), ("exp", "exponential")):
            want = oracle.recommenders("ndcg", true, pred, k, score_type=score_type)
            got = sqlmetrics.ndcg(run, k=k, qrels=qrels, gain=gain, **rec)
            assert close(got, want), (score_type, k, got, want)
        # one evaluate call: precision, recall and map share missing='skip'
        out = sqlmetrics.evaluate(run, [f"precision@{k}", f"map@{k}"], qrels=qrels01, **rec)
        assert close(out[f"map@{k}"].iloc[0], oracle.recommenders("map", binary, pred, k))


def test_recommenders_r_precision_at_k_is_not_covered() -> None:
    """Its code averages over the users with a hit in the top min(k, R) only and divides by R
    (its docstring says R is capped at k): no option here leaves those users out, so
    r_precision is outside the convention. The oracle shows the difference on data where a
    user has relevant items but no early hit.
    """
    true = {"u1": {"a": 1.0, "b": 1.0}, "u2": {"c": 1.0}, "u3": {"d": 1.0, "e": 1.0, "f": 1.0}}
    pred = {"u1": ["a", "x", "b"], "u2": ["y", "c"], "u3": ["d", "e", "f"]}
    # u1: 1 of R=2 within rank 2; u2: no hit within rank 1 (left out); u3 with k=2: the top 2
    # holds 2 hits, divided by R = 3 (not min(k, R) = 2)
    assert close(oracle.recommenders("r_precision_at_k", true, pred, 2), (1 / 2 + 2 / 3) / 2)
    with pytest.raises(InvalidParameterError, match=r"does not define r_precision"):
        sqlmetrics.r_precision(labelled(0), convention="recommenders", **COLS)


# ----------------------------------------------------------------------------- Spark
@pytest.mark.parametrize("seed", SEEDS)
def test_spark_matches_its_reference_code(seed: int) -> None:
    """One (predictions, labels[, relevance]) row per group: the group's items in ranked
    order, its relevant items; binary (no relevance) and graded (relevance given, labels in
    descending relevance so that Spark's ideal DCG is the ideal one).
    """
    frame = labelled(seed)
    lists = ranked_lists(frame)
    binary, graded = [], []
    for rows in lists.values():
        pred = [r[0] for r in rows]
        lab = sorted((r for r in rows if r[2] >= 1), key=lambda r: (-r[2], r[0]))
        binary.append((pred, [r[0] for r in lab], None))
        graded.append((pred, [r[0] for r in lab], [r[2] for r in lab]))
    as_binary = frame.assign(label=(frame["label"] >= 1).astype(int))
    for k in CUTS:
        for name in ("precision_at_k", "recall_at_k", "map"):
            function = getattr(sqlmetrics, REGISTRY[name].function)
            want = oracle.spark(name, binary, k)
            assert close(function(frame, k=k, convention="spark", **COLS), want), (name, k)
        got = sqlmetrics.ndcg(as_binary, k=k, convention="spark", **COLS)
        assert close(got, oracle.spark("ndcg", binary, k)), ("ndcg binary", k)
        got = sqlmetrics.ndcg(frame, k=k, convention="spark", **COLS)
        assert close(got, oracle.spark("ndcg", graded, k)), ("ndcg graded", k)


@pytest.mark.parametrize("seed", range(1))
def test_spark_binary_matches_pyspark_ranking_metrics(seed: int, spark: Any) -> None:
    """The real tool where it runs here: pyspark's ``RankingMetrics`` (local[2]) on one
    (ranked items, relevant items) row per group, groups without a relevant item included
    (Spark: 0), k beyond every list; binary relevance (pyspark's Python wrapper gave the
    binary values for rows with a relevance array too, when checked, so graded ndcg is
    tested against the oracle of RankingMetrics.scala above).
    """
    from pyspark.mllib.evaluation import RankingMetrics

    frame = labelled(seed)
    rows = [
        ([str(r[0]) for r in ranked], [str(r[0]) for r in ranked if r[2] >= 1])
        for ranked in ranked_lists(frame).values()
    ]
    assert any(not lab for _, lab in rows)  # an empty ground truth
    metrics = RankingMetrics(spark.sparkContext.parallelize(rows, 2))
    as_binary = frame.assign(label=(frame["label"] >= 1).astype(int))
    for k in CUTS:
        for name, want in (
            ("precision_at_k", metrics.precisionAt(k)),
            ("recall_at_k", metrics.recallAt(k)),
            ("map", metrics.meanAveragePrecisionAt(k)),
            ("ndcg", metrics.ndcgAt(k)),
        ):
            function = getattr(sqlmetrics, REGISTRY[name].function)
            got = function(as_binary, k=k, convention="spark", **COLS)
            assert close(got, want), (name, k, got, want)
            rows_oracle = [(p, lab, None) for p, lab in rows]
            assert close(oracle.spark(name, rows_oracle, k), want), ("oracle", name, k)


# ----------------------------------------------------------------------------- resolution
FRAME = pd.DataFrame(
    {
        "group": [1, 1, 1, 2, 2, 2, 3, 3],
        "item": ["a", "b", "c", "a", "b", "c", "a", "b"],
        "score": [0.9, 0.8, 0.1, 0.3, 0.7, 0.5, 0.2, 0.1],
        "label": [1, 0, 2, 0, 0, 1, 0, 0],
    }
)


def test_a_convention_fills_only_what_was_not_passed() -> None:
    # trec_eval: gain linear, empty zero; -l is trec_eval's own switch, so it may be passed
    assert sqlmetrics.ndcg(FRAME, k=2, convention="trec_eval") == sqlmetrics.ndcg(
        FRAME, k=2, gain="linear", empty="zero", ties="item_desc"
    )
    assert sqlmetrics.ndcg(FRAME, k=2, convention="trec_eval", relevance_level=2) == (
        sqlmetrics.ndcg(FRAME, k=2, gain="linear", empty="zero", relevance_level=2)
    )
    # torchmetrics' empty_target_action: an explicit empty= wins
    assert sqlmetrics.mrr(FRAME, convention="torchmetrics", empty="one") == (1 + 0.5 + 1) / 3


def test_every_convention_option_is_a_declared_option_with_a_valid_value() -> None:
    from sqlmetrics._core.registry import PARAMS

    for convention in CONVENTIONS.values():
        for option, value in convention.sets.items():
            assert PARAMS[option].validate("test", value) == value or math.isnan(value)
        for metric in convention.metrics:
            assert metric in REGISTRY, (convention.name, metric)
    assert {"ties", "gain", "empty", "missing", "ap_denominator"} <= DEFINITIONAL


def test_unknown_convention_lists_the_known_ones() -> None:
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.ndcg(FRAME, convention="trec")
    message = str(info.value)
    assert "ndcg: unknown convention='trec'; did you mean 'trec_eval'? known conventions:" in (
        message
    )
    assert all(name in message for name in CONVENTIONS)


def test_a_value_the_tool_cannot_produce_is_an_error_naming_the_option() -> None:
    with pytest.raises(InvalidParameterError, match=r"ndcg: ties='average' cannot be reproduced"):
        sqlmetrics.ndcg(FRAME, convention="trec_eval", ties="average")
    with pytest.raises(InvalidParameterError, match=r"empty='one' cannot be reproduced"):
        sqlmetrics.mrr(FRAME, convention="trec_eval", empty="one")
    frame = FRAME.assign(label=FRAME["label"].clip(0, 1))
    with pytest.raises(InvalidParameterError, match=r"empty='skip' cannot be reproduced"):
        sqlmetrics.ndcg(frame, convention="sklearn", empty="skip")
    with pytest.raises(InvalidParameterError, match=r"missing='skip' cannot be reproduced"):
        sqlmetrics.ndcg(FRAME, convention="ranx", missing="skip")
    with pytest.raises(InvalidParameterError, match=r"gain='exponential' cannot be reproduced"):
        sqlmetrics.evaluate(FRAME, ["ndcg@3"], convention="sklearn", gain="exponential", **COLS)


def test_one_evaluate_call_cannot_mix_a_conventions_per_metric_values() -> None:
    # torchmetrics averages ties in ndcg only; one call shares one order
    with pytest.raises(InvalidParameterError, match=r"sets ties='item_desc' for map but"):
        sqlmetrics.evaluate(FRAME, ["map@3", "ndcg@3"], convention="torchmetrics", **COLS)
    out = sqlmetrics.evaluate(
        FRAME, ["map@3", "ndcg@3"], convention="torchmetrics", ties="item_desc", **COLS
    )
    assert close(
        out["map@3"].iloc[0],
        sqlmetrics.mean_average_precision(FRAME, k=3, convention="torchmetrics"),
    )


def test_a_metric_the_tool_does_not_define_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match=r"does not define auc.*: sklearn"):
        sqlmetrics.auc(FRAME.assign(label=FRAME["label"].clip(0, 1)), convention="trec_eval")
    with pytest.raises(InvalidParameterError, match=r"convention='sklearn' does not define map"):
        sqlmetrics.evaluate(FRAME, ["ndcg@3", "map@3"], convention="sklearn", **COLS)


def test_render_and_render_evaluate_take_a_convention() -> None:
    plain = sqlmetrics.render("ndcg@3", "runs", group="g", item="i")
    trec = sqlmetrics.render("ndcg@3", "runs", group="g", item="i", convention="trec_eval")
    assert "label as gain," in trec and "label as gain," not in plain  # linear gain
    assert sqlmetrics.render_evaluate(
        "runs", ["ndcg@3"], group="g", item="i", convention="trec_eval"
    ) != sqlmetrics.render_evaluate("runs", ["ndcg@3"], group="g", item="i")


def test_cli_convention(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    FRAME.to_csv(path, index=False)
    base = ["eval", str(path), "-m", "ndcg@2", "--group", "group", "--item", "item"]
    out = CliRunner().invoke(cli.main, [*base, "--convention", "trec_eval", "--format", "json"])
    assert out.exit_code == 0, out.output
    want = sqlmetrics.ndcg(FRAME, k=2, convention="trec_eval")
    assert str(round(want, 6))[:6] in out.output
    bad = CliRunner().invoke(cli.main, [*base, "--convention", "trec"])
    assert bad.exit_code != 0 and "trec_eval" in bad.output


# ----------------------------------------------------------------------------- new options
def test_empty_one_counts_an_empty_group_as_one() -> None:
    skip = sqlmetrics.ndcg(FRAME, k=2, empty="skip")
    assert close(sqlmetrics.ndcg(FRAME, k=2, empty="one"), (2 * skip + 1) / 3)
    out = sqlmetrics.evaluate(FRAME, ["ndcg@2", "mrr"], empty="one", **COLS)
    assert close(out["ndcg@2"].iloc[0], (2 * skip + 1) / 3) and out["n_groups"].iloc[0] == 3
    sliced = sqlmetrics.evaluate(FRAME, ["ndcg@2", "mrr"], by="group", empty="one", **COLS)
    assert sliced.loc[sliced["group"] == 3, ["ndcg@2", "mrr"]].to_numpy().tolist() == [[1, 1]]
    assert sliced["n_groups"].tolist() == [1, 1, 1]


def test_empty_one_is_refused_for_hit_ratio() -> None:
    with pytest.raises(InvalidParameterError, match=r"hit_ratio: empty='one'.*no per-group"):
        sqlmetrics.hit_ratio(FRAME, empty="one")


def test_new_option_values_are_checked() -> None:
    with pytest.raises(InvalidParameterError, match=r"dcg: log_base= must be a finite number > 1"):
        sqlmetrics.dcg(FRAME, log_base=1)
    with pytest.raises(InvalidParameterError, match=r"precision_denominator= must be one of"):
        sqlmetrics.precision_at_k(FRAME, k=2, precision_denominator="n")


def test_skipped_groups_warn_unless_chosen() -> None:
    with pytest.warns(SkippedGroupsWarning, match=r"ndcg: 1 of 3 group\(s\) have no relevant"):
        sqlmetrics.ndcg(FRAME, k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SkippedGroupsWarning)
        sqlmetrics.ndcg(FRAME, k=2, empty="skip")
        sqlmetrics.ndcg(FRAME, k=2, convention="recommenders")
        sqlmetrics.ndcg(FRAME.assign(label=1), k=2)  # nothing skipped


# ----------------------------------------------------------------------------- the site
def test_site_conventions_table_is_generated() -> None:
    table = section(CONVENTIONS_PAGE, CONVENTIONS_START, CONVENTIONS_END).strip()
    assert table == conventions_table().strip(), (
        "the conventions table of docs/concepts/conventions.md is stale: run `python -m tools.docs`"
    )
    assert re.search(r"## Coming from trec_eval / scikit-learn / ranx", CONVENTIONS_PAGE)


# ----------------------------------------------------------------------------- issue 14 metrics
def test_every_metric_function_takes_convention() -> None:
    """Every registered metric's function, and every exported function taking ``con=``, has a
    keyword-only ``convention=None`` just before ``con``: a new metric cannot forget it.
    """
    functions = {spec.function for spec in REGISTRY.values()}
    functions |= {
        name
        for name in sqlmetrics.__all__
        if inspect.isfunction(getattr(sqlmetrics, name))
        and "con" in inspect.signature(getattr(sqlmetrics, name)).parameters
        and name != "evaluate"  # takes convention= among **options (tested above)
        and name != "compare"  # convention= before con=, then evaluate's **options
        and name not in ("report", "state", "merge")  # evaluate's arguments, then **options
        and name != "metric_anomalies"  # reads a daily table of values: no definitions to pick
        and name != "off_policy_value"  # obp's estimators: one definition each, nothing to pick
        and name not in ("position_propensities", "click_metrics")  # one estimator each
    }
    assert {"jaccard", "multiclass_auc", "rbp", "novelty", "spearman"} <= functions
    missing = []
    for name in sorted(functions):
        parameters = list(inspect.signature(getattr(sqlmetrics, name)).parameters.values())
        names = [p.name for p in parameters]
        ok = "convention" in names and names[names.index("convention") + 1 :] == ["con"]
        if ok:
            p = parameters[names.index("convention")]
            ok = p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None
        if not ok:
            missing.append(name)
    assert not missing, missing


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_bpref_and_gm_map_match_pytrec_eval(seed: int) -> None:
    """bpref and gm_map (AP floored at 1e-5, geometric mean) as trec_eval and trec_eval -c."""
    run, qrels = judged_run(seed)
    judged: dict[str, dict[str, int]] = {}
    for r in qrels.itertuples():
        judged.setdefault(str(r.group), {})[str(r.item)] = int(r.label)
    scored: dict[str, dict[str, float]] = {}
    for r in run.itertuples():
        scored.setdefault(str(r.group), {})[str(r.item)] = float(r.score)
    per_query = pytrec_eval.RelevanceEvaluator(judged, {"bpref", "map"}).evaluate(scored)
    for convention, n_queries in (
        ("trec_eval", len(per_query)),
        ("trec_eval_c", qrels["group"].nunique()),
    ):
        want = sum(v["bpref"] for v in per_query.values()) / n_queries
        got = sqlmetrics.bpref(run, qrels=qrels, convention=convention, **COLS)
        assert close(got, want), (convention, got, want)
        aps = [v["map"] for v in per_query.values()] + [0.0] * (n_queries - len(per_query))
        want = math.exp(sum(math.log(max(ap, 1e-5)) for ap in aps) / n_queries)
        got = sqlmetrics.gm_map(run, qrels=qrels, convention=convention, **COLS)
        assert math.isclose(got, want, rel_tol=1e-9), (convention, got, want)
        got = sqlmetrics.evaluate(
            run, ["bpref", "gm_map"], qrels=qrels, convention=convention, **COLS
        ).iloc[0]
        assert math.isclose(got["gm_map"], want, rel_tol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_trec_eval_iprec_matches_pytrec_eval(seed: int) -> None:
    """iprec_at_recall and 11pt_avg as trec_eval 9 (pytrec_eval): recall level p reached at
    (long)(p R + 0.9) relevant items (recall_rounding='trec_eval_9', which the trec_eval
    conventions set), an absent query 0 under trec_eval -c.
    """
    run, qrels = judged_run(seed)
    judged: dict[str, dict[str, int]] = {}
    for r in qrels.itertuples():
        judged.setdefault(str(r.group), {})[str(r.item)] = int(r.label)
    scored: dict[str, dict[str, float]] = {}
    for r in run.itertuples():
        scored.setdefault(str(r.group), {})[str(r.item)] = float(r.score)
    levels = (0.2, 0.3, 0.6, 0.7)
    measures = {"11pt_avg", "iprec_at_recall." + ",".join(map(str, levels))}
    per_query = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(scored)
    for convention, n_queries in (
        ("trec_eval", len(per_query)),
        ("trec_eval_c", qrels["group"].nunique()),
    ):
        want = sum(v["11pt_avg"] for v in per_query.values()) / n_queries
        got = sqlmetrics.iprec_11pt_avg(run, qrels=qrels, convention=convention, **COLS)
        assert close(got, want), (convention, got, want)
        for level in levels:
            want = sum(v[f"iprec_at_recall_{level:.2f}"] for v in per_query.values()) / n_queries
            got = sqlmetrics.evaluate(
                run, ["iprec_at_recall"], qrels=qrels, convention=convention,
                recall_level=level, **COLS,
            )["iprec_at_recall"].iloc[0]  # fmt: skip
            assert close(got, want), (convention, level, got, want)


def test_trec_eval_10s_recall_rounding_is_its_switch() -> None:
    """trec_eval 10 rounds (lround(p R)): convention='trec_eval' accepts it, ir_measures
    (pytrec_eval's trec_eval 9) cannot produce it; rbp stays uncovered."""
    run, qrels = judged_run(1)
    v9 = sqlmetrics.iprec_11pt_avg(run, qrels=qrels, convention="trec_eval", **COLS)
    v10 = sqlmetrics.iprec_11pt_avg(
        run, qrels=qrels, convention="trec_eval", recall_rounding="trec_eval_10", **COLS
    )
    plain = sqlmetrics.iprec_11pt_avg(run, qrels=qrels, ties="text_desc", empty="zero", **COLS)
    assert v10 == plain != v9
    with pytest.raises(
        InvalidParameterError,
        match=r"^iprec_at_recall: recall_rounding='trec_eval_10' cannot be reproduced with "
        r"convention='ir_measures': ir_measures uses recall_rounding='trec_eval_9'\. Leave "
        r"recall_rounding= out to follow ir_measures, or drop convention=$",
    ):
        sqlmetrics.iprec_at_recall(
            run, qrels=qrels, convention="ir_measures", recall_rounding="trec_eval_10", **COLS
        )
    with pytest.raises(InvalidParameterError, match=r"does not define .*conventions that"):
        sqlmetrics.rbp(labelled(0), convention="trec_eval", **COLS)


@pytest.mark.parametrize("seed", SEEDS)
def test_sklearn_issue_14_metrics_match_sklearn(seed: int) -> None:
    """The agreement, multiclass-score, partial AUC and calibration metrics under
    convention="sklearn" equal scikit-learn on random data with ties.
    """
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(seed)
    n = 30
    y = rng.choice(["a", "b", "c"], n)
    p = np.where(rng.random(n) < 0.6, y, rng.choice(["a", "b", "c"], n))
    classes = pd.DataFrame({"label": y, "prediction": p})
    sk = {"convention": "sklearn"}
    assert close(sqlmetrics.balanced_accuracy(classes, **sk), skm.balanced_accuracy_score(y, p))
    assert close(
        sqlmetrics.balanced_accuracy(classes, adjusted=True, **sk),
        skm.balanced_accuracy_score(y, p, adjusted=True),
    )
    assert close(sqlmetrics.cohen_kappa(classes, **sk), skm.cohen_kappa_score(y, p))
    assert close(sqlmetrics.hamming_loss(classes, **sk), skm.hamming_loss(y, p))
    for average in ("macro", "micro", "weighted"):
        want = skm.jaccard_score(y, p, average=average)
        assert close(sqlmetrics.jaccard(classes, average=average, **sk), want), average
    # binary scores with ties: partial AUC (also through auc(max_fpr=)), calibration curve
    label = rng.integers(0, 2, n)
    score = rng.integers(0, 8, n) / 8 + 0.0625
    binary = pd.DataFrame({"label": label, "score": score})
    want = skm.roc_auc_score(label, score, max_fpr=0.3)
    assert close(sqlmetrics.partial_auc(binary, max_fpr=0.3, **sk), want)
    assert close(sqlmetrics.auc(binary, max_fpr=0.3, **sk), want)
    fraction, mean = calibration_curve(label, score, n_bins=4)
    curve = sqlmetrics.calibration_curve(binary, n_bins=4, **sk)
    assert np.allclose(curve["fraction_positive"].dropna(), fraction, rtol=1e-12)
    assert np.allclose(curve["mean_predicted"].dropna(), mean, rtol=1e-12)
    # multiclass scores, long form (row, class, score, 0/1 label); tied scores
    scores = rng.integers(1, 5, (n, 3)).astype(float)
    scores /= scores.sum(axis=1, keepdims=True)
    truth = rng.integers(0, 3, n)
    truth[:3] = [0, 1, 2]
    onehot = np.eye(3, dtype=int)[truth]
    long = pd.DataFrame(
        {
            "row": np.repeat(np.arange(n), 3),
            "cls": np.tile(["a", "b", "c"], n),
            "score": scores.reshape(-1),
            "label": onehot.reshape(-1),
        }
    )
    cols = {"row_id": "row", "class_col": "cls"}
    for multi_class in ("ovr", "ovo"):
        want = skm.roc_auc_score(truth, scores, multi_class=multi_class)
        got = sqlmetrics.multiclass_auc(long, multi_class=multi_class, **cols, **sk)
        assert close(got, want), multi_class
    for k in (1, 2):
        want = skm.top_k_accuracy_score(truth, scores, k=k)
        assert close(sqlmetrics.top_k_accuracy(long, k=k, **cols, **sk), want), k
    multilabel = np.where(rng.random((n, 3)) < 0.4, 1, onehot)
    long["label"] = multilabel.reshape(-1)
    want = skm.average_precision_score(multilabel, scores, average="macro")
    got = sqlmetrics.multilabel_average_precision(long, **cols, **sk)
    assert close(got, want)


def test_issue_14_metrics_a_tool_lacks_name_the_conventions_that_define_them() -> None:
    frame = labelled(0)
    with pytest.raises(InvalidParameterError, match=r"conventions that define it: none"):
        sqlmetrics.spearman(frame, convention="sklearn")
    with pytest.raises(InvalidParameterError, match=r"define it: sklearn\b"):
        sqlmetrics.partial_auc(frame, max_fpr=0.5, convention="ranx")
    with pytest.raises(InvalidParameterError, match=r"define it: trec_eval, trec_eval_c\b"):
        sqlmetrics.bpref(frame, convention="ranx", **COLS)
    with pytest.raises(InvalidParameterError, match=r"unknown convention='sklern'.*'sklearn'"):
        sqlmetrics.novelty(frame, train=frame, convention="sklern")


@pytest.mark.parametrize("seed", range(4))
def test_sklearn_pr_curve_without_a_positive_is_sklearns(seed: int) -> None:
    """No positive label: scikit-learn's recall 1 at every threshold (0 at the end), precision
    0, both with a warning; without the convention the recall stays NaN.
    """
    rng = np.random.default_rng(seed)
    score = rng.integers(0, 5, 10) / 5
    label = np.zeros(10, dtype=int)
    frame = pd.DataFrame({"label": label, "score": score})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, thresholds = skm.precision_recall_curve(label, score)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="no positive"):
        got = sqlmetrics.pr_curve(frame, convention="sklearn")
    assert np.array_equal(got["threshold"].iloc[:-1], thresholds)
    assert np.array_equal(got["precision"], precision)
    assert np.array_equal(got["recall"], recall)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning):
        assert sqlmetrics.pr_curve(frame)["recall"].isna().all()
