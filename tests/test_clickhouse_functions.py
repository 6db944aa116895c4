"""Every public function of ``sqlmetrics.__all__`` that takes data runs on ClickHouse (chdb, in
process) and gives DuckDB's result (issue 25): the intervals of ``ci=`` (DeLong, Wilson, t, the
hashed bootstrap and its cluster form over groups), ``compare``'s paired tests, ``state`` /
``merge`` / ``render_state``, the curves and tables, the confusion matrices, the multiclass and
multilabel wide forms, ``report`` and the ``render`` functions, on data with tied scores and a
NULL slice.

:data:`CALLS` is the explicit table of the calls, one or more per function;
:func:`test_every_public_function_is_called` fails when a public function is neither in it nor
in :data:`NO_DATA` (the functions that take no data), so a new function cannot be forgotten.
Results compare by :func:`same`: the same types, frame columns, dtypes and row order, NULL
where DuckDB has NULL (a text slice's NaN, an integer slice's NA), and the same bits, except
the few calls of :data:`LAST_BITS` (to 1e-12): the bootstrap and randomization replicates are
hashed, so their intervals match too. The rendered SQL runs by hand (each engine's own column
types); the report's page is compared but for the engine's name, versions and SQL.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table, duckdb_tables

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import ClickHouseBackend
from sqlmetrics._templating.templates import render_macro

pytestmark = pytest.mark.clickhouse

#: the tolerance of the results listed in LAST_BITS; every other result has DuckDB's bits
RTOL = 1e-12
#: the calls whose ClickHouse result differs from DuckDB's in the last bits (1 to 30 units in
#: the last place, measured 2026-11-26): a bootstrap percentile's interpolation between two
#: replicates, log loss's t interval and bootstrap (ClickHouse's ln), compare's mean losses (a
#: plain float sum); they agree to
#: RTOL. (Twelve more did, from exact sums, until exact_int_of stopped casting Float64 to Int128
#: directly on ClickHouse: test_exact_int_of_is_exact.)
LAST_BITS = {
    "log_loss-t",
    "log_loss-weighted_bootstrap",
    "normalized_entropy-bootstrap",
    "recall-bootstrap",
    "balanced_accuracy-bootstrap",
    "evaluate-ci_bootstrap_by",
    "evaluate-ci_default_by",
    "compare-losses_t",
}


# --------------------------------------------------------------------------- data
def _tables() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(2525)
    n_groups, per_group = 40, 10
    n = n_groups * per_group
    g = np.repeat(np.arange(n_groups), per_group)
    rel = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
    rel[g < 3] = 0  # groups without a relevant item
    score = np.round(rng.random(n) * 0.6 + rel * 0.1, 1)  # about ten values: heavy ties
    label = (rng.random(n) < 0.2 + 0.6 * score).astype("int64")
    classes = np.array(["a", "b", "c"])
    cls = classes[rng.integers(0, 3, n)]
    pcls = np.where(rng.random(n) < 0.4, classes[rng.integers(0, 3, n)], cls)
    events = pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": (np.arange(n) * 7919 % 10_007).astype("int64"),
            "score": score,
            "score_b": np.round(np.clip(score + rng.normal(0, 0.15, n), 0, 1), 1),
            "rel": rel.astype("int64"),
            "label": label,
            "label_txt": np.where(label == 1, "yes", "no"),
            "pred": (score >= 0.4).astype("int64"),
            "pred_b": (score >= 0.3).astype("int64"),
            "w": np.round(rng.random(n) * 2 + 0.05, 3),
            "cls": cls,
            "pcls": pcls,
            "country": np.array(["de", "fr", None], dtype=object)[g % 3],  # a NULL slice
            # an integer slice column with a NULL slice
            "tier": pd.array(np.where(g % 4 == 3, None, g % 4), dtype="Int64"),
        }
    )
    # class scores, wide (one column per class) and long (one row per row and class)
    n_rows = 150
    truth = rng.integers(0, 3, n_rows)
    raw = np.round(rng.random((n_rows, 3)) + 0.4 * (np.arange(3) == truth[:, None]), 1)
    flags = (rng.random((n_rows, 3)) < 0.2 + 0.3 * raw).astype("int64")
    flags[:, 0] |= (truth == 0).astype("int64")
    country = np.array(["de", "fr", None], dtype=object)[np.arange(n_rows) % 3]
    wide = pd.DataFrame(
        {
            "row_id": np.arange(n_rows).astype("int64"),
            "y": classes[truth],
            **{f"s_{c}": raw[:, i] for i, c in enumerate(classes)},
            **{f"i_{c}": flags[:, i] for i, c in enumerate(classes)},
            "w": np.round(rng.random(n_rows) * 2 + 0.05, 3),
            "country": country,
        }
    )
    long = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n_rows), 3).astype("int64"),
            "cls": np.tile(classes, n_rows),
            "score": raw.ravel(),
            "label": (np.arange(3) == truth[:, None]).astype("int64").ravel(),
            "country": np.repeat(country, 3),
        }
    )
    judged = events.loc[events["rel"] > 0, ["g", "item", "rel"]]
    extra = pd.DataFrame({"g": [5, 6, 500], "item": [1, 2, 3], "rel": [1, 2, 1]}).astype("int64")
    train = pd.DataFrame(
        {"item": np.r_[np.repeat(events["item"].to_numpy()[::4], 3), [99_999]].astype("int64")}
    )
    run_b = events[["g", "item", "score_b", "rel"]].rename(columns={"score_b": "score"})
    return {
        "cf_events": events,
        "cf_run_b": run_b.sample(frac=1.0, random_state=1, ignore_index=True),  # other order
        "cf_qrels": pd.concat([judged, extra], ignore_index=True),
        "cf_train": train,
        "cf_wide": wide,
        "cf_long": long,
    }


TABLES = _tables()
STATE_METRICS = ["auc", "log_loss", "precision"]


@functools.cache
def all_tables() -> dict[str, pd.DataFrame]:
    """TABLES and cf_states, the state of cf_events (DuckDB's) as a table of each engine."""
    states = sqlmetrics.state(
        TABLES["cf_events"], STATE_METRICS, label="label", score="score", threshold=0.4,
        by="country",
    )  # fmt: skip
    return {**TABLES, "cf_states": states}


E = "cf_events"
BIN: dict[str, Any] = {"label": "label", "score": "score"}
PRED: dict[str, Any] = {"label": "label", "prediction": "pred"}
MC: dict[str, Any] = {"label": "cls", "prediction": "pcls"}
RANK: dict[str, Any] = {"group": "g", "item": "item", "label": "rel"}
WIDE: dict[str, Any] = {"label": "y", "scores": {"a": "s_a", "b": "s_b", "c": "s_c"}}
MULTILABEL: dict[str, Any] = {
    "scores": {"a": "s_a", "b": "s_b", "c": "s_c"},
    "indicators": {"a": "i_a", "b": "i_b", "c": "i_c"},
}
LONG: dict[str, Any] = {"row_id": "row_id", "class_col": "cls"}
BOOT: dict[str, Any] = {"ci": 0.9, "ci_method": "bootstrap", "n_boot": 20, "seed": 7}


def f(name: str) -> Callable[..., Any]:
    """The public function ``name``."""
    function: Callable[..., Any] = getattr(sqlmetrics, name)
    return function


def binary(name: str, **kw: Any) -> Callable[[Any], Any]:
    return lambda con: f(name)(E, **BIN, **kw, con=con)


def ranking(name: str, **kw: Any) -> Callable[[Any], Any]:
    return lambda con: f(name)(E, **RANK, **kw, con=con)


def compare_ranking(test: str) -> Callable[[Any], Any]:
    metrics = ["ndcg@5", "mrr"] if test == "t" else ["ndcg@5"]
    return lambda con: sqlmetrics.compare(
        E, metrics, scores=["score", "score_b"], **RANK, test=test, n_permutations=20,
        empty="skip", con=con,
    )  # fmt: skip


def render_run(con: Any, render: Callable[..., str], *args: Any, **kw: Any) -> pd.DataFrame:
    """The rendered SQL for the connection's engine, run on it."""
    if isinstance(con, duckdb.DuckDBPyConnection):
        return con.execute(render(*args, **kw, dialect="duckdb")).df()
    from sqlmetrics._backends.clickhouse_backend import SETTINGS

    settings = ", ".join(f"{k} = {v}" for k, v in SETTINGS.items())
    sql = render(*args, **kw, dialect="clickhouse")
    frame: pd.DataFrame = con.query(f"{sql}\nSETTINGS {settings}", "DataFrame")
    return frame


def report_text(con: Any) -> str:
    """The HTML page of ``report`` on ``con``, with intervals and a NULL slice."""
    with tempfile.TemporaryDirectory() as tmp:
        path = sqlmetrics.report(
            E, ["auc", "log_loss", "precision"], **BIN, by="country", ci=0.9,
            path=Path(tmp) / "r.html", con=con,
        )  # fmt: skip
        return path.read_text(encoding="utf-8")


#: the call of each public function that takes data, by function name: (id, call(con)) pairs
CALLS: dict[str, list[tuple[str, Callable[[Any], Any]]]] = {
    # ---- binary scores: values and every interval method that fits
    "auc": [
        ("plain", binary("auc")),
        ("weighted", binary("auc", weight="w")),
        ("delong", binary("auc", ci=0.95)),
        ("bootstrap", binary("auc", **BOOT)),
        ("weighted_bootstrap", binary("auc", weight="w", **BOOT)),
        ("max_fpr", binary("auc", max_fpr=0.3)),
    ],
    "auc_bounds": [("plain", binary("auc_bounds", bins=64))],
    "average_precision": [("bootstrap", binary("average_precision", **BOOT))],
    "brier_score": [("t", binary("brier_score", weight="w", ci=0.9))],
    "calibration_ratio": [("bootstrap", binary("calibration_ratio", **BOOT))],
    "expected_calibration_error": [("plain", binary("expected_calibration_error", n_bins=5))],
    "log_loss": [
        ("t", binary("log_loss", ci=0.9)),
        ("weighted_bootstrap", binary("log_loss", weight="w", **BOOT)),
        (
            "txt",
            lambda con: sqlmetrics.log_loss(
                E, label="label_txt", score="score", pos_label="yes", con=con
            ),
        ),
    ],
    "normalized_entropy": [("bootstrap", binary("normalized_entropy", **BOOT))],
    "partial_auc": [("plain", binary("partial_auc", max_fpr=0.4))],
    "ks_statistic": [("bootstrap", binary("ks_statistic", **BOOT))],
    "gauc": [
        ("plain", lambda con: sqlmetrics.gauc(E, group="g", **BIN, con=con)),
        ("cluster_bootstrap", lambda con: sqlmetrics.gauc(E, group="g", **BIN, **BOOT, con=con)),
    ],
    "kendall_tau": [("groups", lambda con: sqlmetrics.kendall_tau(E, **BIN, group="g", con=con))],
    "spearman": [("bootstrap", lambda con: sqlmetrics.spearman(E, **BIN, **BOOT, con=con))],
    # ---- thresholds and predictions
    "accuracy": [
        ("wilson", binary("accuracy", threshold=0.4, ci=0.9)),
        ("weighted_wilson", binary("accuracy", threshold=0.4, weight="w", ci=0.9)),
        ("bootstrap", binary("accuracy", threshold=0.4, **BOOT)),
    ],
    "precision": [("wilson", lambda con: sqlmetrics.precision(E, **PRED, ci=0.9, con=con))],
    "recall": [("bootstrap", binary("recall", threshold=0.4, **BOOT))],
    "f1": [("bootstrap", binary("f1", threshold=0.4, weight="w", **BOOT))],
    "fbeta": [("plain", binary("fbeta", beta=2.0, threshold=0.4))],
    "fpr": [("wilson", binary("fpr", threshold=0.4, ci=0.9))],
    "specificity": [("plain", binary("specificity", threshold=0.4))],
    "mcc": [("bootstrap", binary("mcc", threshold=0.4, **BOOT))],
    "balanced_accuracy": [
        ("bootstrap", lambda con: sqlmetrics.balanced_accuracy(E, **PRED, **BOOT, con=con))
    ],
    "hamming_loss": [
        ("plain", lambda con: sqlmetrics.hamming_loss(E, **MC, con=con)),
        ("t", lambda con: sqlmetrics.hamming_loss(E, **MC, ci=0.9, con=con)),
        ("bootstrap", lambda con: sqlmetrics.hamming_loss(E, **MC, **BOOT, con=con)),
    ],
    "confusion_matrix": [
        ("plain", binary("confusion_matrix", threshold=0.4)),
        ("normalized", binary("confusion_matrix", threshold=0.4, weight="w", normalize="true")),
    ],
    # ---- multiclass, long and wide
    "cohen_kappa": [
        ("quadratic", lambda con: sqlmetrics.cohen_kappa(E, **MC, weights="quadratic", con=con))
    ],
    "jaccard": [("bootstrap", lambda con: sqlmetrics.jaccard(E, **MC, **BOOT, con=con))],
    "classification_report": [
        ("plain", lambda con: sqlmetrics.classification_report(E, **MC, weight="w", con=con))
    ],
    "multiclass_confusion_matrix": [
        ("long", lambda con: sqlmetrics.multiclass_confusion_matrix(E, **MC, con=con)),
        (
            "matrix",
            lambda con: sqlmetrics.multiclass_confusion_matrix(
                E, **MC, normalize="pred", as_matrix=True, con=con
            ),
        ),
    ],
    "multiclass_auc": [
        ("wide", lambda con: sqlmetrics.multiclass_auc("cf_wide", **WIDE, con=con)),
        ("long", lambda con: sqlmetrics.multiclass_auc("cf_long", **LONG, con=con)),
        (
            "wide_ovo_bootstrap",
            lambda con: sqlmetrics.multiclass_auc(
                "cf_wide", **WIDE, multi_class="ovo", **{**BOOT, "n_boot": 10}, con=con
            ),
        ),
    ],
    "multilabel_average_precision": [
        (
            "wide",
            lambda con: sqlmetrics.multilabel_average_precision(
                "cf_wide", **MULTILABEL, average="samples", con=con
            ),
        )
    ],
    "top_k_accuracy": [
        ("wide", lambda con: sqlmetrics.top_k_accuracy("cf_wide", **WIDE, k=2, con=con)),
        ("long", lambda con: sqlmetrics.top_k_accuracy("cf_long", **LONG, k=2, con=con)),
    ],
    # ---- curves and tables
    "roc_curve": [
        ("by", binary("roc_curve", by="country")),
        ("weighted_all_points", binary("roc_curve", weight="w", drop_intermediate=False)),
    ],
    "pr_curve": [
        ("by", binary("pr_curve", by="country", max_points=5)),
        ("by_two_columns", binary("pr_curve", by=["tier", "country"], max_points=3)),
    ],
    "calibration_curve": [
        ("uniform_by", binary("calibration_curve", by="country")),
        ("quantile", binary("calibration_curve", strategy="quantile", weight="w")),
    ],
    "lift_table": [("by", binary("lift_table", n_bins=4, by="country"))],
    "ks_point": [("by", binary("ks_point", weight="w", by="country"))],
    # ---- ranking, judged in the table or by qrels=
    "ndcg": [
        ("t", ranking("ndcg", k=5, ci=0.9)),
        ("cluster_bootstrap", ranking("ndcg", k=5, **BOOT)),
        (
            "qrels",
            lambda con: sqlmetrics.ndcg(
                E, group="g", item="item", qrels="cf_qrels", label="rel", k=5, con=con
            ),
        ),
    ],
    "dcg": [("plain", ranking("dcg", k=5))],
    "idcg": [("plain", ranking("idcg", k=5))],
    "cg": [("plain", ranking("cg", k=5))],
    "err": [("plain", ranking("err", k=5, max_grade=3))],
    "rbp": [("plain", ranking("rbp", persistence=0.8))],
    "mean_average_precision": [("t", ranking("mean_average_precision", k=5, ci=0.9))],
    "gm_map": [("plain", ranking("gm_map"))],
    "mrr": [("bootstrap", ranking("mrr", **BOOT))],
    "hit_rate": [("wilson", ranking("hit_rate", k=3, empty="skip", ci=0.9))],
    "hit_ratio": [("plain", ranking("hit_ratio", k=3))],
    "precision_at_k": [("plain", ranking("precision_at_k", k=3))],
    "recall_at_k": [("plain", ranking("recall_at_k", k=3))],
    "r_precision": [("plain", ranking("r_precision"))],
    "fallout": [("plain", ranking("fallout", k=3))],
    "judged": [
        (
            "qrels",
            lambda con: sqlmetrics.judged(
                E, group="g", item="item", label="rel", qrels="cf_qrels", k=5, con=con
            ),
        ),
    ],
    "bpref": [
        (
            "qrels",
            lambda con: sqlmetrics.bpref(
                E, group="g", item="item", label="rel", qrels="cf_qrels", con=con
            ),
        ),
    ],
    "infap": [("plain", ranking("infap"))],
    "iprec_11pt_avg": [("plain", ranking("iprec_11pt_avg"))],
    "iprec_at_recall": [("plain", ranking("iprec_at_recall", recall_level=0.3))],
    "num_q": [("plain", ranking("num_q"))],
    "num_rel": [("plain", ranking("num_rel"))],
    "num_rel_ret": [("plain", ranking("num_rel_ret"))],
    "num_ret": [("plain", ranking("num_ret"))],
    "set_f": [("plain", ranking("set_f", beta=0.5))],
    "set_precision": [("plain", ranking("set_precision"))],
    "set_recall": [("plain", ranking("set_recall"))],
    # ---- beyond accuracy
    "catalog_coverage": [
        (
            "plain",
            lambda con: sqlmetrics.catalog_coverage(E, item="item", train="cf_train", con=con),
        ),
    ],
    "distributional_coverage": [
        ("plain", lambda con: sqlmetrics.distributional_coverage(E, item="item", con=con))
    ],
    "gini_index": [
        ("plain", lambda con: sqlmetrics.gini_index(E, item="item", train="cf_train", con=con))
    ],
    "novelty": [
        ("plain", lambda con: sqlmetrics.novelty(E, item="item", train="cf_train", con=con))
    ],
    # ---- many metrics at once
    "evaluate": [
        (
            "binary_by_null_slice",
            lambda con: sqlmetrics.evaluate(
                E,
                ["auc", "log_loss", "precision", "ks_statistic"],
                **BIN,
                weight="w",
                threshold=0.4,
                by="country",
                con=con,
            ),
        ),
        (
            "integer_null_slice",
            lambda con: sqlmetrics.evaluate(
                E,
                ["auc", "recall", "ndcg@3"],
                **BIN,
                group="g",
                item="item",
                threshold=0.4,
                by="tier",
                con=con,
            ),
        ),
        (
            "ci_bootstrap_by",
            lambda con: sqlmetrics.evaluate(
                E, ["auc", "brier_score"], **BIN, by="country", **BOOT, con=con
            ),
        ),
        (
            "ci_default_by",
            lambda con: sqlmetrics.evaluate(
                E,
                ["auc", "accuracy", "log_loss"],
                **BIN,
                threshold=0.4,
                by="country",
                ci=0.9,
                con=con,
            ),
        ),
        (
            "ranking_by",
            lambda con: sqlmetrics.evaluate(
                E, ["ndcg@5", "map", "mrr", "recall@3"], **RANK, by="country", ci=0.9, con=con
            ),
        ),
        (
            "multiclass_wide_by",
            lambda con: sqlmetrics.evaluate(
                "cf_wide", ["multiclass_auc", "top_k_accuracy"], **WIDE, by="country", con=con
            ),
        ),
        (
            "multilabel_wide",
            lambda con: sqlmetrics.evaluate(
                "cf_wide",
                ["multilabel_average_precision", "multiclass_auc"],
                **MULTILABEL,
                con=con,
            ),
        ),
        (
            "beyond",
            lambda con: sqlmetrics.evaluate(
                E,
                ["novelty", "gini_index"],
                item="item",
                train="cf_train",
                by="country",
                con=con,
            ),
        ),
    ],
    "compare": [
        (
            "delong_mcnemar_bootstrap_by",
            lambda con: sqlmetrics.compare(
                E,
                ["auc", "accuracy", "f1"],
                scores=["score", "score_b"],
                label="label",
                threshold=0.4,
                by="country",
                n_boot=20,
                con=con,
            ),
        ),
        (
            "losses_t",
            lambda con: sqlmetrics.compare(
                E,
                ["log_loss", "brier_score"],
                scores=["score", "score_b"],
                label="label",
                con=con,
            ),
        ),
        *[
            (f"ranking_{test}", compare_ranking(test))
            for test in ("t", "randomization", "wilcoxon")
        ],
        (
            "runs",
            lambda con: sqlmetrics.compare(
                runs={"a": E, "b": "cf_run_b"},
                metrics=["ndcg@5", "recall@3"],
                **RANK,
                qrels="cf_qrels",
                empty="skip",
                con=con,
            ),
        ),
        (
            "gauc_t",
            lambda con: sqlmetrics.compare(
                E, "gauc", scores=["score", "score_b"], label="label", group="g", con=con
            ),
        ),
        (
            "accuracy_bootstrap_weighted",
            lambda con: sqlmetrics.compare(
                E,
                "accuracy",
                scores=["score", "score_b"],
                label="label",
                threshold=0.4,
                weight="w",
                test="bootstrap",
                n_boot=20,
                seed=3,
                con=con,
            ),
        ),
    ],
    "state": [
        (
            "binary_ranking",
            lambda con: sqlmetrics.state(
                E,
                ["auc", "log_loss", "precision"],
                **BIN,
                threshold=0.4,
                by="country",
                con=con,
            ),
        ),
    ],
    "merge": [
        (
            "states_of_the_engine",
            lambda con: sqlmetrics.merge(
                [
                    sqlmetrics.state(E, ["auc", "log_loss"], **BIN, by="country", con=con),
                    sqlmetrics.state(E, ["auc", "log_loss"], **BIN, by="country", con=con),
                ],
                ["auc", "log_loss"],
                **BIN,
                by="country",
            ),
        ),
        (
            # DataFrame states merged by the engine itself (read in place on ClickHouse)
            "frames_on_the_engine",
            lambda con: sqlmetrics.merge(
                [
                    sqlmetrics.state(E, ["auc", "log_loss"], **BIN, by="country", con=con),
                    sqlmetrics.state(E, ["auc", "log_loss"], **BIN, by="country", con=con),
                ],
                ["auc", "log_loss"],
                **BIN,
                by="country",
                con=con,
            ),
        ),
        (
            "table_of_states",
            lambda con: sqlmetrics.merge(
                "cf_states", STATE_METRICS, **BIN, threshold=0.4, by="country", con=con
            ),
        ),
    ],
    "report": [("by_ci", report_text)],  # the page: test_report_equals_duckdb
    # ---- rendered SQL, run on the engine it was rendered for
    "render": [
        ("auc_by", lambda con: render_run(con, sqlmetrics.render, "auc", E, **BIN, by="country")),
        (
            "ndcg_ci",
            lambda con: render_run(
                con,
                sqlmetrics.render,
                "ndcg",
                E,
                **RANK,
                k=5,
                ci=0.9,
                ci_method="bootstrap",
                n_boot=20,
                seed=2,
            ),
        ),
    ],
    "render_evaluate": [
        (
            "by",
            lambda con: render_run(
                con,
                sqlmetrics.render_evaluate,
                E,
                ["auc", "precision", "ndcg@3"],
                **BIN,
                group="g",
                item="item",
                threshold=0.4,
                by="country",
            ),
        ),
    ],
    "render_state": [
        (
            "by",
            lambda con: render_run(
                con, sqlmetrics.render_state, E, ["auc", "log_loss"], **BIN, by="country"
            ),
        ),
    ],
}

#: public functions that take no data (so nothing runs on an engine), and why
NO_DATA = {
    "configure": "DuckDB's own settings",
    "convention_names": "lists names",
    "metric_names": "lists names",
    "load_metrics_dir": "registers templates",
    "register_sql": "registers a template",
    "registered_sql": "registers a template",
    "unregister_sql": "unregisters a template",
    "read_trec_qrels": "reads a file into pandas",
    "read_trec_run": "reads a file into pandas",
}


def _public_functions() -> set[str]:
    return {name for name in sqlmetrics.__all__ if inspect.isfunction(getattr(sqlmetrics, name))}


def test_every_public_function_is_called() -> None:
    """A public function is in CALLS or in NO_DATA: a new one cannot be forgotten."""
    functions = _public_functions()
    assert not set(CALLS) & set(NO_DATA)
    assert set(CALLS) | set(NO_DATA) == functions, (
        f"not called: {sorted(functions - set(CALLS) - set(NO_DATA))}; "
        f"not public: {sorted(set(CALLS) | set(NO_DATA) - functions)}"
    )
    for name in NO_DATA:
        parameters = inspect.signature(getattr(sqlmetrics, name)).parameters
        assert "data" not in parameters and "con" not in parameters, name


# --------------------------------------------------------------------------- engines
@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb_tables(all_tables())
    yield con
    con.close()


@pytest.fixture(scope="module")
def ch(chdb_session: Any) -> Any:
    for name, frame in all_tables().items():
        chdb_table(chdb_session, name, frame)
    return chdb_session


# --------------------------------------------------------------------------- comparing
def _is_null(value: Any) -> bool:
    return value is None or value is pd.NA or value is pd.NaT


def same(expected: Any, got: Any, where: str, dtypes: bool = True, rtol: float = 0.0) -> None:
    """Equal results: the same type; frames with the same columns, dtypes (unless ``dtypes`` is
    false: the raw frames of rendered SQL), rows and order, NULL where DuckDB has NULL; floats
    to ``rtol`` relative (0: the same bits)."""
    if isinstance(expected, pd.DataFrame):
        assert isinstance(got, pd.DataFrame), f"{where}: {type(got).__name__}, not a frame"
        assert list(got.columns) == list(expected.columns), f"{where}: columns differ"
        assert got.index.equals(expected.index), f"{where}: index differs"
        for column in expected.columns:
            a, b = expected[column], got[column]
            if dtypes:
                assert a.dtype == b.dtype, f"{where}: {column!r} is {b.dtype}, {a.dtype} on duckdb"
            for i, (x, y) in enumerate(zip(a, b)):
                same(x, y, f"{where}: column {column!r} row {i}", dtypes, rtol)
        return
    if isinstance(expected, sqlmetrics.Interval):
        assert isinstance(got, sqlmetrics.Interval), f"{where}: {got!r}"
        for field in ("value", "lo", "hi"):
            same(getattr(expected, field), getattr(got, field), f"{where}.{field}", rtol=rtol)
        assert (got.level, got.method) == (expected.level, expected.method), where
        return
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got!r}"
        for i, (x, y) in enumerate(zip(expected, got)):
            same(x, y, f"{where}[{i}]", dtypes, rtol)
        return
    if isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected), f"{where}: {got!r}"
        for key in expected:
            same(expected[key], got[key], f"{where}[{key!r}]", rtol=rtol)
        return
    if _is_null(expected) or _is_null(got):
        assert _is_null(expected) and _is_null(got), f"{where}: {got!r}, {expected!r} on duckdb"
        return
    if not dtypes and isinstance(expected, (int, float, np.number)):
        expected, got = float(expected), float(got)
    assert type(got) is type(expected), (
        f"{where}: {got!r} ({type(got).__name__}), {expected!r} ({type(expected).__name__}) "
        f"on duckdb"
    )
    if isinstance(expected, (float, np.floating)):
        x, y = float(expected), float(got)
        if math.isnan(x) or math.isnan(y):
            assert math.isnan(x) and math.isnan(y), f"{where}: {y!r}, {x!r} on duckdb"
        else:
            assert math.isclose(x, y, rel_tol=rtol, abs_tol=0.0) or x == y, (
                f"{where}: {y!r}, {x!r} on duckdb"
            )
        return
    assert got == expected, f"{where}: {got!r}, {expected!r} on duckdb"


def _run(call: Callable[[Any], Any], con: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(con)


CASES = [
    pytest.param(name, call, f"{name}-{case}", id=f"{name}-{case}")
    for name, calls in CALLS.items()
    if name != "report"
    for case, call in calls
]


@pytest.mark.parametrize(("name", "call", "case"), CASES)
def test_clickhouse_equals_duckdb(
    name: str, call: Callable[[Any], Any], case: str, duck: Any, ch: Any
) -> None:
    expected = _run(call, duck)
    got = _run(call, ch)
    # rendered SQL run by hand gives each engine's own column types (ClickHouse: UInt64)
    rtol = RTOL if case in LAST_BITS else 0.0
    same(expected, got, "clickhouse", dtypes=not name.startswith("render"), rtol=rtol)


def test_last_bits_names_calls() -> None:
    assert {p.values[2] for p in CASES} >= LAST_BITS


def test_report_equals_duckdb(duck: Any, ch: Any) -> None:
    """The HTML report from ClickHouse is DuckDB's: the same page but the engine's name (the
    data are "'cf_events' on clickhouse"), the time it was generated, the versions and the SQL,
    and the same numbers in its cells."""
    [(_, call)] = CALLS["report"]
    expected, got = _run(call, duck), _run(call, ch)
    assert "on clickhouse" in got

    def normal(html: str) -> str:
        html = html.replace(" on clickhouse", "")
        html = re.sub(r"<dt>generated</dt><dd>[^<]*</dd>", "", html)
        # the engine and its version, and the SQL it ran, are the engine's own
        html = re.sub(r'<section id="(about|sql)">.*?</section>', "", html, flags=re.S)
        return re.sub(r'data-value="[^"]*"', "data-value", html)

    def numbers(html: str) -> list[float]:
        return [float(v) for v in re.findall(r'data-value="([-+0-9.eE]+|nan|inf)"', html)]

    assert "<dt>generated</dt>" in expected
    assert normal(got) == normal(expected)
    assert len(numbers(expected)) > 20  # the table's cells
    same(numbers(expected), numbers(got), "report", rtol=RTOL)  # log_loss's t interval


# --------------------------------------------------------------------------- the pieces
def test_key_hash_is_duckdbs(duck: Any, ch: Any) -> None:
    """The resampling key of a group or row (the first 4 bytes of MD5 of its text) is DuckDB's
    for integers and for text (empty, quotes, non-ASCII): same key, same replicates."""
    keys = pd.DataFrame(
        {
            "s": ["", "a", "é", "日本", "x y", "-1", "a'b"],
            "i": [0, 1, -1, 2**40, 7, 123456789, -99],
        }
    )
    chdb_table(ch, "cf_keys", keys)
    duck.register("cf_keys", keys)
    for column in ("s", "i"):
        sql = "select {} as h from cf_keys order by h"
        expected = duck.execute(sql.format(render_macro("key_hash", column))).df()
        got = ch.query(
            sql.format(render_macro("key_hash", column, dialect="clickhouse")), "DataFrame"
        )
        assert got["h"].tolist() == expected["h"].tolist() and len(set(got["h"])) == len(keys)


def test_state_rows_expands_states_on_clickhouse(duck: Any, ch: Any) -> None:
    """merge's expansion of a state row into sqlmetrics_n rows (state_rows) runs on ClickHouse
    and gives DuckDB's rows; it failed there (generate_series(1, column) is no ClickHouse table
    function)."""
    states = sqlmetrics.state(E, ["auc"], **BIN, by="country", con=ch)
    assert states["sqlmetrics_n"].max() > 1
    chdb_table(ch, "cf_state", states)
    duck.register("cf_state", states)
    columns = ['"country"', '"label"', '"score"']
    sql = "select * from ({}) as expanded order by 1, 2, 3"

    def rows(con: Any, dialect: str) -> pd.DataFrame:
        inner = render_macro(
            "state_rows", "(select * from cf_state) as s", columns, dialect=dialect
        )
        if dialect == "duckdb":
            return con.execute(sql.format(inner)).df()
        return ClickHouseBackend(con).query(sql.format(inner))

    expected, got = rows(duck, "duckdb"), rows(ch, "clickhouse")
    assert len(expected) == len(TABLES[E])
    same(expected, got, "state_rows")


def test_exact_int_of_is_exact(ch: Any) -> None:
    """The exact sums' integer of a double (|x| < 2^93) is exact on ClickHouse: its own cast of
    a Float64 to Int128 is off above 2^64, which moved sums, and so ranking means, weighted
    averages and AUC, by one unit in the last place."""
    rng = np.random.default_rng(93)
    values = [
        float(int(rng.uniform(1, 2) * 2.0**k)) * sign
        for k in range(93)
        for sign in (1, -1)
        for _ in range(5)
    ]
    literal = ", ".join(repr(v) for v in values)
    expr = render_macro("exact_int_of", "x", dialect="clickhouse")
    got = ch.query(
        f"select toString({expr}) as s from (select arrayJoin([{literal}]) as x)", "DataFrame"
    )
    assert [int(v) for v in got["s"]] == [int(v) for v in values]
