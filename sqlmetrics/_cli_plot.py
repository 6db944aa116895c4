"""``sqlmetrics plot roc|pr|calibration|gains DATA ... --output FILE.png``: draw a curve to
an image file.

Registered on the main command group by ``sqlmetrics/cli.py`` (``main.add_command(plot)``).
Bad input (a missing file or column, labels outside {0, 1}, no matplotlib) prints one line
on stderr and exits 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ._cli_io import InputError, check_output, connection, friendly, resolve_data, write_file

F = TypeVar("F", bound=Callable[..., Any])
IMAGE_SUFFIXES = (".png", ".svg", ".pdf")


def _draw(
    kind: str,
    data: tuple[str, ...],
    label: str,
    score: str,
    weight: str | None,
    by: tuple[str, ...],
    max_points: int | None,
    output: str,
    option_pairs: tuple[str, ...] = (),
) -> None:
    if not output.lower().endswith(IMAGE_SUFFIXES):
        raise InputError(
            f"plot {kind}: --output {output!r} must end in {', '.join(IMAGE_SUFFIXES)}, "
            f"e.g. --output {kind}.png"
        )
    from . import plot as plots
    from .cli import parse_options

    options = parse_options(option_pairs)
    unknown = sorted(set(options) - {"pos_label"})
    if unknown:
        raise InputError(
            f"plot {kind}: --option {unknown[0]}= is not an option of a curve; "
            f"the one it takes is --option pos_label="
        )
    table, database = resolve_data(data)
    with connection(database) as con:
        draw = plots.roc if kind == "roc" else plots.pr
        figure = draw(
            table,
            label=label,
            score=score,
            weight=weight,
            by=list(by) or None,
            max_points=max_points,
            con=con,
            pos_label=options.get("pos_label"),
        )
    write_file(output, lambda path: figure.savefig(path, dpi=120))
    click.echo(f"wrote {output}", err=True)


def _options(func: F) -> F:
    decorators = [
        click.argument("data", metavar="DATA...", nargs=-1, required=True),
        click.option("--label", default="label", show_default=True, help="Label column (0/1)."),
        click.option("--score", default="score", show_default=True, help="Score column."),
        click.option("--weight", default=None, help="Sample-weight column."),
        click.option("--by", multiple=True, help="Slice column (repeatable): one curve each."),
        click.option(
            "--max-points",
            default=2000,
            show_default=True,
            type=click.IntRange(min=2),
            help="Points per curve (score quantiles).",
        ),
        click.option(
            "--option",
            "option_pairs",
            multiple=True,
            metavar="NAME=VALUE",
            help="pos_label=VALUE: the positive class of a two-valued label column.",
        ),
        click.option(
            "--output",
            "-o",
            required=True,
            type=click.Path(dir_okay=False),
            callback=check_output,
            help="Image file to write (.png, .svg or .pdf).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group("plot")
def plot() -> None:
    """Draw ROC, precision-recall, calibration or cumulative gains curves of DATA to an
    image file.
    """


@plot.command("roc")
@_options
@friendly
def roc_command(
    data: tuple[str, ...],
    label: str,
    score: str,
    weight: str | None,
    by: tuple[str, ...],
    max_points: int,
    output: str,
    option_pairs: tuple[str, ...],
) -> None:
    """ROC curve of DATA (Parquet/CSV files or a glob, a directory of Parquet files, or
    path/to/db.duckdb:table), AUC in the legend.
    """
    _draw("roc", data, label, score, weight, by, max_points, output, option_pairs)


@plot.command("pr")
@_options
@friendly
def pr_command(
    data: tuple[str, ...],
    label: str,
    score: str,
    weight: str | None,
    by: tuple[str, ...],
    max_points: int,
    output: str,
    option_pairs: tuple[str, ...],
) -> None:
    """Precision-recall curve of DATA, average precision in the legend."""
    _draw("pr", data, label, score, weight, by, max_points, output, option_pairs)


def _binned_options(func: F, strategy: bool) -> F:
    decorators = [
        click.argument("data", metavar="DATA...", nargs=-1, required=True),
        click.option("--label", default="label", show_default=True, help="Label column (0/1)."),
        click.option("--score", default="score", show_default=True, help="Score column."),
        click.option("--by", multiple=True, help="Slice column (repeatable): one curve each."),
        click.option(
            "--n-bins",
            default=10,
            show_default=True,
            type=click.IntRange(min=1, max=1000),
            help="Number of bins.",
        ),
        *(
            [
                click.option("--weight", default=None, help="Sample-weight column."),
                click.option(
                    "--strategy",
                    default="uniform",
                    show_default=True,
                    type=click.Choice(["uniform", "quantile"]),
                    help="Bins of equal width (uniform) or equal mass (quantile).",
                ),
            ]
            if strategy
            else []
        ),
        click.option(
            "--option",
            "option_pairs",
            multiple=True,
            metavar="NAME=VALUE",
            help="pos_label=VALUE: the positive class of a two-valued label column.",
        ),
        click.option(
            "--output",
            "-o",
            required=True,
            type=click.Path(dir_okay=False),
            callback=check_output,
            help="Image file to write (.png, .svg or .pdf).",
        ),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _draw_binned(kind: str, data: tuple[str, ...], output: str, **kwargs: Any) -> None:
    if not output.lower().endswith(IMAGE_SUFFIXES):
        raise InputError(
            f"plot {kind}: --output {output!r} must end in {', '.join(IMAGE_SUFFIXES)}, "
            f"e.g. --output {kind}.png"
        )
    from . import plot as plots
    from .cli import parse_options

    options = parse_options(kwargs.pop("option_pairs"))
    unknown = sorted(set(options) - {"pos_label"})
    if unknown:
        raise InputError(
            f"plot {kind}: --option {unknown[0]}= is not an option of this plot; "
            f"the one it takes is --option pos_label="
        )
    kwargs["by"] = list(kwargs["by"]) or None
    table, database = resolve_data(data)
    with connection(database) as con:
        draw = plots.calibration if kind == "calibration" else plots.gains
        figure = draw(table, con=con, pos_label=options.get("pos_label"), **kwargs)
    write_file(output, lambda path: figure.savefig(path, dpi=120))
    click.echo(f"wrote {output}", err=True)


@plot.command("calibration")
@lambda f: _binned_options(f, strategy=True)
@friendly
def calibration_command(data: tuple[str, ...], output: str, **kwargs: Any) -> None:
    """Calibration (reliability) curve of DATA's probabilities, ECE in the legend."""
    _draw_binned("calibration", data, output, **kwargs)


@plot.command("gains")
@lambda f: _binned_options(f, strategy=False)
@friendly
def gains_command(data: tuple[str, ...], output: str, **kwargs: Any) -> None:
    """Cumulative gains curve of DATA by score bins (deciles), top-bin lift in the legend."""
    _draw_binned("gains", data, output, **kwargs)
