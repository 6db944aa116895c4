"""``sqlmetrics render METRIC``: the SQL of one metric's template, or with ``-m`` the one
statement ``eval`` runs, in a dialect; nothing is executed.
"""

from __future__ import annotations

import click

from .._core.dialects import DEFAULT, DIALECTS, NAMES
from ._engines import spark_glob
from ._io import (
    COMMAND_FLAGS,
    FLAGS,
    ROLES,
    InputError,
    Roles,
    cli_name,
    command_options,
    data_options,
    friendly,
    load_dirs,
    metric_option,
    metrics_dir_option,
    parse_value,
    role_options,
    single_score,
    split_data,
    split_metrics,
)

#: render's arguments and the flag that sets each (a '--name value' pair of one is refused)
RENDER_FLAGS = {
    "metric": "METRIC",
    "metrics": "-m/--metric",
    "data": "--data",
    "by": "--by",
    "dialect": "--dialect",
    **{name: FLAGS[name] for name in ROLES[:6]},
    "qrels": FLAGS["qrels"],
}
COMMAND_FLAGS["render"] = RENDER_FLAGS


@click.command(
    "render", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.argument("metric", required=False)
@metric_option("Metric of the evaluate statement (repeatable), e.g. -m auc -m ndcg@10.")
@click.option(
    "--data",
    default="source_table",
    show_default=True,
    help="What the SQL reads, as eval's DATA: a table name, a Parquet/CSV file or glob, a "
    "directory of Parquet files (Hive partitions become columns) or "
    "path/to/db.duckdb:table (its table name).",
)
@click.option(
    "--dialect",
    default=DEFAULT,
    show_default=True,
    help=f"SQL dialect written: {', '.join(NAMES[:-1])} or {NAMES[-1]}.",
)
@role_options(
    label={"default": None, "show_default": False, "help": "Label column (default: label)."},
    score={
        "default": (),
        "multiple": True,
        "show_default": False,
        "help": "Score column (default: score).",
    },
)
@data_options("option")
@metrics_dir_option
@click.pass_context
@friendly
def render_command(
    ctx: click.Context,
    metric: str | None,
    metrics: tuple[str, ...],
    data: str,
    dialect: str,
    roles: Roles,
    option_pairs: tuple[str, ...],
    metrics_dirs: tuple[str, ...],
) -> None:
    """Print the SQL of METRIC (its own template), or with -m the one statement `eval` runs
    for those metrics; columns and options as for `eval` (--label, --option NAME=VALUE, ...).
    """
    from .._engine._api_render import render_evaluate
    from .._engine.render import render

    load_dirs(metrics_dirs)
    one = single_score("render", roles.score, "its SQL reads") if roles.score else None
    params = command_options(option_pairs, RENDER_FLAGS, roles.pos_label)
    columns = dict(
        label=roles.label,
        score=one,
        group=roles.group,
        item=roles.item,
        weight=roles.weight,
        prediction=roles.prediction,
        qrels=roles.qrels,
    )
    params.update({k: v for k, v in columns.items() if v is not None})
    args = list(ctx.args)
    if metric is not None and metric.startswith("--"):  # an unknown --name taken as METRIC
        args.insert(0, metric)
        metric = None
    # the spelling of earlier versions, --duplicates max: the option, as --option would give
    while args:
        flag = args.pop(0)
        if not flag.startswith("--") or not args or args[0].startswith("--"):
            raise InputError(
                f"render: unexpected argument {flag!r}; give options as --option NAME=VALUE "
                f"(e.g. --option duplicates=max) and columns with --label, --score, --group, ..."
            )
        name = flag[2:].replace("-", "_")
        if name in RENDER_FLAGS:
            raise InputError(
                f"render: {flag} is not a column or option of the metric; give it with "
                f"{RENDER_FLAGS[name]}"
            )
        if name in params:
            raise InputError(
                f"render: {flag} and --option {name}= both given; give it once, with "
                f"--option {name}=VALUE"
            )
        params[name] = parse_value(args.pop(0))
    data = render_data(data, dialect)
    slices = list(roles.by) or None
    # metric names are case-insensitive on the command line, as for `eval`
    metric = cli_name(metric) if metric else metric
    metrics = tuple(cli_name(m) for m in split_metrics(metrics))
    if metrics:
        sql = render_evaluate(
            data, [*([metric] if metric else []), *metrics], by=slices, dialect=dialect, **params
        )
    elif metric:
        sql = render(metric, data, by=slices, dialect=dialect, **params)
    else:
        raise InputError("render: name a metric (render ndcg@10) or several with -m")
    click.echo(sql, nl=False)


def render_data(data: str, dialect: str) -> str:
    """``render --data`` read as eval reads DATA: ``path/to/db.duckdb:table`` is that table's
    name; for Spark, a glob over Hive partition folders is refused (:func:`spark_glob`).
    """
    table, database = split_data(data)
    if database is not None:
        return table
    if dialect in DIALECTS and DIALECTS[dialect].paths == "identifier":  # Spark's path syntax
        spark_glob(data, f"render --dialect {dialect}: --data")
    return data
