"""Data files named by ``data=``: paths, globs and folders (Hive-partitioned exports), the
kind of each (Parquet or CSV), and the SQL that reads them in a dialect.

A path naming an existing file is that file, whatever characters its name holds; a path naming
no file is a glob when it holds ``*``, ``?`` or ``[`` (its leading directories that exist are
taken literally).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Sequence
from typing import Any

from .._core.dialects import DIALECTS, FILE_KINDS
from ..errors import InvalidDataError, InvalidParameterError

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")
GLOB_CHARS = ("*", "?", "[")


def is_path_like(data: Any) -> bool:
    """Whether ``data`` names files (a path, glob or Parquet/CSV name) rather than a table.

    A path-like object; a string with a data-file suffix, a glob character or a path
    separator; or a string naming an existing file. Running and rendering both decide here.
    """
    if isinstance(data, os.PathLike):
        return True
    if isinstance(data, str):
        lower = data.lower()
        return (
            lower.endswith(PARQUET_SUFFIXES + CSV_SUFFIXES)
            or any(ch in data for ch in GLOB_CHARS)
            or os.sep in data
            or os.path.isfile(data)
            or os.path.isdir(data)
        )
    return False


def directory_files(directory: str) -> list[str]:
    """The data files under ``directory``, recursively and sorted: a warehouse export, with or
    without Hive partitions (``day=2026-11-01/part-0.parquet``), whose partition columns DuckDB
    reads from the paths. Its Parquet files, or, when it has none, its CSV files; ``[]`` when
    it holds neither.
    """
    found = sorted(
        path
        for path in glob.glob(os.path.join(glob.escape(directory), "**", "*"), recursive=True)
        if os.path.isfile(path)
    )
    parquet = [p for p in found if p.lower().endswith(PARQUET_SUFFIXES)]
    return parquet or [p for p in found if p.lower().endswith(CSV_SUFFIXES)]


def file_kind(path: str) -> str:
    """How a data file is read: ``"parquet"`` by its suffix, else ``"csv"`` (any delimiter); a
    directory as the files :func:`directory_files` finds in it (Parquet when it has none).
    """
    if os.path.isdir(path):
        files = directory_files(path)
        return file_kind(files[0]) if files else "parquet"
    return "parquet" if path.lower().endswith(PARQUET_SUFFIXES) else "csv"


def data_kind(data: Any) -> str:
    """How ``data=`` is read: ``"parquet"`` or ``"csv"`` (files: see :func:`is_path_like`),
    ``"table"`` (any other string: a table or view name) or ``"object"`` (a DataFrame, an
    Arrow table, a DuckDB relation, a list of paths). :func:`open_source` (running) and
    ``render`` both use it, so a name is rendered the way it is read.
    """
    if is_path_like(data):
        return file_kind(os.fspath(data))
    if isinstance(data, str):
        return "table"
    return "object"


def reader_sql(kind: str, paths_sql: str, dialect: str = "duckdb") -> str:
    """The SQL reading files of ``kind`` (``"parquet"``/``"csv"``) in ``dialect``.

    ``paths_sql``: the path as ``dialect`` names a file, a quoted string literal (or a list
    of them) for DuckDB (``read_parquet('p')``), a quoted identifier for Spark (``parquet.`p```,
    Parquet only: Spark's CSV source reads no header this way). Other dialects read no file
    in SQL: :class:`~sqlmetrics.errors.InvalidParameterError` asks for a table name. The
    readers are declared with the dialects (``sqlmetrics/_core/dialects.py``).
    """
    facts = DIALECTS[dialect]
    if kind in facts.file_readers:
        return facts.file_readers[kind].format(paths=paths_sql)
    raise InvalidParameterError(
        f"render: data= is a {FILE_KINDS[kind]} file, which dialect {dialect!r} cannot read in "
        f"a query; render a table name for dialect {dialect} (load the file into a table "
        f"first){facts.reads_only()}"
    )


def escape_glob(path: str) -> str:
    """``path`` as a DuckDB glob matching only itself: ``*``, ``?`` and ``[`` as classes."""
    return re.sub(r"[*?\[]", lambda m: f"[{m.group(0)}]", path)


def literal_directories(pattern: str) -> str:
    """``pattern`` with its longest leading run of existing directories taken literally.

    ``exports[eu]/*.parquet`` is the Parquet files of the directory ``exports[eu]`` when that
    directory exists (never those of ``exportse/`` or ``exportsu/``): the rule for file names,
    applied to the directories a pattern walks through. A glob in a directory part that names no
    directory stays a glob.
    """
    parts = pattern.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        prefix = os.sep.join(parts[:i])
        if prefix and os.path.isdir(prefix):
            return os.sep.join([glob.escape(prefix), *parts[i:]])
    return pattern


def check_path_text(caller: str, arg: str, path: str) -> None:
    """Refuse a path holding a NUL character, which no file name can hold (the operating
    system's calls would raise a bare ``ValueError: embedded null byte``).
    """
    if "\x00" in path:
        raise InvalidParameterError(
            f"{caller}: {arg}={path!r} holds a NUL character (\\x00), which no file name can "
            f"hold; pass the path without it"
        )


# --------------------------------------------------------------------------- one schema
# The files of one glob, list or folder are read as one table: DuckDB takes the column types of
# the first file and casts the others' values to them, silently (0.9 read into a BIGINT column
# is 1; a text '1' into BOOLEAN is true; a double into FLOAT loses digits), or refuses without
# naming the file. So each file's schema is read first (Parquet: its metadata; CSV: the
# engine's type detection of that file) and compared by *family*: numbers of different widths
# agree (DuckDB then reads them with ``union_by_name``, which widens: INTEGER and DOUBLE give
# DOUBLE), a number and a boolean or a text do not.


def duckdb_type_family(type_name: str) -> str:
    """The family of a DuckDB type name (``BIGINT`` -> ``"number"``; also ``"boolean"``,
    ``"text"``, ``"date/time"``, ``"time of day"``, ``"binary"``, ``"null"``); any other type is
    a family of its own (its name).
    """
    name = type_name.upper().strip()
    if name == '"NULL"' or name == "NULL":
        return "null"
    if name == "BOOLEAN":
        return "boolean"
    if name == "VARCHAR" or name.startswith("VARCHAR("):
        return "text"
    if name in ("DATE",) or name.startswith("TIMESTAMP"):
        return "date/time"
    if name.startswith("TIME"):
        return "time of day"
    if name in ("BLOB", "BIT"):
        return "binary"
    numbers = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "REAL")
    if name.lstrip("U") in numbers or name.startswith("DECIMAL") or name == "UHUGEINT":
        return "number"
    return name


def arrow_type_family(arrow_type: Any) -> str:
    """The family of a pyarrow type, as DuckDB reads it (a dictionary: its values' family)."""
    import pyarrow as pa

    t = arrow_type
    if pa.types.is_dictionary(t):
        return arrow_type_family(t.value_type)
    checks = (
        ("null", pa.types.is_null),
        ("boolean", pa.types.is_boolean),
        ("number", lambda x: pa.types.is_integer(x) or pa.types.is_floating(x)),
        ("number", pa.types.is_decimal),
        ("text", lambda x: pa.types.is_string(x) or pa.types.is_large_string(x)),
        ("date/time", lambda x: pa.types.is_date(x) or pa.types.is_timestamp(x)),
        ("time of day", pa.types.is_time),
        ("binary", lambda x: pa.types.is_binary(x) or pa.types.is_large_binary(x)),
    )
    for family, test in checks:
        if test(t):
            return family
    if hasattr(pa.types, "is_string_view") and pa.types.is_string_view(t):
        return "text"
    return str(t)


#: (kind, real path, size, mtime in ns, reader options) -> that file's {column: (type, family)}
_SCHEMAS: dict[tuple[Any, ...], Any] = {}
_SCHEMAS_MAX = 20_000


def parquet_schema(path: str) -> dict[str, tuple[str, str]] | None:
    """``{column: (type, family)}`` of a Parquet file from its metadata (no data is read), or
    None when pyarrow cannot read it (the engine then names what is wrong with the file).
    """
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception:  # not Parquet, truncated, encrypted: the engine's own error says which
        return None
    return {f.name: (str(f.type), arrow_type_family(f.type)) for f in schema}


def cached_schema(kind: str, path: str, options: str, read: Any) -> Any:
    """``read(path)`` (a file's schema, or its CSV dialect), remembered for as long as the file
    keeps its size and modification time (``report`` opens the same files several times).
    """
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (kind, os.path.realpath(path), stat.st_size, stat.st_mtime_ns, options)
    if key not in _SCHEMAS:
        if len(_SCHEMAS) >= _SCHEMAS_MAX:
            _SCHEMAS.clear()
        _SCHEMAS[key] = read(path)
    return _SCHEMAS[key]


def check_same_schema(
    metric: str,
    arg: str,
    schemas: dict[str, dict[str, tuple[str, str]] | None],
    is_empty: Any = None,
) -> bool:
    """Refuse files of one input whose columns or column types disagree, naming the column,
    the files and their types; return whether the types differ within a family (numbers of
    different widths: the reader must then widen them, ``union_by_name``).

    ``arg``: the argument as the message shows it (``data='exports/'``). ``schemas``: each
    file's ``{column: (type, family)}`` in reading order (None: unknown, not compared).
    ``is_empty(path, column)``: whether that column of that file holds no value at all (a CSV
    column of empty fields is detected as text; it agrees with any type). Column names
    compare case-insensitively, as DuckDB matches them.
    """
    known = {p: {c.lower(): (c, *tf) for c, tf in s.items()} for p, s in schemas.items() if s}
    if len(known) < 2:
        return False
    paths = list(known)
    columns: dict[str, str] = {}
    for p in paths:
        for low, (name, _, _) in known[p].items():
            columns.setdefault(low, name)
    for low, name in columns.items():
        having = [p for p in paths if low in known[p]]
        lacking = [p for p in paths if low not in known[p]]
        if lacking:
            raise InvalidDataError(
                f"{metric}: {arg} reads {len(paths)} files as one table, but column {name!r} "
                f"is in {having[0]!r} and not in {lacking[0]!r} ({len(lacking)} of "
                f"{len(paths)} files lack it); pass only files with the same columns, or "
                f"load them into one table first"
            )
    widen = False
    for low, name in columns.items():
        family = {p: known[p][low][2] for p in paths}
        if len(set(family.values()) - {"null"}) > 1 and is_empty is not None:
            # a CSV column of empty fields only is detected as text: it agrees with any type
            # (asked only here, where it matters: it reads the file)
            for p in paths:
                if family[p] == "text" and is_empty(p, known[p][low][0]):
                    family[p] = "null"
        by_family: dict[str, list[str]] = {}
        for p in paths:
            by_family.setdefault(family[p], []).append(p)
        types = {known[p][low][1] for p in paths}
        if len([f for f in by_family if f != "null"]) > 1:
            shown = ", ".join(
                f"{known[files[0]][low][1]} ({f}) in {files[0]!r}"
                + (f" and {len(files) - 1} more file(s)" if len(files) > 1 else "")
                for f, files in by_family.items()
                if f != "null"
            )
            raise InvalidDataError(
                f"{metric}: {arg} reads {len(paths)} files as one table, but column {name!r} "
                f"has a different type from file to file: {shown}. The engine would cast one "
                f"to the other (or fail) depending on which file comes first; give the column "
                f"one type in every file (rewrite the odd files, or load the files into a "
                f"table with the column cast, and pass the table)"
            )
        if len(types) > 1:
            widen = True
    return widen


# --------------------------------------------------------------------------- output over input
def _shown(label: str, value: Any) -> str:
    """``data='x.csv'`` for a Python argument, ``DATA 'x.csv'`` / ``--qrels 'q'`` for a flag."""
    text = repr(os.fspath(value)) if isinstance(value, (str, os.PathLike)) else repr(value)
    return f"{label} {text}" if label.startswith("-") or label.isupper() else f"{label}={text}"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _glob_matches(pattern: str, path: str) -> bool:
    """Whether the glob ``pattern`` (``**``: any depth of folders, none too) would match the
    file ``path`` (a real, absolute path), once it exists.
    """
    parts = pattern.split(os.sep)
    # its longest leading run of existing folders is literal (as literal_directories reads it)
    base, rest = os.path.realpath(os.sep if pattern.startswith(os.sep) else os.curdir), parts
    for i in range(len(parts) - 1, 0, -1):
        prefix = os.sep.join(parts[:i])
        if prefix and os.path.isdir(prefix):
            base, rest = os.path.realpath(prefix), parts[i:]
            break
    rest = [p for p in rest if p and p != os.curdir]
    if not _inside(path, base) or path == base:
        return False
    names = os.path.relpath(path, base).split(os.sep)

    def match(pat: list[str], got: list[str]) -> bool:
        if not pat:
            return not got
        if pat[0] == "**":
            return any(match(pat[1:], got[k:]) for k in range(len(got) + 1))
        return bool(got) and fnmatch.fnmatchcase(got[0], pat[0]) and match(pat[1:], got[1:])

    return match(rest, names)


def check_output_over_input(
    caller: str | None, output_arg: str, output: Any, inputs: Sequence[tuple[str, Any]]
) -> None:
    """Refuse to write ``output`` where the call reads its data: the same file as an input
    (symbolic links, relative paths and hard links resolved), a file inside an input folder,
    or a file an input glob matches. ``inputs``: ``(argument, value)`` pairs; a value is a
    path, a list of paths, or anything else (a table name, a DataFrame: not a file, skipped).
    Every writer (``report(path=)``, the command line's ``--output``) calls it before any work.
    """
    if not isinstance(output, (str, os.PathLike)) or "\x00" in os.fspath(output):
        return
    out = os.path.realpath(os.fspath(output))
    prefix = f"{caller}: " if caller else ""
    reader = "this call" if caller else "this command"
    for label, value in inputs:
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if not isinstance(item, (str, os.PathLike)):
                continue
            path = os.fspath(item)
            if not path or "\x00" in path:
                continue
            what = _shown(label, item)
            if os.path.isdir(path):
                folder = os.path.realpath(path)
                if _inside(out, folder):
                    raise InvalidParameterError(
                        f"{prefix}{_shown(output_arg, output)} lies inside the folder {what}, "
                        f"which {reader} reads ({folder}): the file written there would "
                        f"overwrite or join the data; write it outside that folder"
                    )
            elif os.path.isfile(path):
                same = os.path.realpath(path) == out or (
                    os.path.exists(out) and os.path.samefile(path, out)
                )
                if same:
                    raise InvalidParameterError(
                        f"{prefix}{_shown(output_arg, output)} is the file {what}, which "
                        f"{reader} reads ({out}): writing it would overwrite the data; write to "
                        f"another file"
                    )
            elif any(ch in path for ch in GLOB_CHARS) and _glob_matches(path, out):
                raise InvalidParameterError(
                    f"{prefix}{_shown(output_arg, output)} is matched by {what}, which "
                    f"{reader} reads ({out}): writing it would overwrite or join the data; write "
                    f"to a file the pattern does not match"
                )
