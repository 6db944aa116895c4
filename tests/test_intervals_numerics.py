"""Intervals at the numerical extremes (issue 22): the largest level below 1, Wilson bounds that
always hold their estimate, weighted Wilson intervals that do not depend on the weights' scale."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._inference.intervals import wilson
from sqlmetrics._inference.stats import two_sided_normal, two_sided_t
from sqlmetrics.errors import InvalidDataError

#: the largest double below 1: (1 + level) / 2 rounds to 1.0, (1 - level) / 2 = 2^-54 is exact
TOP = 1 - 2**-53


def frame(n: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.8 + 0.2 * label, 3),
            "w": rng.integers(1, 5, n).astype(float),
            "g": rng.integers(0, 20, n),
            "item": np.arange(n),
        }
    )


# --------------------------------------------------------------------------- the level
@pytest.mark.parametrize("level", [TOP, 1 - 2**-40, 0.999999, 0.95, 0.5, 1e-9, 5e-324])
def test_two_sided_factors_match_scipy(level: float) -> None:
    tail = (1 - level) / 2
    assert two_sided_normal(level) == pytest.approx(stats.norm.isf(tail), rel=1e-12)
    for df in (1, 2, 3, 10, 100, 1e5):
        assert two_sided_t(level, df) == pytest.approx(stats.t.isf(tail, df), rel=1e-9)
    assert two_sided_normal(level) >= 0.0


def test_top_level_normal_factor_is_finite_about_8_29() -> None:
    z = two_sided_normal(TOP)
    assert z == pytest.approx(8.2924, abs=1e-4)
    assert two_sided_t(TOP, 1) == pytest.approx(stats.t.isf(2**-54, 1), rel=1e-9)


CALLS = [
    ("accuracy", {}, "wilson"),
    ("precision", {"weight": "w"}, "wilson"),
    ("auc", {}, "delong"),
    ("auc", {"ci_method": "bootstrap", "n_boot": 20}, "bootstrap"),
    ("log_loss", {}, "t"),
    ("log_loss", {"ci_method": "bootstrap", "n_boot": 20}, "bootstrap"),
    ("mcc", {"n_boot": 20}, "bootstrap"),
    ("ndcg", {"group": "g", "item": "item", "k": 5}, "t"),
    ("ndcg", {"group": "g", "item": "item", "ci_method": "bootstrap", "n_boot": 20}, "bootstrap"),
    ("hit_rate", {"group": "g", "item": "item", "k": 3}, "wilson"),
    ("gauc", {"group": "g"}, "t"),
]


@pytest.mark.parametrize(("name", "kwargs", "method"), CALLS)
def test_largest_level_below_one_gives_finite_bounds(
    name: str, kwargs: dict[str, object], method: str
) -> None:
    # before: statistics.StatisticsError from NormalDist.inv_cdf(1.0) (wilson, delong) or
    # ValueError from t_quantile(1.0) (t)
    df = frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iv = getattr(sqlmetrics, name)(df, ci=TOP, **kwargs)
        wide = getattr(sqlmetrics, name)(df, ci=0.99, **kwargs)
    assert iv.method == method and iv.level == TOP
    assert math.isfinite(iv.lo) and math.isfinite(iv.hi)
    # at least as wide as at 0.99 (the bootstrap's percentiles: the replicates' min and max)
    assert iv.lo <= wide.lo and iv.hi >= wide.hi
    if method != "bootstrap":
        assert iv.lo <= iv.value <= iv.hi


def test_largest_level_below_one_delong_uses_the_exact_tail() -> None:
    df = frame()
    iv = sqlmetrics.auc(df, ci=TOP)
    at_95 = sqlmetrics.auc(df, ci=0.95)
    se = (at_95.hi - at_95.lo) / 2 / stats.norm.isf(0.025)
    # (the upper bound is clipped at 1 here)
    assert iv.value - iv.lo == pytest.approx(stats.norm.isf(2**-54) * se, rel=1e-9)


def test_largest_level_below_one_in_evaluate_and_compare() -> None:
    df = frame()
    df["other"] = np.round(df["score"] * 0.5 + 0.5 * np.random.default_rng(1).random(len(df)), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = sqlmetrics.evaluate(df, ["accuracy", "auc", "log_loss"], ci=TOP, n_boot=20)
        assert np.isfinite(out[["accuracy_lo", "accuracy_hi", "auc_lo", "auc_hi"]].to_numpy()).all()
        for metrics, kw in (
            (["auc", "accuracy", "f1"], {"n_boot": 20}),
            (["accuracy"], {"test": "bootstrap", "n_boot": 20}),
            (["gauc"], {"group": "g"}),
            (["ndcg@5"], {"group": "g", "item": "item"}),
            (["ndcg@5"], {"group": "g", "item": "item", "test": "wilcoxon"}),
        ):
            got = sqlmetrics.compare(df, metrics, scores=["score", "other"], ci=TOP, **kw)
            rows = got[got["model"] == "other"]
            assert np.isfinite(rows[["diff_lo", "diff_hi"]].to_numpy(dtype=float)).all(), metrics
            assert (rows["diff_lo"] <= rows["diff"]).all() and (
                rows["diff"] <= rows["diff_hi"]
            ).all()


# --------------------------------------------------------------------------- Wilson bounds
levels = st.one_of(
    st.sampled_from([TOP, 1 - 2**-40, 0.999, 0.99, 0.95, 0.9, 0.5, 1e-12, 5e-324]),
    st.floats(min_value=5e-324, max_value=TOP),
)


@given(
    n=st.one_of(st.integers(1, 50), st.integers(1, 10**15)),
    share=st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0)),
    level=levels,
)
def test_wilson_never_excludes_its_estimate(n: int, share: float, level: float) -> None:
    # before: p = 1 (every trial a success) gave hi = 1 - 2^-53 < p for most n and levels
    s = round(share * n)
    p = s / n
    lo, hi = wilson(s, n, level)
    assert 0.0 <= lo <= p <= hi <= 1.0


@given(
    n=st.floats(1.0, 1e300),  # a Kish effective size is >= 1
    p=st.floats(0.0, 1.0),
    level=levels,
)
def test_wilson_with_an_effective_size_holds_p(n: float, p: float, level: float) -> None:
    lo, hi = wilson(p, 1.0, level, n)
    assert 0.0 <= lo <= p <= hi <= 1.0


@pytest.mark.parametrize("case", ["all right", "all wrong", "mixed"])
@pytest.mark.parametrize("level", [TOP, 0.95, 1e-9])
def test_wilson_intervals_of_metrics_hold_their_value(case: str, level: float) -> None:
    df = frame(57)
    if case == "all right":
        df["score"] = df["label"].astype(float)
    elif case == "all wrong":
        df["score"] = 1.0 - df["label"]
    for name in ("accuracy", "precision", "recall", "specificity", "fpr"):
        for kw in ({}, {"weight": "w"}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                iv = getattr(sqlmetrics, name)(df, ci=level, **kw)
            if math.isnan(iv.value):
                continue
            assert iv.lo <= iv.value <= iv.hi, (name, kw, iv)
    out = sqlmetrics.evaluate(df, ["accuracy", "recall"], ci=level, by="g")
    for name in ("accuracy", "recall"):
        ok = out[name].isna() | (
            (out[f"{name}_lo"] <= out[name]) & (out[name] <= out[f"{name}_hi"])
        )
        assert ok.all(), out[[name, f"{name}_lo", f"{name}_hi"]]


# --------------------------------------------------------------------------- weighted Wilson
def _ulps(a: float, b: float) -> float:
    return abs(a - b) / math.ulp(max(abs(a), abs(b)))


@pytest.mark.parametrize("name", ["accuracy", "precision", "recall", "specificity", "fpr"])
def test_weighted_wilson_is_scale_invariant(name: str) -> None:
    # before: weights times 1e300 overflowed their squares (n_eff = 0: NaN bounds), times
    # 1e-300 underflowed them (NaN), and other factors moved the bounds by rounding
    df = frame(300, seed=4)
    base = getattr(sqlmetrics, name)(df, weight="w", ci=0.95)
    assert 0 < base.lo < base.hi < 1
    exact = [2.0**-590, 2.0**-3, 7.0, 1024.0, 2.0**1000]
    rounded = [1e-170, 1e-3, 0.1, 1e300]
    for c in exact + rounded:
        got = getattr(sqlmetrics, name)(df.assign(w=df["w"] * c), weight="w", ci=0.95)
        if c in exact:  # the weighted sums scale exactly: the same bits
            assert (got.lo, got.hi) == (base.lo, base.hi), c
        else:  # each weight rounded once: within an ulp
            assert _ulps(got.lo, base.lo) <= 1 and _ulps(got.hi, base.hi) <= 1, (c, got, base)


def test_weighted_wilson_uses_kish_effective_size() -> None:
    df = frame(200, seed=5)
    got = sqlmetrics.recall(df, weight="w", ci=0.9)
    pos = df[df["label"] == 1]
    w = pos["w"].to_numpy()
    hit = (pos["score"] >= 0.5).to_numpy()
    p = w[hit].sum() / w.sum()
    n_eff = w.sum() ** 2 / (w**2).sum()
    z = stats.norm.isf(0.05)
    center = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    assert got.lo == pytest.approx(center - half, abs=1e-12)
    assert got.hi == pytest.approx(center + half, abs=1e-12)


def test_uniform_weights_give_the_unweighted_wilson_interval() -> None:
    # uniform weights: n_eff = n and the same proportion: the unweighted interval, bit for bit
    # for a power of two; else within an ulp (each weighted sum rounded once)
    df = frame(120, seed=6)
    for name in ("accuracy", "precision"):
        plain = getattr(sqlmetrics, name)(df, ci=0.95)
        for w in (2.0**-599, 2.0**-20, 2.0**1000):
            got = getattr(sqlmetrics, name)(df.assign(w=w), weight="w", ci=0.95)
            assert (got.value, got.lo, got.hi) == (plain.value, plain.lo, plain.hi), (name, w)
        for w in (1e-170, 0.3, 1e300):
            got = getattr(sqlmetrics, name)(df.assign(w=w), weight="w", ci=0.95)
            assert _ulps(got.lo, plain.lo) <= 1 and _ulps(got.hi, plain.hi) <= 1, (name, w)


# --------------------------------------------------------------------------- tiny weights
def _weighted_calls() -> list[tuple[str, dict[str, object]]]:
    calls = []
    for spec in sorted(REGISTRY.values(), key=lambda s: s.name):
        roles = {r.name: r for r in spec.roles}
        if spec.output != "scalar" or "weight" not in roles or spec.function in dict(calls):
            continue
        kwargs: dict[str, object] = {}
        for role in spec.roles:
            if role.required and role.name in ("group", "item", "prediction"):
                kwargs[role.name] = {"group": "g"}.get(role.name, role.name)
        if "prediction" in roles and spec.family == "multiclass":
            kwargs["prediction"] = "prediction"
        if "beta" in spec.params:
            kwargs["beta"] = 2.0
        if spec.function == "top_k_accuracy":  # a long score table: one row per (row, class)
            kwargs = {"row_id": "g", "class_col": "item"}
        calls.append((spec.function, kwargs))
    return calls


WEIGHTED = _weighted_calls()


def tiny_frame() -> pd.DataFrame:
    df = frame(80, seed=8)
    df["prediction"] = (df["score"] >= 0.5).astype(int)
    return df


@pytest.mark.parametrize(("function", "kwargs"), WEIGHTED, ids=[f for f, _ in WEIGHTED])
@pytest.mark.parametrize("tiny", [5e-324, 1e-310, 2.2e-308, 1e-300, 2.0**-601])
def test_tiny_or_subnormal_weights_are_a_clear_error(
    function: str, kwargs: dict[str, object], tiny: float
) -> None:
    # before: uniform weights of 5e-324 gave NaN with a false reason ("no predicted positive",
    # "the weights sum to 0", "only one class") and 1e-300 silently lost 8 digits (log_loss)
    df = tiny_frame().assign(w=tiny)
    if function == "top_k_accuracy":
        rows = np.repeat(np.arange(20), 3)
        df = pd.DataFrame({"g": rows, "item": np.tile([0, 1, 2], 20), "w": tiny})
        df["score"] = np.random.default_rng(0).random(len(df))
        df["label"] = (df["item"] == rows % 3).astype(int)
    with pytest.raises(InvalidDataError, match=r"weight column 'w' \(weight=\).*2\^-600"):
        getattr(sqlmetrics, function)(df, weight="w", **kwargs)


def test_tiny_weights_error_names_the_value_and_the_fix() -> None:
    with pytest.raises(InvalidDataError) as info:
        sqlmetrics.precision(tiny_frame().assign(w=5e-324), weight="w", ci=0.95)
    message = str(info.value)
    assert "4.94e-324" in message and "Multiply the weights by a common factor" in message
    with pytest.raises(InvalidDataError, match="weight="):
        sqlmetrics.evaluate(tiny_frame().assign(w=1e-310), ["auc", "log_loss"], weight="w")
    df = tiny_frame().assign(w=1e-310, other=lambda f: 1 - f["score"])
    with pytest.raises(InvalidDataError, match="weight="):
        sqlmetrics.compare(
            df, ["accuracy"], scores=["score", "other"], weight="w", test="bootstrap"
        )


@pytest.mark.parametrize(
    "name",
    ["auc", "log_loss", "brier_score", "precision", "recall", "accuracy", "f1", "specificity",
     "average_precision", "mcc", "calibration_ratio", "normalized_entropy"],
)  # fmt: skip
def test_uniform_small_weights_in_range_give_the_unweighted_value(name: str) -> None:
    df = tiny_frame()
    plain = getattr(sqlmetrics, name)(df)
    for small in (2.0**-599, 1e-170, 1.0, 1e300):
        got = getattr(sqlmetrics, name)(df.assign(w=small), weight="w")
        assert got == pytest.approx(plain, rel=1e-13, abs=1e-15), (name, small)
