"""``sqlmetrics report DATA -m METRIC ...``: one offline HTML page of the metrics per
slice, their intervals, curves, the comparison of models, the settings and the SQL.
"""

from __future__ import annotations

import click

from ._engines import engine_connection, engine_data, engine_options
from ._eval import EVAL_FLAGS
from ._io import (
    COMMAND_FLAGS,
    SCORES,
    InputError,
    Roles,
    bound_where,
    check_output,
    ci_options,
    command_options,
    data_options,
    friendly,
    inputs_argument,
    metric_option,
    output_over_input,
    parse_value,
    role_options,
    score_models,
    split_metrics,
)

#: the arguments of report() that `report` sets itself, and the flag that sets each
REPORT_FLAGS = {
    **{k: v for k, v in EVAL_FLAGS.items() if k not in ("scores", "indicators")},
    "scores": "--model",
    "curves": "--curves/--no-curves",
    "max_slices": "--max-slices",
    "day": "--day",
    "monitor": "--monitor",
    "max_series": "--max-series",
    "path": "-o/--output",
    "title": "--title",
    "convention": "--convention",
}
COMMAND_FLAGS["report"] = REPORT_FLAGS


@click.command("report")
@inputs_argument
@metric_option("Metric to compute, e.g. auc, gauc, ndcg@10 (repeatable).", required=True)
@role_options(
    score={
        **SCORES,
        "help": "Score column. Repeat it for several models, as --model (the first the "
        "baseline): a table row and a plot line per model, named by the score column, and "
        "their paired comparison.",
    },
)
@data_options("where")
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="COLUMN",
    help="Score column of one model (repeat for each, at least two; the first is the "
    "baseline): a table row and a plot line per model, and their paired comparison. "
    "Without it: one model, --score.",
)
@data_options("convention")
@data_options("option")
@click.option(
    "--curves/--no-curves",
    default=None,
    help="Draw ROC, precision-recall, calibration and gains plots (default: unless a "
    "ranking metric is asked; --curves fails where one cannot be drawn).",
)
@click.option(
    "--max-slices",
    type=int,
    default=12,
    show_default=True,
    help="Plots for at most this many slices, the largest.",
)
@click.option(
    "--day",
    default=None,
    metavar="COLUMN",
    help="Day column (DATE or TIMESTAMP): adds the metrics over time, per metric and slice the "
    "daily value, its interval, the band of metric_anomalies and the flagged days.",
)
@click.option(
    "--monitor",
    "monitor_pairs",
    multiple=True,
    metavar="NAME=VALUE",
    help="An option of metric_anomalies for the series (repeatable; needs --day): window, "
    "seasonality, delay, min_rows, min_history, threshold, direction, intervals; e.g. "
    "--monitor window=56 --monitor seasonality=weekday.",
)
@click.option(
    "--max-series",
    type=int,
    default=24,
    show_default=True,
    help="Charts for at most this many series (metric x slice): flagged ones first.",
)
@click.option("--title", default="sqlmetrics report", show_default=True, help="Page title.")
@click.option(
    "-o",
    "--output",
    default="report.html",
    show_default=True,
    type=click.Path(dir_okay=False),
    callback=check_output,
    help="The HTML file written.",
)
@engine_options()
@ci_options
@friendly
def report_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    roles: Roles,
    where: str | None,
    models: tuple[str, ...],
    convention: str | None,
    option_pairs: tuple[str, ...],
    curves: bool | None,
    max_slices: int,
    day: str | None,
    monitor_pairs: tuple[str, ...],
    max_series: int,
    title: str,
    output: str,
    db_url: str | None,
    spark_master: str | None,
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int,
) -> None:
    """Write an HTML report of METRICs over DATA (as for `eval`): the metrics per slice
    (sortable), intervals with --ci, group counts, curves, the comparison of --model
    columns, with --day the metrics over time and their flagged days, the settings,
    versions and SQL; one file that works offline.
    """
    from .._evaluate._api_report import report

    metrics = tuple(split_metrics(metrics))
    if len(roles.score) > 1:  # repeated --score: the models, as --model
        if models:
            raise InputError(
                f"--score given {len(roles.score)} times and --model too; give the models one way, "
                f"e.g. --score {' --score '.join(roles.score)}"
            )
        models = tuple(score_models(roles.score))
    if len(models) == 1:
        raise InputError(
            f"--model {models[0]}: give at least two --model columns (one per model, the first "
            f"the baseline), or --score for one model"
        )
    options = command_options(option_pairs, REPORT_FLAGS, roles.pos_label)
    monitor = monitor_options(monitor_pairs)
    if monitor and day is None:
        raise InputError(
            f"--monitor {monitor_pairs[0]}: the series need --day, the day column, e.g. --day day"
        )
    output_over_input(output, inputs, roles.qrels)
    if convention is not None:
        if "convention" in options:
            raise InputError(
                "--convention and --option convention= both given; give it with --convention only"
            )
        options["convention"] = convention
    table, database = engine_data(inputs, db_url, spark_master)
    with engine_connection(database, db_url, spark_master) as con:
        written = report(
            table,
            [m.lower() for m in metrics],
            label=roles.label,
            score=roles.score[0],
            group=roles.group,
            item=roles.item,
            weight=roles.weight,
            prediction=roles.prediction,
            qrels=roles.qrels,
            by=list(roles.by) or None,
            scores=list(models) or None,
            ci=ci,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            curves=curves,
            max_slices=max_slices,
            day=day,
            monitor=monitor or None,
            max_series=max_series,
            path=output,
            title=title,
            where=bound_where(table, con, where),
            con=con,
            **options,
        )
    click.echo(f"wrote {written}")


def monitor_options(pairs: tuple[str, ...]) -> dict[str, object]:
    """``--monitor NAME=VALUE`` pairs -> report's ``monitor=`` (values as ``--option``'s)."""
    out: dict[str, object] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise InputError(f"--monitor {pair!r}: write NAME=VALUE, e.g. --monitor window=28")
        if key.strip() in out:
            raise InputError(f"--monitor {pair!r}: {key.strip()} is given twice; give it once")
        out[key.strip()] = parse_value(value)
    return out
