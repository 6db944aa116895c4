"""Errors and warnings raised by sqlmetrics.

Every error subclasses :class:`SqlMetricsError` and :class:`ValueError`, so code that already
catches ``ValueError`` (as it would for scikit-learn) keeps working. Messages name the metric,
the argument, the value received, what is allowed and, where there is one, the nearest fix.
"""

from __future__ import annotations

import os
import sys
import warnings

from jinja2.exceptions import SecurityError

__all__ = [
    "ColumnNotFoundError",
    "DataSourceError",
    "EngineError",
    "InvalidDataError",
    "InvalidParameterError",
    "SkippedGroupsWarning",
    "SqlMetricsError",
    "TemplateContractError",
    "TemplateSecurityError",
    "TieOrderWarning",
    "UndefinedMetricWarning",
    "UnknownMetricError",
]


class SqlMetricsError(ValueError):
    """Base class of every error sqlmetrics raises on purpose."""


class InvalidParameterError(SqlMetricsError):
    """An argument (threshold, beta, k, weighting, ...) is outside its allowed values."""


class TemplateContractError(InvalidParameterError):
    """A user's metric template breaks the template contract (decision 0007); names the file."""


class TemplateSecurityError(TemplateContractError, SecurityError):
    """A template did what the sandbox forbids (Python internals such as ``__globals__``);
    names the file and line. Also a :class:`jinja2.exceptions.SecurityError`.
    """


class ColumnNotFoundError(SqlMetricsError):
    """A column named by ``label=``, ``score=``, ``group=``, ... is not in the data."""


class DataSourceError(SqlMetricsError):
    """``data`` (or ``qrels``) cannot be read: no such table or file, or an unsupported type."""


class InvalidDataError(SqlMetricsError):
    """The data hold values the metric cannot use: NULLs, NaN scores, labels outside {0, 1}..."""


class EngineError(SqlMetricsError):
    """The engine failed on data we could not check beforehand; holds the engine's message."""


class UnknownMetricError(SqlMetricsError):
    """A metric name that is not in the registry."""


class UndefinedMetricWarning(UserWarning):
    """The data leave a metric undefined (one class only, no group left, 0 / 0): NaN returned."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class SkippedGroupsWarning(UserWarning):
    """A ranking mean left out groups by the default policy (``empty="skip"``), not by choice."""


class TieOrderWarning(UserWarning):
    """A convention's tool orders equal scores in a way SQL cannot reproduce (ranx: numba's
    unstable quicksort on lists of 16 or more items), and the value depends on that order.
    """


def warn(message: str, category: type[Warning] = UndefinedMetricWarning) -> None:
    """``warnings.warn`` pointing at the first caller outside the sqlmetrics package.

    A fixed ``stacklevel`` points into the library whenever the call path changes (a metric
    called directly, through ``evaluate``, through the CLI); walking the frames does not.
    """
    level = 1
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
        _PACKAGE + os.sep
    ):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level + 1)


#: sqlmetrics' own warning classes, every one defined above (the report's page shows these;
#: a warning of an engine's client or another library is passed on to the caller only)
OWN_WARNINGS: tuple[type[Warning], ...] = tuple(
    value
    for value in list(globals().values())
    if isinstance(value, type) and issubclass(value, Warning) and value.__module__ == __name__
)
