"""compare() gives the same bits under any row order and thread count (issue 22): every float
sum of every test is an exact sum (decision 0006)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sqlmetrics

RANKING = {"group": "q", "item": "doc"}
#: (metrics, options): every test compare runs, weighted and not
CASES = {
    "t": (["ndcg@10", "map@10"], RANKING),
    "randomization": (["ndcg@10"], {"test": "randomization", "n_permutations": 200, **RANKING}),
    "wilcoxon": (["mrr"], {"test": "wilcoxon", **RANKING}),
    "gauc-t": (["gauc"], {"label": "label01", "group": "q"}),
    "gauc-randomization": (
        ["gauc"],
        {"label": "label01", "group": "q", "test": "randomization", "n_permutations": 100},
    ),
    "delong-mcnemar-bootstrap": (["auc", "accuracy", "f1"], {"label": "label01", "n_boot": 50}),
    "weighted-bootstrap": (
        ["accuracy", "precision", "recall"],
        {"label": "label01", "test": "bootstrap", "weight": "w", "n_boot": 50},
    ),
}
NUMBERS = ["value", "diff", "diff_lo", "diff_hi", "p_value", "p_adjusted"]


def data(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "q": rng.integers(0, 300, n),
            "doc": np.arange(n),
            "label": rng.integers(0, 3, n),
            "country": rng.integers(0, 3, n),
            "w": rng.random(n) * 3 + 0.01,
        }
    )
    df["label01"] = (df["label"] > 0).astype(int)
    for m in "abc":  # scores with ties, and continuous ones
        df[m] = rng.random(n)
    df["b"] = np.round(df["b"], 2)
    return df


@pytest.fixture
def restore_threads() -> Iterator[None]:
    before = sqlmetrics.configure()
    try:
        yield
    finally:
        sqlmetrics.configure(threads=int(before["threads"]))


def run(df: pd.DataFrame, case: str) -> pd.DataFrame:
    metrics, options = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sqlmetrics.compare(df, metrics, scores=["a", "b", "c"], by="country", **options)  # type: ignore[arg-type]


def assert_same_bits(first: pd.DataFrame, second: pd.DataFrame, what: str) -> None:
    pd.testing.assert_frame_equal(first, second, check_exact=True, obj=what)
    a, b = first[NUMBERS].to_numpy(), second[NUMBERS].to_numpy()
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    assert same.all(), f"{what}: {int((~same).sum())} cells differ"


@pytest.mark.parametrize("case", sorted(CASES))
def test_compare_is_bit_stable_under_shuffles_and_threads(case: str, restore_threads: None) -> None:
    # before: plain float sums (per-group moments, spread and sign-flip sums, DeLong's
    # placement sums, weighted counts) moved GAUC's and the weighted bootstrap's rows in the
    # last bits between thread counts and row orders
    df = data()
    sqlmetrics.configure(threads=1)
    first = run(df, case)
    sqlmetrics.configure(threads=2)
    for seed in (1, 2, 3):
        shuffled = df.sample(frac=1, random_state=seed).reset_index(drop=True)
        assert_same_bits(first, run(shuffled, case), f"{case}, threads=2, shuffle {seed}")
    assert_same_bits(first, run(df, case), f"{case}, threads=2")


_EXPECTED: dict[str, pd.DataFrame] = {}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), threads=st.sampled_from([1, 2]))
def test_compare_any_row_order(seed: int, threads: int, restore_threads: None) -> None:
    df = data(3000, seed=9)
    if not _EXPECTED:
        sqlmetrics.configure(threads=2)
        _EXPECTED.update({case: run(df, case) for case in ("gauc-t", "weighted-bootstrap", "t")})
    sqlmetrics.configure(threads=threads)
    permuted = df.iloc[np.random.default_rng(seed).permutation(len(df))].reset_index(drop=True)
    for case, first in _EXPECTED.items():
        assert_same_bits(first, run(permuted, case), f"{case}, threads={threads}")
