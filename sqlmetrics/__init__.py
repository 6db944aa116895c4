"""sqlmetrics: classification, CTR and ranking metrics computed in SQL, where the data lives.

Each metric is one SQL query whose header states its exact definition (ties, gains,
denominators, undefined cases). It runs in DuckDB, embedded, over a pandas DataFrame, an Arrow
table, Parquet/CSV files and folders (globs too) or a DuckDB table; with ``con=`` on
PostgreSQL (a SQLAlchemy engine or connection), Spark (a SparkSession) or ClickHouse (a chdb
session, a clickhouse_connect client), next to the data.

>>> import pandas as pd
>>> import sqlmetrics
>>> clicks = pd.DataFrame({
...     "label": [1, 0, 1, 0, 0, 1],
...     "score": [0.9, 0.4, 0.7, 0.3, 0.8, 0.6],
...     "country": ["de", "de", "de", "fr", "fr", "fr"],
... })
>>> sqlmetrics.auc(clicks)
0.7777777777777778
>>> sqlmetrics.auc(clicks, ci=0.95)
Interval(value=0.7777777777777778, lo=0.2908208107907882, hi=1.0, level=0.95, method='delong')

Many metrics, per slice, in one statement:

>>> sqlmetrics.evaluate(clicks, ["auc", "log_loss", "precision"], by="country", threshold=0.5)
  country  auc  log_loss  precision  n_rows
0      de  1.0  0.324287        1.0       3
1      fr  0.5  0.825646        0.5       3

Ranking metrics over groups (queries, users), with graded labels:

>>> run = pd.DataFrame({
...     "query": [1, 1, 1, 2, 2], "doc": ["a", "b", "c", "a", "d"],
...     "score": [3.0, 2.0, 1.0, 2.0, 1.0], "rel": [0, 2, 1, 1, 0],
... })
>>> sqlmetrics.ndcg(run, k=3, group="query", item="doc", label="rel")
0.8295009024012067

Where to read on: each function's own help (``help(sqlmetrics.ndcg)``: definition, options,
references, examples); :func:`metric_names` and ``sqlmetrics list`` for every metric and its
ir_measures and trec_eval names; :func:`evaluate`, :func:`compare` (paired tests),
:func:`state`/:func:`merge` (mergeable states), :func:`report` (an offline HTML page) and
:func:`render` (the SQL itself); ``sqlmetrics --help`` for the command line; the
documentation site (``docs/``: ``pip install -e ".[docs]" && mkdocs serve``) for the recipes,
the concepts, every metric's page, the dbt package and this reference.

Every public name is here, in :data:`__all__`. The modules behind them are private, grouped by
layer (docs/decisions/0012-layout.md); ``sqlmetrics.plot`` (matplotlib, imported only when
plotting) and ``sqlmetrics.errors`` are public modules.
"""

from __future__ import annotations

from . import errors as errors
from . import plot as plot
from ._backends.config import configure
from ._core.conventions import convention_names
from ._core.names import metric_names
from ._engine._api_render import render_evaluate
from ._engine.user import load_metrics_dir, register_sql, registered_sql, unregister_sql
from ._evaluate._api_evaluate import evaluate
from ._evaluate._api_monitor import metric_anomalies
from ._evaluate._api_off_policy import off_policy_value
from ._evaluate._api_position_bias import click_metrics, position_propensities
from ._evaluate._api_report import report
from ._evaluate._api_state import merge, render_state, state
from ._inference._api_compare import compare
from ._inference.intervals import Interval
from ._inference.rendering import render
from ._metrics._api_beyond import catalog_coverage, distributional_coverage, gini_index, novelty
from ._metrics._api_calibration import (
    calibration_curve,
    calibration_ratio,
    expected_calibration_error,
    normalized_entropy,
)
from ._metrics._api_classification import (
    accuracy,
    auc,
    confusion_matrix,
    f1,
    fbeta,
    fpr,
    gauc,
    precision,
    recall,
    specificity,
)
from ._metrics._api_classification_bounds import auc_bounds
from ._metrics._api_classification_curves import (
    average_precision,
    brier_score,
    log_loss,
    pr_curve,
    roc_curve,
)
from ._metrics._api_classification_separation import (
    ks_point,
    ks_statistic,
    lift_table,
    operating_points,
    partial_auc,
    precision_at_recall,
    recall_at_precision,
    tpr_at_fpr,
)
from ._metrics._api_correlation import kendall_tau, spearman
from ._metrics._api_multiclass import classification_report, mcc, multiclass_confusion_matrix
from ._metrics._api_multiclass_agreement import (
    balanced_accuracy,
    cohen_kappa,
    hamming_loss,
    jaccard,
)
from ._metrics._api_multiclass_roc import (
    multiclass_auc,
    multilabel_average_precision,
    top_k_accuracy,
)
from ._metrics._api_ranking import (
    cg,
    dcg,
    hit_rate,
    hit_ratio,
    idcg,
    mean_average_precision,
    mrr,
    ndcg,
    precision_at_k,
    r_precision,
    recall_at_k,
)
from ._metrics._api_ranking_ir import (
    err,
    infap,
    judged,
    num_q,
    num_rel,
    num_rel_ret,
    num_ret,
    set_f,
    set_precision,
    set_recall,
)
from ._metrics._api_ranking_retrieval import (
    bpref,
    fallout,
    gm_map,
    iprec_11pt_avg,
    iprec_at_recall,
    rbp,
)
from ._metrics.ranking_trec import read_trec_qrels, read_trec_run
from .errors import (
    ColumnNotFoundError,
    DataSourceError,
    EngineError,
    InvalidDataError,
    InvalidParameterError,
    SkippedGroupsWarning,
    SqlMetricsError,
    TemplateContractError,
    TemplateSecurityError,
    TieOrderWarning,
    UndefinedMetricWarning,
    UnknownMetricError,
)

__version__ = "0.1.0"

__all__ = [
    "ColumnNotFoundError",
    "DataSourceError",
    "EngineError",
    "Interval",
    "InvalidDataError",
    "InvalidParameterError",
    "SkippedGroupsWarning",
    "SqlMetricsError",
    "TemplateContractError",
    "TemplateSecurityError",
    "TieOrderWarning",
    "UndefinedMetricWarning",
    "UnknownMetricError",
    "accuracy",
    "auc",
    "auc_bounds",
    "average_precision",
    "balanced_accuracy",
    "bpref",
    "brier_score",
    "calibration_curve",
    "calibration_ratio",
    "catalog_coverage",
    "cg",
    "classification_report",
    "click_metrics",
    "cohen_kappa",
    "compare",
    "configure",
    "confusion_matrix",
    "convention_names",
    "dcg",
    "distributional_coverage",
    "err",
    "evaluate",
    "expected_calibration_error",
    "f1",
    "fallout",
    "fbeta",
    "fpr",
    "gauc",
    "gini_index",
    "gm_map",
    "hamming_loss",
    "hit_rate",
    "hit_ratio",
    "idcg",
    "infap",
    "iprec_11pt_avg",
    "iprec_at_recall",
    "jaccard",
    "judged",
    "kendall_tau",
    "ks_point",
    "ks_statistic",
    "lift_table",
    "load_metrics_dir",
    "log_loss",
    "mcc",
    "mean_average_precision",
    "merge",
    "metric_anomalies",
    "metric_names",
    "mrr",
    "multiclass_auc",
    "multiclass_confusion_matrix",
    "multilabel_average_precision",
    "ndcg",
    "normalized_entropy",
    "novelty",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "off_policy_value",
    "operating_points",
    "partial_auc",
    "position_propensities",
    "pr_curve",
    "precision",
    "precision_at_k",
    "precision_at_recall",
    "r_precision",
    "rbp",
    "read_trec_qrels",
    "read_trec_run",
    "recall",
    "recall_at_k",
    "recall_at_precision",
    "register_sql",
    "registered_sql",
    "render",
    "render_evaluate",
    "render_state",
    "report",
    "roc_curve",
    "set_f",
    "set_precision",
    "set_recall",
    "spearman",
    "specificity",
    "state",
    "top_k_accuracy",
    "tpr_at_fpr",
    "unregister_sql",
]
