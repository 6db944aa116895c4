"""Confidence intervals (ci=): every method against its naive oracle (tests/oracle/intervals.py),
determinism, the registry-driven signature check and every error message."""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import typing
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from scipy import stats

import sqlmetrics
from sqlmetrics._core.registry import CI_PARAM_NAMES, PARAMS, REGISTRY
from sqlmetrics._inference import intervals as intervals
from sqlmetrics.errors import InvalidParameterError, UndefinedMetricWarning
from tests.oracle import classification as OC
from tests.oracle import intervals as O
from tests.oracle import ranking as ORK
from tools import resample as R

LEVEL = 0.9
TOL = 1e-9


def binary_frame(n: int = 240, seed: int = 0, n_scores: int = 12) -> pd.DataFrame:
    """Labels and heavily tied scores (n_scores distinct values), weights, groups."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    score = np.round(rng.integers(0, n_scores, n) / n_scores + 0.25 * label, 3)
    return pd.DataFrame(
        {
            "label": label,
            "score": score,
            "w": rng.integers(1, 4, n).astype(float),
            "g": rng.integers(0, 25, n),
            "item": np.arange(n),
        }
    )


def close(a: tuple[float, float] | sqlmetrics.Interval, b: tuple[float, float]) -> bool:
    lo, hi = (a.lo, a.hi) if isinstance(a, sqlmetrics.Interval) else a
    return abs(lo - b[0]) <= TOL and abs(hi - b[1]) <= TOL


# --------------------------------------------------------------------------- the registry
SCALAR_FUNCTIONS = sorted({s.function for s in REGISTRY.values() if s.output == "scalar"})


@pytest.mark.parametrize("name", SCALAR_FUNCTIONS)
def test_every_scalar_function_takes_the_interval_options(name: str) -> None:
    fn = getattr(sqlmetrics, name)
    params = inspect.signature(fn).parameters
    for option in CI_PARAM_NAMES:
        assert option in params, (name, option)
        assert params[option].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[option].default == PARAMS[option].default
        assert f"\n    {option} :" in (fn.__doc__ or ""), (name, option)
    # declared by the function itself (no wrapper): the module's function is the public one
    assert inspect.unwrap(fn) is fn
    assert getattr(importlib.import_module(fn.__module__), name) is fn


def test_the_typed_methods_are_the_registrys() -> None:
    assert set(typing.get_args(intervals.CiMethod)) == set(intervals.METHODS)


@pytest.mark.parametrize("name", SCALAR_FUNCTIONS)
def test_every_docstring_names_the_methods_that_apply(name: str) -> None:
    # the ci_method entry is written in each docstring: it must follow methods_for
    spec = REGISTRY.get(name) or next(s for s in REGISTRY.values() if s.function == name)
    doc = " ".join(str(getattr(sqlmetrics, name).__doc__).split())
    if not spec.inference.intervals:  # auc_bounds, the counts (num_q, ...): ci= refused
        assert "ci_method : str, optional Not available here" in doc
        return
    methods = intervals.methods_for(spec)
    listed = ", ".join(map(repr, methods))
    assert f"this metric's default, {methods[0]!r} (the methods that apply: {listed};" in doc


def test_no_scalar_function_was_forgotten() -> None:
    # the registry's scalar functions are exactly the public functions that take ci=
    # (besides evaluate, compare and report, which take it for their every metric, render,
    # which writes it as SQL, state and merge, which take evaluate's arguments and refuse
    # it: tests/test_state.py, and off_policy_value, an estimator over a log: its intervals
    # are tested in tests/test_off_policy.py)
    taking = {
        n
        for n in sqlmetrics.__all__
        if callable(getattr(sqlmetrics, n))
        and not isinstance(getattr(sqlmetrics, n), type)
        and "ci" in inspect.signature(getattr(sqlmetrics, n)).parameters
    }
    others = {"evaluate", "compare", "render", "report", "state", "merge", "off_policy_value"}
    assert taking == {*SCALAR_FUNCTIONS, *others}
    assert "Interval" in sqlmetrics.__all__


def test_every_scalar_metric_has_a_default_method_that_applies() -> None:
    for spec in REGISTRY.values():
        if spec.output == "scalar":
            assert intervals.default_method(spec) in intervals.methods_for(spec)
            assert "bootstrap" in intervals.methods_for(spec)


def test_ci_none_changes_nothing() -> None:
    df = binary_frame()
    for fn in (sqlmetrics.auc, sqlmetrics.accuracy, sqlmetrics.log_loss):
        frame = df.assign(score=df.score.clip(0.01, 0.99)) if fn is sqlmetrics.log_loss else df
        plain = fn(frame)
        assert isinstance(plain, float)
        assert fn(frame, ci=None) == plain
        assert fn(frame, ci=0.95).value == plain


#: what each function needs besides data= to reach its option checks
_REQUIRED: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "catalog_coverage": ((), {"train": "t"}),
    "novelty": ((), {"train": "t"}),
    "fbeta": ((), {"beta": 1.0}),
    "gauc": ((), {"group": "g"}),
    "evaluate": ((["auc"],), {}),
    "report": ((["auc"],), {}),
    "off_policy_value": ((), {"reward": "r", "pscore": "p", "target": "t"}),
}
#: the functions whose n_boot=/seed= serve intervals (state and merge refuse ci=)
_RESAMPLING = sorted(
    name
    for name in sqlmetrics.__all__
    if inspect.isfunction(getattr(sqlmetrics, name))
    and "n_boot" in inspect.signature(getattr(sqlmetrics, name)).parameters
    and name not in ("state", "merge")
)


@pytest.mark.parametrize("name", _RESAMPLING)
def test_n_boot_and_seed_are_checked_without_ci(name: str) -> None:
    """A bad n_boot= or seed= is refused even without ci= (it is not kept silently until the
    day a level is passed), before the data is read; a good one without ci= changes nothing."""
    assert len(_RESAMPLING) > 50
    fn = getattr(sqlmetrics, name)
    args, kwargs = _REQUIRED.get(name, ((), {}))
    for option, value, words in (
        ("n_boot", -5, "n_boot= must be an integer >= 10 .*got -5"),
        ("n_boot", 5.5, "n_boot= must be an integer >= 10 .*got 5.5"),
        ("seed", -1, "seed= must be an integer in \\[0, 2\\^31\\).*got -1"),
    ):
        # the message names the metric (map, jaccard_macro) or the call that checks (report:
        # evaluate)
        with pytest.raises(InvalidParameterError, match=f"^[a-z_0-9]+: {words}"):
            fn("no_such_table", *args, **kwargs, **{option: value})
    if name == "auc":
        df = binary_frame(n=20)
        assert fn(df, n_boot=500, seed=3) == fn(df)


# --------------------------------------------------------------------------- delong
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delong_equals_the_structural_components(seed: int) -> None:
    df = binary_frame(n=150, seed=seed, n_scores=6 + seed)
    iv = sqlmetrics.auc(df, ci=LEVEL)
    assert iv.method == "delong" and iv.level == LEVEL
    assert iv.value == sqlmetrics.auc(df)
    assert close(iv, O.delong(df.label.tolist(), df.score.tolist(), LEVEL))


@pytest.mark.parametrize("share", [0.15, 0.5, 0.85])
@pytest.mark.parametrize("n_scores", [5, 1000])
def test_delong_per_slice_whichever_class_is_sorted_again(share: float, n_scores: int) -> None:
    """DeLong's SQL sorts the rows of each slice's smaller class a second time (positives when
    2 P <= P + N, else negatives): both ways, tied or distinct scores, every slice equals the
    oracle, its AUC auc's bit for bit; one-class and one-row slices have no interval."""
    rng = np.random.default_rng(int(share * 100) + n_scores)
    n = 600
    country = rng.choice(["a", "b", "c"], n).astype(object)
    country[rng.random(n) < 0.15] = None
    label = (rng.random(n) < share).astype(int)
    score = rng.integers(0, n_scores, n) / n_scores + 0.2 * label
    country[:20], label[:20] = "only_neg", 0
    country[20:40], label[20:40] = "only_pos", 1
    country[40], label[40] = "one_row", 1
    df = pd.DataFrame({"label": label, "score": score, "country": country})
    got = quiet(sqlmetrics.evaluate, df, "auc", by="country", ci=LEVEL)
    alone = quiet(sqlmetrics.evaluate, df, "auc", by="country")
    assert got["country"].equals(alone["country"]) and len(got) == 7
    assert np.array_equal(got["auc"], alone["auc"], equal_nan=True)
    for _, row in got.iterrows():
        part = df[df.country.isna()] if pd.isna(row.country) else df[df.country == row.country]
        if part.label.nunique() < 2:
            assert pd.isna(row.auc) and pd.isna(row.auc_lo) and pd.isna(row.auc_hi)
            continue
        assert close((row.auc_lo, row.auc_hi), O.delong(part.label, part.score, LEVEL))


def test_delong_clips_to_the_unit_interval() -> None:
    df = pd.DataFrame({"label": [0, 0, 0, 1, 1, 1], "score": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9]})
    iv = sqlmetrics.auc(df, ci=0.95)
    assert iv.value == 1.0 and iv.hi == 1.0 and iv.lo == 1.0  # zero variance: a point


# --------------------------------------------------------------------------- wilson
@pytest.mark.parametrize(
    ("metric", "num", "den"),
    [
        ("accuracy", ("tp", "tn"), ("tp", "tn", "fp", "fn")),
        ("precision", ("tp",), ("tp", "fp")),
        ("recall", ("tp",), ("tp", "fn")),
        ("specificity", ("tn",), ("tn", "fp")),
        ("fpr", ("fp",), ("fp", "tn")),
    ],
)
def test_wilson_for_the_proportions(
    metric: str, num: tuple[str, ...], den: tuple[str, ...]
) -> None:
    df = binary_frame()
    counts = OC.confusion(df.label.tolist(), (df.score >= 0.5).astype(int).tolist())
    s = sum(counts[c] for c in num)
    n = sum(counts[c] for c in den)
    iv = getattr(sqlmetrics, metric)(df, threshold=0.5, ci=LEVEL)
    assert iv.method == "wilson"
    assert close(iv, O.wilson(s, n, LEVEL))
    scipy_ci = stats.binomtest(int(s), int(n)).proportion_ci(LEVEL, method="wilson")
    assert close(iv, (scipy_ci.low, scipy_ci.high))


def test_wilson_with_weights_uses_kish_effective_n() -> None:
    df = binary_frame()
    pred = (df.score >= 0.5).astype(int)
    correct = (pred == df.label).to_numpy()
    w = df.w.to_numpy()
    n_eff = w.sum() ** 2 / (w**2).sum()
    p = (w * correct).sum() / w.sum()
    iv = sqlmetrics.accuracy(df, weight="w", ci=LEVEL)
    assert close(iv, O.wilson(p * n_eff, n_eff, LEVEL))


def test_wilson_with_a_prediction_column() -> None:
    df = binary_frame().assign(pred=lambda d: (d.score >= 0.4).astype(int))
    iv = sqlmetrics.recall(df, prediction="pred", ci=LEVEL)
    tp = int(((df.pred == 1) & (df.label == 1)).sum())
    assert close(iv, O.wilson(tp, int(df.label.sum()), LEVEL))


# --------------------------------------------------------------------------- ranking
def ranking_frame(seed: int = 0, n_groups: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        for i in range(int(rng.integers(3, 9))):
            rows.append((f"q{g}", i, float(rng.integers(0, 4)), int(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["group", "item", "score", "label"])


def per_group(name: str, df: pd.DataFrame, **options: object) -> tuple[list[str], list[float]]:
    groups, values = [], []
    for g, rows in df.groupby("group", sort=True):
        value = ORK.metric(name, list(rows.itertuples(index=False, name=None)), **options)
        if not math.isnan(value):
            groups.append(str(g))
            values.append(value)
    return groups, values


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("ndcg", sqlmetrics.ndcg),
        ("map", sqlmetrics.mean_average_precision),
        ("mrr", sqlmetrics.mrr),
    ],
)
def test_t_interval_over_groups(name: str, fn: object) -> None:
    df = ranking_frame()
    _, values = per_group(name, df, k=5)
    iv = fn(df, k=5, empty="skip", ci=LEVEL)  # type: ignore[operator]
    assert iv.method == "t"
    assert close(iv, O.t_mean(values, LEVEL))
    sem = stats.sem(values)
    assert close(iv, stats.t.interval(LEVEL, len(values) - 1, np.mean(values), sem))


@pytest.mark.parametrize("name", ["ndcg", "precision_at_k"])
def test_cluster_bootstrap_replays_the_hashed_group_weights(name: str) -> None:
    df = ranking_frame(seed=3)
    groups, values = per_group(name, df, k=3)
    fn = getattr(sqlmetrics, name)
    iv = fn(df, k=3, empty="skip", ci=LEVEL, ci_method="bootstrap", n_boot=60, seed=11)
    assert iv.method == "bootstrap"
    assert close(iv, O.cluster_bootstrap(groups, values, 60, 11, LEVEL))


def test_hit_rate_is_a_wilson_proportion_over_groups() -> None:
    df = ranking_frame(seed=5)
    _, values = per_group("hit_rate", df, k=2)
    iv = sqlmetrics.hit_rate(df, k=2, empty="skip", ci=LEVEL)
    assert iv.method == "wilson"
    assert close(iv, O.wilson(sum(values), len(values), LEVEL))


def test_gauc_t_and_cluster_bootstrap_with_group_weights() -> None:
    df = binary_frame(n=300, seed=4)
    members = {g: rows for g, rows in df.groupby("g", sort=True)}
    groups, values, sizes = [], [], []
    for g, rows in members.items():
        value = OC.auc(rows.label.tolist(), rows.score.tolist())
        if not math.isnan(value):
            groups.append(g)
            values.append(value)
            sizes.append(len(rows))
    iv = sqlmetrics.gauc(df, group="g", ci=LEVEL, ci_method="bootstrap", n_boot=50, seed=2)
    assert close(iv, O.cluster_bootstrap(groups, values, 50, 2, LEVEL, sizes))
    uniform = sqlmetrics.gauc(df, group="g", weighting="uniform", ci=LEVEL)
    assert uniform.method == "t"
    assert close(uniform, O.t_mean(values, LEVEL))
    # samples-weighted t: the ratio estimator's standard error
    x, v = np.array(values), np.array(sizes, dtype=float)
    m = (v * x).sum() / v.sum()
    se = math.sqrt(len(x) / (len(x) - 1) * (v**2 * (x - m) ** 2).sum()) / v.sum()
    half = stats.t.ppf((1 + LEVEL) / 2, len(x) - 1) * se
    assert close(sqlmetrics.gauc(df, group="g", ci=LEVEL), (m - half, m + half))


# --------------------------------------------------------------------------- row bootstrap
def test_auc_bootstrap_replays_the_bucket_draws() -> None:
    # 12 distinct scores: one bucket per score, the draws exact in law
    df = binary_frame(n=200, seed=6)
    y, s = df.label.to_numpy(), df.score.to_numpy()
    expected = O.auc_bucket_bootstrap(y, s, intervals.AUC_BOOT_BUCKETS, 40, 5, LEVEL)
    iv = sqlmetrics.auc(df, ci=LEVEL, ci_method="bootstrap", n_boot=40, seed=5)
    assert close(iv, expected)
    assert iv.value == sqlmetrics.auc(df)  # the bootstrap query's AUC is the metric's


def test_auc_oracle_of_the_replay_is_the_pairwise_auc() -> None:
    df = binary_frame(n=60, seed=8)
    w = df.w.to_numpy()
    pairwise = OC.auc(df.label.tolist(), df.score.tolist(), w.tolist())
    assert math.isclose(O.auc_weighted(df.label.to_numpy(), df.score.to_numpy(), w), pairwise)


def test_auc_bucket_approximation_equals_its_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    df = binary_frame(n=180, seed=9, n_scores=40)  # 40 distinct scores in 7 row buckets
    monkeypatch.setattr(intervals, "AUC_BOOT_BUCKETS", 7)
    iv = sqlmetrics.auc(df, ci=LEVEL, ci_method="bootstrap", n_boot=30, seed=4)
    y, s = df.label.to_numpy(), df.score.to_numpy()
    assert close(iv, O.auc_bucket_bootstrap(y, s, 7, 30, 4, LEVEL))


def test_auc_bucket_draws_have_the_law_of_the_row_bootstrap() -> None:
    # one distinct score per bucket: a bucket's Poisson(P_k) count is the sum of its rows'
    # Poisson(1) weights in law, so the replicate AUCs of both have the same distribution
    df = binary_frame(n=150, seed=3, n_scores=15)
    y, s = df.label.to_numpy(), df.score.to_numpy()
    buckets = np.array(O.auc_bucket_replicates(y, s, 4096, 1500, 1))
    keys = O.row_keys([s, y])
    rows = np.array([O.auc_weighted(y, s, R.poisson_weight(keys, b, 1).astype(float))
                     for b in range(1, 1501)])  # fmt: skip
    # standard errors of the mean / sd over 1500 replicates: ~sd / 39, ~sd / 55
    sd = rows.std()
    assert abs(buckets.mean() - rows.mean()) < 0.1 * sd
    assert abs(buckets.std() - sd) < 0.1 * sd
    assert (
        np.abs(np.percentile(buckets, [5, 50, 95]) - np.percentile(rows, [5, 50, 95])).max()
        < 0.2 * sd
    )


def test_weighted_auc_bootstrap_replays_weight_times_count() -> None:
    df = binary_frame(n=120, seed=10)
    y, s, w = df.label.to_numpy(), df.score.to_numpy(), df.w.to_numpy()
    keys = O.row_keys([s, y, w])
    expected = O.row_bootstrap(keys, lambda c: O.auc_weighted(y, s, w * c), 30, 1, LEVEL)
    iv = sqlmetrics.auc(df, weight="w", ci=LEVEL, n_boot=30, seed=1)
    assert iv.method == "bootstrap"
    assert close(iv, expected)


def test_accuracy_bootstrap_replays_the_row_weights() -> None:
    df = binary_frame(n=150, seed=11)
    y, s = df.label.to_numpy(), df.score.to_numpy()
    keys = O.row_keys([s, y])
    correct = ((s >= 0.5).astype(int) == y).astype(float)
    expected = O.row_bootstrap(keys, lambda w: float((w * correct).sum() / w.sum()), 40, 3, LEVEL)
    iv = sqlmetrics.accuracy(df, ci=LEVEL, ci_method="bootstrap", n_boot=40, seed=3)
    assert close(iv, expected)


def _binary_mcc(y: np.ndarray, pred: np.ndarray, w: np.ndarray) -> float:
    tp, fp = (w * (pred == 1) * (y == 1)).sum(), (w * (pred == 1) * (y == 0)).sum()
    tn, fn = (w * (pred == 0) * (y == 0)).sum(), (w * (pred == 0) * (y == 1)).sum()
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return float((tp * tn - fp * fn) / den) if den > 0 else math.nan


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_mcc_at_a_threshold_bootstraps_its_confusion_rows(weighted: bool) -> None:
    df = binary_frame(n=160, seed=12)
    y, s, w = df.label.to_numpy(), df.score.to_numpy(), df.w.to_numpy()
    pred = (s >= 0.4).astype(int)
    keys = O.row_keys([s, y, w] if weighted else [s, y])  # score first, the weight last
    base = w if weighted else np.ones(len(y))
    expected = O.row_bootstrap(keys, lambda c: _binary_mcc(y, pred, base * c), 40, 2, LEVEL)
    iv = sqlmetrics.mcc(df, threshold=0.4, weight="w" if weighted else None, ci=LEVEL,
                        n_boot=40, seed=2)  # fmt: skip
    assert iv.method == "bootstrap"
    assert iv.value == sqlmetrics.mcc(df, threshold=0.4, weight="w" if weighted else None)
    assert math.isclose(iv.value, _binary_mcc(y, pred, base), abs_tol=1e-12)
    assert close(iv, expected)


def test_binary_mcc_interval_undefined_with_one_predicted_class() -> None:
    df = binary_frame(n=80, seed=1)
    with pytest.warns(UndefinedMetricWarning):
        iv = sqlmetrics.mcc(df, threshold=5.0, ci=0.9, n_boot=20)
    assert math.isnan(iv.value) and math.isnan(iv.lo) and math.isnan(iv.hi)


def test_binary_mcc_refuses_a_method_that_does_not_apply() -> None:
    with pytest.raises(InvalidParameterError, match="ci_method='wilson' does not apply to mcc"):
        sqlmetrics.mcc(binary_frame(), ci=0.9, ci_method="wilson")


def test_auc_bounds_docstring_says_ci_is_refused() -> None:
    assert "returns two bounds" in str(sqlmetrics.auc_bounds.__doc__)
    with pytest.raises(InvalidParameterError, match="auc_bounds: ci= applies to a single value"):
        sqlmetrics.auc_bounds(binary_frame(), ci=0.9)


def test_copies_for_a_metric_without_weights() -> None:
    # spearman without group= has no weight role: rows are repeated count times
    df = binary_frame(n=80, seed=12)
    y, s = df.label.to_numpy(), df.score.to_numpy()
    keys = O.row_keys([s, y])

    def rho(c: np.ndarray) -> float:
        reps = c.astype(int)
        return float(stats.spearmanr(np.repeat(s, reps), np.repeat(y, reps)).statistic)

    expected = O.row_bootstrap(keys, rho, 25, 6, LEVEL)
    iv = sqlmetrics.spearman(df, ci=LEVEL, n_boot=25, seed=6)
    assert iv.method == "bootstrap"
    assert close(iv, expected)


def test_log_loss_bootstrap_replays_the_row_weights() -> None:
    df = binary_frame(n=100, seed=13).assign(score=lambda d: d.score.clip(0.05, 0.95))
    y, s = df.label.to_numpy(), df.score.to_numpy()
    keys = O.row_keys([s, y])
    loss = -(y * np.log(s) + (1 - y) * np.log(1 - s))
    expected = O.row_bootstrap(keys, lambda w: float((w * loss).sum() / w.sum()), 30, 0, LEVEL)
    iv = sqlmetrics.log_loss(df, ci=LEVEL, ci_method="bootstrap", n_boot=30)
    assert iv.method == "bootstrap"
    assert close(iv, expected)


# --------------------------------------------------------------------------- determinism
@pytest.mark.parametrize(
    "call",
    [
        lambda d: sqlmetrics.auc(d, ci=0.95),
        lambda d: sqlmetrics.auc(d, ci=0.95, ci_method="bootstrap", n_boot=30),
        lambda d: sqlmetrics.accuracy(d, ci=0.95, ci_method="bootstrap", n_boot=30),
        lambda d: sqlmetrics.gauc(d, group="g", ci=0.95, ci_method="bootstrap", n_boot=30),
        lambda d: sqlmetrics.brier_score(d.assign(score=d.score.clip(0, 1)), ci=0.9, n_boot=30),
    ],
)
def test_shuffled_input_gives_identical_intervals(call: object) -> None:
    df = binary_frame(n=160, seed=14)
    first = call(df)  # type: ignore[operator]
    shuffled = call(df.sample(frac=1.0, random_state=3).reset_index(drop=True))  # type: ignore[operator]
    assert first == shuffled


def test_seed_decides_the_bootstrap() -> None:
    df = binary_frame(n=160, seed=15)
    a = sqlmetrics.auc(df, ci=0.95, ci_method="bootstrap", n_boot=30, seed=1)
    assert a == sqlmetrics.auc(df, ci=0.95, ci_method="bootstrap", n_boot=30, seed=1)
    b = sqlmetrics.auc(df, ci=0.95, ci_method="bootstrap", n_boot=30, seed=2)
    assert (a.lo, a.hi) != (b.lo, b.hi)


def test_undefined_interval_is_nan_with_a_warning() -> None:
    df = pd.DataFrame({"label": [1, 1, 1], "score": [0.2, 0.5, 0.9]})
    with pytest.warns(UndefinedMetricWarning):
        iv = sqlmetrics.auc(df, ci=0.95)
    assert math.isnan(iv.value) and math.isnan(iv.lo) and math.isnan(iv.hi)
    ranking = ranking_frame(n_groups=1)
    with pytest.warns(UndefinedMetricWarning, match="the t interval is undefined in 1 slice"):
        one = sqlmetrics.ndcg(ranking, k=3, empty="skip", ci=0.95)
    assert not math.isnan(one.value) and math.isnan(one.lo)


def test_replay_weights_are_the_sql_weights() -> None:
    keys = np.arange(1, 50)
    assert R.poisson_weight(keys, 3, 0).sum() > 0  # the replay runs; test_resample checks SQL


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ci": 1.0}, "auc: ci= must be a confidence level strictly between 0 and 1 .*got 1.0"),
        ({"ci": 0}, "auc: ci= must be a confidence level strictly between 0 and 1 .*got 0"),
        ({"ci": True}, "auc: ci= must be a confidence level .*got True"),
        ({"ci": 0.9, "n_boot": 5}, "auc: n_boot= must be an integer >= 10 .*got 5"),
        ({"ci": 0.9, "n_boot": 10**6}, "auc: n_boot= must be <= 100000 .*got 1000000"),
        ({"ci": 0.9, "seed": -1}, "auc: seed= must be an integer in \\[0, 2\\^31\\) .*got -1"),
        (
            {"ci": 0.9, "ci_method": "bootstrp"},
            "auc: ci_method= must be one of 'bootstrap', 'delong', 't', 'wilson' or None .*"
            "got 'bootstrp'; did you mean 'bootstrap'\\?",
        ),
        (
            {"ci": 0.9, "ci_method": "wilson"},
            "auc: ci_method='wilson' does not apply to auc; methods that do: 'delong', "
            "'bootstrap' \\(None = 'delong'\\)",
        ),
        ({"ci_method": "delong"}, "auc: ci_method='delong' needs ci= \\(a level, e.g. ci=0.95\\)"),
        (
            {"ci": 0.9, "ci_method": "delong", "weight": "w"},
            "auc: ci_method='delong' does not apply to auc \\(DeLong's variance here is "
            "unweighted; with weight= use the bootstrap\\); methods that do: 'bootstrap'",
        ),
    ],
)
def test_errors_name_the_argument_the_value_and_the_fix(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        sqlmetrics.auc(binary_frame(n=20), **kwargs)


def test_a_method_that_does_not_apply_names_those_that_do() -> None:
    with pytest.raises(
        InvalidParameterError,
        match="ndcg: ci_method='delong' does not apply to ndcg; methods that do: 't', "
        "'bootstrap' \\(None = 't'\\)",
    ):
        sqlmetrics.ndcg(ranking_frame(), k=3, ci=0.9, ci_method="delong")
    with pytest.raises(
        InvalidParameterError,
        match="spearman: ci_method='t' does not apply to spearman \\(t needs per-group values: "
        "pass group=\\); methods that do: 'bootstrap'",
    ):
        sqlmetrics.spearman(binary_frame(n=30), ci=0.9, ci_method="t")


def test_ci_on_a_per_class_result_is_an_error() -> None:
    df = pd.DataFrame({"label": [0, 1, 2, 1], "pred": [0, 1, 1, 2]})
    with pytest.raises(
        InvalidParameterError,
        match="precision: ci= applies to a single value; this call returns Series",
    ):
        sqlmetrics.precision(df, prediction="pred", average=None, ci=0.9)


def test_no_warning_for_a_defined_interval() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sqlmetrics.auc(binary_frame(), ci=0.95)


# --------------------------------------------------------------------------- the site
def test_site_intervals_table_is_generated() -> None:
    from docpages import page

    from tools.docs import INTERVALS_END, INTERVALS_START, intervals_table
    from tools.docs import section as marked

    table = marked(page("concepts/uncertainty.md"), INTERVALS_START, INTERVALS_END).strip()
    assert table == intervals_table().strip(), "run `python -m tools.docs`"


# --------------------------------------------------------------------------- every metric
CI_OPTIONS = ("ci", "ci_method", "n_boot", "seed")


def _smoke_cases() -> list[Any]:
    """The engine contract suite's calls of the scalar functions (every public function with
    the arguments it takes: tests/engine_calls.py), their own ci= options left out."""
    from engine_calls import CALLS

    cases, seen = [], set()
    for call in CALLS:
        kwargs = {k: v for k, v in call.kwargs.items() if k not in CI_OPTIONS}
        # one call per function, table and form (average, weights, groups, labels=): the
        # default method depends on these
        form = [kwargs.get(k) is not None for k in ("weight", "group", "labels", "max_fpr")]
        key = (call.function, call.table, str(kwargs.get("average")), *form)
        if (
            call.function in SCALAR_FUNCTIONS
            and call.kind == "call"
            and kwargs.get("average", "binary") is not None
            and key not in seen
        ):
            seen.add(key)
            cases.append(pytest.param(call.function, call.table, kwargs, id=call.name))
    return cases


@pytest.fixture(scope="module")
def call_tables() -> Any:
    from conftest import duckdb_tables
    from engine_calls import all_tables

    con = duckdb_tables(all_tables())
    yield con
    con.close()


@pytest.mark.parametrize(("name", "table", "kwargs"), _smoke_cases())
@pytest.mark.parametrize("method", [None, "bootstrap"])
def test_every_scalar_metric_gives_an_interval(
    name: str, table: str, kwargs: dict, method: str | None, call_tables: Any
) -> None:
    fn = functools.partial(getattr(sqlmetrics, name), table, con=call_tables)
    if name == "auc_bounds":  # two bounds, not one number: refused (README, docstring)
        match = "returns AucBounds, not one number"
        with pytest.raises(InvalidParameterError, match=match):
            fn(ci=0.9, ci_method=method, n_boot=20, **kwargs)
        return
    if not REGISTRY[iv_spec(name, kwargs)].inference.intervals:  # the counts: refused
        with pytest.raises(InvalidParameterError, match=f"{name}: ci= has no interval here"):
            fn(ci=0.9, ci_method=method, n_boot=20, **kwargs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the point value's own warnings (skipped groups)
        plain = fn(**kwargs)
        iv = fn(ci=0.9, ci_method=method, n_boot=20, **kwargs)
    assert isinstance(iv, sqlmetrics.Interval)
    columns = {"weight": kwargs.get("weight"), "group": kwargs.get("group")}
    default = intervals.default_method(REGISTRY[iv_spec(name, kwargs)], columns)
    assert iv.method == (method or default)
    assert iv.value == plain or (math.isnan(iv.value) and math.isnan(plain))
    if not math.isnan(iv.lo):
        assert iv.lo <= iv.hi


def iv_spec(function: str, kwargs: dict) -> str:
    """The registry name a call of ``function`` computes (precision with average= macro ->
    precision_macro)."""
    if function == "auc" and kwargs.get("max_fpr") is not None:
        return "partial_auc"
    default = inspect.signature(getattr(sqlmetrics, function)).parameters.get("average")
    average = kwargs.get("average", "binary" if default is None else default.default)
    name = {"mean_average_precision": "map"}.get(function, function)
    # multiclass_auc and multilabel_average_precision take average= as an option
    if average not in ("binary", None) and f"{name}_{average}" in REGISTRY:
        name = f"{name}_{average}"
    return name


def test_hit_ratio_with_qrels_and_slices_is_refused() -> None:
    run = ranking_frame(seed=2).assign(country=lambda d: np.where(d.item % 2 == 0, "DE", "FR"))
    qrels = run[["group", "item", "label"]]
    with pytest.raises(
        InvalidParameterError,
        match="hit_ratio: ci= with qrels= and slices is not supported for hit_ratio; drop by=",
    ):
        sqlmetrics.evaluate(
            run.drop(columns="label"), ["hit_ratio@3"], group="group", item="item",
            qrels=qrels, by="country", ci=0.9, ci_method="bootstrap",
        )  # fmt: skip


def test_hit_ratio_cluster_bootstrap_weighs_groups_by_their_relevant_items() -> None:
    df = ranking_frame(seed=6)
    groups, values, weights = [], [], []
    for g, rows in df.groupby("group", sort=True):
        n_rel = int((rows.label >= 1).sum())
        value = ORK.metric("hit_ratio", list(rows.itertuples(index=False, name=None)), k=3)
        if n_rel and not math.isnan(value):
            groups.append(str(g))
            values.append(value)
            weights.append(n_rel)
    iv = sqlmetrics.hit_ratio(df, k=3, empty="skip", ci=LEVEL, n_boot=30, seed=8)
    assert iv.method == "bootstrap"
    assert close(iv, O.cluster_bootstrap(groups, values, 30, 8, LEVEL, weights))


def test_gm_map_cluster_bootstrap_is_geometric() -> None:
    df = ranking_frame(seed=12)
    groups, values = per_group("map", df, k=5)
    floored = [max(v, 1e-5) for v in values]  # gm_map's floor (trec_eval)
    iv = sqlmetrics.gm_map(df, k=5, empty="skip", ci=LEVEL, n_boot=25, seed=3)
    assert iv.method == "bootstrap"
    assert close(iv, O.cluster_bootstrap(groups, floored, 25, 3, LEVEL, geometric=True))
