"""Weights in the ranking family (issue 43): ``weight=`` (per item, DCG and NDCG as rax
defines them) and ``group_weight=`` (per group, a weighted mean over groups).

rax's values are stored in ``tests/data/rax/weighted_dcg.json`` (its ``generate.py``
regenerates them where rax and jax are installed; CI has neither).
"""

from __future__ import annotations

import io
import itertools
import json
import math
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from oracle import ranking as orc

import sqlmetrics
from sqlmetrics.errors import InvalidDataError, InvalidParameterError, UndefinedMetricWarning

RAX = json.loads((Path(__file__).parent / "data" / "rax" / "weighted_dcg.json").read_text())
CASES = {case["name"]: case for case in RAX["cases"]}

#: the public function of each registry name (map is mean_average_precision)
FUNCTIONS = {
    "map": sqlmetrics.mean_average_precision,
    **{
        name: getattr(sqlmetrics, name)
        for name in ("ndcg", "dcg", "idcg", "cg", "mrr", "precision_at_k", "recall_at_k",
                     "hit_rate", "r_precision")
    },
}  # fmt: skip


def _frame(case: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame(case["rows"], columns=["group", "item", "score", "label", "w"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_weighted_dcg_and_ndcg_equal_rax(case: str) -> None:
    """rax's dcg_metric / ndcg_metric(weights=) to 1e-9, every k, with and without ties
    (rax ranks equal scores in list order: the lists were given in descending item order,
    sqlmetrics' ties="item_desc"), with zero weights and a group whose items all weigh 0
    (its ideal DCG is 0: NDCG 0 there, as rax; empty="zero" is rax's mean over every list).
    """
    frame = _frame(CASES[case])
    checked = 0
    for key, expected in CASES[case]["values"].items():
        name, _, unweighted = key.partition(":")
        metric, _, k = name.partition("@")
        got = FUNCTIONS[metric](
            frame, k=int(k) if k else None, empty="zero", weight=None if unweighted else "w"
        )
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-9), key
        checked += 1
    assert checked == 16


def test_all_zero_weight_group_counts_zero_in_ndcg() -> None:
    """The rule for a group whose items all weigh 0: its DCG and ideal DCG are 0, so its NDCG
    counts 0 (kept with empty="zero", as rax; with empty="skip" only a group with no relevant
    label is left out, so it still counts 0)."""
    frame = _frame(CASES["zero_weights"])
    last = frame["group"].max()
    alone = frame[frame["group"] == last]
    assert (alone["w"] == 0).all() and (alone["label"] >= 1).any()
    assert sqlmetrics.ndcg(alone, weight="w", empty="zero") == 0.0
    assert sqlmetrics.dcg(alone, weight="w", empty="zero") == 0.0


@pytest.mark.parametrize("metric", ["ndcg", "dcg"])
@pytest.mark.parametrize("ties", ["item_desc", "average"])
def test_weights_of_one_are_unweighted_bit_for_bit(metric: str, ties: str) -> None:
    frame = _frame(CASES["tied_scores"]).assign(one=1.0, gw=1.0)
    for k in (None, 1, 3):
        plain = FUNCTIONS[metric](frame, k=k, ties=ties, empty="zero")
        assert FUNCTIONS[metric](frame, k=k, ties=ties, empty="zero", weight="one") == plain
        assert FUNCTIONS[metric](frame, k=k, ties=ties, empty="zero", group_weight="gw") == plain


def _group_weighted(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for g in range(9):
        n = int(rng.integers(2, 8))
        parts.append(
            pd.DataFrame(
                {
                    "group": g,
                    "item": np.arange(n),
                    "score": rng.integers(0, 4, n).astype(float),
                    "label": rng.choice([0, 0, 1, 2, 3], n),
                    "w": rng.random(n).round(3),
                    "gw": float(rng.choice([0.0, 0.5, 1.0, 2.0, 7.25])),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("metric", sorted(FUNCTIONS))
@pytest.mark.parametrize("ties", ["item_desc", "average"])
@pytest.mark.parametrize("empty", ["skip", "zero"])
def test_group_weights_equal_the_weighted_mean_of_the_oracle(
    metric: str, ties: str, empty: str
) -> None:
    frame = _group_weighted(5)
    rows = list(frame[["group", "item", "score", "label"]].itertuples(index=False, name=None))
    weights = frame.groupby("group")["gw"].first().to_dict()
    k = None if metric == "r_precision" else 3
    options: dict[str, Any] = {"ties": ties, "empty": empty}
    if k is not None:
        options["k"] = k
    got = FUNCTIONS[metric](frame, group_weight="gw", **options)
    want = orc.metric(metric, rows, group_weights=weights, **options)
    assert orc.is_close(got, want), (got, want)


def test_group_weights_of_a_slice_summing_to_zero_give_nan() -> None:
    frame = _group_weighted(5).assign(gw=0.0)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(sqlmetrics.ndcg(frame, group_weight="gw", empty="zero"))


@pytest.mark.parametrize("metric", ["ndcg", "map", "dcg"])
def test_shuffled_rows_give_the_same_bits(metric: str) -> None:
    frame = _group_weighted(11)
    kw: dict[str, Any] = {"k": 4, "empty": "zero", "group_weight": "gw"}
    if metric != "map":
        kw["weight"] = "w"
    first = FUNCTIONS[metric](frame, **kw)
    for seed in range(3):
        shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        assert FUNCTIONS[metric](shuffled, **kw) == first


def test_group_weights_and_item_weights_compose() -> None:
    """Both at once: the weighted mean over groups of rax's per-group weighted NDCG."""
    frame = _group_weighted(13)
    both = sqlmetrics.ndcg(frame, k=3, empty="zero", weight="w", group_weight="gw")
    per = {
        g: sqlmetrics.ndcg(part, k=3, empty="zero", weight="w")
        for g, part in frame.groupby("group")
    }
    w = frame.groupby("group")["gw"].first()
    assert both == pytest.approx(sum(w[g] * v for g, v in per.items()) / w.sum(), rel=1e-12)


# ------------------------------------------------------------------------------ the errors
def test_weight_is_refused_by_a_metric_without_a_weighted_definition() -> None:
    from sqlmetrics._metrics.ranking import check_weights

    with pytest.raises(InvalidParameterError, match=r"cg: weight= .*no weighted definition.*"
                       r"group_weight="):  # fmt: skip
        check_weights("cg", ["cg"], {"weight": "w"}, {}, False)


def test_weight_with_qrels_is_refused() -> None:
    frame = _frame(CASES["distinct_scores"])
    qrels = frame[["group", "item", "label"]]
    with pytest.raises(InvalidParameterError, match="weight= with qrels= is not supported"):
        sqlmetrics.ndcg(frame.drop(columns="label"), qrels=qrels, weight="w")


def test_weight_with_merged_duplicates_is_refused() -> None:
    frame = _frame(CASES["distinct_scores"])
    with pytest.raises(InvalidParameterError, match="weight= with duplicates='max'"):
        sqlmetrics.ndcg(frame, weight="w", duplicates="max")


def test_group_weight_is_refused_by_a_metric_without_a_weighted_mean() -> None:
    from sqlmetrics._metrics.ranking import check_weights

    with pytest.raises(InvalidParameterError, match="group_weight= has no weighted mean for num_q"):
        check_weights("evaluate", ["ndcg", "num_q"], {"group_weight": "gw"}, {}, False)


def test_group_weight_with_empty_one_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="group_weight= with empty='one'"):
        sqlmetrics.ndcg(_group_weighted(1), group_weight="gw", empty="one")


def test_group_weight_with_missing_zero_is_refused() -> None:
    frame = _group_weighted(1)
    with pytest.raises(InvalidParameterError, match="group_weight= with missing='zero'"):
        sqlmetrics.ndcg(
            frame.drop(columns="label"),
            qrels=frame[["group", "item", "label"]],
            group_weight="gw",
            missing="zero",
        )


def test_group_weight_must_be_constant_within_a_group() -> None:
    frame = _group_weighted(1)
    frame.loc[frame["group"] == 4, "gw"] = np.arange((frame["group"] == 4).sum()) + 1.0
    with pytest.raises(
        InvalidDataError, match=r"group_weight column 'gw' is not constant .*e\.g\. group 4"
    ):
        sqlmetrics.ndcg(frame, group_weight="gw")


@pytest.mark.parametrize("spoil", ["varying", "null"])
def test_rendered_sql_gives_null_for_a_slice_with_a_varying_group_weight(spoil: str) -> None:
    """What Python refuses (a group_weight that varies within a group, or is NULL on some of
    its rows) the SQL alone (dbt, render) cannot check: the group has no weight and its
    slice's values are NULL, never a mean with one of its values; the other slice keeps
    Python's value on its own rows, bit for bit, and a constant column renders the values of
    the checked call.
    """
    frame = _group_weighted(1).assign(half=lambda f: np.where(f["group"] < 4, "a", "b"))
    metrics = ["ndcg@3", "map@3", "mrr"]
    kw: dict[str, Any] = {"group": "group", "item": "item", "group_weight": "gw", "by": "half"}
    con = duckdb.connect()
    con.register("runs", frame)
    sql = sqlmetrics.render_evaluate("runs", metrics, **kw)
    assert con.execute(sql).df()[metrics].values.tolist() == (
        sqlmetrics.evaluate(frame, metrics, **kw)[metrics].values.tolist()
    )
    spoilt = frame.copy()
    rows = spoilt.index[spoilt["group"] == 6]
    if spoil == "varying":  # the largest weight (the row count) would give a number
        spoilt.loc[rows, "gw"] = np.arange(len(rows)) + 1.0
    else:
        spoilt.loc[rows[:1], "gw"] = np.nan
    con.register("runs", spoilt)
    got = con.execute(sql).df()
    assert list(got["half"]) == ["a", "b"]
    assert got.loc[1, metrics].isna().all()
    assert list(got["n_groups"]) == [4, 5]
    alone = sqlmetrics.evaluate(frame[frame["half"] == "a"], metrics, **kw)
    assert got.loc[0, metrics].tolist() == alone[metrics].iloc[0].tolist()


@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_negative_or_nan_weights_are_refused(bad: float) -> None:
    frame = _frame(CASES["distinct_scores"])
    frame.loc[0, "w"] = bad
    with pytest.raises(InvalidDataError, match="w"):
        sqlmetrics.ndcg(frame, weight="w")


# ---------------------------------------------------------------------------- intervals
@pytest.mark.parametrize("method", ["t", "bootstrap"])
def test_interval_with_weights_zero_and_one_equals_the_interval_of_the_kept_groups(
    method: str,
) -> None:
    """A group of weight 0 leaves the weighted mean, its per-group value (W v / W: 0/0) and
    so the interval: the interval equals the one over the groups of weight 1, bit for bit
    (the bootstrap draws are keyed by the group); weights all 1 give the unweighted one."""
    frame = _group_weighted(17)
    frame["gw"] = (frame["group"] % 3 != 0).astype(float)
    kept = frame[frame["gw"] == 1]
    kw: dict[str, Any] = {"k": 3, "empty": "zero", "ci": 0.9, "ci_method": method}
    weighted = sqlmetrics.ndcg(frame, group_weight="gw", **kw)
    alone = sqlmetrics.ndcg(kept, **kw)
    assert (weighted.value, weighted.lo, weighted.hi) == (alone.value, alone.lo, alone.hi)
    ones = sqlmetrics.ndcg(frame.assign(gw=1.0), group_weight="gw", **kw)
    plain = sqlmetrics.ndcg(frame, **kw)
    assert (ones.value, ones.lo, ones.hi) == (plain.value, plain.lo, plain.hi)


def test_wilson_interval_with_group_weights_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="ci_method='wilson' with group_weight="):
        sqlmetrics.hit_rate(_group_weighted(1), k=2, group_weight="gw", ci=0.9, ci_method="wilson")


# ----------------------------------------------------------------------------- evaluate
def test_evaluate_with_weights_equals_the_functions_bit_for_bit() -> None:
    frame = _group_weighted(19)
    cols: dict[str, Any] = {"group": "group", "item": "item", "empty": "zero"}
    out = sqlmetrics.evaluate(
        frame, ["ndcg@3", "dcg@5", "ndcg"], weight="w", group_weight="gw", **cols
    )
    for name, metric, k in (("ndcg@3", "ndcg", 3), ("dcg@5", "dcg", 5), ("ndcg", "ndcg", None)):
        alone = FUNCTIONS[metric](frame, k=k, weight="w", group_weight="gw", empty="zero")
        assert out[name].iloc[0] == alone, name
    mixed = sqlmetrics.evaluate(frame, ["map@3", "mrr", "recall@3"], group_weight="gw", **cols)
    assert mixed["map@3"].iloc[0] == sqlmetrics.mean_average_precision(
        frame, k=3, group_weight="gw", empty="zero"
    )
    assert mixed["mrr"].iloc[0] == sqlmetrics.mrr(frame, group_weight="gw", empty="zero")


def test_evaluate_interval_with_group_weights_equals_the_function() -> None:
    frame = _group_weighted(23)
    out = sqlmetrics.evaluate(
        frame, ["ndcg@3"], group="group", item="item", group_weight="gw", empty="zero", ci=0.9
    )
    alone = sqlmetrics.ndcg(frame, k=3, group_weight="gw", empty="zero", ci=0.9)
    assert (out["ndcg@3"].iloc[0], out["ndcg@3_lo"].iloc[0], out["ndcg@3_hi"].iloc[0]) == (
        alone.value,
        alone.lo,
        alone.hi,
    )


def test_evaluate_refuses_weight_for_a_metric_without_a_weighted_definition() -> None:
    with pytest.raises(InvalidParameterError, match="no weighted definition for cg"):
        sqlmetrics.evaluate(
            _group_weighted(1), ["ndcg@3", "cg@3"], group="group", item="item", weight="w"
        )


def test_evaluate_refuses_an_unused_group_weight() -> None:
    with pytest.raises(InvalidParameterError, match="group_weight='gw' is used by none"):
        sqlmetrics.evaluate(_group_weighted(1), ["auc"], label="label", group_weight="gw")


def test_state_and_merge_carry_item_weights() -> None:
    """weight= is a column of the ranking states (the rows with their weight): merging two
    states gives the value over all rows, bit for bit."""
    frame = _group_weighted(29)
    kw: dict[str, Any] = {"group": "group", "item": "item", "weight": "w", "empty": "zero"}
    metrics = ["ndcg@3", "dcg@5"]
    states = [
        sqlmetrics.state(frame[frame["group"] < 4], metrics, **kw),
        sqlmetrics.state(frame[frame["group"] >= 4], metrics, **kw),
    ]
    merged = sqlmetrics.merge(pd.concat(states), metrics, **kw)
    whole = sqlmetrics.evaluate(frame, metrics, **kw)
    assert merged[metrics].iloc[0].tolist() == whole[metrics].iloc[0].tolist()


def test_gm_map_with_group_weights_is_the_weighted_geometric_mean() -> None:
    """exp(sum_g W_g ln max(AP_g, 1e-5) / sum_g W_g): each group's own gm_map is
    max(AP_g, 1e-5)."""
    frame = _group_weighted(31)
    got = sqlmetrics.gm_map(frame, k=3, group_weight="gw", empty="zero")
    per = {g: sqlmetrics.gm_map(part, k=3, empty="zero") for g, part in frame.groupby("group")}
    w = frame.groupby("group")["gw"].first()
    want = np.exp(sum(w[g] * np.log(v) for g, v in per.items()) / w.sum())
    assert got == pytest.approx(want, rel=1e-12)


# ------------------------------------------------------------------------------ compare
@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
def test_compare_with_weights_zero_and_one_equals_the_kept_groups(test: str) -> None:
    """compare's group tests weigh each group by group_weight=: with weights 0 and 1 every
    value, difference, interval and p-value is the one over the groups of weight 1, bit for
    bit (n_rows still counts every row)."""
    frame = _group_weighted(37)
    frame["score_b"] = frame["score"].sample(frac=1.0, random_state=3).to_numpy()
    frame["gw"] = (frame["group"] % 3 != 0).astype(float)
    kw: dict[str, Any] = {
        "scores": ["score", "score_b"],
        "group": "group",
        "item": "item",
        "empty": "zero",
        "test": test,
        "n_permutations": 50,
    }
    weighted = sqlmetrics.compare(frame, ["ndcg@3", "mrr"], group_weight="gw", **kw)
    kept = sqlmetrics.compare(frame[frame["gw"] == 1], ["ndcg@3", "mrr"], **kw)
    columns = ["value", "diff", "diff_lo", "diff_hi", "p_value", "p_adjusted", "n_groups"]
    pd.testing.assert_frame_equal(weighted[columns], kept[columns])


def test_compare_refuses_group_weights_with_runs() -> None:
    frame = _group_weighted(1)
    with pytest.raises(InvalidParameterError, match="group_weight= is not supported with runs="):
        sqlmetrics.compare(
            metrics=["ndcg@3"],
            runs={"a": frame, "b": frame},
            group="group",
            item="item",
            group_weight="gw",
        )


def test_state_and_merge_carry_group_weights() -> None:
    """group_weight= is a column of the ranking states (constant within a group): merging the
    states gives evaluate's value over all rows, bit for bit; render_evaluate's SQL too."""
    frame = _group_weighted(41)
    kw: dict[str, Any] = {"group": "group", "item": "item", "group_weight": "gw", "empty": "zero"}
    metrics = ["ndcg@3", "map@3", "mrr"]
    states = [
        sqlmetrics.state(frame[frame["group"] < 4], metrics, **kw),
        sqlmetrics.state(frame[frame["group"] >= 4], metrics, **kw),
    ]
    assert "gw" in states[0].columns
    merged = sqlmetrics.merge(pd.concat(states), metrics, **kw)
    whole = sqlmetrics.evaluate(frame, metrics, **kw)
    assert merged[metrics].iloc[0].tolist() == whole[metrics].iloc[0].tolist()
    con = duckdb.connect()
    con.register("runs", frame)
    sql = sqlmetrics.render_evaluate("runs", metrics, **kw)
    assert con.execute(sql).df()[metrics].iloc[0].tolist() == whole[metrics].iloc[0].tolist()


def test_command_line_group_weight_equals_evaluate(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    frame = _group_weighted(41)
    path = tmp_path / "runs.parquet"
    frame.to_parquet(path)
    args = ["eval", str(path), "-m", "ndcg@3", "-m", "mrr", "--group", "group", "--item", "item"]
    result = CliRunner().invoke(
        cli.main, [*args, "--group-weight", "gw", "--option", "empty=zero", "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(io.StringIO(result.output))
    want = sqlmetrics.evaluate(
        frame, ["ndcg@3", "mrr"], group="group", item="item", group_weight="gw", empty="zero"
    )
    for name in ("ndcg@3", "mrr"):
        assert printed[name].iloc[0] == pytest.approx(want[name].iloc[0], rel=1e-15)


def _expected_weighted_dcg(frame: pd.DataFrame, k: int | None) -> tuple[float, float]:
    """(mean DCG, mean NDCG) over groups of the expectation over every order of the tied
    items of rax's weighted DCG, listed by brute force (an NDCG's ideal does not depend on
    the order, so its expectation is E[DCG] / IDCG)."""
    dcgs, ndcgs = [], []
    for _, part in frame.groupby("group"):
        rows = part[["score", "label", "w"]].itertuples(index=False)
        items = [(s, (2.0**lab - 1) * w) for s, lab, w in rows]
        scores = sorted({s for s, _ in items}, reverse=True)
        blocks = [[g for s, g in items if s == score] for score in scores]
        total, count = 0.0, 0
        for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
            gains = [g for block in combo for g in block][:k]
            total += sum(g / math.log2(i + 2) for i, g in enumerate(gains))
            count += 1
        ideal = sorted((g for _, g in items), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        dcgs.append(total / count)
        ndcgs.append(total / count / idcg if idcg > 0 else 0.0)
    return sum(dcgs) / len(dcgs), sum(ndcgs) / len(ndcgs)


@pytest.mark.parametrize("k", [None, 2, 4])
def test_weighted_gains_with_tie_averaging_are_the_expectation_over_tie_orders(
    k: int | None,
) -> None:
    frame = _frame(CASES["tied_zero_weights"])
    dcg, ndcg = _expected_weighted_dcg(frame, k)
    kw: dict[str, Any] = {"k": k, "ties": "average", "empty": "zero", "weight": "w"}
    assert sqlmetrics.dcg(frame, **kw) == pytest.approx(dcg, rel=1e-12)
    assert sqlmetrics.ndcg(frame, **kw) == pytest.approx(ndcg, rel=1e-12)


@pytest.mark.parametrize("metric", ["ndcg", "map", "recall_at_k"])
def test_group_weights_with_qrels_equal_the_weighted_mean_of_the_oracle(metric: str) -> None:
    frame = _group_weighted(43)
    qrels = frame.loc[frame["label"] > 0, ["group", "item", "label"]]
    extra = pd.DataFrame({"group": [0, 1], "item": [100, 101], "label": [2, 1]})
    qrels = pd.concat([qrels, extra], ignore_index=True)
    run = frame.drop(columns="label")
    rows = [(g, i, s, 0.0) for g, i, s in run[["group", "item", "score"]].itertuples(index=False)]
    judged = list(qrels.itertuples(index=False, name=None))
    weights = frame.groupby("group")["gw"].first().to_dict()
    got = FUNCTIONS[metric](run, qrels=qrels, k=3, group_weight="gw", empty="zero")
    want = orc.metric(metric, rows, qrels=judged, k=3, empty="zero", group_weights=weights)
    assert orc.is_close(got, want), (got, want)


# ------------------------------------------------------- weight= as TF-Ranking's list weights
#: means over groups that weigh each list by TF-Ranking's per-list weight (LIST_WEIGHTED)
TFR = ("mrr", "precision_at_k", "recall_at_k", "map", "hit_rate", "r_precision")


def _item_weighted(seed: int, n_groups: int = 9) -> pd.DataFrame:
    """Lists with ties, lists without a relevant item, zero weights (an all-zero list too)."""
    rng = np.random.default_rng(seed)
    parts = []
    for g in range(n_groups):
        n = int(rng.integers(1, 7))
        parts.append(
            pd.DataFrame(
                {
                    "group": g,
                    "item": np.arange(n),
                    "score": rng.integers(0, 3, n).astype(float),
                    "label": rng.choice([0, 0, 0, 1, 2], n) if g % 4 else np.zeros(n),
                    "w": rng.choice([0.0, 0.25, 1.0, 1.5, 3.0], n) if g != 5 else np.zeros(n),
                    "gw": float(rng.choice([0.5, 1.0, 2.0])),
                    "slice": (None if g % 3 == 0 else "a" if g % 3 == 1 else "b"),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _tfr_expected(
    frame: pd.DataFrame, metric: str, options: dict[str, Any], group_weight: bool = False
) -> float:
    rows5 = list(frame[["group", "item", "score", "label", "w"]].itertuples(index=False, name=None))
    weights = orc.tfr_list_weights(rows5)
    if group_weight:
        gw = frame.groupby("group")["gw"].first().to_dict()
        weights = {g: w * gw[g] for g, w in weights.items()}
    return orc.metric(metric, [r[:4] for r in rows5], group_weights=weights, **options)


@pytest.mark.parametrize("metric", TFR)
@pytest.mark.parametrize("ties", ["item_desc", "average"])
@pytest.mark.parametrize("empty", ["skip", "zero"])
def test_item_weights_are_tf_ranking_list_weights(metric: str, ties: str, empty: str) -> None:
    """weight= on a mean over groups other than dcg/ndcg: each list weighs TF-Ranking's
    W_g = sum w rel / sum rel (the mean W_g for a list without a relevant item), the oracle's
    transcription of _per_example_weights_to_per_list_weights, to 1e-12."""
    frame = _item_weighted(3)
    options: dict[str, Any] = {"ties": ties, "empty": empty}
    if metric not in ("r_precision",):
        options["k"] = 3
    got = FUNCTIONS[metric](frame, weight="w", **options)
    want = _tfr_expected(frame, metric, options)
    assert orc.is_close(got, want, 1e-12), (got, want)


@pytest.mark.parametrize("metric", ["mrr", "map", "recall_at_k"])
def test_item_and_group_weights_multiply(metric: str) -> None:
    """Both given: a list weighs its TF-Ranking weight times its group weight."""
    frame = _item_weighted(8)
    options: dict[str, Any] = {"k": 4, "empty": "zero", "ties": "average"}
    got = FUNCTIONS[metric](frame, weight="w", group_weight="gw", **options)
    want = _tfr_expected(frame, metric, options, group_weight=True)
    assert orc.is_close(got, want, 1e-12), (got, want)


def test_item_weights_by_slice_with_a_null_slice() -> None:
    """The mean W_g for lists without a relevant item is each slice's own (NULL a slice)."""
    frame = _item_weighted(21, n_groups=15)
    table = sqlmetrics.evaluate(
        frame, ["mrr@3", "map"], group="group", item="item", weight="w", by="slice",
        empty="zero",
    )  # fmt: skip
    for key, part in frame.groupby("slice", dropna=False):
        row = table[table["slice"].isna()] if pd.isna(key) else table[table["slice"] == key]
        assert len(row) == 1
        for name, metric, k in (("mrr@3", "mrr", 3), ("map", "map", None)):
            want = _tfr_expected(part, metric, {"k": k, "empty": "zero"})
            assert orc.is_close(float(row[name].iloc[0]), want, 1e-12), (key, name)


def test_no_list_with_a_relevant_item_weighs_zero() -> None:
    """TF-Ranking's 0/0 -> 0: with no relevant item anywhere every list weighs 0 (NaN)."""
    frame = _item_weighted(3).assign(label=0)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(sqlmetrics.mrr(frame, weight="w", empty="zero"))


@pytest.mark.parametrize("metric", TFR)
@pytest.mark.parametrize("ties", ["item_desc", "average"])
def test_item_weights_of_one_are_unweighted_bit_for_bit(metric: str, ties: str) -> None:
    frame = _item_weighted(4).assign(one=1.0)
    for empty in ("skip", "zero"):
        plain = FUNCTIONS[metric](frame, ties=ties, empty=empty)
        assert FUNCTIONS[metric](frame, ties=ties, empty=empty, weight="one") == plain


@pytest.mark.parametrize("metric", ["mrr", "map", "precision_at_k"])
def test_item_weights_shuffled_rows_give_the_same_bits(metric: str) -> None:
    frame = _item_weighted(12, n_groups=20)
    frame["w"] = frame["w"] * 0.1 + 1e-17 * frame["item"]  # rounding-sensitive sums
    kw: dict[str, Any] = {"k": 4, "empty": "zero", "weight": "w", "group_weight": "gw"}
    first = FUNCTIONS[metric](frame, **kw)
    for seed in range(3):
        shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        assert FUNCTIONS[metric](shuffled, **kw) == first


def test_evaluate_mixes_rax_and_tf_ranking_weights() -> None:
    """One statement: ndcg keeps rax's weighted gains, mrr weighs its lists as TF-Ranking."""
    frame = _item_weighted(6)
    table = sqlmetrics.evaluate(
        frame, ["ndcg@3", "mrr@3"], group="group", item="item", weight="w", empty="zero"
    )
    assert table["ndcg@3"].iloc[0] == sqlmetrics.ndcg(frame, k=3, weight="w", empty="zero")
    assert table["mrr@3"].iloc[0] == sqlmetrics.mrr(frame, k=3, weight="w", empty="zero")


def test_item_weights_with_empty_one_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="weight= with empty='one'"):
        sqlmetrics.mrr(_item_weighted(3), weight="w", empty="one")


@pytest.mark.parametrize("method", ["t", "bootstrap"])
@pytest.mark.parametrize("empty", ["skip", "zero"])
def test_item_weight_interval_is_the_list_weighted_interval(method: str, empty: str) -> None:
    """ci= with weight= on mrr: the interval of the mean weighted by the lists' TF-Ranking
    weights, equal (1e-12) to group_weight= given those weights as a column (the oracle's)."""
    frame = _item_weighted(3)
    rows5 = list(frame[["group", "item", "score", "label", "w"]].itertuples(index=False, name=None))
    frame["lw"] = frame["group"].map(orc.tfr_list_weights(rows5))
    kw: dict[str, Any] = {"k": 3, "empty": empty, "ci": 0.95, "ci_method": method}
    got = sqlmetrics.mrr(frame, weight="w", **kw)
    want = sqlmetrics.mrr(frame, group_weight="lw", **kw)
    for a, b in zip(got[:3], want[:3]):
        assert orc.is_close(a, b, 1e-12), (got, want)


@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
def test_compare_with_item_weights_weighs_the_groups_by_their_list_weight(test: str) -> None:
    """compare(weight=) on mrr and map: the group tests weigh each group by its TF-Ranking
    list weight, equal (1e-12) to group_weight= given the oracle's W_g as a column."""
    frame = _item_weighted(7, n_groups=20)
    frame["s2"] = (frame["score"] * 7 + frame["item"]) % 5
    rows5 = list(frame[["group", "item", "score", "label", "w"]].itertuples(index=False, name=None))
    frame["lw"] = frame["group"].map(orc.tfr_list_weights(rows5))
    kw: dict[str, Any] = {"scores": ["score", "s2"], "test": test, "empty": "zero"}
    kw.update(group="group", item="item", label="label")
    if test == "randomization":
        kw["n_permutations"] = 50
    got = sqlmetrics.compare(frame, ["mrr@3", "map"], weight="w", **kw)
    want = sqlmetrics.compare(frame, ["mrr@3", "map"], group_weight="lw", **kw)
    assert list(got.columns) == list(want.columns)
    assert got.select_dtypes("object").equals(want.select_dtypes("object"))
    for a, b in zip(
        got.select_dtypes("number").to_numpy(float).ravel(),
        want.select_dtypes("number").to_numpy(float).ravel(),
    ):
        assert orc.is_close(a, b, 1e-12), (a, b)
    mrr = got[got["metric"] == "mrr@3"].set_index("model")["value"]
    for model in ("score", "s2"):
        value = sqlmetrics.mrr(frame, k=3, score=model, weight="w", empty="zero")
        assert orc.is_close(float(mrr[model]), value, 1e-12), (model, mrr[model], value)


def test_state_and_merge_carry_item_weights_to_list_weighted_means() -> None:
    """The list weights need the whole slice (a list without a relevant item weighs the
    slice's mean W_g): merging two states of the rows gives the value over all rows, bit for
    bit, for mrr and map beside ndcg (rax)."""
    frame = _item_weighted(29, n_groups=14)
    kw: dict[str, Any] = {"group": "group", "item": "item", "weight": "w", "empty": "zero"}
    metrics = ["ndcg@3", "mrr@3", "map"]
    states = [
        sqlmetrics.state(frame[frame["group"] < 6], metrics, **kw),
        sqlmetrics.state(frame[frame["group"] >= 6], metrics, **kw),
    ]
    merged = sqlmetrics.merge(pd.concat(states), metrics, **kw)
    whole = sqlmetrics.evaluate(frame, metrics, **kw)
    assert merged[metrics].iloc[0].tolist() == whole[metrics].iloc[0].tolist()


TFR_DATA = json.loads((Path(__file__).parent / "data" / "tfr" / "list_weights.json").read_text())


@pytest.mark.parametrize("case", [c["name"] for c in TFR_DATA["cases"]])
def test_item_weights_equal_tf_ranking(case: str) -> None:
    """mrr, recall_at_k and hit_rate with weight= equal TF-Ranking 0.5.5's weighted means
    (tests/data/tfr/generate.py; TF computes in float32: 1e-6), k None, 1, 3, 5, lists without
    a relevant item counted (empty='zero', as TF-Ranking)."""
    data = next(c for c in TFR_DATA["cases"] if c["name"] == case)
    frame = _frame(data)
    assert len(data["values"]) == 12
    for key, want in data["values"].items():
        name, k = key.split("@")
        got = getattr(sqlmetrics, name)(
            frame, k=None if k == "None" else int(k), weight="w", empty="zero"
        )
        assert got == pytest.approx(want, rel=1e-6, abs=1e-7), (key, got, want)
