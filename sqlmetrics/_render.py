"""``render``: the SQL a metric runs, to read or to paste into a warehouse."""

from __future__ import annotations

import os
from typing import Any

from ._engine import check_params, normalize_by, render_sql
from ._source import PARQUET_SUFFIXES, quote_literal, quote_table
from .errors import InvalidParameterError
from .registry import get_spec

# column a role reads when render() is not told otherwise: required roles, and the ranking label
# (optional only because qrels= may carry it); other optional roles (weight=, a threshold
# metric's prediction=) are left out unless given
ROLE_DEFAULTS = {
    "label": "label",
    "score": "score",
    "group": "group",
    "item": "item",
    "prediction": "prediction",
}


def render(
    metric: str,
    data: str | os.PathLike[str] = "source_table",
    *,
    by: str | list[str] | None = None,
    **params: Any,
) -> str:
    """Return the SQL that ``metric`` runs, without running it.

    Parameters
    ----------
    metric : str
        A registered metric name, e.g. ``"auc"`` or ``"ndcg"`` (see :func:`metric_names`).
    data : str or path, default "source_table"
        A table name (quoted as an identifier) or a Parquet/CSV path (read with DuckDB's
        ``read_parquet`` / ``read_csv``).
    by : str or list of str, optional
        Slice columns: one output row per distinct combination.
    **params
        Column names (``label="click"``, ``score="pctr"``, ``weight=``, ``group=``, ...) and
        the metric's options (``threshold=``, ``weighting=``, ``k=``, ...).

    Returns
    -------
    str
        The SQL text. Slice columns come out as ``slice_0``, ``slice_1``, ...

    Raises
    ------
    UnknownMetricError
        ``metric`` is not registered (the message suggests the nearest name).
    InvalidParameterError
        An option the metric does not accept, or a value out of range.

    Examples
    --------
    >>> import sqlmetrics
    >>> print(sqlmetrics.render("precision", "events", label="click", threshold=0.3))
    ... # doctest: +ELLIPSIS
    with source as (...
    """
    spec = get_spec(metric)
    columns: dict[str, str | None] = {}
    for role in spec.roles:
        conventional = role.required or role.name == "label"  # ranking: label or qrels
        value = params.pop(role.name, ROLE_DEFAULTS.get(role.name) if conventional else None)
        if role.name == "score" and params.get("prediction"):
            value = None
        columns[role.name] = value
    if "prediction" in columns and columns["prediction"] is None and columns.get("score") is None:
        columns["score"] = "score"
    if not isinstance(data, (str, os.PathLike)):
        raise InvalidParameterError(
            f"render: data= must be a table name or a file path; got {type(data).__name__} "
            f"(a DataFrame has no SQL name: register it on a connection and pass that name)"
        )
    path = os.fspath(data)
    if path.lower().endswith(PARQUET_SUFFIXES):
        relation = f"read_parquet({quote_literal(path)})"
    elif path.lower().endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")):
        relation = f"read_csv({quote_literal(path)}, header = true)"
    else:
        relation = quote_table(path)
    checked = check_params(spec, params)
    return render_sql(spec, relation, columns, checked, normalize_by(spec.name, by))
