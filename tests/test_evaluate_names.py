"""evaluate(): slice names that collide with output or internal columns (issue 15 item 9),
options checked as the functions check them and metric columns in the order asked (issue 9)."""

from __future__ import annotations

import pandas as pd
import pytest

import sqlmetrics

DATA = pd.DataFrame(
    {
        "country": ["DE"] * 6 + ["FR"] * 6,
        "q": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
        "d": ["a", "b", "c"] * 4,
        "s": [0.9, 0.3, 0.5, 0.4, 0.2, 0.8, 0.7, 0.7, 0.1, 0.6, 0.5, 0.3],
        "y": [1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0],
    }
)
COLS = {"label": "y", "score": "s", "group": "q", "item": "d"}
QRELS = DATA[["q", "d", "y"]]
# names the output or the composed SQL uses on its own
NAMES = [
    "n_rows",
    "n_groups",
    "n_empty",
    "first_empty",
    "n_missing",
    "first_missing",
    "auc",
    "ndcg@2",
    "f1",
    "m0",
    "p0",
    "slice_0",
    "slices",
    "ranking",
    "grp",
    "label",
]
REQUESTS = [
    (["auc", "ndcg@2"], {}),
    (["ndcg@2"], {"empty": "error", "missing": "error", "qrels": QRELS}),
    (["f1", "precision"], {"threshold": 0.5}),
]


def _outputs(metrics: list[str]) -> set[str]:
    ranking_or_gauc = any(m not in ("auc", "f1", "precision") for m in metrics)
    return {*metrics, "n_rows", *(["n_groups"] if ranking_or_gauc else [])}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("metrics", "options"), REQUESTS, ids=["auc-ndcg", "qrels", "f1"])
def test_slice_named_like_an_output_or_internal_column(
    name: str, metrics: list[str], options: dict[str, object]
) -> None:
    data = DATA.assign(**{name: DATA["country"]})
    columns = {
        k: v for k, v in COLS.items() if k in ("label", "score") or any("@" in m for m in metrics)
    }
    if name in _outputs(metrics):
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=rf"evaluate: slice column '{name}' \(by=\) has the name of an "
            rf"output column",
        ):
            sqlmetrics.evaluate(data, metrics, by=name, **columns, **options)
        return
    got = sqlmetrics.evaluate(data, metrics, by=name, **columns, **options)
    expected = sqlmetrics.evaluate(DATA, metrics, by="country", **columns, **options)
    pd.testing.assert_frame_equal(got, expected.rename(columns={"country": name}))


# ----------------------------------------------------------------------------- issue 9 bugs
# None is "not passed" (a convention's value, else "warn"), in evaluate as in the functions
@pytest.mark.parametrize("value", ["foo", 2.0, -1, True])
def test_zero_division_is_checked_like_the_functions(value: object) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"f1: zero_division= must be 'warn' \(NaN with a "
        r"warning\), 0\.0, 1\.0 or float\('nan'\); got ",
    ):
        sqlmetrics.evaluate(DATA, ["auc", "f1"], label="y", score="s", zero_division=value)
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"f1: zero_division= must be"):
        sqlmetrics.f1(DATA, label="y", score="s", zero_division=value)


def test_zero_division_none_is_not_passed() -> None:
    passed = sqlmetrics.evaluate(DATA, ["f1"], label="y", score="s", zero_division=None)
    assert passed.equals(sqlmetrics.evaluate(DATA, ["f1"], label="y", score="s"))


def test_zero_division_error_on_the_command_line(tmp_path: object) -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    path = f"{tmp_path}/data.csv"
    DATA.to_csv(path, index=False)
    result = CliRunner().invoke(
        cli.main,
        ["eval", path, "-m", "f1", "--label", "y", "--score", "s", "--option", "zero_division=foo"],
    )
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "zero_division= must be 'warn'" in result.output


def test_threshold_with_prediction_raises_like_the_functions() -> None:
    data = DATA.assign(p=(DATA["s"] > 0.5).astype(int))
    with pytest.raises(
        sqlmetrics.InvalidParameterError,
        match=r"evaluate: threshold=0\.3 and prediction='p' both given; the "
        r"threshold metrics \(f1, precision\) use",
    ):
        sqlmetrics.evaluate(
            data, ["auc", "f1", "precision"], label="y", score="s", prediction="p", threshold=0.3
        )
    with pytest.raises(sqlmetrics.InvalidParameterError, match=r"both given"):
        sqlmetrics.f1(data, label="y", prediction="p", threshold=0.3)


def test_metric_columns_come_back_in_the_requested_order() -> None:
    metrics = ["ndcg@2", "precision", "auc", "gauc", "mrr"]
    out = sqlmetrics.evaluate(DATA, metrics, by="country", **COLS)
    grouped = ["ndcg@2", "gauc", "mrr"]  # GAUC and ranking: a group count each (issue 22)
    counts = [f"n_groups_{m}" for m in grouped]
    assert list(out.columns) == ["country", *metrics, "n_rows", *counts]
    for metric in metrics:
        columns = {k: v for k, v in COLS.items() if k != "item" or "@" in metric or metric == "mrr"}
        alone = sqlmetrics.evaluate(DATA, [metric], by="country", **columns)
        pd.testing.assert_series_equal(out[metric], alone[metric])
        if metric in grouped:
            assert out[f"n_groups_{metric}"].tolist() == alone["n_groups"].tolist()


def test_missing_error_in_evaluate_names_the_group() -> None:
    qrels = pd.concat([QRELS, pd.DataFrame({"q": [9], "d": ["a"], "y": [1]})])
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"evaluate: 1 judged group\(s\) of qrels= have no row in the run, "
        r"e\.g\. group 9; with missing='error'",
    ):
        sqlmetrics.evaluate(DATA, ["ndcg@2"], qrels=qrels, by="country", missing="error", **COLS)
