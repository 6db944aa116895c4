"""sqlmetrics: classification, CTR and ranking metrics computed in SQL, where the data lives.

Each metric is one Jinja-templated SQL query (``sql/``), rendered and run in DuckDB over a
table, Parquet/CSV files, a DataFrame, an Arrow table or a DuckDB relation.
"""

from __future__ import annotations

from . import (
    agreement,
    beyond,
    bounds,
    calibration,
    correlation,
    curves,
    multiclass,
    multiclass_roc,
    ranking,
    retrieval,
    separation,
    trec,
)
from . import plot as plot  # the submodule: matplotlib is imported only when plotting
from ._backends.config import configure
from ._render import render, render_evaluate
from .agreement import *  # noqa: F403
from .beyond import *  # noqa: F403
from .bounds import *  # noqa: F403
from .calibration import *  # noqa: F403
from .classification import (
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
from .compare import compare
from .conventions import convention_names
from .correlation import *  # noqa: F403
from .curves import *  # noqa: F403
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
from .evaluate import evaluate
from .intervals import Interval
from .multiclass import *  # noqa: F403
from .multiclass_roc import *  # noqa: F403
from .names import metric_names
from .ranking import *  # noqa: F403
from .retrieval import *  # noqa: F403
from .separation import *  # noqa: F403
from .trec import *  # noqa: F403
from .user import load_metrics_dir, register_sql, registered_sql, unregister_sql

__version__ = "0.1.0"

__all__ = [
    "ColumnNotFoundError",
    "DataSourceError",
    "EngineError",
    "Interval",
    "InvalidDataError",
    "InvalidParameterError",
    "SqlMetricsError",
    "TemplateContractError",
    "TemplateSecurityError",
    "SkippedGroupsWarning",
    "TieOrderWarning",
    "UndefinedMetricWarning",
    "UnknownMetricError",
    "accuracy",
    "auc",
    "compare",
    "configure",
    "confusion_matrix",
    "evaluate",
    "f1",
    "fbeta",
    "fpr",
    "gauc",
    "load_metrics_dir",
    "convention_names",
    "metric_names",
    "precision",
    "register_sql",
    "registered_sql",
    "recall",
    "render",
    "render_evaluate",
    "specificity",
    "unregister_sql",
    *agreement.__all__,
    *bounds.__all__,
    *calibration.__all__,
    *beyond.__all__,
    *correlation.__all__,
    *curves.__all__,
    *multiclass.__all__,
    *multiclass_roc.__all__,
    *ranking.__all__,
    *separation.__all__,
    *retrieval.__all__,
    *trec.__all__,
]
