"""render(): the names evaluate accepts, qrels=, and render_evaluate(): the SQL evaluate runs,
pasted into a fresh DuckDB connection, gives evaluate's numbers (issue 16, item 5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import quiet

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._core.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
CTR = ROOT / "examples" / "data" / "ctr.csv"
SEARCH = ROOT / "examples" / "data" / "search.csv"
SEARCH_COLS = {"group": "query_id", "item": "doc_id", "score": "score", "label": "rel"}


def run_sql(sql: str) -> pd.DataFrame:
    con = duckdb.connect()
    try:
        return con.execute(sql).df()
    finally:
        con.close()


@pytest.fixture
def search_files(tmp_path: Path) -> tuple[Path, Path]:
    search = pd.read_csv(SEARCH)
    search["market"] = search["query_id"].str[-1].map(lambda c: "odd" if int(c) % 2 else "even")
    run, qrels = tmp_path / "run.parquet", tmp_path / "qrels.parquet"
    search.drop(columns=["rel"]).to_parquet(run)
    judged = search[["query_id", "doc_id", "rel"]]
    extra = pd.DataFrame({"query_id": ["q999"], "doc_id": ["d1"], "rel": [2]})
    pd.concat([judged, extra]).to_parquet(qrels)
    return run, qrels


# ----------------------------------------------------------------------------- metric names
@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.takes_k))
def test_render_accepts_the_names_evaluate_accepts(name: str) -> None:
    text = f"{name.removesuffix('_at_k')}@10"
    assert sqlmetrics.render(text, "events") == sqlmetrics.render(name, "events", k=10)


def test_render_name_with_k_and_k_option_is_refused() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"render: metric 'ndcg@10' carries its cut-off; k=5 given too",
    ):
        sqlmetrics.render("ndcg@10", "events", k=5)
    with pytest.raises(
        sqlmetrics.UnknownMetricError,
        match=r"render: unknown metric 'ndgc@10'; "
        r"did you mean 'ndcg@10'\?",
    ):
        sqlmetrics.render("ndgc@10", "events")


def test_cli_render_metric_at_k() -> None:
    result = CliRunner().invoke(cli.main, ["render", "ndcg@10", "--data", "events"])
    assert result.exit_code == 0, result.output
    assert result.output == sqlmetrics.render("ndcg", "events", k=10)


# ----------------------------------------------------------------------------- qrels
@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.family == "ranking"))
def test_render_with_qrels_runs_to_the_function_value(
    name: str, search_files: tuple[Path, Path]
) -> None:
    run, qrels = search_files
    spec = REGISTRY[name]
    options: dict[str, Any] = {"k": 5} if spec.takes_k else {}
    sql = sqlmetrics.render(
        name, run, qrels=qrels, **SEARCH_COLS, **options, empty="zero", missing="zero"
    )
    got = run_sql(sql)[name].iloc[0]
    function = getattr(sqlmetrics, spec.function)
    expected = function(run, qrels=qrels, **SEARCH_COLS, **options, empty="zero", missing="zero")
    assert got == pytest.approx(expected, rel=1e-12)


def test_cli_render_with_qrels(search_files: tuple[Path, Path]) -> None:
    run, qrels = search_files
    result = CliRunner().invoke(
        cli.main,
        [
            "render",
            "map@10",
            "--data",
            str(run),
            "--qrels",
            str(qrels),
            "--group",
            "query_id",
            "--item",
            "doc_id",
            "--label",
            "rel",
        ],
    )
    assert result.exit_code == 0, result.output
    expected = sqlmetrics.mean_average_precision(run, qrels=qrels, k=10, **SEARCH_COLS)
    assert run_sql(result.output)["map"].iloc[0] == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------- render_evaluate
CASES = [
    pytest.param(
        CTR,
        ["auc", "gauc", "f1", "precision", "log_loss"],
        {
            "label": "click",
            "score": "pctr",
            "group": "user_id",
            "threshold": 0.3,
            "zero_division": 0.0,
        },
        ["country", "day"],
        id="ctr-by-country-day",
    ),
    pytest.param(
        CTR, ["precision", "auc"], {"label": "click", "score": "pctr"}, None, id="ctr-no-by"
    ),
    pytest.param(
        SEARCH,
        ["ndcg@10", "mrr", "map@5", "hit_ratio@3", "precision@3"],
        {**SEARCH_COLS, "ties": "average", "empty": "zero"},
        "query_id",
        id="search-by-query",
    ),
]


@pytest.mark.parametrize(("data", "metrics", "kwargs", "by"), CASES)
def test_render_evaluate_runs_to_evaluate(
    data: Path, metrics: list[str], kwargs: dict[str, Any], by: Any
) -> None:
    sql = sqlmetrics.render_evaluate(data, metrics, by=by, **kwargs)
    for col in [by] if isinstance(by, str) else by or []:
        assert f'as "{col}"' in sql  # slice columns keep their own names
    got = run_sql(sql)
    expected = quiet(sqlmetrics.evaluate, data, metrics, by=by, **kwargs)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


def test_render_evaluate_with_qrels(search_files: tuple[Path, Path]) -> None:
    run, qrels = search_files
    metrics = ["ndcg@10", "recall@5", "map"]
    for by, options in [("market", {"empty": "zero"}), (None, {"missing": "zero"})]:
        sql = sqlmetrics.render_evaluate(run, metrics, qrels=qrels, by=by, **SEARCH_COLS, **options)
        expected = sqlmetrics.evaluate(run, metrics, qrels=qrels, by=by, **SEARCH_COLS, **options)
        pd.testing.assert_frame_equal(run_sql(sql), expected, check_dtype=False)


def test_cli_render_several_metrics() -> None:
    result = CliRunner().invoke(
        cli.main,
        [
            "render",
            "-m",
            "auc",
            "-m",
            "gauc",
            "-m",
            "f1",
            "--by",
            "country",
            "--by",
            "day",
            "--data",
            str(CTR),
            "--label",
            "click",
            "--score",
            "pctr",
            "--group",
            "user_id",
            "--threshold",
            "0.3",
        ],
    )
    assert result.exit_code == 0, result.output
    expected = sqlmetrics.evaluate(
        CTR,
        ["auc", "gauc", "f1"],
        by=["country", "day"],
        label="click",
        score="pctr",
        group="user_id",
        threshold=0.3,
    )
    pd.testing.assert_frame_equal(run_sql(result.output), expected, check_dtype=False)


def test_render_evaluate_checks_like_evaluate() -> None:
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'ndcg@10'"):
        sqlmetrics.render_evaluate("events", ["ndgc@10"])
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"slice column 'auc' \(by=\)"):
        sqlmetrics.render_evaluate("events", ["auc"], by="auc")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"render_evaluate: data= must be"):
        sqlmetrics.render_evaluate(pd.DataFrame(), ["auc"])  # type: ignore[arg-type]


def test_cli_render_without_a_metric_is_one_line() -> None:
    result = CliRunner().invoke(cli.main, ["render", "--data", "events"])
    assert result.exit_code == 2
    assert "render: name a metric (render ndcg@10) or several with -m" in result.output


def test_render_qrels_for_a_classification_metric_is_refused() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"render: qrels= is used by ranking metrics only; 'auc' is not one",
    ):
        sqlmetrics.render("auc", "events", qrels="judgments")


# ----------------------------------------------------------------------------- file names
def test_rendered_sql_reads_a_literal_file_name_as_the_engine_does(tmp_path: Path) -> None:
    # DuckDB globs `data[1].parquet`: the rendered SQL used to read `data1.parquet` (0.111)
    good = pd.DataFrame({"label": [1, 1, 1, 0, 0, 0], "score": [0.9, 0.8, 0.3, 0.4, 0.2, 0.1]})
    good.to_parquet(tmp_path / "data[1].parquet")
    good.assign(score=1 - good["score"]).to_parquet(tmp_path / "data1.parquet")
    good.to_csv(tmp_path / "log[1].txt", index=False)
    good.assign(score=1 - good["score"]).to_csv(tmp_path / "log1.txt", index=False)
    for name in ("data[1].parquet", "log[1].txt"):
        path = tmp_path / name
        expected = sqlmetrics.auc(path)
        assert expected == sqlmetrics.auc(good)
        assert run_sql(sqlmetrics.render("auc", path))["auc"].iloc[0] == expected
        got = run_sql(sqlmetrics.render_evaluate(path, ["auc"]))
        assert got["auc"].iloc[0] == expected


def test_metric_names_are_case_insensitive_in_render_and_suggested_in_python() -> None:
    # `render AUC` and `render -m AUC` were unknown metrics with no suggestion, while
    # `eval -m AUC` worked; in Python, evaluate(..., ["AUC"]) suggested nothing
    runner = CliRunner()
    lower = runner.invoke(cli.main, ["render", "ndcg@10"])
    upper = runner.invoke(cli.main, ["render", "NDCG@10"])
    assert upper.exit_code == 0, upper.output
    assert upper.output == lower.output
    several = runner.invoke(cli.main, ["render", "-m", "AUC", "-m", "F1"])
    assert several.exit_code == 0, several.output
    assert several.output == runner.invoke(cli.main, ["render", "-m", "auc", "-m", "f1"]).output
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'auc'\?"):
        sqlmetrics.evaluate(CTR, ["AUC"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"did you mean 'ndcg@10'\?"):
        sqlmetrics.render("NDCG@10")
