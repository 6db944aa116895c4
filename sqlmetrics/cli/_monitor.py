"""``sqlmetrics monitor DATA -m auc --day day --by country``: the days a slice's metric moved
beyond its recent history and its own sampling error (``metric_anomalies``), for cron and CI:
the flagged rows printed, exit status 1 when there is any, 0 when none, 2 on bad input.

DATA is the daily table (``evaluate(..., by=[day, ...], ci=)``'s, with ``<metric>_lo`` and
``<metric>_hi``), or the rows themselves: when DATA has no column named as the metric, the
command computes that table first (one ``evaluate`` by day and slice, with intervals at
``--ci-level``) from the rows' ``--label``, ``--score``, ``--group`` columns.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ._engines import engine_connection, engine_data
from ._io import (
    COMMAND_FLAGS,
    ENGINE_CON,
    cli_name,
    data_options,
    filtered,
    format_frame,
    friendly,
    inputs_argument,
    metric_option,
    output_over_input,
    split_metrics,
    write,
)
from ._tables import table_options

#: the arguments of metric_anomalies() that `monitor` sets itself, and the flag of each
MONITOR_FLAGS = {
    "data": "DATA",
    "metric": "-m/--metric",
    "day": "--day",
    "by": "--by",
    "intervals": "--no-intervals",
    "ci_level": "--ci-level",
    "min_rows": "--min-rows",
    "min_history": "--min-history",
    "con": ENGINE_CON,
}
COMMAND_FLAGS["monitor"] = MONITOR_FLAGS


@click.command("monitor")
@inputs_argument
@metric_option("Metric to monitor, e.g. auc, log_loss, ndcg@10 (repeatable).", required=True)
@click.option("--day", default="day", show_default=True, help="Day column (a date).")
@data_options(
    "label",
    "score",
    "group",
    "item",
    "by",
    "where",
    by={"help": "Slice column (repeatable): a baseline per slice."},
)
@click.option(
    "--window", default=28, show_default=True, type=int, help="Baseline: the days before."
)
@click.option(
    "--seasonality",
    default=None,
    type=click.Choice(["weekday"]),
    help="weekday: compare each day with the same weekdays only (use --window 56 or more).",
)
@click.option(
    "--delay", default=0, show_default=True, type=int, help="Latest days waiting for labels."
)
@click.option("--min-rows", default=0, show_default=True, type=int, help="Smaller days: skipped.")
@click.option("--min-history", default=7, show_default=True, type=int, help="Fewest baseline days.")
@click.option(
    "--threshold", default=3.5, show_default=True, type=float, help="Band: standard deviations."
)
@click.option(
    "--direction",
    default=None,
    type=click.Choice(["drop", "rise", "both"]),
    help="Deviation flagged (default: a drop where higher is better, a rise of a loss).",
)
@click.option(
    "--ci-level",
    default=0.95,
    show_default=True,
    type=float,
    help="Level of the intervals (read from DATA, or computed from its rows).",
)
@click.option(
    "--no-intervals",
    "plain",
    is_flag=True,
    help="Leave the intervals out: the plain z-score of the daily values.",
)
@click.option(
    "--all", "every_row", is_flag=True, help="Print every row (status, band), not only alarms."
)
@table_options
@friendly
def monitor_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    day: str,
    label: str,
    score: str,
    group: str | None,
    item: str | None,
    by: tuple[str, ...],
    where: str | None,
    window: int,
    seasonality: str | None,
    delay: int,
    min_rows: int,
    min_history: int,
    threshold: float,
    direction: str | None,
    ci_level: float,
    plain: bool,
    every_row: bool,
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
) -> None:
    """Flag the days a metric dropped (or a loss rose) beyond its slice's recent days and the
    day's own sampling error, from DATA: the daily table of values and intervals, or the rows
    (then evaluated by day first). Prints the flagged days and exits 1 when there is any.
    """
    import pandas as pd

    from .._evaluate._api_evaluate import evaluate
    from .._evaluate._api_monitor import metric_anomalies
    from ..errors import ColumnNotFoundError

    names = [cli_name(m) for m in split_metrics(metrics)]
    output_over_input(output, inputs, None)
    table, database = engine_data(inputs, db_url, spark_master)
    frames = []
    with engine_connection(database, db_url, spark_master) as con:
        source: Any = filtered(table, con, where)
        columns = _columns(source, con)
        if day not in columns:
            raise ColumnNotFoundError(
                f"monitor: column {day!r} (day=) not found in data={inputs[0]!r}; columns "
                f"present: {', '.join(columns)}"
            )
        if not all(name in columns for name in names):
            roles: dict[str, Any] = {"label": label, "score": score, "group": group, "item": item}
            source = evaluate(
                source,
                names,
                by=[day, *by],
                ci=None if plain else ci_level,
                con=con,
                **{k: v for k, v in roles.items() if v is not None},
            )
        for name in names:
            frame = metric_anomalies(
                source,
                name,
                day=day,
                by=list(by) or None,
                intervals=not plain,
                window=window,
                seasonality=seasonality,
                delay=delay,
                min_rows=min_rows,
                min_history=min_history,
                threshold=threshold,
                direction=direction,
                ci_level=ci_level,
                con=None if isinstance(source, pd.DataFrame) else con,
            )
            frames.append(frame.assign(metric=name))
    result = pd.concat(frames, ignore_index=True)
    result = result[
        [*by, day, "metric", *[c for c in result.columns if c not in (*by, day, "metric")]]
    ]
    flagged = result[result["anomaly"]]
    shown = result if every_row else flagged.reset_index(drop=True)
    write(format_frame(shown, fmt), output)
    if len(flagged):
        click.echo(
            f"sqlmetrics: {len(flagged)} anomal{'y' if len(flagged) == 1 else 'ies'} "
            f"({', '.join(sorted(set(flagged['metric'])))})",
            err=True,
        )
        sys.exit(1)


def _columns(source: Any, con: Any) -> list[str]:
    """The column names of DATA as the command reads it."""
    from .._backends import backend_for
    from .._backends.source import open_source

    with backend_for(con, source) as backend, open_source(source, backend, "monitor") as opened:
        return list(opened.columns)
