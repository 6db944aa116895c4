"""configure(): limits of sqlmetrics' own in-memory database."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._backends.duckdb_backend import DuckDBBackend, private_database
from sqlmetrics.errors import EngineError, InvalidParameterError

_CONFIGURE_SCRIPT = """
import json, sys
import pandas as pd
import sqlmetrics
before = sqlmetrics.configure()
now = sqlmetrics.configure(memory_limit="1GB", threads=1, temp_directory=sys.argv[1])
frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.9, 0.4, 0.4]})
print(json.dumps({"before": before, "now": now, "auc": sqlmetrics.auc(frame)}))
"""


def test_configure_sets_and_reports(tmp_path: Path) -> None:
    # a process of its own: once any test in this worker has made DuckDB spill, its spill
    # directory is fixed for good (test_reliability checks that refusal), so the outcome here
    # must not depend on which tests ran before it
    done = subprocess.run(
        [sys.executable, "-c", _CONFIGURE_SCRIPT, str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["now"]["threads"] == "1" and out["now"]["temp_directory"] == str(tmp_path)
    assert out["now"]["memory_limit"] != out["before"]["memory_limit"]
    assert out["auc"] == 0.875  # still computes under the limits


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"memory_limit": "lots"}, r"configure: memory_limit= must be a size with a unit"),
        ({"memory_limit": 2}, r"memory_limit= .* got 2"),
        ({"threads": 0}, r"configure: threads= must be an integer >= 1; got 0"),
        ({"threads": 1.5}, r"threads= must be an integer"),
    ],
)
def test_configure_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.configure(**kwargs)  # type: ignore[arg-type]


@contextmanager
def restored() -> Iterator[dict[str, str]]:
    """configure()'s settings as they were before the block, restored after it."""
    before = sqlmetrics.configure()
    try:
        yield before
    finally:
        private_database().execute(f"set memory_limit = '{before['memory_limit']}'")
        sqlmetrics.configure(threads=int(before["threads"]))


FORMS = "B, KB, MB, GB, TB, powers of 1000; KiB, MiB, GiB, TiB, of 1024"


@pytest.mark.parametrize("limit", ["99999999TB", "18446745TB", "16777216TiB", "20000000000GB"])
def test_configure_refuses_a_memory_limit_duckdb_cannot_set(limit: str) -> None:
    """Issue 39 item 19: DuckDB refused these with a raw ParserException ("Memory value out
    of range"); a size's bytes must stay below 2**64, checked before DuckDB sees it."""
    with restored():
        sqlmetrics.configure(memory_limit="2GB")
        with pytest.raises(InvalidParameterError) as info:
            sqlmetrics.configure(memory_limit=limit)
        assert str(info.value) == (
            f"configure: memory_limit={limit!r} is more than DuckDB can set (below 2**64 bytes: "
            f"at most 18446744TB or 16777215TiB); give the memory DuckDB may use, such as '2GB' "
            f"or '512MiB' (a number and a unit: {FORMS})"
        )
        assert sqlmetrics.configure()["memory_limit"] == "1.8 GiB"  # nothing was set


@pytest.mark.parametrize("limit", ["18446744TB", "16777215TiB"])
def test_configure_accepts_the_largest_memory_limits(limit: str) -> None:
    with restored():
        assert sqlmetrics.configure(memory_limit=limit)["memory_limit"] == "16383.9 PiB"


def test_a_size_without_a_unit_lists_the_units() -> None:
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.configure(memory_limit="4")
    assert str(info.value) == (
        "configure: memory_limit= must be a size with a unit such as '2GB' or '512MiB' "
        f"(a number and a unit: {FORMS}); got '4'"
    )


def test_out_of_memory_on_a_connection_names_its_memory_limit() -> None:
    """Issue 39 item 19: running out of memory named no setting; now the connection's
    memory_limit, its value, and how to raise it (configure() does not set a con=)."""
    con = duckdb.connect(config={"temp_directory": "", "memory_limit": "16MB", "threads": 1})
    n = 300_000
    frame = pd.DataFrame({"label": np.arange(n) % 2, "score": np.arange(n) * 0.37 % 1})
    with pytest.raises(EngineError) as info:
        sqlmetrics.auc(frame, con=con)
    message = str(info.value)
    assert message.startswith("auc: the engine failed on data=DataFrame: OutOfMemoryException: ")
    assert message.endswith(
        "; the connection passed as con= has memory_limit='15.2 MiB': raise it on that "
        "connection, con.execute(\"set memory_limit = '32MB'\") (sqlmetrics.configure() sets "
        "only the database sqlmetrics uses when con= is omitted), or pass fewer rows or slices"
    )


def _out_of_memory(backend: DuckDBBackend) -> str:
    exc = duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")
    return str(backend.wrap_error("auc", ["data=x"], exc))


def test_out_of_memory_advice_per_connection(tmp_path: Path) -> None:
    """The advice names the setting of the connection that ran out: sqlmetrics' own database
    (configure and the command line's --memory-limit, with its value now and twice that), a
    database file sqlmetrics opened (DuckDB's default, which configure does not set), or an
    unknown one."""
    head = "auc: the engine failed on data=x: OutOfMemoryException: Out of Memory Error: "
    with restored():
        sqlmetrics.configure(memory_limit="1.5GB")
        own = DuckDBBackend(private_database().cursor(), owned=True)
        assert _out_of_memory(own) == head + (
            "could not allocate block; sqlmetrics' database ran out of its memory_limit="
            "'1.3 GiB': raise it with sqlmetrics.configure(memory_limit='3GB') (on the command "
            "line: sqlmetrics --memory-limit 3GB <command> ...), or pass fewer rows or slices"
        )
    path = tmp_path / "db.duckdb"
    duckdb.connect(str(path)).close()
    with duckdb.connect(str(path), read_only=True, config={"memory_limit": "100MB"}) as con:
        assert _out_of_memory(DuckDBBackend(con, owned=True)) == head + (
            "could not allocate block; the database file sqlmetrics opened has DuckDB's default "
            "memory_limit='95.3 MiB', which sqlmetrics.configure() does not set: open it "
            "yourself with duckdb.connect(path, read_only=True, config={'memory_limit': "
            "'200MB'}) and pass that connection as con=, or pass fewer rows or slices"
        )
    assert _out_of_memory(DuckDBBackend(None)) == head + (
        "could not allocate block; raise DuckDB's memory_limit: sqlmetrics.configure("
        "memory_limit='8GB') when con= is omitted (on the command line: sqlmetrics "
        "--memory-limit 8GB <command> ...), or con.execute(\"set memory_limit = '8GB'\") on the "
        "connection passed as con="
    )


@pytest.mark.slow  # a million rows under 16MB: a few seconds
def test_out_of_memory_in_sqlmetrics_database_names_configure() -> None:
    n = 1_000_000
    frame = pd.DataFrame(
        {"label": np.arange(n) % 2, "score": np.arange(n) * 0.37 % 1, "group": np.arange(n) // 3}
    )
    with restored():
        sqlmetrics.configure(memory_limit="16MB", threads=1)
        with pytest.raises(EngineError) as info:
            sqlmetrics.ndcg(frame, k=10, item="score")
    assert str(info.value).endswith(
        "; sqlmetrics' database ran out of its memory_limit='15.2 MiB': raise it with "
        "sqlmetrics.configure(memory_limit='32MB') (on the command line: sqlmetrics "
        "--memory-limit 32MB <command> ...), or pass fewer rows or slices"
    )


def test_command_line_memory_limit() -> None:
    """sqlmetrics --memory-limit SIZE <command>: configure(memory_limit=) for the command, its
    errors named as the flag."""
    with restored():
        done = CliRunner().invoke(cli.main, ["--memory-limit", "1GB", "list"])
        assert done.exit_code == 0, done.output
        assert sqlmetrics.configure()["memory_limit"] == "953.6 MiB"
    with restored():
        sqlmetrics.configure(memory_limit="2GB")
        done = CliRunner().invoke(cli.main, ["--memory-limit", "99999999TB", "list"])
        assert done.exit_code == 2
        assert done.output.startswith(
            "sqlmetrics: error: --memory-limit '99999999TB' is more than DuckDB can set (below "
            "2**64 bytes: at most 18446744TB or 16777215TiB); give the memory DuckDB may use, "
            f"such as '2GB' or '512MiB' (a number and a unit: {FORMS}) (see '"
        )
        done = CliRunner().invoke(cli.main, ["--memory-limit", "lots", "list"])
        assert done.exit_code == 2
        assert done.output.startswith(
            "sqlmetrics: error: --memory-limit must be a size with a unit such as '2GB'"
        )
        assert sqlmetrics.configure()["memory_limit"] == "1.8 GiB"  # nothing was set
