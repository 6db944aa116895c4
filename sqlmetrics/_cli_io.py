"""Input and output helpers shared by every ``sqlmetrics`` command (``eval``, ``plot``, ...).

One place decides how a command line names its data (files, globs expanded by the shell, a
directory of Parquet files, ``path/to/db.duckdb:table``), how errors and warnings reach the
terminal (one line on stderr, exit status 2, command-line flags instead of Python argument
names) and how results are written (``--output`` checked before any work is done).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import click
import duckdb

from ._source import directory_files
from .errors import SqlMetricsError

F = TypeVar("F", bound=Callable[..., Any])


# Python argument -> what the command line calls it
FLAGS = {
    "label": "--label",
    "score": "--score",
    "group": "--group",
    "item": "--item",
    "weight": "--weight",
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
}
# whole phrases that only make sense in Python
_PHRASES = (
    (", a table name with con=, or a DataFrame", " or path/to/db.duckdb:table"),
    ("pass con= the connection that holds the table", "name it as path/to/db.duckdb:table"),
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


def as_flags(message: str) -> str:
    """Rewrite Python argument names in a library message as command-line flags.

    >>> as_flags("'gauc' needs group=, the group column")
    "'gauc' needs --group, the group column"
    >>> as_flags("column 'click' (label=) not found; data='x.csv'")
    "column 'click' (--label) not found; DATA 'x.csv'"
    >>> as_flags("option gain= is accepted by none of the metrics")
    '--option gain= is accepted by none of the metrics'
    """
    from .registry import PARAMS

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        rest = message[match.end() : match.end() + 1]
        if name in FLAGS:
            return FLAGS[name] + (" " if rest and rest not in " ),;:" else "")
        if name in PARAMS or name in (
            "empty",
            "gain",
            "ties",
            "relevance_level",
            "pos_label",
            "duplicates",
            "drop_intermediate",
        ):
            return f"--option {name}="
        return match.group(0)

    for python, shell in _PHRASES:
        message = message.replace(python, shell)
    translated = _ARGUMENT.sub(flag, message)
    return translated.replace("option --option", "--option").replace(
        "option --threshold", "--threshold (or --option threshold=)"
    )


def _plain_warnings() -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints each distinct warning once, as one plain line."""
    seen: set[str] = set()

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = mask_url(as_flags(str(message))).strip().splitlines()
        shown = f"sqlmetrics: warning: {text[0] if text else category.__name__}"
        if shown not in seen:
            seen.add(shown)
            click.echo(shown, err=True)

    return show


def friendly(func: F) -> F:
    """Run a command: our errors, engine errors and I/O errors become one line and exit 2;
    warnings become one plain ``sqlmetrics: warning: ...`` line each; Ctrl-C cancels the
    running query and ends the command with ``sqlmetrics: interrupted``, exit 130.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(), interruptible():
            # every warning that is shown at all prints as one line; ours are always shown,
            # other libraries' keep Python's filters (a ResourceWarning stays silent)
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = _plain_warnings()
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
                    raise InputError(as_flags(str(exc))) from None
                if isinstance(exc, ImportError):  # e.g. matplotlib missing for `plot`
                    raise InputError(str(exc)) from None
                if isinstance(exc, duckdb.Error):
                    lines = str(exc).strip().splitlines()
                    raise InputError(
                        f"the query failed: {lines[0] if lines else type(exc).__name__}"
                    ) from None
                raise

    return wrapper  # type: ignore[return-value]


# --------------------------------------------------------------------------- input
def split_data(data: str) -> tuple[str, str | None]:
    """``"w.duckdb:events"`` -> (``"events"``, ``"w.duckdb"``); anything else -> (data, None)."""
    head, sep, tail = data.rpartition(":")
    if sep and head and tail and os.path.isfile(head) and not os.path.isfile(data):
        return tail, head
    if sep and head and tail and head.endswith((".duckdb", ".db")) and not os.path.isfile(data):
        raise InputError(f"DATA {data!r}: database file {head!r} does not exist")
    return data, None


def parquet_files(directory: str) -> list[str]:
    """The data files of a directory (``_source.directory_files``: its Parquet files, or its
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
            return parquet_files(items[0]), None
        return split_data(items[0])
    files: list[str] = []
    for item in items:
        if os.path.isdir(item):
            files.extend(parquet_files(item))
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
    """A connection (read-only on a database file) whose progress bar shows only when stdout
    is a terminal, and whose running query Ctrl-C interrupts.
    """
    con = duckdb.connect(database or ":memory:", read_only=database is not None)
    try:
        interactive = sys.stdout.isatty()
        con.execute(f"set enable_progress_bar = {'true' if interactive else 'false'}")
        if interactive:
            con.execute("set enable_progress_bar_print = true")
        with cancel_on_interrupt(con.interrupt):
            yield con
    finally:
        con.close()


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
