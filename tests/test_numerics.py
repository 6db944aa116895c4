"""Numerics (issue 15): deterministic out-of-core sums, overflow, literals, exact score order."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics.errors import InvalidDataError

EPS = float(np.finfo(np.float64).eps)


@pytest.fixture
def memory_limited() -> Iterator[None]:
    """sqlmetrics' own database limited to 40MB and 2 threads, restored afterwards."""
    before = sqlmetrics.configure()
    try:
        sqlmetrics.configure(memory_limit="40MB", threads=2)
        yield
    finally:
        # the spill directory cannot change once used: only the limits are restored
        sqlmetrics.configure(threads=int(before["threads"]), memory_limit=before["memory_limit"])


def _write_rows(path: Path, n: int, groups: int = 1000) -> pd.DataFrame:
    con = duckdb.connect()
    con.execute("select setseed(0.25)")
    con.execute(
        f"""copy (
            select (random() < 0.3)::integer as label, random() as score,
                   random() * 2 as w, i % {groups} as grp
            from range({n}) as t(i)
        ) to '{path}' (format parquet)"""
    )
    return con.execute(f"select * from '{path}'").df()


@pytest.mark.slow
def test_ordered_sums_spill_under_a_memory_limit(tmp_path: Path, memory_limited: None) -> None:
    # 2M rows of 4 columns (~64MB in memory) under a 40MB limit: the former ordered sum
    # (sum(x order by x)) raised OutOfMemoryException here; auc always spilled.
    path = tmp_path / "rows.parquet"
    frame = _write_rows(path, 2_000_000)
    y = frame["label"].to_numpy()
    p = frame["score"].to_numpy()
    w = frame["w"].to_numpy()
    q = np.clip(np.where(y == 1, p, 1 - p), EPS, 1 - EPS)
    expected_loss = math.fsum(w * -np.log(q)) / math.fsum(w)
    expected_brier = math.fsum(w * (p - y) ** 2) / math.fsum(w)

    loss = sqlmetrics.log_loss(str(path), weight="w")
    assert loss == pytest.approx(expected_loss, rel=1e-14)
    assert sqlmetrics.log_loss(str(path)) == pytest.approx(
        math.fsum(-np.log(q)) / len(q), rel=1e-14
    )
    assert sqlmetrics.brier_score(str(path), weight="w") == pytest.approx(expected_brier, rel=1e-14)
    weighted_auc = sqlmetrics.auc(str(path), weight="w")
    assert 0.49 < weighted_auc < 0.51
    assert 0.45 < sqlmetrics.gauc(str(path), group="grp") < 0.55
    table = sqlmetrics.evaluate(str(path), ["auc", "f1", "log_loss", "brier_score"])
    assert table["log_loss"][0] == pytest.approx(math.fsum(-np.log(q)) / len(q), rel=1e-14)


def test_sums_are_bit_identical_under_shuffles_and_threads() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    frame = pd.DataFrame(
        {
            "label": rng.integers(0, 2, n),
            "score": rng.random(n),
            "w": rng.random(n) * 10.0 ** rng.integers(-8, 8, n),
            "grp": rng.integers(0, 300, n),
            "slice": rng.integers(0, 3, n),
        }
    )
    results = set()
    for seed in range(4):
        con = duckdb.connect(config={"threads": 2})
        shuffled = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        con.register("t", shuffled)
        results.add(
            (
                sqlmetrics.log_loss("t", weight="w", con=con),
                sqlmetrics.brier_score("t", weight="w", con=con),
                sqlmetrics.auc("t", weight="w", con=con),
                sqlmetrics.average_precision("t", weight="w", con=con),
                sqlmetrics.f1("t", weight="w", con=con),
                sqlmetrics.gauc("t", group="grp", con=con),
                tuple(
                    sqlmetrics.evaluate(
                        "t", ["log_loss", "auc", "brier_score"], weight="w", by="slice", con=con
                    ).itertuples(index=False)
                ),
            )
        )
    assert len(results) == 1
    loss = results.pop()[0]
    p, y, w = frame["score"].to_numpy(), frame["label"].to_numpy(), frame["w"].to_numpy()
    q = np.clip(np.where(y == 1, p, 1 - p), EPS, 1 - EPS)
    assert loss == pytest.approx(math.fsum(w * -np.log(q)) / math.fsum(w), rel=1e-15)


@pytest.mark.parametrize("scale", [1.0, 1e160, 1e200, 1e-170])
def test_weighted_auc_at_extreme_weight_scales(scale: float) -> None:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = [0, 0, 1, 1, 0, 1]
    s = [0.1, 0.4, 0.35, 0.8, 0.7, 0.9]
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0, 1.0]) * scale
    frame = pd.DataFrame({"label": y, "score": s, "w": w})
    expected = roc_auc_score(y, s, sample_weight=w)
    assert sqlmetrics.auc(frame, weight="w") == pytest.approx(expected, rel=1e-12)
    table = sqlmetrics.evaluate(frame, ["auc"], weight="w")
    assert table["auc"][0] == pytest.approx(expected, rel=1e-12)
    assert sqlmetrics.average_precision(frame, weight="w") == pytest.approx(
        average_precision_score(y, s, sample_weight=w), rel=1e-12
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda f: sqlmetrics.auc(f, weight="w"),
        lambda f: sqlmetrics.f1(f, weight="w"),
        lambda f: sqlmetrics.average_precision(f, weight="w"),
        lambda f: sqlmetrics.evaluate(f, ["auc", "f1"], weight="w"),
    ],
)
@pytest.mark.parametrize("tiny", [1e-30, 1e-13])
def test_a_class_of_weights_below_2_40_of_the_largest_is_rejected(
    call: object, tiny: float
) -> None:
    # the exact sums keep 80 bits below the largest weight: positives of weight 1e-30 among
    # negatives of weight 1 vanished (auc and f1 NaN, "only one class present"; average
    # precision a raw conversion error), and at a span of 1e20 they lost 7 digits
    y = [1, 1, 1, 0, 0, 0]
    s = [0.9, 0.8, 0.3, 0.4, 0.2, 0.1]
    frame = pd.DataFrame({"label": y, "score": s, "w": [tiny] * 3 + [1.0] * 3})
    with pytest.raises(
        InvalidDataError,
        match=r"weight column 'w' \(weight=\): the largest "
        r"weight of label 1 is .*below 2\^-40",
    ):
        call(frame)  # type: ignore[operator]


def test_average_precision_with_a_point_whose_weights_round_to_zero() -> None:
    # the top score holds only a positive of weight 1e-30: below the exact sum's resolution
    # its point had tp + fp = 0, and 0/0 reached the sum as NaN (a raw cast error to INT128)
    from sklearn.metrics import average_precision_score

    y = [1, 1, 1, 0, 0, 0]
    s = [0.9, 0.8, 0.3, 0.4, 0.2, 0.1]
    w = [1e-30, 1.0, 1.0, 1.0, 1.0, 1.0]
    frame = pd.DataFrame({"label": y, "score": s, "w": w})
    assert sqlmetrics.average_precision(frame, weight="w") == pytest.approx(
        average_precision_score(y, s, sample_weight=w), rel=1e-12
    )


def test_classes_of_weights_within_2_40_match_scikit_learn() -> None:
    from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

    y = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.3, 0.4, 0.2, 0.1, 0.6, 0.7])
    w = np.array([1.3, 1.7, 1.1, 1e11, 1.9e11, 1.4e11, 0.0, 1.2e11])
    frame = pd.DataFrame({"label": y, "score": s, "w": w})
    assert sqlmetrics.auc(frame, weight="w") == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), rel=1e-12
    )
    assert sqlmetrics.f1(frame, weight="w") == pytest.approx(
        f1_score(y, s >= 0.5, sample_weight=w), rel=1e-12
    )
    assert sqlmetrics.average_precision(frame, weight="w") == pytest.approx(
        average_precision_score(y, s, sample_weight=w), rel=1e-12
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda f: sqlmetrics.fbeta(f, beta=1e200),
        lambda f: sqlmetrics.fbeta(f, beta=1e-200),
        lambda f: sqlmetrics.fbeta(
            f.assign(prediction=f["label"] + 1),
            prediction="prediction",
            average="macro",
            beta=1e200,
        ),
    ],
)
def test_beta_whose_square_overflows_is_rejected(call: object) -> None:
    frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4, 0.4]})
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"beta=1e[-+]200 is out of range: beta\*\*2 must be a finite double",
    ):
        call(frame)  # type: ignore[operator]


def test_numbers_reach_sql_as_exact_double_literals() -> None:
    from sqlmetrics._templating.literals import sql_double

    con = duckdb.connect()
    for value in [0.5, 0.1, 1e200, -2.5e-300, 0.30000000000000004, 5e-324, 3]:
        literal = sql_double(value)
        assert con.execute(f"select {literal}, typeof({literal})").fetchone() == (
            float(value),
            "DOUBLE",
        )
        inner = literal.removeprefix("cast(").removesuffix(" as double)")
        assert con.execute(f"select typeof({inner})").fetchone() == ("DOUBLE",)
    for bad in [math.inf, -math.inf, math.nan, "0.5", True]:
        with pytest.raises(sqlmetrics.InvalidParameterError, match="a number written into SQL"):
            sql_double(bad)
    sql = sqlmetrics.render("f1", "t", threshold=0.25)
    assert "cast(0.25e0 as double)" in sql
    frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4, 0.4]})
    assert sqlmetrics.fbeta(frame, beta=1e150) == pytest.approx(0.5, rel=1e-12)  # = recall


def _graded(top: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "q": [1, 1, 1, 2, 2, 2],
            "doc": [1, 2, 3, 1, 2, 3],
            "score": [0.9, 0.8, 0.7, 0.9, 0.8, 0.7],
            "rel": [top, 0, 2, 0, 0, 1],
        }
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda f: sqlmetrics.ndcg(f, group="q", item="doc", label="rel"),
        lambda f: sqlmetrics.dcg(f, group="q", item="doc", label="rel", k=2),
        lambda f: sqlmetrics.evaluate(f, ["ndcg@2", "map"], group="q", item="doc", label="rel"),
        lambda f: sqlmetrics.ndcg(
            f.drop(columns="rel"), group="q", item="doc", label="rel", qrels=f[["q", "doc", "rel"]]
        ),
    ],
)
def test_exponential_gain_overflow_is_rejected(call: object) -> None:
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"label column 'rel' \(label=\) has 1 value\(s\) >= 960 "
        r"\(largest 1024.*gain='exponential'.*Pass gain='linear'",
    ):
        call(_graded(1024))  # type: ignore[operator]


@pytest.mark.parametrize(
    "call",
    [
        lambda f, **o: sqlmetrics.ndcg(f, group="q", item="doc", label="rel", **o),
        lambda f, **o: sqlmetrics.evaluate(
            f, ["ndcg@2", "err"], group="q", item="doc", label="rel", **o
        ),
        lambda f, **o: sqlmetrics.dcg(
            f.drop(columns="rel"), group="q", item="doc", label="rel", qrels=f, **o
        ),
    ],
)
def test_the_gain_overflow_is_counted_with_the_values(
    call: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overflow's bound (and ERR's max_grade) is two more aggregates of the values'
    statement, not a statement of its own: an exponential gain runs as many statements as a
    linear one, and refuses as the fence test above shows."""
    from sqlmetrics._backends.duckdb_backend import DuckDBBackend

    seen: list[str] = []
    for name in ("query", "rows"):
        original = getattr(DuckDBBackend, name)

        def spy(self: Any, sql: str, _original: Any = original) -> Any:
            seen.append(sql)
            return _original(self, sql)

        monkeypatch.setattr(DuckDBBackend, name, spy)
    data = _graded(3)
    call(data, gain="linear")
    linear = list(seen)
    seen.clear()
    call(data)
    assert len(seen) == len(linear), seen
    assert sum(">= 960" in sql for sql in seen) == 1
    assert sum(">= 960" in sql for sql in linear) == 0


def test_exponential_gain_below_overflow_and_linear_gain_compute() -> None:
    value = sqlmetrics.ndcg(_graded(959), group="q", item="doc", label="rel")
    assert math.isfinite(value) and 0 < value <= 1
    linear = sqlmetrics.ndcg(_graded(1024), group="q", item="doc", label="rel", gain="linear")
    assert math.isfinite(linear)


def test_integer_scores_above_2_53_keep_their_order() -> None:
    from sklearn.metrics import average_precision_score, roc_auc_score

    big = 2**53
    frame = pd.DataFrame(
        {
            "label": [1, 0, 0, 1],
            "score": [big + 1, big, big + 3, big + 2],
            "g": [1, 1, 1, 1],
            "item": [1, 2, 3, 4],
        }
    )
    assert frame["score"].dtype == np.int64
    y, s = frame["label"].to_numpy(), frame["score"].to_numpy()
    expected_auc = roc_auc_score(y, s)  # 0.5 here; [1, 0] on big+1, big gives 1.0
    assert sqlmetrics.auc(frame.iloc[:2]) == 1.0
    assert sqlmetrics.auc(frame) == expected_auc
    assert sqlmetrics.gauc(frame.iloc[:2], group="g") == 1.0
    assert sqlmetrics.average_precision(frame) == pytest.approx(
        average_precision_score(y, s), rel=1e-12
    )
    assert len(sqlmetrics.roc_curve(frame, drop_intermediate=False)) == 5
    # ranking: item 3 (big + 3, not relevant) is ranked first, item 4 (big + 2) second
    assert sqlmetrics.mrr(frame, group="g", item="item") == 0.5
    assert sqlmetrics.evaluate(frame.iloc[:2], ["auc"])["auc"][0] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["average", "item_desc"])
def test_ranking_means_are_bit_identical_under_shuffles_with_two_threads(ties: str) -> None:
    # groups of 3000 rows span several DuckDB vectors, so their per-group sums are split
    # between threads; before exact_sum, MAP and NDCG moved in the last bit between seeds
    rng = np.random.default_rng(3)
    n_groups, size = 40, 3000
    frame = pd.DataFrame(
        {
            "q": np.repeat(np.arange(n_groups), size),
            "doc": np.tile(np.arange(size), n_groups),
            "score": np.round(rng.random(n_groups * size), 2),
            "rel": rng.integers(0, 4, n_groups * size),
        }
    )
    results = set()
    for seed in range(8):
        con = duckdb.connect(config={"threads": 2})
        con.register("t", frame.sample(frac=1.0, random_state=seed))
        kw = {"group": "q", "item": "doc", "label": "rel", "ties": ties, "con": con}
        results.add(
            (
                sqlmetrics.mean_average_precision("t", **kw),
                sqlmetrics.ndcg("t", **kw),
                sqlmetrics.ndcg("t", k=100, **kw),
                sqlmetrics.dcg("t", k=10, **kw),
                sqlmetrics.mrr("t", **kw),
                sqlmetrics.hit_rate("t", k=1, **kw),
                sqlmetrics.precision_at_k("t", k=7, **kw),
            )
        )
    assert len(results) == 1, results


def test_every_ranking_metric_is_bit_identical_across_groups_under_shuffles() -> None:
    # many small groups: the sum over groups is split between threads. hit_ratio with
    # ties="average" summed the groups' fractional hits with a plain sum and moved in the
    # last bit (0.05044501870410438 vs ...394) between shuffles
    from sqlmetrics._core.registry import REGISTRY

    names = sorted(n for n, s in REGISTRY.items() if s.family == "ranking")
    rng = np.random.default_rng(1)
    n = 200_000
    frame = pd.DataFrame(
        {
            "q": rng.integers(0, 3000, n),
            "doc": np.arange(n),
            "score": rng.integers(0, 20, n) / 7,
            "rel": rng.integers(0, 4, n),
        }
    )
    metrics = [f"{name}@5" if REGISTRY[name].takes_k else name for name in names]
    results = set()
    for seed in range(4):
        con = duckdb.connect(config={"threads": 2})
        con.register("t", frame.sample(frac=1.0, random_state=seed))
        row = sqlmetrics.evaluate(
            "t", metrics, group="q", item="doc", label="rel", ties="average", con=con
        ).iloc[0]
        results.add(tuple(row[metrics]))
    assert len(results) == 1, results
    assert len(metrics) == 11 and "hit_ratio@5" in metrics  # every ranking metric


@pytest.mark.parametrize("scale", [1.0, 1e160, 1e200, 1e-170])
def test_weighted_bounds_and_mcc_at_extreme_weight_scales(scale: float) -> None:
    from sklearn.metrics import matthews_corrcoef, roc_auc_score

    y = [0, 0, 1, 1, 0, 1]
    s = [0.1, 0.4, 0.35, 0.8, 0.7, 0.9]
    p = [0, 1, 1, 1, 0, 0]
    w = np.array([1.0, 2.0, 0.5, 1.5, 3.0, 1.0]) * scale
    frame = pd.DataFrame({"label": y, "score": s, "p": p, "w": w})
    bounds = sqlmetrics.auc_bounds(frame, weight="w", bins=1024)
    assert bounds.estimate == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    assert bounds.lower <= bounds.estimate <= bounds.upper
    # MCC does not change when every weight is scaled; scikit-learn itself overflows at 1e160
    # (NaN) and underflows at 1e-170 (0.0), so the reference uses the unscaled weights
    assert sqlmetrics.mcc(frame, label="label", prediction="p", weight="w") == pytest.approx(
        matthews_corrcoef(y, p, sample_weight=w / scale), rel=1e-12
    )


@pytest.mark.parametrize("scale", [1e160, 1e200, 1e-170])
def test_binary_mcc_from_a_threshold_at_extreme_weight_scales(scale: float) -> None:
    # was NaN with a false "one class only" warning: (tp + fp) ... overflowed in Python
    df = pd.DataFrame(
        {"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.6, 0.35, 0.8, 0.5, 0.5]}
    ).assign(w=[scale, 2 * scale, scale, 3 * scale, scale, scale])
    from sklearn.metrics import matthews_corrcoef

    expected = matthews_corrcoef(
        df["label"], (df["score"] >= 0.5).astype(int), sample_weight=df["w"] / scale
    )
    assert sqlmetrics.mcc(df, weight="w", threshold=0.5) == pytest.approx(expected, rel=1e-12)
