"""Every error message of the foundation: it names the metric, the argument, the value, the fix."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics import (
    ColumnNotFoundError,
    DataSourceError,
    InvalidDataError,
    InvalidParameterError,
    SqlMetricsError,
)

OK = pd.DataFrame(
    {
        "label": [0, 1, 0, 1],
        "score": [0.1, 0.9, 0.3, 0.2],
        "user": [1, 1, 2, 2],
        "w": [1.0, 2.0, 1.0, 1.0],
    }
)


def test_errors_are_value_errors() -> None:
    for cls in (
        ColumnNotFoundError,
        DataSourceError,
        InvalidDataError,
        InvalidParameterError,
        sqlmetrics.UnknownMetricError,
    ):
        assert issubclass(cls, SqlMetricsError) and issubclass(cls, ValueError)
    assert issubclass(sqlmetrics.UndefinedMetricWarning, UserWarning)


def test_missing_column_lists_columns_present() -> None:
    with pytest.raises(
        ColumnNotFoundError,
        match=(
            r"auc: column 'click' \(label=\) not found in data=DataFrame; "
            r"columns present: label, score, user, w"
        ),
    ):
        sqlmetrics.auc(OK, label="click")
    with pytest.raises(ColumnNotFoundError, match=r"gauc: column 'uid' \(group=\) not found"):
        sqlmetrics.gauc(OK, group="uid")
    with pytest.raises(ColumnNotFoundError, match=r"auc: column 'wt' \(weight=\) not found"):
        sqlmetrics.auc(OK, weight="wt")


def test_labels_outside_binary_show_five_values() -> None:
    bad = pd.DataFrame({"label": [0, 1, 2, 3, 4, 5, 6, 7, -1], "score": [0.5] * 9})
    with pytest.raises(
        InvalidDataError,
        match=(
            r"auc: label column 'label' \(label=\) has 7 of 9 rows with values outside \{0, 1\} "
            r"\(e\.g\. -1, 2, 3, 4, 5\); labels must be 0/1 or booleans"
        ),
    ):
        sqlmetrics.auc(bad)
    with pytest.raises(InvalidDataError, match=r"precision: prediction column 'p'"):
        sqlmetrics.precision(OK.assign(p=[0, 1, 2, 1]), prediction="p")


def test_text_labels_and_scores_are_rejected_by_type() -> None:
    with pytest.raises(
        InvalidDataError,
        match=(
            r"auc: label column 'label' \(label=\) has type VARCHAR with values '0', '1'; name "
            r"the positive class with pos_label=, e.g. pos_label='1'"
        ),
    ):
        sqlmetrics.auc(OK.assign(label=["0", "1", "0", "1"]).astype({"label": object}))
    with pytest.raises(
        InvalidDataError,
        match=(r"auc: score column 'score' has type VARCHAR; score= must name a numeric column"),
    ):
        sqlmetrics.auc(OK.assign(score=["a", "b", "c", "d"]).astype({"score": object}))


@pytest.mark.parametrize(
    "column,argument",
    [
        ("label", "label"),
        ("score", "score"),
        ("w", "weight"),
        ("user", "group"),
    ],
)
def test_nulls_are_counted(column: str, argument: str) -> None:
    data = OK.astype({column: "object"})
    data.loc[[1, 2], column] = None
    with pytest.raises(
        InvalidDataError,
        match=(
            rf"(auc|gauc): {argument} column '{column}' \({argument}=\) has 2 of 4 rows NULL "
            rf"\(missing, or NaN in a pandas DataFrame\); drop or fill them first"
        ),
    ):
        if column == "user":
            sqlmetrics.gauc(data, group="user")
        else:
            sqlmetrics.auc(data.astype({column: "float64"}), weight="w")


@pytest.mark.parametrize("bad", [math.inf, -math.inf, "nan"])
def test_non_finite_scores(bad: float | str) -> None:
    con = duckdb.connect()  # a real NaN (pandas NaN arrives as NULL, tested above)
    con.execute(
        f"create table t as select * from (values (0, 0.1::double), (1, '{bad}'::double),"
        " (0, 0.3), (1, 0.2)) v(label, score)"
    )
    with pytest.raises(
        InvalidDataError,
        match=(
            r"auc: score column 'score' \(score=\) has 1 of 4 rows NaN or infinite; scores must be "
            r"finite"
        ),
    ):
        sqlmetrics.auc("t", con=con)
    con.execute("create table u as select label, 0.5 as score, score as w from t")
    with pytest.raises(
        InvalidDataError,
        match=r"auc: weight column 'w' \(weight=\) has 1 .*"
        r"NaN or infinite; weights must be finite",
    ):
        sqlmetrics.auc("u", con=con, weight="w")


def test_pandas_nan_is_reported_as_missing() -> None:
    with pytest.raises(InvalidDataError, match=r"NULL \(missing, or NaN in a pandas DataFrame\)"):
        sqlmetrics.precision(OK.assign(score=[0.1, math.nan, 0.3, 0.2]))


def test_negative_weights() -> None:
    with pytest.raises(
        InvalidDataError,
        match=(
            r"auc: weight column 'w' \(weight=\) has 1 of 4 rows negative; weights must be >= 0"
        ),
    ):
        sqlmetrics.auc(OK.assign(w=[1.0, -2.0, 1.0, 1.0]), weight="w")


def test_empty_input() -> None:
    with pytest.raises(
        InvalidDataError,
        match=(r"auc: data=DataFrame has no rows; the metric needs at least one row"),
    ):
        sqlmetrics.auc(OK.iloc[:0])


@pytest.mark.parametrize("value", ["0.5", math.nan, math.inf, True])
def test_threshold_must_be_finite(value: object) -> None:
    with pytest.raises(
        InvalidParameterError,
        match=rf"precision: threshold= must be a finite number; got {value!r}",
    ):
        sqlmetrics.precision(OK, threshold=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [-1.0, math.nan, "2"])
def test_beta_must_be_positive(value: object) -> None:
    with pytest.raises(InvalidParameterError, match=r"fbeta: beta= must be a finite number"):
        sqlmetrics.fbeta(OK, beta=value)  # type: ignore[arg-type]


def test_weighting_choices_with_suggestion() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=(
            r"gauc: weighting= must be one of 'samples', 'positives', 'uniform'; got 'sample'; "
            r"did you mean 'samples'\?"
        ),
    ):
        sqlmetrics.gauc(OK, group="user", weighting="sample")


def test_zero_division_choices() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=(
            r"recall: zero_division= must be 'warn' \(NaN with a warning\), 0.0, 1.0 or "
            r"float\('nan'\); got 0.5"
        ),
    ):
        sqlmetrics.recall(OK, zero_division=0.5)


def test_threshold_and_prediction_together() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=(
            r"f1: threshold=0.3 and prediction='p' both given; pass a score column with "
            r"threshold=, "
            r"or a 0/1 prediction column, not both"
        ),
    ):
        sqlmetrics.f1(OK.assign(p=[0, 1, 0, 1]), threshold=0.3, prediction="p")


def test_column_argument_must_be_a_name() -> None:
    with pytest.raises(InvalidParameterError, match=r"auc: label= must be a column name"):
        sqlmetrics.auc(OK, label=3)  # type: ignore[arg-type]


def test_unknown_table_lists_tables() -> None:
    con = duckdb.connect()
    con.execute("create table events as select 1 as label, 0.5 as score")
    with pytest.raises(
        DataSourceError,
        match=(
            r"auc: data='evnts' is neither an existing file nor a table or view in con; "
            r"tables present: events"
        ),
    ):
        sqlmetrics.auc("evnts", con=con)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataSourceError, match=r"auc: data='.*nope\.parquet' matches no file"):
        sqlmetrics.auc(str(tmp_path / "nope.parquet"))
    with pytest.raises(DataSourceError, match=r"matches no file"):
        sqlmetrics.auc(str(tmp_path / "*.parquet"))


def test_mixed_file_kinds(tmp_path: Path) -> None:
    OK.to_parquet(tmp_path / "a.parquet")
    OK.to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(DataSourceError, match="mixes Parquet and CSV"):
        sqlmetrics.auc([tmp_path / "a.parquet", tmp_path / "b.csv"])


def test_unsupported_data_type() -> None:
    with pytest.raises(DataSourceError, match=r"auc: data= must be a table name, .*; got dict"):
        sqlmetrics.auc({"label": [0, 1]})


def test_relation_of_another_connection() -> None:
    other = duckdb.connect()
    rel = other.sql("select 1 as label, 0.5 as score")
    with pytest.raises(DataSourceError, match=r"relation of another connection; pass that"):
        sqlmetrics.auc(rel, con=duckdb.connect())


def test_bad_con(tmp_path: Path) -> None:
    with pytest.raises(DataSourceError, match=r"con='.*missing\.duckdb' is not an existing DuckDB"):
        sqlmetrics.auc(OK, con=str(tmp_path / "missing.duckdb"))
    with pytest.raises(DataSourceError, match=r"con= must be a duckdb connection.*; got int"):
        sqlmetrics.auc(OK, con=3)


def test_render_rejects_unknown_options_and_frames() -> None:
    with pytest.raises(
        InvalidParameterError,
        match=(r"auc: unexpected option threshold=; options it accepts: pos_label"),
    ):
        sqlmetrics.render("auc", threshold=0.5)
    with pytest.raises(InvalidParameterError, match=r"render: data= must be a table name"):
        sqlmetrics.render("auc", OK)  # type: ignore[arg-type]
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'auc'"):
        sqlmetrics.render("acu")


def test_by_errors() -> None:
    from sqlmetrics._engine.run import compute

    with pytest.raises(InvalidParameterError, match=r"auc: by= names a column twice"):
        compute(
            "auc", OK, con=None, columns={"label": "label", "score": "score"}, by=["user", "user"]
        )
    with pytest.raises(ColumnNotFoundError, match=r"auc: column 'country' \(by=\) not found"):
        compute("auc", OK, con=None, columns={"label": "label", "score": "score"}, by="country")
    with pytest.raises(InvalidParameterError, match=r"auc: by= must be a column name"):
        compute("auc", OK, con=None, columns={"label": "label", "score": "score"}, by=[1])
    # a bare number, and a set (no order for the output's columns), are refused the same way
    for bad in (3, {"user"}):
        with pytest.raises(InvalidParameterError, match=r"auc: by= must be a column name"):
            compute("auc", OK, con=None, columns={"label": "label", "score": "score"}, by=bad)
