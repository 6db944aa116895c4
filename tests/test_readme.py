"""The README stays true (its two commands, its example output, its examples' output) and
stays a landing page into the site, which holds everything it said (issue 42)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from docpages import page
from docpages import section as site_section

from tools.docs import END, START, metrics_table, section

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MKDOCS = (ROOT / "mkdocs.yml").read_text()


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
    table = section(page("reference/metrics.md"), START, END).strip()
    assert table == metrics_table().strip(), (
        "the metric table of docs/reference/metrics.md is stale: run `python -m tools.docs`"
    )


def test_guarantees_section_covers_threads_memory_and_transactions() -> None:
    # issue 15: the guarantees were only in a draft file beside the README
    guarantees = site_section("Guarantees")
    for topic in ("Threads", "Memory limits", "Transactions", "Temporary files", "File names"):
        assert f"**{topic}.**" in guarantees, topic
    assert not (ROOT / "GUARANTEES_DRAFT.md").exists()


# ----------------------------------------------------------------------------- issue 42
#: each section of the README before the site (104 KB, 2026-11-28), and the page that holds it
#: now, under the same heading: nothing the README said is lost
MOVED = {
    "Use": "getting-started.md",
    "Recipe: a warehouse export, by day and country": "recipes/warehouse-export.md",
    "Ranking metrics: every definitional choice is a parameter": "concepts/ranking.md",
    "Coming from trec_eval / scikit-learn / ranx": "concepts/conventions.md",
    "IR measures": "recipes/search-run.md",
    "Curves, probabilities, multiclass and plots": "guide/classification.md",
    "Calibration, separation and multiclass scores": "guide/classification.md",
    "Command line": "guide/cli.md",
    "SQL dialects": "concepts/engines.md",
    "Other engines": "concepts/engines.md",
    "Your own metrics": "guide/custom-metrics.md",
    "Daily partitions: mergeable states": "recipes/daily-states.md",
    "Use from dbt": "guide/dbt.md",
    "Gates that know their uncertainty": "recipes/dbt-gates.md",
    "Metrics": "reference/metrics.md",
    "How sure is the number?": "concepts/uncertainty.md",
    "Comparing models": "recipes/compare-models.md",
    "HTML report": "recipes/html-report.md",
    "Errors": "concepts/guarantees.md",
    "Guarantees": "concepts/guarantees.md",
    "Development": "contributing.md",
    "Layout": "contributing.md",
    "Performance": "guide/performance.md",
}


@pytest.mark.parametrize("heading", sorted(MOVED))
def test_each_old_readme_section_is_a_section_of_a_page(heading: str) -> None:
    path = MOVED[heading]
    assert f"\n## {heading}\n" in page(path), f"{heading!r} is not a section of docs/{path}"
    assert len(site_section(heading).split()) >= 20, heading  # found once, and not emptied
    assert path in MKDOCS, f"docs/{path} is not in mkdocs.yml's nav"


def test_readme_is_a_landing_page() -> None:
    assert len(README) <= 10_000, f"README.md is {len(README):,} characters (at most 10,000)"
    for target in ("docs/getting-started.md", "docs/guide/cli.md", "docs/guide/dbt.md",
                   "docs/recipes/warehouse-export.md", "docs/reference/metrics.md"):  # fmt: skip
        assert f"]({target})" in README, target
    for heading in ("## Python", "## Command line", "## dbt", "## Engines"):
        assert f"\n{heading}\n" in README, heading
    for target in re.findall(r"\]\(([^)#:]+)\)", README):  # read on a git host too
        assert (ROOT / target).exists(), f"README links to {target}, which is not in the repo"


def test_readme_dbt_model_is_the_integration_projects_and_shows_its_rows() -> None:
    """The README's dbt example is the integration project's model (tests/test_dbt.py builds it
    on dbt-duckdb, dbt-postgres and dbt-spark and checks it against ``evaluate``) and shows the
    rows ``evaluate`` gives for the same call."""
    import sqlmetrics

    dbt = README.split("\n## dbt\n", 1)[1]
    (sql,) = re.findall(r"```sql\n(.*?)\n```", dbt, flags=re.S)
    model = ROOT / "integration_tests" / "models" / "ctr_metrics_by_country.sql"
    assert sql == model.read_text(encoding="utf-8").rstrip("\n")
    shown = re.search(r"```\n(.*?)```", dbt.split(sql + "\n```", 1)[1], flags=re.S)
    assert shown is not None
    want = sqlmetrics.evaluate(
        str(ROOT / "examples" / "data" / "ctr.csv"),
        ["auc", "gauc", "log_loss", "precision", "recall"],
        label="click", score="pctr", group="user_id", by="country", threshold=0.3,
    )  # fmt: skip
    assert shown.group(1) == want.to_string(index=False) + "\n"


def test_site_landing_page_shows_the_way_on_its_first_screen() -> None:
    """Install, the first result, the Python API, the command line, dbt and the export recipe
    within the landing page's first screen (its first 40 lines)."""
    first = "\n".join(page("index.md").splitlines()[:40])
    assert "pip install ." in first and "sqlmetrics eval examples/data/ctr.csv" in first
    assert bash_blocks()[0] in first  # the README's first command, the same words
    assert "0.713145" in first  # its output
    for target in ("reference/api.md", "guide/cli.md", "reference/cli.md", "guide/dbt.md",
                   "recipes/warehouse-export.md", "getting-started.md"):  # fmt: skip
        assert f"]({target})" in first, target
