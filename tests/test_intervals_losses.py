"""Intervals of the means of per-row losses (log_loss, brier_score, hamming_loss; issue 39
item 13): the t interval over the rows (their default) against a naive scipy oracle, its
undefined cases, and the one-pass row bootstrap against the generic one (the metric's kernel
over the resampled rows) and against values pinned before the change."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sqlmetrics
from sqlmetrics._inference import intervals
from sqlmetrics.errors import InvalidParameterError, UndefinedMetricWarning

EPS = float(np.finfo(float).eps)
LOSSES = ["log_loss", "brier_score", "hamming_loss"]


def loss_frame(n: int = 180, seed: int = 3) -> pd.DataFrame:
    """Tied scores (two decimals), weights with zeros, a NULL slice; classes for hamming."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.8 + 0.2 * label, 2),
            "w": rng.integers(0, 4, n) * 0.75,
            "c": rng.choice(np.array(["a", "b", None], dtype=object), n),
            "y": rng.integers(0, 3, n),
            "yhat": rng.integers(0, 3, n),
        }
    )


def columns(metric: str) -> dict[str, str]:
    return {"label": "y", "prediction": "yhat"} if metric == "hamming_loss" else {}


def row_losses(metric: str, frame: pd.DataFrame) -> np.ndarray:
    """Each row's loss, naively (scikit-learn's clipping for the log loss)."""
    if metric == "hamming_loss":
        return (frame["y"].to_numpy() != frame["yhat"].to_numpy()).astype(float)
    y, p = frame["label"].to_numpy(), frame["score"].to_numpy()
    if metric == "brier_score":
        return (p - y) ** 2
    q = np.clip(np.where(y == 1, p, 1 - p), EPS, 1 - EPS)
    return np.array([-math.log(x) for x in q])


def oracle_t(losses: np.ndarray, w: np.ndarray, level: float) -> tuple[float, float, float]:
    """The weighted mean, and mean -+ t_{n-1} SE with SE^2 = n / (n - 1) sum w^2 (l - mean)^2
    / (sum w)^2 over the n rows of nonzero weight (scipy's t quantile)."""
    n = int((w != 0).sum())
    mean = float((w * losses).sum() / w.sum())
    if n < 2:
        return mean, math.nan, math.nan
    se = math.sqrt(n / (n - 1) * float(((w * (losses - mean)) ** 2).sum())) / float(w.sum())
    t = float(stats.t.ppf((1 + level) / 2, n - 1))
    return mean, mean - t * se, mean + t * se


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


# --------------------------------------------------------------------------- t
@pytest.mark.parametrize("metric", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_t_interval_equals_the_scipy_oracle(metric: str, weighted: bool) -> None:
    df = loss_frame()
    kw: dict[str, Any] = {"weight": "w"} if weighted else {}
    w = df["w"].to_numpy() if weighted else np.ones(len(df))
    iv = getattr(sqlmetrics, metric)(df, ci=0.9, **columns(metric), **kw)
    mean, lo, hi = oracle_t(row_losses(metric, df), w, 0.9)
    assert iv.method == "t"
    assert same(iv.value, mean) and same(iv.lo, lo) and same(iv.hi, hi), (iv, lo, hi)


@pytest.mark.parametrize("weighted", [False, True])
def test_t_interval_per_slice_with_a_null_slice_and_tiny_slices(weighted: bool) -> None:
    df = loss_frame()
    # one slice of one row (undefined: n < 2) and one of two rows
    df.loc[0, "c"], df.loc[[1, 2], "c"] = "solo", "pair"
    df.loc[[0, 1, 2], "w"] = [1.5, 0.75, 2.25]
    kw: dict[str, Any] = {"weight": "w"} if weighted else {}
    with pytest.warns(UndefinedMetricWarning, match="t interval is undefined in 1 slice"):
        out = sqlmetrics.evaluate(df, LOSSES[:2], by="c", ci=0.95, **kw)
    assert list(out["c"].fillna("<null>")) == ["a", "b", "pair", "solo", "<null>"]
    for metric in LOSSES[:2]:
        for _, row in out.iterrows():
            part = df[df["c"].isna()] if pd.isna(row["c"]) else df[df["c"] == row["c"]]
            w = part["w"].to_numpy() if weighted else np.ones(len(part))
            mean, lo, hi = oracle_t(row_losses(metric, part), w, 0.95)
            got = (row[metric], row[f"{metric}_lo"], row[f"{metric}_hi"])
            assert all(same(a, b) for a, b in zip(got, (mean, lo, hi))), (metric, row["c"])
    solo = out[out["c"] == "solo"].iloc[0]
    assert not math.isnan(solo["log_loss"]) and math.isnan(solo["log_loss_lo"])


def test_t_interval_counts_the_rows_of_nonzero_weight() -> None:
    df = loss_frame(n=40, seed=5)
    df["w"] = 0.0
    df.loc[[3, 9], "w"] = [1.0, 2.0]  # two rows count: df = 1
    iv = sqlmetrics.log_loss(df, weight="w", ci=0.9)
    mean, lo, hi = oracle_t(row_losses("log_loss", df), df["w"].to_numpy(), 0.9)
    assert same(iv.value, mean) and same(iv.lo, lo) and same(iv.hi, hi)
    df.loc[9, "w"] = 0.0  # one row counts: undefined
    with pytest.warns(UndefinedMetricWarning, match="t interval is undefined"):
        iv = sqlmetrics.log_loss(df, weight="w", ci=0.9)
    assert not math.isnan(iv.value) and math.isnan(iv.lo) and math.isnan(iv.hi)


@pytest.mark.parametrize("metric", LOSSES)
def test_t_is_the_default_and_accepted_by_name(metric: str) -> None:
    df = loss_frame()
    fn = getattr(sqlmetrics, metric)
    default = fn(df, ci=0.95, **columns(metric))
    named = fn(df, ci=0.95, ci_method="t", **columns(metric))
    assert default.method == named.method == "t"
    assert default == named
    assert intervals.methods_for(sqlmetrics._core.registry.get_spec(metric)) == ("t", "bootstrap")


def test_t_value_is_the_metric_bit_for_bit_and_scale_free() -> None:
    df = loss_frame()
    iv = sqlmetrics.brier_score(df, weight="w", ci=0.9)
    assert iv.value == sqlmetrics.brier_score(df, weight="w")
    # weights times a power of two: the same bits; times 3: within an ulp or two
    assert sqlmetrics.brier_score(df.assign(w=df.w * 2.0**40), weight="w", ci=0.9) == iv
    tripled = sqlmetrics.brier_score(df.assign(w=df.w * 3.0), weight="w", ci=0.9)
    assert tripled.lo == pytest.approx(iv.lo, rel=1e-14)
    assert tripled.hi == pytest.approx(iv.hi, rel=1e-14)
    # 1e300 weights do not overflow their squares
    big = sqlmetrics.brier_score(df.assign(w=df.w * 1e300), weight="w", ci=0.9)
    assert big.lo == pytest.approx(iv.lo, rel=1e-14)


def test_normalized_entropy_is_not_a_mean_of_row_losses() -> None:
    df = loss_frame()
    assert sqlmetrics.normalized_entropy(df, ci=0.9, n_boot=20).method == "bootstrap"
    with pytest.raises(InvalidParameterError, match="methods that do: 'bootstrap'"):
        sqlmetrics.normalized_entropy(df, ci=0.9, ci_method="t")


def test_rendered_t_interval_of_a_loss_is_python_bit_for_bit() -> None:
    import duckdb

    con = duckdb.connect()
    df = loss_frame()
    con.register("events", df)
    for metric, kw in [("log_loss", {}), ("brier_score", {"weight": "w"})]:
        sql = sqlmetrics.render(metric, "events", by="c", ci=0.9, **kw)
        got = con.execute(sql).df()
        want = sqlmetrics.evaluate(df, [metric], by="c", ci=0.9, **kw)
        for col in (metric, f"{metric}_lo", f"{metric}_hi"):
            assert list(got[col]) == list(want[col]), (metric, col)


# --------------------------------------------------------------------------- bootstrap
#: log_loss(loss_frame(), ci=0.9, ci_method="bootstrap", n_boot=50, seed=7) and friends before
#: this change (the kernel over ci_rows_relation; commit 823dbe7), as float.hex
PINNED = {
    "log_loss": ("0x1.1c8eebc9696c1p-1", "0x1.476e89f0ae332p-1", {}),
    "log_loss_w": ("0x1.28342e905bf4fp-1", "0x1.5c8337ac278a9p-1", {"weight": "w"}),
    "brier_score_w": ("0x1.a04edd335e00ep-3", "0x1.fd05fed2b2cfbp-3", {"weight": "w"}),
    "hamming_loss": ("0x1.3b06091fb7876p-1", "0x1.7aaa7d0aed520p-1", {}),
}


@pytest.mark.parametrize("case", sorted(PINNED))
def test_bootstrap_by_name_keeps_its_values(case: str) -> None:
    lo, hi, kw = PINNED[case]
    metric = case.removesuffix("_w")
    iv = getattr(sqlmetrics, metric)(
        loss_frame(), ci=0.9, ci_method="bootstrap", n_boot=50, seed=7, **columns(metric), **kw
    )
    assert iv.method == "bootstrap"
    assert (iv.lo.hex(), iv.hi.hex()) == (lo, hi)


@pytest.mark.parametrize("metric", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 11])
def test_one_pass_bootstrap_equals_the_kernel_over_the_resampled_rows(
    metric: str, weighted: bool, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    df = loss_frame(n=150, seed=seed + 1)
    kw: dict[str, Any] = dict(by="c", ci=0.9, ci_method="bootstrap", n_boot=40, seed=seed)
    if weighted:
        kw["weight"] = "w"
    fast = sqlmetrics.evaluate(df, [metric], **columns(metric), **kw)
    monkeypatch.setattr(intervals, "row_mean", lambda spec: None)  # the generic row bootstrap
    generic = sqlmetrics.evaluate(df, [metric], **columns(metric), **kw)
    pd.testing.assert_frame_equal(fast, generic, check_exact=True)


def test_loss_bootstrap_runs_no_kernel_per_replicate() -> None:
    # before: the kernel over ci_rows_relation (every row repeated per replicate with its
    # count as the weight __sqlm_w, the loss's ln per row and replicate, the exponents joined
    # back per replicate); now the loss once per row and one grouped sum per replicate
    sql = sqlmetrics.render("log_loss", "events", ci=0.9, ci_method="bootstrap")
    assert "__sqlm_w" not in sql
    assert "replicate_values" in sql
    assert sql.count("-ln(") == 2  # the metric's own statement, and the per-row losses once


@pytest.mark.parametrize("method", ["t", "bootstrap"])
def test_shuffled_rows_give_identical_loss_intervals(method: str) -> None:
    df = loss_frame()
    kw: dict[str, Any] = dict(by="c", weight="w", ci=0.9, ci_method=method, n_boot=30)
    first = sqlmetrics.evaluate(df, ["log_loss", "brier_score"], **kw)
    shuffled = df.sample(frac=1.0, random_state=4).reset_index(drop=True)
    again = sqlmetrics.evaluate(shuffled, ["log_loss", "brier_score"], **kw)
    pd.testing.assert_frame_equal(first, again, check_exact=True)


def test_thread_count_does_not_change_loss_intervals(tmp_path: Any) -> None:
    import duckdb

    df = pd.concat([loss_frame(n=4000, seed=s) for s in range(5)], ignore_index=True)
    path = str(tmp_path / "losses.parquet")
    df.to_parquet(path, row_group_size=1000)
    out = []
    for threads in (1, 2):
        con = duckdb.connect()
        con.execute(f"set threads = {threads}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            out.append(
                [
                    sqlmetrics.log_loss(path, weight="w", ci=0.9, con=con, ci_method=m, n_boot=20)
                    for m in ("t", "bootstrap")
                ]
            )
    assert out[0] == out[1]
