"""``sqlmetrics plot roc|pr|calibration|gains DATA ... --output FILE.png``: draw a curve to
an image file.

Registered on the main command group by ``cli/_main.py`` (``main.add_command(plot)``).
Bad input (a missing file or column, labels outside {0, 1}, no matplotlib) prints one line
on stderr and exits 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ._io import (
    InputError,
    check_output,
    command_options,
    connection,
    data_options,
    filtered,
    friendly,
    output_over_input,
    resolve_data,
    single_score,
    write_file,
)

F = TypeVar("F", bound=Callable[..., Any])
IMAGE_SUFFIXES = (".png", ".svg", ".pdf")


def _check_image(kind: str, output: str) -> None:
    """``--output`` names an image file of a format matplotlib writes."""
    if not output.lower().endswith(IMAGE_SUFFIXES):
        raise InputError(
            f"plot {kind}: --output {output!r} must end in {', '.join(IMAGE_SUFFIXES)}, "
            f"e.g. --output {kind}.png"
        )


def _save(figure: Any, output: str) -> None:
    write_file(output, lambda path: figure.savefig(path, dpi=120))
    click.echo(f"wrote {output}", err=True)


def _output_option() -> Callable[[F], F]:
    return click.option(
        "--output",
        "-o",
        required=True,
        type=click.Path(dir_okay=False),
        callback=check_output,
        help="Image file to write (.png, .svg or .pdf).",
    )


def _draw(
    kind: str,
    data: tuple[str, ...],
    label: str,
    score: tuple[str, ...],
    weight: str | None,
    by: tuple[str, ...],
    max_points: int | None,
    output: str,
    option_pairs: tuple[str, ...] = (),
    pos_label: str | None = None,
    where: str | None = None,
) -> None:
    _check_image(kind, output)
    from .. import plot as plots

    one = single_score(f"plot {kind}", score, "a plot here draws")
    options = _plot_options(kind, option_pairs, pos_label)
    output_over_input(output, data)
    table, database = resolve_data(data)
    with connection(database) as con:
        draw = plots.roc if kind == "roc" else plots.pr
        figure = draw(
            filtered(table, con, where),
            label=label,
            score=one,
            weight=weight,
            by=list(by) or None,
            max_points=max_points,
            con=con,
            pos_label=options.get("pos_label"),
        )
    _save(figure, output)


def _plot_options(kind: str, option_pairs: tuple[str, ...], pos_label: str | None) -> Any:
    """``--option`` / ``--pos-label`` of a plot: pos_label is the one option a curve takes."""
    options = command_options(option_pairs, {}, pos_label)
    unknown = sorted(set(options) - {"pos_label"})
    if unknown:
        raise InputError(
            f"plot {kind}: --option {unknown[0]}= is not an option of "
            f"{'a curve' if kind in ('roc', 'pr') else 'this plot'}; "
            f"the one it takes is --pos-label (or --option pos_label=)"
        )
    return options


#: the shared grammar's flags of a plot (cli's data_options), with plot's own help
_PLOT_FLAGS: dict[str, dict[str, Any]] = {
    "label": {"help": "Label column (0/1, or two classes with --pos-label)."},
    "score": {
        "multiple": True,
        "default": ("score",),
        "show_default": True,
        "help": "Score column (one model; `sqlmetrics report --score a --score b` draws a "
        "line per model).",
    },
    "by": {"help": "Slice column (repeatable): one curve each."},
    "option": {"help": "pos_label=VALUE: the positive class (as --pos-label)."},
}


def _options(func: F) -> F:
    decorators = [
        click.argument("data", metavar="DATA...", nargs=-1, required=True),
        data_options(
            "label", "score", "weight", "by", "pos_label", "where", "option", **_PLOT_FLAGS
        ),
        click.option(
            "--max-points",
            default=2000,
            show_default=True,
            type=click.IntRange(min=2),
            help="Points per curve (score quantiles).",
        ),
        _output_option(),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.group("plot")
def plot() -> None:
    """Draw ROC, precision-recall, calibration or cumulative gains curves of DATA to an
    image file.
    """


def _curve_command(kind: str, help: str) -> None:
    """``plot roc`` or ``plot pr`` (the same flags; ``help`` is the command's)."""

    def command(
        data: tuple[str, ...],
        label: str,
        score: tuple[str, ...],
        weight: str | None,
        by: tuple[str, ...],
        max_points: int,
        output: str,
        option_pairs: tuple[str, ...],
        pos_label: str | None,
        where: str | None,
    ) -> None:
        _draw(
            kind, data, label, score, weight, by, max_points, output, option_pairs, pos_label, where
        )

    command.__name__ = command.__qualname__ = f"{kind}_command"
    command.__doc__ = help
    plot.command(kind)(_options(friendly(command)))


_curve_command(
    "roc",
    """ROC curve of DATA (Parquet/CSV files or a glob, a directory of Parquet files, or
    path/to/db.duckdb:table), AUC in the legend.
    """,
)
_curve_command("pr", """Precision-recall curve of DATA, average precision in the legend.""")


def _binned_options(func: F, strategy: bool) -> F:
    names = ["label", "score", *(["weight"] if strategy else []), "by", "pos_label", "where"]
    decorators = [
        click.argument("data", metavar="DATA...", nargs=-1, required=True),
        data_options(*names, "option", **_PLOT_FLAGS),
        click.option(
            "--n-bins",
            default=10,
            show_default=True,
            type=click.IntRange(min=1, max=1000),
            help="Number of bins.",
        ),
        *(
            [
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
        _output_option(),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _draw_binned(kind: str, data: tuple[str, ...], output: str, **kwargs: Any) -> None:
    _check_image(kind, output)
    from .. import plot as plots

    options = _plot_options(kind, kwargs.pop("option_pairs"), kwargs.pop("pos_label"))
    where = kwargs.pop("where")
    kwargs["score"] = single_score(f"plot {kind}", kwargs["score"], "a plot here draws")
    kwargs["by"] = list(kwargs["by"]) or None
    output_over_input(output, data)
    table, database = resolve_data(data)
    with connection(database) as con:
        draw = plots.calibration if kind == "calibration" else plots.gains
        figure = draw(
            filtered(table, con, where), con=con, pos_label=options.get("pos_label"), **kwargs
        )
    _save(figure, output)


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
