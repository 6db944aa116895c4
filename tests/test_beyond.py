"""Beyond-accuracy metrics against the oracle written from Microsoft Recommenders' formulas:
random recommendation lists with repeated items, slices, properties, every error."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import beyond as ob

import sqlmetrics

NAMES = ("catalog_coverage", "distributional_coverage", "gini_index", "novelty")
NEEDS_TRAIN = ("catalog_coverage", "novelty")


def call(name: str, reco: pd.DataFrame, train: pd.DataFrame | None, **kwargs: Any) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        function = getattr(sqlmetrics, name)
        if train is None:
            return float(function(reco, **kwargs))
        return float(function(reco, train=train, **kwargs))


def expected(name: str, reco: pd.DataFrame, train: pd.DataFrame | None) -> float:
    function = getattr(ob, name)
    return float(function(list(reco["item"]), None if train is None else list(train["item"])))


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


@st.composite
def inputs(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    items = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])
    reco = draw(st.lists(st.tuples(st.integers(0, 4), items), min_size=1, max_size=30))
    train = draw(st.lists(st.tuples(st.integers(0, 6), items), min_size=1, max_size=40))
    return (
        pd.DataFrame(reco, columns=["user", "item"]),
        pd.DataFrame(train, columns=["user", "item"]),
    )


@given(inputs(), st.sampled_from(NAMES))
def test_equals_the_oracle(data: tuple[pd.DataFrame, pd.DataFrame], name: str) -> None:
    reco, train = data
    got = call(name, reco, train if name != "distributional_coverage" else None)
    assert same(got, expected(name, reco, train if name != "distributional_coverage" else None))
    if name == "gini_index":  # over the recommended items only
        assert same(call(name, reco, None), expected(name, reco, None))


@given(inputs(), st.sampled_from(NAMES))
def test_row_order_and_renaming_change_nothing(
    data: tuple[pd.DataFrame, pd.DataFrame], name: str
) -> None:
    reco, train = data
    use = train if name in NEEDS_TRAIN else None
    one = call(name, reco, use)
    shuffled = reco.sample(frac=1.0, random_state=2)
    assert same(one, call(name, shuffled, use)) and (
        math.isnan(one) or one == call(name, shuffled, use)
    )  # bit-identical
    rename = {c: f"item-{ord(c) * 7 % 11}" for c in "abcdefg"}
    renamed = reco.assign(item=reco["item"].map(rename))
    other = None if use is None else use.assign(item=use["item"].map(rename))
    assert same(one, call(name, renamed, other))


def test_bounds_and_extremes() -> None:
    train = pd.DataFrame({"item": list("abcd")})
    equal = pd.DataFrame({"item": list("abcd") * 3})
    single = pd.DataFrame({"item": ["a"] * 5})
    assert sqlmetrics.catalog_coverage(equal, train=train) == 1.0
    assert sqlmetrics.distributional_coverage(equal) == 2.0  # log2 4
    assert sqlmetrics.distributional_coverage(single) == 0.0
    assert sqlmetrics.gini_index(equal, train=train) == 0.0
    # one item of m takes everything: G = (m - 1) / (m - 1) * ... = 1
    assert sqlmetrics.gini_index(single, train=train) == 1.0
    assert sqlmetrics.novelty(equal, train=train) == 2.0  # every item 1/4 of train


def test_recommenders_conventions() -> None:
    # an item recommended but absent from train: counted by catalog_coverage, 0 in novelty
    train = pd.DataFrame({"item": ["a", "a", "b", "c"]})
    reco = pd.DataFrame({"item": ["a", "z"]})
    assert sqlmetrics.catalog_coverage(reco, train=train) == pytest.approx(2 / 3)
    assert sqlmetrics.novelty(reco, train=train) == pytest.approx((1.0 + 0.0) / 2)


def test_slices_in_evaluate_equal_one_call_per_slice() -> None:
    rng = np.random.default_rng(5)
    reco = pd.DataFrame(
        {"user": rng.integers(0, 50, 400), "item": rng.integers(0, 30, 400)}
    ).assign(country=lambda f: np.where(f["user"] % 3 == 0, "DE", "FR"))
    out = sqlmetrics.evaluate(
        reco, ["distributional_coverage", "gini_index"], item="item", by="country"
    )
    for _, row in out.iterrows():
        part = reco[reco["country"] == row["country"]]
        assert row["distributional_coverage"] == sqlmetrics.distributional_coverage(part)
        assert row["gini_index"] == sqlmetrics.gini_index(part)
        assert row["n_rows"] == len(part)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("name", NEEDS_TRAIN)
def test_train_is_required(name: str) -> None:
    reco = pd.DataFrame({"item": ["a"]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=f"{name}: train= is required: the interactions"
    ):
        getattr(sqlmetrics, name)(reco, train=None)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=f"{name} needs train=.*evaluate does not take; call sqlmetrics.{name}",
    ):
        sqlmetrics.evaluate(reco, [name], item="item")


def test_undefined_gini_for_one_item() -> None:
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="gini_index is undefined"):
        assert math.isnan(sqlmetrics.gini_index(pd.DataFrame({"item": ["a", "a"]})))


def test_bad_inputs() -> None:
    reco = pd.DataFrame({"item": ["a", None]})
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"distributional_coverage: item column"):
        sqlmetrics.distributional_coverage(reco)
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"novelty: column 'sku' \(item=\)"):
        sqlmetrics.novelty(pd.DataFrame({"item": ["a"]}), item="sku", train=reco)
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"train="):
        sqlmetrics.novelty(pd.DataFrame({"item": ["a"]}), train=pd.DataFrame({"sku": ["a"]}))
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"catalog_coverage: .*train"):
        sqlmetrics.catalog_coverage(
            pd.DataFrame({"item": ["a"]}), train=pd.DataFrame({"item": [1]})
        )


def test_evaluate_and_render_evaluate_take_train() -> None:
    rng = np.random.default_rng(8)
    reco = pd.DataFrame({"user": rng.integers(0, 20, 100), "item": rng.integers(0, 15, 100)})
    train = pd.DataFrame({"user": rng.integers(0, 30, 300), "item": rng.integers(0, 25, 300)})
    names = ["catalog_coverage", "novelty", "gini_index", "distributional_coverage"]
    out = sqlmetrics.evaluate(reco, names, item="item", train=train).iloc[0]
    assert out["catalog_coverage"] == sqlmetrics.catalog_coverage(reco, train=train)
    assert out["novelty"] == sqlmetrics.novelty(reco, train=train)
    assert out["gini_index"] == sqlmetrics.gini_index(reco, train=train)
    assert out["distributional_coverage"] == sqlmetrics.distributional_coverage(reco)
    sql = sqlmetrics.render_evaluate("reco", names, item="item", train="train_t")
    assert '"train_t"' in sql and "distinct" in sql


def test_train_errors_in_evaluate() -> None:
    reco = pd.DataFrame({"group": [1, 1], "item": ["a", "b"], "score": [1.0, 0.5], "label": [1, 0]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"evaluate: train= is used by the beyond-accuracy metrics only",
    ):
        sqlmetrics.evaluate(reco, ["auc"], train=reco)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"evaluate: train= and ranking metrics in one call.*two calls",
    ):
        sqlmetrics.evaluate(reco, ["novelty", "ndcg@2"], group="group", item="item", train=reco)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"render_evaluate: train= is used"):
        sqlmetrics.render_evaluate("t", ["auc"], train="x")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"render: train= is used by the"):
        sqlmetrics.render("auc", "t", train="x")
