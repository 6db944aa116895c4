"""Input and output helpers shared by every ``sqlmetrics`` command (``eval``, ``plot``, ...).

One place decides how a command line names its data (files, globs expanded by the shell, a
directory of Parquet files, ``path/to/db.duckdb:table``), how errors and warnings reach the
terminal (one line on stderr, exit status 2, command-line flags instead of Python argument
names) and how results are written (``--output`` checked before any work is done).
"""

from __future__ import annotations

import os
import re
import sys
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


class InputError(click.ClickException):
    """A user error: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"sqlmetrics: error: {self.format_message()}", err=True)


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
        text = as_flags(str(message)).strip().splitlines()
        shown = f"sqlmetrics: warning: {text[0] if text else category.__name__}"
        if shown not in seen:
            seen.add(shown)
            click.echo(shown, err=True)

    return show


def friendly(func: F) -> F:
    """Run a command: our errors, engine errors and I/O errors become one line and exit 2;
    warnings become one plain ``sqlmetrics: warning: ...`` line each.
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            # every warning that is shown at all prints as one line; ours are always shown,
            # other libraries' keep Python's filters (a ResourceWarning stays silent)
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = _plain_warnings()
            try:
                return func(*args, **kwargs)
            except SqlMetricsError as exc:
                raise InputError(as_flags(str(exc))) from None
            except ImportError as exc:  # e.g. matplotlib missing for `plot`
                raise InputError(str(exc)) from None
            except duckdb.Error as exc:
                lines = str(exc).strip().splitlines()
                raise InputError(
                    f"the query failed: {lines[0] if lines else type(exc).__name__}"
                ) from None

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
    is a terminal.
    """
    con = duckdb.connect(database or ":memory:", read_only=database is not None)
    try:
        interactive = sys.stdout.isatty()
        con.execute(f"set enable_progress_bar = {'true' if interactive else 'false'}")
        if interactive:
            con.execute("set enable_progress_bar_print = true")
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
            message = exc.format_message().replace("\n", " ")
            click.echo(f"sqlmetrics: error: {message} (see '{where} --help')", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)
