"""top_k_accuracy from wide score columns (scikit-learn's ``top_k_accuracy_score(y_true,
y_score, k=, labels=, sample_weight=)``: a score column per class, the true class in one
column): SQL == scikit-learn == the long form == oracle, with tied scores (ties by column
position, the later first, as scikit-learn's reversed stable argsort); weights, labels=,
mappings, evaluate, the CLI, ci=, PostgreSQL and Spark; every new error message."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import quiet
from oracle import multiclass_auc as omc
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics import cli

CLASSES = ["a", "b", "c", "d"]
SCORES = [f"p_{c}" for c in CLASSES]


def make_wide(seed: int, n: int = 300, decimals: int | None = None) -> pd.DataFrame:
    """Scores per class (rounded to ``decimals``: many ties), the true class ``y`` (leaning to
    the best-scored class) and a weight ``w`` (some 0)."""
    rng = np.random.default_rng(seed)
    raw = rng.random((n, len(CLASSES)))
    truth = np.where(rng.random(n) < 0.5, raw.argmax(1), rng.integers(0, len(CLASSES), n))
    if decimals is not None:
        raw = np.round(raw, decimals)
    frame = pd.DataFrame(raw, columns=SCORES)
    frame["y"] = [CLASSES[t] for t in truth]
    frame["w"] = rng.choice([0.0, 0.5, 1.0, 2.5], n)
    return frame


def long_form(frame: pd.DataFrame, classes: list[Any], columns: list[str]) -> pd.DataFrame:
    """The long table of the same scores: one row per (row, class)."""
    rows = [
        (r, c, float(frame[col].iloc[r]), int(frame["y"].iloc[r] == c), float(frame["w"].iloc[r]))
        for r in range(len(frame))
        for c, col in zip(classes, columns)
    ]
    return pd.DataFrame(rows, columns=["row", "cls", "score", "label", "w"])


def oracle_rows(
    frame: pd.DataFrame, classes: list[Any], columns: list[str]
) -> list[tuple[int, int, float, int]]:
    """The oracle's rows with each class replaced by its column position (the oracle breaks
    ties by class, the later first: by position here)."""
    return [
        (r, j, float(frame[col].iloc[r]), int(frame["y"].iloc[r] == c))
        for r in range(len(frame))
        for j, (c, col) in enumerate(zip(classes, columns))
    ]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_equals_scikit_learn_on_distinct_scores(seed: int, k: int) -> None:
    frame = make_wide(seed)
    assert not frame[SCORES].T.apply(lambda col: col.duplicated().any()).any()  # no ties
    y_score = frame[SCORES].to_numpy()
    got = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, k=k)
    assert got == pytest.approx(skm.top_k_accuracy_score(frame["y"], y_score, k=k), rel=1e-12)
    weighted = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, k=k, weight="w")
    want = skm.top_k_accuracy_score(frame["y"], y_score, k=k, sample_weight=frame["w"])
    assert weighted == pytest.approx(want, rel=1e-12)
    assert weighted != pytest.approx(got)  # the weights change the value here
    mapping = {c: col for c, col in reversed(list(zip(CLASSES, SCORES)))}
    assert sqlmetrics.top_k_accuracy(frame, label="y", scores=mapping, k=k) == got


@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_ties_follow_column_order_as_scikit_learn(seed: int, k: int) -> None:
    """One decimal: most rows have tied scores. scikit-learn's reversed stable argsort puts the
    later of tied columns first; the wide form (columns = sorted classes) does the same."""
    frame = make_wide(seed, decimals=1)
    y_score = frame[SCORES].to_numpy()
    assert frame[SCORES].T.apply(lambda col: col.duplicated().any()).sum() > 100  # ties
    for weight in (None, "w"):
        sample_weight = None if weight is None else frame["w"]
        want = skm.top_k_accuracy_score(
            frame["y"], y_score, k=k, labels=CLASSES, sample_weight=sample_weight
        )
        got = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, k=k, weight=weight)
        assert got == pytest.approx(want, rel=1e-12)
        listed = sqlmetrics.top_k_accuracy(
            frame, label="y", scores=SCORES, labels=CLASSES, k=k, weight=weight
        )
        assert listed == got


@pytest.mark.parametrize(
    ("truth", "k", "hit"),
    [("a", 2, 0.0), ("b", 2, 1.0), ("c", 2, 1.0), ("c", 1, 1.0), ("b", 1, 0.0)],
)
def test_a_full_tie_ranks_the_later_column_first(truth: str, k: int, hit: float) -> None:
    """All three scores equal: the order is c, b, a (the later column first); scikit-learn
    gives the same."""
    frame = pd.DataFrame({"p_a": [0.5], "p_b": [0.5], "p_c": [0.5], "y": [truth]})
    got = sqlmetrics.top_k_accuracy(
        frame, label="y", scores=["p_a", "p_b", "p_c"], labels=["a", "b", "c"], k=k
    )
    assert got == hit
    want = skm.top_k_accuracy_score([truth], [[0.5, 0.5, 0.5]], k=k, labels=["a", "b", "c"])
    assert got == want


@pytest.mark.parametrize("seed", [4, 5])
@pytest.mark.parametrize("k", [1, 2])
def test_equals_the_long_form_and_the_oracle(seed: int, k: int) -> None:
    frame = make_wide(seed, decimals=1)
    # labels= in any order: ties by position in the list (= the column order)
    order = ["c", "a", "d", "b"]
    columns = [f"p_{c}" for c in order]
    long = long_form(frame, order, columns)
    weights = {r: float(frame["w"].iloc[r]) for r in range(len(frame))}
    for weight in (None, "w"):
        got = sqlmetrics.top_k_accuracy(
            frame, label="y", scores=columns, labels=order, k=k, weight=weight
        )
        assert got == sqlmetrics.top_k_accuracy(
            long, row_id="row", class_col="cls", labels=order, k=k, weight=weight
        )
        rows = oracle_rows(frame, order, columns)
        expected = omc.top_k_accuracy(rows, k, None if weight is None else weights)
        assert got == pytest.approx(expected, rel=1e-12)
    # a mapping: its order is not read, ties by class (the long form without labels=)
    mapping = dict(zip(order, columns))
    got = sqlmetrics.top_k_accuracy(frame, label="y", scores=mapping, k=k, weight="w")
    assert got == sqlmetrics.top_k_accuracy(long, row_id="row", class_col="cls", k=k, weight="w")
    sorted_rows = oracle_rows(frame, CLASSES, SCORES)
    assert got == pytest.approx(omc.top_k_accuracy(sorted_rows, k, weights), rel=1e-12)


def test_unsorted_labels_change_the_tie_order() -> None:
    """labels= in another order than sorted: ties go by that order, the later first
    (scikit-learn refuses an unsorted labels=); sorted, scikit-learn's value."""
    frame = pd.DataFrame({"p_a": [0.5] * 3, "p_b": [0.5] * 3, "p_c": [0.5] * 3, "y": list("abc")})
    wide = ["p_a", "p_b", "p_c"]
    in_order = sqlmetrics.top_k_accuracy(frame, label="y", scores=wide, k=1)
    assert in_order == skm.top_k_accuracy_score(frame["y"], frame[wide].to_numpy(), k=1)
    reverse = {"scores": wide[::-1], "labels": ["c", "b", "a"], "k": 1}
    assert sqlmetrics.top_k_accuracy(frame, label="y", **reverse) == in_order == 1 / 3
    first = frame.iloc[:1]  # true class a: the last column in order, the first reversed
    assert sqlmetrics.top_k_accuracy(first, label="y", scores=wide, labels=list("abc"), k=1) == 0
    assert sqlmetrics.top_k_accuracy(first, label="y", **reverse) == 1
    long = long_form(frame.assign(w=1.0), ["c", "b", "a"], wide[::-1])
    assert (
        sqlmetrics.top_k_accuracy(
            long[long["row"] == 0], row_id="row", class_col="cls", labels=["c", "b", "a"], k=1
        )
        == 1
    )  # the long form, the same rule


def test_integer_classes_and_classes_without_a_true_row() -> None:
    frame = make_wide(6, n=120)
    frame["y"] = (
        frame["y"].map({c: i for i, c in enumerate(CLASSES)}).where(frame["y"] != "d", 0)
    )  # class 3 never true: labels= names it
    y_score = frame[SCORES].to_numpy()
    got = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, labels=[0, 1, 2, 3], k=2)
    want = skm.top_k_accuracy_score(frame["y"], y_score, k=2, labels=[0, 1, 2, 3])
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"top_k_accuracy: label column 'y' holds 3 classes \(0, 1, 2\) but scores= names "
        r"4 columns; pass labels=",
    ):
        sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES)


def test_zero_weights_are_nan_with_a_warning() -> None:
    frame = make_wide(7, n=20)
    frame["w"] = 0.0
    with pytest.warns(sqlmetrics.UndefinedMetricWarning):
        got = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, weight="w")
    assert math.isnan(got)


def test_evaluate_slices_several_k_and_multiclass_auc() -> None:
    frame = make_wide(8, n=240, decimals=1)
    frame["part"] = pd.Series(
        np.random.default_rng(8).choice(["u", "v", None], len(frame)), dtype=object
    )
    metrics = ["top_k_accuracy@1", "top_k_accuracy@3", "top_k_accuracy", "multiclass_auc"]
    out = sqlmetrics.evaluate(frame, metrics, label="y", scores=SCORES, by="part")
    assert list(out.columns) == ["part", *metrics, "n_rows"]
    assert out["part"].tolist()[:2] == ["u", "v"] and pd.isna(out["part"].iloc[2])
    for _, row in out.iterrows():
        part = frame[frame["part"].isna()] if pd.isna(row["part"]) else frame
        if not pd.isna(row["part"]):
            part = frame[frame["part"] == row["part"]]
        assert row["n_rows"] == len(part)
        for k in (1, 3):
            assert row[f"top_k_accuracy@{k}"] == sqlmetrics.top_k_accuracy(
                part, label="y", scores=SCORES, k=k
            )
        assert row["top_k_accuracy"] == 1.0  # no cut-off: every class counts
        assert row["multiclass_auc"] == sqlmetrics.multiclass_auc(part, label="y", scores=SCORES)
    mapping = dict(zip(CLASSES, SCORES))
    weighted = sqlmetrics.evaluate(
        frame, ["top_k_accuracy@2"], label="y", scores=mapping, weight="w", labels=None
    )
    assert weighted["top_k_accuracy@2"].iloc[0] == sqlmetrics.top_k_accuracy(
        frame, label="y", scores=SCORES, weight="w", k=2
    )


def test_cli_equals_python(tmp_path: Path) -> None:
    frame = make_wide(9, n=150, decimals=1)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    pairs = [arg for c, col in zip(CLASSES, SCORES) for arg in ("--class-score", f"{c}={col}")]
    args = ["eval", str(path), "-m", "top_k_accuracy@2", "--label", "y", "--format", "json"]
    result = CliRunner().invoke(cli.main, [*args, *pairs, "--weight", "w"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)[0]["top_k_accuracy@2"]
    want = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, k=2, weight="w")
    assert got == pytest.approx(want, rel=1e-12)
    mixed = CliRunner().invoke(cli.main, [*args, *pairs, "-m", "multiclass_auc", "--weight", "w"])
    assert mixed.exit_code != 0
    assert "--weight 'w' with wide --class-score is read by top_k_accuracy only" in mixed.output


def keyed_long(frame: pd.DataFrame, weight: bool) -> pd.DataFrame:
    """The long table with the row id the wide form's bootstrap keys rows by: the row's
    position (from 1) in the order of its score columns, then its label, then its weight
    (sql/_macros/kernels/multiclass.sql, multiclass_wide_scores)."""
    order = frame.sort_values([*SCORES, "y", *(["w"] if weight else [])], kind="stable").index
    key = pd.Series(np.arange(1, len(frame) + 1), index=order).reindex(frame.index)
    long = long_form(frame, CLASSES, SCORES)
    long["row"] = long["row"].map(dict(enumerate(key.tolist())))
    return long


@pytest.mark.parametrize("weight", [None, "w"])
def test_interval_equals_the_long_form_keyed_by_row(weight: str | None) -> None:
    frame = make_wide(10, n=90, decimals=1)
    frame = pd.concat([frame, frame.iloc[:5]], ignore_index=True)  # identical rows
    long = keyed_long(frame, weight is not None)
    kw = {"k": 2, "weight": weight, "ci": 0.9, "n_boot": 50, "seed": 3}
    got = sqlmetrics.top_k_accuracy(frame, label="y", scores=SCORES, **kw)
    assert got == sqlmetrics.top_k_accuracy(long, row_id="row", class_col="cls", **kw)
    assert got.method == "bootstrap" and got.lo <= got.value <= got.hi and got.lo < got.hi
    assert got.value == sqlmetrics.top_k_accuracy(
        frame, label="y", scores=SCORES, k=2, weight=weight
    )
    shuffled = frame.sample(frac=1.0, random_state=4)
    assert sqlmetrics.top_k_accuracy(shuffled, label="y", scores=SCORES, **kw) == got


FRAME = pd.DataFrame(
    {"p_a": [0.6, 0.2, 0.1], "p_b": [0.3, 0.7, 0.2], "p_c": [0.1, 0.1, 0.7], "y": list("abc")}
)
WIDE3 = ["p_a", "p_b", "p_c"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"scores": WIDE3, "row_id": "r"},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: scores=\[.*\] \(wide: a score column per class\) and "
            r"row_id=/class_col= \(long: a row per class\) both given; pass one form",
        ),
        (
            {},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: give the scores as scores= \(a column per class, with the true "
            r"class in label=\) or as a long table with row_id= and class_col=",
        ),
        (
            {"scores": ["p_a"]},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: scores= names one column \('p_a'\); it needs a score column per "
            r"class, at least two$",
        ),
        (
            {"scores": "p_a"},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: scores= must be a list of score columns, one per class",
        ),
        (
            {"scores": WIDE3, "labels": ["a", "b"]},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: labels= lists 2 classes but scores= names 3 columns",
        ),
        (
            {"scores": dict(zip("abc", WIDE3)), "labels": ["a", "b", "c"]},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: scores= is a mapping \(class -> column\) and labels=",
        ),
        (
            {"scores": WIDE3, "k": 0},
            sqlmetrics.InvalidParameterError,
            r"top_k_accuracy: .*k",
        ),
        (
            {"scores": WIDE3, "labels": ["a", "b", "d"]},
            sqlmetrics.InvalidDataError,
            r"top_k_accuracy: label column 'y' holds classes without a score column: 'c'",
        ),
        (
            {"scores": ["p_a", "p_b", "nope"]},
            sqlmetrics.ColumnNotFoundError,
            r"top_k_accuracy: column 'nope' \(score=\) not found",
        ),
        (
            {"scores": WIDE3, "weight": "nope"},
            sqlmetrics.ColumnNotFoundError,
            r"top_k_accuracy: column 'nope' \(weight=\) not found",
        ),
        (
            {"scores": WIDE3, "weight": "neg"},
            sqlmetrics.InvalidDataError,
            r"top_k_accuracy: .*'neg'",
        ),
    ],
)
def test_errors(kwargs: dict[str, Any], error: type, message: str) -> None:
    frame = FRAME.assign(neg=[1.0, -1.0, 1.0])
    with pytest.raises(error, match=message):
        sqlmetrics.top_k_accuracy(frame, label="y", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"metrics": ["top_k_accuracy@2", "multiclass_auc"], "weight": "p_a"},
            r"evaluate: weight='p_a' with wide scores= is read by top_k_accuracy only, not by "
            r"multiclass_auc; evaluate those in a call without weight=",
        ),
        (
            {"metrics": ["top_k_accuracy@2", "top_k_accuracy_score@2"]},
            r"evaluate: metric 'top_k_accuracy@2' is requested twice in metrics=",
        ),
        (
            {"metrics": ["top_k_accuracy@2", "auc"]},
            r"evaluate: scores= \(a score column per class\) feeds multiclass_auc and "
            r"top_k_accuracy only",
        ),
        (
            {"metrics": ["top_k_accuracy@2"], "group": "g"},
            r"evaluate: scores= \(wide class scores\) with group=",
        ),
        (
            {"metrics": ["top_k_accuracy@2"], "ci": 0.9},
            r"evaluate: ci= with wide scores= is not supported; call "
            r"sqlmetrics.top_k_accuracy\(..., scores=..., ci=\)",
        ),
        (
            {"metrics": ["top_k_accuracy@2"], "multi_class": "ovo"},
            r"evaluate: option multi_class= is accepted by none of the requested metrics "
            r"\(top_k_accuracy@2\); options it accepts: labels",
        ),
    ],
)
def test_evaluate_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.evaluate(FRAME, label="y", scores=WIDE3, **kwargs)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark", "bigquery", "snowflake"])
def test_statement_parses_in_every_dialect(dialect: str) -> None:
    import sqlglot

    from sqlmetrics._core.registry import get_spec
    from sqlmetrics._engine.run import check_params
    from sqlmetrics._metrics.multiclass_roc import WIDE_ROLES, WIDE_WEIGHT, wide_sql, wide_view

    params = check_params(get_spec("top_k_accuracy"), {"k": 2, "labels": ["b", "a"]})
    view = wide_view("t", ["g"], '"y"', [["a", "s_a"], ["b", "s_b"]], True, dialect, '"w"')
    sql = wide_sql(
        "top_k_accuracy", view, ["g"], params, dialect, {**WIDE_ROLES, "weight": WIDE_WEIGHT}
    )
    statements = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
    assert len(statements) == 1 and statements[0] is not None
    assert "sqlmetrics_weight" in sql


def engine_calls() -> list[tuple[Any, dict[str, Any]]]:
    mapping = {"c": "p_c", "a": "p_a", "b": "p_b", "d": "p_d"}
    return [
        (sqlmetrics.top_k_accuracy, {"label": "y", "scores": SCORES, "k": 1}),
        (sqlmetrics.top_k_accuracy, {"label": "y", "scores": mapping, "k": 2, "weight": "w"}),
        (
            sqlmetrics.top_k_accuracy,
            {"label": "y", "scores": SCORES[::-1], "labels": CLASSES[::-1], "k": 2},
        ),
        (
            sqlmetrics.top_k_accuracy,
            {"label": "y", "scores": SCORES, "k": 2, "weight": "w", "ci": 0.9, "n_boot": 20},
        ),
        (
            sqlmetrics.evaluate,
            {
                "metrics": ["top_k_accuracy@1", "top_k_accuracy@2"],
                "label": "y",
                "scores": SCORES,
                "weight": "w",
                "by": "part",
            },
        ),
    ]


def engine_frame() -> pd.DataFrame:
    frame = make_wide(11, n=120, decimals=1)
    frame = pd.concat([frame, frame.iloc[:4]], ignore_index=True)  # identical rows
    frame["part"] = pd.Series(
        np.random.default_rng(11).choice(["x", "y", None], len(frame)), dtype=object
    )
    return frame


def assert_same_result(got: Any, want: Any) -> None:
    if isinstance(want, pd.DataFrame):
        assert list(got.columns) == list(want.columns)
        for column in want.columns:
            for a, b in zip(got[column], want[column], strict=True):
                if isinstance(b, str) or pd.isna(b):  # the slice
                    assert a == b or (pd.isna(a) and pd.isna(b))
                else:
                    assert a == pytest.approx(b, rel=1e-9)
    elif isinstance(want, sqlmetrics.Interval):
        assert got.method == want.method
        for a, b in zip(got[:3], want[:3]):
            assert a == pytest.approx(b, rel=1e-9)
    else:
        assert got == pytest.approx(want, rel=1e-9)


def test_postgres_equals_duckdb(pg_engine: Any) -> None:
    frame = engine_frame()
    frame.to_sql("top_k_wide", pg_engine, index=False, if_exists="replace")
    try:
        for function, kwargs in engine_calls():
            want = quiet(function, frame, **kwargs)
            got = quiet(function, "top_k_wide", con=pg_engine, **kwargs)
            assert_same_result(got, want)
    finally:
        with pg_engine.begin() as connection:
            connection.exec_driver_sql("drop table if exists top_k_wide")


def test_spark_equals_duckdb(spark: Any) -> None:
    frame = engine_frame()
    spark.createDataFrame(frame).createOrReplaceTempView("top_k_wide")
    try:
        for function, kwargs in engine_calls():
            want = quiet(function, frame, **kwargs)
            got = quiet(function, "top_k_wide", con=spark, **kwargs)
            assert_same_result(got, want)
    finally:
        spark.catalog.dropTempView("top_k_wide")
