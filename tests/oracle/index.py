"""Which oracle checks which registered metric: the "oracle" step of adding a metric.

``tests/test_completeness.py`` asserts that these keys are exactly the registry's names, so a
metric without an oracle (or an oracle of a metric no longer registered) fails the suite.
Name-dispatched oracles are bound to the metric's name here.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from oracle import agreement as oag
from oracle import beyond as oby
from oracle import bounds as ob
from oracle import calibration as ocal
from oracle import classification as oc
from oracle import correlation as ocr
from oracle import curves as ocv
from oracle import ir as oir
from oracle import multiclass as om
from oracle import multiclass_auc as omauc
from oracle import ranking as orr
from oracle import retrieval as ort
from oracle import separation as osep

_THRESHOLD = ("accuracy", "precision", "recall", "specificity", "fpr", "f1", "fbeta")
_RANKING = (
    "hit_ratio",
    "hit_rate",
    "precision_at_k",
    "recall_at_k",
    "r_precision",
    "map",
    "mrr",
    "cg",
    "dcg",
    "idcg",
    "ndcg",
)
_RETRIEVAL = ("rbp", "fallout", "bpref", "iprec_at_recall", "iprec_11pt_avg", "gm_map")
_IR = ("err", "infap", "judged", "set_precision", "set_recall", "set_f", *oir.COUNTS)
# multiclass f1 is fbeta with beta=1 (the oracle's per-class "fbeta" column)
_AVERAGED = {"precision": "precision", "recall": "recall", "f1": "fbeta", "fbeta": "fbeta"}

ORACLES: dict[str, Callable[..., Any]] = {
    "auc": oc.auc,
    "gauc": oc.gauc,
    "confusion_matrix": oc.confusion,
    **{name: partial(oc.threshold_metric, name) for name in _THRESHOLD},
    "roc_curve": ocv.roc_curve,
    "pr_curve": ocv.pr_curve,
    "average_precision": ocv.average_precision,
    "log_loss": ocv.log_loss,
    "brier_score": ocv.brier_score,
    "auc_bounds": ob.auc_bounds,
    "classification_report": om.per_class,
    "multiclass_confusion_matrix": om.confusion,
    "mcc": om.mcc,
    **{
        f"{metric}_{average}": partial(om.averaged, column, average)
        for metric, column in _AVERAGED.items()
        for average in ("macro", "micro", "weighted")
    },
    **{name: partial(orr.metric, name) for name in _RANKING},
    "normalized_entropy": ocal.normalized_entropy,
    "calibration_ratio": ocal.calibration_ratio,
    "expected_calibration_error": ocal.expected_calibration_error,
    "calibration_curve": ocal.calibration_curve,
    "ks_statistic": osep.ks_statistic,
    "ks_point": osep.ks_point,
    "partial_auc": osep.partial_auc,
    "recall_at_precision": osep.recall_at_precision,
    "precision_at_recall": osep.precision_at_recall,
    "tpr_at_fpr": osep.tpr_at_fpr,
    "operating_points": osep.operating_points,
    "lift_table": osep.lift_table,
    "balanced_accuracy": oag.balanced_accuracy,
    "cohen_kappa": oag.cohen_kappa,
    "hamming_loss": oag.hamming_loss,
    "multiclass_auc": omauc.multiclass_auc,
    "top_k_accuracy": omauc.top_k_accuracy,
    "multilabel_average_precision": omauc.multilabel_average_precision,
    **{f"jaccard_{a}": partial(oag.jaccard, average=a) for a in ("macro", "micro", "weighted")},
    "spearman": ocr.spearman,
    "kendall_tau": ocr.kendall_tau,
    **{name: partial(ort.metric, name) for name in _RETRIEVAL},
    **{name: partial(oir.metric, name) for name in _IR},
    "catalog_coverage": oby.catalog_coverage,
    "distributional_coverage": oby.distributional_coverage,
    "gini_index": oby.gini_index,
    "novelty": oby.novelty,
}
