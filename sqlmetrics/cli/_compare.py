"""``sqlmetrics compare DATA -m METRIC --score A --score B``: models compared to a
baseline, per metric: the difference, its interval and a paired test's p-value.
"""

from __future__ import annotations

import click

from ._engines import engine_connection, engine_data
from ._io import (
    COMMAND_FLAGS,
    ENGINE_CON,
    cli_name,
    command_options,
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

#: the arguments of compare() that `compare` sets itself, and the flag that sets each
COMPARE_FLAGS = {
    "data": "DATA",
    "metrics": "-m/--metric",
    "scores": "--score",
    "score": "--score",
    "baseline": "--baseline",
    "label": "--label",
    "group": "--group",
    "item": "--item",
    "qrels": "--qrels",
    "by": "--by",
    "weight": "--weight",
    "group_weight": "--group-weight",
    "test": "--test",
    "where": "--where",
    "correction": "--correction",
    "ci": "--ci",
    "n_boot": "--n-boot",
    "n_permutations": "--n-permutations",
    "seed": "--seed",
    "con": ENGINE_CON,
}
COMMAND_FLAGS["compare"] = COMPARE_FLAGS


@click.command("compare")
@inputs_argument
@metric_option("Metric to compare, e.g. auc, accuracy, ndcg@10 (repeatable).", required=True)
@click.option(
    "--score",
    "scores",
    multiple=True,
    required=True,
    help="Score column of one model (repeat for each model, at least two).",
)
@click.option(
    "--baseline", default=None, help="The model compared to (default: the first --score)."
)
@click.option(
    "--test",
    default=None,
    type=click.Choice(["t", "randomization", "wilcoxon", "delong", "mcnemar", "bootstrap"]),
    help="Paired test for every metric (default: each metric's own).",
)
@data_options(
    "label",
    "group",
    "item",
    "weight",
    "group_weight",
    "by",
    "qrels",
    "pos_label",
    "where",
    weight={"help": "Sample-weight column (bootstrap test only)."},
    by={"help": "Slice column (repeatable): one comparison per slice."},
)
@click.option(
    "--correction",
    default="holm",
    show_default=True,
    type=click.Choice(["holm", "bonferroni", "none"]),
    help="Multiple-comparison correction.",
)
@click.option("--ci", default=0.95, show_default=True, type=float, help="Level of the interval.")
@click.option("--n-boot", default=200, show_default=True, type=int, help="Bootstrap replicates.")
@click.option(
    "--n-permutations",
    default=1000,
    show_default=True,
    type=int,
    help="Sign-flip permutations of the randomization test.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the resampling.")
@data_options("option")
@table_options
@friendly
def compare_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    scores: tuple[str, ...],
    baseline: str | None,
    test: str | None,
    label: str,
    group: str | None,
    item: str | None,
    weight: str | None,
    group_weight: str | None,
    by: tuple[str, ...],
    qrels: str | None,
    pos_label: str | None,
    where: str | None,
    correction: str,
    ci: float,
    n_boot: int,
    n_permutations: int,
    seed: int,
    option_pairs: tuple[str, ...],
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
) -> None:
    """Compare models scored in DATA (one --score column per model) to a baseline: per
    metric and model the value, the difference, its interval and a paired test's p-value
    (Holm-corrected by default); DATA as for `eval`.
    """
    import pandas as pd

    from .._inference._api_compare import compare

    metrics = tuple(split_metrics(metrics))
    options = command_options(option_pairs, COMPARE_FLAGS, pos_label)
    output_over_input(output, inputs, qrels)
    table, database = engine_data(inputs, db_url, spark_master)
    with engine_connection(database, db_url, spark_master) as con:
        frame = compare(
            filtered(table, con, where),
            [cli_name(m) for m in metrics],
            scores=list(scores),
            baseline=baseline,
            label=label,
            group=group,
            item=item,
            weight=weight,
            group_weight=group_weight,
            qrels=qrels,
            by=list(by) or None,
            test=test,
            correction=correction,
            ci=ci,
            n_boot=n_boot,
            n_permutations=n_permutations,
            seed=seed,
            con=con,
            **options,
        )
    for col in ("n_rows", "n_groups"):  # nullable counts: None (JSON null) where NA
        frame[col] = pd.Series([None if pd.isna(v) else int(v) for v in frame[col]], dtype=object)
    write(format_frame(frame, fmt), output)
