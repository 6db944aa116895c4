"""evaluate(): names, options, slices (each slice equals the single-metric call on it alone)."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics.evaluate import parse_metric
from sqlmetrics.registry import REGISTRY

RNG = np.random.default_rng(11)
N = 600
FRAME = pd.DataFrame({
    "country": RNG.choice(["DE", "FR", "US"], N),
    "day": RNG.choice([1, 2], N),
    "user": RNG.integers(0, 40, N),
    "click": RNG.integers(0, 2, N),
    "pctr": RNG.integers(0, 25, N) / 25,  # many ties
    "w": RNG.choice([0.5, 1.0, 2.0], N),
})
CLASSIFICATION = ["auc", "gauc", "accuracy", "precision", "recall", "specificity", "fpr", "f1",
                  "fbeta"]


def single(name: str, frame: pd.DataFrame, **kwargs: object) -> float:
    function = getattr(sqlmetrics, name)
    args: dict[str, object] = {"label": "click", "score": "pctr"}
    if name == "gauc":
        args["group"] = "user"
    if name not in ("auc", "gauc"):
        args["threshold"] = 0.4
    if name == "fbeta":
        args["beta"] = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        return float(function(frame, **args, **kwargs))


def test_one_row_without_by() -> None:
    out = sqlmetrics.evaluate(FRAME, CLASSIFICATION, label="click", score="pctr", group="user",
                              threshold=0.4, beta=2.0)
    assert list(out.columns) == [*CLASSIFICATION, "n_rows", "n_groups"]
    assert len(out) == 1 and out["n_rows"].iloc[0] == N
    for name in CLASSIFICATION:
        assert out[name].iloc[0] == single(name, FRAME), name


@pytest.mark.parametrize("by", [["country"], ["country", "day"], "day"])
def test_each_slice_equals_the_single_call_on_that_slice(by: list[str] | str) -> None:
    out = sqlmetrics.evaluate(FRAME, CLASSIFICATION, label="click", score="pctr", group="user",
                              by=by, threshold=0.4, beta=2.0)
    cols = [by] if isinstance(by, str) else by
    assert list(out.columns[: len(cols)]) == cols
    expected_slices = FRAME[cols].drop_duplicates().sort_values(cols).reset_index(drop=True)
    pd.testing.assert_frame_equal(out[cols], expected_slices, check_dtype=False)
    for _, row in out.iterrows():
        mask = np.logical_and.reduce([FRAME[c] == row[c] for c in cols])
        part = FRAME[mask]
        assert row["n_rows"] == len(part)
        for name in CLASSIFICATION:
            got, want = row[name], single(name, part)
            assert (math.isnan(got) and math.isnan(want)) or got == want, (name, row[cols])


def test_weights_and_slices() -> None:
    out = sqlmetrics.evaluate(FRAME, ["auc", "f1"], label="click", score="pctr", weight="w",
                              by="country", threshold=0.4)
    for _, row in out.iterrows():
        part = FRAME[FRAME["country"] == row["country"]]
        assert row["auc"] == sqlmetrics.auc(part, label="click", score="pctr", weight="w")
        assert row["f1"] == sqlmetrics.f1(part, label="click", score="pctr", weight="w",
                                          threshold=0.4)


def test_shuffled_input_gives_identical_frame() -> None:
    kwargs = {"label": "click", "score": "pctr", "group": "user", "by": ["country", "day"],
              "weight": "w"}
    a = sqlmetrics.evaluate(FRAME, ["auc", "gauc", "f1"], **kwargs)
    b = sqlmetrics.evaluate(FRAME.sample(frac=1, random_state=5), ["auc", "gauc", "f1"], **kwargs)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_null_slice_value_is_a_slice() -> None:
    frame = FRAME.assign(country=FRAME["country"].where(FRAME["country"] != "US", None))
    out = sqlmetrics.evaluate(frame, ["auc"], label="click", score="pctr", by="country")
    assert len(out) == 3 and out["country"].isna().sum() == 1
    part = frame[frame["country"].isna()]
    assert out["auc"].iloc[-1] == sqlmetrics.auc(part, label="click", score="pctr")


def test_every_input_kind(tmp_path: object) -> None:
    con = duckdb.connect()
    con.register("f", FRAME)
    con.execute("create table events as select * from f")
    args = {"label": "click", "score": "pctr", "by": "country"}
    base = sqlmetrics.evaluate(FRAME, ["auc"], **args)
    path = f"{tmp_path}/events.parquet"
    FRAME.to_parquet(path)
    for data, con_arg in [("events", con), (path, None), (con.sql("select * from events"), con),
                          (__import__("pyarrow").Table.from_pandas(FRAME), None)]:
        pd.testing.assert_frame_equal(sqlmetrics.evaluate(data, ["auc"], con=con_arg, **args),
                                      base)


def test_undefined_slices_warn_once_per_metric() -> None:
    frame = pd.DataFrame({"s": ["a", "a", "b", "b"], "label": [0, 1, 1, 1],
                          "score": [.1, .9, .2, .3]})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning,
                      match=r"evaluate: auc is undefined in 1 of 2 slice\(s\)"):
        out = sqlmetrics.evaluate(frame, ["auc"], by="s")
    assert out["auc"].iloc[0] == 1.0 and math.isnan(out["auc"].iloc[1])


def test_zero_division_option_fills_undefined_ratios() -> None:
    frame = pd.DataFrame({"s": ["a", "a", "b", "b"], "label": [0, 1, 1, 1],
                          "score": [.1, .9, .2, .3]})
    out = sqlmetrics.evaluate(frame, ["precision", "recall"], by="s", zero_division=0.0)
    assert list(out["precision"]) == [1.0, 0.0]


def test_unknown_metric_suggests_with_cutoff() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"unknown metric 'acuracy'; did you "
                                                            r"mean 'accuracy'\? known metrics"):
        sqlmetrics.evaluate(FRAME, ["acuracy"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"cut-off after '@' must be"):
        parse_metric("auc@ten")
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"'auc' takes no cut-off"):
        parse_metric("auc@10")


def test_option_nobody_accepts() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=(
        r"evaluate: option gain= is accepted by none of the requested metrics \(auc, f1\); "
        r"options they accept: beta|threshold"
    )):
        sqlmetrics.evaluate(FRAME, ["auc", "f1"], label="click", score="pctr", gain="linear")


def test_option_values_are_checked() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"f1: threshold= must be a finite"):
        sqlmetrics.evaluate(FRAME, ["f1"], label="click", score="pctr", threshold="high")


def test_twice_empty_and_missing_group() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"'auc' is requested twice"):
        sqlmetrics.evaluate(FRAME, ["auc", "auc"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"metrics= is empty"):
        sqlmetrics.evaluate(FRAME, [], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"'gauc' needs group="):
        sqlmetrics.evaluate(FRAME, ["gauc"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError,
                       match=r"weight='w' is used by none of the requested metrics \(gauc\)"):
        sqlmetrics.evaluate(FRAME, ["gauc"], label="click", score="pctr", group="user",
                            weight="w")


def test_bad_column_and_data_errors_name_evaluate() -> None:
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"evaluate: column 'nope' \(by=\)"):
        sqlmetrics.evaluate(FRAME, ["auc"], label="click", score="pctr", by="nope")
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"evaluate: label column 'user'"):
        sqlmetrics.evaluate(FRAME, ["auc"], label="user", score="pctr")


def test_every_scalar_metric_is_reachable_by_name() -> None:
    for name, spec in REGISTRY.items():
        if spec.output != "scalar":
            continue
        text = f"{name.removesuffix('_at_k')}@5" if spec.takes_k else name
        assert parse_metric(text).spec is spec
