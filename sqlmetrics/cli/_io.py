"""Input and output helpers and the options shared by every ``sqlmetrics`` command (``eval``,
``plot``, ...; each command in a module of its own).

One place decides how a command line names its data (files, globs expanded by the shell, a
directory of Parquet files, ``path/to/db.duckdb:table``), how errors and warnings reach the
terminal (one line on stderr, exit status 2, command-line flags instead of Python argument
names) and how results are written (``--output`` checked before any work is done).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

import click
import duckdb

from .._backends.files import check_output_over_input, directory_files
from .._core.conventions import convention_names
from ..errors import SqlMetricsError

if TYPE_CHECKING:
    import pandas as pd

F = TypeVar("F", bound=Callable[..., Any])


# Python argument -> what the command line calls it
FLAGS = {
    "label": "--label",
    "score": "--score",
    "group": "--group",
    "item": "--item",
    "weight": "--weight",
    "group_weight": "--group-weight",
    "prediction": "--prediction",
    "by": "--by",
    "qrels": "--qrels",
    "data": "DATA",
    "con": "DATA (path/to/db.duckdb:table)",
    "threshold": "--threshold",
    "ci": "--ci",
    "ci_method": "--ci-method",
    "n_boot": "--n-boot",
    "seed": "--seed",
    "labels": "--labels",
    "indicators": "--class-indicator",
    "convention": "--convention",
    "pos_label": "--pos-label",
}
# whole phrases that only make sense in Python
_PHRASES = (
    (", a table name with con=, or a DataFrame", " or path/to/db.duckdb:table"),
    ("pass con= the connection that holds the table", "name it as path/to/db.duckdb:table"),
    ("pass e.g. scores=['model_a', 'model_b']", "pass e.g. --score model_a --score model_b"),
)
_ARGUMENT = re.compile(r"(?<![\w-])([a-z_]+)=")


# the password of a URL (scheme://user:password@host): never echoed
_USERINFO = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]*:)[^\s/]*@")


def mask_url(text: str) -> str:
    """``text`` with the password of every URL in it shown as ``***``.

    >>> mask_url("--db-url 'postgresql://ann:s3cret@db.local:5432/x' is not usable")
    "--db-url 'postgresql://ann:***@db.local:5432/x' is not usable"
    """
    return _USERINFO.sub(lambda m: m.group("head") + "***@", text)


class InputError(click.ClickException):
    """A user error: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"sqlmetrics: error: {mask_url(self.format_message())}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: ``sqlmetrics: interrupted`` on stderr, exit status 130 (128 + SIGINT)."""

    exit_code = 130

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: Any = None) -> None:
        click.echo("sqlmetrics: interrupted", err=True)


# --------------------------------------------------------------------------- Ctrl-C
# A query runs inside the engine, where Python's own SIGINT handling waits until the query
# ends (DuckDB then raises "Query interrupted"; a bootstrap of compare ran on for minutes).
# So a command installs a handler that cancels the running query of every engine it opened
# (``cancel_on_interrupt``: DuckDB's ``interrupt()``, Spark's ``cancelAllJobs()``) and raises
# KeyboardInterrupt; whatever the engine then raises, the command ends as Interrupted.
_CANCELS: list[Callable[[], Any]] = []
_INTERRUPTED = threading.Event()


def _on_sigint(signum: int, frame: Any) -> None:
    _INTERRUPTED.set()
    for cancel in _CANCELS[:]:
        _cancel(cancel)
    raise KeyboardInterrupt


def _cancel(cancel: Callable[[], Any]) -> None:
    with contextlib.suppress(Exception):  # an engine already closed: nothing left to cancel
        cancel()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C during a command cancels its queries (see above); the previous handler is put
    back at the end. A SIGINT the caller ignores (a background job) stays ignored.
    """
    if not _in_main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    _INTERRUPTED.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def cancel_on_interrupt(cancel: Callable[[], Any]) -> Iterator[None]:
    """While the block runs, Ctrl-C calls ``cancel()`` (which stops the engine's query)."""
    _CANCELS.append(cancel)
    handler = signal.getsignal(signal.SIGINT)
    replace = _in_main_thread() and handler not in (_on_sigint, signal.SIG_IGN, signal.SIG_DFL)
    if replace:
        # the engine put its own handler in place (pyspark's SparkContext does): ours again
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        _CANCELS.remove(cancel)
        if replace:
            signal.signal(signal.SIGINT, handler)


#: options the CLI sets with --option NAME=VALUE (besides the registry's parameters)
_OPTIONS = ("empty", "gain", "ties", "relevance_level", "duplicates", "drop_intermediate")
#: ``NAME='a' or 'b'`` (a message listing two values of an option)
_TWO_VALUES = re.compile(r"--option ([a-z_]+)='([\w.@-]*)' or '([\w.@-]*)'")
#: ``--option NAME='value'``: the shell needs no quotes around a plain word
_QUOTED = re.compile(r"--option ([a-z_]+)='([\w.@-]*)'")


def _is_option(name: str) -> bool:
    from .._core.registry import PARAMS

    return name not in FLAGS and (name in PARAMS or name in _OPTIONS)


#: per command (its name), Python argument -> the flag that sets it there, where it differs
#: from :data:`FLAGS` (report's scores= is --model, compare's is --score); filled by
#: each command's module
COMMAND_FLAGS: dict[str, Mapping[str, str]] = {}


def command_flags() -> dict[str, str]:
    """Python argument -> flag of the running command: each option's own name
    (``n_permutations`` -> ``--n-permutations``), then :data:`COMMAND_FLAGS`'s entries.
    """
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return {}
    flags: dict[str, str] = {}
    for param in ctx.command.params:
        if isinstance(param, click.Option) and param.name and param.opts:
            flags[param.name] = max(param.opts, key=len)
    named = COMMAND_FLAGS.get(ctx.command.name or "", {})
    flags.update({k: v for k, v in named.items() if v.startswith("-")})
    return flags


def as_flags(message: str, flags: Mapping[str, str] | None = None) -> str:
    """Rewrite Python argument names in a library message as command-line flags; ``flags``
    (the command's own, :func:`command_flags`) come first.

    >>> as_flags("'gauc' needs group=, the group column")
    "'gauc' needs --group, the group column"
    >>> as_flags("column 'click' (label=) not found; data='x.csv'")
    "column 'click' (--label) not found; DATA 'x.csv'"
    >>> as_flags("option gain= is accepted by none of the metrics")
    '--option gain= is accepted by none of the metrics'
    >>> as_flags("merge them with duplicates='max' or 'sum'")
    'merge them with --option duplicates=max or --option duplicates=sum'
    >>> as_flags("pass empty='zero' to count them, or convention= to follow a tool")
    'pass --option empty=zero to count them, or --convention to follow a tool'
    >>> as_flags("n_permutations= must be >= 10", {"n_permutations": "--n-permutations"})
    '--n-permutations must be >= 10'
    """
    own = dict(flags or {})

    def two(match: re.Match[str]) -> str:
        name, first, second = match.groups()
        return f"--option {name}={first} or --option {name}={second}"

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        rest = message[match.end() : match.end() + 1]
        if name in own or name in FLAGS:
            shown = own.get(name) or FLAGS[name]
            return shown + (" " if rest and rest not in " ),;:?" else "")
        if _is_option(name):
            return f"--option {name}="
        return match.group(0)

    for python, shell in _PHRASES:
        message = message.replace(python, shell)
    translated = _ARGUMENT.sub(flag, message)
    translated = translated.replace("option --option", "--option").replace(
        "option --threshold", "--threshold (or --option threshold=)"
    )
    return _QUOTED.sub(r"--option \1=\2", _TWO_VALUES.sub(two, translated))


def _ours(category: type[Warning]) -> bool:
    """Whether a warning is one of sqlmetrics' own (:mod:`sqlmetrics.errors`' classes)."""
    from ..errors import SkippedGroupsWarning, UndefinedMetricWarning

    return issubclass(category, (UndefinedMetricWarning, SkippedGroupsWarning))


def _plain_warnings(default: Callable[..., None]) -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints each distinct sqlmetrics warning once, as one
    plain line; another library's warning (pyspark's, pandas') goes to ``default``, Python's
    own display, never dressed as ours.
    """
    seen: set[str] = set()
    flags = command_flags()

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        if not _ours(category):
            default(message, category, filename, lineno, file, line)
            return
        text = mask_url(as_flags(str(message), flags)).strip().splitlines()
        shown = f"sqlmetrics: warning: {text[0] if text else category.__name__}"
        if shown not in seen:
            seen.add(shown)
            click.echo(shown, err=True)

    return show


def friendly(func: F) -> F:
    """Run a command: our errors, engine errors and I/O errors become one line and exit 2;
    sqlmetrics' warnings become one plain ``sqlmetrics: warning: ...`` line each (other
    libraries' keep Python's display); Ctrl-C cancels the running query and ends the command
    with ``sqlmetrics: interrupted``, exit 130.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(), interruptible():
            # ours are always shown (once per distinct line, below); other libraries' keep
            # Python's filters (a ResourceWarning stays silent) and Python's display
            from ..errors import SkippedGroupsWarning, UndefinedMetricWarning

            warnings.simplefilter("always", UndefinedMetricWarning)
            warnings.simplefilter("always", SkippedGroupsWarning)
            warnings.showwarning = _plain_warnings(warnings.showwarning)
            try:
                return func(*args, **kwargs)
            except KeyboardInterrupt:
                raise Interrupted() from None
            except Exception as exc:
                # after Ctrl-C, whatever the cancelled query raised ("Query interrupted",
                # an InterruptException, an error wrapping it) is the interruption
                if _INTERRUPTED.is_set() or isinstance(exc, duckdb.InterruptException):
                    raise Interrupted() from None
                if isinstance(exc, SqlMetricsError):
                    raise InputError(as_flags(str(exc), command_flags())) from None
                if isinstance(exc, ImportError):  # e.g. matplotlib missing for `plot`
                    raise InputError(str(exc)) from None
                if isinstance(exc, duckdb.Error):
                    lines = str(exc).strip().splitlines()
                    raise InputError(
                        f"the query failed: {lines[0] if lines else type(exc).__name__}"
                    ) from None
                raise

    return wrapper  # type: ignore[return-value]


# --------------------------------------------------------------------------- grammar
# One grammar for eval, render, compare and plot: the same column flags, the same --option
# NAME=VALUE, the same --pos-label and --where, declared once here (``data_options``).


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


def parse_class(text: str) -> Any:
    """A class written on the command line: ``"2"`` -> 2, ``"0.5"`` -> 0.5, ``"true"`` ->
    True, ``"'2'"`` (in quotes) -> the text ``"2"``, anything else (``none`` too) its text.
    """
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        return stripped[1:-1]
    value = parse_value(stripped)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return stripped  # a class named none or nan is text (None and NaN are no class)
    return value


def parse_options(pairs: tuple[str, ...], taken: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``--option NAME=VALUE`` pairs -> ``{NAME: value}``; a NAME the command sets with a
    flag of its own (``taken``: name -> flag) is refused, naming that flag.
    """
    taken = taken or {}
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise InputError(f"--option {pair!r}: write NAME=VALUE, e.g. --option gain=linear")
        name = key.strip()
        if name in taken:
            flag = taken[name]
            use = (
                f"write {flag} {value}"
                if flag.startswith("--") and "/" not in flag
                else f"give it with {flag}"
            )
            raise InputError(
                f"--option {pair!r}: {name} is set by {flag}, not by --option; {use} instead"
            )
        options[name] = parse_value(value)
    return options


#: every flag of the shared grammar: its click declaration, once
GRAMMAR: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "label": (("--label",), {"default": "label", "show_default": True, "help": "Label column."}),
    "score": (("--score",), {"default": "score", "show_default": True, "help": "Score column."}),
    "group": (
        ("--group",),
        {"default": None, "help": "Group column (user, query) for GAUC and ranking."},
    ),
    "item": (("--item",), {"default": None, "help": "Item (document) column for ranking metrics."}),
    "weight": (("--weight",), {"default": None, "help": "Sample-weight column."}),
    "group_weight": (
        ("--group-weight",),
        {
            "default": None,
            "help": "Per-group weight column of the ranking means over groups (constant "
            "within a group).",
        },
    ),
    "prediction": (
        ("--prediction",),
        {"default": None, "help": "0/1 prediction column (threshold metrics)."},
    ),
    "by": (("--by",), {"multiple": True, "help": "Slice column (repeatable): one row per slice."}),
    "qrels": (
        ("--qrels",),
        {"default": None, "help": "Ground-truth file or table for ranking metrics."},
    ),
    "pos_label": (
        ("--pos-label",),
        {
            "default": None,
            "metavar": "CLASS",
            "help": "The positive class of a two-valued label column (e.g. yes/no from "
            "Parquet): numbers and true/false are typed as such, a class in quotes ('1') "
            "stays text, e.g. --pos-label yes.",
        },
    ),
    "where": (
        ("--where",),
        {
            "default": None,
            "metavar": "SQL",
            "help": "Keep only the rows where this SQL boolean expression over DATA's columns "
            "holds, before any metric, e.g. --where \"day >= '2026-11-01'\". It is your SQL, "
            "executed as written (no ';').",
        },
    ),
    "convention": (
        ("--convention",),
        {
            "default": None,
            "type": click.Choice(convention_names()),
            "help": "Reproduce a tool's definitions: its values fill the options not given "
            "with --option.",
        },
    ),
    "option": (
        ("--option", "option_pairs"),
        {
            "multiple": True,
            "metavar": "NAME=VALUE",
            "help": "A metric option, e.g. gain=linear, duplicates=max or threshold=0.3 "
            "(repeatable).",
        },
    ),
}


#: what sets ``con=`` in the commands that take --db-url and --spark (eval, compare)
ENGINE_CON = "DATA (path/to/db.duckdb:table), --db-url or --spark"
#: DATA... of the commands that read one or more inputs (eval, report, compare)
inputs_argument = click.argument("inputs", metavar="DATA...", nargs=-1, required=True)

#: the data flags of the commands that read columns by role (eval, report, render), in order
ROLES = ("label", "score", "group", "item", "weight", "prediction", "by", "qrels", "pos_label")


@dataclass(frozen=True)
class Roles:
    """The column flags of ``eval``, ``report`` and ``render`` (:data:`ROLES`), as given."""

    label: Any  # a column name; None in render (--label's default there: each metric's own)
    score: tuple[str, ...]
    group: str | None
    item: str | None
    weight: str | None
    prediction: str | None
    by: tuple[str, ...]
    qrels: str | None
    pos_label: str | None


def role_options(**overrides: dict[str, Any]) -> Callable[[F], F]:
    """The flags of :data:`ROLES` (as :func:`data_options`), passed to the command together,
    as ``roles`` (:class:`Roles`).
    """

    def decorate(func: F) -> F:
        @wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            roles = Roles(**{name: kwargs.pop(name) for name in ROLES})
            return func(*args, roles=roles, **kwargs)

        return data_options(*ROLES, **overrides)(command)  # type: ignore[return-value]

    return decorate


def metric_option(help: str, *, required: bool = False) -> Callable[[F], F]:
    """``-m/--metric`` (repeatable, into ``metrics``), with the command's own help."""
    return click.option("-m", "--metric", "metrics", multiple=True, required=required, help=help)


def data_options(*names: str, **overrides: dict[str, Any]) -> Callable[[F], F]:
    """The flags ``names`` of :data:`GRAMMAR` on a command, in that order; ``overrides``
    changes a flag's settings for that command (``score={"multiple": True}``).
    """
    unknown = sorted(set(overrides) - set(names))
    if unknown:  # pragma: no cover - a programming error
        raise ValueError(f"data_options: overrides for flags not requested: {unknown}")

    def decorate(func: F) -> F:
        for name in reversed(names):
            decls, settings = GRAMMAR[name]
            func = click.option(*decls, **{**settings, **overrides.get(name, {})})(func)
        return func

    return decorate


def command_options(
    option_pairs: tuple[str, ...], taken: Mapping[str, str], pos_label: str | None = None
) -> dict[str, Any]:
    """The metric options of a command: ``--option`` pairs, plus ``--pos-label`` (typed as
    ``--labels`` classes); one given both ways is refused.
    """
    options = parse_options(option_pairs, taken)
    if pos_label is not None:
        if "pos_label" in options:
            raise InputError(
                "--pos-label and --option pos_label= both given; give it with --pos-label only"
            )
        if not pos_label.strip():
            raise InputError(
                "--pos-label '': an empty class; give the positive class, e.g. --pos-label yes"
            )
        options["pos_label"] = parse_class(pos_label)
    return options


def check_where(where: str) -> str:
    """``--where``'s expression: one SQL boolean expression, as ``where=`` checks it
    (``_engine.where``: no ``;``, no comment, no parenthesis it did not open).
    """
    from .._engine.where import where_problem

    if not where.strip():
        raise InputError(
            "--where '': give a SQL boolean expression over DATA's columns, "
            "e.g. --where \"country = 'DE'\""
        )
    problem = where_problem(where)
    if problem is not None:
        raise InputError(
            f"--where {where!r} {problem}: give one SQL boolean expression over DATA's "
            f"columns, e.g. --where \"country = 'DE'\""
        )
    return where


def split_metrics(metrics: tuple[str, ...]) -> list[str]:
    """``-m auc,gauc -m ndcg@10`` -> ``["auc", "gauc", "ndcg@10"]``: a comma outside
    parentheses separates names (``'nDCG(dcg=exp-log2)@10'`` stays whole); an empty name
    (``-m auc,``) is an error.
    """
    names: list[str] = []
    for text in metrics:
        depth, start = 0, 0
        parts = []
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
        for part in parts:
            if not part.strip():
                raise InputError(
                    f"-m {text!r}: an empty metric name; write the metrics separated by "
                    f"commas or as repeated -m, e.g. -m auc,gauc or -m auc -m gauc"
                )
            names.append(part.strip())
    return names


def single_score(command: str, scores: tuple[str, ...], where: str) -> str:
    """The one ``--score`` of a command that draws or renders one model; given several
    times it is refused, with the commands that take several models.
    """
    if len(scores) == 1:
        return scores[0]
    raise InputError(
        f"{command}: --score given {len(scores)} times ({', '.join(scores)}), and {where} one "
        f"model; for one line or row per model use `sqlmetrics report DATA --score "
        f"{' --score '.join(scores)}` or `sqlmetrics eval` (a model column), and `sqlmetrics "
        f"compare` for their paired tests"
    )


def bound_where(table: Any, con: Any, where: str | None) -> str | None:
    """``--where``'s expression checked (:func:`check_where`) and bound to ``table`` on
    ``con`` by a query that reads no row, so a wrong column or a syntax error is named now,
    before any metric; None without ``--where``.
    """
    if where is None:
        return None
    where = check_where(where)
    from .._backends import backend_for
    from .._backends.source import open_source, where_cause

    with backend_for(con, table) as backend, open_source(table, backend, "eval") as src:
        cause = where_cause(src, where)
    if cause is not None:
        raise InputError(
            f"--where {where!r} cannot be applied to DATA: {cause}; write a SQL boolean "
            f"expression over DATA's columns, e.g. --where \"country = 'DE'\""
        )
    return where


def filtered(table: Any, con: Any, where: str | None) -> Any:
    """``table`` (what ``data=`` gets) keeping the rows where ``--where`` holds: the library's
    ``where=`` (``Filtered``), read so by every command on every engine (DuckDB, Spark,
    ``--db-url``); ``table`` itself without ``--where``.
    """
    from .._engine.where import filtered as where_filtered

    return where_filtered(table, bound_where(table, con, where))


# --------------------------------------------------------------------------- input
def split_data(data: str) -> tuple[str, str | None]:
    """``"w.duckdb:events"`` -> (``"events"``, ``"w.duckdb"``); anything else -> (data, None)."""
    head, sep, tail = data.rpartition(":")
    if sep and head and tail and os.path.isfile(head) and not os.path.isfile(data):
        return tail, head
    if sep and head and tail and head.endswith((".duckdb", ".db")) and not os.path.isfile(data):
        raise InputError(f"DATA {data!r}: database file {head!r} does not exist")
    return data, None


def folder_files(directory: str) -> list[str]:
    """The data files of a directory (``_backends.files.directory_files``: its Parquet files, or its
    CSV files when it has none), as ``data=`` reads a directory too.
    """
    files = directory_files(directory)
    if not files:
        raise InputError(
            f"DATA {directory!r} is a directory with no Parquet or CSV file in it; pass "
            f"files, a glob such as '{directory.rstrip('/')}/*.csv', or a directory of Parquet"
        )
    return files


def resolve_data(data: tuple[str, ...] | list[str] | str) -> tuple[Any, str | None]:
    """The command line's DATA arguments -> (what ``data=`` gets, database path or None).

    One argument: a file, glob, table of ``path/to/db.duckdb:table`` or a directory of Parquet
    files. Several (e.g. an unquoted glob the shell expanded): files read together.
    """
    items = [data] if isinstance(data, str) else list(data)
    if not items:
        raise InputError(
            "missing DATA: pass a Parquet/CSV file, a glob, a directory of "
            "Parquet files or path/to/db.duckdb:table"
        )
    if len(items) == 1:
        if os.path.isdir(items[0]):
            return folder_files(items[0]), None
        return split_data(items[0])
    files: list[str] = []
    for item in items:
        if os.path.isdir(item):
            files.extend(folder_files(item))
        elif ":" in item and not os.path.exists(item) and split_data(item)[1] is not None:
            raise InputError(
                f"DATA {item!r}: a database table cannot be combined with other inputs; "
                f"pass one path/to/db.duckdb:table, or files only"
            )
        else:
            files.append(item)
    return files, None


@contextmanager
def connection(database: str | None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection (read-only on a database file) whose running query Ctrl-C interrupts, and
    whose progress shows on stderr when stderr is a terminal (:func:`progress_on_stderr`).
    """
    con = duckdb.connect(database or ":memory:", read_only=database is not None)
    try:
        with cancel_on_interrupt(con.interrupt), progress_on_stderr(con):
            yield con
    finally:
        con.close()


#: seconds a query runs before its progress shows, and between two updates
PROGRESS_AFTER, PROGRESS_EVERY = 2.0, 0.5


@contextmanager
def progress_on_stderr(
    con: duckdb.DuckDBPyConnection, stream: Any = None
) -> Iterator[threading.Event | None]:
    """While the block runs, a query running longer than :data:`PROGRESS_AFTER` seconds shows
    ``sqlmetrics: 42% done`` on one line of ``stream`` (stderr), if it is a terminal.

    DuckDB's own progress bar prints to stdout, where it would mix with the results (and a
    piped stdout gets none); so its tracking is switched on (``enable_progress_bar``) with its
    printing off, and a thread reads ``con.query_progress()``. Yields the thread's stop event
    (None when nothing is shown).
    """
    stream = sys.stderr if stream is None else stream
    shown = bool(getattr(stream, "isatty", lambda: False)())
    con.execute(f"set enable_progress_bar = {'true' if shown else 'false'}")
    con.execute("set enable_progress_bar_print = false")
    if not shown:
        yield None
        return
    stop = threading.Event()

    def report() -> None:
        started: float | None = None
        last = ""
        while not stop.wait(PROGRESS_EVERY):
            try:
                done = con.query_progress()
            except Exception:  # the connection closed under us: nothing left to show
                break
            if done < 0:  # no query running
                started = None
                continue
            now = time.monotonic()
            started = now if started is None else started
            if now - started >= PROGRESS_AFTER:
                last = f"\rsqlmetrics: {min(done, 100.0):3.0f}% done"
                stream.write(last)
                stream.flush()
        if last:
            stream.write("\r" + " " * len(last) + "\r")
            stream.flush()

    thread = threading.Thread(target=report, name="sqlmetrics-progress", daemon=True)
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join()


# --------------------------------------------------------------------------- output
def check_output(
    ctx: click.Context | None, param: click.Parameter | None, value: str | None
) -> str | None:
    """``--output`` callback: refuse a directory or a path in a missing directory up front."""
    if value is None:
        return None
    if os.path.isdir(value):
        raise InputError(
            f"--output {value!r} is a directory; give a file name, e.g. "
            f"--output {os.path.join(value, 'metrics.csv')}"
        )
    parent = os.path.dirname(value)
    if parent and not os.path.isdir(parent):
        raise InputError(
            f"--output {value!r}: directory {parent!r} does not exist; create it "
            f"first or write elsewhere"
        )
    return value


def output_over_input(
    output: str | None,
    inputs: Sequence[str],
    qrels: str | None = None,
    flag: str = "--output",
    also: Sequence[tuple[str, str]] = (),
) -> None:
    """Refuse, before any work, an output file that is a file the command reads (DATA, the
    database of ``path/to/db.duckdb:table``, ``--qrels``, the (flag, path) pairs of ``also``),
    lies in a DATA folder or is matched by a DATA glob
    (``_backends.files.check_output_over_input``, as ``report(path=)``).
    """
    if output is None:
        return
    sources: list[tuple[str, Any]] = []
    for item in inputs:
        head, sep, tail = item.rpartition(":")
        if sep and head and tail and os.path.isfile(head) and not os.path.exists(item):
            sources.append(("DATA", head))  # path/to/db.duckdb:table reads the database
        else:
            sources.append(("DATA", item))
    if qrels is not None:
        sources.append(("--qrels", qrels))
    sources.extend(also)
    try:
        check_output_over_input(None, flag, output, sources)
    except SqlMetricsError as exc:
        raise InputError(str(exc)) from None


def write_file(output: str, save: Callable[[str], None]) -> None:
    """Call ``save(output)``; an operating-system error becomes a one-line error."""
    try:
        save(output)
    except OSError as exc:
        raise InputError(f"--output {output!r} cannot be written: {exc.strerror or exc}") from None


def write(text: str, output: str | None) -> None:
    """Write ``text`` to ``output`` (UTF-8), or to stdout when there is none."""
    if not output:
        click.echo(text, nl=False)
        return

    def save(path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    write_file(output, save)


# ------------------------------------------------------- options and helpers of the commands
#: ``--metrics-dir`` on eval, render and list: users' own metric files, registered first
metrics_dir_option = click.option(
    "--metrics-dir",
    "metrics_dirs",
    multiple=True,
    metavar="DIR",
    help="Register every *.sql file of DIR as a metric first (your own metrics, "
    "from each file's front matter; repeatable).",
)

#: ``--output FILE`` on eval and compare (checked before any work is done)
output_option = click.option(
    "--output",
    default=None,
    type=click.Path(dir_okay=False),
    callback=check_output,
    help="Write to this file instead of stdout.",
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
    """``frame`` as ``--format`` says: a table (6 decimals, p-values to 3 significant
    digits), CSV (each double in its shortest exact text) or JSON records (NaN as null).
    """
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


def score_models(scores: tuple[str, ...]) -> list[str]:
    """The models of repeated ``--score`` flags; one given twice is refused."""
    twice = sorted({s for s in scores if scores.count(s) > 1})
    if twice:
        raise InputError(f"--score {twice[0]} is given twice; give each model's score column once")
    return list(scores)


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


def load_dirs(directories: tuple[str, ...]) -> None:
    """Register the user metrics of every ``--metrics-dir``."""
    from .._engine.user import load_metrics_dir

    for directory in directories:
        load_metrics_dir(directory)


# --------------------------------------------------------------------------- usage errors
class Group(click.Group):
    """A command group whose usage errors (a missing option, ``--output .``) are one line on
    stderr with a pointer to ``--help``, exit status 2, like every other input error.
    """

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # a bare `sqlmetrics`: its help
            click.echo(
                exc.ctx.get_help()
                if exc.ctx is not None
                else self.get_help(self.context_class(self))
            )
            sys.exit(0)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "sqlmetrics"
            message = mask_url(exc.format_message().replace("\n", " "))
            click.echo(f"sqlmetrics: error: {message} (see '{where} --help')", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort as exc:
            if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
                Interrupted().show()  # Ctrl-C outside a command (parsing the arguments)
                sys.exit(Interrupted.exit_code)
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)
