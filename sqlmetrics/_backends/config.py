"""``configure``: resource limits of the DuckDB database sqlmetrics uses when ``con`` is None."""

from __future__ import annotations

import numbers
import os
import re

import duckdb

from .._templating.quoting import quote_literal
from ..errors import InvalidParameterError
from .duckdb_backend import private_database

__all__ = ["configure"]

_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def configure(
    *,
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> dict[str, str]:
    """Set resource limits for the in-memory DuckDB database used when ``con`` is omitted.

    Calls with ``con=`` use that connection's own settings instead, e.g.
    ``duckdb.connect(config={"memory_limit": "2GB", "threads": 2})``.

    Parameters
    ----------
    memory_limit : str, optional
        Largest memory DuckDB may use, e.g. ``"2GB"``; beyond it, sorts and aggregates spill
        to ``temp_directory``.
    threads : int, optional
        Number of worker threads (>= 1).
    temp_directory : str or path, optional
        Where DuckDB spills when ``memory_limit`` is reached. Default: a ``sqlmetrics-<uid>``
        folder in the system temporary directory (``tempfile.gettempdir()``), not DuckDB's own
        default ``.tmp`` in the current directory.
    progress : bool, optional
        ``True``: DuckDB's progress bar (printed on stdout by DuckDB, for queries running
        longer than two seconds) on the connections sqlmetrics opens itself (``con`` omitted
        or a database path); ``False`` turns it off again (the default). A connection you
        pass keeps its own ``enable_progress_bar`` setting.

    Returns
    -------
    dict
        The settings now in force: ``memory_limit``, ``threads``, ``temp_directory`` and
        ``progress`` (``'true'``/``'false'``).

    Raises
    ------
    InvalidParameterError
        A size that is not a number with a unit, ``threads`` < 1, or a new
        ``temp_directory`` after sqlmetrics' database has already spilled (DuckDB cannot
        switch it then), a ``progress`` that is not a bool.

    Examples
    --------
    >>> import sqlmetrics
    >>> settings = sqlmetrics.configure(threads=2)
    >>> settings["threads"]
    '2'
    """
    statements = []
    if memory_limit is not None:
        if not isinstance(memory_limit, str) or not _SIZE.match(memory_limit):
            raise InvalidParameterError(
                f"configure: memory_limit= must be a size with a unit such as '2GB' or "
                f"'512MiB' ({SIZE_FORMS}); got {memory_limit!r}"
            )
        _check_memory_floor(memory_limit)
        _check_memory_ceiling(memory_limit)
        statements.append(f"set memory_limit = {quote_literal(memory_limit.strip())}")
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
            raise InvalidParameterError(
                f"configure: threads= must be an integer >= 1; got {threads!r}"
            )
        statements.append(f"set threads = {int(threads)}")
    if progress is not None:
        if not isinstance(progress, bool):
            raise InvalidParameterError(
                f"configure: progress= must be True or False; got {progress!r}"
            )
        PROGRESS[0] = progress
    database = private_database()
    if temp_directory is not None:
        _set_temp_directory(database, os.fspath(temp_directory))
    for statement in statements:
        database.execute(statement)
    names = ("memory_limit", "threads", "temp_directory")
    values = database.execute(
        "select " + ", ".join(f"current_setting('{n}')" for n in names)
    ).fetchall()[0]
    settings = {name: str(value) for name, value in zip(names, values)}
    settings["progress"] = "true" if PROGRESS[0] else "false"
    return settings


#: configure(progress=): whether the connections sqlmetrics opens show DuckDB's progress bar
PROGRESS = [False]


def with_progress(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` (a connection or cursor sqlmetrics opened) with DuckDB's progress bar on or off
    as :func:`configure` ``(progress=)`` says; returned for chaining.
    """
    shown = "true" if PROGRESS[0] else "false"
    con.execute(f"set enable_progress_bar = {shown}")
    con.execute(f"set enable_progress_bar_print = {shown}")
    return con


def _set_temp_directory(database: duckdb.DuckDBPyConnection, path: str) -> None:
    """Set the spill directory; DuckDB refuses to switch once it has spilled there."""
    row = database.execute("select current_setting('temp_directory')").fetchone()
    if row is not None and str(row[0]) == path:
        return
    try:
        database.execute(f"set temp_directory = {quote_literal(path)}")
    except duckdb.NotImplementedException:
        raise InvalidParameterError(
            f"configure: temp_directory={path!r} cannot be set now: sqlmetrics' database has "
            f"already spilled to {row[0] if row else '?'!r} in this process, and DuckDB cannot "
            f"switch it afterwards; call configure(temp_directory=...) before the first large "
            f"computation (e.g. right after import)"
        ) from None


#: the sizes memory_limit= accepts, as its messages say
SIZE_FORMS = "a number and a unit: B, KB, MB, GB, TB, powers of 1000; KiB, MiB, GiB, TiB, of 1024"
#: DuckDB's size units (KB, MB, ... are powers of 1000; KiB, MiB, ... of 1024)
_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS.update({"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40})
#: the smallest memory_limit accepted. Measured on DuckDB 2.0 (2 threads): below 1MB no query
#: runs at all (one 256 KiB block per operator and thread), below 8MB an AUC over 100,000 rows
#: runs out of memory; such a limit is a typo ('1B' for '1GB'), refused before DuckDB sees it
MEMORY_FLOOR = 16 * 10**6


def _check_memory_floor(memory_limit: str) -> None:
    """Refuse a ``memory_limit`` below :data:`MEMORY_FLOOR`, with the fix."""
    found = re.match(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)", memory_limit)
    if found is None:  # pragma: no cover - _SIZE matched it
        return
    number, unit = float(found.group(1)), found.group(2)
    if number * _UNITS[unit.lower()] >= MEMORY_FLOOR:
        return
    hint = f" (did you mean '{found.group(1)}GB'?)" if unit.lower() == "b" else ""
    raise InvalidParameterError(
        f"configure: memory_limit={memory_limit!r} is below the 16MB DuckDB needs to run a "
        f"metric (below 8MB an AUC over 100,000 rows runs out of memory); give a size such as "
        f"'2GB' or '512MB'{hint}"
    )


#: the largest memory_limit DuckDB sets: its size in bytes, computed in double precision
#: (as DuckDB computes it), must stay below 2**64 ('18446744TB' is set, '18446745TB' refused)
MEMORY_CEILING = 2**64


def _check_memory_ceiling(memory_limit: str) -> None:
    """Refuse a ``memory_limit`` too large for DuckDB (its ParserException), with the fix."""
    found = re.match(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)", memory_limit)
    if found is None:  # pragma: no cover - _SIZE matched it
        return
    if float(found.group(1)) * _UNITS[found.group(2).lower()] < MEMORY_CEILING:
        return
    raise InvalidParameterError(
        f"configure: memory_limit={memory_limit!r} is more than DuckDB can set (below 2**64 "
        f"bytes: at most 18446744TB or 16777215TiB); give the memory DuckDB may use, such as "
        f"'2GB' or '512MiB' ({SIZE_FORMS})"
    )
