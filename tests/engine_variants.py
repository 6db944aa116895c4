"""The engine contract suite's option variants (tests/test_engines.py): every registered
metric, with each of its option variants, must give the same rows in the same order and the
same values (1e-9 relative) on every engine as on DuckDB.

The data (about 2,000 rows, scores rounded so that many tie) is loaded once per engine as
tables of the test's own (DuckDB: a fresh connection; PostgreSQL: the throwaway server of
``pg_engine``; Spark: temporary views of the session of ``spark``; ClickHouse: Memory tables of
the session of ``chdb_session``), and every case runs by table
name through ``con=``. Scalar metrics are batched through :func:`sqlmetrics.evaluate` (one
statement per option variant, which keeps Spark's run time down); curves and reports run through
their own function's kernel. A case whose DuckDB outcome is an error (``empty="error"`` with
empty groups) must raise the same error class on the other engines.

Nothing here skips: without a PostgreSQL server or a Java runtime the fixtures fail, and so
does the suite.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY, MetricSpec, default_of
from sqlmetrics._engine.run import compute
from sqlmetrics._metrics.ranking_ir import COUNTS
from sqlmetrics._metrics.ranking_retrieval import NO_TIE_AVERAGE
from sqlmetrics.errors import SqlMetricsError

RTOL = 1e-9
ENGINES = ("duckdb", "postgres", "spark", "clickhouse")


# --------------------------------------------------------------------------- data
def _tables() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(20261123)
    n_groups, per_group = 100, 20
    n = n_groups * per_group
    g = np.repeat(np.arange(n_groups), per_group)
    rel = rng.integers(0, 4, n) * (rng.random(n) < 0.4)
    rel[g < 5] = 0  # five groups without a relevant item: the `empty` policies matter
    score = np.round(rng.random(n) * 0.6 + rel * 0.1, 2)  # ~70 distinct values: ties
    label = (rng.random(n) < 0.25 + 0.5 * score).astype("int64")
    classes = np.array(["a", "b", "c", "d"])
    cls = classes[rng.integers(0, 4, n)]
    noise = rng.random(n) < 0.35
    pcls = np.where(noise, classes[rng.integers(0, 3, n)], cls)  # "d" is never predicted
    pcls = np.where(pcls == "d", "c", pcls)
    country = np.array(["de", "fr", None], dtype=object)[g % 3]  # a NULL slice
    day = np.array(["mon", "tue"], dtype=object)[g % 2]  # a second slice column
    run = pd.DataFrame(
        {
            "g": g.astype("int64"),
            "item": (np.arange(n) * 7919 % 100_003).astype("int64"),
            "score": score,
            "rel": rel.astype("int64"),
            "label": label,
            "label_txt": np.where(label == 1, "yes", "no"),
            "pred": (score >= 0.4).astype("int64"),
            "w": np.round(rng.random(n) * 2 + 0.05, 3),
            "cls": cls,
            "pcls": pcls,
            "country": country,
            "day": day,
        }
    )
    # judgments: the run's relevant items, some judged items the run lacks, and three judged
    # groups the run does not hold at all (the `missing` policies matter)
    judged = run.loc[run["rel"] > 0, ["g", "item", "rel"]]
    extra = pd.DataFrame(
        {
            "g": np.r_[np.arange(10, 30), [1000, 1001, 1002]].astype("int64"),
            "item": np.r_[np.arange(20) + 200_000, [1, 2, 3]].astype("int64"),
            "rel": np.r_[np.ones(20), [2, 1, 3]].astype("int64"),
        }
    )
    qrels = pd.concat([judged, extra], ignore_index=True)
    # class scores in long form: 300 rows x 4 classes, one true class per row, tied scores
    n_rows = 300
    truth = rng.integers(0, 4, n_rows)
    raw = np.round(rng.random((n_rows, 4)) + 0.4 * (np.arange(4) == truth[:, None]), 1)
    scores = pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n_rows), 4).astype("int64"),
            "cls": np.tile(classes, n_rows),
            "score": raw.ravel(),
            "label": (np.arange(4) == truth[:, None]).astype("int64").ravel(),
            "w": np.repeat(np.round(rng.random(n_rows) * 2 + 0.05, 3), 4),
            "country": np.repeat(
                np.array(["de", "fr", None], dtype=object)[np.arange(n_rows) % 3], 4
            ),
            "day": np.repeat(np.array(["mon", "tue"], dtype=object)[np.arange(n_rows) % 2], 4),
        }
    )
    return {"parity_run": run, "parity_qrels": qrels, "parity_scores": scores}


TABLES = _tables()
# beyond-accuracy metrics: train= interactions (items repeat: popularity), some recommended
# items absent, some train items never recommended
_ITEMS = TABLES["parity_run"]["item"].to_numpy()
TABLES["parity_train"] = pd.DataFrame(
    {
        "item": np.r_[
            np.repeat(_ITEMS[::3], 1 + np.arange(len(_ITEMS[::3])) % 5), np.arange(50) + 300_000
        ].astype("int64")
    }
)


# --------------------------------------------------------------------------- cases
class HashableGains(dict):  # type: ignore[type-arg]
    """gains= as a mapping that can key a batch of cases (a dict with a hash)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


#: the values each option is run with, besides its default; every option of every registered
#: metric must be here (test_every_option_has_variants)
VALUES: dict[str, list[Any]] = {
    "k": [1, 5],
    "ties": ["item_asc", "average"],
    "gain": ["linear"],
    "empty": ["zero", "error", "one"],
    "missing": ["zero", "error"],
    "ap_denominator": ["min_k_relevant", "hits"],
    "relevance_level": [2],
    "duplicates": ["max", "sum"],
    "max_points": [5, 2],
    "zero_division": [0.0, 1.0],
    "threshold": [0.3],
    "beta": [0.5, 2.0],
    "weighting": ["positives", "uniform"],
    "bins": [16],
    "eps": [1e-7],
    "drop_intermediate": [True, False],
    "pos_label": ["yes"],
    # issue 14's classification metrics
    "adjusted": [True],
    "weights": ["linear", "quadratic"],
    "max_fpr": [0.5, 0.05],
    "n_bins": [3, 20],
    "strategy": ["quantile"],
    "multi_class": ["ovo"],
    "auc_average": ["weighted", "micro", "samples"],
    "ap_average": ["weighted", "micro", "samples"],
    "persistence": [0.5],
    "recall_level": [0.5],
    # issue 27's options
    "judged_only": [True],
    "gains": [HashableGains({0: 0, 1: 1, 2: 3})],
    "max_grade": [5],
    "recall_rounding": ["trec_eval_9"],
    "max_label_levels": [4],
    # scikit-learn's labels=: every class of the parity tables (top_k_accuracy needs them all)
    # in another order, and "x", absent from the data
    "labels": [("d", "b", "x", "a", "c")],
    # issue 13's options
    "log_base": [10.0],
    "precision_denominator": ["min_k_retrieved"],
    # issue 43's operating points
    "min_precision": [0.8, 0.0],
    "min_recall": [0.9, 1.0],
}

FAMILY_COLUMNS = {
    "binary": {"label": "label", "score": "score", "group": "g"},
    "ranking": {"label": "rel", "score": "score", "group": "g", "item": "item"},
    "multiclass": {"label": "cls", "prediction": "pcls"},
    # the long table of class scores (parity_scores): row id, class, score, 0/1 label
    "multiclass_scores": {"group": "row_id", "item": "cls", "score": "score", "label": "label"},
    "beyond": {"item": "item"},
}


def _family(spec: MetricSpec) -> str:
    roles = {r.name: r.kind for r in spec.roles}
    if spec.family in ("ranking", "multiclass_scores", "beyond"):
        return spec.family
    if spec.kernel == "ranking_kernel":  # the retrieval extras share the ranking kernel
        return "ranking"
    if roles.get("label") == "key":
        return "multiclass"
    return "binary"


@dataclass(frozen=True)
class Case:
    """One call: ``evaluate(metrics, **options)`` or ``compute(metric, **options)``."""

    id: str
    family: str
    metrics: tuple[str, ...]
    options: tuple[tuple[str, Any], ...] = ()
    weight: bool = False
    by: bool = False
    qrels: bool = False
    prediction: bool = False
    table: bool = False  # a table output (a curve, a report): through compute
    by_group: bool = False  # sliced by the group column (a judged group's own slice)


def _variants(spec: MetricSpec) -> Iterator[tuple[str, dict[str, Any], dict[str, bool]]]:
    """(variant name, options, flags) of one metric: its defaults, weights, two slice columns
    (one with a NULL slice) with weights, each option value, and qrels for `missing`; for the
    ranking metrics the expected ranks by slice and the judged groups by group too."""
    has_weight = any(r.name == "weight" for r in spec.roles)
    yield "default", {}, {}
    if has_weight:
        yield "weight", {}, {"weight": True}
    yield "by", {}, {"by": True, "weight": has_weight}
    if any(r.name == "prediction" and r.kind == "binary" for r in spec.roles):
        yield "prediction", {}, {"prediction": True}
    for param in spec.params:
        for value in VALUES[param]:
            if value == default_of(spec, param):
                continue
            options: dict[str, Any] = {param: value}
            flags: dict[str, bool] = {}
            if param in ("missing", "judged_only"):  # judged_only: a filter of qrels
                flags["qrels"] = True
            if param == "ap_denominator" and value == "min_k_relevant":
                options["k"] = 5  # min(k, R) needs a k
            yield f"{param}={value}", options, flags
    if spec.family == "ranking":
        yield "qrels", {}, {"qrels": True}
        # the shapes slices change: the expected ranks over slices, the judged groups absent
        # from the run counted in their group's slice
        if "ties" in spec.params:
            yield "ties=average,by", {"ties": "average"}, {"by": True}
        if "missing" in spec.params:
            yield "missing=zero,by=g", {"missing": "zero"}, {"qrels": True, "by_group": True}


#: option values a metric refuses by design (an error on every engine, compared by class)
REFUSED = (
    {(m, "ties", "average") for m in NO_TIE_AVERAGE}
    | {("hit_ratio", "empty", "one")}
    | {(m, "empty", "one") for m in COUNTS}
)


def _cases() -> list[Case]:
    """Scalar metrics of one family and one variant share one evaluate call."""
    batches: dict[tuple[Any, ...], list[str]] = {}
    tables: list[Case] = []
    for spec in REGISTRY.values():
        family = _family(spec)
        for name, options, flags in _variants(spec):
            key = (family, tuple(sorted(options.items())), tuple(sorted(flags.items())))
            refused = any((spec.name, p, v) in REFUSED for p, v in options.items())
            if refused:  # refused by design: alone, so its error does not hide the others
                tables.append(
                    Case(
                        f"{spec.name}[{name}]",
                        family,
                        (spec.name,),
                        tuple(sorted(options.items())),
                        **flags,
                    )
                )
            elif spec.output == "table":
                tables.append(
                    Case(
                        f"{spec.name}[{name}]",
                        family,
                        (spec.name,),
                        tuple(sorted(options.items())),
                        table=True,
                        **flags,
                    )
                )
            else:
                batches.setdefault(key, []).append(spec.name)
    cases = [
        Case(
            f"{family}[{','.join(f'{k}={v}' for k, v in options) or 'default'}"
            f"{''.join(f',{k}' for k, v in flags if v)}]",
            family,
            tuple(metrics),
            options,
            **dict(flags),
        )
        for (family, options, flags), metrics in batches.items()
    ]
    return cases + tables


CASES = _cases()


def run_case(case: Case, con: Any) -> pd.DataFrame | tuple[str, str]:
    """The case's result frame, or ``("error", class name, message)`` when it raises our error
    (outcomes compare by class: the message names the engine)."""
    options = dict(case.options)
    columns = dict(FAMILY_COLUMNS[case.family])
    if options.get("pos_label") is not None:
        columns["label"] = "label_txt"
    if case.weight:
        columns["weight"] = "w"
    if case.prediction:
        columns["prediction"] = "pred"
        columns.pop("score", None)
    qrels = "parity_qrels" if case.qrels else None
    train = {"train": "parity_train"} if case.family == "beyond" else {}
    if qrels is not None:
        columns.pop("label", None)
        columns["label"] = "rel"
    # two slice columns, one with a NULL slice; or the group column
    by = ["country", "day"] if case.by else "g" if case.by_group else None
    table = "parity_scores" if case.family == "multiclass_scores" else "parity_run"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case.table:
                spec = REGISTRY[case.metrics[0]]
                roles = {r.name: columns.get(r.name) for r in spec.roles}
                if case.prediction:
                    roles["score"] = None
                return compute(spec.name, table, con=con, columns=roles, params=options, by=by)
            metrics = list(case.metrics)
            k = options.pop("k", None)
            if k is not None:  # evaluate takes the cut-off in the name
                metrics = [f"{m}@{k}" for m in metrics]
            return sqlmetrics.evaluate(
                table, metrics, con=con, by=by, qrels=qrels, **columns, **options, **train
            )
    except SqlMetricsError as exc:
        return ("error", type(exc).__name__, str(exc)[:300])


def _same(a: Any, b: Any, rtol: float = RTOL) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            x, y = float(a), float(b)
        except (TypeError, ValueError):
            return False
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return math.isclose(x, y, rel_tol=rtol, abs_tol=1e-300)
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return bool(a == b) or str(a) == str(b)


def _normal(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(float(value)) else float(value)
    if isinstance(value, (np.integer, bool, np.bool_)):
        return int(value)
    return value


def assert_same(expected: Any, got: Any, where: str, rtol: float = RTOL) -> None:
    """Same outcome: the same error class, or the same columns, rows and order, values to
    ``rtol`` (1e-9)."""
    if isinstance(expected, tuple) or isinstance(got, tuple):
        same = isinstance(expected, tuple) and isinstance(got, tuple) and expected[:2] == got[:2]
        shown = [o if isinstance(o, tuple) else "a result" for o in (expected, got)]
        assert same, f"{where}: {shown[0]} on duckdb, {shown[1]} here"
        return
    assert list(expected.columns) == list(got.columns), f"{where}: columns differ"
    assert len(expected) == len(got), f"{where}: {len(expected)} rows vs {len(got)}"
    for column in expected.columns:
        for i, (a, b) in enumerate(zip(expected[column], got[column])):
            a, b = _normal(a), _normal(b)
            ok = (a is None and b is None) or (
                a is not None and b is not None and _same(a, b, rtol)
            )
            assert ok, f"{where}: column {column!r} row {i}: {a!r} (duckdb) vs {b!r}"
