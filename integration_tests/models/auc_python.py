"""A dbt Python model (dbt-duckdb) calling the sqlmetrics Python API on a dbt relation.

dbt-duckdb hands the model its connection (``session``) and ``dbt.ref`` returns a DuckDB
relation; ``con=session`` runs the metric on that connection. Enabled on DuckDB targets only
(dbt_project.yml): dbt-postgres runs no Python models.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

import sqlmetrics


def model(dbt: Any, session: Any) -> pd.DataFrame:
    """The AUC of the click model over all rows, one row."""
    dbt.config(materialized="table")
    predictions = dbt.ref("predictions")
    value = sqlmetrics.auc(predictions, label="click", score="pctr", con=session)
    return pd.DataFrame({"auc": [value]})
