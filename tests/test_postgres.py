"""sqlmetrics on PostgreSQL through a SQLAlchemy engine (``con=engine``): every public
function, ``evaluate``, the curves, the CLI, and the errors.

The server is the throwaway cluster of the ``pg_engine`` fixture (tests/pg_server.py); the
tables are this module's own. Values are compared with the same call on DuckDB over the same
rows (the parity suite, tests/test_parity.py, covers every option variant).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sqlalchemy
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import (
    ColumnNotFoundError,
    DataSourceError,
    EngineError,
    InvalidDataError,
)

pytestmark = pytest.mark.postgres


def _events() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n_groups, per_group = 30, 12
    n = n_groups * per_group
    g = np.repeat(np.arange(n_groups), per_group)
    rel = rng.integers(0, 4, n) * (rng.random(n) < 0.5)
    score = np.round(rng.random(n) * 0.7 + rel * 0.08, 2)  # tied scores
    label = (rng.random(n) < 0.2 + 0.6 * score).astype("int64")
    classes = np.array(["a", "b", "c"])
    cls = classes[rng.integers(0, 3, n)]
    pcls = np.where(rng.random(n) < 0.3, classes[rng.integers(0, 3, n)], cls)
    return pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": np.arange(n, dtype="int64"),
            "score": score,
            "rel": rel.astype("int64"),
            "label": label,
            "pred": (score >= 0.45).astype("int64"),
            "w": np.round(rng.random(n) + 0.1, 3),
            "cls": cls,
            "pcls": pcls,
            "country": np.array(["de", "fr", None], dtype=object)[g % 3],
        }
    )


EVENTS = _events()


def _class_scores() -> pd.DataFrame:
    """Long-form class scores: 60 rows x 3 classes, one true class per row, tied scores."""
    rng = np.random.default_rng(11)
    n, classes = 60, ["a", "b", "c"]
    truth = rng.integers(0, 3, n)
    rows = [
        (r, c, float(np.round(rng.random() * 0.6 + 0.3 * (j == truth[r]), 1)), int(j == truth[r]))
        for r in range(n)
        for j, c in enumerate(classes)
    ]
    return pd.DataFrame(rows, columns=["rid", "cls", "score", "label"])


CLASS_SCORES = _class_scores()
#: the same scores wide: a column per class (s_a, s_b, s_c) and the true class (truth)
CLASS_WIDE = (
    CLASS_SCORES.pivot(index="rid", columns="cls", values="score")
    .add_prefix("s_")
    .rename_axis(columns=None)
    .assign(truth=CLASS_SCORES[CLASS_SCORES["label"] == 1].set_index("rid")["cls"])
    .reset_index()
)


def _multilabel(wide: pd.DataFrame) -> pd.DataFrame:
    """Multilabel truth next to the wide scores: y_a, y_b, y_c (the true class, plus the
    next class at random), and a slice column with a NULL slice."""
    rng = np.random.default_rng(12)
    # the next class (c after b after a) is true too on about half of the rows: every row
    # keeps a negative, so the samples AUC is defined
    after = wide["truth"].map({"a": "b", "b": "c", "c": "a"}).where(rng.random(len(wide)) < 0.5)
    flags = {f"y_{c}": ((wide["truth"] == c) | (after == c)).astype("int64") for c in "abc"}
    part = pd.Series(rng.choice(["x", "y", None], len(wide)), dtype=object)
    return wide.assign(**flags, part=part)


CLASS_WIDE = _multilabel(CLASS_WIDE)
WIDE = {"_table": "class_wide", "label": "truth", "scores": ["s_a", "s_b", "s_c"]}
#: the same scores with multilabel truth: scikit-learn's indicator matrix Y, a column per class
MULTILABEL = {
    "_table": "class_wide",
    "scores": ["s_a", "s_b", "s_c"],
    "indicators": ["y_a", "y_b", "y_c"],
}
LISTED = {"label": "cls", "prediction": "pcls", "labels": ["c", "a", "x"]}

RANKING = {"group": "g", "item": "item", "label": "rel"}
#: every public function that takes con=, with the arguments it is called with here
CALLS: dict[str, list[dict[str, Any]]] = {
    "auc": [{}, {"weight": "w"}],
    "gauc": [{"group": "g"}, {"group": "g", "weighting": "uniform"}],
    "accuracy": [{}, {"prediction": "pred"}],
    "confusion_matrix": [{"threshold": 0.4, "weight": "w"}],
    "precision": [
        {},
        {"label": "cls", "prediction": "pcls", "average": "macro"},
        {**LISTED, "average": "macro", "zero_division": 0.0},
    ],
    "recall": [
        {},
        {"label": "cls", "prediction": "pcls", "average": None},
        {**LISTED, "average": None},
    ],
    "f1": [{"threshold": 0.3}, {"label": "cls", "prediction": "pcls", "average": "weighted"}],
    "fbeta": [
        {"beta": 2.0},
        {"beta": 0.5, "label": "cls", "prediction": "pcls", "average": "micro"},
    ],
    "specificity": [{}],
    "fpr": [{"weight": "w"}],
    "mcc": [{"threshold": 0.4}, {"label": "cls", "prediction": "pcls"}],
    "auc_bounds": [{"bins": 64}],
    "average_precision": [{}, {"weight": "w"}],
    "brier_score": [{}],
    "log_loss": [{"weight": "w"}],
    "roc_curve": [{}, {"by": "country", "max_points": 4}],
    "pr_curve": [{}, {"weight": "w", "drop_intermediate": True}],
    "classification_report": [
        {"label": "cls", "prediction": "pcls", "weight": "w"},
        {**LISTED, "weight": "w", "zero_division": 1.0},
    ],
    "multiclass_confusion_matrix": [
        {"label": "cls", "prediction": "pcls"},
        {**LISTED, "normalize": "true"},
    ],
    "cg": [{**RANKING, "k": 5}],
    "dcg": [{**RANKING, "k": 5, "gain": "linear"}],
    "idcg": [{**RANKING}],
    "ndcg": [{**RANKING, "k": 10}, {**RANKING, "ties": "average"}],
    "hit_rate": [{**RANKING, "k": 3}],
    "hit_ratio": [{**RANKING, "k": 3}],
    "precision_at_k": [{**RANKING, "k": 5}],
    "recall_at_k": [{**RANKING, "k": 5, "empty": "zero"}],
    "r_precision": [{**RANKING}],
    "mean_average_precision": [{**RANKING, "ties": "average"}],
    "mrr": [{**RANKING}],
    "balanced_accuracy": [{"label": "cls", "prediction": "pcls"}],
    "cohen_kappa": [
        {"label": "cls", "prediction": "pcls", "weight": "w"},
        {**LISTED, "weights": "quadratic"},
    ],
    "hamming_loss": [{"label": "cls", "prediction": "pcls"}],
    "jaccard": [
        {"label": "cls", "prediction": "pcls", "average": "weighted"},
        {**LISTED, "average": "micro"},
    ],
    "calibration_curve": [{"n_bins": 4}, {"strategy": "quantile", "by": "country"}],
    "calibration_ratio": [{"weight": "w"}],
    "expected_calibration_error": [{"n_bins": 5}],
    "normalized_entropy": [{}],
    "catalog_coverage": [{"item": "item", "train": "events"}],
    "distributional_coverage": [{"item": "rel"}],
    "gini_index": [{"item": "rel"}],
    "novelty": [{"item": "item", "train": "events"}],
    "kendall_tau": [{"label": "rel"}, {"label": "rel", "group": "g"}],
    "spearman": [{"label": "rel", "group": "g"}],
    "multiclass_auc": [
        {"_table": "class_scores", "row_id": "rid", "class_col": "cls"},
        {**WIDE, "labels": ["a", "b", "c"], "average": "weighted"},
        {**WIDE, "multi_class": "ovo"},
        {**WIDE, "scores": {"c": "s_c", "a": "s_a", "b": "s_b"}, "average": "micro"},
        {**MULTILABEL, "average": "samples"},
        {
            "_table": "class_wide",
            "scores": {"c": "s_c", "a": "s_a", "b": "s_b"},
            "indicators": {"a": "y_a", "b": "y_b", "c": "y_c"},
            "average": "weighted",
        },
    ],
    "multilabel_average_precision": [
        {"_table": "class_scores", "row_id": "rid", "class_col": "cls"},
        {**MULTILABEL, "average": "samples"},
        {**MULTILABEL, "average": "micro"},
    ],
    "top_k_accuracy": [
        {"_table": "class_scores", "row_id": "rid", "class_col": "cls", "k": 2},
        {"_table": "class_scores", "row_id": "rid", "class_col": "cls", "labels": ["c", "a", "b"]},
    ],
    "ks_point": [{}],
    "ks_statistic": [{"weight": "w"}],
    "lift_table": [{"n_bins": 4}],
    "partial_auc": [{"max_fpr": 0.3}],
    "bpref": [{**RANKING}],
    "fallout": [{**RANKING, "k": 5}],
    "gm_map": [{**RANKING}],
    "iprec_11pt_avg": [{**RANKING}, {**RANKING, "recall_rounding": "trec_eval_9"}],
    "iprec_at_recall": [
        {**RANKING, "recall_level": 0.3},
        {**RANKING, "recall_level": 0.6, "recall_rounding": "trec_eval_9"},
    ],
    "rbp": [{**RANKING, "persistence": 0.8}],
    "err": [{**RANKING, "k": 5, "max_grade": 3}],
    "infap": [{**RANKING}],
    "judged": [{**RANKING, "k": 5}],
    "set_precision": [{**RANKING}],
    "set_recall": [{**RANKING}],
    "set_f": [{**RANKING, "beta": 2.0}],
    "num_q": [{**RANKING, "empty": "zero"}],
    "num_rel": [{**RANKING}],
    "num_ret": [{**RANKING}],
    "num_rel_ret": [{**RANKING}],
    "evaluate": [
        {"metrics": ["auc", "log_loss", "f1", "gauc"], "group": "g", "by": "country"},
        {"metrics": ["ndcg@10", "map", "mrr"], **RANKING, "by": "country"},
        {"metrics": ["f1_macro", "cohen_kappa", "jaccard_micro"], **LISTED, "by": "country"},
        {**WIDE, "metrics": ["multiclass_auc"], "labels": ["a", "b", "c"], "auc_average": "micro"},
        {
            **MULTILABEL,
            "metrics": ["multiclass_auc", "multilabel_average_precision"],
            "by": "part",
            "auc_average": "samples",
            "ap_average": "weighted",
        },
    ],
    "compare": [
        {"metrics": ["auc", "gauc", "accuracy"], "scores": ["score", "w"], "group": "g"},
        {"metrics": ["ndcg@10", "mrr"], "scores": ["score", "w"], **RANKING, "by": "country"},
    ],
}


@pytest.fixture(scope="module")
def pg(pg_engine: sqlalchemy.engine.Engine) -> sqlalchemy.engine.Engine:
    EVENTS.to_sql("events", pg_engine, index=False, if_exists="replace")
    CLASS_SCORES.to_sql("class_scores", pg_engine, index=False, if_exists="replace")
    CLASS_WIDE.to_sql("class_wide", pg_engine, index=False, if_exists="replace")
    with pg_engine.begin() as c:
        c.exec_driver_sql("create schema if not exists analytics")
        c.exec_driver_sql("drop view if exists analytics.scored")
        c.exec_driver_sql("create view analytics.scored as select label, score from events")
    return pg_engine


def _relations(engine: sqlalchemy.engine.Engine) -> list[tuple[str, str]]:
    with engine.connect() as c:
        rows = c.exec_driver_sql(
            "select n.nspname, c.relname from pg_class c join pg_namespace n "
            "on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', "
            "'information_schema') and left(n.nspname, 8) <> 'pg_toast' order by 1, 2"
        ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def _same(a: Any, b: Any) -> None:
    if isinstance(a, pd.DataFrame):
        assert list(a.columns) == list(b.columns)
        assert len(a) == len(b)
        for column in a.columns:
            for x, y in zip(a[column], b[column]):
                _same(x, y)
    elif isinstance(a, pd.Series):
        assert list(a.index) == list(b.index)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)):
        x, y = float(a), float(b)
        assert (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-9), (x, y)
    elif hasattr(a, "_asdict"):
        _same(a._asdict(), b._asdict())
    elif pd.isna(a) or pd.isna(b):  # pd.NA has no truth value: compare missingness first
        assert pd.isna(a) and pd.isna(b), (a, b)
    else:
        assert a == b, (a, b)


CASES = [(name, i) for name, calls in CALLS.items() for i in range(len(calls))]


def test_every_public_function_is_called() -> None:
    import inspect

    takes_con = {
        name
        for name in sqlmetrics.__all__
        if callable(getattr(sqlmetrics, name))
        and not inspect.isclass(getattr(sqlmetrics, name))
        and "con" in inspect.signature(getattr(sqlmetrics, name)).parameters
    }
    # report, state and merge run evaluate (called here) and have their own PostgreSQL tests:
    # tests/test_report.py, tests/test_state.py (test_merge_is_evaluate_on_postgres)
    own_tests = {"report", "state", "merge"}
    assert takes_con - own_tests == set(CALLS), sorted((takes_con - own_tests) ^ set(CALLS))


@pytest.mark.parametrize(("name", "i"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_function_on_postgres_equals_duckdb(
    pg: sqlalchemy.engine.Engine, name: str, i: int
) -> None:
    kwargs = dict(CALLS[name][i])
    table = kwargs.pop("_table", "events")
    frame = {"events": EVENTS, "class_scores": CLASS_SCORES, "class_wide": CLASS_WIDE}[table]
    if kwargs.get("train") == "events":  # a second input: a DataFrame here, a table there
        expected_kwargs = {**kwargs, "train": EVENTS}
    else:
        expected_kwargs = kwargs
    function = getattr(sqlmetrics, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = function(frame, **expected_kwargs)
        got = function(table, con=pg, **kwargs)
    _same(expected, got)


def test_a_connection_works_too_and_its_transaction_survives_a_missing_table(
    pg: sqlalchemy.engine.Engine,
) -> None:
    with pg.connect() as connection:
        with pytest.raises(DataSourceError):
            sqlmetrics.auc("no_such_table", con=connection)
        # the lookup ran no failing statement: the open transaction is still usable
        assert sqlmetrics.auc("events", con=connection) == pytest.approx(sqlmetrics.auc(EVENTS))


def test_schema_qualified_view_and_case(pg: sqlalchemy.engine.Engine) -> None:
    expected = sqlmetrics.auc(EVENTS)
    assert sqlmetrics.auc("analytics.scored", con=pg) == pytest.approx(expected, rel=1e-12)
    assert sqlmetrics.auc("public.events", con=pg) == pytest.approx(expected, rel=1e-12)
    assert sqlmetrics.auc("EVENTS", con=pg) == pytest.approx(expected, rel=1e-12)


def test_nothing_is_written(pg: sqlalchemy.engine.Engine) -> None:
    before = _relations(pg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sqlmetrics.evaluate("events", ["auc", "ndcg@5"], group="g", item="item", con=pg)
        sqlmetrics.roc_curve("events", con=pg)
    assert _relations(pg) == before


# ------------------------------------------------------------------------------ errors
def test_missing_table_names_postgres_and_the_tables(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(
        DataSourceError,
        # the server is the session's: other modules' tables may be listed too
        match=r"auc: data='evnts' is not a table or view in con \(postgres\); tables present: "
        r"(\w+, )*events(, \w+)*\. Pass the name of a table or view",
    ):
        sqlmetrics.auc("evnts", con=pg)


def test_missing_schema(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(DataSourceError, match=r"data='nowhere.events' is not a table"):
        sqlmetrics.auc("nowhere.events", con=pg)


def test_missing_column_names_postgres(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(
        ColumnNotFoundError,
        match=r"auc: column 'scr' \(score=\) not found in data='events' on postgres; "
        r"columns present: g, item, score",
    ):
        sqlmetrics.auc("events", score="scr", con=pg)


def test_a_dataframe_is_refused_with_the_fix(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(
        DataSourceError,
        match=r"auc: data= is a DataFrame; with con= a SQLAlchemy postgres engine, data= must "
        r"be the name of a table or view",
    ):
        sqlmetrics.auc(EVENTS, con=pg)


def test_a_file_is_refused_with_the_fix(pg: sqlalchemy.engine.Engine) -> None:
    with pytest.raises(DataSourceError, match=r"auc: data=\['x.parquet'\] names files; with con="):
        sqlmetrics.auc("x.parquet", con=pg)


def test_an_unanticipated_engine_error_is_wrapped(
    pg: sqlalchemy.engine.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlmetrics._engine.run as engine

    monkeypatch.setattr(engine, "render_sql", lambda *a, **k: "select no_such_fn()")
    with pytest.raises(
        EngineError,
        match=r"auc: the engine failed on data='events' on postgres: UndefinedFunction: "
        r"function no_such_fn\(\) does not exist$",
    ):
        sqlmetrics.auc("events", con=pg)


@pytest.fixture
def bad_values(pg: sqlalchemy.engine.Engine) -> Iterator[sqlalchemy.engine.Engine]:
    with pg.begin() as c:
        c.exec_driver_sql("drop table if exists bad")
        c.exec_driver_sql("create table bad (g int, item int, label int, score float8, w float8)")
        c.exec_driver_sql(
            "insert into bad values (1, 1, 1, 0.9, 1), (1, 2, 0, 'NaN', 1), "
            "(1, 2, 2, 0.1, -1), (2, 1, null, 0.5, 1)"
        )
    yield pg
    with pg.begin() as c:
        c.exec_driver_sql("drop table bad")


def test_input_checks_run_on_postgres(bad_values: sqlalchemy.engine.Engine) -> None:
    pg = bad_values
    with pytest.raises(
        InvalidDataError, match=r"label column 'label' \(label=\) has 1 of 4 rows NULL"
    ):
        sqlmetrics.auc("bad", con=pg)
    with pytest.raises(
        InvalidDataError, match=r"score column 'score' \(score=\) has 1 of 4 rows NaN"
    ):
        sqlmetrics.ndcg("bad", group="g", item="item", label="item", con=pg)
    with pytest.raises(InvalidDataError, match=r"duplicated combinations .* e\.g\. \(1,2\)"):
        sqlmetrics.ndcg("bad", group="g", item="item", label="item", score="w", con=pg)


def test_label_outside_0_1_and_negative_weight(pg: sqlalchemy.engine.Engine) -> None:
    with pg.begin() as c:
        c.exec_driver_sql("drop table if exists bad2")
        c.exec_driver_sql("drop table if exists bad3")
        c.exec_driver_sql(
            "create table bad2 as select * from (values (2, 0.5), (0, 0.1)) as t(label, score)"
        )
        c.exec_driver_sql(
            "create table bad3 as select * from (values (1, 0.5, 1.0), (0, 0.1, -1.0)) "
            "as t(label, score, w)"
        )
    try:
        with pytest.raises(InvalidDataError, match=r"values outside \{0, 1\} \(e\.g\. 2\)"):
            sqlmetrics.auc("bad2", con=pg)
        with pytest.raises(
            InvalidDataError, match=r"weight column 'w' \(weight=\) has 1 of 2 rows negative"
        ):
            sqlmetrics.auc("bad3", weight="w", con=pg)
    finally:
        with pg.begin() as c:
            c.exec_driver_sql("drop table bad2")
            c.exec_driver_sql("drop table bad3")


def test_percent_and_colon_in_names_reach_the_server_as_written(
    pg: sqlalchemy.engine.Engine,
) -> None:
    """Statements go to the driver without parameter parsing: a '%' or ':x' in a name stays."""
    with pg.begin() as c:
        # the driver reads '%' as a placeholder: these statements of the test's own double it
        c.exec_driver_sql('drop table if exists "p%%:t"')
        c.exec_driver_sql('create table "p%%:t" ("lab%%el" int, ":score" float8)')
        c.exec_driver_sql('insert into "p%%:t" values (1, 0.5), (null, 0.1)')
    try:
        with pytest.raises(
            InvalidDataError, match=r"label column 'lab%el' \(label=\) has 1 of 2 rows NULL"
        ):
            sqlmetrics.auc("p%:t", label="lab%el", score=":score", con=pg)
    finally:
        with pg.begin() as c:
            c.exec_driver_sql('drop table "p%%:t"')


def test_an_unsupported_sqlalchemy_dialect_names_the_supported_ones(tmp_path: Any) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(
        DataSourceError,
        match=r"dialect 'sqlite'.*supported SQLAlchemy dialects: bigquery, duckdb, postgresql, "
        r"snowflake, trino",
    ):
        sqlmetrics.auc("t", con=engine)


def test_an_unreachable_server_is_a_clear_error() -> None:
    engine = sqlalchemy.create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with pytest.raises(DataSourceError, match=r"cannot connect: .*check the URL"):
        sqlmetrics.auc("events", con=engine)


def test_unsupported_con_type_names_the_supported_ones() -> None:
    with pytest.raises(
        DataSourceError,
        match=r"con= must be a duckdb connection, a database file path or None, a SQLAlchemy "
        r"Engine or Connection, a pyspark.sql.SparkSession, a chdb session or connection, or a "
        r"clickhouse_connect client; "
        r"got dict",
    ):
        sqlmetrics.auc(EVENTS, con={})


# ------------------------------------------------------------------------------ CLI
def test_cli_eval_with_db_url(pg: sqlalchemy.engine.Engine) -> None:
    url = pg.url.render_as_string(hide_password=False)
    result = CliRunner().invoke(
        cli.main,
        [
            "eval",
            "events",
            "--db-url",
            url,
            "-m",
            "auc",
            "-m",
            "ndcg@5",
            "--group",
            "g",
            "--item",
            "item",
            "--label",
            "label",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    import json

    row = json.loads(result.stdout)[0]
    assert row["auc"] == pytest.approx(sqlmetrics.auc(EVENTS), rel=1e-12)
    result = CliRunner().invoke(cli.main, ["eval", "evnts", "--db-url", url, "-m", "auc"])
    assert result.exit_code == 2
    assert "DATA 'evnts' is not a table or view in con (postgres)" in result.output


def test_cli_db_url_refuses_bad_urls_and_several_inputs() -> None:
    result = CliRunner().invoke(cli.main, ["eval", "t", "--db-url", "nonsense", "-m", "auc"])
    assert result.exit_code == 2
    assert "--db-url 'nonsense' is not a usable SQLAlchemy URL" in result.output
    result = CliRunner().invoke(
        cli.main, ["eval", "a", "b", "--db-url", "postgresql+psycopg://x@h/db", "-m", "auc"]
    )
    assert result.exit_code == 2
    assert "with --db-url, DATA is one table (or view) name of that engine; got 2" in result.output
