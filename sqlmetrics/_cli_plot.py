"""``sqlmetrics plot roc|pr DATA ... --output FILE.png``: draw a curve to an image file.

Registered on the main command group by ``sqlmetrics/cli.py`` (``main.add_command(plot)``).
Bad input (a missing file or column, labels outside {0, 1}, no matplotlib) prints one line
on stderr and exits 2.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click
import duckdb

from .errors import SqlMetricsError

F = TypeVar("F", bound=Callable[..., Any])
IMAGE_SUFFIXES = (".png", ".svg", ".pdf")


class PlotInputError(click.ClickException):
    """A user error: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"sqlmetrics: error: {self.format_message()}", err=True)


def _friendly(func: F) -> F:
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (SqlMetricsError, ImportError) as exc:
            raise PlotInputError(str(exc)) from None
        except duckdb.Error as exc:
            lines = str(exc).strip().splitlines()
            raise PlotInputError(
                f"the query failed: {lines[0] if lines else type(exc).__name__}"
            ) from None

    return wrapper  # type: ignore[return-value]


def _split(data: str) -> tuple[str, str | None]:
    """``"w.duckdb:events"`` -> (``"events"``, ``"w.duckdb"``); anything else -> (data, None)."""
    head, sep, tail = data.rpartition(":")
    if sep and head and tail and os.path.isfile(head) and not os.path.isfile(data):
        return tail, head
    return data, None


def _draw(kind: str, data: str, label: str, score: str, weight: str | None,
          by: tuple[str, ...], max_points: int | None, output: str) -> None:
    if not output.lower().endswith(IMAGE_SUFFIXES):
        raise PlotInputError(
            f"plot {kind}: --output {output!r} must end in {', '.join(IMAGE_SUFFIXES)}, "
            f"e.g. --output {kind}.png"
        )
    from . import plot as plots

    table, database = _split(data)
    con = duckdb.connect(database or ":memory:", read_only=database is not None)
    try:
        draw = plots.roc if kind == "roc" else plots.pr
        figure = draw(table, label=label, score=score, weight=weight, by=list(by) or None,
                      max_points=max_points, con=con)
    finally:
        con.close()
    figure.savefig(output, dpi=120)
    click.echo(f"wrote {output}", err=True)


def _options(func: F) -> F:
    decorators = [
        click.argument("data"),
        click.option("--label", default="label", show_default=True, help="Label column (0/1)."),
        click.option("--score", default="score", show_default=True, help="Score column."),
        click.option("--weight", default=None, help="Sample-weight column."),
        click.option("--by", multiple=True, help="Slice column (repeatable): one curve each."),
        click.option("--max-points", default=2000, show_default=True,
                     type=click.IntRange(min=2), help="Points per curve (score quantiles)."),
        click.option("--output", "-o", required=True, type=click.Path(dir_okay=False),
                     help="Image file to write (.png, .svg or .pdf)."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group("plot")
def plot() -> None:
    """Draw ROC or precision-recall curves of DATA to an image file."""


@plot.command("roc")
@_options
@_friendly
def roc_command(data: str, label: str, score: str, weight: str | None, by: tuple[str, ...],
                max_points: int, output: str) -> None:
    """ROC curve of DATA (a Parquet/CSV path or glob, or path/to/db.duckdb:table), AUC in the
    legend."""
    _draw("roc", data, label, score, weight, by, max_points, output)


@plot.command("pr")
@_options
@_friendly
def pr_command(data: str, label: str, score: str, weight: str | None, by: tuple[str, ...],
               max_points: int, output: str) -> None:
    """Precision-recall curve of DATA, average precision in the legend."""
    _draw("pr", data, label, score, weight, by, max_points, output)
