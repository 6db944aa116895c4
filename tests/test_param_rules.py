"""Option checks declared as data (``registry.Number``, ``registry.Flag``): each declared check
accepts its range's edges and refuses just past them, None and its words as declared, with the
one message that names the option and the value; the dbt package's table-driven check reads
the same fields (``tools.dbt.option_checks``), so no second table of ranges is kept.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from sqlmetrics import InvalidParameterError
from sqlmetrics._core.registry import PARAMS, Flag, Number
from tools import dbt

NUMBERS = sorted(n for n, spec in PARAMS.items() if isinstance(spec.check, Number))
FLAGS = sorted(n for n, spec in PARAMS.items() if isinstance(spec.check, Flag))


def _edges(rule: Number) -> tuple[list[Any], list[Any]]:
    """Values ``rule`` accepts and refuses, at and just past its bounds."""
    step = 1 if rule.kind == "int" else 1e-9
    inside: list[Any] = []
    outside: list[Any] = [True, "1", math.nan if rule.kind == "real" else 1.5]
    for bound, included, direction in ((rule.low, rule.low_in, 1), (rule.high, rule.high_in, -1)):
        if bound is None:
            continue
        bound = int(bound) if rule.kind == "int" else float(bound)
        (inside if included else outside).append(bound)
        inside.append(bound + direction * step)
        outside.append(bound - direction * step)
    if rule.low is None and rule.high is None:
        inside.append(1)
    if rule.kind == "real":
        outside += [math.inf, -math.inf]
    return inside, outside


def test_the_declared_checks_cover_the_numeric_and_boolean_options() -> None:
    """The options with a range or a True/False value are declared as data (the rest keep a
    function: choices, gains, labels, pos_label, zero_division, beta, threshold)."""
    assert {"k", "n_boot", "seed", "ci", "relevance_level", "max_grade", "bins"} <= set(NUMBERS)
    assert {"judged_only", "adjusted", "drop_intermediate"} <= set(FLAGS)


@pytest.mark.parametrize("name", NUMBERS)
def test_a_number_accepts_its_range_and_refuses_past_it(name: str) -> None:
    rule = PARAMS[name].check
    assert isinstance(rule, Number)
    inside, outside = _edges(rule)
    for value in inside:
        got = rule("m", name, value)
        assert got == value and type(got) is (int if rule.kind == "int" else type(got)), value
    for value in outside:
        with pytest.raises(InvalidParameterError, match=rf"^m: {name}= must be .*; got "):
            rule("m", name, value)
    if rule.none:
        assert rule("m", name, None) is None
    else:
        with pytest.raises(InvalidParameterError, match=f"{name}="):
            rule("m", name, None)
    for word, stands_for in rule.words:
        assert rule("m", name, word) == stands_for
    if rule.limit is not None:
        assert rule("m", name, rule.limit) == rule.limit
        with pytest.raises(InvalidParameterError, match=rf"{name}= must be <= {rule.limit}"):
            rule("m", name, rule.limit + 1)


@pytest.mark.parametrize("name", FLAGS)
def test_a_flag_takes_true_and_false(name: str) -> None:
    rule = PARAMS[name].check
    assert isinstance(rule, Flag)
    assert rule("m", name, True) is True and rule("m", name, False) is False
    for value in (0, 1, "yes"):
        with pytest.raises(InvalidParameterError, match=rf"^m: {name}= must be True or False"):
            rule("m", name, value)
    if rule.none:
        assert rule("m", name, None) is None


def test_a_huge_integer_gets_the_message_not_an_overflow() -> None:
    with pytest.raises(InvalidParameterError, match="k= must be <= "):
        PARAMS["k"].validate("m", 10**400)


@pytest.mark.parametrize("name", NUMBERS + FLAGS)
def test_dbt_reads_the_declared_rule(name: str) -> None:
    """dbt's rule for the option is the declaration's, with the Python check's message."""
    rule = PARAMS[name].check
    assert isinstance(rule, (Number, Flag))
    option = dbt.option_checks()["options"][name]
    assert {k: v for k, v in option.items() if k != "messages"} == rule.rule()
    assert option["messages"]["type"].startswith("{metric}: " + name + "= must be ")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("k", "an integer >= 1"),
        ("max_grade", "a number in (0, 960]"),
        ("seed", "an integer in [0, 2147483648)"),
        ("eps", "a number in (0, 0.5)"),
        ("relevance_level", "a number > 0"),
    ],
)
def test_range_text(name: str, text: str) -> None:
    rule = PARAMS[name].check
    assert isinstance(rule, Number) and rule.range_text() == text
