"""``sqlmetrics eval DATA -m METRIC ...``: metrics per slice as a table, CSV, JSON or in
trec_eval's layout (``--format trec``, written by :mod:`._trec`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from ._engines import engine_connection, engine_data, engine_options
from ._io import (
    COMMAND_FLAGS,
    ENGINE_CON,
    SCORES,
    InputError,
    Roles,
    ci_options,
    cli_name,
    command_options,
    data_options,
    filtered,
    format_frame,
    friendly,
    inputs_argument,
    load_dirs,
    metric_option,
    metrics_dir_option,
    output_option,
    output_over_input,
    parse_class,
    parse_value,
    role_options,
    score_models,
    split_metrics,
    write,
)
from ._trec import trec_text

if TYPE_CHECKING:
    import pandas as pd


def parse_classes(lists: tuple[str, ...]) -> list[Any]:
    """``--labels a,b --labels c`` -> ``["a", "b", "c"]`` (each class typed by
    :func:`parse_class`); an empty class is an error.
    """
    classes: list[Any] = []
    for text in lists:
        for part in text.split(","):
            if not part.strip():
                raise InputError(
                    f"--labels {text!r}: an empty class; write the classes separated by "
                    f"commas, e.g. --labels cat,dog or --labels 0,1,2"
                )
            classes.append(parse_class(part))
    return classes


def parse_class_columns(flag: str, pairs: tuple[str, ...], example: str) -> dict[Any, str]:
    """``--class-score cat=p_cat ...`` -> ``{"cat": "p_cat", ...}`` (classes typed by
    :func:`parse_value`); a pair without ``=`` or a class given twice is an error.
    """
    wide: dict[Any, str] = {}
    for pair in pairs:
        cls, eq, column = pair.partition("=")
        if not eq or not cls.strip() or not column.strip():
            raise InputError(f"{flag} {pair!r}: write CLASS=COLUMN, e.g. {flag} {example}")
        value = parse_value(cls.strip())
        if value in wide:
            raise InputError(f"{flag}: class {cls.strip()!r} is given twice")
        wide[value] = column.strip()
    return wide


#: the arguments of evaluate() that `eval` sets itself, and the flag that sets each (an
#: --option of that name would be a second value: refused)
EVAL_FLAGS = {
    "data": "DATA",
    "metrics": "-m/--metric",
    "label": "--label",
    "score": "--score",
    "group": "--group",
    "item": "--item",
    "qrels": "--qrels",
    "by": "--by",
    "weight": "--weight",
    "group_weight": "--group-weight",
    "prediction": "--prediction",
    "scores": "--class-score",
    "indicators": "--class-indicator",
    "ci": "--ci",
    "ci_method": "--ci-method",
    "n_boot": "--n-boot",
    "seed": "--seed",
    "where": "--where",
    "con": ENGINE_CON,
}

COMMAND_FLAGS["eval"] = EVAL_FLAGS


@click.command("eval")
@inputs_argument
@metric_option(
    "Metric to compute, e.g. auc, gauc, ndcg@10, or ir_measures' names such as nDCG@10, "
    "'P(rel=2)@5' (repeatable). With --trec --format trec and no -m: trec_eval's standard "
    "measures."
)
@role_options(score=SCORES)
@data_options("group_weight", "where")
@click.option(
    "--class-score",
    "class_scores",
    multiple=True,
    metavar="CLASS=COLUMN",
    help="Wide class scores for multiclass_auc and top_k_accuracy (and, with "
    "--class-indicator, multilabel_average_precision): the score column of a class, e.g. "
    "--class-score cat=p_cat (repeat per class); --label holds the true class.",
)
@click.option(
    "--class-indicator",
    "class_indicators",
    multiple=True,
    metavar="CLASS=COLUMN",
    help="Wide multilabel truth, with --class-score: the 0/1 column of a class, e.g. "
    "--class-indicator cat=is_cat (repeat per class, the classes of --class-score), for "
    "multiclass_auc and multilabel_average_precision; --label is then not read.",
)
@click.option(
    "--labels",
    "label_lists",
    multiple=True,
    metavar="CLASS,CLASS,...",
    help="The classes to include and their order, scikit-learn's labels= (multiclass "
    "precision/recall/f1, jaccard, cohen_kappa, top_k_accuracy, multiclass_auc with "
    "--class-score, ...): comma-separated and/or repeated, e.g. --labels cat,dog or "
    "--labels 0,1,2; numbers and true/false are typed as such, a class in quotes ('1') "
    "stays text.",
)
@click.option(
    "--trec",
    is_flag=True,
    help="DATA is a TREC run file (qid Q0 docno rank score run) and --qrels a TREC "
    "qrels file (qid iter docno rel); columns group, item, score, label. "
    "Options default to trec_eval's: empty=zero missing=skip gain=linear "
    "(--option missing=zero is trec_eval -c).",
)
@data_options(
    "convention",
    convention={
        "help": "Reproduce a tool's definitions (ties, gain, empty groups, ...): its values "
        "fill the options not given with --option. --trec without it uses trec_eval's."
    },
)
@data_options("option")
@click.option(
    "--threshold",
    "thresholds",
    multiple=True,
    type=float,
    help="Decision threshold of the threshold metrics (f1, precision, ...). Repeat it "
    "for a column per threshold, named like f1@t=0.3; other metrics are "
    "unchanged. Each threshold is one more pass over the data.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json", "trec"]),
    default="table",
    show_default=True,
    help="Output format. trec: trec_eval's layout and names (measure, topic, value: P_10, "
    "ndcg_cut_10, map; a measure trec_eval has no name for keeps its own), the 'all' lines "
    "with runid, num_q, num_ret, num_rel, num_rel_ret; with -q one block per --group topic "
    "first.",
)
@click.option(
    "-q",
    "per_query",
    is_flag=True,
    help="With --format trec: per topic too, then 'all' (trec_eval -q).",
)
@output_option
@engine_options(
    "Run on the database of this SQLAlchemy URL (e.g. postgresql+psycopg://user@host/db); "
    "DATA is then a table or view name there (schema.table allowed). Needs sqlmetrics[postgres].",
    "Run on Spark with this master (local[2], spark://host:7077, yarn; sc://host:port: a "
    "Spark Connect server); DATA is then a "
    "table or view of its catalog or a Parquet path. Needs sqlmetrics[spark].",
)
@ci_options
@metrics_dir_option
@friendly
def eval_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    roles: Roles,
    group_weight: str | None,
    where: str | None,
    class_scores: tuple[str, ...],
    class_indicators: tuple[str, ...],
    label_lists: tuple[str, ...],
    trec: bool,
    convention: str | None,
    option_pairs: tuple[str, ...],
    thresholds: tuple[float, ...],
    fmt: str,
    per_query: bool,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int,
    metrics_dirs: tuple[str, ...],
) -> None:
    """Compute METRICs over DATA: Parquet/CSV files or a glob (several files are read
    together), a directory of Parquet files (Hive partitions such as country=de/ become
    columns), or path/to/db.duckdb:table; with --db-url or --spark, a table of that engine.
    """
    group = roles.group
    item = roles.item
    load_dirs(metrics_dirs)
    names, models = _requested(metrics, roles.score, trec, fmt, per_query, class_scores)
    output_over_input(output, inputs, roles.qrels)
    table, database = engine_data(inputs, db_url, spark_master, trec)
    if trec and len(inputs) > 1:
        raise InputError(f"--trec reads one run file; got {len(inputs)}: {' '.join(inputs)}")
    judged: Any = roles.qrels
    if trec:
        from .._metrics.ranking_trec import read_trec_qrels, read_trec_run

        table, database = read_trec_run(inputs[0]), None
        judged = read_trec_qrels(roles.qrels) if roles.qrels is not None else None
        group, item = group or "group", item or "item"
    options = _options(
        option_pairs, roles.pos_label, convention, trec, names, label_lists, thresholds
    )
    if fmt == "trec" and (group is None or roles.by):
        raise InputError(
            "--format trec prints one block per topic: give the topic column "
            "with --group (and no --by)"
        )
    columns = dict(
        label=roles.label,
        group=group,
        item=item,
        weight=roles.weight,
        group_weight=group_weight,
        prediction=roles.prediction,
        **({"qrels": judged} if judged is not None else {}),
        **_wide(class_scores, class_indicators),
    )
    with engine_connection(database, db_url, spark_master) as con:
        table = filtered(table, con, where)

        def run_model(model: str, slices: list[str] | None, **more: Any) -> pd.DataFrame:
            from .._evaluate._api_evaluate import evaluate

            return evaluate(
                table,
                names,
                score=model,
                by=slices,
                con=con,
                ci=ci,
                ci_method=ci_method,
                n_boot=n_boot,
                seed=seed,
                **columns,
                **options,
                **more,
            )

        def swept(model: str) -> pd.DataFrame:  # one model, each --threshold
            return per_threshold(partial(run_model, model), list(roles.by), names, thresholds)

        if fmt == "trec":
            assert group is not None
            run = partial(run_model, models[0])
            text = trec_text(
                run, table, judged, con, columns, models[0], names, per_query, trec, options
            )
        else:
            frame = (
                swept(models[0]) if len(models) == 1 else per_model(models, list(roles.by), swept)
            )
            text = format_frame(frame, fmt)
    write(text, output)


def _requested(
    metrics: tuple[str, ...],
    scores: tuple[str, ...],
    trec: bool,
    fmt: str,
    per_query: bool,
    class_scores: tuple[str, ...],
) -> tuple[list[str], list[str]]:
    """The metric names (``-m``; trec_eval's standard measures with ``--trec --format trec``
    and no ``-m``) and the models (``--score``) of an ``eval``, checked against the format.
    """
    metrics = tuple(split_metrics(metrics))
    models = score_models(scores)
    if len(models) > 1 and (fmt == "trec" or class_scores):
        flag = "--format trec" if fmt == "trec" else "--class-score"
        raise InputError(
            f"--score given {len(models)} times ({', '.join(models)}) with {flag}, which "
            f"reads one model; run eval once per model (or compare them with `sqlmetrics "
            f"compare`)"
        )
    if not metrics:
        if not (trec and fmt == "trec"):
            ctx = click.get_current_context()
            param = next(p for p in ctx.command.params if p.name == "metrics")
            raise click.MissingParameter(ctx=ctx, param=param)
        from .._metrics.ranking_trec import TREC_STANDARD

        metrics = TREC_STANDARD
    if per_query and fmt != "trec":
        raise InputError(
            f"-q prints per topic in trec_eval's layout: add --format trec (got {fmt})"
        )
    return [cli_name(m) for m in metrics], models


def _options(
    option_pairs: tuple[str, ...],
    pos_label: str | None,
    convention: str | None,
    trec: bool,
    names: list[str],
    label_lists: tuple[str, ...],
    thresholds: tuple[float, ...],
) -> dict[str, Any]:
    """The metric options of an ``eval``: ``--option`` pairs and ``--pos-label``, then
    ``--convention`` (or trec_eval's options with ``--trec``) and ``--labels``; each given
    two ways is refused, as a ``--threshold`` given twice.
    """
    options = command_options(option_pairs, EVAL_FLAGS, pos_label)
    if convention is not None:
        if "convention" in options:
            raise InputError(
                "--convention and --option convention= both given; give it with --convention only"
            )
        options["convention"] = convention
    elif trec:
        from .._metrics.ranking_trec import trec_eval_options

        options = {**trec_eval_options(names), **options}
    if label_lists:
        if "labels" in options:
            raise InputError(
                "--labels and --option labels= both given; give the classes with --labels only"
            )
        options["labels"] = parse_classes(label_lists)
    repeated = sorted({t for t in thresholds if thresholds.count(t) > 1})
    if repeated:
        raise InputError(
            f"--threshold {repeated[0]:g} is given twice; each threshold gives one "
            f"column (f1@t={repeated[0]:g}), so give it once"
        )
    if thresholds and "threshold" in options:
        raise InputError(
            "--threshold and --option threshold= both given; give thresholds with --threshold only"
        )
    return options


def _wide(class_scores: tuple[str, ...], class_indicators: tuple[str, ...]) -> dict[str, Any]:
    """``scores=`` (``--class-score``: class -> score column) and ``indicators=``
    (``--class-indicator``: class -> 0/1 column) of the wide metrics, where given.
    """
    wide: dict[str, Any] = {}
    if class_scores:
        wide["scores"] = parse_class_columns("--class-score", class_scores, "cat=p_cat")
    if class_indicators:
        if not class_scores:
            raise InputError(
                "--class-indicator (a 0/1 column per class) needs --class-score (the score "
                "column of each class), e.g. --class-score cat=p_cat --class-indicator cat=is_cat"
            )
        wide["indicators"] = parse_class_columns(
            "--class-indicator", class_indicators, "cat=is_cat"
        )
    return wide


def per_model(
    models: list[str], slices: list[str], run: Callable[[str], pd.DataFrame]
) -> pd.DataFrame:
    """One evaluation per model, stacked: the slices, then ``model`` (the score column's
    name, as compare and report name models), then the metrics and counts; sorted by the
    slices, models in the order given.
    """
    import pandas as pd

    if "model" in slices:
        raise InputError(
            "--by model: with several --score flags the output has a model column of its own; "
            "rename the slice column (e.g. in a view) or evaluate one model"
        )
    frames = []
    for i, model in enumerate(models):
        frame = run(model)
        frame.insert(len(slices), "model", model)
        frames.append(frame.assign(__order=i))
    stacked = pd.concat(frames, ignore_index=True)
    stacked = stacked.sort_values([*slices, "__order"], kind="stable")
    return stacked.drop(columns="__order").reset_index(drop=True)


def per_threshold(
    run: Callable[..., pd.DataFrame], by: list[str], names: list[str], thresholds: tuple[float, ...]
) -> pd.DataFrame:
    """Evaluate once per threshold; threshold metrics get a column each (``f1@t=0.3``)."""
    import pandas as pd

    from .._core.names import parse_metric

    if len(thresholds) < 2:
        return run(by or None, **({"threshold": thresholds[0]} if thresholds else {}))
    swept = [n for n in names if "threshold" in parse_metric(n).spec.params]
    frames = [run(by or None, threshold=t) for t in thresholds]
    first = frames[0]
    if not swept:
        return first
    metric_columns = [c for c in first.columns if c in names and c not in swept]
    counts = [c for c in first.columns if c not in by and c not in names]
    result = first[by + metric_columns]
    for t, frame in zip(thresholds, frames):
        renamed = frame[by + swept].rename(columns={n: f"{n}@t={t:g}" for n in swept})
        result = result.merge(renamed, on=by) if by else pd.concat([result, renamed], axis=1)
    tail = first[by + counts]
    return result.merge(tail, on=by) if by else pd.concat([result, tail], axis=1)
