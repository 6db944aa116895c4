"""``sqlmetrics clicks DATA --group q --position pos --click clicked --score new
--propensity props.csv``: click metrics of a new ranking from a logged one, each click
weighted by the inverse of its logged position's propensity (``click_metrics``); printed as a
table, CSV or JSON. ``--propensity`` is a column of DATA, or a CSV or Parquet file with the
columns position and propensity (what ``sqlmetrics propensities --output`` writes). Exit 0,
or 2 on bad input.
"""

from __future__ import annotations

import os
from typing import Any

import click

from ._io import (
    COMMAND_FLAGS,
    ENGINE_CON,
    InputError,
    data_options,
    friendly,
    inputs_argument,
    parse_value,
)
from ._tables import print_table, table_options

#: the arguments of click_metrics() that `clicks` sets itself, and the flag of each
COMMAND_FLAGS["clicks"] = {
    "data": "DATA",
    "click": "--click",
    "by": "--by",
    "metrics": "--metric",
    "con": ENGINE_CON,
}

#: the suffixes of a --propensity file (a value without one, and no such file, is a column)
FILE_SUFFIXES = (".csv", ".parquet", ".pq")


def propensity_argument(value: str) -> tuple[Any, str | None]:
    """``--propensity``: a file's table (position, propensity) and its path, or a column."""
    if not (value.lower().endswith(FILE_SUFFIXES) or os.path.isfile(value)):
        return value, None
    if not os.path.isfile(value):
        raise InputError(
            f"--propensity {value!r}: no such file (a CSV or Parquet file with the columns "
            f"position and propensity, as `sqlmetrics propensities --output` writes it, or a "
            f"column of DATA)"
        )
    import pandas as pd

    try:
        if value.lower().endswith(".csv"):
            # exact floats: pandas 3 parses round-trip by default (and deprecates the option)
            exact = {"float_precision": "round_trip"} if pd.__version__ < "3" else {}
            return pd.read_csv(value, **exact), value
        return pd.read_parquet(value), value
    except (OSError, ValueError) as exc:
        message = str(exc).strip().splitlines()
        raise InputError(
            f"--propensity {value!r} cannot be read as "
            f"{'CSV' if value.lower().endswith('.csv') else 'Parquet'}: "
            f"{message[0] if message else type(exc).__name__}"
        ) from None


@click.command("clicks")
@inputs_argument
@click.option("--group", required=True, help="Group column (query, session, user).")
@click.option("--position", required=True, help="Logged position column (1 at the top).")
@click.option("--click", "click_column", required=True, help="Click column (1 clicked, else 0).")
@click.option("--score", required=True, help="The new ranker's score column (higher first).")
@click.option(
    "--propensity",
    required=True,
    metavar="COLUMN|FILE",
    help="Propensity of the logged position: a column of DATA, or a CSV/Parquet file with the "
    "columns position and propensity (sqlmetrics propensities --output FILE).",
)
@click.option(
    "--k",
    default="10",
    show_default=True,
    metavar="K|none",
    help="Cut-off of the new ranking; none for the whole list.",
)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="ctr, dcg or recall (repeatable, in the output's order). Default: all three.",
)
@data_options("by", "where", by={"help": "Slice column (repeatable): one row per slice."})
@table_options
@friendly
def clicks_command(
    inputs: tuple[str, ...],
    group: str,
    position: str,
    click_column: str,
    score: str,
    propensity: str,
    k: str,
    metrics: tuple[str, ...],
    by: tuple[str, ...],
    where: str | None,
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
) -> None:
    """Click metrics (ctr@k, dcg@k, recall@k) of a new ranking of DATA's logged groups,
    corrected for position bias by inverse propensity weighting.
    """
    from .._evaluate._api_position_bias import click_metrics
    from .._evaluate.position_bias import METRICS

    table, path = propensity_argument(propensity)
    cut = parse_value(k)

    def call(data: Any, con: Any) -> Any:
        return click_metrics(
            data,
            group=group,
            position=position,
            click=click_column,
            score=score,
            propensity=table,
            k=cut,
            metrics=list(metrics) or METRICS,
            by=list(by) or None,
            con=con,
        )

    reads = [] if path is None else [("--propensity", path)]
    print_table(call, inputs, where, fmt, output, db_url, spark_master, reads)
