"""evaluate and ``sqlmetrics eval`` say which groups each mean runs over (issue 22, item 4).

A ranking metric's default ``empty="skip"`` leaves out the groups with no relevant item; the
single functions warn (``SkippedGroupsWarning``), and so must evaluate, per metric, with the
same numbers, and the CLI as one ``sqlmetrics: warning:`` line. GAUC leaves out the groups
with one class only; when a call has GAUC and ranking metrics, each gets its own count
column (``n_groups_<metric>``), equal to its own call's ``n_groups``.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import SkippedGroupsWarning, cli

# users: 1 and 4 have both classes; 3 only positives; 2 and 5 only negatives (5 one row).
# ranking (relevant: label >= 1): 2 and 5 are empty -> 3 of 5 kept; GAUC: 1 and 4 -> 2.
USERS = [1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5]
ROWS = pd.DataFrame(
    {
        "user": USERS,
        "item": [10, 11, 12, 10, 11, 10, 12, 10, 11, 12, 11],
        "label": [1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0],
        "score": [0.9, 0.3, 0.5, 0.4, 0.2, 0.8, 0.7, 0.6, 0.1, 0.35, 0.45],
        "half": ["a", "a", "a", "b", "b", "a", "a", "b", "b", "b", "b"],
    }
)
COLUMNS = {"group": "user", "item": "item", "label": "label", "score": "score"}
RANKED = ["ndcg@10", "map@10"]


def columns_for(*metrics: str) -> dict[str, str]:
    """COLUMNS without item= unless a ranking metric is asked (evaluate refuses it unused)."""
    if any("@" in m or m == "mrr" for m in metrics):
        return COLUMNS
    return {k: v for k, v in COLUMNS.items() if k != "item"}


def truth(frame: pd.DataFrame) -> tuple[int, int, int]:
    """(groups, groups with a relevant item, groups with both classes), from pandas."""
    per = frame.groupby("user")["label"].agg(["min", "max"])
    return len(per), int((per["max"] >= 1).sum()), int((per["min"] != per["max"]).sum())


def skipped(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, SkippedGroupsWarning)]


def run_evaluate(data: Any, metrics: list[str], **kwargs: Any) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = sqlmetrics.evaluate(data, metrics, **kwargs)
    return frame, skipped(caught)


def single_message(name: str, data: Any, **kwargs: Any) -> str:
    """The single function's SkippedGroupsWarning (exactly one)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(sqlmetrics, name)(data, **kwargs)
    (message,) = skipped(caught)
    return message


def test_truth_of_the_constructed_data() -> None:
    groups, relevant, both = truth(ROWS)
    assert (groups, relevant, both) == (5, 3, 2)  # the cases the tests below rely on


def test_evaluate_warns_per_ranking_metric_as_the_functions() -> None:
    groups, relevant, _ = truth(ROWS)
    frame, messages = run_evaluate(ROWS, RANKED, **COLUMNS)
    assert len(messages) == 2
    for metric, message in zip(RANKED, messages):
        name, k = metric.split("@")
        func = {"map": "mean_average_precision"}.get(name, name)
        own = single_message(func, ROWS, k=int(k), **COLUMNS)
        assert own.startswith(f"{name}: ")
        # the function's message, under the name as requested
        assert message == f"evaluate: {metric}: " + own.removeprefix(f"{name}: ")
        assert f"{groups - relevant} of {groups} group(s)" in message
        assert "empty='zero'" in message
    assert frame["n_groups"].tolist() == [relevant]


def test_evaluate_warns_with_slices_summing_the_slices() -> None:
    frame, messages = run_evaluate(ROWS, ["ndcg@10"], by="half", **COLUMNS)
    pairs = ROWS.groupby(["half", "user"])["label"].max()
    empty, total = int((pairs < 1).sum()), len(pairs)
    assert (empty, total) == (2, 5)
    (message,) = messages
    assert message.startswith(f"evaluate: ndcg@10: {empty} of {total} group(s) have no relevant")
    assert frame["n_groups"].sum() == total - empty


@pytest.mark.parametrize(
    "options",
    [{"empty": "skip"}, {"empty": "zero"}, {"empty": "one"}, {"convention": "trec_eval"}],
)
def test_no_warning_when_empty_or_a_convention_is_chosen(options: dict[str, Any]) -> None:
    _, messages = run_evaluate(ROWS, RANKED, **COLUMNS, **options)
    assert messages == []


def test_no_warning_when_no_group_is_skipped() -> None:
    kept = ROWS[ROWS["user"].isin([1, 3, 4])]
    _, messages = run_evaluate(kept, RANKED, **COLUMNS)
    assert messages == []


def test_gauc_and_ranking_get_a_count_column_each() -> None:
    _, relevant, both = truth(ROWS)
    frame, messages = run_evaluate(ROWS, ["gauc", "ndcg@10", "mrr"], **COLUMNS)
    assert list(frame.columns) == [
        "gauc",
        "ndcg@10",
        "mrr",
        "n_rows",
        "n_groups_gauc",
        "n_groups_ndcg@10",
        "n_groups_mrr",
    ]
    assert frame["n_groups_gauc"].tolist() == [both]
    assert frame["n_groups_ndcg@10"].tolist() == frame["n_groups_mrr"].tolist() == [relevant]
    # each equals its own call's count, and the values are unchanged
    for metric in ("gauc", "ndcg@10", "mrr"):
        alone, _ = run_evaluate(ROWS, [metric], **columns_for(metric))
        assert frame[f"n_groups_{metric}"].tolist() == alone["n_groups"].tolist()
        assert frame[metric].tolist() == alone[metric].tolist()
    assert frame["n_groups_gauc"].dtype == "int64"
    assert len(messages) == 2  # ndcg@10 and mrr; gauc's skip is its definition


def test_count_columns_per_slice_equal_each_metric_alone() -> None:
    frame, _ = run_evaluate(ROWS, ["ndcg@10", "gauc"], by="half", **COLUMNS)
    gauc, _ = run_evaluate(ROWS, ["gauc"], by="half", **columns_for("gauc"))
    ndcg, _ = run_evaluate(ROWS, ["ndcg@10"], by="half", **COLUMNS)
    assert frame["n_groups_gauc"].tolist() == gauc["n_groups"].tolist()
    assert frame["n_groups_ndcg@10"].tolist() == ndcg["n_groups"].tolist()
    assert frame["n_groups_gauc"].tolist() != frame["n_groups_ndcg@10"].tolist()


@pytest.mark.parametrize("metrics", [["gauc", "auc"], ["ndcg@10", "map@10"], ["auc"]])
def test_one_kind_of_grouped_metric_keeps_the_plain_columns(metrics: list[str]) -> None:
    frame, _ = run_evaluate(ROWS, metrics, **columns_for(*metrics))
    grouped = [m for m in metrics if m != "auc"]
    assert list(frame.columns) == [*metrics, "n_rows", *(["n_groups"] if grouped else [])]


def test_render_evaluate_has_the_same_columns() -> None:
    metrics = ["gauc", "ndcg@10"]
    con = duckdb.connect()
    con.register("rows_view", ROWS)
    sql = sqlmetrics.render_evaluate("rows_view", metrics, by="half", **COLUMNS)
    rendered = con.execute(sql).df()
    frame, _ = run_evaluate(ROWS, metrics, by="half", **COLUMNS)
    assert list(rendered.columns) == list(frame.columns)
    for column in ("n_groups_gauc", "n_groups_ndcg@10"):
        assert rendered[column].tolist() == frame[column].tolist()


def test_slice_named_like_a_count_column_is_refused() -> None:
    data = ROWS.assign(**{"n_groups_gauc": ROWS["half"]})
    with pytest.raises(sqlmetrics.InvalidParameterError, match="n_groups_gauc"):
        sqlmetrics.evaluate(data, ["gauc", "ndcg@10"], by="n_groups_gauc", **COLUMNS)


# ------------------------------------------------------------------------------------ CLI
def cli_eval(path: Path, *args: str) -> Any:
    flags = ["--group", "user", "--item", "item", "--label", "label", "--score", "score"]
    return CliRunner().invoke(cli.main, ["eval", str(path), *flags, *args])


def test_cli_relays_the_warning_as_one_line_per_metric(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.to_csv(path, index=False)
    groups, relevant, both = truth(ROWS)
    result = cli_eval(path, "-m", "gauc", "-m", "ndcg@10", "-m", "mrr", "--format", "csv")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert [line.split(":")[:3] for line in lines] == [
        ["sqlmetrics", " warning", " evaluate"],
        ["sqlmetrics", " warning", " evaluate"],
    ]
    for line, metric in zip(lines, ["ndcg@10", "mrr"]):
        assert line.startswith(
            f"sqlmetrics: warning: evaluate: {metric}: {groups - relevant} of {groups} group(s)"
        )
        # the fix as a flag, as the CLI writes every option of a message
        assert "--option empty=zero " in line and "(empty='skip'" not in line and "='" not in line
    frame = pd.read_csv(io.StringIO(result.stdout), float_precision="round_trip")
    assert frame[["n_groups_gauc", "n_groups_ndcg@10", "n_groups_mrr"]].values.tolist() == [
        [both, relevant, relevant]
    ]
    quiet = cli_eval(path, "-m", "ndcg@10", "--option", "empty=skip", "--format", "csv")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_cli_trec_format_keeps_counts_out_of_the_measures(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.to_csv(path, index=False)
    _, relevant, _ = truth(ROWS)
    result = cli_eval(path, "-m", "gauc", "-m", "ndcg@10", "--format", "trec")
    assert result.exit_code == 0, result.output
    measures = {line.split("\t")[0].strip() for line in result.stdout.splitlines()}
    assert not any(m.startswith("n_groups") for m in measures), measures
    assert f"num_q                 \tall\t{relevant}" in result.stdout.splitlines()


# -------------------------------------------------------------------------------- engines
def _check_engine(con: Any, table: str) -> None:
    _, relevant, both = truth(ROWS)
    frame, messages = run_evaluate(table, ["gauc", "ndcg@10"], con=con, **COLUMNS)
    local, local_messages = run_evaluate(ROWS, ["gauc", "ndcg@10"], **COLUMNS)
    assert messages == local_messages and len(messages) == 1
    assert frame["n_groups_gauc"].tolist() == [both]
    assert frame["n_groups_ndcg@10"].tolist() == [relevant]
    pd.testing.assert_frame_equal(frame, local, check_exact=False, rtol=1e-12)


def test_postgres(pg_engine: Any) -> None:
    ROWS.to_sql("skipped_rows", pg_engine, index=False, if_exists="replace")
    _check_engine(pg_engine, "skipped_rows")


def test_spark(spark: Any) -> None:
    spark.createDataFrame(ROWS).createOrReplaceTempView("skipped_rows")
    try:
        _check_engine(spark, "skipped_rows")
    finally:
        spark.catalog.dropTempView("skipped_rows")
