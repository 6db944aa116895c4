"""position_propensities and click_metrics (issue 43): simulations under the examination
hypothesis, the naive oracle of tests/oracle/position_bias.py, every error message, shuffle
and thread invariance. The definitions: sql/_macros/counterfactual/position_bias.sql."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import sqlmetrics
from sqlmetrics.errors import ColumnNotFoundError, InvalidDataError, InvalidParameterError
from tests.oracle import position_bias as oracle

#: the true examination propensities of the simulations: p_k = 1 / k
N_POS = 5
TRUE_P = {k: 1 / k for k in range(1, N_POS + 1)}


def randtop_log(n_impressions: int, seed: int) -> pd.DataFrame:
    """A log of randomised impressions (their top 5 in a uniformly random order,
    ``shuffled`` 1) and as many production ones (sorted by relevance, ``shuffled`` 0), with
    clicks drawn as examination (p_k = 1/k) times relevance; a few rows below position 5."""
    rng = np.random.default_rng(seed)
    frames = []
    for shuffled in (1, 0):
        rel = rng.beta(1, 2, (n_impressions, N_POS + 2))  # 7 items per impression
        if shuffled:
            rel[:, :N_POS] = rng.permuted(rel[:, :N_POS], axis=1)
        else:
            rel = -np.sort(-rel, axis=1)
        pos = np.tile(np.arange(1, N_POS + 3), n_impressions)
        examined = rng.random(rel.size) < 1 / pos
        frames.append(
            pd.DataFrame(
                {
                    "query": np.repeat(np.arange(n_impressions), N_POS + 2),
                    "pos": pos.astype("int64"),
                    "clicked": (examined & (rng.random(rel.size) < rel.ravel())).astype("int64"),
                    "shuffled": shuffled,
                    "market": np.where(pos % 2 == 0, "de", None),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def test_randtop_recovers_the_simulated_propensities() -> None:
    log = randtop_log(40_000, seed=43)
    got = sqlmetrics.position_propensities(
        log, position="pos", click="clicked", intervention="shuffled", max_position=N_POS
    )
    assert got["position"].tolist() == list(range(1, N_POS + 1))
    for row in got.itertuples():
        top = got.iloc[0]
        # the delta-method standard error of a ratio of two proportions
        se = row.propensity * math.sqrt(
            1 / row.clicks - 1 / row.impressions + 1 / top.clicks - 1 / top.impressions
        )
        assert abs(row.propensity - TRUE_P[row.position]) <= 4 * se + 1e-15, row
        assert row.lo <= row.propensity <= row.hi
    # the intervals at 99.9 % hold the true propensities (their half widths are about 2 se
    # at 95 %: the same se as above)
    wide = sqlmetrics.position_propensities(
        log, position="pos", click="clicked", intervention="shuffled", max_position=N_POS,
        ci_level=0.999,
    )  # fmt: skip
    for row in wide.itertuples():
        assert row.lo <= TRUE_P[row.position] <= row.hi, row
    at_95 = (got["hi"] - got["lo"]).iloc[1:]
    assert ((wide["hi"] - wide["lo"]).iloc[1:] > at_95).all()
    # the production impressions alone (relevance sorted by position) are biased: the
    # estimator needs the randomised rows
    biased = sqlmetrics.position_propensities(
        log, position="pos", click="clicked", where="shuffled = 0", max_position=N_POS
    )
    assert biased["propensity"].iloc[-1] < 0.5 * TRUE_P[N_POS]


def test_propensities_equal_the_oracle_bits() -> None:
    log = randtop_log(3_000, seed=7)
    for kwargs in [{}, {"max_position": 4}, {"by": "market"}]:
        got = sqlmetrics.position_propensities(
            log, position="pos", click="clicked", intervention="shuffled", **kwargs
        )
        by = [kwargs["by"]] if "by" in kwargs else []
        want = oracle.propensities(
            log.to_dict("records"),
            position="pos",
            click="clicked",
            by=by,
            kept=lambda row: row["shuffled"] == 1,
            max_position=kwargs.get("max_position"),
        )
        assert len(got) == len(want)
        for g, w in zip(got.to_dict("records"), want, strict=True):
            for column, value in w.items():
                if value is None:
                    assert g[column] is None or (
                        isinstance(g[column], float) and np.isnan(g[column])
                    )
                else:
                    assert g[column] == value, (column, g, w)


def test_propensities_undefined_without_a_click_at_the_top() -> None:
    log = pd.DataFrame({"pos": [1, 1, 2, 2, 3], "c": [0, 0, 1, 0, 0], "on": [True] * 4 + [False]})
    got = sqlmetrics.position_propensities(log, position="pos", click="c", intervention="on")
    assert got["position"].tolist() == [1, 2]
    assert got["propensity"].isna().all() and got["lo"].isna().all()
    assert got["ctr"].tolist() == [0.0, 0.5]


# ------------------------------------------------------------------ click metrics
def click_log(seed: int, n_groups: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    pos = np.concatenate([np.arange(1, s + 1) for s in sizes])
    return pd.DataFrame(
        {
            "q": g.astype("int64"),
            "pos": pos.astype("int64"),
            "clicked": (rng.random(g.size) < 0.3).astype("int64"),
            "new": np.round(rng.random(g.size), 1),  # heavy ties
            "p": np.round(0.9 / pos + 0.05, 3),
            "country": np.array(["de", "fr", None], dtype=object)[g % 3],
        }
    )


def assert_matches(got: pd.DataFrame, want: list[dict[str, Any]], k: int | None) -> None:
    suffix = "" if k is None else f"@{k}"
    assert len(got) == len(want)
    for g, w in zip(got.to_dict("records"), want, strict=True):
        for column, value in w.items():
            name = f"{column}{suffix}" if column in ("ctr", "dcg", "recall") else column
            if value is None:
                assert g[name] is None or np.isnan(g[name]), (name, g)
            elif isinstance(value, float):
                assert g[name] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, g, w)
            else:
                assert g[name] == value, (name, g, w)


@pytest.mark.parametrize("k", [1, 3, 10, None])
@pytest.mark.parametrize("by", [[], ["country"]])
def test_click_metrics_equal_the_oracle(k: int | None, by: list[str]) -> None:
    log = click_log(11)
    log.loc[log["q"] == 4, "clicked"] = 0  # a group without a click
    got = sqlmetrics.click_metrics(
        log, group="q", position="pos", click="clicked", score="new", propensity="p", k=k, by=by
    )
    want = oracle.click_metrics(
        log.to_dict("records"), group="q", click="clicked", score="new",
        p=lambda row: row["p"], k=k, by=by,
    )  # fmt: skip
    assert_matches(got, want, k)


def test_the_three_forms_of_propensity_agree() -> None:
    log = randtop_log(2_000, seed=3)
    log["new"] = np.round(np.random.default_rng(1).random(len(log)), 1)
    table = sqlmetrics.position_propensities(log, position="pos", click="clicked")
    mapping = dict(zip(table["position"], table["propensity"], strict=True))
    log["p"] = log["pos"].map(mapping)
    cols = {"group": "query", "position": "pos", "click": "clicked", "score": "new", "k": 3}
    a = sqlmetrics.click_metrics(log, propensity=table, **cols)
    b = sqlmetrics.click_metrics(log, propensity=mapping, **cols)
    c = sqlmetrics.click_metrics(log, propensity="p", **cols)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    pd.testing.assert_frame_equal(a, c, check_exact=True)
    want = oracle.click_metrics(
        log.to_dict("records"), group="query", click="clicked", score="new",
        p=lambda row: mapping[row["pos"]], k=3,
    )  # fmt: skip
    assert_matches(a, want, 3)


def test_a_slice_equals_its_rows_alone() -> None:
    log = click_log(8)
    cols = {"group": "q", "position": "pos", "click": "clicked", "score": "new", "propensity": "p"}
    sliced = sqlmetrics.click_metrics(log, by="country", **cols)
    alone = sqlmetrics.click_metrics(log, where="country = 'fr'", **cols)
    row = sliced[sliced["country"] == "fr"].drop(columns="country").reset_index(drop=True)
    pd.testing.assert_frame_equal(row, alone, check_exact=True)
    props = sqlmetrics.position_propensities(log, position="pos", click="clicked", by="country")
    null_slice = props[props["country"].isna()].drop(columns="country").reset_index(drop=True)
    props_alone = sqlmetrics.position_propensities(
        log, position="pos", click="clicked", where="country is null"
    )
    pd.testing.assert_frame_equal(null_slice, props_alone, check_exact=True)


def test_metrics_are_chosen_and_named() -> None:
    log = click_log(2)
    got = sqlmetrics.click_metrics(
        log, group="q", position="pos", click="clicked", score="new", propensity="p",
        metrics=["recall", "dcg"], k=None,
    )  # fmt: skip
    assert list(got.columns) == [
        "recall", "dcg", "n_groups", "n_clicked_groups", "n_rows", "n_clicks"
    ]  # fmt: skip


def test_corrected_dcg_is_unbiased_and_the_naive_one_is_not() -> None:
    """Many simulated logs of one set of queries with fixed binary relevances, shown in a
    fixed logged order with clicks = examination (1/k) x relevance: the mean of the corrected
    clicks-DCG@3 of a new ranking is within 4 standard errors of its true DCG@3; the
    uncorrected one (propensity 1 everywhere) falls short by more than 10."""
    rng = np.random.default_rng(2017)
    n_queries, n_logs, k = 40, 400, 3
    rel = (rng.random((n_queries, N_POS)) < 0.4).astype("int64")
    new_score = rng.permuted(np.tile(np.arange(N_POS, 0, -1), (n_queries, 1)), axis=1)
    new_rank = N_POS + 1 - new_score
    true_dcg = float(np.mean(np.sum(rel * (new_rank <= k) / np.log2(1 + new_rank), axis=1)))
    pos = np.tile(np.arange(1, N_POS + 1), (n_logs, n_queries, 1))
    clicks = (rng.random(pos.shape) < 1 / pos) * rel[None, :, :]
    log = pd.DataFrame(
        {
            "log": np.repeat(np.arange(n_logs), n_queries * N_POS).astype("int64"),
            "q": np.tile(np.repeat(np.arange(n_queries), N_POS), n_logs).astype("int64"),
            "pos": pos.ravel().astype("int64"),
            "clicked": clicks.ravel().astype("int64"),
            "new": np.tile(new_score.ravel(), n_logs).astype("float64"),
        }
    )
    cols = {"group": "q", "position": "pos", "click": "clicked", "score": "new", "by": "log"}
    for propensity, unbiased in ((TRUE_P, True), (dict.fromkeys(TRUE_P, 1.0), False)):
        per_log = sqlmetrics.click_metrics(
            log, propensity=propensity, k=k, metrics=["dcg"], **cols
        )[f"dcg@{k}"]
        assert len(per_log) == n_logs
        mean, se = per_log.mean(), per_log.std(ddof=1) / math.sqrt(n_logs)
        if unbiased:
            assert abs(mean - true_dcg) < 4 * se, (mean, true_dcg, se)
        else:
            assert true_dcg - mean > 10 * se, (mean, true_dcg, se)


def test_shuffles_and_threads_change_no_bit() -> None:
    log = click_log(5, n_groups=300)
    log["p"] = log["p"] / 7  # weights that are not dyadic: a plain sum would depend on order
    cols = {"group": "q", "position": "pos", "click": "clicked", "score": "new", "propensity": "p"}
    first = sqlmetrics.click_metrics(log, by="country", **cols)
    for seed in range(3):
        shuffled = log.sample(frac=1.0, random_state=seed, ignore_index=True)
        for threads in (1, 4):
            con = duckdb.connect()
            con.execute(f"set threads = {threads}")
            got = sqlmetrics.click_metrics(shuffled, by="country", con=con, **cols)
            pd.testing.assert_frame_equal(first, got, check_exact=True)
    props = sqlmetrics.position_propensities(log, position="pos", click="clicked", by="country")
    again = sqlmetrics.position_propensities(
        log.sample(frac=1.0, random_state=9), position="pos", click="clicked", by="country"
    )
    pd.testing.assert_frame_equal(props, again, check_exact=True)


# ------------------------------------------------------------------ every error message
LOG = pd.DataFrame(
    {
        "q": [1, 1, 2, 2],
        "pos": [1, 2, 1, 2],
        "c": [1, 0, 0, 1],
        "s": [0.5, 0.2, 0.1, 0.9],
        "p": [1.0, 0.5, 1.0, 0.5],
        "txt": ["a", "b", "c", "d"],
        "on": [1, 1, 0, 1],
    }
)
PP = {"position": "pos", "click": "c"}
CM = {"group": "q", "position": "pos", "click": "c", "score": "s", "propensity": "p"}

PROPENSITY_ERRORS = [
    ("position", {**PP, "position": 3}, InvalidParameterError, r"position=3 must be a column"),
    ("click", {**PP, "click": ""}, InvalidParameterError, r"click='' must be a column"),
    ("intervention", {**PP, "intervention": 1}, InvalidParameterError, r"intervention=1 must"),
    ("max_position", {**PP, "max_position": 0}, InvalidParameterError, r"max_position=0 must"),
    ("ci_level", {**PP, "ci_level": 1.5}, InvalidParameterError, r"ci_level=1.5 must be"),
    ("by_position", {**PP, "by": "pos"}, InvalidParameterError, r"holds the position column"),
    ("by_type", {**PP, "by": [3]}, InvalidParameterError, r"by= must be a column name"),
    ("where", {**PP, "where": "q = (1"}, InvalidParameterError, r"where='q = \(1'"),
    ("missing", {**PP, "click": "nope"}, ColumnNotFoundError, r"column 'nope' \(click=\)"),
    ("text_position", {**PP, "position": "txt"}, InvalidDataError, r"position column 'txt'"),
    ("text_intervention", {**PP, "intervention": "txt"}, InvalidDataError, r"boolean or 0/1"),
    ("no_rows", {**PP, "where": "q > 5"}, InvalidDataError, r"has no rows"),
]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [case[1:] for case in PROPENSITY_ERRORS],
    ids=[case[0] for case in PROPENSITY_ERRORS],
)
def test_position_propensities_errors(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        sqlmetrics.position_propensities(LOG, **kwargs)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"pos": [1, None, 1, 2]}, r"1 of 4 rows .* NULL in the position column 'pos'"),
        ({"pos": [1, 0, 1, 2]}, r"not an integer >= 1"),
        ({"pos": [1, 1.5, 1, 2]}, r"not an integer >= 1"),
        ({"c": [1, 2, 0, 1]}, r"neither 0 nor 1"),
        ({"s": [0.5, None, 0.1, 0.9]}, r"NULL in the score column 's'"),
        ({"q": [1, None, 2, 2]}, r"NULL in the group column 'q'"),
        ({"p": [0.0, 0.5, 1.0, 0.5]}, r"1 of 4 rows .* a click at a position without a propens"),
        ({"p": [None, 0.5, 1.0, 0.5]}, r"must hold a propensity > 0 on every clicked row"),
    ],
    ids=["null_position", "position_0", "position_fraction", "click_2", "null_score",
         "null_group", "zero_propensity", "null_propensity"],
)  # fmt: skip
def test_bad_log_data(change: dict[str, list[Any]], match: str) -> None:
    with pytest.raises(InvalidDataError, match=match):
        sqlmetrics.click_metrics(LOG.assign(**change), **CM)


CLICK_ERRORS = [
    ("group", {**CM, "group": None}, r"group=None must be a column"),
    ("k", {**CM, "k": 0}, r"k=0 must be an integer >= 1 or None"),
    ("k_bool", {**CM, "k": True}, r"k=True must be an integer"),
    ("metrics", {**CM, "metrics": ["ndcg"]}, r"metrics=\['ndcg'\] must be distinct names"),
    ("metrics_twice", {**CM, "metrics": ["ctr", "ctr"]}, r"must be distinct names"),
    ("propensity_empty", {**CM, "propensity": ""}, r"propensity='' must be a column name"),
    ("propensity_number", {**CM, "propensity": 0.5}, r"propensity=0.5 must be a column name"),
    ("propensity_value", {**CM, "propensity": {1: 1.0, 2: 0}}, r"maps 2 to 0; each position"),
    ("propensity_key", {**CM, "propensity": {0: 1.0}}, r"maps 0 to 1.0; each position"),
    (
        "propensity_table",
        {**CM, "propensity": pd.DataFrame({"pos": [1], "p": [1.0]})},
        r"a table without the columns 'position' and 'propensity'",
    ),
    (
        "propensity_slices",
        {**CM, "propensity": pd.DataFrame({"position": [1, 1], "propensity": [1.0, 1.0]})},
        r"repeats a position \(a table of several slices\)",
    ),
    ("by_group", {**CM, "by": "q"}, r"holds the group column 'q'"),
]


@pytest.mark.parametrize(
    ("kwargs", "match"), [case[1:] for case in CLICK_ERRORS], ids=[c[0] for c in CLICK_ERRORS]
)
def test_click_metrics_parameter_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        sqlmetrics.click_metrics(LOG, **kwargs)


def test_a_click_at_an_unmapped_position() -> None:
    with pytest.raises(InvalidDataError, match=r"propensity= gives positions 1 only"):
        sqlmetrics.click_metrics(LOG, **{**CM, "propensity": {1: 1.0}})


def test_a_propensity_column_that_is_text() -> None:
    with pytest.raises(InvalidDataError, match=r"propensity column 'txt' has type"):
        sqlmetrics.click_metrics(LOG, **{**CM, "propensity": "txt"})


def test_a_missing_score_column() -> None:
    with pytest.raises(ColumnNotFoundError, match=r"column 'nope' \(score=\) not found"):
        sqlmetrics.click_metrics(LOG, **{**CM, "score": "nope"})


def test_unclicked_rows_need_no_propensity() -> None:
    log = LOG.assign(p=[1.0, None, 1.0, 0.5])
    got = sqlmetrics.click_metrics(log, **CM, k=1)
    # group 1: the clicked item ranks first (w 1); group 2: the clicked one (w 2) ranks first
    assert got["ctr@1"].tolist() == [1.5]
    assert got["recall@1"].tolist() == [1.0]


def test_a_text_group_id_gives_the_integer_ids_values() -> None:
    """Query ids are often text: a text group column is a key like any other (only position,
    click, score and the propensity must be numeric)."""
    rng = np.random.default_rng(5)
    log = pd.DataFrame(
        {
            "q": np.repeat(np.arange(40), 5),
            "pos": np.tile(np.arange(1, 6), 40),
            "click": rng.integers(0, 2, 200),
            "s": np.round(rng.random(200), 1),
        }
    )
    kwargs = {"position": "pos", "click": "click", "score": "s", "k": 3}
    props = {k: 1 / k for k in range(1, 6)}
    numeric = sqlmetrics.click_metrics(log, group="q", propensity=props, **kwargs)
    text = log.assign(q="query-" + log["q"].astype(str))
    assert_frame_equal(
        sqlmetrics.click_metrics(text, group="q", propensity=props, **kwargs), numeric
    )
