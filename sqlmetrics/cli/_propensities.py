"""``sqlmetrics propensities DATA --position pos --click clicked``: the examination
propensity of each position from a click log with randomised top positions
(``position_propensities``, the RandTop-n estimator), with intervals; printed as a table, CSV
or JSON. Its CSV or Parquet output (``--output``) is what ``sqlmetrics clicks --propensity``
reads. Exit 0, or 2 on bad input.
"""

from __future__ import annotations

from typing import Any

import click

from ._io import COMMAND_FLAGS, ENGINE_CON, data_options, friendly, inputs_argument
from ._tables import print_table, table_options

#: the arguments of position_propensities() that `propensities` sets itself, and the flag
COMMAND_FLAGS["propensities"] = {
    "data": "DATA",
    "click": "--click",
    "by": "--by",
    "con": ENGINE_CON,
}


@click.command("propensities")
@inputs_argument
@click.option("--position", required=True, help="Position column (an integer, 1 at the top).")
@click.option("--click", "click_column", required=True, help="Click column (1 clicked, else 0).")
@click.option(
    "--intervention",
    default=None,
    help="Boolean or 0/1 column marking the randomised impressions (only those are read). "
    "Default: every row is of a randomised impression.",
)
@data_options("by", "where", by={"help": "Slice column (repeatable): propensities per slice."})
@click.option(
    "--max-position",
    default=None,
    type=int,
    help="Number of top positions that were shuffled; rows below it are left out.",
)
@click.option("--ci-level", default=0.95, show_default=True, type=float, help="Level of lo and hi.")
@table_options
@friendly
def propensities_command(
    inputs: tuple[str, ...],
    position: str,
    click_column: str,
    intervention: str | None,
    by: tuple[str, ...],
    where: str | None,
    max_position: int | None,
    ci_level: float,
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
) -> None:
    """Estimate each position's examination propensity, relative to position 1, from DATA, a
    click log (one row per impression) whose top positions were shown in a random order.
    """
    from .._evaluate._api_position_bias import position_propensities

    def call(data: Any, con: Any) -> Any:
        return position_propensities(
            data,
            position=position,
            click=click_column,
            intervention=intervention,
            by=list(by) or None,
            max_position=max_position,
            ci_level=ci_level,
            con=con,
        )

    print_table(call, inputs, where, fmt, output, db_url, spark_master)
