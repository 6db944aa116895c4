"""What the commands that print one table of a library function over DATA share
(``off-policy``, ``propensities``, ``clicks``): ``--format`` (table, CSV or JSON),
``--output``, ``--db-url`` and ``--spark``, and the run: DATA read on its engine, ``--where``
applied, the function called with ``con=``, its table printed. Bad input exits 2 (``friendly``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from ._engines import engine_connection, engine_data, engine_options
from ._io import filtered, format_frame, output_option, output_over_input, write

F = TypeVar("F", bound=Callable[..., Any])


def table_options(func: F) -> F:
    """``--format``, ``--output``, ``--db-url`` and ``--spark`` (in this order in --help)."""
    func = engine_options()(func)
    func = output_option(func)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "csv", "json"]),
        default="table",
        show_default=True,
        help="Output format.",
    )(func)


def print_table(
    call: Callable[[Any, Any], Any],
    inputs: tuple[str, ...],
    where: str | None,
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
    reads: Sequence[tuple[str, str]] = (),
) -> None:
    """``call(data, con)`` on DATA (``inputs``) read where it lies, keeping the rows of
    ``where``, its table written as ``fmt`` to ``output`` or stdout; ``reads``: the other
    files the command reads (flag, path), which ``--output`` may not overwrite either.
    """
    output_over_input(output, inputs, None, also=reads)
    table, database = engine_data(inputs, db_url, spark_master)
    with engine_connection(database, db_url, spark_master) as con:
        result = call(filtered(table, con, where), con)
    write(format_frame(result, fmt), output)
