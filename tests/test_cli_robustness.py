"""The command line under adversarial input (issue 22): one line on stderr and exit 2 for bad
input, never a traceback; no password echoed; Ctrl-C stops a running query at once and exits
130 with one line; resource arguments bounded with the fix named.
"""

from __future__ import annotations

import inspect
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.cli import _compare, _eval
from sqlmetrics.errors import InvalidParameterError

ROOT = Path(__file__).resolve().parents[1]
CTR = str(ROOT / "examples" / "data" / "ctr.csv")
EVAL = ["eval", CTR, "-m", "auc", "--label", "click", "--score", "pctr"]
COMPARE = ["compare", CTR, "-m", "auc", "--label", "click", "--score", "pctr", "--score", "s2"]


def invoke(args: list[str]) -> Any:
    return CliRunner().invoke(cli.main, args)


def one_error_line(result: Any) -> str:
    """The single ``sqlmetrics: error:`` line of a failed command (exit 2, no traceback)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sqlmetrics: error: "), result.output
    return str(lines[0])


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The checkout's command line in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "sqlmetrics.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


# --------------------------------------------------------------------------- --option
@pytest.mark.parametrize(
    "pair,flag,fix",
    [
        ("seed=3", "--seed", "write --seed 3 instead"),
        ("label=click", "--label", "write --label click instead"),
        ("score=pctr", "--score", "write --score pctr instead"),
        ("group=user_id", "--group", "write --group user_id instead"),
        ("by=country", "--by", "write --by country instead"),
        ("n_boot=50", "--n-boot", "write --n-boot 50 instead"),
        ("ci=0.9", "--ci", "write --ci 0.9 instead"),
        ("qrels=q.csv", "--qrels", "write --qrels q.csv instead"),
        ("metrics=auc", "-m/--metric", "give it with -m/--metric instead"),
        ("data=x.csv", "DATA", "give it with DATA instead"),
        ("con=x", "DATA (path/to/db.duckdb:table), --db-url or --spark", "give it with DATA"),
    ],
)
def test_eval_refuses_an_option_the_command_sets_itself(pair: str, flag: str, fix: str) -> None:
    line = one_error_line(invoke([*EVAL, "--option", pair]))
    name = pair.split("=")[0]
    assert line.startswith(
        f"sqlmetrics: error: --option {pair!r}: {name} is set by {flag}, not by --option; {fix}"
    )


@pytest.mark.parametrize(
    "pair,fix",
    [
        ("seed=3", "write --seed 3 instead"),
        ("test=t", "write --test t instead"),
        ("score=pctr", "write --score pctr instead"),
        ("baseline=pctr", "write --baseline pctr instead"),
        ("n_permutations=20", "write --n-permutations 20 instead"),
        ("correction=none", "write --correction none instead"),
    ],
)
def test_compare_refuses_an_option_the_command_sets_itself(pair: str, fix: str) -> None:
    line = one_error_line(invoke([*COMPARE, "--option", pair]))
    assert line.endswith(f", not by --option; {fix}")


def test_every_argument_of_evaluate_and_compare_is_a_flag_or_deliberately_an_option() -> None:
    """A new keyword argument of evaluate()/compare() must be added to the command's flags
    (then --option NAME= is refused) or to the names --option may set on purpose.
    """
    through_option = {"evaluate": {"train"}, "compare": {"runs", "convention"}}
    for function, flags in (
        (sqlmetrics.evaluate, _eval.EVAL_FLAGS),
        (sqlmetrics.compare, _compare.COMPARE_FLAGS),
    ):
        params = {
            name
            for name, p in inspect.signature(function).parameters.items()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        }
        assert params - through_option[function.__name__] == set(flags), function.__name__


def test_convention_given_twice_is_refused() -> None:
    line = one_error_line(
        invoke([*EVAL, "--convention", "sklearn", "--option", "convention=sklearn"])
    )
    assert "--convention and --option convention= both given" in line


def test_render_refuses_a_pair_that_its_own_flag_sets() -> None:
    line = one_error_line(invoke(["render", "-m", "auc", "--metrics", "gauc"]))
    assert line == (
        "sqlmetrics: error: render: --metrics is not a column or option of the metric; "
        "give it with -m/--metric"
    )


def test_options_the_command_does_not_set_still_pass() -> None:
    result = invoke([*EVAL, "-m", "f1", "--option", "threshold=0.3", "--format", "csv"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.output), float_precision="round_trip")
    assert frame["f1"].iloc[0] == sqlmetrics.f1(CTR, label="click", score="pctr", threshold=0.3)


# --------------------------------------------------------------------------- --db-url
def test_a_port_that_is_not_a_number_is_one_line_with_the_password_masked() -> None:
    url = "postgresql+psycopg://ann:hunter2secret@localhost:abc/db"
    line = one_error_line(invoke([*EVAL, "--db-url", url]))
    assert "hunter2secret" not in line
    assert line.startswith(
        "sqlmetrics: error: --db-url 'postgresql+psycopg://ann:***@localhost:abc/db': its port "
        "is not a number"
    )


def test_an_unreachable_server_names_db_url_and_masks_the_password() -> None:
    url = "postgresql+psycopg://ann:hunter2secret@127.0.0.1:1/db"
    line = one_error_line(invoke(["eval", "events", "-m", "auc", "--db-url", url]))
    assert "hunter2secret" not in line
    assert line.startswith(
        "sqlmetrics: error: --db-url 'postgresql+psycopg://ann:***@127.0.0.1:1/db' cannot connect: "
    )


def test_an_unknown_dialect_masks_the_password() -> None:
    url = "nosuchdb://ann:hunter2secret@localhost/db"
    line = one_error_line(invoke(["eval", "events", "-m", "auc", "--db-url", url]))
    assert "hunter2secret" not in line and "'nosuchdb://ann:***@localhost/db'" in line


def test_a_url_in_a_usage_error_is_masked() -> None:
    result = run("list", "postgresql://ann:hunter2secret@localhost/db")
    assert result.returncode == 2
    assert "hunter2secret" not in result.stderr + result.stdout
    assert "postgresql://ann:***@localhost/db" in result.stderr


def test_mask_url_leaves_a_url_without_password_alone() -> None:
    from sqlmetrics.cli._io import mask_url

    assert mask_url("postgresql://ann@h/db and s3://bucket/k") == (
        "postgresql://ann@h/db and s3://bucket/k"
    )
    assert mask_url("a://u:p@h/x b://v:q:r@i") == "a://u:***@h/x b://v:***@i"


# --------------------------------------------------------------------------- --spark
def test_a_malformed_spark_master_is_refused_before_spark_starts() -> None:
    started = time.monotonic()
    line = one_error_line(invoke([*EVAL, "--spark", "nonsense["]))
    assert line == (
        "sqlmetrics: error: --spark 'nonsense[' is not a Spark master; write local[2] (or "
        "local[*] for every core), spark://host:7077, yarn, k8s://https://host:port, or "
        "sc://host:15002 for a Spark Connect server"
    )
    assert time.monotonic() - started < 5  # no JVM was started


@pytest.mark.spark  # starts Spark through the CLI, without the fixture
def test_a_master_spark_refuses_is_one_line() -> None:
    """local[0] is well formed; Spark refuses it while starting (its JVM logs aside)."""
    result = run("eval", "events", "-m", "auc", "--spark", "local[0]", timeout=300)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "sqlmetrics: error: --spark 'local[0]': Spark did not start: SparkException: Asked to "
        "run locally with 0 threads"
    )


# --------------------------------------------------------------------------- Ctrl-C
@pytest.mark.slow  # 1M rows and a 5 s wait
def test_ctrl_c_stops_a_long_compare_at_once_and_exits_130(tmp_path: Path) -> None:
    """A bootstrap compare over 1M rows runs for minutes; Ctrl-C used to wait for the running
    query to end (then print a traceback, exit 1). Now the query is cancelled.
    """
    data = tmp_path / "big.parquet"
    duckdb.connect().execute(
        "copy (select (hash(i) % 2)::int as label, (hash(i * 7) % 1000) / 1000.0 as a, "
        "(hash(i * 13) % 1000) / 1000.0 as b from range(1000000) t(i)) "
        f"to '{data}'"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["compare", str(data), "-m", "accuracy", "--score", "a", "--score", "b"]
    args += ["--option", "threshold=0.5", "--test", "bootstrap", "--n-boot", "5000"]
    process = subprocess.Popen(
        [sys.executable, "-m", "sqlmetrics.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
        # SIGINT as in a terminal: a test run started as a background job (`pytest &`) has it
        # ignored, and the child would inherit that (the CLI keeps an ignored SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(5)  # imports, checks; then the bootstrap query runs
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("compare still ran 20 s after Ctrl-C")
    assert time.monotonic() - sent < 10
    assert process.returncode == 130
    assert err == "sqlmetrics: interrupted\n" and out == ""


def test_ctrl_c_in_python_code_is_one_line_and_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.modules["sqlmetrics._evaluate._api_evaluate"], "evaluate", interrupted)
    previous = signal.getsignal(signal.SIGINT)
    result = invoke(EVAL)
    assert result.exit_code == 130
    assert result.output == "sqlmetrics: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is previous  # the command's handler is removed


def test_an_interrupted_duckdb_query_is_exit_130(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setattr(sys.modules["sqlmetrics._evaluate._api_evaluate"], "evaluate", interrupted)
    result = invoke(EVAL)
    assert (result.exit_code, result.output) == (130, "sqlmetrics: interrupted\n")


# --------------------------------------------------------------------------- bounds
def test_compare_bounds_n_boot_and_n_permutations() -> None:
    frame = pd.DataFrame({"label": [0, 1] * 10, "a": [0.1, 0.9] * 10, "b": [0.4, 0.6] * 10})
    why = {"n_boot": "each replicate is a pass over the data", "n_permutations": "each one is a "
           "pass over the rows"}  # fmt: skip
    for name in ("n_boot", "n_permutations"):
        with pytest.raises(
            InvalidParameterError,
            match=rf"compare: {name}= must be <= 100000 \({why[name]}\); "
            rf"got 1000000000; pass a smaller number, e.g. {name}=2000$",
        ):
            sqlmetrics.compare(frame, ["accuracy"], scores=["a", "b"], **{name: 10**9})


def test_compare_n_boot_too_large_on_the_command_line() -> None:
    args = ["compare", CTR, "-m", "accuracy", "--label", "click", "--score", "pctr"]
    args += ["--score", "user_id", "--test", "bootstrap", "--n-boot", "1000000000"]
    line = one_error_line(invoke(args))
    assert line == (
        "sqlmetrics: error: compare: --n-boot must be <= 100000 (each replicate is a pass over "
        "the data); got 1000000000; pass a smaller number, e.g. --n-boot 2000"
    )


@pytest.mark.parametrize(
    "limit,hint",
    [("1B", " (did you mean '1GB'?)"), ("0GB", ""), ("10MB", ""), ("512KiB", "")],
)
def test_configure_refuses_a_memory_limit_no_metric_can_run_in(limit: str, hint: str) -> None:
    before = sqlmetrics.configure()
    with pytest.raises(InvalidParameterError) as info:
        sqlmetrics.configure(memory_limit=limit)
    message = str(info.value)
    assert message.startswith(
        f"configure: memory_limit={limit!r} is below the 16MB DuckDB needs to run a metric "
    )
    assert message.endswith(f"; give a size such as '2GB' or '512MB'{hint}")
    assert sqlmetrics.configure() == before  # nothing was set


def test_configure_accepts_the_floor() -> None:
    before = sqlmetrics.configure()
    try:
        assert sqlmetrics.configure(memory_limit="16MB")["memory_limit"] == "15.2 MiB"
    finally:
        sqlmetrics.configure(memory_limit=before["memory_limit"].replace(" ", ""))
