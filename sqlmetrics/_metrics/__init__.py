"""The public metric functions, one module per family, named as ``sql/``'s folders
(``classification``, ``ranking``, ``calibration``, ``multiclass``, ``correlation``,
``beyond``; ``<family>_<topic>`` for a family's further modules). Each declares its metrics
in the registry and computes them through the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import (
    _api_beyond,
    _api_calibration,
    _api_classification,
    _api_classification_bounds,
    _api_classification_curves,
    _api_classification_separation,
    _api_correlation,
    _api_multiclass,
    _api_multiclass_agreement,
    _api_multiclass_roc,
    _api_ranking,
    _api_ranking_ir,
    _api_ranking_retrieval,
    beyond,
    calibration,
    classification,
    classification_bounds,
    classification_curves,
    classification_separation,
    correlation,
    multiclass,
    multiclass_agreement,
    multiclass_roc,
    ranking,
    ranking_ir,
    ranking_retrieval,
    ranking_trec,
)

FAMILY_MODULES = (
    _api_beyond,  # generated from beyond's declarations
    _api_calibration,  # generated from calibration's declarations
    _api_classification_curves,
    _api_classification_separation,
    _api_classification,  # classification's public functions, generated from its declarations
    _api_classification_bounds,
    _api_correlation,  # generated from correlation's declarations
    _api_ranking,  # the ranking families' public functions, generated from their declarations
    _api_ranking_ir,
    _api_ranking_retrieval,
    _api_multiclass,  # the multiclass families' public functions, generated likewise
    _api_multiclass_agreement,
    _api_multiclass_roc,
    beyond,
    calibration,
    classification,
    classification_bounds,
    classification_curves,
    classification_separation,
    correlation,
    multiclass,
    multiclass_agreement,
    multiclass_roc,
    ranking,
    ranking_ir,
    ranking_retrieval,
    ranking_trec,
)

#: every public function of the families by name (``MetricSpec.function`` names one):
#: ``evaluate(ci=)`` asks each metric's own function for its slices' intervals
FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: getattr(module, name) for module in FAMILY_MODULES for name in module.__all__
}
