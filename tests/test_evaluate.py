"""evaluate(): names, options, slices (each slice equals the single-metric call on it alone)."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.names import metric_form, parse_metric
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._metrics.classification_bounds import AucBounds

RNG = np.random.default_rng(11)
N = 600
FRAME = pd.DataFrame(
    {
        "country": RNG.choice(["DE", "FR", "US"], N),
        "day": RNG.choice([1, 2], N),
        "user": RNG.integers(0, 40, N),
        "click": RNG.integers(0, 2, N),
        "pctr": RNG.integers(0, 25, N) / 25,  # many ties
        "w": RNG.choice([0.5, 1.0, 2.0], N),
    }
)
# every binary classification metric evaluate computes (one value per slice)
CLASSIFICATION = sorted(
    name
    for name, spec in REGISTRY.items()
    if spec.family == "classification" and spec.output == "scalar"
)


def single(name: str, frame: pd.DataFrame, **kwargs: object) -> float:
    function = getattr(sqlmetrics, name)
    args: dict[str, object] = {"label": "click", "score": "pctr"}
    spec = REGISTRY[name]
    if "group" in spec.role_names:
        args["group"] = "user"
    if "threshold" in spec.params:
        args["threshold"] = 0.4
    if "beta" in spec.params:
        args["beta"] = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        value = function(frame, **args, **kwargs)
    # auc_bounds returns (estimate, lower, upper); evaluate's column is the estimate
    return float(value.estimate if isinstance(value, AucBounds) else value)


def test_one_row_without_by() -> None:
    out = sqlmetrics.evaluate(
        FRAME, CLASSIFICATION, label="click", score="pctr", group="user", threshold=0.4, beta=2.0
    )
    assert list(out.columns) == [*CLASSIFICATION, "n_rows", "n_groups"]
    assert len(out) == 1 and out["n_rows"].iloc[0] == N
    for name in CLASSIFICATION:
        assert out[name].iloc[0] == single(name, FRAME), name


@pytest.mark.parametrize("by", [["country"], ["country", "day"], "day"])
def test_each_slice_equals_the_single_call_on_that_slice(by: list[str] | str) -> None:
    out = sqlmetrics.evaluate(
        FRAME,
        CLASSIFICATION,
        label="click",
        score="pctr",
        group="user",
        by=by,
        threshold=0.4,
        beta=2.0,
    )
    cols = [by] if isinstance(by, str) else by
    assert list(out.columns[: len(cols)]) == cols
    expected_slices = FRAME[cols].drop_duplicates().sort_values(cols).reset_index(drop=True)
    pd.testing.assert_frame_equal(out[cols], expected_slices, check_dtype=False)
    for _, row in out.iterrows():
        mask = np.logical_and.reduce([FRAME[c] == row[c] for c in cols])
        part = FRAME[mask]
        assert row["n_rows"] == len(part)
        for name in CLASSIFICATION:
            got, want = row[name], single(name, part)
            assert (math.isnan(got) and math.isnan(want)) or got == want, (name, row[cols])


def test_weights_and_slices() -> None:
    out = sqlmetrics.evaluate(
        FRAME, ["auc", "f1"], label="click", score="pctr", weight="w", by="country", threshold=0.4
    )
    for _, row in out.iterrows():
        part = FRAME[FRAME["country"] == row["country"]]
        assert row["auc"] == sqlmetrics.auc(part, label="click", score="pctr", weight="w")
        assert row["f1"] == sqlmetrics.f1(
            part, label="click", score="pctr", weight="w", threshold=0.4
        )


def test_shuffled_input_gives_identical_frame() -> None:
    kwargs = {
        "label": "click",
        "score": "pctr",
        "group": "user",
        "by": ["country", "day"],
        "weight": "w",
    }
    a = sqlmetrics.evaluate(FRAME, ["auc", "gauc", "f1"], **kwargs)
    b = sqlmetrics.evaluate(FRAME.sample(frac=1, random_state=5), ["auc", "gauc", "f1"], **kwargs)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_null_slice_value_is_a_slice() -> None:
    frame = FRAME.assign(country=FRAME["country"].where(FRAME["country"] != "US", None))
    out = sqlmetrics.evaluate(frame, ["auc"], label="click", score="pctr", by="country")
    assert len(out) == 3 and out["country"].isna().sum() == 1
    part = frame[frame["country"].isna()]
    assert out["auc"].iloc[-1] == sqlmetrics.auc(part, label="click", score="pctr")


def test_every_input_kind(tmp_path: object) -> None:
    con = duckdb.connect()
    con.register("f", FRAME)
    con.execute("create table events as select * from f")
    args = {"label": "click", "score": "pctr", "by": "country"}
    base = sqlmetrics.evaluate(FRAME, ["auc"], **args)
    path = f"{tmp_path}/events.parquet"
    FRAME.to_parquet(path)
    for data, con_arg in [
        ("events", con),
        (path, None),
        (con.sql("select * from events"), con),
        (__import__("pyarrow").Table.from_pandas(FRAME), None),
    ]:
        pd.testing.assert_frame_equal(sqlmetrics.evaluate(data, ["auc"], con=con_arg, **args), base)


def test_undefined_slices_warn_once_per_metric() -> None:
    frame = pd.DataFrame(
        {"s": ["a", "a", "b", "b"], "label": [0, 1, 1, 1], "score": [0.1, 0.9, 0.2, 0.3]}
    )
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match=r"evaluate: auc is undefined in 1 of 2 slice\(s\)"
    ):
        out = sqlmetrics.evaluate(frame, ["auc"], by="s")
    assert out["auc"].iloc[0] == 1.0 and math.isnan(out["auc"].iloc[1])


def test_zero_division_option_fills_undefined_ratios() -> None:
    frame = pd.DataFrame(
        {"s": ["a", "a", "b", "b"], "label": [0, 1, 1, 1], "score": [0.1, 0.9, 0.2, 0.3]}
    )
    out = sqlmetrics.evaluate(frame, ["precision", "recall"], by="s", zero_division=0.0)
    assert list(out["precision"]) == [1.0, 0.0]


def test_unknown_metric_suggests_with_cutoff() -> None:
    with pytest.raises(
        sqlmetrics.UnknownMetricError,
        match=r"unknown metric 'acuracy'; did you "
        r"mean 'accuracy'\? known metrics",
    ):
        sqlmetrics.evaluate(FRAME, ["acuracy"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"cut-off after '@' must be"):
        parse_metric("auc@ten")
    with pytest.raises(sqlmetrics.UnknownMetricError, match=r"'auc' takes no cut-off"):
        parse_metric("auc@10")


def test_option_nobody_accepts() -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=(
            r"evaluate: option gain= is accepted by none of the requested metrics \(auc, f1\); "
            r"options they accept: beta|threshold"
        ),
    ):
        sqlmetrics.evaluate(FRAME, ["auc", "f1"], label="click", score="pctr", gain="linear")


def test_option_values_are_checked() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"f1: threshold= must be a finite"):
        sqlmetrics.evaluate(FRAME, ["f1"], label="click", score="pctr", threshold="high")


def test_twice_empty_and_missing_group() -> None:
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"'auc' is requested twice"):
        sqlmetrics.evaluate(FRAME, ["auc", "auc"], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"metrics= is empty"):
        sqlmetrics.evaluate(FRAME, [], label="click", score="pctr")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"'gauc' needs group="):
        sqlmetrics.evaluate(FRAME, ["gauc"], label="click", score="pctr")
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"weight='w' is used by none of the requested metrics \(gauc\)",
    ):
        sqlmetrics.evaluate(FRAME, ["gauc"], label="click", score="pctr", group="user", weight="w")


def test_bad_column_and_data_errors_name_evaluate() -> None:
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"evaluate: column 'nope' \(by=\)"):
        sqlmetrics.evaluate(FRAME, ["auc"], label="click", score="pctr", by="nope")
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"evaluate: label column 'user'"):
        sqlmetrics.evaluate(FRAME, ["auc"], label="user", score="pctr")


def test_every_scalar_metric_is_reachable_by_name() -> None:
    for name, spec in REGISTRY.items():
        if spec.output != "scalar":
            continue
        text = f"{name.removesuffix('_at_k')}@5" if spec.takes_k else name
        assert parse_metric(text).spec is spec


# ----------------------------------------------------------------------------- ranking
RANK = pd.DataFrame(
    {
        "q": RNG.integers(0, 30, 900),
        "doc": [f"d{i}" for i in range(900)],
        "rel": RNG.choice([0, 0, 0, 1, 2, 3], 900),
        "s": RNG.integers(0, 8, 900) / 8,  # ties within queries
        "market": RNG.choice(["x", "y"], 900),
    }
)
# every ranking metric, as evaluate takes it (cut-offs 10, 3, 5 in turn), and two without k
_RANKING_SPECS = sorted(
    (spec for spec in REGISTRY.values() if spec.family == "ranking"), key=metric_form
)
RANKING = [
    metric_form(spec).replace("@k", f"@{(10, 3, 5)[i % 3]}")
    for i, spec in enumerate(_RANKING_SPECS)
] + ["ndcg", "map"]
FUNCTIONS = {metric_form(spec).removesuffix("@k"): spec.function for spec in _RANKING_SPECS}


def single_ranking(text: str, frame: pd.DataFrame, **kwargs: object) -> float:
    base, _, k = text.partition("@")
    args: dict[str, object] = {"group": "q", "item": "doc", "score": "s", "label": "rel", **kwargs}
    spec = parse_metric(text).spec
    if "gain" in spec.params and "gain" not in args:
        args["gain"] = "exponential"
    if "gain" not in spec.params:
        args.pop("gain", None)
    if "ap_denominator" not in spec.params:
        args.pop("ap_denominator", None)
    if spec.takes_k:
        args["k"] = int(k) if k else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlmetrics.UndefinedMetricWarning)
        return float(getattr(sqlmetrics, FUNCTIONS[base])(frame, **args))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"gain": "linear", "ties": "average", "empty": "zero"},
        {"ties": "item_asc", "relevance_level": 2, "ap_denominator": "min_k_relevant"},
    ],
)
def test_ranking_slices_equal_single_calls(options: dict[str, object]) -> None:
    out = sqlmetrics.evaluate(
        RANK, RANKING, group="q", item="doc", score="s", label="rel", by="market", **options
    )
    assert list(out.columns) == ["market", *RANKING, "n_rows", "n_groups"]
    for _, row in out.iterrows():
        part = RANK[RANK["market"] == row["market"]]
        for text in RANKING:
            want = single_ranking(text, part, **options)
            assert row[text] == pytest.approx(want, rel=1e-12, abs=1e-15), (text, options)


def test_ranking_and_classification_together() -> None:
    frame = RANK.assign(click=(RANK["rel"] > 0).astype(int))
    out = sqlmetrics.evaluate(
        frame, ["auc", "gauc", "ndcg@10"], label="click", score="s", group="q", item="doc"
    )
    assert out["auc"].iloc[0] == sqlmetrics.auc(frame, label="click", score="s")
    assert out["ndcg@10"].iloc[0] == sqlmetrics.ndcg(
        frame, group="q", item="doc", score="s", label="click", k=10
    )
    # GAUC and ranking means run over different groups: one count each (issue 22)
    assert "n_groups" not in out
    assert out["n_groups_ndcg@10"].iloc[0] == frame[frame["click"] > 0]["q"].nunique()
    both = frame.groupby("q")["click"].nunique()
    assert out["n_groups_gauc"].iloc[0] == (both == 2).sum()


def test_ranking_with_qrels_and_shuffle() -> None:
    run = RANK[["q", "doc", "s"]]
    qrels = RANK[["q", "doc", "rel"]].rename(columns={"rel": "grade"})
    extra = pd.DataFrame({"q": [0, 0, 999], "doc": ["unseen1", "unseen2", "x"], "grade": [3, 1, 2]})
    qrels = pd.concat([qrels, extra], ignore_index=True)
    args = {"group": "q", "item": "doc", "score": "s", "label": "grade", "qrels": qrels}
    policy = {"empty": "zero", "missing": "zero"}  # trec_eval -c
    out = sqlmetrics.evaluate(run, ["ndcg@10", "recall@10", "map"], **policy, **args)
    assert out["ndcg@10"].iloc[0] == sqlmetrics.ndcg(run, k=10, **policy, **args)
    assert out["recall@10"].iloc[0] == sqlmetrics.recall_at_k(run, k=10, **policy, **args)
    assert out["n_groups"].iloc[0] == 31  # 30 queries + 999, judged but never retrieved
    skipped = sqlmetrics.evaluate(run, ["map"], empty="zero", **args)
    assert skipped["n_groups"].iloc[0] == 30  # trec_eval's default: 999 left out
    shuffled = sqlmetrics.evaluate(
        run.sample(frac=1, random_state=1), ["ndcg@10", "recall@10", "map"], **policy, **args
    )
    pd.testing.assert_frame_equal(out, shuffled, check_exact=True)


def test_ranking_errors_in_evaluate() -> None:
    dup = pd.concat([RANK, RANK.iloc[:1]])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"evaluate: data=DataFrame has 1 "
        r"duplicated combinations",
    ):
        sqlmetrics.evaluate(dup, ["ndcg@10"], group="q", item="doc", score="s", label="rel")
    # item= defaults to "item", as ndcg()'s does (issue 39): that column is missing here
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match=r"column 'item' \(item=\) not found"):
        sqlmetrics.evaluate(RANK, ["ndcg@10"], group="q", score="s", label="rel")
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"qrels= is used by ranking"):
        sqlmetrics.evaluate(RANK, ["auc"], score="s", label="rel", qrels=RANK)
    none_relevant = RANK.assign(rel=0)
    with pytest.raises(sqlmetrics.InvalidDataError, match=r"with empty='error' every group"):
        sqlmetrics.evaluate(
            none_relevant, ["ndcg@10"], group="q", item="doc", score="s", label="rel", empty="error"
        )
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match=r"ndcg@10 is undefined in 1"):
        out = sqlmetrics.evaluate(
            none_relevant, ["ndcg@10"], group="q", item="doc", score="s", label="rel"
        )
    assert out["n_groups"].iloc[0] == 0


def test_multiclass_metrics_per_slice() -> None:
    frame = pd.DataFrame(
        {
            "y": RNG.choice(["cat", "dog", "pig"], 300),
            "p": RNG.choice(["cat", "dog", "pig"], 300),
            "c": RNG.choice(["a", "b"], 300),
        }
    )
    names = ["f1_macro", "precision_micro", "recall_weighted", "mcc"]
    out = sqlmetrics.evaluate(frame, names, label="y", prediction="p", by="c")
    for _, row in out.iterrows():
        part = frame[frame["c"] == row["c"]]
        assert row["f1_macro"] == sqlmetrics.f1(part, label="y", prediction="p", average="macro")
        assert row["precision_micro"] == sqlmetrics.precision(
            part, label="y", prediction="p", average="micro"
        )
        assert row["recall_weighted"] == sqlmetrics.recall(
            part, label="y", prediction="p", average="weighted"
        )
        assert row["mcc"] == sqlmetrics.mcc(part, label="y", prediction="p")


def test_table_metrics_are_refused_with_the_function_to_call() -> None:
    for name in sorted(n for n, spec in REGISTRY.items() if spec.output != "scalar"):
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=rf"'{name}' gives several values per slice .* call "
            rf"sqlmetrics\.{name}\(\.\.\.\)",
        ):
            parse_metric(name)
