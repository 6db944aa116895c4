"""The engine contract suite's calls: one call table over every public function of
``sqlmetrics.__all__`` that takes data, run by tests/test_engines.py on every engine against
DuckDB (and by tests/test_intervals.py's interval smoke test on DuckDB alone).

Each :class:`Call` is data: the public function, an id, the table it reads and its keyword
arguments (the tables named in them, ``train=``, ``qrels=``, are tables of the engine too). A
few kinds run differently: ``render`` runs the rendered SQL by hand on the engine it was
rendered for, ``report`` returns the page's text, ``merge`` merges states made on the engine.
The tables (:func:`all_tables`) hold tied scores, a NULL slice (text and integer), groups
without a relevant item, judgments the run lacks, wide and long class scores, multilabel truth,
weights near the largest double, and a table of states.

:func:`same` compares two results: the same type; frames with the same columns, dtypes, index
and row order, NULL where DuckDB has NULL; floats to ``rtol`` (0: the same bits).
"""

from __future__ import annotations

import functools
import inspect
import math
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import sqlmetrics


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
    # weights near the largest double (the exact sums' range) and a score equal to the label
    # (an estimate of 1: an interval at its edge)
    events["w_big"] = events["w"] * 1e300
    # a weight per group (issue 43: group_weight=), 0 for every fifth group; no draw of rng
    events["gw"] = ((events["g"] * 37) % 5) * 0.75
    events["right"] = events["label"].astype("float64")
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
    # a daily table (metric_anomalies): 40 days of three slices (one NULL), an AUC with its
    # interval and rows; a drop on day 35 of "de", a day without interval, a small day
    days = pd.date_range("2026-03-01", periods=40)
    slices = np.array(["de", "fr", None], dtype=object)
    auc = np.round(0.75 + rng.normal(0, 0.003, (3, 40)), 4)
    auc[0, 35] -= 0.03
    se = np.round(0.002 + 0.002 * (np.arange(40) % 7 >= 5), 4)  # weekends: fewer rows
    daily = pd.DataFrame(
        {
            "country": np.repeat(slices, 40),
            "day": np.tile(days, 3),
            "auc": auc.ravel(),
            "auc_lo": (auc - 1.96 * se).ravel(),
            "auc_hi": (auc + 1.96 * se).ravel(),
            "n_rows": np.tile(np.where(np.arange(40) % 7 >= 5, 500, 2000), 3).astype("int64"),
        }
    )
    daily.loc[50, ["auc_lo", "auc_hi"]] = np.nan
    daily.loc[60, "n_rows"] = 20
    # a click log (position_propensities, click_metrics): the events' groups as impressions
    # in item order, a click from the label, a new ranker's tied scores, a NULL slice, the
    # randomised impressions (odd groups) and a propensity column
    clicks = events[["g", "item", "score_b", "label", "country"]].sort_values(["g", "item"])
    clicks["pos"] = clicks.groupby("g").cumcount().astype("int64") + 1
    clicks["shuffled"] = clicks["g"] % 2 == 1
    clicks["p"] = 1.0 / clicks["pos"] ** 0.7
    # logged bandit feedback (off_policy_value): rounds with propensities, some zero targets,
    # a reward model; slates of three positions with cascade propensities; a NULL slice each
    n_log = 300
    log_p = np.round(rng.uniform(0.05, 1.0, n_log), 3)
    log_q = np.round(rng.uniform(0.0, 1.0, n_log), 3)
    logs = pd.DataFrame(
        {
            "r": (rng.random(n_log) < 0.2 + 0.5 * log_q).astype("int64"),
            "p": log_p,
            "t": np.round(rng.uniform(0.0, 1.0, n_log) * (rng.random(n_log) > 0.1), 3),
            "q": log_q,
            "g": np.round(rng.uniform(0.0, 1.0, n_log), 3),
            "country": slices[np.arange(n_log) % 3],
        }
    )
    n_slates = 90
    cascade_p = np.cumprod(np.round(rng.uniform(0.3, 1.0, (n_slates, 3)), 3), axis=1)
    cascade_t = np.cumprod(np.round(rng.uniform(0.0, 1.0, (n_slates, 3)), 3), axis=1)
    slates = pd.DataFrame(
        {
            "slate": np.repeat(np.arange(n_slates), 3).astype("int64"),
            "pos": np.tile([1, 2, 3], n_slates).astype("int64"),
            "r": (rng.random(3 * n_slates) < 0.3).astype("int64"),
            "p": cascade_p.ravel(),
            "t": cascade_t.ravel(),
            "country": np.repeat(slices[np.arange(n_slates) % 3], 3),
        }
    )
    return {
        "cf_clicks": clicks.reset_index(drop=True),
        "cf_logs": logs,
        "cf_slates": slates,
        "cf_daily": daily,
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
    # daily states (metric_anomalies over states): cf_events spread over eight days
    events = TABLES["cf_events"]
    days = pd.Timestamp("2026-03-01") + pd.to_timedelta(events["g"] % 8, "D")
    day_states = sqlmetrics.state(
        events.assign(day=days), ["auc"], label="label", score="score", by=["day", "country"]
    )
    return {**TABLES, "cf_states": states, "cf_day_states": day_states}


E = "cf_events"
BIN: dict[str, Any] = {"label": "label", "score": "score"}
PRED: dict[str, Any] = {"label": "label", "prediction": "pred"}
MC: dict[str, Any] = {"label": "cls", "prediction": "pcls"}
#: the multiclass columns with labels= listed: a class absent from the data ("x"), one left out
LISTED: dict[str, Any] = {**MC, "labels": ["c", "a", "x"]}
RANK: dict[str, Any] = {"group": "g", "item": "item", "label": "rel"}
WIDE: dict[str, Any] = {"label": "y", "scores": {"a": "s_a", "b": "s_b", "c": "s_c"}}
WIDE_LIST: dict[str, Any] = {"label": "y", "scores": ["s_a", "s_b", "s_c"]}
MULTILABEL: dict[str, Any] = {
    "scores": {"a": "s_a", "b": "s_b", "c": "s_c"},
    "indicators": {"a": "i_a", "b": "i_b", "c": "i_c"},
}
MULTILABEL_LIST: dict[str, Any] = {
    "scores": ["s_a", "s_b", "s_c"],
    "indicators": ["i_a", "i_b", "i_c"],
}
LONG: dict[str, Any] = {"row_id": "row_id", "class_col": "cls"}
BOOT: dict[str, Any] = {"ci": 0.9, "ci_method": "bootstrap", "n_boot": 20, "seed": 7}
#: the largest level below 1
TOP = 1 - 2**-53
PAIR: dict[str, Any] = {"scores": ["score", "score_b"]}


#: the arguments of a call that name a table of the engine (besides the first)
TABLE_ARGS = ("data", "train", "qrels")


@dataclass(frozen=True, eq=False)
class Call:
    """One call of a public function: ``function(table, **kwargs, con=con)``.

    ``kind``: ``"call"``; ``"render"`` (the rendered SQL of the engine's dialect, run on it);
    ``"report"`` (the page's text); ``"merge"`` (``merge`` of two states made on the engine,
    by the engine when ``kwargs["on_engine"]``, else by DuckDB from their frames).
    """

    function: str
    id: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    table: str | None = E
    kind: str = "call"

    @property
    def name(self) -> str:
        return f"{self.function}-{self.id}"

    def run(self, target: Any) -> Any:
        """The call's result on ``target`` (``.con``, ``.dialect``, ``.query(sql)``)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self._run(target)

    def _run(self, target: Any) -> Any:
        function: Callable[..., Any] = getattr(sqlmetrics, self.function)
        if self.kind == "render":
            args = () if self.table is None else (self.table,)
            return target.query(function(*args, **self.kwargs, dialect=target.dialect))
        # a target that passes its tables as objects (tests/test_ibis.py: Ibis expressions)
        # rather than by name: ``target.table(name)``
        table: Callable[[str], Any] = getattr(target, "table", lambda name: name)
        args = () if self.table is None else (table(self.table),)
        kwargs = {
            k: table(v) if k in TABLE_ARGS and isinstance(v, str) else v
            for k, v in self.kwargs.items()
        }
        if self.kind == "report":
            with tempfile.TemporaryDirectory() as tmp:
                path = function(*args, **kwargs, path=Path(tmp) / "r.html", con=target.con)
                return path.read_text(encoding="utf-8")
        if self.kind == "merge":
            on_engine = kwargs.pop("on_engine")
            metrics = kwargs.pop("metrics")
            states = [
                sqlmetrics.state(args[0], metrics, **kwargs, con=target.con) for _ in range(2)
            ]
            con = {"con": target.con} if on_engine else {}
            return sqlmetrics.merge(states, metrics, **kwargs, **con)
        return function(*args, **kwargs, con=target.con)


def _calls(function: str, table: str | None = E, **forms: dict[str, Any]) -> list[Call]:
    return [Call(function, id, kwargs, table) for id, kwargs in forms.items()]


def _binary(function: str, **forms: dict[str, Any]) -> list[Call]:
    return [Call(function, id, {**BIN, **kwargs}) for id, kwargs in forms.items()]


def _ranking(function: str, **forms: dict[str, Any]) -> list[Call]:
    return [Call(function, id, {**RANK, **kwargs}) for id, kwargs in forms.items()]


def _compare_ranking(test: str) -> Call:
    metrics = ["ndcg@5", "mrr"] if test == "t" else ["ndcg@5"]
    kwargs = {**PAIR, **RANK, "test": test, "n_permutations": 20, "empty": "skip"}
    return Call("compare", f"ranking_{test}", {"metrics": metrics, **kwargs})


#: every call of the suite: at least one per public function that takes data
CALLS: list[Call] = [
    # ---- binary scores: values and every interval method that fits
    *_binary(
        "auc",
        plain={},
        weighted={"weight": "w"},
        delong={"ci": 0.95},
        delong_top_level={"ci": TOP},
        bootstrap=BOOT,
        weighted_bootstrap={"weight": "w", **BOOT},
        max_fpr={"max_fpr": 0.3},
    ),
    *_binary("auc_bounds", plain={"bins": 64}),
    *_binary("average_precision", plain={"weight": "w"}, bootstrap=BOOT),
    *_binary(
        "brier_score",
        t={"weight": "w", "ci": 0.9},
        t_weights_1e300={"weight": "w_big", "ci": 0.95},
    ),
    *_binary("calibration_ratio", bootstrap=BOOT, weighted={"weight": "w"}),
    *_binary("expected_calibration_error", plain={"n_bins": 5}),
    *_binary(
        "log_loss",
        t={"ci": 0.9},
        weighted_bootstrap={"weight": "w", **BOOT},
    ),
    Call("log_loss", "txt", {"label": "label_txt", "score": "score", "pos_label": "yes"}),
    *_binary("normalized_entropy", bootstrap=BOOT),
    *_binary("partial_auc", plain={"max_fpr": 0.4}),
    *_binary("ks_statistic", bootstrap=BOOT, weighted={"weight": "w"}),
    *_binary("recall_at_precision", weighted={"weight": "w", "min_precision": 0.6}),
    *_binary("precision_at_recall", bootstrap={"min_recall": 0.7, **BOOT}),
    *_binary("tpr_at_fpr", weighted={"weight": "w", "max_fpr": 0.2}),
    *_calls("gauc", plain={"group": "g", **BIN}, cluster_bootstrap={"group": "g", **BIN, **BOOT}),
    *_calls(
        "gauc",
        uniform={"group": "g", **BIN, "weighting": "uniform"},
    ),
    *_calls(
        "kendall_tau",
        groups={**BIN, "group": "g"},
        rel={"label": "rel", "score": "score"},
    ),
    *_calls(
        "spearman",
        bootstrap={**BIN, **BOOT},
        groups={"label": "rel", "score": "score", "group": "g"},
    ),
    # ---- thresholds and predictions
    *_binary(
        "accuracy",
        wilson={"threshold": 0.4, "ci": 0.9},
        weighted_wilson={"threshold": 0.4, "weight": "w", "ci": 0.9},
        wilson_of_one={"score": "right", "weight": "w", "ci": TOP},
        bootstrap={"threshold": 0.4, **BOOT},
    ),
    *_calls(
        "precision",
        wilson={**PRED, "ci": 0.9},
        wilson_weights_1e300={**BIN, "weight": "w_big", "ci": 0.9},
        macro={**MC, "average": "macro"},
        listed_macro={**LISTED, "average": "macro", "zero_division": 0.0},
    ),
    *_calls(
        "recall",
        bootstrap={**BIN, "threshold": 0.4, **BOOT},
        bootstrap_top_level={**BIN, "ci": TOP, "ci_method": "bootstrap", "n_boot": 20},
        per_class={**MC, "average": None},
        listed_per_class={**LISTED, "average": None},
    ),
    *_calls(
        "f1",
        bootstrap={**BIN, "threshold": 0.4, "weight": "w", **BOOT},
        weighted_average={**MC, "average": "weighted"},
    ),
    *_calls(
        "fbeta",
        plain={**BIN, "beta": 2.0, "threshold": 0.4},
        micro={**MC, "beta": 0.5, "average": "micro"},
    ),
    *_binary("fpr", wilson={"threshold": 0.4, "ci": 0.9}),
    *_binary("specificity", plain={"threshold": 0.4}),
    *_calls(
        "mcc",
        bootstrap={**BIN, "threshold": 0.4, **BOOT},
        weighted_bootstrap={**BIN, "threshold": 0.45, "weight": "w", **BOOT},
        multiclass=MC,
    ),
    *_calls("balanced_accuracy", bootstrap={**PRED, **BOOT}, multiclass=MC),
    *_calls("hamming_loss", plain=MC, t={**MC, "ci": 0.9}, bootstrap={**MC, **BOOT}),
    *_binary(
        "confusion_matrix",
        plain={"threshold": 0.4},
        normalized={"threshold": 0.4, "weight": "w", "normalize": "true"},
    ),
    # ---- multiclass, long and wide
    *_calls(
        "cohen_kappa",
        quadratic={**MC, "weights": "quadratic"},
        weighted={**MC, "weight": "w"},
        listed_linear={**LISTED, "weights": "linear"},
    ),
    *_calls(
        "jaccard",
        bootstrap={**MC, **BOOT},
        weighted_average={**MC, "average": "weighted"},
        listed_micro={**LISTED, "average": "micro"},
    ),
    *_calls(
        "classification_report",
        plain={**MC, "weight": "w"},
        listed={**LISTED, "weight": "w", "zero_division": 1.0},
    ),
    *_calls(
        "multiclass_confusion_matrix",
        long=MC,
        matrix={**MC, "normalize": "pred", "as_matrix": True},
        listed={**LISTED, "normalize": "true"},
    ),
    *_calls(
        "multiclass_auc",
        "cf_wide",
        wide=WIDE,
        wide_listed_weighted={**WIDE_LIST, "labels": ["a", "b", "c"], "average": "weighted"},
        wide_micro={**WIDE, "average": "micro"},
        wide_ovo_bootstrap={**WIDE, "multi_class": "ovo", **BOOT, "n_boot": 10},
        wide_ovo_t={**WIDE_LIST, "multi_class": "ovo", "ci": 0.9, "n_boot": 20},
        multilabel_samples={**MULTILABEL_LIST, "average": "samples"},
        multilabel_samples_bootstrap={**MULTILABEL_LIST, "average": "samples", **BOOT},
        multilabel_weighted={**MULTILABEL, "average": "weighted"},
    ),
    Call("multiclass_auc", "long", LONG, "cf_long"),
    *_calls(
        "multilabel_average_precision",
        "cf_wide",
        wide_samples={**MULTILABEL, "average": "samples"},
        wide_micro={**MULTILABEL_LIST, "average": "micro"},
        wide_weighted={**MULTILABEL_LIST, "average": "weighted"},
    ),
    Call("multilabel_average_precision", "long", LONG, "cf_long"),
    Call("top_k_accuracy", "wide", {**WIDE, "k": 2}, "cf_wide"),
    *_calls(
        "top_k_accuracy",
        "cf_long",
        long={**LONG, "k": 2},
        long_listed={**LONG, "labels": ["c", "a", "b"]},
    ),
    # ---- curves and tables
    *_binary(
        "roc_curve",
        by={"by": "country"},
        by_thinned={"by": "country", "max_points": 4},
        weighted_all_points={"weight": "w", "drop_intermediate": False},
    ),
    *_binary(
        "pr_curve",
        by={"by": "country", "max_points": 5},
        by_two_columns={"by": ["tier", "country"], "max_points": 3},
        weighted_intermediate={"weight": "w", "drop_intermediate": True},
    ),
    *_binary(
        "calibration_curve",
        uniform_by={"by": "country"},
        quantile={"strategy": "quantile", "weight": "w"},
        four_bins={"n_bins": 4},
    ),
    *_binary("lift_table", by={"n_bins": 4, "by": "country"}),
    *_binary("ks_point", by={"weight": "w", "by": "country"}),
    *_binary(
        "operating_points",
        by={"weight": "w", "by": "country", "min_precision": 0.6, "max_fpr": 0.2},
    ),
    # ---- ranking, judged in the table or by qrels=
    *_ranking(
        "ndcg",
        t={"k": 5, "ci": 0.9},
        t_top_level={"k": 5, "empty": "skip", "ci": TOP},
        cluster_bootstrap={"k": 5, **BOOT},
        ties_average={"ties": "average"},
        qrels={"qrels": "cf_qrels", "k": 5},
        # issue 43: rax's per-item weights; a weighted mean over groups with its t interval
        weighted_ties_average={"k": 5, "weight": "w", "ties": "average"},
        group_weighted_t={"k": 5, "weight": "w", "group_weight": "gw", "ci": 0.9},
    ),
    *_ranking("dcg", plain={"k": 5}, linear={"k": 5, "gain": "linear"}),
    *_ranking("idcg", plain={"k": 5}),
    *_ranking("cg", plain={"k": 5}),
    *_ranking("err", plain={"k": 5, "max_grade": 3}),
    *_ranking("rbp", plain={"persistence": 0.8}),
    *_ranking(
        "mean_average_precision",
        t={"k": 5, "ci": 0.9},
        ties_average={"ties": "average"},
        group_weighted_bootstrap={"k": 5, "group_weight": "gw", "qrels": "cf_qrels", **BOOT},
    ),
    *_ranking("gm_map", plain={}),
    *_ranking(
        "mrr",
        bootstrap=BOOT,
        # issue 43: TF-Ranking's per-list weights from weight=, and their t interval
        list_weighted_t={"k": 5, "weight": "w", "ci": 0.9, "empty": "zero"},
    ),
    *_ranking("hit_rate", wilson={"k": 3, "empty": "skip", "ci": 0.9}),
    *_ranking("hit_ratio", plain={"k": 3}),
    *_ranking("precision_at_k", plain={"k": 3}),
    *_ranking("recall_at_k", plain={"k": 3}, empty_zero={"k": 5, "empty": "zero"}),
    *_ranking("r_precision", plain={}),
    *_ranking("fallout", plain={"k": 3}),
    *_ranking("judged", qrels={"qrels": "cf_qrels", "k": 5}),
    *_ranking("bpref", qrels={"qrels": "cf_qrels"}),
    *_ranking("infap", plain={}),
    *_ranking("iprec_11pt_avg", plain={}, trec_eval_9={"recall_rounding": "trec_eval_9"}),
    *_ranking(
        "iprec_at_recall",
        plain={"recall_level": 0.3},
        trec_eval_9={"recall_level": 0.6, "recall_rounding": "trec_eval_9"},
    ),
    *_ranking("num_q", plain={}, empty_zero={"empty": "zero"}),
    *_ranking("num_rel", plain={}),
    *_ranking("num_rel_ret", plain={}),
    *_ranking("num_ret", plain={}),
    *_ranking("set_f", plain={"beta": 0.5}),
    *_ranking("set_precision", plain={}),
    *_ranking("set_recall", plain={}),
    # ---- beyond accuracy
    *_calls(
        "catalog_coverage",
        plain={"item": "item", "train": "cf_train"},
    ),
    *_calls("distributional_coverage", plain={"item": "item"}, of_labels={"item": "rel"}),
    *_calls("gini_index", plain={"item": "item", "train": "cf_train"}, of_labels={"item": "rel"}),
    *_calls("novelty", plain={"item": "item", "train": "cf_train"}),
    # ---- many metrics at once
    *_calls(
        "evaluate",
        binary_by_null_slice={
            "metrics": ["auc", "log_loss", "precision", "ks_statistic"],
            **BIN,
            "weight": "w",
            "threshold": 0.4,
            "by": "country",
        },
        binary_with_groups={
            "metrics": ["auc", "log_loss", "f1", "gauc"],
            **BIN,
            "group": "g",
            "by": "country",
        },
        integer_null_slice={
            "metrics": ["auc", "recall", "ndcg@3"],
            **BIN,
            "group": "g",
            "item": "item",
            "threshold": 0.4,
            "by": "tier",
        },
        ci_bootstrap_by={"metrics": ["auc", "brier_score"], **BIN, "by": "country", **BOOT},
        ci_default_by={
            "metrics": ["auc", "accuracy", "log_loss"],
            **BIN,
            "threshold": 0.4,
            "by": "country",
            "ci": 0.9,
        },
        losses_t_weighted_by={
            "metrics": ["log_loss", "brier_score"],
            **BIN,
            "weight": "w",
            "by": "country",
            "ci": 0.9,
        },
        ci_mixed_by={
            "metrics": ["auc", "accuracy", "ndcg@5", "map@5", "mrr", "log_loss"],
            **BIN,
            "group": "g",
            "item": "item",
            "by": "country",
            "ci": 0.9,
            "n_boot": 20,
            "empty": "skip",
        },
        # issue 43: weight= as rax (ndcg) and as TF-Ranking's list weights (map, mrr, recall)
        # times group_weight=, by a slice with a NULL
        ranking_list_weighted_by={
            "metrics": ["ndcg@5", "map", "mrr@5", "recall@3"],
            **RANK,
            "weight": "w",
            "group_weight": "gw",
            "by": "country",
            "empty": "zero",
        },
        ranking_by={
            "metrics": ["ndcg@5", "map", "mrr", "recall@3"],
            **RANK,
            "by": "country",
            "ci": 0.9,
        },
        multiclass_listed_by={
            "metrics": ["f1_macro", "cohen_kappa", "jaccard_micro"],
            **LISTED,
            "by": "country",
        },
        beyond={
            "metrics": ["novelty", "gini_index"],
            "item": "item",
            "train": "cf_train",
            "by": "country",
        },
    ),
    *_calls(
        "evaluate",
        "cf_wide",
        multiclass_wide_by={
            "metrics": ["multiclass_auc", "top_k_accuracy"],
            **WIDE,
            "by": "country",
        },
        multiclass_wide_micro={
            "metrics": ["multiclass_auc"],
            **WIDE_LIST,
            "labels": ["a", "b", "c"],
            "auc_average": "micro",
        },
        multilabel_wide={
            "metrics": ["multilabel_average_precision", "multiclass_auc"],
            **MULTILABEL,
        },
        multilabel_wide_by={
            "metrics": ["multiclass_auc", "multilabel_average_precision"],
            **MULTILABEL_LIST,
            "by": "country",
            "auc_average": "samples",
            "ap_average": "weighted",
        },
    ),
    *_calls(
        "compare",
        delong_mcnemar_bootstrap_by={
            "metrics": ["auc", "accuracy", "f1"],
            **PAIR,
            "label": "label",
            "threshold": 0.4,
            "by": "country",
            "n_boot": 20,
        },
        losses_t={"metrics": ["log_loss", "brier_score"], **PAIR, "label": "label"},
        gauc_t={"metrics": "gauc", **PAIR, "label": "label", "group": "g"},
        gauc_randomization={
            "metrics": ["gauc"],
            **PAIR,
            "label": "label",
            "group": "g",
            "test": "randomization",
            "n_permutations": 20,
        },
        accuracy_bootstrap_weighted={
            "metrics": "accuracy",
            **PAIR,
            "label": "label",
            "threshold": 0.4,
            "weight": "w",
            "test": "bootstrap",
            "n_boot": 20,
            "seed": 3,
        },
        bootstrap_weighted_by={
            "metrics": ["accuracy", "precision"],
            **PAIR,
            "label": "label",
            "threshold": 0.4,
            "by": "country",
            "test": "bootstrap",
            "weight": "w",
            "n_boot": 20,
        },
        top_level={"metrics": ["auc", "accuracy"], **PAIR, "label": "label", "ci": TOP},
        ranking_top_level={"metrics": ["ndcg@5"], **PAIR, **RANK, "ci": TOP, "empty": "skip"},
    ),
    *[_compare_ranking(test) for test in ("t", "randomization", "wilcoxon")],
    # issue 43: the group tests weighted by group_weight= (0 for every fifth group)
    Call(
        "compare",
        "ranking_t_group_weighted",
        {"metrics": ["ndcg@5"], **PAIR, **RANK, "test": "t", "group_weight": "gw", "empty": "zero"},
    ),
    Call(
        "compare",
        "runs",
        {
            "runs": {"a": E, "b": "cf_run_b"},
            "metrics": ["ndcg@5", "recall@3"],
            **RANK,
            "qrels": "cf_qrels",
            "empty": "skip",
        },
        table=None,
    ),
    Call(
        "state",
        "by",
        {"metrics": ["auc", "log_loss", "precision"], **BIN, "threshold": 0.4, "by": "country"},
    ),
    # merge: states of the engine merged by DuckDB from their frames, and by the engine itself
    # (read in place on ClickHouse); a table of states on the engine
    *[
        Call(
            "merge",
            id,
            {"metrics": ["auc", "log_loss"], **BIN, "by": "country", "on_engine": on_engine},
            kind="merge",
        )
        for id, on_engine in (("states_of_the_engine", False), ("frames_on_the_engine", True))
    ],
    Call(
        "merge",
        "table_of_states",
        {"metrics": STATE_METRICS, **BIN, "threshold": 0.4, "by": "country"},
        "cf_states",
    ),
    Call(
        "report",
        "by_ci",
        {"metrics": ["auc", "log_loss", "precision"], **BIN, "by": "country", "ci": 0.9},
        kind="report",
    ),
    # the operating points' section: one operating_points statement, weighted, on the engine
    Call(
        "report",
        "operating_points",
        {
            "metrics": ["tpr_at_fpr", "recall_at_precision", "precision_at_recall"],
            **BIN,
            "weight": "w",
            "by": "country",
            "min_precision": 0.6,
            "curves": False,
        },
        kind="report",
    ),
    # metric_anomalies over the daily table: intervals, counts, a delay; the plain mode by weekday
    Call(
        "metric_anomalies",
        "intervals",
        {"metric": "auc", "by": "country", "delay": 2, "min_rows": 100, "window": 21},
        "cf_daily",
    ),
    Call(
        "metric_anomalies",
        "plain_weekday",
        {
            "metric": "auc",
            "by": "country",
            "intervals": False,
            "seasonality": "weekday",
            "window": 35,
            "min_history": 3,
            "direction": "both",
            "threshold": 2.5,
        },
        "cf_daily",
    ),
    Call(
        "metric_anomalies",
        "states",
        {"metric": "auc", "by": "country", "min_history": 2, "threshold": 1.0},
        "cf_day_states",
    ),
    # position bias (issue 43): propensities of the randomised impressions by a NULL slice;
    # the weighted click metrics of a tied new score from the propensity column
    Call(
        "position_propensities",
        "by",
        {
            "position": "pos",
            "click": "label",
            "intervention": "shuffled",
            "by": "country",
            "max_position": 8,
        },
        "cf_clicks",
    ),
    Call(
        "click_metrics",
        "by",
        {
            "group": "g",
            "position": "pos",
            "click": "label",
            "score": "score_b",
            "propensity": "p",
            "k": 3,
            "by": "country",
        },
        "cf_clicks",
    ),
    # off_policy_value: the single-action estimators with clipping and the t interval; the
    # cascade (slate_rips) estimator with the slate-clustered bootstrap; all by a NULL slice
    Call(
        "off_policy_value",
        "single_clip_t_by",
        {
            "reward": "r",
            "pscore": "p",
            "target": "t",
            "estimator": ["ips", "snips", "dr"],
            "reward_hat": "q",
            "reward_hat_target": "g",
            "clip": 5.0,
            "by": "country",
            "ci": 0.9,
        },
        "cf_logs",
    ),
    # the same rounds without DR: every slice's exponents are the table's, so the statement
    # at the check pass's exponents is kept (the DR call above runs it, then the fallback)
    Call(
        "off_policy_value",
        "ips_snips_t_by_fixed",
        {
            "reward": "r",
            "pscore": "p",
            "target": "t",
            "estimator": ["snips", "ips"],
            "clip": 5.0,
            "by": "country",
            "ci": 0.9,
        },
        "cf_logs",
    ),
    Call(
        "off_policy_value",
        "slate_rips_bootstrap_by",
        {
            "reward": "r",
            "pscore": "p",
            "target": "t",
            "estimator": "slate_rips",
            "slate": "slate",
            "position": "pos",
            "clip": 20.0,
            "by": "country",
            "ci": 0.9,
            "ci_method": "bootstrap",
            "n_boot": 20,
            "seed": 7,
        },
        "cf_slates",
    ),
    # ---- rendered SQL, run on the engine it was rendered for
    Call("render", "auc_by", {"metric": "auc", "data": E, **BIN, "by": "country"}, None, "render"),
    Call(
        "render",
        "ndcg_ci",
        {
            "metric": "ndcg",
            "data": E,
            **RANK,
            "k": 5,
            "ci": 0.9,
            "ci_method": "bootstrap",
            "n_boot": 20,
            "seed": 2,
        },
        None,
        "render",
    ),
    Call(
        "render_evaluate",
        "by",
        {
            "metrics": ["auc", "precision", "ndcg@3"],
            **BIN,
            "group": "g",
            "item": "item",
            "threshold": 0.4,
            "by": "country",
        },
        kind="render",
    ),
    Call(
        "render_state",
        "by",
        {"metrics": ["auc", "log_loss"], **BIN, "by": "country"},
        kind="render",
    ),
]

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


def public_functions() -> set[str]:
    return {name for name in sqlmetrics.__all__ if inspect.isfunction(getattr(sqlmetrics, name))}


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
    if isinstance(expected, pd.Series):
        assert isinstance(got, pd.Series), f"{where}: {type(got).__name__}, not a series"
        assert got.name == expected.name, f"{where}: named {got.name!r}"
        assert list(got.index) == list(expected.index), f"{where}: index differs"
        if dtypes:
            assert got.dtype == expected.dtype, f"{where}: {got.dtype}, {expected.dtype} on duckdb"
        for key, x, y in zip(expected.index, expected, got):
            same(x, y, f"{where}[{key!r}]", dtypes, rtol)
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
