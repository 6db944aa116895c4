"""evaluate(ci=) and `sqlmetrics eval --ci`: per slice the intervals of the single functions."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics.cli import main
from sqlmetrics.errors import InvalidParameterError


def frame(n: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.8 + 0.3 * label, 2),
            "g": rng.integers(0, 40, n),
            "item": np.arange(n),
            "country": rng.choice(["DE", "FR", "IT"], n),
        }
    )


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12


CALLS = {
    "auc": lambda d, **kw: sqlmetrics.auc(d, **kw),
    "accuracy": lambda d, **kw: sqlmetrics.accuracy(d, **kw),
    "gauc": lambda d, **kw: sqlmetrics.gauc(d, group="g", **kw),
    "ndcg@5": lambda d, **kw: sqlmetrics.ndcg(d, group="g", item="item", k=5, empty="skip", **kw),
}


@pytest.mark.parametrize("method", [None, "bootstrap"])
def test_evaluate_columns_equal_the_single_functions_per_slice(method: str | None) -> None:
    df = frame()
    out = sqlmetrics.evaluate(
        df, list(CALLS), group="g", item="item", by="country", ci=0.9, ci_method=method,
        n_boot=40, seed=3, empty="skip",
    )  # fmt: skip
    names = list(out.columns)
    for metric in CALLS:
        at = names.index(metric)
        assert names[at + 1 : at + 3] == [f"{metric}_lo", f"{metric}_hi"]
    for _, row in out.iterrows():
        part = df[df.country == row["country"]]
        for metric, call in CALLS.items():
            iv = call(part, ci=0.9, ci_method=method, n_boot=40, seed=3)
            assert same(row[metric], iv.value), (metric, row["country"])
            assert same(row[f"{metric}_lo"], iv.lo) and same(row[f"{metric}_hi"], iv.hi)


def test_evaluate_without_slices_and_without_ci() -> None:
    df = frame(n=200)
    out = sqlmetrics.evaluate(df, ["auc", "recall"], ci=0.95)
    assert list(out.columns) == ["auc", "auc_lo", "auc_hi", "recall", "recall_lo", "recall_hi",
                                 "n_rows"]  # fmt: skip
    iv = sqlmetrics.recall(df, ci=0.95)
    assert same(out["recall_lo"].iloc[0], iv.lo) and same(out["recall_hi"].iloc[0], iv.hi)
    assert "auc_lo" not in sqlmetrics.evaluate(df, ["auc"]).columns


def test_evaluate_errors() -> None:
    df = frame(n=50)
    with pytest.raises(InvalidParameterError, match="evaluate: ci_method='t' needs ci="):
        sqlmetrics.evaluate(df, ["auc"], ci_method="t")
    with pytest.raises(
        InvalidParameterError, match="auc: ci_method='t' does not apply to auc; methods that do"
    ):
        sqlmetrics.evaluate(df, ["auc"], ci=0.9, ci_method="t")
    with pytest.raises(InvalidParameterError, match="evaluate: n_boot= must be an integer >= 10"):
        sqlmetrics.evaluate(df, ["auc"], ci=0.9, n_boot=3)


def test_cli_eval_ci(tmp_path: Path) -> None:
    df = frame(n=300)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    result = runner.invoke(
        main, ["eval", str(path), "-m", "auc", "--ci", "0.95", "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(pd.io.common.StringIO(result.output))
    iv = sqlmetrics.auc(df, ci=0.95)
    assert (
        abs(printed["auc_lo"].iloc[0] - iv.lo) < 1e-6
        and abs(printed["auc_hi"].iloc[0] - iv.hi) < 1e-6
    )
    args = ["-m", "auc", "--ci", "0.9", "--ci-method", "bootstrap", "--n-boot", "20", "--seed", "4"]
    boot = runner.invoke(main, ["eval", str(path), *args, "--format", "csv"])
    assert boot.exit_code == 0, boot.output
    iv = sqlmetrics.auc(df, ci=0.9, ci_method="bootstrap", n_boot=20, seed=4)
    assert abs(pd.read_csv(pd.io.common.StringIO(boot.output))["auc_lo"].iloc[0] - iv.lo) < 1e-6
    bad = runner.invoke(
        main, ["eval", str(path), "-m", "auc", "--ci", "0.9", "--ci-method", "delng"]
    )
    assert bad.exit_code != 0
    assert "--ci-method must be one of" in bad.output and "did you mean 'delong'?" in bad.output
