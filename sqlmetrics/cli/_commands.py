"""The ``sqlmetrics`` command line: evaluate files and tables from the shell.

    sqlmetrics eval DATA -m auc -m gauc -m ndcg@10 --label click --score pctr --group user_id
    sqlmetrics render auc --label click
    sqlmetrics compare DATA -m auc -m ndcg@10 --score model_a --score model_b --group user_id
    sqlmetrics list

Bad input (a missing file, an unknown column, metric or option) prints one line on stderr and
exits 2; there is never a Python traceback for something we could check.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from .._core.conventions import convention_names
from ._io import (
    COMMAND_FLAGS,
    Group,
    InputError,
    bound_where,
    cancel_on_interrupt,
    check_output,
    command_options,
    connection,
    data_options,
    filtered,
    friendly,
    mask_url,
    output_over_input,
    parse_class,
    parse_options,
    parse_value,
    resolve_data,
    single_score,
    split_metrics,
    write,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["InputError", "connection", "friendly", "main", "parse_options", "parse_value"]


#: ``--metrics-dir`` on eval, render and list: users' own metric files, registered first
metrics_dir_option = click.option(
    "--metrics-dir",
    "metrics_dirs",
    multiple=True,
    metavar="DIR",
    help="Register every *.sql file of DIR as a metric first (your own metrics, "
    "from each file's front matter; repeatable).",
)


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
    "prediction": "--prediction",
    "scores": "--class-score",
    "indicators": "--class-indicator",
    "ci": "--ci",
    "ci_method": "--ci-method",
    "n_boot": "--n-boot",
    "seed": "--seed",
    "where": "--where",
    "con": "DATA (path/to/db.duckdb:table), --db-url or --spark",
}
#: the same for report()
REPORT_FLAGS = {
    **{k: v for k, v in EVAL_FLAGS.items() if k not in ("scores", "indicators")},
    "scores": "--model",
    "curves": "--curves/--no-curves",
    "max_slices": "--max-slices",
    "path": "-o/--output",
    "title": "--title",
    "convention": "--convention",
}
#: the same for compare()
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
    "test": "--test",
    "where": "--where",
    "correction": "--correction",
    "ci": "--ci",
    "n_boot": "--n-boot",
    "n_permutations": "--n-permutations",
    "seed": "--seed",
    "con": "DATA (path/to/db.duckdb:table), --db-url or --spark",
}
#: the same for render's '--name value' pairs
RENDER_FLAGS = {
    "metric": "METRIC",
    "metrics": "-m/--metric",
    "data": "--data",
    "by": "--by",
    "dialect": "--dialect",
    "label": "--label",
    "score": "--score",
    "group": "--group",
    "item": "--item",
    "weight": "--weight",
    "prediction": "--prediction",
    "qrels": "--qrels",
}
COMMAND_FLAGS.update(
    eval=EVAL_FLAGS, report=REPORT_FLAGS, compare=COMPARE_FLAGS, render=RENDER_FLAGS
)


#: --score on eval and report: repeatable, one model each (eval: a row per model, in a
#: ``model`` column named by the score column, as compare and report name models)
SCORES: dict[str, Any] = {
    "multiple": True,
    "default": ("score",),
    "show_default": True,
    "help": "Score column. Repeat it for several models: a row per model and slice, in a "
    "model column holding the score column's name (as compare and report name them; "
    "compare adds their paired tests).",
}


def _dates_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Date slices as ISO text (``2026-11-01``; with the time only when there is one)."""
    import pandas as pd

    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            times = out[col].dropna()
            midnight = bool((times == times.dt.normalize()).all())
            out[col] = out[col].dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%dT%H:%M:%S")
    return out


#: columns of p-values: in a table with 3 significant digits (1.2e-09, never 0.000000)
P_VALUES = ("p_value", "p_adjusted")

#: how a p-value of 0.0 reads: a test's p-value is never 0, one that underflowed a double
#: (below the smallest normal one, 2.2e-308) is
P_UNDERFLOW = "< 1e-308"


def _p_value(value: Any) -> str:
    import pandas as pd

    if value is None or pd.isna(value):
        return "NaN"
    return P_UNDERFLOW if float(value) == 0.0 else f"{float(value):.3g}"


def format_frame(frame: pd.DataFrame, fmt: str) -> str:
    frame = _dates_as_text(frame)
    if fmt == "csv":
        # each float in the shortest text that reads back as the same double (pandas
        # writes Python's repr: 0.1, not %.17g's 0.10000000000000001), NaN as an empty field
        return str(frame.to_csv(index=False))
    if fmt == "json":
        records = [
            {
                k: (None if isinstance(v, float) and math.isnan(v) else _plain(v))
                for k, v in row.items()
            }
            for row in frame.to_dict(orient="records")
        ]
        return json.dumps(records, indent=2) + "\n"
    formatters = {c: _p_value for c in P_VALUES if c in frame.columns}
    text = frame.to_string(index=False, float_format=lambda v: f"{v:.6f}", formatters=formatters)
    return str(text) + "\n"


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return value


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sqlmetrics")
@click.option(
    "--memory-limit",
    metavar="SIZE",
    default=None,
    help="Largest memory DuckDB may use on the files and DataFrames sqlmetrics reads itself, "
    "e.g. 4GB or 512MiB, given before the command (sqlmetrics --memory-limit 4GB eval ...); "
    "beyond it, sorts and sums spill to disk. Python: sqlmetrics.configure(memory_limit=). "
    "Default: DuckDB's, 80% of the machine's memory.",
)
def main(memory_limit: str | None) -> None:
    """Evaluate classification, CTR and ranking models in SQL, where the data lives."""
    if memory_limit is not None:
        from .._backends.config import configure
        from ..errors import InvalidParameterError

        try:
            configure(memory_limit=memory_limit)
        except InvalidParameterError as exc:
            message = str(exc).removeprefix("configure: ")  # named as the flag it came from
            message = re.sub(r"memory_limit=(\S*)", r"--memory-limit \1", message, count=1)
            raise click.UsageError(message.replace("--memory-limit  ", "--memory-limit ")) from None


def ci_options(command: Any) -> Any:
    """The interval options of a command: --ci, --ci-method, --n-boot, --seed."""
    for option in reversed(
        [
            click.option(
                "--ci",
                type=float,
                default=None,
                help="Confidence level in (0, 1), e.g. 0.95: add <metric>_lo and <metric>_hi "
                "columns after each metric.",
            ),
            click.option(
                "--ci-method",
                default=None,
                help="Interval method: wilson, delong, t or bootstrap (default: each "
                "metric's own).",
            ),
            click.option(
                "--n-boot",
                type=int,
                default=200,
                show_default=True,
                help="Bootstrap replicates (>= 10).",
            ),
            click.option(
                "--seed",
                type=int,
                default=0,
                show_default=True,
                help="Seed of the bootstrap's hashed weights.",
            ),
        ]
    ):
        command = option(command)
    return command


@main.command("eval")
@click.argument("inputs", metavar="DATA...", nargs=-1, required=True)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="Metric to compute, e.g. auc, gauc, ndcg@10, or ir_measures' names such as nDCG@10, "
    "'P(rel=2)@5' (repeatable). With --trec --format trec and no -m: trec_eval's standard "
    "measures.",
)
@data_options(
    "label",
    "score",
    "group",
    "item",
    "weight",
    "prediction",
    "by",
    "qrels",
    "pos_label",
    "where",
    score=SCORES,
)
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
@click.option(
    "--convention",
    default=None,
    type=click.Choice(convention_names()),
    help="Reproduce a tool's definitions (ties, gain, empty groups, ...): its values fill "
    "the options not given with --option. --trec without it uses trec_eval's.",
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
@click.option(
    "--output",
    default=None,
    type=click.Path(dir_okay=False),
    callback=check_output,
    help="Write to this file instead of stdout.",
)
@click.option(
    "--db-url",
    default=None,
    metavar="URL",
    help="Run on the database of this SQLAlchemy URL (e.g. postgresql+psycopg://user@host/db); "
    "DATA is then a table or view name there (schema.table allowed). Needs sqlmetrics[postgres].",
)
@click.option(
    "--spark",
    "spark_master",
    default=None,
    metavar="MASTER",
    help="Run on Spark with this master (local[2], spark://host:7077, yarn); DATA is then a "
    "table or view of its catalog or a Parquet path. Needs sqlmetrics[spark].",
)
@ci_options
@metrics_dir_option
@friendly
def eval_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    label: str,
    score: tuple[str, ...],
    group: str | None,
    item: str | None,
    weight: str | None,
    prediction: str | None,
    by: tuple[str, ...],
    qrels: str | None,
    pos_label: str | None,
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
    from .._evaluate.evaluate import evaluate
    from .._metrics.ranking_trec import read_trec_qrels, read_trec_run

    load_dirs(metrics_dirs)
    metrics = tuple(split_metrics(metrics))
    models = _models(score)
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
    output_over_input(output, inputs, qrels)
    table: Any
    judged: Any = qrels
    remote = _remote_engine_option(inputs, db_url, spark_master, trec)
    if remote:
        table, database = inputs[0], None
        if spark_master is not None:
            spark_glob(table, "--spark: DATA")
    else:
        table, database = resolve_data(inputs)
    if trec and len(inputs) > 1:
        raise InputError(f"--trec reads one run file; got {len(inputs)}: {' '.join(inputs)}")
    data = inputs[0]
    if trec:
        table, database = read_trec_run(data), None
        judged = read_trec_qrels(qrels) if qrels is not None else None
        group, item = group or "group", item or "item"
    options = command_options(option_pairs, EVAL_FLAGS, pos_label)
    if convention is not None:
        if "convention" in options:
            raise InputError(
                "--convention and --option convention= both given; give it with --convention only"
            )
        options["convention"] = convention
    elif trec:
        from .._metrics.ranking_trec import trec_eval_options

        options = {**trec_eval_options([cli_name(m) for m in metrics]), **options}
    extra: dict[str, Any] = {"qrels": judged} if judged is not None else {}
    if label_lists:
        if "labels" in options:
            raise InputError(
                "--labels and --option labels= both given; give the classes with --labels only"
            )
        options["labels"] = parse_classes(label_lists)
    names = [cli_name(m) for m in metrics]
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
    if fmt == "trec" and (group is None or by):
        raise InputError(
            "--format trec prints one block per topic: give the topic column "
            "with --group (and no --by)"
        )
    if class_scores:  # wide class scores (multiclass_auc): class -> column
        extra["scores"] = parse_class_columns("--class-score", class_scores, "cat=p_cat")
    if class_indicators:  # wide multilabel truth: class -> 0/1 column
        if not class_scores:
            raise InputError(
                "--class-indicator (a 0/1 column per class) needs --class-score (the score "
                "column of each class), e.g. --class-score cat=p_cat --class-indicator cat=is_cat"
            )
        extra["indicators"] = parse_class_columns(
            "--class-indicator", class_indicators, "cat=is_cat"
        )
    columns = dict(
        label=label,
        group=group,
        item=item,
        weight=weight,
        prediction=prediction,
        **extra,
    )
    with engine_connection(database, db_url, spark_master) as con:
        table = filtered(table, con, where)

        def run_model(model: str, slices: list[str] | None, **more: Any) -> pd.DataFrame:
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

        def run(slices: list[str] | None, **more: Any) -> pd.DataFrame:
            return run_model(models[0], slices, **more)

        def swept(model: str) -> pd.DataFrame:  # one model, each --threshold
            return per_threshold(partial(run_model, model), list(by), names, thresholds)

        if fmt == "trec":
            assert group is not None
            tallies = counts(table, judged, con, group, item, label, options)
            per_topic = run([group])
            if judged is not None:  # as trec_eval: only judged topics are evaluated
                per_topic = per_topic[per_topic[group].astype(str).isin(tallies.index)]
            runid = run_id(table) if trec else None
            text = format_trec(
                per_topic, run(None), group, tallies, names, per_query, runid, options
            )
        else:
            frame = swept(models[0]) if len(models) == 1 else per_model(models, list(by), swept)
            text = format_frame(frame, fmt)
    write(text, output)


def _models(scores: tuple[str, ...]) -> list[str]:
    """The models of repeated ``--score`` flags; one given twice is refused."""
    twice = sorted({s for s in scores if scores.count(s) > 1})
    if twice:
        raise InputError(f"--score {twice[0]} is given twice; give each model's score column once")
    return list(scores)


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


def _remote_engine_option(
    inputs: tuple[str, ...], db_url: str | None, spark_master: str | None, trec: bool
) -> bool:
    """Whether DATA is read by another engine (``--db-url`` / ``--spark``); its checks."""
    if db_url is None and spark_master is None:
        return False
    flag = "--db-url" if db_url is not None else "--spark"
    if db_url is not None and spark_master is not None:
        raise InputError("--db-url and --spark both given; pass one engine")
    if trec:
        raise InputError(
            f"--trec reads run and qrels files into DuckDB; it does not combine with {flag}: "
            f"load them into tables of that engine and pass the table names"
        )
    if len(inputs) != 1:
        raise InputError(
            f"with {flag}, DATA is one table (or view) name of that engine; got {len(inputs)}: "
            f"{' '.join(inputs)}"
        )
    return True


@contextmanager
def engine_connection(
    database: str | None, db_url: str | None, spark_master: str | None
) -> Iterator[Any]:
    """What ``con=`` gets: a SQLAlchemy engine (``--db-url``), a Spark session (``--spark``)
    or a DuckDB connection (on the database file of ``path/to/db.duckdb:table``, else
    in-memory); closed at the end.
    """
    if db_url is not None:
        with database_engine(db_url) as engine:
            yield engine
        return
    if spark_master is not None:
        with spark_session(spark_master) as session:
            yield session
        return
    with connection(database) as con:
        yield con


@contextmanager
def database_engine(db_url: str) -> Iterator[Any]:
    """The SQLAlchemy engine of ``--db-url``, connected once up front (a wrong URL, host or
    password is one line naming --db-url, its password masked); disposed at the end.
    """
    shown = repr(mask_url(db_url))
    try:
        import sqlalchemy
    except ImportError:
        raise InputError(
            "--db-url needs SQLAlchemy and a driver: pip install 'sqlmetrics[postgres]'"
        ) from None
    try:
        engine = sqlalchemy.create_engine(db_url)
    except (sqlalchemy.exc.ArgumentError, ImportError, ValueError, TypeError) as exc:
        if type(exc) is ValueError and "int()" in str(exc):  # SQLAlchemy's int() of the port
            raise InputError(
                f"--db-url {shown}: its port is not a number ({exc}); write "
                f"dialect+driver://user@host:port/database with a numeric port, e.g. "
                f"postgresql+psycopg://user@localhost:5432/analytics"
            ) from None
        raise InputError(
            f"--db-url {shown} is not a usable SQLAlchemy URL ({mask_url(str(exc))}); write "
            f"dialect+driver://user@host:port/database, e.g. "
            f"postgresql+psycopg://user@localhost:5432/analytics"
        ) from None
    try:
        try:
            engine.connect().close()
        except sqlalchemy.exc.SQLAlchemyError as exc:
            message = " ".join(str(getattr(exc, "orig", None) or exc).split())
            raise InputError(
                f"--db-url {shown} cannot connect: {message}; check the URL, that the server "
                f"runs and that the user may log in"
            ) from None
        yield engine
    finally:
        engine.dispose()


#: a Spark master URL, as SparkContext parses it (the values, e.g. 0 threads, are Spark's to
#: judge): checked before a JVM starts, whose own failure would print its stack trace
_SPARK_MASTER = re.compile(
    r"yarn|local|local\[(\d+|\*)(,\s*\d+)?\]|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
    r"|(spark|k8s|mesos)://\S+"
)


@contextmanager
def spark_session(master: str) -> Iterator[Any]:
    """A Spark session on ``--spark`` master (stopped at the end unless the caller already
    had one); a master Spark cannot start is one line naming --spark.
    """
    if not _SPARK_MASTER.fullmatch(master.strip()):
        raise InputError(
            f"--spark {master!r} is not a Spark master; write local[2] (or local[*] for every "
            f"core), spark://host:7077, yarn or k8s://https://host:port"
        )
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError("--spark needs pyspark: pip install 'sqlmetrics[spark]'") from None
    running = SparkSession.getActiveSession()  # a session of the caller's: not ours to stop
    try:
        session = (
            SparkSession.builder.master(master.strip())
            .appName("sqlmetrics")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
    except Exception as exc:
        raise InputError(f"--spark {master!r}: Spark did not start: {_java_message(exc)}") from None
    try:
        with cancel_on_interrupt(session.sparkContext.cancelAllJobs):
            yield session
    finally:
        if running is None:
            session.stop()


def _java_message(exc: BaseException) -> str:
    """The cause of a Spark start-up failure on one line: the Java exception's message
    (``SparkException: Asked to run locally with 0 threads``) rather than py4j's wrapper.
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        found = re.match(r":?\s*(?:[\w$]+\.)*([\w$]*(?:Exception|Error)): (.+)", line)
        if found and not line.startswith("An error occurred"):
            return f"{found.group(1)}: {found.group(2)}"
    return lines[0] if lines else type(exc).__name__


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


def counts(
    table: Any,
    qrels: Any,
    con: Any,
    group: str,
    item: str | None,
    label: str,
    options: dict[str, Any],
) -> pd.DataFrame:
    """trec_eval's counts per topic: num_ret (rows), num_rel (items with label >=
    relevance_level, in qrels if given, else in the run), num_rel_ret (both).
    """
    from .._backends import backend_for
    from .._backends.source import open_source

    level = float(options.get("relevance_level", 1))
    with backend_for(con) as backend, open_source(table, backend, "eval") as run:
        g, lab = backend.ident(group), backend.ident(label)
        if qrels is None or item is None:
            frame = backend.query(
                f"select {backend.as_text(g)} as topic, count(*) as num_ret, "
                f"sum(case when {lab} >= {level!r} then 1 else 0 end) as num_rel, "
                f"sum(case when {lab} >= {level!r} then 1 else 0 end) as num_rel_ret "
                f"from {run.sql} group by {g}"
            )
            return frame.set_index("topic")
        i = backend.ident(item)
        with open_source(qrels, backend, "eval", "qrels") as judged:
            # trec_eval's topics are the judged ones: a run topic without judgments is not
            # evaluated (nor counted), and a judged topic the run lacks (shown with -c, i.e.
            # missing=zero) still has its num_rel
            frame = backend.query(
                f"with r as (select {g} as g, {i} as i from {run.sql}), "
                f"judged as (select {g} as g, {i} as i, {lab} as lab from {judged.sql}), "
                f"j as (select g, i from judged where lab >= {level!r}), "
                f"topics as (select distinct g from judged), "
                f"ret as (select r.g, count(*) as num_ret, count(j.i) as num_rel_ret "
                f"from r left join j on r.g = j.g and r.i = j.i group by 1), "
                f"rel as (select g, count(*) as num_rel from j group by 1) "
                f"select {backend.as_text('t.g')} as topic, "
                f"coalesce(ret.num_ret, 0) as num_ret, "
                f"coalesce(rel.num_rel, 0) as num_rel, "
                f"coalesce(ret.num_rel_ret, 0) as num_rel_ret "
                f"from topics as t left join ret on t.g = ret.g left join rel on t.g = rel.g"
            )
    return frame.set_index("topic")


def cli_name(text: str) -> str:
    """A metric name as the command line takes it: as written when it parses (ir_measures'
    ``nDCG@10``, ``P(rel=2)@5``), else lower-cased (``NDCG@10`` is ``ndcg@10``).
    """
    from .._core.names import parse_metric
    from ..errors import SqlMetricsError

    try:
        parse_metric(text)
    except SqlMetricsError:
        return text.lower()
    return text


def run_id(table: Any) -> str | None:
    """The run name of a TREC run (its ``run`` column's first value), trec_eval's runid."""
    import pandas as pd

    if isinstance(table, pd.DataFrame) and "run" in table.columns and len(table):
        return str(table["run"].iloc[0])
    return None


def trec_measure(text: str, options: dict[str, Any] | None = None) -> str:
    """The name ``--format trec`` prints a requested metric under, computed with the call's
    ``options``: trec_eval's (``P_10``, ``ndcg_cut_10``, ``recip_rank``) where it is trec_eval's
    measure, else ir_measures' (``P(rel=2)@3``), else as written (``ir_names.shown_name``).
    """
    from .._core.conventions import cutoff_options, resolve
    from .._core.ir_names import shown_name
    from .._core.names import parse_metric
    from .._core.registry import default_of

    options = options or {}
    request = parse_metric(text)
    spec = request.spec
    given = {o: v for o, v in options.items() if o in spec.params or o == "convention"}
    given.update(cutoff_options(options.get("convention"), spec, request.k, given))
    given.update(request.params)
    if request.k is not None:
        given["k"] = request.k
    out = resolve(spec, given)
    effective = {
        p: out[p] if out.get(p) is not None else default_of(spec, p)
        for p in spec.params
        if p != "k"
    }
    level = float(options.get("relevance_level", 1))
    return shown_name(spec, request.k, effective, text, level)


def format_trec(
    per_topic: pd.DataFrame,
    overall: pd.DataFrame,
    group: str,
    tallies: pd.DataFrame,
    names: list[str] | None = None,
    per_query: bool = True,
    runid: str | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """trec_eval's layout: ``measure`` padded to 22, tab, topic, tab, value (4 decimals;
    counts as integers); with ``per_query`` (``-q``) per topic in topic order first, then
    ``all``; ``names``: the requested metrics, printed under trec_eval's names where they
    are its measures with the call's ``options`` (:func:`trec_measure`; one name, one
    definition: two requests of one definition print once). A mean over topics that is not
    one per topic (gm_map, a geometric mean) has ``all`` only.
    """
    from .._core.names import parse_metric

    # the counts are no measures: n_rows, n_groups or, with GAUC and ranking metrics in one
    # call, n_groups_<metric> each (num_q: the ranking metrics' count)
    counts = [
        c for c in overall.columns if c in ("n_rows", "n_groups") or c.startswith("n_groups_")
    ]
    measures = [c for c in overall.columns if c not in counts]
    shown_as = {
        m: trec_measure(m, options) if names is not None and m in names else m for m in measures
    }
    measures = [
        m for i, m in enumerate(measures) if shown_as[m] not in map(shown_as.get, measures[:i])
    ]
    from .._metrics.ranking_trec import TREC_COUNT_LINES, TREC_TOPICS_LINE

    tally = (TREC_TOPICS_LINE, *TREC_COUNT_LINES)  # printed from the counts already
    measures = [m for m in measures if shown_as[m] not in tally]
    per_topic_measures = [
        m
        for m in measures
        if names is None
        or m not in names
        or parse_metric(m).spec.inference.group_mean != "geometric"
    ]
    ranked = [c for c in counts if c.startswith("n_groups_") and c != "n_groups_gauc"]
    num_q = "n_groups" if "n_groups" in counts else (ranked[0] if ranked else None)
    lines: list[str] = []

    def emit(measure: str, topic: str, value: Any) -> None:
        shown = str(int(value)) if measure.startswith("num_") else f"{float(value):.4f}"
        lines.append(f"{measure:<22}\t{topic}\t{shown}")

    topics = sorted(str(t) for t in per_topic[group])
    by_topic = per_topic.assign(**{group: per_topic[group].astype(str)}).set_index(group)
    for topic in topics if per_query else ():
        for count in TREC_COUNT_LINES:
            emit(count, topic, tallies[count].get(topic, 0))
        for measure in per_topic_measures:
            emit(shown_as[measure], topic, by_topic.loc[topic, measure])
    shown = tallies.loc[[t for t in topics if t in tallies.index]]
    if runid is not None:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    emit(TREC_TOPICS_LINE, "all", overall[num_q].iloc[0] if num_q else len(topics))
    for count in TREC_COUNT_LINES:
        emit(count, "all", shown[count].sum())
    for measure in measures:
        emit(shown_as[measure], "all", overall[measure].iloc[0])
    return "\n".join(lines) + "\n"


@main.command("render", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("metric", required=False)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="Metric of the evaluate statement (repeatable), e.g. -m auc -m ndcg@10.",
)
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
    default="duckdb",
    show_default=True,
    help="SQL dialect written: duckdb, postgres, spark, bigquery, snowflake, trino or clickhouse.",
)
@data_options(
    "label",
    "score",
    "group",
    "item",
    "weight",
    "prediction",
    "by",
    "qrels",
    "pos_label",
    "option",
    label={"default": None, "show_default": False, "help": "Label column (default: label)."},
    score={
        "default": (),
        "multiple": True,
        "show_default": False,
        "help": "Score column (default: score).",
    },
)
@metrics_dir_option
@click.pass_context
@friendly
def render_command(
    ctx: click.Context,
    metric: str | None,
    metrics: tuple[str, ...],
    data: str,
    dialect: str,
    label: str | None,
    score: tuple[str, ...],
    group: str | None,
    item: str | None,
    weight: str | None,
    prediction: str | None,
    by: tuple[str, ...],
    qrels: str | None,
    pos_label: str | None,
    option_pairs: tuple[str, ...],
    metrics_dirs: tuple[str, ...],
) -> None:
    """Print the SQL of METRIC (its own template), or with -m the one statement `eval` runs
    for those metrics; columns and options as for `eval` (--label, --option NAME=VALUE, ...).
    """
    from .._engine.render import render, render_evaluate

    load_dirs(metrics_dirs)
    one = single_score("render", score, "its SQL reads") if score else None
    params = command_options(option_pairs, RENDER_FLAGS, pos_label)
    columns = dict(
        label=label,
        score=one,
        group=group,
        item=item,
        weight=weight,
        prediction=prediction,
        qrels=qrels,
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
    slices = list(by) or None
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
    from ._io import split_data

    table, database = split_data(data)
    if database is not None:
        return table
    if dialect == "spark":
        spark_glob(data, "render --dialect spark: --data")
    return data


def spark_glob(data: str, where: str) -> None:
    """Refuse a glob whose files lie in Hive partition folders (``day=2026-11-01/``): Spark
    discovers partition columns from a folder, not from a glob, so they would be lost; the
    message names the folder to pass instead.
    """
    from .._backends.files import GLOB_CHARS

    if not any(ch in data for ch in GLOB_CHARS):
        return
    import glob as globbing

    for hit in sorted(globbing.glob(data, recursive=True)):
        parts = hit.split(os.sep)[:-1]
        at = next((i for i, p in enumerate(parts) if re.fullmatch(r"[^=]+=.*", p)), None)
        if at is None:
            continue
        column = parts[at].split("=", 1)[0]
        base = os.sep.join(parts[:at]) or "."
        raise InputError(
            f"{where} {data!r} is a glob over Hive partition folders ({parts[at]}/, ...), and "
            f"Spark reads a glob without partition discovery, so the {column!r} column would "
            f"be lost; pass the folder instead, {base}{os.sep} (Spark reads its partitions as "
            f"columns)"
        )


@main.command("list")
@click.argument("names", metavar="[METRIC]...", nargs=-1)
@metrics_dir_option
@friendly
def list_command(names: tuple[str, ...], metrics_dirs: tuple[str, ...]) -> None:
    """List every metric with its ir_measures and trec_eval names (- where the tool has
    none), its definition and options; with METRIC (auc, ndcg@10, an alias, nDCG@10), that
    metric's card: its definition from its SQL template's header, columns, options with
    defaults, aliases and the conventions that cover it.
    """
    from .._core.ir_names import ir_form, trec_form
    from .._core.names import metric_form, parse_metric
    from .._core.registry import REGISTRY, default_of

    load_dirs(metrics_dirs)
    if names:
        cards = [
            metric_card(parse_metric(cli_name(n), "list", scalar_only=False).spec) for n in names
        ]
        click.echo("\n".join(cards), nl=False)
        return
    click.echo(f"{'METRIC':<22} {'IR_MEASURES':<13} {'TREC_EVAL':<17} DEFINITION")
    for spec in sorted(REGISTRY.values(), key=metric_form):
        shown = metric_form(spec)
        theirs = f"{ir_form(spec) or '-':<13} {trec_form(spec) or '-':<17}"
        click.echo(f"{shown:<22} {theirs} {spec.summary}")
        options = [p for p in spec.params if p != "k"]
        if options:
            click.echo(
                f"{'':<22} options: " + ", ".join(f"{p}={default_of(spec, p)!r}" for p in options)
            )


def metric_card(spec: Any) -> str:
    """What ``sqlmetrics list METRIC`` prints: the metric's definition (its SQL template's
    header), columns, options with their defaults, aliases and conventions.
    """
    from pathlib import Path

    from .._core.conventions import CONVENTIONS
    from .._core.ir_names import ir_form, trec_form
    from .._core.names import metric_form
    from .._core.registry import default_of
    from .._inference.intervals import methods_for
    from .._templating.templates import sql_dir, template_header

    lines = [f"{metric_form(spec)}: {spec.summary}"]
    if spec.aliases:
        lines.append(f"  aliases: {', '.join(spec.aliases)}")
    if spec.ir_measures is not None or spec.trec_eval is not None:
        lines.append(f"  ir_measures: {ir_form(spec) or '-'}; trec_eval: {trec_form(spec) or '-'}")
    lines.append(f"  function: sqlmetrics.{spec.function}")
    columns = [f"--{r.name} ({r.kind}{'' if r.required else ', optional'})" for r in spec.roles]
    lines.append(f"  columns: {', '.join(columns) or '-'}")
    options = [p for p in spec.params if p != "k"]
    shown = ", ".join(f"--option {p}={_shown(default_of(spec, p))}" for p in options)
    lines.append(f"  options (default): {shown or '-'}")
    if spec.takes_k:
        lines.append(f"  cutoff: {spec.name}@k, e.g. {spec.name}@10 (no @k: every item)")
    lines.append(f"  undefined: {spec.undefined}")
    if spec.output == "scalar":
        lines.append(f"  better: {spec.better}")
        methods = methods_for(spec)
        shown = f"{', '.join(methods)} (default {methods[0]})"
        lines.append(f"  intervals (--ci-method): {shown if spec.inference.intervals else 'none'}")
        tests = spec.inference.tests
        paired = f"{', '.join(tests)} (default {tests[0]})" if tests else "none"
        lines.append(f"  paired tests (compare --test): {paired}")
    covering = [
        (c.name, [f"{o}={_shown(c.value(spec.name, o))}" for o in c.sets if o in spec.params])
        for c in CONVENTIONS.values()
        if spec.name in c.metrics
    ]
    lines.append(f"  conventions (--convention): {'' if covering else 'none'}".rstrip())
    lines.extend(f"    {name}: {', '.join(sets) or 'its definitions'}" for name, sets in covering)
    template = Path(spec.template)
    builtin = sql_dir() / template
    path = builtin if not template.is_absolute() and builtin.is_file() else template
    header = template_header(path) if path.is_file() else None
    if header:
        where = f"sql/{template.as_posix()}" if path == builtin else str(path)
        lines.append(f"  definition ({where}):")
        lines.extend(f"    {line}".rstrip() for line in header.splitlines())
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    """An option's value as the command line writes it (``linear``, ``0.5``, ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_dirs(directories: tuple[str, ...]) -> None:
    """Register the user metrics of every ``--metrics-dir``."""
    from .._engine.user import load_metrics_dir

    for directory in directories:
        load_metrics_dir(directory)


@main.command("compare")
@click.argument("inputs", metavar="DATA...", nargs=-1, required=True)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    required=True,
    help="Metric to compare, e.g. auc, accuracy, ndcg@10 (repeatable).",
)
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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--output",
    default=None,
    type=click.Path(dir_okay=False),
    callback=check_output,
    help="Write to this file instead of stdout.",
)
@click.option(
    "--db-url",
    default=None,
    metavar="URL",
    help="Run on the database of this SQLAlchemy URL; DATA is then a table name there.",
)
@click.option(
    "--spark",
    "spark_master",
    default=None,
    metavar="MASTER",
    help="Run on Spark with this master; DATA is then a table or a Parquet path.",
)
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

    from .._inference.compare import compare

    metrics = tuple(split_metrics(metrics))
    options = command_options(option_pairs, COMPARE_FLAGS, pos_label)
    output_over_input(output, inputs, qrels)
    if _remote_engine_option(inputs, db_url, spark_master, False):
        table, database = inputs[0], None
        if spark_master is not None:
            spark_glob(table, "--spark: DATA")
    else:
        table, database = resolve_data(inputs)
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


@main.command("report")
@click.argument("inputs", metavar="DATA...", nargs=-1, required=True)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    required=True,
    help="Metric to compute, e.g. auc, gauc, ndcg@10 (repeatable).",
)
@data_options(
    "label",
    "score",
    "group",
    "item",
    "weight",
    "prediction",
    "by",
    "qrels",
    "pos_label",
    "where",
    score={
        **SCORES,
        "help": "Score column. Repeat it for several models, as --model (the first the "
        "baseline): a table row and a plot line per model, named by the score column, and "
        "their paired comparison.",
    },
)
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="COLUMN",
    help="Score column of one model (repeat for each, at least two; the first is the "
    "baseline): a table row and a plot line per model, and their paired comparison. "
    "Without it: one model, --score.",
)
@click.option(
    "--convention",
    default=None,
    type=click.Choice(convention_names()),
    help="Reproduce a tool's definitions: its values fill the options not given with --option.",
)
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
@click.option(
    "--db-url",
    default=None,
    metavar="URL",
    help="Run on the database of this SQLAlchemy URL; DATA is then a table name there.",
)
@click.option(
    "--spark",
    "spark_master",
    default=None,
    metavar="MASTER",
    help="Run on Spark with this master; DATA is then a table or a Parquet path.",
)
@ci_options
@friendly
def report_command(
    inputs: tuple[str, ...],
    metrics: tuple[str, ...],
    label: str,
    score: tuple[str, ...],
    group: str | None,
    item: str | None,
    weight: str | None,
    prediction: str | None,
    by: tuple[str, ...],
    qrels: str | None,
    pos_label: str | None,
    where: str | None,
    models: tuple[str, ...],
    convention: str | None,
    option_pairs: tuple[str, ...],
    curves: bool | None,
    max_slices: int,
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
    columns, the settings, versions and SQL; one file that works offline.
    """
    from .._evaluate.report import report

    metrics = tuple(split_metrics(metrics))
    if len(score) > 1:  # repeated --score: the models, as --model
        if models:
            raise InputError(
                f"--score given {len(score)} times and --model too; give the models one way, "
                f"e.g. --score {' --score '.join(score)}"
            )
        models = tuple(_models(score))
    if len(models) == 1:
        raise InputError(
            f"--model {models[0]}: give at least two --model columns (one per model, the first "
            f"the baseline), or --score for one model"
        )
    options = command_options(option_pairs, REPORT_FLAGS, pos_label)
    output_over_input(output, inputs, qrels)
    if convention is not None:
        if "convention" in options:
            raise InputError(
                "--convention and --option convention= both given; give it with --convention only"
            )
        options["convention"] = convention
    if _remote_engine_option(inputs, db_url, spark_master, False):
        table, database = inputs[0], None
        if spark_master is not None:
            spark_glob(table, "--spark: DATA")
    else:
        table, database = resolve_data(inputs)
    with engine_connection(database, db_url, spark_master) as con:
        written = report(
            table,
            [m.lower() for m in metrics],
            label=label,
            score=score[0],
            group=group,
            item=item,
            weight=weight,
            prediction=prediction,
            qrels=qrels,
            by=list(by) or None,
            scores=list(models) or None,
            ci=ci,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            curves=curves,
            max_slices=max_slices,
            path=output,
            title=title,
            where=bound_where(table, con, where),
            con=con,
            **options,
        )
    click.echo(f"wrote {written}")


def _register_plot() -> None:
    try:
        from ._plot import plot
    except ImportError:  # pragma: no cover - the plot command is optional
        return
    main.add_command(plot)


_register_plot()


if __name__ == "__main__":  # python -m sqlmetrics.cli
    main()
