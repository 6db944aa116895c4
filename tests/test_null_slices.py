"""A NULL slice of ``evaluate(by=...)`` is a slice: for every metric of the ranking kernel its
value equals the metric on those rows alone (issue 22, item 1).

The kernel used to join its per-group and per-slice tables back with ``using (slice_0, ...)``,
which drops a NULL key: the NULL slice came out NULL with ``n_groups`` 0 for all 17 ranking and
retrieval metrics. Checked on DuckDB metric by metric (with labels and with ``qrels=``, with a
total order and with tie averaging), and on PostgreSQL and Spark in one ``evaluate`` call each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import duckdb
import pandas as pd
import pytest
from conftest import duckdb_tables as tables_in_duckdb
from conftest import quiet

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._metrics.ranking_retrieval import NO_TIE_AVERAGE

RANKING = sorted(name for name, spec in REGISTRY.items() if spec.kernel == "ranking_kernel")
COLS = {"group": "q", "item": "d", "score": "s", "label": "y"}
K = 2

# q1, q2 in the NULL slice, q3, q4 in "A", q5 in "B"; q6 is split between NULL and "A"; q2 has
# no relevant item (empty); scores tie within and across labels
RUN = pd.DataFrame(
    [
        ("q1", "a", 0.9, 0, None),
        ("q1", "b", 0.8, 0, None),
        ("q1", "c", 0.8, 2, None),
        ("q1", "d", 0.1, 1, None),
        ("q2", "a", 0.5, 0, None),
        ("q2", "b", 0.4, 0, None),
        ("q3", "a", 0.7, 1, "A"),
        ("q3", "b", 0.7, 0, "A"),
        ("q4", "a", 0.3, 0, "A"),
        ("q4", "b", 0.2, 3, "A"),
        ("q5", "a", 0.6, 1, "B"),
        ("q5", "b", 0.5, 0, "B"),
        ("q6", "a", 0.9, 0, None),
        ("q6", "b", 0.9, 1, None),
        ("q6", "c", 0.4, 2, "A"),
        ("q6", "d", 0.3, 1, None),
    ],
    columns=["q", "d", "s", "y", "m"],
)
# judgments: the run's labels and judged items the run never retrieved
QRELS = pd.concat(
    [
        RUN[["q", "d", "y"]],
        pd.DataFrame([("q1", "z", 1), ("q6", "z", 3)], columns=["q", "d", "y"]),
    ],
    ignore_index=True,
)
NULL_ROWS = RUN[RUN["m"].isna()]


def _name(metric: str) -> str:
    spec = REGISTRY[metric]
    return f"{spec.name.removesuffix('_at_k')}@{K}" if spec.takes_k else spec.name


def _alone(metric: str, judged: bool, ties: str | None) -> float:
    """The metric's own function on the NULL slice's rows alone (DuckDB)."""
    spec = REGISTRY[metric]
    kwargs: dict[str, Any] = dict(COLS)
    if judged:
        kwargs["qrels"] = QRELS[QRELS["q"].isin(NULL_ROWS["q"])]
    if spec.takes_k:
        kwargs["k"] = K
    if ties is not None:
        kwargs["ties"] = ties
    return float(quiet(getattr(sqlmetrics, spec.function), NULL_ROWS, **kwargs))


def _null_row(out: pd.DataFrame) -> pd.Series:
    rows = out[out["m"].isna()]
    assert len(rows) == 1, out
    return rows.iloc[0]


def _same(got: float, expected: float, rel: float = 1e-12) -> bool:
    if math.isnan(expected):
        return math.isnan(got)
    return got == pytest.approx(expected, rel=rel, abs=1e-12)


# each metric with a total order and with tie averaging (except those without that form,
# refused by design: tests/test_retrieval.py)
TIE_CASES = [
    (metric, ties)
    for metric in RANKING
    for ties in (None, "average")
    if not (ties == "average" and metric in NO_TIE_AVERAGE)
]


@pytest.mark.parametrize("judged", [False, True], ids=["labels", "qrels"])
@pytest.mark.parametrize(("metric", "ties"), TIE_CASES)
def test_null_slice_equals_the_metric_on_its_rows_alone(
    metric: str, ties: str | None, judged: bool
) -> None:
    options = {"ties": ties} if ties else {}
    extra = {"qrels": QRELS} if judged else {}
    run = RUN.drop(columns=["y"]) if judged else RUN
    out = quiet(sqlmetrics.evaluate, run, [_name(metric)], by="m", **COLS, **extra, **options)
    assert list(out["m"].isna()) == [False, False, True]  # A, B, then the NULL slice last
    row = _null_row(out)
    expected = _alone(metric, judged, ties)
    assert not math.isnan(expected)
    alone = quiet(
        sqlmetrics.evaluate,
        NULL_ROWS.drop(columns=["m"]),
        [_name(metric)],
        **COLS,
        **options,
        **({"qrels": QRELS[QRELS["q"].isin(NULL_ROWS["q"])]} if judged else {}),
    )
    assert row["n_groups"] == alone["n_groups"].iloc[0] > 0
    assert _same(float(row[_name(metric)]), expected), (metric, row[_name(metric)], expected)


def test_the_issue_example_ndcg_at_2() -> None:
    """The issue's numbers: the same rows alone give ndcg@2 0.2754 (the slice gave NULL)."""
    frame = pd.DataFrame(
        {
            "q": [1, 1, 1, 2, 2, 2],
            "d": [1, 2, 3, 1, 2, 3],
            "s": [0.9, 0.8, 0.7, 0.9, 0.8, 0.7],
            "y": [0, 0, 1, 0, 1, 0],
            "m": [None] * 6,
        }
    )
    frame["m"] = frame["m"].astype(object)
    alone = sqlmetrics.ndcg(frame, k=2, **COLS)
    out = sqlmetrics.evaluate(frame, ["ndcg@2"], by="m", **COLS)
    # q1's relevant item is third (0), q2's second (1 / log2 3, its ideal DCG 1)
    assert alone == pytest.approx((0 + 1 / math.log2(3)) / 2, rel=1e-12)
    assert float(out["ndcg@2"].iloc[0]) == pytest.approx(alone, rel=1e-12)
    assert out["n_groups"].iloc[0] == 2


# ------------------------------------------------------------------ PostgreSQL and Spark
ENGINES = ("duckdb", "postgres", "spark")


@pytest.fixture(scope="module")
def pg_tables(pg_engine: Any) -> Any:
    RUN.to_sql("null_slice_run", pg_engine, index=False, if_exists="replace")
    QRELS.to_sql("null_slice_qrels", pg_engine, index=False, if_exists="replace")
    return pg_engine


@pytest.fixture(scope="module")
def spark_tables(spark: Any) -> Iterator[Any]:
    for name, frame in (("null_slice_run", RUN), ("null_slice_qrels", QRELS)):
        spark.createDataFrame(
            frame.astype(object).where(frame.notna(), None)
        ).createOrReplaceTempView(name)
    yield spark
    for name in ("null_slice_run", "null_slice_qrels"):
        spark.catalog.dropTempView(name)


@pytest.fixture(scope="module")
def duckdb_tables() -> Iterator[duckdb.DuckDBPyConnection]:
    con = tables_in_duckdb({"null_slice_run": RUN, "null_slice_qrels": QRELS})
    yield con
    con.close()


@pytest.mark.parametrize("judged", [False, True], ids=["labels", "qrels"])
@pytest.mark.parametrize("engine", ENGINES)
def test_null_slice_on_every_engine(
    engine: str, judged: bool, request: pytest.FixtureRequest
) -> None:
    """All 17 metrics in one evaluate call per engine: the NULL slice's values equal each
    metric on those rows alone (computed on DuckDB), to 1e-9."""
    fixture = {"duckdb": "duckdb_tables", "postgres": "pg_tables", "spark": "spark_tables"}
    con = request.getfixturevalue(fixture[engine])
    extra = {"qrels": "null_slice_qrels"} if judged else {}
    names = [_name(m) for m in RANKING]
    out = quiet(sqlmetrics.evaluate, "null_slice_run", names, by="m", con=con, **COLS, **extra)
    assert len(out) == 3
    row = _null_row(out)
    wrong = {
        name: (float(row[name]), _alone(metric, judged, None))
        for metric, name in zip(RANKING, names)
        if not _same(float(row[name]), _alone(metric, judged, None), rel=1e-9)
    }
    assert not wrong, f"{engine}: {wrong}"


def test_null_slice_through_intervals_and_compare() -> None:
    """``ci=`` and :func:`sqlmetrics.compare` run the same kernel: the NULL slice's values,
    bounds and test equal those of its rows alone."""
    names = ["ndcg@2", "map", "mrr"]
    sliced = quiet(sqlmetrics.evaluate, RUN, names, by="m", ci=0.9, **COLS)
    alone = quiet(sqlmetrics.evaluate, NULL_ROWS.drop(columns=["m"]), names, ci=0.9, **COLS)
    row = _null_row(sliced)
    for column in alone.columns:
        assert _same(float(row[column]), float(alone[column].iloc[0])), column
    runs = RUN.assign(s2=RUN["s"].to_numpy()[::-1])
    cols = {k: v for k, v in COLS.items() if k != "score"}
    sliced = quiet(sqlmetrics.compare, runs, ["ndcg@2"], scores=["s", "s2"], by="m", **cols)
    alone = quiet(
        sqlmetrics.compare,
        runs[runs["m"].isna()].drop(columns=["m"]),
        ["ndcg@2"],
        scores=["s", "s2"],
        **cols,
    )
    got = sliced[sliced["m"].isna()].drop(columns=["m"]).reset_index(drop=True)
    assert not got["value"].isna().any()
    pd.testing.assert_frame_equal(got, alone, check_exact=False, rtol=1e-12)
