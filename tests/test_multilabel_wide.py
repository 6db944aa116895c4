"""Multilabel ROC AUC and average precision from wide columns (scikit-learn's
``roc_auc_score(Y, S, average=)`` and ``average_precision_score(Y, S, average=)``: a score
column and a 0/1 indicator column per class): SQL == the long form == oracle ==
scikit-learn, with tied scores, in every average; slices; the CLI; every error message."""

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
from hypothesis import given
from hypothesis import strategies as st
from oracle import multiclass_auc as omc
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics import cli

AVERAGES = ["macro", "weighted", "micro", "samples"]
CLASSES = ["a", "b", "c", "d"]
SCORES = [f"s_{c}" for c in CLASSES]
FLAGS = [f"y_{c}" for c in CLASSES]
FUNCTIONS = {
    "multiclass_auc": (sqlmetrics.multiclass_auc, omc.multiclass_auc, skm.roc_auc_score),
    "multilabel_average_precision": (
        sqlmetrics.multilabel_average_precision,
        omc.multilabel_average_precision,
        skm.average_precision_score,
    ),
}


def wide(scores: np.ndarray, truth: np.ndarray) -> pd.DataFrame:
    k = scores.shape[1]
    frame = pd.DataFrame(scores, columns=SCORES[:k])
    for j in range(k):
        frame[FLAGS[j]] = truth[:, j].astype(int)
    return frame


def long_rows(frame: pd.DataFrame, k: int) -> list[tuple[int, str, float, int]]:
    return [
        (r, CLASSES[j], float(frame[SCORES[j]].iloc[r]), int(frame[FLAGS[j]].iloc[r]))
        for r in range(len(frame))
        for j in range(k)
    ]


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)


def random_case(seed: int, n: int = 300, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, k)) < 0.4).astype(int)
    truth[:, 0] = 1 - truth[:, 1]  # every row has a positive and a negative (samples)
    scores = np.round(rng.random((n, k)), 1)  # one decimal: many ties
    return scores, truth


@pytest.mark.parametrize("metric", list(FUNCTIONS))
@pytest.mark.parametrize("seed", [0, 1])
def test_equals_scikit_learn_long_form_and_oracle(metric: str, seed: int) -> None:
    function, oracle, peer = FUNCTIONS[metric]
    scores, truth = random_case(seed)
    frame = wide(scores, truth)
    long = pd.DataFrame(long_rows(frame, 4), columns=["row", "cls", "score", "label"])
    for average in AVERAGES:
        expected = peer(truth, scores, average=average)
        forms = [
            {"scores": SCORES, "indicators": FLAGS},
            {"scores": SCORES, "indicators": FLAGS, "labels": CLASSES},
            {"scores": dict(zip(CLASSES, SCORES)), "indicators": dict(zip(CLASSES, FLAGS))},
            {  # any order: the mappings pair them
                "scores": dict(zip(CLASSES[::-1], SCORES[::-1])),
                "indicators": dict(zip(CLASSES, FLAGS)),
            },
        ]
        for form in forms:
            got = function(frame, average=average, **form)
            assert got == pytest.approx(expected, rel=1e-12), (average, form)
        assert got == function(long, row_id="row", class_col="cls", average=average)
        assert same(got, oracle(long_rows(frame, 4), average=average))


@st.composite
def multilabel_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 10))
    k = draw(st.integers(2, 4))
    grid = st.sampled_from([0.0, 0.1, 0.5, 0.5, 0.9])
    scores = np.array(draw(st.lists(grid, min_size=n * k, max_size=n * k))).reshape(n, k)
    truth = np.array(draw(st.lists(st.integers(0, 1), min_size=n * k, max_size=n * k)))
    frame = wide(scores, truth.reshape(n, k))
    if draw(st.booleans()):  # identical rows: the samples row key must tell them apart
        frame = pd.concat([frame, frame.iloc[:1]], ignore_index=True)
    return frame


@given(multilabel_frames(), st.sampled_from(list(FUNCTIONS)), st.sampled_from(AVERAGES))
def test_equal_oracle_with_ties_and_any_row_order(
    frame: pd.DataFrame, metric: str, average: str
) -> None:
    function, oracle, _ = FUNCTIONS[metric]
    k = sum(c.startswith("s_") for c in frame.columns)
    kw = {"scores": SCORES[:k], "indicators": FLAGS[:k], "average": average}
    got = quiet(function, frame, **kw)
    assert same(got, oracle(long_rows(frame, k), average=average))
    again = quiet(function, frame.sample(frac=1.0, random_state=3), **kw)
    assert (math.isnan(got) and math.isnan(again)) or again == got


@pytest.mark.parametrize("metric", list(FUNCTIONS))
def test_a_class_without_positives_is_nan_with_a_warning(metric: str) -> None:
    function, oracle, _ = FUNCTIONS[metric]
    scores = np.array([[0.9, 0.2, 0.3], [0.4, 0.6, 0.1], [0.3, 0.8, 0.5]])
    truth = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]])  # class c is never true
    frame = wide(scores, truth)
    kw = {"scores": SCORES[:3], "indicators": FLAGS[:3]}
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=metric):
        assert math.isnan(function(frame, average="macro", **kw))
    assert math.isnan(oracle(long_rows(frame, 3), average="macro"))
    # micro pools the classes: defined
    micro = function(frame, average="micro", **kw)
    assert micro == pytest.approx(oracle(long_rows(frame, 3), average="micro"), rel=1e-12)


def test_boolean_and_float_indicators() -> None:
    scores, truth = random_case(5, n=60, k=3)
    frame = wide(scores, truth)
    expected = sqlmetrics.multiclass_auc(frame, scores=SCORES[:3], indicators=FLAGS[:3])
    flags = frame.assign(
        y_a=frame["y_a"].astype(bool), y_b=frame["y_b"].astype(float), y_c=frame["y_c"]
    )
    assert sqlmetrics.multiclass_auc(flags, scores=SCORES[:3], indicators=FLAGS[:3]) == expected


def test_evaluate_slices_and_both_metrics() -> None:
    scores, truth = random_case(7, n=240, k=3)
    frame = wide(scores, truth)
    frame["g"] = np.random.default_rng(7).choice(["u", "v", None], len(frame))
    kw = {"scores": SCORES[:3], "indicators": FLAGS[:3], "by": "g"}
    out = sqlmetrics.evaluate(
        frame,
        ["multilabel_average_precision", "roc_auc_multiclass"],
        auc_average="samples",
        ap_average="weighted",
        **kw,
    )
    assert list(out.columns) == [
        "g",
        "multilabel_average_precision",
        "roc_auc_multiclass",
        "n_rows",
    ]
    assert out["g"].tolist()[:2] == ["u", "v"] and pd.isna(out["g"].iloc[2])
    for _, row in out.iterrows():
        part = frame[frame["g"].isna()] if pd.isna(row["g"]) else frame[frame["g"] == row["g"]]
        assert row["n_rows"] == len(part)
        assert row["roc_auc_multiclass"] == sqlmetrics.multiclass_auc(
            part, scores=SCORES[:3], indicators=FLAGS[:3], average="samples"
        )
        assert row["multilabel_average_precision"] == sqlmetrics.multilabel_average_precision(
            part, scores=SCORES[:3], indicators=FLAGS[:3], average="weighted"
        )
    whole = sqlmetrics.evaluate(
        frame, "multilabel_average_precision", scores=SCORES[:3], indicators=FLAGS[:3]
    )
    assert list(whole.columns) == ["multilabel_average_precision", "n_rows"]
    assert whole["multilabel_average_precision"].iloc[0] == pytest.approx(
        skm.average_precision_score(truth, scores), rel=1e-12
    )
    assert whole["n_rows"].iloc[0] == len(frame)


def test_evaluate_warns_on_an_undefined_slice() -> None:
    frame = wide(np.array([[0.9, 0.2], [0.4, 0.6]]), np.array([[1, 0], [0, 0]]))
    frame["g"] = ["u", "v"]
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"evaluate: multiclass_auc is undefined in 2 of 2 slice\(s\)",
    ):
        out = sqlmetrics.evaluate(
            frame, ["multiclass_auc"], scores=SCORES[:2], indicators=FLAGS[:2], by="g"
        )
    assert out["multiclass_auc"].isna().all()


def test_cli_equals_python(tmp_path: Path) -> None:
    scores, truth = random_case(11, n=120, k=3)
    frame = wide(scores, truth)
    path = tmp_path / "multilabel.csv"
    frame.to_csv(path, index=False)
    pairs = [
        arg
        for c, s, y in zip(CLASSES, SCORES, FLAGS[:3])
        for arg in ("--class-score", f"{c}={s}", "--class-indicator", f"{c}={y}")
    ]
    args = ["eval", str(path), "-m", "multiclass_auc", "-m", "multilabel_average_precision"]
    result = CliRunner().invoke(
        cli.main,
        [
            *args,
            *pairs,
            "--option",
            "auc_average=micro",
            "--option",
            "ap_average=samples",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)[0]
    mapping = {
        "scores": dict(zip(CLASSES, SCORES[:3])),
        "indicators": dict(zip(CLASSES, FLAGS[:3])),
    }
    assert got["multiclass_auc"] == pytest.approx(
        sqlmetrics.multiclass_auc(frame, average="micro", **mapping), rel=1e-12
    )
    assert got["multilabel_average_precision"] == pytest.approx(
        sqlmetrics.multilabel_average_precision(frame, average="samples", **mapping), rel=1e-12
    )
    lone = CliRunner().invoke(cli.main, [*args, "--class-indicator", "a=y_a"])
    assert lone.exit_code == 2
    assert (
        "sqlmetrics: error: --class-indicator (a 0/1 column per class) needs --class-score"
        in lone.output
    )
    bad = CliRunner().invoke(cli.main, [*args, *pairs, "--class-indicator", "y_a"])
    assert bad.exit_code == 2
    assert (
        "--class-indicator 'y_a': write CLASS=COLUMN, e.g. --class-indicator cat=is_cat"
        in bad.output
    )
    twice = CliRunner().invoke(cli.main, [*args, *pairs, "--class-indicator", "a=y_b"])
    assert "--class-indicator: class 'a' is given twice" in twice.output
    short = CliRunner().invoke(cli.main, [*args, *pairs[:-2]])
    assert short.exit_code == 2
    assert (
        "sqlmetrics: error: multiclass_auc: --class-score and --class-indicator must map the "
        "same classes; classes in scores= but not in --class-indicator: ['c']" not in short.output
    )
    assert "must map the same classes" in short.output and "Traceback" not in short.output


SMALL = wide(np.array([[0.9, 0.2], [0.4, 0.6], [0.3, 0.5]]), np.array([[1, 0], [0, 1], [1, 1]]))
SMALL["text"] = ["1", "0", "1"]
SMALL["two"] = [0, 2, 1]
LIST = {"scores": ["s_a", "s_b"], "indicators": ["y_a", "y_b"]}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"scores": ["s_a", "s_b"], "indicators": ["y_a", "nope"]},
            sqlmetrics.ColumnNotFoundError,
            r"column 'nope' \(indicators=\) not found",
        ),
        (
            {"scores": ["s_a", "s_x"], "indicators": ["y_a", "y_b"]},
            sqlmetrics.ColumnNotFoundError,
            r"column 's_x' \(score=\) not found",
        ),
        (
            {"scores": {"a": "s_a", "b": "s_b"}, "indicators": {"a": "y_a"}},
            sqlmetrics.InvalidParameterError,
            r"scores= and indicators= must map the same classes; classes in scores= but not "
            r"in indicators=: \['b'\]",
        ),
        (
            {"scores": {"a": "s_a", "b": "s_b"}, "indicators": {"a": "y_a", "b": "y_b", "c": "y"}},
            sqlmetrics.InvalidParameterError,
            r"scores= and indicators= must map the same classes; classes in indicators= but not "
            r"in scores=: \['c'\]",
        ),
        (
            {"scores": {"a": "s_a", "b": "s_b"}, "indicators": ["y_a", "y_b"]},
            sqlmetrics.InvalidParameterError,
            r"scores= is a mapping \(class -> column\) but indicators=\['y_a', 'y_b'\] is not; "
            r"give indicators= as a mapping class -> 0/1 column too",
        ),
        (
            {"scores": ["s_a", "s_b"], "indicators": ["y_a"]},
            sqlmetrics.InvalidParameterError,
            r"indicators= names 1 columns but scores= names 2; give the 0/1 column of each "
            r"score column's class, in the same order",
        ),
        (
            {"scores": ["s_a", "s_b"], "indicators": "y_a"},
            sqlmetrics.InvalidParameterError,
            r"indicators= must be a list of 0/1 columns, one per score column of scores= \(a "
            r"list\), or a mapping class -> column \(with scores= a mapping\); got 'y_a'",
        ),
        (
            {"scores": ["s_a", "s_b"], "indicators": ["y_a", ""]},
            sqlmetrics.InvalidParameterError,
            r"indicators= must name one 0/1 column \(a non-empty string\) per class; got",
        ),
        (
            {"scores": ["s_a", "s_b"], "indicators": ["y_a", "two"]},
            sqlmetrics.InvalidDataError,
            r"indicators column 'two' \(indicators=\) has 1 of 3 rows with values outside "
            r"\{0, 1\} \(e\.g\. 2\)",
        ),
        (
            {"scores": ["s_a", "s_b"], "indicators": ["y_a", "text"]},
            sqlmetrics.InvalidDataError,
            r"indicators column 'text' has type VARCHAR; indicators= must name a column of 0/1 "
            r"values or booleans",
        ),
        (
            {**LIST, "labels": ["a"]},
            sqlmetrics.InvalidParameterError,
            r"labels= lists 1 classes but scores= names 2 columns",
        ),
    ],
)
@pytest.mark.parametrize("metric", list(FUNCTIONS))
def test_errors(metric: str, kwargs: dict[str, Any], error: type, message: str) -> None:
    function = FUNCTIONS[metric][0]
    with pytest.raises(error, match=f"{metric}: {message}"):
        function(SMALL, **kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: sqlmetrics.multiclass_auc(SMALL, multi_class="ovo", **LIST),
            r"multiclass_auc: multi_class='ovo' needs one true class per row; indicators= "
            r"\(multilabel truth\) is one-vs-rest only, as in scikit-learn: use multi_class='ovr'",
        ),
        (
            lambda: sqlmetrics.multiclass_auc(SMALL, row_id="r", class_col="c", indicators=["y_a"]),
            r"multiclass_auc: indicators=\['y_a'\] \(a 0/1 column per class\) needs scores= "
            r"\(the score column of each class\); the long form reads the 0/1 truth from label=",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(SMALL, indicators=["y_a", "y_b"]),
            r"multilabel_average_precision: indicators= \(a 0/1 column per class\) needs "
            r"scores= \(the score column of each class\)",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(SMALL, scores=["s_a", "s_b"]),
            r"multilabel_average_precision: wide scores= need indicators= \(a 0/1 column per "
            r"class, scikit-learn's indicator matrix Y\)",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(SMALL, row_id="r", **LIST),
            r"multilabel_average_precision: scores=/indicators= \(wide: a score and a 0/1 "
            r"column per class\) and row_id=/class_col= \(long: a row per class\) both given",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(SMALL),
            r"multilabel_average_precision: give the scores as scores= and indicators= \(a "
            r"score and a 0/1 column per class\) or as a long table with row_id= and class_col=",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(
                SMALL, row_id="r", class_col="c", labels=["a"]
            ),
            r"multilabel_average_precision: labels=\['a'\] names the classes of the columns of "
            r"scores= \(wide form\); the long form reads them from class_col=",
        ),
        (
            lambda: sqlmetrics.multilabel_average_precision(SMALL, average="binary", **LIST),
            r"multilabel_average_precision: ap_average= must be one of 'macro', 'weighted', "
            r"'micro', 'samples'; got 'binary'",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multilabel_average_precision"], ci=0.9, **LIST),
            r"evaluate: ci= with wide scores= is not supported; call "
            r"sqlmetrics.multilabel_average_precision\(..., scores=..., ci=\) \(per slice: on "
            r"each slice's rows\) for an interval, or drop ci=",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multiclass_auc", "auc"], **LIST),
            r"evaluate: scores= with indicators= \(a score and a 0/1 column per class\) feed "
            r"multiclass_auc and multilabel_average_precision only; got "
            r"metrics=\['multiclass_auc', 'auc'\]",
        ),
        (
            lambda: sqlmetrics.evaluate(
                SMALL, ["multilabel_average_precision"], scores=LIST["scores"]
            ),
            r"evaluate: scores= \(a score column per class\) feeds multiclass_auc and "
            r"top_k_accuracy only; got metrics=\['multilabel_average_precision'\]",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multiclass_auc", "roc_auc_multiclass"], **LIST),
            r"evaluate: metric 'multiclass_auc' is requested twice in metrics=\['multiclass_auc', "
            r"'roc_auc_multiclass'\]; name it once",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multiclass_auc"], ap_average="micro", **LIST),
            r"evaluate: option ap_average= is accepted by none of the requested metrics "
            r"\(multiclass_auc\); options it accepts: multi_class, auc_average, labels",
        ),
        (
            lambda: sqlmetrics.evaluate(
                SMALL, ["multiclass_auc", "multilabel_average_precision"], gain="x", **LIST
            ),
            r"options they accept: multi_class, auc_average, ap_average, labels",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multiclass_auc"], indicators=["y_a", "y_b"]),
            r"evaluate: indicators=\['y_a', 'y_b'\] \(a 0/1 column per class\) needs scores=",
        ),
        (
            lambda: sqlmetrics.evaluate(SMALL, ["multiclass_auc"], weight="s_a", **LIST),
            r"evaluate: scores= \(wide class scores\) with weight=: the wide form reads label= "
            r"\(the true class\) or indicators=, and scores= only",
        ),
    ],
)
def test_call_errors(call: Any, message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        call()


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "trino", "postgres", "spark"])
@pytest.mark.parametrize("metric", list(FUNCTIONS))
@pytest.mark.parametrize("average", AVERAGES)
def test_statement_parses_in_every_dialect(dialect: str, metric: str, average: str) -> None:
    """The wide statement (the row key of samples too) parses back in each dialect at
    sqlglot's strictest level; PostgreSQL and Spark also run it (test_postgres, test_spark).
    """
    import sqlglot

    from sqlmetrics._core.registry import get_spec
    from sqlmetrics._engine.run import check_params
    from sqlmetrics._metrics.multiclass_roc import wide_sql, wide_view

    spec = get_spec(metric)
    name = "auc_average" if metric == "multiclass_auc" else "ap_average"
    params = check_params(spec, {name: average})
    pairs = [["a", "s_a", "y_a"], ["b", "s_b", "y_b"]]
    view = wide_view("t", ["g"], None, pairs, average == "samples", dialect)
    sql = wide_sql(metric, view, ["g"], params, dialect)
    statements = sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.IMMEDIATE)
    assert len(statements) == 1 and statements[0] is not None
    assert ("as sqlmetrics_row" in sql.lower()) == (average == "samples")  # samples' row key


def keyed_long(
    frame: pd.DataFrame,
    scores: list[str],
    truth: list[str],
    classes: list[Any],
    label: str | None = None,
) -> pd.DataFrame:
    """The long table of a wide frame with the row id the wide form's bootstrap keys rows by:
    the row's position (from 1) in the order of its score columns, then its truth columns
    (sql/_macros/kernels/multiclass.sql, multiclass_wide_scores)."""
    order = frame.sort_values([*scores, *truth], kind="stable").index
    key = pd.Series(np.arange(1, len(frame) + 1), index=order).reindex(frame.index)
    rows = []
    for r in range(len(frame)):
        for j, c in enumerate(classes):
            if label is None:
                y = int(frame[truth[j]].iloc[r])
            else:
                y = int(frame[label].iloc[r] == c)
            rows.append((int(key.iloc[r]), c, float(frame[scores[j]].iloc[r]), y))
    return pd.DataFrame(rows, columns=["row", "cls", "score", "label"])


@pytest.mark.parametrize("metric", list(FUNCTIONS))
@pytest.mark.parametrize("average", AVERAGES)
def test_interval_equals_the_long_form_keyed_by_row(metric: str, average: str) -> None:
    """ci=: a bootstrap over rows (a row's classes share its replicate weight), the same as
    the long form's with the row ids the wide form keys rows by; any row order."""
    function = FUNCTIONS[metric][0]
    scores, truth = random_case(21, n=90, k=3)
    frame = wide(scores, truth)
    frame = pd.concat([frame, frame.iloc[:5]], ignore_index=True)  # identical rows
    long = keyed_long(frame, SCORES[:3], FLAGS[:3], CLASSES[:3])
    kw = {"average": average, "ci": 0.9, "n_boot": 50, "seed": 3}
    got = function(frame, scores=SCORES[:3], indicators=FLAGS[:3], **kw)
    want = function(long, row_id="row", class_col="cls", **kw)
    assert got == want
    assert got.method == "bootstrap" and got.lo <= got.value <= got.hi
    assert got.value == function(frame, scores=SCORES[:3], indicators=FLAGS[:3], average=average)
    shuffled = frame.sample(frac=1.0, random_state=4)
    assert function(shuffled, scores=SCORES[:3], indicators=FLAGS[:3], **kw) == got


@pytest.mark.parametrize(("multi_class", "average"), [("ovr", "macro"), ("ovo", "weighted")])
def test_multiclass_wide_interval_equals_the_long_form(multi_class: str, average: str) -> None:
    rng = np.random.default_rng(8)
    n = 90
    raw = np.round(rng.random((n, 3)), 1)
    frame = pd.DataFrame(raw, columns=SCORES[:3])
    frame["y"] = rng.choice(CLASSES[:3], n)
    long = keyed_long(frame, SCORES[:3], ["y"], CLASSES[:3], label="y")
    kw = {"multi_class": multi_class, "average": average, "ci": 0.9, "n_boot": 50}
    got = sqlmetrics.multiclass_auc(frame, label="y", scores=dict(zip(CLASSES, SCORES[:3])), **kw)
    assert got == sqlmetrics.multiclass_auc(long, row_id="row", class_col="cls", **kw)
    assert got.value == sqlmetrics.multiclass_auc(
        frame, label="y", scores=SCORES[:3], multi_class=multi_class, average=average
    )


def test_wide_forms_and_intervals_on_postgres_equal_duckdb(pg_engine: Any) -> None:
    """The wide statements (samples' row key, the bootstrap's keyed rows) on PostgreSQL;
    test_postgres.py and test_spark.py run the functions on their tables too."""
    scores, truth = random_case(31, n=80, k=3)
    frame = wide(scores, truth)
    frame = pd.concat([frame, frame.iloc[:4]], ignore_index=True)
    frame["part"] = pd.Series(
        np.random.default_rng(31).choice(["x", "y", None], len(frame)), dtype=object
    )
    frame["y"] = np.random.default_rng(32).choice(CLASSES[:3], len(frame))
    frame.to_sql("multilabel_wide", pg_engine, index=False, if_exists="replace")
    kw = {"scores": SCORES[:3], "indicators": FLAGS[:3]}
    calls = [
        (sqlmetrics.multiclass_auc, {**kw, "average": "samples", "ci": 0.9, "n_boot": 20}),
        (sqlmetrics.multilabel_average_precision, {**kw, "average": "samples"}),
        (
            sqlmetrics.multilabel_average_precision,
            {**kw, "average": "macro", "ci": 0.9, "n_boot": 20, "seed": 4},
        ),
        (
            sqlmetrics.multiclass_auc,
            {
                "label": "y",
                "scores": SCORES[:3],
                "labels": CLASSES[:3],
                "multi_class": "ovo",
                "ci": 0.9,
                "n_boot": 20,
            },
        ),
        (
            sqlmetrics.evaluate,
            {
                **kw,
                "metrics": ["multiclass_auc", "multilabel_average_precision"],
                "by": "part",
                "auc_average": "samples",
                "ap_average": "micro",
            },
        ),
    ]
    try:
        for function, kwargs in calls:
            want = quiet(function, frame, **kwargs)
            got = quiet(function, "multilabel_wide", con=pg_engine, **kwargs)
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
                    assert same(float(a), float(b)) or a == pytest.approx(b, rel=1e-9)
            else:
                assert got == pytest.approx(want, rel=1e-9)
    finally:
        with pg_engine.begin() as connection:
            connection.exec_driver_sql("drop table if exists multilabel_wide")
