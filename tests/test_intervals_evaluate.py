"""evaluate(ci=) and `sqlmetrics eval --ci`: per slice the intervals of the single functions."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

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


# ----------------------------------------------------------------- evaluate(ci=)'s own plan
def ranked(n: int = 600, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "g": rng.integers(0, 40, n),
            "item": np.arange(n),
            "label": rng.integers(0, 4, n),
            "score": np.round(rng.random(n), 2),
            "country": rng.choice(["DE", "FR", "IT"], n),
        }
    )


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the DuckDB backend executes (its query, rows and columns: each one)."""
    from sqlmetrics._backends.duckdb_backend import DuckDBBackend

    seen: list[str] = []
    for name in ("query", "rows", "columns"):
        original = getattr(DuckDBBackend, name)

        def spy(self: Any, sql: str, _original: Any = original) -> Any:
            seen.append(sql)
            return _original(self, sql)

        monkeypatch.setattr(DuckDBBackend, name, spy)
    return seen


def test_evaluate_ci_serves_its_own_plan(statements: list[str]) -> None:
    """The issue's call: the checks and the metrics' statement as without ci=, then one
    interval statement for the three ranking metrics (one kernel); 19 statements (23 with
    the column lookups) when each metric's function was called again.
    """
    df = ranked()
    sqlmetrics.evaluate(df, ["ndcg@10", "map@10", "mrr"], group="g", by="country")
    plain = len(statements)
    statements.clear()
    sqlmetrics.evaluate(df, ["ndcg@10", "map@10", "mrr"], group="g", by="country", ci=0.95)
    assert len(statements) <= 6 and len(statements) == plain + 1, statements
    statements.clear()
    sqlmetrics.evaluate(
        df, ["ndcg@10", "mrr", "precision@5"], group="g", ci=0.9, ci_method="bootstrap", n_boot=20
    )
    assert len(statements) == plain + 1
    # Wilson's intervals of the confusion metrics read one counts statement
    binary = frame(n=300)
    statements.clear()
    sqlmetrics.evaluate(binary, ["accuracy", "precision", "recall"], by="country")
    plain = len(statements)
    statements.clear()
    sqlmetrics.evaluate(binary, ["accuracy", "precision", "recall"], by="country", ci=0.95)
    assert len(statements) == plain + 1


def test_check_params_once_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each metric's options are checked once per call (check_params starts with resolve)."""
    from sqlmetrics._engine import run

    checked: list[str] = []
    original = run.resolve

    def spy(spec: Any, params: Any) -> Any:
        checked.append(spec.name)
        return original(spec, params)

    monkeypatch.setattr(run, "resolve", spy)
    df = ranked()
    sqlmetrics.evaluate(df, ["ndcg@10", "map@10", "mrr"], group="g", by="country", ci=0.95)
    assert sorted(checked) == ["map", "mrr", "ndcg"]
    checked.clear()
    sqlmetrics.ndcg(df, group="g", k=10, ci=0.95)
    assert checked == ["ndcg"]


def test_public_ci_takes_a_level_only() -> None:
    """ci= of a metric function is a level: no hidden request object passes through it."""
    from sqlmetrics._inference.intervals import CiRequest

    df = ranked(n=100)
    hidden: Any = CiRequest("ndcg", 0.95, None, 200, 0)
    with pytest.raises(InvalidParameterError, match="ci="):
        sqlmetrics.ndcg(df, group="g", ci=hidden)


def exact(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("method", [None, "bootstrap"])
def test_shared_interval_statement_is_each_functions_bit_for_bit(method: str | None) -> None:
    """Metrics sharing one interval statement (one kernel; a name fixing other options runs
    in a second) give per slice exactly the bounds of their own functions on the slice.
    """
    df = ranked()
    df.loc[df.country == "IT", "g"] = 7  # one group: the t interval undefined there
    calls = {
        "ndcg@10": lambda d, **kw: sqlmetrics.ndcg(d, group="g", k=10, **kw),
        "map@10": lambda d, **kw: sqlmetrics.mean_average_precision(d, group="g", k=10, **kw),
        "mrr": lambda d, **kw: sqlmetrics.mrr(d, group="g", **kw),
        "P(rel=2)@5": lambda d, **kw: sqlmetrics.precision_at_k(
            d, group="g", k=5, relevance_level=2, **kw
        ),
        "hit_rate@5": lambda d, **kw: sqlmetrics.hit_rate(d, group="g", k=5, **kw),
    }
    options = {"ci": 0.9, "ci_method": method, "n_boot": 30, "seed": 5}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = sqlmetrics.evaluate(df, list(calls), group="g", by="country", **options)
    said = sorted(str(w.message) for w in caught if "interval is undefined" in str(w.message))
    expected = []
    for _, row in out.iterrows():
        part = df[df.country == row["country"]]
        for metric, call in calls.items():
            with warnings.catch_warnings(record=True) as own:
                warnings.simplefilter("always")
                iv = call(part, **options)
            expected += [str(w.message) for w in own if "interval is undefined" in str(w.message)]
            assert exact(row[f"{metric}_lo"], iv.lo), (metric, row["country"])
            assert exact(row[f"{metric}_hi"], iv.hi), (metric, row["country"])
    # the functions' warnings, one per metric (here: one slice each), none filtered away
    assert said == sorted(expected) and (method is not None or len(said) == 4), said
