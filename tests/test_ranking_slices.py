"""Each slice of ``evaluate(by=...)`` equals the metric on that slice's rows and judgments alone.

For every registered ranking metric, with and without ``qrels=``, from a DataFrame and from
files, with the options that change which groups enter a mean (issue 16, item 1: with
``qrels=`` and ``empty="zero"`` every slice used to be divided by all judged groups).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import quiet

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY

RANKING = sorted(name for name, spec in REGISTRY.items() if spec.family == "ranking")
COLS = {"group": "q", "item": "d", "score": "s", "label": "y"}

# q1..q3 in market A, q4 and q5 in B, q6 in both (a group split across slices); q5 has no
# relevant item; q7 is in the run but not judged; q8 is judged but absent from the run
RUN = pd.DataFrame(
    [
        ("q1", "a", 0.9, 1, "A"),
        ("q1", "b", 0.8, 0, "A"),
        ("q1", "c", 0.8, 2, "A"),
        ("q2", "a", 0.5, 0, "A"),
        ("q2", "b", 0.4, 1, "A"),
        ("q3", "a", 0.7, 0, "A"),
        ("q3", "b", 0.7, 0, "A"),
        ("q3", "c", 0.1, 3, "A"),
        ("q4", "a", 0.3, 2, "B"),
        ("q4", "b", 0.2, 0, "B"),
        ("q5", "a", 0.6, 0, "B"),
        ("q5", "b", 0.5, 0, "B"),
        ("q6", "a", 0.9, 0, "A"),
        ("q6", "b", 0.9, 1, "B"),
        ("q6", "c", 0.2, 1, "B"),
        ("q7", "a", 0.4, 1, "B"),
    ],
    columns=["q", "d", "s", "y", "market"],
)
QRELS = pd.concat(
    [
        RUN[RUN["q"] != "q7"][["q", "d", "y"]],
        pd.DataFrame(
            [("q2", "z", 2), ("q4", "z", 1), ("q8", "a", 1), ("q8", "b", 0)],
            columns=["q", "d", "y"],
        ),
    ],
    ignore_index=True,
)
# "k" is the cut-off written into the name ("ndcg@2"; None: the plain name, the whole list)
OPTION_SETS = [
    {"k": 2, "empty": "skip"},
    {"k": None, "empty": "zero", "ties": "average"},
    {"k": 3, "empty": "zero", "missing": "zero", "ties": "item_asc", "gain": "linear"},
    {"k": 1, "empty": "skip", "missing": "zero", "relevance_level": 2},
]


def _name(metric: str, k: int | None) -> str:
    spec = REGISTRY[metric]
    base = spec.name.removesuffix("_at_k")
    return f"{base}@{k}" if spec.takes_k and k is not None else spec.name


def _function(metric: str) -> Any:
    return getattr(sqlmetrics, REGISTRY[metric].function)


def _accepted(metric: str, options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in REGISTRY[metric].params}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-12)


# every option set from a DataFrame; files (Parquet run and qrels) for two of them
# (by the query: one slice per query, some 8 calls of each metric per case; the fast tier runs
# option set 1 of them, every tier all four)
CASES = (
    [
        pytest.param(
            options,
            by,
            judged,
            "frame",
            id=f"{i}-{by}-{'qrels' if judged else 'labels'}",
            marks=[pytest.mark.slow] if by == "q" and i != 1 else [],
        )
        for i, options in enumerate(OPTION_SETS)
        for by in ("market", "q")
        for judged in (False, True)
    ]
    + [
        pytest.param(OPTION_SETS[i], "market", True, "file", id=f"{i}-market-qrels-file")
        for i in (1, 2)
    ]
    + [pytest.param(OPTION_SETS[1], "q", False, "file", id="1-q-labels-file")]
)


@pytest.mark.parametrize(("options", "by", "judged", "form"), CASES)
@pytest.mark.parametrize("metric", RANKING)
def test_each_slice_equals_the_metric_on_that_slice_alone(
    metric: str, options: dict[str, Any], by: str, judged: bool, form: str, tmp_path: Path
) -> None:
    k = options.get("k")
    options = {n: v for n, v in _accepted(metric, options).items() if n != "k"}
    name = _name(metric, k)
    options_fn = {**options, "k": k} if REGISTRY[metric].takes_k else dict(options)
    run = RUN
    data: Any = run
    qrels: Any = QRELS if judged else None
    if form == "file":
        data = tmp_path / "run.parquet"
        run.to_parquet(data)
        if judged:
            qrels = tmp_path / "qrels.parquet"
            QRELS.to_parquet(qrels)
    kwargs: dict[str, Any] = {**COLS, **({"qrels": qrels} if judged else {})}
    if judged and options.get("missing") == "zero" and by != COLS["group"]:
        # a judged group absent from the run has no market: it belongs to no slice
        with pytest.raises(sqlmetrics.InvalidParameterError, match="missing='zero'.*by="):
            evaluate_quiet(data, name, by, kwargs, options)
        return
    out = evaluate_quiet(data, name, by, kwargs, options)
    slices = set(run[by])
    if judged and options.get("missing") == "zero":  # by the group: q8 is a slice of its own
        slices.add("q8")
    assert list(out[by]) == sorted(slices)
    for _, row in out.iterrows():
        rows = run[run[by] == row[by]]
        fn_kwargs: dict[str, Any] = dict(COLS)
        if judged:
            fn_kwargs["qrels"] = QRELS[QRELS["q"].isin(rows["q"])]
        if row[by] == "q8":
            # no row in the run: the function over the run with q8's judgments alone
            assert row["n_rows"] == 0
            rows, fn_kwargs["qrels"] = run, QRELS[QRELS["q"] == "q8"]
        if judged and fn_kwargs["qrels"].empty:  # q7 alone: nothing judged, no group left
            expected = math.nan
        else:
            expected = float(quiet(_function(metric), rows, **fn_kwargs, **options_fn))
        got = float(row[name])
        assert _same(got, expected), (row[by], got, expected)


def evaluate_quiet(
    data: Any, name: str, by: str, kwargs: dict[str, Any], options: dict[str, Any]
) -> pd.DataFrame:
    return quiet(sqlmetrics.evaluate, data, [name], by=by, **kwargs, **options)


def test_the_issue_example_by_query_with_qrels_and_empty_zero() -> None:
    """search.csv: q001 alone is 0.911429; it used to come out as 0.022786 (n_groups 40)."""
    search = pd.read_csv(Path(__file__).resolve().parents[1] / "examples" / "data" / "search.csv")
    cols = {"group": "query_id", "item": "doc_id", "score": "score", "label": "rel"}
    judgments = search[["query_id", "doc_id", "rel"]]
    run = search.drop(columns=["rel"])
    out = sqlmetrics.evaluate(
        run, ["ndcg@10"], qrels=judgments, by="query_id", empty="zero", **cols
    )
    first = out.iloc[0]
    alone = sqlmetrics.ndcg(
        search[search["query_id"] == first["query_id"]], k=10, empty="zero", **cols
    )
    assert first["ndcg@10"] == pytest.approx(alone)
    assert first["n_groups"] == 1
