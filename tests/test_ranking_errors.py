"""Every error message of the ranking metrics: it names the metric, the argument and the value."""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.params import RANKING

COLS = {"group": "g", "item": "i", "score": "s", "label": "y"}


def frame(**changes: list[object]) -> pd.DataFrame:
    base: dict[str, list[object]] = {
        "g": [1, 1, 2],
        "i": ["a", "b", "a"],
        "s": [0.5, 0.2, 0.9],
        "y": [1.0, 0.0, 2.0],
    }
    base.update(changes)
    return pd.DataFrame(base)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, r"ndcg: k= must be an integer >= 1, or None for the whole list; got 0"),
        ({"k": 2.5}, r"ndcg: k= must be an integer >= 1, or None .*; got 2\.5"),
        ({"k": True}, r"ndcg: k= must be an integer >= 1.*; got True"),
        (
            {"ties": "random"},
            r"ndcg: ties= must be one of 'item_desc', 'item_asc', 'text_desc', 'average'; "
            r"got 'random'",
        ),
        ({"ties": "averge"}, r"did you mean 'average'\?"),
        ({"gain": "exp"}, r"ndcg: gain= must be one of 'exponential', 'linear'; got 'exp'"),
        (
            {"empty": "drop"},
            r"ndcg: empty= must be one of 'skip', 'zero', 'one', 'error'; got 'drop'",
        ),
        (
            {"missing": "zero_c"},
            r"ndcg: missing= must be one of 'skip', 'zero', 'error'; "
            r"got 'zero_c'; did you mean 'zero'\?",
        ),
        ({"relevance_level": 0}, r"ndcg: relevance_level= must be a finite number > 0 .*got 0"),
        ({"relevance_level": math.nan}, r"relevance_level= must be a finite number > 0"),
    ],
)
def test_parameter_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=message):
        sqlmetrics.ndcg(frame(), **COLS, **kwargs)  # type: ignore[arg-type]


def test_ap_denominator_errors() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"map: ap_denominator= must be one of 'relevant', "
        r"'min_k_relevant', 'hits'; got 'all'",
    ):
        sqlmetrics.mean_average_precision(frame(), ap_denominator="all", **COLS)
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"map: ties='average' has no closed form with "
        r"ap_denominator='hits'.*use ties='item_desc'",
    ):
        sqlmetrics.mean_average_precision(frame(), ties="average", ap_denominator="hits", **COLS)


def test_r_precision_takes_no_k() -> None:
    with pytest.raises(TypeError):
        sqlmetrics.r_precision(frame(), k=3, **COLS)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"y": [1.0, -1.0, 0.0]},
            r"mrr: label column 'y' \(label=\) has 1 of 3 rows negative; labels must be >= 0",
        ),
        ({"g": [1, None, 2]}, r"mrr: group column 'g' \(group=\) has 1 of 3 rows NULL"),
        ({"i": ["a", None, "a"]}, r"mrr: item column 'i' \(item=\) has 1 of 3 rows NULL"),
        (
            {"s": [0.5, math.inf, 0.1]},
            r"mrr: score column 's' \(score=\) has 1 of 3 rows NaN or infinite",
        ),
        ({"y": [1.0, None, 0.0]}, r"mrr: label column 'y' \(label=\) has 1 of 3 rows NULL"),
        ({"s": ["x", "y", "z"]}, r"mrr: score column 's' has type VARCHAR; score= must name"),
        (
            {"i": ["a", "a", "a"]},
            r"mrr: data=DataFrame has 1 duplicated combinations of 'g' \(group=\), 'i' \(item=\), "
            r"e\.g\. \(1, a\); each must appear once",
        ),
    ],
)
def test_data_errors(changes: dict[str, list[object]], message: str) -> None:
    with pytest.raises(sqlmetrics.InvalidDataError, match=message):
        sqlmetrics.mrr(frame(**changes), **COLS)


def test_nan_scores_in_a_table() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute(
        "create table t as select * from (values (1, 'a', 'nan'::double, 1), "
        "(1, 'b', 0.5, 0)) v(g, i, s, y)"
    )
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"ndcg: score column 's' \(score=\) has 1 of 2 rows NaN or infinite",
    ):
        sqlmetrics.ndcg("t", con=con, **COLS)


def test_missing_columns() -> None:
    with pytest.raises(
        sqlmetrics.ColumnNotFoundError,
        match=r"ndcg: column 'rel' \(label=\) not found in data=DataFrame; "
        r"columns present: g, i, s, y",
    ):
        sqlmetrics.ndcg(frame(), **{**COLS, "label": "rel"})
    run = frame().drop(columns="y")
    qrels = pd.DataFrame({"g": [1], "i": ["a"]})
    with pytest.raises(
        sqlmetrics.ColumnNotFoundError,
        match=r"ndcg: column 'y' \(label=\) not found in qrels=DataFrame; "
        r"columns present: g, i",
    ):
        sqlmetrics.ndcg(run, qrels=qrels, **COLS)


def test_qrels_errors() -> None:
    run = frame().drop(columns="y")
    dup = pd.DataFrame({"g": [1, 1], "i": ["a", "a"], "y": [1, 0]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"ndcg: qrels=DataFrame has 1 duplicated combinations of 'g' "
        r"\(group=\), 'i' \(item=\)",
    ):
        sqlmetrics.ndcg(run, qrels=dup, **COLS)
    negative = pd.DataFrame({"g": [1], "i": ["a"], "y": [-2]})
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"ndcg: label column 'y'.* negative"):
        sqlmetrics.ndcg(run, qrels=negative, **COLS)
    text_ids = pd.DataFrame({"g": ["1"], "i": ["a"], "y": [1]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"ndcg: group= column 'g' has type BIGINT in data but 'g' has type "
        r"VARCHAR in qrels=; ids must be comparable",
    ):
        sqlmetrics.ndcg(run, qrels=text_ids, **COLS)
    with pytest.raises(sqlmetrics.DataSourceError, match=r"ndcg: qrels='no_such_table'"):
        sqlmetrics.ndcg(run, qrels="no_such_table", **COLS)


def test_empty_error_and_undefined_warning() -> None:
    data = frame(y=[1.0, 0.0, 0.0])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"hit_rate: 1 group\(s\) have no relevant item \(label >= "
        r"relevance_level\), e\.g\. group 2; with empty='error'",
    ):
        sqlmetrics.hit_rate(data, empty="error", **COLS)
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=r"hit_rate is undefined: no group has a relevant item",
    ):
        assert math.isnan(sqlmetrics.hit_rate(data, relevance_level=2, **COLS))
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"data=DataFrame has no rows"):
        sqlmetrics.hit_rate(data.iloc[:0], **COLS)


def test_hostile_identifiers_are_quoted() -> None:
    evil = 'x"; drop table t; --'
    data = frame().rename(columns={"g": evil})
    assert sqlmetrics.mrr(data, **{**COLS, "group": evil}) == 1.0


#: the extra argument a ranking metric needs on this frame
NEEDS = {"iprec_at_recall": {"recall_level": 0.5}}


@pytest.mark.parametrize("name", RANKING)
def test_each_warning_is_in_the_warns_section(name: str) -> None:
    """What a ranking metric warns is in its docstring's Warns section: a group without a
    relevant item left out (SkippedGroupsWarning), then no group left at all
    (UndefinedMetricWarning). The TREC metrics' Warns once lacked the first.
    """
    function = getattr(sqlmetrics, name)
    warns = (function.__doc__ or "").split("Warns\n")[1].split("See Also\n")[0]
    one_empty = frame(y=[1.0, 0.0, 0.0])  # group 2 has no relevant item
    none_left = frame(y=[0.0, 0.0, 0.0])
    for data, expected in ((one_empty, "SkippedGroupsWarning"), (none_left, None)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            function(data, **COLS, **NEEDS.get(name, {}))
        emitted = {type(w.message).__name__ for w in caught}
        assert expected is None or expected in emitted, (name, emitted)
        for warning in emitted:
            assert f"\n    {warning}\n" in warns, (name, warning)


def test_weights_summing_to_zero_are_said_so() -> None:
    """Groups left whose weights sum to 0: the warning says so, in the function and in each
    slice of evaluate, rather than that no group has a relevant item (which it said before).
    """
    data = frame(w=[0.0, 0.0, 0.0], y=[1.0, 0.0, 1.0])  # both groups have a relevant item
    weights_zero = r"the weights of the groups left sum to 0 \(weight=, group_weight=\)"
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=f"mrr is undefined: {weights_zero}"):
        assert math.isnan(sqlmetrics.mrr(data, weight="w", **COLS))
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=weights_zero):
        assert math.isnan(sqlmetrics.ndcg(data.assign(gw=0.0), group_weight="gw", **COLS))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=rf"evaluate: mrr is undefined in 1 of 1 slice\(s\) \({weights_zero}\)",
    ):
        out = sqlmetrics.evaluate(data, ["mrr"], weight="w", **COLS)
    assert math.isnan(out["mrr"].iloc[0]) and out["n_groups"].iloc[0] == 2
    # one slice without a relevant item, one whose groups weigh nothing: both reasons
    mixed = frame(w=[1.0, 1.0, 0.0], y=[0.0, 0.0, 1.0])
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning,
        match=rf"in 2 of 2 slice\(s\) \(no group has a relevant item .*; or {weights_zero}\)",
    ):
        sqlmetrics.evaluate(mixed, ["mrr"], weight="w", by="g", empty="skip", **COLS)
    # without weights, no group left is still no relevant item
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=r"no group has a relevant item"):
        sqlmetrics.mrr(frame(y=[0.0, 0.0, 0.0]), empty="skip", **COLS)
