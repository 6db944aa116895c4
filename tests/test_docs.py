"""What the docs say matches the code: defaults, output columns, hit_ratio vs hit_rate."""

from __future__ import annotations

import inspect
import re

import pytest
from click.testing import CliRunner
from docpages import page

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics._core.conventions import DEFINITIONAL
from sqlmetrics._core.registry import REGISTRY, default_of
from tools.docs import metrics_table

RANKING_PAGE = page("concepts/ranking.md")
GETTING_STARTED = page("getting-started.md")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_documented_defaults_are_the_functions_defaults(name: str) -> None:
    spec = REGISTRY[name]
    function = getattr(sqlmetrics, spec.function)
    signature = inspect.signature(function).parameters
    shown = f"`{name.removesuffix('_at_k')}@k`" if spec.takes_k else f"`{name}`"
    row = next(line for line in metrics_table().splitlines() if line.startswith(f"| {shown} "))
    listed = CliRunner().invoke(cli.main, ["list"]).output
    for param in spec.params:
        if param == "k" or param not in signature:
            continue
        default = signature[param].default
        if default is inspect.Parameter.empty:
            continue  # a required argument of the function (evaluate's default applies)
        if param == "threshold" and default is None:
            default = 0.5  # None: 0.5 unless a prediction column is given
        if param in DEFINITIONAL and default is None:
            default = default_of(spec, param)  # not passed: the convention's value, or this
        assert default_of(spec, param) == default, (name, param)
        assert f"`{param}={default!r}`" in row
    assert listed


def test_curves_show_their_own_drop_intermediate() -> None:
    table = metrics_table()
    rows = table.splitlines()
    assert "`drop_intermediate=True`" in next(r for r in rows if "`roc_curve`" in r)
    assert "`drop_intermediate=False`" in next(r for r in rows if "`pr_curve`" in r)
    listed = CliRunner().invoke(cli.main, ["list"]).output
    assert "drop_intermediate=True" in listed.split("roc_curve")[1].split("\n")[1]


def test_hit_ratio_and_hit_rate_are_told_apart_everywhere() -> None:
    listed = CliRunner().invoke(cli.main, ["list"]).output
    ratio = next(line for line in listed.splitlines() if line.startswith("hit_ratio@k"))
    rate = next(line for line in listed.splitlines() if line.startswith("hit_rate@k"))
    assert "micro recall" in ratio and "not the HR@k of most recommender papers" in ratio
    assert "the HR@k of most recommender papers" in rate
    for function in (sqlmetrics.hit_ratio, sqlmetrics.hit_rate):
        doc = inspect.getdoc(function) or ""
        assert '"HR@k"' in doc or "HR@k" in doc
    assert "hit_rate@10" in RANKING_PAGE and "HR@10" in RANKING_PAGE


def test_getting_started_explains_the_count_columns() -> None:
    assert re.search(r"`n_rows`.*rows", GETTING_STARTED)
    assert re.search(
        r"`n_groups`.*GAUC.*both a positive and a negative label", GETTING_STARTED, flags=re.S
    )
