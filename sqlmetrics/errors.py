"""Errors and warnings raised by sqlmetrics.

Every error subclasses :class:`SqlMetricsError` and :class:`ValueError`, so code that already
catches ``ValueError`` (as it would for scikit-learn) keeps working. Messages name the metric,
the argument, the value received, what is allowed and, where there is one, the nearest fix.
"""

from __future__ import annotations

__all__ = [
    "ColumnNotFoundError",
    "DataSourceError",
    "InvalidDataError",
    "InvalidParameterError",
    "SqlMetricsError",
    "UndefinedMetricWarning",
    "UnknownMetricError",
]


class SqlMetricsError(ValueError):
    """Base class of every error sqlmetrics raises on purpose."""


class InvalidParameterError(SqlMetricsError):
    """An argument (threshold, beta, k, weighting, ...) is outside its allowed values."""


class ColumnNotFoundError(SqlMetricsError):
    """A column named by ``label=``, ``score=``, ``group=``, ... is not in the data."""


class DataSourceError(SqlMetricsError):
    """``data`` (or ``qrels``) cannot be read: no such table or file, or an unsupported type."""


class InvalidDataError(SqlMetricsError):
    """The data hold values the metric cannot use: NULLs, NaN scores, labels outside {0, 1}..."""


class UnknownMetricError(SqlMetricsError):
    """A metric name that is not in the registry."""


class UndefinedMetricWarning(UserWarning):
    """The data leave a metric undefined (one class only, no group left, 0 / 0): NaN returned."""
