"""Every error message of sqlmetrics.compare: it names the argument, the value and the fix."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics import InvalidDataError, InvalidParameterError

RNG = np.random.default_rng(0)
DF = pd.DataFrame(
    {
        "q": np.repeat(np.arange(10), 4),
        "doc": np.arange(40),
        "label": RNG.integers(0, 2, 40),
        "a": RNG.random(40),
        "b": RNG.random(40),
    }
)
RANK = {"group": "q", "item": "doc"}


def runs(**drop: Any) -> dict[str, pd.DataFrame]:
    out = {m: DF[["q", "doc", "label", m]].rename(columns={m: "score"}) for m in ("a", "b")}
    return out


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scores": ["a"]}, r"scores= needs at least two models to compare; got \['a'\]"),
        ({"scores": "a"}, r"scores= needs at least two models"),
        ({"scores": None}, r"scores= needs at least two models to compare; got \[\]"),
        ({"scores": ["a", "a"]}, r"scores= names a model twice"),
        ({"scores": ["a", 3]}, r"scores= must name the models"),
        (
            {"scores": ["a", "b"], "baseline": "c"},
            r"baseline='c' is not one of scores= \('a', 'b'\); pass one of them",
        ),
        ({"scores": ["a", "b"], "test": "ttest"}, r"unknown test='ttest'.*did you mean 't'\?"),
        (
            {"scores": ["a", "b"], "test": "mcnemar"},
            r"test='mcnemar' does not apply to 'auc'; tests that apply: 'delong'",
        ),
        ({"scores": ["a", "b"], "correction": "fdr"}, r"correction= must be one of 'holm'"),
        ({"scores": ["a", "b"], "ci": 1.5}, r"ci= must be a number in \(0, 1\).*got 1.5"),
        ({"scores": ["a", "b"], "ci": True}, r"ci= must be a number in \(0, 1\)"),
        ({"scores": ["a", "b"], "n_boot": 5}, r"n_boot= must be an integer >= 10.*got 5"),
        (
            {"scores": ["a", "b"], "n_permutations": 2.5},
            r"n_permutations= must be an integer >= 10",
        ),
        (
            {"scores": ["a", "b"], "seed": -1},
            r"seed= must be an integer in \[0, 2\^31\) .*; got -1",
        ),
        ({"scores": ["a", "b"], "weight": "a"}, r"weight='a' is used by test='bootstrap' only"),
        ({"scores": ["a", "b"], "zero_division": 0.0}, r"zero_division= is not used by compare"),
    ],
)
def test_auc_argument_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        sqlmetrics.compare(DF, "auc", **kwargs)


def test_a_test_that_does_not_apply_lists_those_that_do() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=r"test='delong' does not apply to 'ndcg@5'; tests that apply: 't', "
        r"'randomization', 'wilcoxon' \(default 't'\)",
    ):
        sqlmetrics.compare(DF, "ndcg@5", scores=["a", "b"], test="delong", **RANK)
    with pytest.raises(InvalidParameterError, match=r"tests that apply: 'bootstrap'"):
        sqlmetrics.compare(DF, "f1", scores=["a", "b"], test="mcnemar")


def test_unsupported_metric() -> None:
    with pytest.raises(
        InvalidParameterError, match=r"no paired test for 'ks_statistic'; compare supports"
    ):
        sqlmetrics.compare(DF, "ks_statistic", scores=["a", "b"])


def test_empty_error_policy_refused() -> None:
    with pytest.raises(InvalidParameterError, match=r"empty='error' is not supported by compare"):
        sqlmetrics.compare(DF, "ndcg@5", scores=["a", "b"], empty="error", **RANK)


def test_null_scores_say_how_many_rows_differ() -> None:
    df = DF.copy()
    df.loc[[1, 5, 7], "b"] = np.nan
    with pytest.raises(
        InvalidDataError,
        match=r"cover different rows of the 40: 'b' has 3 NULL score\(s\), so scores 37 rows "
        r"while 'a' score\(s\) all 40.*where b is not null",
    ):
        sqlmetrics.compare(df, "auc", scores=["a", "b"])


def test_missing_score_column() -> None:
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"column 'z' \(scores=\) not found"):
        sqlmetrics.compare(DF, "auc", scores=["a", "z"])


def test_no_data_and_both_forms() -> None:
    with pytest.raises(InvalidParameterError, match=r"compare: no data; pass a table"):
        sqlmetrics.compare(metrics="auc", scores=["a", "b"])
    with pytest.raises(InvalidParameterError, match=r"runs= and data=/scores= both given"):
        sqlmetrics.compare(DF, "ndcg@5", runs=runs(), **RANK)


def test_runs_with_different_groups_say_how_many() -> None:
    r = runs()
    r["b"] = r["b"][~r["b"]["q"].isin([2, 5, 7])]
    with pytest.raises(
        InvalidDataError, match=r"run 'b' lacks 3 of the 10 groups of run 'a'; runs are paired"
    ):
        sqlmetrics.compare(metrics="ndcg@5", runs=r, **RANK)
    extra = runs()
    extra["b"] = pd.concat(
        [
            extra["b"],
            pd.DataFrame(
                {"q": [99, 98], "doc": [1000, 1001], "label": [1, 0], "score": [0.1, 0.2]}
            ),
        ]
    )
    with pytest.raises(
        InvalidDataError, match=r"run 'b' has 2 of its 12 groups that run 'a' lacks"
    ):
        sqlmetrics.compare(metrics="ndcg@5", runs=extra, **RANK)


def test_runs_with_conflicting_labels() -> None:
    r = runs()
    r["b"] = r["b"].assign(label=1 - r["b"]["label"])
    with pytest.raises(
        InvalidDataError, match=r"give different labels \(label=\) to 40 \(group, item\)"
    ):
        sqlmetrics.compare(metrics="ndcg@5", runs=r, **RANK)


def test_runs_errors() -> None:
    with pytest.raises(InvalidParameterError, match=r"runs= needs at least two models"):
        sqlmetrics.compare(metrics="ndcg@5", runs={"a": runs()["a"]}, **RANK)
    with pytest.raises(InvalidParameterError, match=r"baseline='x' is not one of runs="):
        sqlmetrics.compare(metrics="ndcg@5", runs=runs(), baseline="x", **RANK)
    with pytest.raises(InvalidParameterError, match=r"'gauc' is not a ranking metric"):
        sqlmetrics.compare(metrics="gauc", runs=runs(), group="q")
    with pytest.raises(InvalidParameterError, match=r"by=\['label'\] is not supported with runs="):
        sqlmetrics.compare(metrics="ndcg@5", runs=runs(), by="label", **RANK)


def test_runs_bad_run_names_the_run() -> None:
    r = runs()
    r["b"] = r["b"].rename(columns={"score": "s"})
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"runs\['b'\]="):
        sqlmetrics.compare(metrics="ndcg@5", runs=r, **RANK)


def test_one_class_and_single_group_warn() -> None:
    df = DF.assign(label=1)
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=r"test of auc is undefined in 1"):
        out = sqlmetrics.compare(df, "auc", scores=["a", "b"])
    assert out["value"].isna().all()
