"""The ``sqlmetrics`` command line: evaluate files and tables from the shell.

    sqlmetrics eval DATA -m auc -m gauc -m ndcg@10 --label click --score pctr --group user_id
    sqlmetrics render auc --label click
    sqlmetrics list

Bad input (a missing file, an unknown column, metric or option) prints one line on stderr and
exits 2; there is never a Python traceback for something we could check.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import click
import duckdb
import pandas as pd

from .errors import SqlMetricsError

F = TypeVar("F", bound=Callable[..., Any])


class InputError(click.ClickException):
    """A user error: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"sqlmetrics: error: {self.format_message()}", err=True)


def friendly(func: F) -> F:
    """Turn our ValueErrors (and engine errors on unchecked input) into one-line exits."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SqlMetricsError as exc:
            raise InputError(str(exc)) from None
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"the query failed: {first}") from None

    return wrapper  # type: ignore[return-value]


def parse_value(text: str) -> Any:
    """``"10"`` -> 10, ``"0.5"`` -> 0.5, ``"none"`` -> None, ``"true"`` -> True, else text."""
    lowered = text.strip().lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "nan":
        return math.nan
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise InputError(f"--option {pair!r}: write NAME=VALUE, e.g. --option gain=linear")
        options[key.strip()] = parse_value(value)
    return options


def split_data(data: str) -> tuple[str, str | None]:
    """``"w.duckdb:events"`` -> (``"events"``, ``"w.duckdb"``); anything else -> (data, None)."""
    head, sep, tail = data.rpartition(":")
    if sep and head and tail and os.path.isfile(head) and not os.path.isfile(data):
        return tail, head
    if sep and head and tail and head.endswith((".duckdb", ".db")) and not os.path.isfile(data):
        raise InputError(f"DATA {data!r}: database file {head!r} does not exist")
    return data, None


@contextmanager
def connection(database: str | None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection whose progress bar shows only when stdout is a terminal."""
    con = duckdb.connect(database or ":memory:", read_only=database is not None)
    try:
        interactive = sys.stdout.isatty()
        con.execute(f"set enable_progress_bar = {'true' if interactive else 'false'}")
        if interactive:
            con.execute("set enable_progress_bar_print = true")
        yield con
    finally:
        con.close()


def _dates_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Date slices as ISO text (``2026-11-01``; with the time only when there is one)."""
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            times = out[col].dropna()
            midnight = bool((times == times.dt.normalize()).all())
            out[col] = out[col].dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%dT%H:%M:%S")
    return out


def format_frame(frame: pd.DataFrame, fmt: str) -> str:
    frame = _dates_as_text(frame)
    if fmt == "csv":
        return str(frame.to_csv(index=False, float_format="%.17g"))
    if fmt == "json":
        records = [
            {k: (None if isinstance(v, float) and math.isnan(v) else _plain(v))
             for k, v in row.items()}
            for row in frame.to_dict(orient="records")
        ]
        return json.dumps(records, indent=2) + "\n"
    return str(frame.to_string(index=False, float_format=lambda v: f"{v:.6f}")) + "\n"


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return value


def write(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sqlmetrics")
def main() -> None:
    """Evaluate classification, CTR and ranking models in SQL, where the data lives."""


@main.command("eval")
@click.argument("data")
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="Metric to compute, e.g. auc, gauc, ndcg@10 (repeatable).")
@click.option("--label", default="label", show_default=True, help="Label column.")
@click.option("--score", default="score", show_default=True, help="Score column.")
@click.option("--group", default=None, help="Group column (user, query) for GAUC and ranking.")
@click.option("--item", default=None, help="Item (document) column for ranking metrics.")
@click.option("--weight", default=None, help="Sample-weight column.")
@click.option("--prediction", default=None, help="0/1 prediction column (threshold metrics).")
@click.option("--by", multiple=True, help="Slice column (repeatable): one row per slice.")
@click.option("--qrels", default=None, help="Ground-truth file or table for ranking metrics.")
@click.option("--trec", is_flag=True,
              help="DATA is a TREC run file (qid Q0 docno rank score run) and --qrels a TREC "
                   "qrels file (qid iter docno rel); columns group, item, score, label. "
                   "Options default to trec_eval's: empty=zero missing=skip gain=linear "
                   "(--option missing=zero is trec_eval -c).")
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="A metric option, e.g. gain=linear or threshold=0.3 (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="Output format.")
@click.option("--output", default=None, type=click.Path(dir_okay=False),
              help="Write to this file instead of stdout.")
@friendly
def eval_command(data: str, metrics: tuple[str, ...], label: str, score: str,
                 group: str | None, item: str | None, weight: str | None,
                 prediction: str | None, by: tuple[str, ...], qrels: str | None, trec: bool,
                 option_pairs: tuple[str, ...], fmt: str, output: str | None) -> None:
    """Compute METRICs over DATA: a Parquet/CSV path or glob, or path/to/db.duckdb:table."""
    from .evaluate import evaluate
    from .trec import read_trec_qrels, read_trec_run

    table: Any
    judged: Any = qrels
    table, database = split_data(data)
    if trec:
        table, database = read_trec_run(data), None
        judged = read_trec_qrels(qrels) if qrels is not None else None
        group, item = group or "group", item or "item"
    options = parse_options(option_pairs)
    if trec:
        from .trec import trec_eval_options

        options = {**trec_eval_options(metrics), **options}
    extra = {"qrels": judged} if judged is not None else {}
    with connection(database) as con:
        frame = evaluate(
            table, list(metrics), label=label, score=score, group=group, item=item,
            weight=weight, prediction=prediction, by=list(by) or None, con=con,
            **extra, **options,
        )
    write(format_frame(frame, fmt), output)


@main.command("render", context_settings={"ignore_unknown_options": True,
                                          "allow_extra_args": True})
@click.argument("metric", required=False)
@click.option("-m", "--metric", "metrics", multiple=True,
              help="Metric of the evaluate statement (repeatable), e.g. -m auc -m ndcg@10.")
@click.option("--by", multiple=True, help="Slice column (repeatable).")
@click.option("--data", default="source_table", show_default=True,
              help="Table name or Parquet/CSV path to read from.")
@click.pass_context
@friendly
def render_command(ctx: click.Context, metric: str | None, metrics: tuple[str, ...],
                   by: tuple[str, ...], data: str) -> None:
    """Print the SQL of METRIC (its own template), or with -m the one statement `eval` runs
    for those metrics; pass columns, --qrels and options as --name value."""
    from ._render import render, render_evaluate

    params: dict[str, Any] = {}
    args = list(ctx.args)
    if metric is not None and metric.startswith("--"):  # an unknown --name taken as METRIC
        args.insert(0, metric)
        metric = None
    while args:
        flag = args.pop(0)
        if not flag.startswith("--") or not args:
            raise InputError(f"render: expected '--name value' pairs; got {flag!r}")
        params[flag[2:].replace("-", "_")] = parse_value(args.pop(0))
    for role in ("label", "score", "weight", "group", "item", "prediction", "qrels"):
        if role in params and params[role] is not None:
            params[role] = str(params[role])
    slices = list(by) or None
    if metrics:
        sql = render_evaluate(data, [*([metric] if metric else []), *metrics], by=slices,
                              **params)
    elif metric:
        sql = render(metric, data, by=slices, **params)
    else:
        raise InputError("render: name a metric (render ndcg@10) or several with -m")
    click.echo(sql, nl=False)


@main.command("list")
def list_command() -> None:
    """List every metric with its definition and options."""
    from .registry import PARAMS, REGISTRY

    for name in sorted(REGISTRY):
        spec = REGISTRY[name]
        shown = f"{name}@k" if spec.takes_k else name
        click.echo(f"{shown:<22} {spec.summary}")
        options = [p for p in spec.params if p != "k"]
        if options:
            click.echo(f"{'':<22} options: " + ", ".join(
                f"{p}={PARAMS[p].default!r}" for p in options))


def _register_plot() -> None:
    try:
        from ._cli_plot import plot
    except ImportError:  # pragma: no cover - the plot command is optional
        return
    main.add_command(plot)


_register_plot()


if __name__ == "__main__":  # python -m sqlmetrics.cli
    main()
