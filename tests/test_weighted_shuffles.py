"""Weighted metrics give the same bits under shuffles with non-integer weights (issue 39).

The invariance suite's weight check uses weights of 1, whose sums are exact whatever the
order; weighted ``expected_calibration_error`` added its bins' weight sums with a plain float
``sum``, so its last bit moved with the row order (0x1.0cb7a9a612404p-2 to ...406p-2 over 12
shuffles of 4,000 rows). Here every registered scalar metric that ``evaluate`` runs with
``weight=`` on a binary click log gets random real weights, a NULL slice and several shuffles.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY


def frame() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    n = 4000
    return pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "score": np.round(rng.random(n), 2),
            "w": rng.random(n) * 3,
            "country": rng.choice(np.array(["A", "B", None], dtype=object), n),
        }
    )


def weighted_metrics(df: pd.DataFrame) -> list[str]:
    names = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(REGISTRY):
            try:
                sqlmetrics.evaluate(df.head(50), [name], weight="w")
            except sqlmetrics.errors.SqlMetricsError:
                continue  # not a scalar metric of a weighted binary log
            names.append(name)
    return names


def test_weighted_metrics_are_bit_identical_under_shuffles() -> None:
    df = frame()
    names = weighted_metrics(df)
    assert {"expected_calibration_error", "auc", "log_loss", "f1"} <= set(names), names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = sqlmetrics.evaluate(df, names, weight="w", by="country", threshold=0.5)
        for seed in range(6):
            shuffled = df.sample(frac=1, random_state=seed)
            got = sqlmetrics.evaluate(shuffled, names, weight="w", by="country", threshold=0.5)
            pd.testing.assert_frame_equal(got, base, check_exact=True, obj=f"shuffle {seed}")


@pytest.mark.parametrize("n_bins", [10, 7])
def test_weighted_ece_alone_under_shuffles(n_bins: int) -> None:
    df = frame()
    values = {
        sqlmetrics.expected_calibration_error(
            df.sample(frac=1, random_state=seed), weight="w", n_bins=n_bins
        ).hex()
        for seed in range(12)
    }
    assert len(values) == 1, values
