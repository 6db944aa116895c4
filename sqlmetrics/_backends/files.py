"""Data files named by ``data=``: paths, globs and folders (Hive-partitioned exports), the
kind of each (Parquet or CSV), and the SQL that reads them in a dialect.

A path naming an existing file is that file, whatever characters its name holds; a path naming
no file is a glob when it holds ``*``, ``?`` or ``[`` (its leading directories that exist are
taken literally).
"""

from __future__ import annotations

import glob
import os
import re
from typing import Any

from ..errors import InvalidParameterError

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
    in SQL: :class:`~sqlmetrics.errors.InvalidParameterError` asks for a table name.
    """
    if dialect == "duckdb":
        if kind == "parquet":
            return f"read_parquet({paths_sql})"
        return f"read_csv({paths_sql}, header = true)"
    if dialect == "spark" and kind == "parquet":
        return f"parquet.{paths_sql}"
    what = "a CSV file" if kind == "csv" else "a Parquet file"
    raise InvalidParameterError(
        f"render: data= is {what}, which dialect {dialect!r} cannot read in a query; render a "
        f"table name for dialect {dialect} (load the file into a table first)"
        + ("; Spark reads Parquet paths only" if dialect == "spark" else "")
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
