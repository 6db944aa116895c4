"""The README stays true: its two commands, its example output, its generated metric table."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from tools.docs import END, START, metrics_table, section

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)


def test_first_lines_give_exactly_two_commands() -> None:
    before_use = README.split("## ")[1] if README.count("## ") else README
    blocks = re.findall(r"```bash\n(.*?)\n```", README.split("\n## ")[0], flags=re.S)
    assert len(blocks) == 2, before_use[:200]
    install_run, install_test = blocks
    assert "pip install ." in install_run and "sqlmetrics eval examples/data/" in install_run
    assert 'pip install -e ".[dev]"' in install_test and install_test.endswith("pytest --all")
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install --quiet -e ".[dev]"' in ci and "\npytest --all\n" in ci


def test_main_job_output_is_what_the_readme_shows() -> None:
    command = bash_blocks()[0].split(" && ")[-1]
    argv = shlex.split(command)
    assert argv[0] == "sqlmetrics"
    out = subprocess.run(
        [sys.executable, "-m", "sqlmetrics.cli", *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    shown = re.search(r"The first command prints:\n\n```\n(.*?)```", README, flags=re.S)
    assert shown is not None
    assert out == shown.group(1)


def test_metric_table_is_generated_from_the_registry() -> None:
    table = section(README, START, END).strip()
    assert table == metrics_table().strip(), (
        "README metric table is stale: run `python -m tools.docs README.md`"
    )


def test_python_blocks_run(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    blocks = re.findall(r"```python\n(.*?)\n```", README, flags=re.S)
    assert len(blocks) >= 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the examples must not warn
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)
    report = namespace["report"]
    assert list(report.columns[:2]) == ["country", "day"] and len(report) == 6


def test_guarantees_section_covers_threads_memory_and_transactions() -> None:
    # issue 15: the guarantees were only in a draft file beside the README
    section = README.split("\n## Guarantees\n", 1)[1].split("\n## ", 1)[0]
    for topic in ("Threads", "Memory limits", "Transactions", "Temporary files", "File names"):
        assert f"**{topic}.**" in section, topic
    assert not (ROOT / "GUARANTEES_DRAFT.md").exists()
