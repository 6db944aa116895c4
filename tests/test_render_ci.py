"""render(..., ci=): the SQL of a metric with its interval, run in the warehouse, gives the
bounds of the Python call with the same ci= bit for bit (DuckDB broadly; one case each on
PostgreSQL and Spark)."""

from __future__ import annotations

import math
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics
from sqlmetrics.errors import InvalidParameterError


def frame(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.7 + 0.3 * label, 2),
            "w": np.round(rng.random(n) * 3 + 0.1, 3),
            "g": rng.integers(0, 30, n),
            "item": np.arange(n),
            "country": rng.choice(["DE", "FR", "IT"], n),
        }
    )


def bits(x: Any) -> float | None:
    """A value as compared here: NULL and NaN are one 'undefined'."""
    if x is None or (isinstance(x, float) and math.isnan(x)) or pd.isna(x):
        return None
    return float(x)


def rendered(con: Any, metric: str, table: str, by: Any = None, **kw: Any) -> pd.DataFrame:
    return con.execute(sqlmetrics.render(metric, table, by=by, **kw)).df()


# (metric as evaluate takes it, the columns and options, the ci_method)
CASES = [
    ("auc", {}, None),  # delong
    ("auc", {}, "bootstrap"),  # bucket bootstrap
    ("auc", {"weight": "w"}, None),  # weighted: row bootstrap
    ("precision", {"threshold": 0.5}, None),  # wilson
    ("recall", {"threshold": 0.4}, "wilson"),
    ("accuracy", {}, None),
    ("log_loss", {}, None),  # t over the rows' losses
    ("log_loss", {"weight": "w"}, None),
    ("log_loss", {}, "bootstrap"),  # the losses' one-pass row bootstrap
    ("brier_score", {"weight": "w"}, "bootstrap"),
    ("gauc", {"group": "g"}, "bootstrap"),  # group bootstrap
    ("ndcg@5", {"group": "g", "item": "item", "empty": "skip"}, "bootstrap"),
    ("hit_rate@3", {"group": "g", "item": "item", "empty": "skip"}, None),  # wilson over groups
    ("ndcg@5", {"group": "g", "item": "item", "empty": "skip"}, None),  # t over groups
    ("gauc", {"group": "g"}, None),  # t
    ("hit_rate@3", {"group": "g", "item": "item"}, "t"),
    ("spearman", {"group": "g"}, None),  # t
    ("gauc", {"group": "g", "weighting": "samples"}, None),  # t with group weights
    ("hit_ratio@3", {"group": "g", "item": "item"}, None),  # t, weighted by relevant items
    ("kendall_tau", {"group": "g"}, None),  # t
    ("fallout@5", {"group": "g", "item": "item"}, None),  # t
    ("iprec_11pt_avg", {"group": "g", "item": "item", "empty": "skip"}, None),  # t
    ("infap", {"group": "g", "item": "item", "empty": "skip"}, None),  # t
]


@pytest.mark.parametrize(("metric", "options", "method"), CASES)
@pytest.mark.parametrize("by", [None, "country"])
def test_rendered_interval_is_the_python_interval_bit_for_bit(
    metric: str, options: dict[str, Any], method: str | None, by: str | None
) -> None:
    df = frame()
    level = 0.9
    con = duckdb.connect()
    con.register("events", df)
    out = rendered(con, metric, "events", by=by, ci=level, ci_method=method, n_boot=50,
                   seed=7, **options)  # fmt: skip
    name = sqlmetrics._core.names.parse_metric(metric, "test").spec.name
    assert list(out.columns) == [*(["slice_0"] if by else []), name, f"{name}_lo", f"{name}_hi"]
    want = quiet(sqlmetrics.evaluate, df, [metric], by=by, ci=level, ci_method=method,
                 n_boot=50, seed=7, **options)  # fmt: skip
    if by:
        want = want.sort_values(by).reset_index(drop=True)
        assert list(out["slice_0"]) == list(want[by])
    assert len(out) == len(want) >= 1
    for i in range(len(out)):
        for got, col in [(name, metric), (f"{name}_lo", f"{metric}_lo"),
                         (f"{name}_hi", f"{metric}_hi")]:  # fmt: skip
            assert bits(out[got].iloc[i]) == bits(want[col].iloc[i]), (metric, i, got)
    con.close()


@given(frames(min_rows=1, max_rows=25, label=st.integers(0, 1),
              score=st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]), c=st.integers(0, 2)))  # fmt: skip
def test_property_delong_and_wilson_bounds_equal_the_single_functions(df: pd.DataFrame) -> None:
    """Edge cases too: one class (AUC undefined), one row, p = 0 or 1 (Wilson clamped)."""
    con = duckdb.connect()
    con.register("t", df)
    for metric, method in [("auc", "delong"), ("precision", "wilson"), ("recall", "wilson")]:
        out = rendered(con, metric, "t", by="c", ci=0.95, ci_method=method)
        for i, row in out.iterrows():
            part = df[df.c == row["slice_0"]]
            iv = quiet(getattr(sqlmetrics, metric), part, ci=0.95, ci_method=method)
            got = [bits(row[metric]), bits(row[f"{metric}_lo"]), bits(row[f"{metric}_hi"])]
            assert got == [bits(iv.value), bits(iv.lo), bits(iv.hi)], (metric, i)
    con.close()


def test_render_without_ci_is_unchanged() -> None:
    assert sqlmetrics.render("auc", "events") == sqlmetrics._engine.render.render("auc", "events")


def ranking_frame(n_groups: int, seed: int) -> pd.DataFrame:
    """Groups of 1 to 6 items (some with one item: n = 1 in a slice), graded labels, and a
    slice column with NULLs."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    n = len(g)
    country = rng.choice(np.array(["DE", "FR", "IT", None], dtype=object), n_groups)[g]
    return pd.DataFrame({"g": g, "item": np.arange(n), "label": rng.integers(0, 3, n),
                         "score": np.round(rng.random(n), 2), "country": country})  # fmt: skip


RANKING = ["ndcg@10", "map", "mrr", "precision@3", "recall@5", "r_precision", "err@10",
           "rbp", "dcg@5", "set_f", "judged@5", "bpref"]  # fmt: skip


@pytest.mark.parametrize(
    ("n_groups", "level"),
    [
        (40, 0.95),
        # above the literal table's end: 2,600 groups, some 6 s each (not in the fast tier)
        pytest.param(2600, 0.9, marks=pytest.mark.slow),
        pytest.param(2600, 0.999, marks=pytest.mark.slow),
    ],
)
def test_rendered_t_interval_is_the_python_interval_bit_for_bit(
    n_groups: int, level: float
) -> None:
    """df below the literal table's end (1000) and above it (the expansion), per slice and
    overall, a NULL slice and a slice of one group (no interval)."""
    df = ranking_frame(n_groups, seed=n_groups)
    df.loc[df.g == 0, "country"] = "XX"  # a slice of one group: n = 1, lo = hi = NULL
    con = duckdb.connect()
    con.register("runs", df)
    cols = {"group": "g", "item": "item", "label": "label", "score": "score"}
    for metric in RANKING:
        name = sqlmetrics._core.names.parse_metric(metric, "test").spec.name
        for by in (None, "country"):
            sql = sqlmetrics.render(metric, "runs", by=by, ci=level, **cols)
            out = con.execute(sql).df()
            want = quiet(sqlmetrics.evaluate, df, [metric], by=by, ci=level, **cols)
            if by:
                want = want.sort_values(by, na_position="last").reset_index(drop=True)
                assert [None if pd.isna(x) else x for x in out["slice_0"]] == [
                    None if pd.isna(x) else x for x in want[by]
                ]
                assert out["slice_0"].isna().any()
            assert len(out) == len(want)
            for i in range(len(out)):
                for got, col in [(f"{name}_lo", f"{metric}_lo"), (f"{name}_hi", f"{metric}_hi")]:
                    assert bits(out[got].iloc[i]) == bits(want[col].iloc[i]), (metric, by, i, got)
            if by:  # one group: a value, no interval
                one = out[out["slice_0"] == "XX"]
                assert len(one) == 1 and one[f"{name}_lo"].isna().all() and one[name].notna().all()
            else:
                assert out[f"{name}_lo"].iloc[0] <= out[f"{name}_hi"].iloc[0]  # defined
    iv = quiet(sqlmetrics.ndcg, df, k=10, ci=level, **cols)  # the single function
    out = con.execute(sqlmetrics.render("ndcg@10", "runs", ci=level, **cols)).df()
    assert [bits(out[c].iloc[0]) for c in ("ndcg", "ndcg_lo", "ndcg_hi")] == [
        bits(iv.value), bits(iv.lo), bits(iv.hi)]  # fmt: skip
    con.close()


def test_render_refuses_weighted_wilson_naming_the_bootstrap() -> None:
    """The one method render still refuses (t renders since issue 26)."""
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.render("precision", "events", weight="w", ci=0.95)
    assert str(info.value) == (
        "render: ci_method='wilson' of precision cannot be written as SQL alone (with weight= "
        "its effective sample size is an exact fraction computed in Python); methods render "
        "writes for it: 'bootstrap'; or call sqlmetrics.precision(..., ci=) to run it"
    )


def test_render_writes_t_where_it_refused_it() -> None:
    """ndcg's default (t) rendered: the literal table of df = 1..1000 and the expansion's
    terms, exact literals of the level."""
    from sqlmetrics._inference.intervals import t_table
    from sqlmetrics._inference.stats import t_expansion_terms

    def literal(x: float) -> str:
        return f"cast({x!r}{'' if 'e' in repr(x) else 'e0'} as double)"

    sql = sqlmetrics.render("ndcg@10", "runs", group="g", item="i", ci=0.95)
    assert "t_table (df, t)" in sql
    assert f"(1, {literal(t_table(0.95)[0])})" in sql
    assert f"(1000, {literal(t_table(0.95)[-1])})" in sql
    assert "(1001," not in sql
    assert all(literal(g) in sql for g in t_expansion_terms(0.95))


def test_render_ci_errors_name_the_argument() -> None:
    with pytest.raises(InvalidParameterError, match=r"ci_method='delong' needs ci="):
        sqlmetrics.render("auc", "events", ci_method="delong")
    with pytest.raises(InvalidParameterError, match=r"ci_method='t' does not apply to auc"):
        sqlmetrics.render("auc", "events", ci=0.95, ci_method="t")
    with pytest.raises(InvalidParameterError, match=r"ci="):
        sqlmetrics.render("auc", "events", ci=1.5)
    with pytest.raises(InvalidParameterError, match=r"'roc_curve' returns a table: drop ci="):
        sqlmetrics.render("roc_curve", "events", ci=0.95)


@pytest.mark.postgres
def test_rendered_interval_on_postgres(pg_engine: Any) -> None:
    df = frame(300, seed=2)
    with pg_engine.begin() as conn:
        df.to_sql("render_ci_events", conn, index=False, if_exists="replace")
    sql = sqlmetrics.render("auc", "render_ci_events", by="country", ci=0.9, dialect="postgres")
    boot = sqlmetrics.render("log_loss", "render_ci_events", ci=0.9, n_boot=30,
                             dialect="postgres")  # fmt: skip
    with pg_engine.connect() as conn:
        out = pd.read_sql_query(sql, conn)
        iv_boot = pd.read_sql_query(boot, conn)
    want = sqlmetrics.evaluate(df, ["auc"], by="country", ci=0.9).sort_values("country")
    assert list(out["slice_0"]) == list(want["country"])
    for col, wcol in [("auc", "auc"), ("auc_lo", "auc_lo"), ("auc_hi", "auc_hi")]:
        assert [bits(x) for x in out[col]] == [bits(x) for x in want[wcol]]
    iv = sqlmetrics.log_loss("render_ci_events", ci=0.9, n_boot=30, con=pg_engine)
    assert [bits(iv_boot[c].iloc[0]) for c in ("log_loss", "log_loss_lo", "log_loss_hi")] == [
        iv.value,
        iv.lo,
        iv.hi,
    ]


@pytest.mark.spark
def test_rendered_interval_on_spark(spark: Any) -> None:
    df = frame(300, seed=4)
    spark.createDataFrame(df).createOrReplaceTempView("render_ci_events")
    sql = sqlmetrics.render("precision", "render_ci_events", by="country", ci=0.95,
                            dialect="spark")  # fmt: skip
    out = spark.sql(sql).toPandas()
    want = sqlmetrics.evaluate(df, ["precision"], by="country", ci=0.95).sort_values("country")
    assert list(out["slice_0"]) == list(want["country"])
    for col in ("precision", "precision_lo", "precision_hi"):
        assert [bits(x) for x in out[col]] == [bits(x) for x in want[col]]
    auc = spark.sql(sqlmetrics.render("auc", "render_ci_events", ci=0.95, dialect="spark"))
    row = auc.toPandas().iloc[0]
    iv = sqlmetrics.auc(df, ci=0.95)
    assert [bits(row[c]) for c in ("auc", "auc_lo", "auc_hi")] == [iv.value, iv.lo, iv.hi]


def test_render_refuses_an_interval_computed_from_another_metrics_counts() -> None:
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.render("mcc", "events", ci=0.95)
    assert str(info.value) == (
        "render: ci= of mcc is computed from another metric's counts in Python; call "
        "sqlmetrics.mcc(..., ci=) instead, or drop ci="
    )


def _t_case(df: pd.DataFrame, run: Any, dialect: str, con: Any) -> None:
    """ndcg@10's and map's t intervals (1100 groups: the expansion overall, the table per
    slice), rendered for ``dialect`` and run by ``run``, equal evaluate's on the same engine
    ``con`` bit for bit (DuckDB's per-group values may differ from an engine's by an ulp)."""
    cols = {"group": "g", "item": "item", "label": "label", "score": "score"}
    for metric, by in [("ndcg@10", "country"), ("ndcg@10", None), ("map", None)]:
        sql = sqlmetrics.render(metric, "render_t_runs", by=by, ci=0.95, dialect=dialect, **cols)
        out = run(sql)
        want = quiet(sqlmetrics.evaluate, "render_t_runs", [metric], by=by, ci=0.95, con=con,
                     **cols)  # fmt: skip
        if by:
            want = want.sort_values(by, na_position="last").reset_index(drop=True)
            assert out["slice_0"].isna().sum() == 1 and len(out) == len(want)
        name = metric.split("@")[0]
        assert [bits(x) for x in out[f"{name}_lo"]] == [bits(x) for x in want[f"{metric}_lo"]]
        assert [bits(x) for x in out[f"{name}_hi"]] == [bits(x) for x in want[f"{metric}_hi"]]


@pytest.mark.postgres
def test_rendered_t_interval_on_postgres(pg_engine: Any) -> None:
    df = ranking_frame(1100, seed=5)
    with pg_engine.begin() as conn:
        df.to_sql("render_t_runs", conn, index=False, if_exists="replace")

    def run(sql: str) -> pd.DataFrame:
        with pg_engine.connect() as conn:
            return pd.read_sql_query(sql, conn)

    _t_case(df, run, "postgres", pg_engine)


@pytest.mark.spark
def test_rendered_t_interval_on_spark(spark: Any) -> None:
    df = ranking_frame(1100, seed=6)
    spark.createDataFrame(df).createOrReplaceTempView("render_t_runs")
    _t_case(df, lambda sql: spark.sql(sql).toPandas(), "spark", spark)
