"""sqlmetrics._inference.compare: every test against its oracle (tests/oracle/compare.py), with tied
scores; shuffles, seeds, corrections; agreement with ranx."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from oracle import compare as oq

import sqlmetrics

TOL = 1e-9


def ranking_data(seed: int = 0, n_groups: int = 30, per_group: int = 8) -> pd.DataFrame:
    """Groups q of items doc with graded labels and three models' scores, rounded (ties)."""
    rng = np.random.default_rng(seed)
    n = n_groups * per_group
    frame = pd.DataFrame(
        {
            "q": np.repeat(np.arange(n_groups), per_group),
            "doc": np.arange(n),
            "label": rng.integers(0, 3, n),
            "country": rng.choice(["DE", "FR"], n),
        }
    )
    frame["a"] = (rng.random(n) + 0.1 * frame["label"]).round(1)
    frame["b"] = (rng.random(n) + 0.4 * frame["label"]).round(1)
    frame["c"] = (rng.random(n) + 0.2 * frame["label"]).round(1)
    return frame


def binary_data(seed: int = 1, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "q": rng.integers(0, 25, n),
            "label": label,
            "a": (rng.random(n) + 0.2 * label).round(2),
            "b": (rng.random(n) + 0.5 * label).round(2),
            "c": (rng.random(n) + 0.3 * label).round(1),
        }
    )


def row(out: pd.DataFrame, metric: str, model: str) -> pd.Series:
    hit = out[(out["metric"] == metric) & (out["model"] == model)]
    assert len(hit) == 1
    return hit.iloc[0]


@pytest.mark.parametrize(("metric", "name", "k"), [("ndcg@5", "ndcg", 5), ("mrr", "mrr", None)])
def test_paired_t_matches_scipy(metric: str, name: str, k: int | None) -> None:
    df = ranking_data()
    out = sqlmetrics.compare(df, metric, scores=["a", "b", "c"], group="q", item="doc")
    base = oq.group_values(name, df, "a", k)
    for model in ("b", "c"):
        other = oq.group_values(name, df, model, k)
        groups = [g for g in base if not (math.isnan(base[g]) or math.isnan(other[g]))]
        d, lo, hi, p = oq.paired_t([base[g] for g in groups], [other[g] for g in groups])
        got = row(out, metric, model)
        assert got["value"] == pytest.approx(np.mean([other[g] for g in groups]), abs=TOL)
        assert got["diff"] == pytest.approx(d, abs=TOL)
        assert got["diff_lo"] == pytest.approx(lo, abs=TOL)
        assert got["diff_hi"] == pytest.approx(hi, abs=TOL)
        assert got["p_value"] == pytest.approx(p, rel=1e-8)
        assert got["n_groups"] == len(groups) and got["test"] == "t"
    baseline = row(out, metric, "a")
    assert baseline["diff"] == 0 and math.isnan(baseline["p_value"])


def test_convention_as_in_evaluate() -> None:
    df = ranking_data()
    out = sqlmetrics.compare(
        df, "ndcg@5", scores=["a", "b"], group="q", item="doc", convention="trec_eval"
    )
    ev = sqlmetrics.evaluate(df, "ndcg@5", score="b", group="q", item="doc", convention="trec_eval")
    assert row(out, "ndcg@5", "b")["value"] == pytest.approx(ev["ndcg@5"][0], abs=1e-12)
    plain = sqlmetrics.compare(df, "ndcg@5", scores=["a", "b"], group="q", item="doc")
    assert row(plain, "ndcg@5", "b")["value"] != row(out, "ndcg@5", "b")["value"]


def test_value_equals_evaluate() -> None:
    df = ranking_data()
    out = sqlmetrics.compare(df, ["ndcg@5", "map"], scores=["a", "b"], group="q", item="doc")
    for model in ("a", "b"):
        ev = sqlmetrics.evaluate(df, ["ndcg@5", "map"], score=model, group="q", item="doc")
        for metric in ("ndcg@5", "map"):
            assert row(out, metric, model)["value"] == pytest.approx(ev[metric][0], abs=1e-12)


@pytest.mark.parametrize("weighting", ["samples", "uniform", "positives"])
def test_gauc_weighted_t(weighting: str) -> None:
    df = binary_data()
    out = sqlmetrics.compare(df, "gauc", scores=["a", "b"], group="q", weighting=weighting)
    base, other = oq.group_aucs(df, "a"), oq.group_aucs(df, "b")
    positives = df.groupby("q")["label"].sum()
    groups = [g for g in base if not math.isnan(base[g][0])]
    w = {
        "samples": [base[g][1] for g in groups],
        "uniform": [1.0] * len(groups),
        "positives": [float(positives[g]) for g in groups],
    }[weighting]
    d, lo, hi, p = oq.weighted_t([other[g][0] - base[g][0] for g in groups], w)
    got = row(out, "gauc", "b")
    gauc_b = sqlmetrics.gauc(df, score="b", group="q", weighting=weighting)
    assert got["value"] == pytest.approx(gauc_b, abs=1e-12)
    assert (got["diff"], got["diff_lo"], got["diff_hi"]) == pytest.approx((d, lo, hi), abs=TOL)
    assert got["p_value"] == pytest.approx(p, rel=1e-8)
    if weighting == "uniform":
        _, lo_s, _, p_s = oq.paired_t([base[g][0] for g in groups], [other[g][0] for g in groups])
        assert got["p_value"] == pytest.approx(p_s, rel=1e-8)
        assert got["diff_lo"] == pytest.approx(lo_s, abs=TOL)


def test_randomization_matches_python_loop() -> None:
    df = ranking_data(n_groups=20)
    out = sqlmetrics.compare(
        df,
        "ndcg@5",
        scores=["a", "b"],
        group="q",
        item="doc",
        test="randomization",
        n_permutations=300,
        seed=11,
    )
    base, other = oq.group_values("ndcg", df, "a", 5), oq.group_values("ndcg", df, "b", 5)
    groups = sorted(g for g in base if not math.isnan(base[g]))
    p = oq.randomization(groups, [other[g] - base[g] for g in groups], 300, 11)
    got = row(out, "ndcg@5", "b")
    assert got["p_value"] == p and got["test"] == "randomization"
    # the interval is the t interval
    _, lo, hi, _ = oq.paired_t([base[g] for g in groups], [other[g] for g in groups])
    assert (got["diff_lo"], got["diff_hi"]) == pytest.approx((lo, hi), abs=TOL)


def test_randomization_same_seed_same_p_other_seed_other_draws() -> None:
    df = ranking_data(n_groups=12, seed=4)
    kw = dict(scores=["a", "c"], group="q", item="doc", test="randomization", n_permutations=200)
    p1 = sqlmetrics.compare(df, "ndcg@5", seed=3, **kw)["p_value"][1]
    p2 = sqlmetrics.compare(df.sample(frac=1, random_state=1), "ndcg@5", seed=3, **kw)["p_value"][1]
    assert p1 == p2 and 0 < p1 < 1
    others = {sqlmetrics.compare(df, "ndcg@5", seed=s, **kw)["p_value"][1] for s in range(4, 9)}
    assert len(others | {p1}) > 1


def test_wilcoxon_matches_scipy() -> None:
    df = ranking_data(n_groups=40)
    out = sqlmetrics.compare(
        df,
        ["ndcg@5", "precision@3"],
        scores=["a", "b", "c"],
        group="q",
        item="doc",
        test="wilcoxon",
    )
    for metric, name, k in (("ndcg@5", "ndcg", 5), ("precision@3", "precision_at_k", 3)):
        base = oq.group_values(name, df, "a", k)
        for model in ("b", "c"):
            other = oq.group_values(name, df, model, k)
            groups = [g for g in base if not math.isnan(base[g])]
            p = oq.wilcoxon([other[g] - base[g] for g in groups])
            assert row(out, metric, model)["p_value"] == pytest.approx(p, rel=1e-8)


def test_delong_matches_structural_components() -> None:
    df = binary_data(n=200)
    out = sqlmetrics.compare(df, "auc", scores=["a", "b", "c"], ci=0.9)
    for model in ("b", "c"):
        auc0, auc1, d, lo, hi, p = oq.delong(list(df["label"]), list(df["a"]), list(df[model]), 0.9)
        got = row(out, "auc", model)
        assert got["value"] == pytest.approx(auc1, abs=1e-12)
        assert row(out, "auc", "a")["value"] == pytest.approx(auc0, abs=1e-12)
        assert (got["diff"], got["diff_lo"], got["diff_hi"]) == pytest.approx((d, lo, hi), abs=TOL)
        assert got["p_value"] == pytest.approx(p, rel=1e-8)
        assert got["test"] == "delong" and got["n_rows"] == len(df)
    assert row(out, "auc", "b")["value"] == pytest.approx(sqlmetrics.auc(df, score="b"), abs=1e-12)


@pytest.mark.parametrize(("n", "threshold"), [(30, 0.5), (400, 0.6)])
def test_mcnemar_matches_scipy(n: int, threshold: float) -> None:
    df = binary_data(n=n)
    out = sqlmetrics.compare(df, "accuracy", scores=["a", "b"], threshold=threshold)
    p0 = (df["a"] >= threshold).astype(int)
    p1 = (df["b"] >= threshold).astype(int)
    got = row(out, "accuracy", "b")
    assert got["p_value"] == pytest.approx(oq.mcnemar(list(df["label"]), p0, p1), rel=1e-10)
    acc = [float((p == df["label"]).mean()) for p in (p0, p1)]
    assert got["value"] == pytest.approx(acc[1], abs=1e-12)
    assert got["diff"] == pytest.approx(acc[1] - acc[0], abs=1e-12)
    assert got["diff_lo"] < got["diff"] < got["diff_hi"] and got["test"] == "mcnemar"


def test_mcnemar_covers_both_branches() -> None:
    small, large = binary_data(n=30), binary_data(n=400)
    discordant = []
    for df in (small, large):
        right_a = (df["a"] >= 0.5).astype(int) == df["label"]
        right_b = (df["b"] >= 0.5).astype(int) == df["label"]
        discordant.append(int((right_a != right_b).sum()))
    assert discordant[0] < 25 <= discordant[1]


@pytest.mark.parametrize("metric", ["f1", "precision", "recall", "accuracy"])
def test_paired_bootstrap_replays_in_numpy(metric: str) -> None:
    df = binary_data(n=150)
    out = sqlmetrics.compare(
        df, metric, scores=["a", "b", "c"], test="bootstrap", n_boot=60, seed=5, ci=0.9
    )
    preds = [(df[m] >= 0.5).astype(int).to_numpy() for m in ("a", "b", "c")]
    expected = oq.paired_bootstrap(metric, df["label"].to_numpy(), preds, 60, 5, 0.9)
    for model, (lo, hi, p) in zip(("b", "c"), expected):
        got = row(out, metric, model)
        assert (got["diff_lo"], got["diff_hi"]) == pytest.approx((lo, hi), abs=TOL)
        assert got["p_value"] == pytest.approx(p, abs=1e-12)
        assert got["test"] == "bootstrap"


def test_weighted_bootstrap_replays_in_numpy() -> None:
    df = binary_data(n=120)
    df["w"] = np.round(np.random.default_rng(2).random(len(df)) * 3, 1)
    out = sqlmetrics.compare(
        df, ["precision", "recall"], scores=["a", "b"], weight="w", n_boot=40, seed=9
    )
    preds = [(df[m] >= 0.5).astype(int).to_numpy() for m in ("a", "b")]
    for metric in ("precision", "recall"):
        ((lo, hi, p),) = oq.paired_bootstrap(
            metric, df["label"].to_numpy(), preds, 40, 9, weights=df["w"].to_numpy()
        )
        got = row(out, metric, "b")
        assert (got["diff_lo"], got["diff_hi"]) == pytest.approx((lo, hi), abs=TOL)
        assert got["p_value"] == pytest.approx(p, abs=1e-12)
        expected = sqlmetrics.evaluate(df, metric, score="b", weight="w")[metric][0]
        assert got["value"] == pytest.approx(expected, abs=1e-12)


def test_shuffled_input_gives_identical_output() -> None:
    df = ranking_data(n_groups=15)
    df["label01"] = (df["label"] > 0).astype(int)
    kw = dict(scores=["a", "b", "c"], by="country")
    ranking = {"group": "q", "item": "doc"}
    for metrics, extra in (
        (["ndcg@5", "mrr"], {"test": "randomization", "n_permutations": 50, **ranking}),
        (["ndcg@5"], {"test": "wilcoxon", **ranking}),
        (["auc", "accuracy", "f1"], {"label": "label01", "n_boot": 30}),
        (["gauc"], {"label": "label01", "group": "q"}),
    ):
        first = sqlmetrics.compare(df, metrics, **kw, **extra)  # type: ignore[arg-type]
        shuffled = df.sample(frac=1, random_state=3).reset_index(drop=True)
        second = sqlmetrics.compare(shuffled, metrics, **kw, **extra)  # type: ignore[arg-type]
        pd.testing.assert_frame_equal(first, second, check_exact=False, atol=1e-12, rtol=0)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_corrections(correction: str) -> None:
    df = ranking_data()
    out = sqlmetrics.compare(
        df,
        ["ndcg@5", "mrr", "map"],
        scores=["a", "b", "c"],
        group="q",
        item="doc",
        correction=correction,
    )
    rest = out[out["model"] != "a"]
    ps = list(rest["p_value"])
    expected = {
        "holm": oq.holm(ps),
        "bonferroni": [min(1.0, p * len(ps)) for p in ps],
        "none": ps,
    }[correction]
    assert list(rest["p_adjusted"]) == pytest.approx(expected, rel=1e-12)
    assert out[out["model"] == "a"]["p_adjusted"].isna().all()


def test_slices_each_compare_their_own_rows() -> None:
    df = ranking_data()
    out = sqlmetrics.compare(df, "ndcg@5", scores=["a", "b"], group="q", item="doc", by="country")
    for country in ("DE", "FR"):
        alone = sqlmetrics.compare(
            df[df["country"] == country], "ndcg@5", scores=["a", "b"], group="q", item="doc"
        )
        part = out[out["country"] == country].drop(columns="country").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, check_exact=False, atol=1e-12, rtol=0)


def test_baseline_and_output_layout() -> None:
    df = binary_data()
    out = sqlmetrics.compare(df, ["auc", "f1"], scores=["a", "b", "c"], baseline="b", n_boot=20)
    assert list(out.columns) == [
        "metric",
        "model",
        "value",
        "diff",
        "diff_lo",
        "diff_hi",
        "p_value",
        "p_adjusted",
        "test",
        "n_rows",
        "n_groups",
    ]
    assert list(out["model"]) == ["b", "a", "c"] * 2
    assert list(out["metric"]) == ["auc"] * 3 + ["f1"] * 3
    assert row(out, "auc", "a")["diff"] == pytest.approx(
        row(out, "auc", "a")["value"] - row(out, "auc", "b")["value"], abs=1e-12
    )


def test_undefined_slices_warn_and_give_nan() -> None:
    df = binary_data(n=60)
    df["part"] = np.where(np.arange(60) < 50, "x", "y")
    df.loc[df["part"] == "y", "label"] = 1  # one class: AUC undefined there
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="auc"):
        out = sqlmetrics.compare(df, "auc", scores=["a", "b"], by="part")
    y = out[out["part"] == "y"]
    assert y["value"].isna().all() and y["p_value"].isna().all()
    assert not math.isnan(out[(out["part"] == "x") & (out["model"] == "b")]["p_value"].iloc[0])


def test_one_group_slice_is_undefined() -> None:
    df = ranking_data(n_groups=3)
    df["part"] = np.where(df["q"] == 0, "one", "two")
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="ndcg@5"):
        out = sqlmetrics.compare(df, "ndcg@5", scores=["a", "b"], group="q", item="doc", by="part")
    one = out[(out["part"] == "one") & (out["model"] == "b")].iloc[0]
    assert math.isnan(one["p_value"]) and one["n_groups"] == 1


def test_identical_models_p_is_one() -> None:
    df = ranking_data()
    df["a2"] = df["a"]
    df["label01"] = (df["label"] > 0).astype(int)
    out = sqlmetrics.compare(df, "ndcg@5", scores=["a", "a2"], group="q", item="doc")
    auc = sqlmetrics.compare(df, ["auc", "accuracy"], scores=["a", "a2"], label="label01")
    assert list(out[out["model"] == "a2"]["p_value"]) == [1.0]
    assert list(auc[auc["model"] == "a2"]["p_value"]) == [1.0, 1.0]


def to_ranx(df: pd.DataFrame, score: str) -> tuple[object, object]:
    from ranx import Qrels, Run

    frame = df.assign(q=df["q"].astype(str), doc=df["doc"].astype(str))
    frame["q"] = frame["q"].astype(object)
    frame["doc"] = frame["doc"].astype(object)
    judged = frame[frame["label"] > 0].assign(label=lambda f: f["label"].astype(int))
    qrels = Qrels.from_df(judged, q_id_col="q", doc_id_col="doc", score_col="label")
    run = Run.from_df(frame, q_id_col="q", doc_id_col="doc", score_col=score)
    run.name = score
    return qrels, run


@pytest.mark.slow  # ranx compiles its numba kernels (~10 s)
def test_ranx_agrees_on_the_t_test() -> None:
    from ranx import compare as ranx_compare

    df = ranking_data(seed=7, n_groups=25)
    df["a"] = df["a"] + df["doc"] * 1e-6  # no ties: ranx breaks them its own way
    df["b"] = df["b"] + df["doc"] * 1e-6
    qrels, run_a = to_ranx(df, "a")
    _, run_b = to_ranx(df, "b")
    # ranx's ndcg has linear gains (Jarvelin), ndcg_burges exponential ones (our default)
    for ranx_name, ours_name, gain in (
        ("ndcg_burges@5", "ndcg@5", "exponential"),
        ("ndcg@5", "ndcg@5", "linear"),
        ("map@5", "map@5", "exponential"),
        ("mrr", "mrr", "exponential"),
    ):
        report = ranx_compare(qrels, [run_a, run_b], metrics=[ranx_name], stat_test="student")
        ours = (
            sqlmetrics.compare(df, ours_name, scores=["a", "b"], group="q", item="doc", gain=gain)
            if gain == "linear"
            else sqlmetrics.compare(df, ours_name, scores=["a", "b"], group="q", item="doc")
        )
        p = report.comparisons[("a", "b")][ranx_name]["p_value"]
        got = row(ours, ours_name, "b")
        assert got["p_value"] == pytest.approx(p, rel=1e-8)
        assert got["value"] == pytest.approx(report.results["b"][ranx_name], abs=1e-9)


# --------------------------------------------------------------------------- runs=
def runs_of(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {m: df[["q", "doc", "label", m]].rename(columns={m: "score"}) for m in ("a", "b", "c")}


def test_runs_equal_the_one_table_form() -> None:
    df = ranking_data()
    one = sqlmetrics.compare(df, ["ndcg@5", "mrr"], scores=["a", "b", "c"], group="q", item="doc")
    many = sqlmetrics.compare(metrics=["ndcg@5", "mrr"], runs=runs_of(df), group="q", item="doc")
    pd.testing.assert_frame_equal(
        one.drop(columns="n_rows"),
        many.drop(columns="n_rows"),
        check_exact=False,
        atol=1e-12,
        rtol=0,
    )
    assert many["n_rows"].isna().all()


def test_runs_missing_items_are_not_retrieved() -> None:
    df = ranking_data()
    runs = runs_of(df)
    runs["b"] = runs["b"][runs["b"]["doc"] % 3 != 0]  # b retrieves fewer items
    out = sqlmetrics.compare(metrics="ndcg@5", runs=runs, group="q", item="doc", baseline="a")
    qrels = df[["q", "doc", "label"]]
    expected = sqlmetrics.ndcg(runs["b"], k=5, group="q", item="doc", qrels=qrels)
    assert row(out, "ndcg@5", "b")["value"] == pytest.approx(expected, abs=1e-12)
    # the same with the judgments given
    given = sqlmetrics.compare(metrics="ndcg@5", runs=runs, group="q", item="doc", qrels=qrels)
    pd.testing.assert_frame_equal(out, given, check_exact=False, atol=1e-12, rtol=0)
