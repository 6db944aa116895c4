"""Repeated impressions: duplicates="error" (default) | "max" | "sum" for ranking metrics."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._core.registry import REGISTRY

CTR = Path(__file__).resolve().parents[1] / "examples" / "data" / "ctr.csv"
RANKING = sorted(name for name, spec in REGISTRY.items() if spec.family == "ranking")
# user 1 saw item "a" twice (clicked once), user 2 saw "e" three times
LOG = pd.DataFrame(
    {
        "user": [1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3],
        "item": ["a", "b", "a", "c", "d", "e", "e", "f", "e", "g", "h"],
        "score": [0.9, 0.8, 0.3, 0.5, 0.7, 0.2, 0.6, 0.4, 0.1, 0.5, 0.9],
        "label": [0, 0, 1, 1, 0, 1, 0, 0, 2, 1, 0],
    }
)
COLS = {"group": "user", "item": "item"}


def merged(how: str) -> pd.DataFrame:
    """The policy computed independently in pandas: one row per (user, item)."""
    return LOG.groupby(["user", "item"], as_index=False).agg(
        score=("score", "max"), label=("label", how)
    )


def request(name: str) -> str:
    return f"{name}@2" if REGISTRY[name].takes_k else name


def test_default_is_a_clear_error_naming_the_option() -> None:
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"ndcg: data=DataFrame has 2 duplicated combinations of 'user' "
        r"\(group=\), 'item' \(item=\), e\.g\. .*; each must appear once; "
        r"or merge repeated impressions with duplicates='max' or 'sum'",
    ):
        sqlmetrics.ndcg(LOG, **COLS)


@pytest.mark.parametrize("policy", ["max", "sum"])
@pytest.mark.parametrize("name", RANKING)
def test_policy_equals_merging_first(name: str, policy: str) -> None:
    expected = sqlmetrics.evaluate(merged(policy), [request(name)], **COLS)
    got = sqlmetrics.evaluate(LOG, [request(name)], duplicates=policy, **COLS)
    assert got.pop("n_rows").sum() == len(LOG)  # n_rows counts the rows read, before merging
    pd.testing.assert_frame_equal(got, expected.drop(columns="n_rows"))


@pytest.mark.parametrize("policy", ["max", "sum"])
def test_functions_and_slices(policy: str) -> None:
    expected = sqlmetrics.ndcg(merged(policy), k=2, **COLS)
    assert sqlmetrics.ndcg(LOG, k=2, duplicates=policy, **COLS) == expected
    assert sqlmetrics.mrr(LOG, duplicates=policy, **COLS) == sqlmetrics.mrr(merged(policy), **COLS)
    sliced = LOG.assign(half=LOG["user"] % 2)
    got = sqlmetrics.evaluate(sliced, ["ndcg@2"], by="half", duplicates=policy, **COLS)
    want = sqlmetrics.evaluate(
        merged(policy).assign(half=lambda f: f["user"] % 2), ["ndcg@2"], by="half", **COLS
    )
    assert got.pop("n_rows").sum() == len(LOG)
    pd.testing.assert_frame_equal(got, want.drop(columns="n_rows"))


def test_with_qrels_only_the_run_is_merged() -> None:
    run = LOG.drop(columns="label")
    qrels = merged("max")[["user", "item", "label"]]
    expected = sqlmetrics.evaluate(
        merged("max").drop(columns="label"), ["map"], qrels=qrels, **COLS
    )
    got = sqlmetrics.evaluate(run, ["map"], qrels=qrels, duplicates="max", **COLS)
    assert got.pop("n_rows").sum() == len(LOG)
    pd.testing.assert_frame_equal(got, expected.drop(columns="n_rows"))
    with pytest.raises(
        sqlmetrics.InvalidDataError, match=r"evaluate: qrels=DataFrame has 2 duplicated"
    ):
        sqlmetrics.evaluate(run, ["map"], qrels=LOG, duplicates="max", **COLS)


def test_bad_policy() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"ndcg: duplicates= must be one of 'error', 'max', 'sum'; got "
        r"'first'",
    ):
        sqlmetrics.ndcg(LOG, duplicates="first", **COLS)


def test_cli_option() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            str(CTR),
            "-m",
            "ndcg@10",
            "--label",
            "click",
            "--score",
            "pctr",
            "--group",
            "user_id",
            "--item",
            "item_id",
            "--option",
            "duplicates=max",
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ndcg@10,n_rows,n_groups\n")  # stderr: skipped groups
    assert "14 of 200 group(s) have no relevant item" in result.stderr
