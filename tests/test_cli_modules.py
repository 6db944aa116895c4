"""The command line's layout (issue 40): one module per command, and no SQL of its own.

What a metric computes is written once, in its template under ``sql/``; the command line
only calls ``evaluate``. trec_eval's count lines (``num_ret``, ``num_rel``, ``num_rel_ret``)
come from the count metrics' templates, so they follow every option that changes those
metrics, as the measures printed beside them do.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli

CLI = Path(cli.__file__).parent

#: text that only a SQL statement holds (the help texts speak of "SQL", never in its words)
SQL = re.compile(r"\bselect\b|\bgroup by\b|\bleft join\b|\b(count|sum|coalesce)\(", re.I)


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of ``path`` (the parts of f-strings too), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_the_command_line_writes_no_sql(path: Path) -> None:
    found = [(line, text) for line, text in _strings(path) if SQL.search(text)]
    assert not found, (
        f"cli/{path.name} writes SQL of its own (line, text): {found}; compute it with a "
        f"metric's template (evaluate) instead"
    )


def test_each_command_is_a_module_of_its_own() -> None:
    commands = cli.main.commands
    assert sorted(commands) == [
        "clicks", "compare", "eval", "list", "monitor", "off-policy", "plot", "propensities",
        "render", "report",
    ]  # fmt: skip
    for name, command in commands.items():
        assert command.callback is not None
        module = command.callback.__module__
        assert module == f"sqlmetrics.cli._{name.replace('-', '_')}", (name, module)


RUN = pd.DataFrame(
    {
        "q": ["1", "1", "1", "1", "2", "2", "3"],
        "doc": ["a", "a", "b", "c", "a", "b", "a"],  # (1, a) twice: a repeated impression
        "score": [0.9, 0.8, 0.7, 0.1, 0.6, 0.5, 0.4],
        "rel": [1, 2, 0, 2, 0, 0, 3],
    }
)


EVAL = ["eval", "-m", "ndcg@10", "--group", "q", "--item", "doc"]


def _trec_lines(text: str) -> dict[tuple[str, str], str]:
    return {
        (m.strip(), t): v
        for m, t, v in (line.split("\t") for line in text.splitlines() if line.count("\t") == 2)
    }


@pytest.mark.parametrize(
    "options",
    [
        {"duplicates": "max"},
        {"duplicates": "sum", "relevance_level": 2},
        {"duplicates": "max", "relevance_level": 3},
    ],
)
def test_trec_counts_are_the_count_metrics(tmp_path: Path, options: dict[str, object]) -> None:
    """The count lines equal ``sqlmetrics.num_ret`` & co. with the call's options, per topic
    and for ``all``: a repeated (topic, doc) row merged by ``duplicates=`` is retrieved once,
    as the measures beside them count it (the CLI's own SQL counted it twice).
    """
    path = tmp_path / "run.csv"
    RUN.to_csv(path, index=False)
    flags = [f for name, value in options.items() for f in ("--option", f"{name}={value}")]
    result = CliRunner().invoke(
        cli.main,
        [
            *EVAL,
            str(path),
            "--label",
            "rel",
            "--option",
            "empty=zero",
            *flags,
            "--format",
            "trec",
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    got = _trec_lines(result.stdout)
    columns = {"group": "q", "item": "doc", "label": "rel", "empty": "zero", **options}
    for name in ("num_ret", "num_rel", "num_rel_ret"):
        function = getattr(sqlmetrics, name)
        for topic in ("1", "2", "3"):
            expected = function(RUN[RUN["q"] == topic], **columns)
            assert got[(name, topic)] == str(int(expected)), (name, topic)
        assert got[(name, "all")] == str(int(function(RUN, **columns))), name
    assert got[("num_ret", "1")] == "3"  # a, b, c: the repeated a once


def test_trec_counts_name_a_missing_label_column(tmp_path: Path) -> None:
    """A wrong --label is one line naming the flag and the columns present (it was the
    engine's binder error, from the CLI's own count query).
    """
    path = tmp_path / "run.csv"
    RUN.drop_duplicates(["q", "doc"]).to_csv(path, index=False)
    result = CliRunner().invoke(
        cli.main,
        [*EVAL, str(path), "--label", "relevance", "--format", "trec"],
    )
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"sqlmetrics: error: evaluate: column 'relevance' (--label) not found in DATA "
        f"{str(path)!r}; columns present: q, doc, score, rel"
    )
