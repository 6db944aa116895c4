"""The ranking metrics' Raises sections are written from what each takes
(``sqlmetrics._metrics.ranking._raises``): every refusal they state happens, naming the
argument, and every option a ranking metric checks against a list is stated.
"""

from __future__ import annotations

import importlib
import inspect

import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._metrics import ranking

RUN = pd.DataFrame(
    {"group": [1, 1, 2], "item": ["a", "b", "a"], "score": [0.3, 0.2, 0.1], "label": [1, 0, 1]}
)
DECLARED = [
    function
    for module in ("ranking", "ranking_ir", "ranking_retrieval")
    for function in importlib.import_module(f"sqlmetrics._metrics.{module}").API
]
#: a value each numeric option refuses
BAD = {
    "k": 0,
    "relevance_level": 0,
    "max_grade": 0,
    "beta": -1.0,
    "persistence": 1.5,
    "recall_level": 2.0,
    "ci": 1.5,
    "log_base": 1,
}
CASES = [
    (function.name, option)
    for function in DECLARED
    for option in function.takes
    if option in ranking._CHOICES
    or (
        option not in ranking._WITH_CI and (option in ranking._REFUSED or ranking._declared(option))
    )
]


def test_every_numeric_option_has_a_refused_value() -> None:
    numeric = {option for _, option in CASES if option not in ranking._CHOICES}
    assert set(BAD) == numeric


@pytest.mark.parametrize(("name", "option"), CASES)
def test_each_stated_refusal_is_raised_naming_the_argument(name: str, option: str) -> None:
    value = BAD.get(option, "no_such_value")
    doc = inspect.getdoc(getattr(sqlmetrics, name)) or ""
    refused = " ".join(doc.split("InvalidParameterError")[1].split("DataSourceError")[0].split())
    assert f"``{option}``" in refused or f"``{option} " in refused, refused
    with pytest.raises(sqlmetrics.InvalidParameterError, match=f"{option}="):
        getattr(sqlmetrics, name)(RUN, **{option: value})


@pytest.mark.parametrize("name", ranking.NO_TIE_AVERAGE)
def test_ties_average_is_refused_where_stated(name: str) -> None:
    assert '``ties="average"``' in (inspect.getdoc(getattr(sqlmetrics, name)) or "")
    with pytest.raises(sqlmetrics.InvalidParameterError, match="ties"):
        getattr(sqlmetrics, name)(RUN, ties="average")


def test_a_metric_that_takes_ties_average_does_not_say_it_refuses_it() -> None:
    for function in DECLARED:
        doc = inspect.getdoc(getattr(sqlmetrics, function.name)) or ""
        refused = doc.split("InvalidParameterError")[1].split("DataSourceError")[0]
        if function.name not in ranking.NO_TIE_AVERAGE:
            assert '; ``ties="average"``.' not in " ".join(refused.split()), function.name
