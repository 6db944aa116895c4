"""Operating points (recall_at_precision, precision_at_recall, tpr_at_fpr, operating_points):
SQL == scikit-learn's curves read off independently (numpy) == the naive oracle (torchmetrics'
rule transcribed, tests/oracle/separation.py), with heavy ties, weights, slices; torchmetrics'
published examples; the undefined cases and every error message.

torchmetrics itself needs torch (a download of several hundred MB), so its rule is checked
through its published doctest values and the transcription of its reduce functions
(``_recall_at_precision`` and ``_lexargmax`` in
torchmetrics/functional/classification/recall_fixed_precision.py, ``_precision_at_recall`` in
precision_fixed_recall.py): the largest value, then the other rate, then the threshold.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import frames, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import separation as osep
from sklearn import metrics as skm

import sqlmetrics
from sqlmetrics.errors import InvalidParameterError, UndefinedMetricWarning

DF = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [0.1, 0.4, 0.35, 0.8, 0.5, 0.5]})
OPS = ("recall_at_precision", "precision_at_recall", "tpr_at_fpr")
#: each metric's option
OPTION = {"recall_at_precision": "min_precision", "precision_at_recall": "min_recall",
          "tpr_at_fpr": "max_fpr"}  # fmt: skip


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12


# ------------------------------------------------------------------ an independent read-off
def sklearn_read_off(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, metric: str, level: float
) -> tuple[float, float]:
    """(value, threshold) read off scikit-learn's precision_recall_curve / roc_curve
    (drop_intermediate=False) by a numpy lexicographic argmax; NaN where undefined.
    """
    if metric == "tpr_at_fpr":
        if y.sum() == 0 or (1 - y).sum() == 0 or (w is not None and (w[y == 0].sum() == 0)):
            return math.nan, math.nan
        fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
        ok = fpr <= level
        # largest tpr, then smallest fpr, then largest threshold (inf: the (0, 0) point)
        order = np.lexsort((thr[ok], -fpr[ok], tpr[ok]))
        best = order[-1]
        threshold = thr[ok][best]
        return float(tpr[ok][best]), (math.nan if np.isinf(threshold) else float(threshold))
    pos = y.sum() if w is None else (w * y).sum()
    if pos == 0:
        return math.nan, math.nan
    precision, recall, thr = skm.precision_recall_curve(
        y, s, sample_weight=w, drop_intermediate=False
    )
    precision, recall = precision[:-1], recall[:-1]  # the appended (1, 0) has no threshold
    if w is not None:  # points with only zero weights at or above them have no precision
        ps = np.array([(w * (s >= t)).sum() for t in thr])
        keep = ps > 0
        precision, recall, thr = precision[keep], recall[keep], thr[keep]
    if metric == "recall_at_precision":
        ok = precision >= level
        keys = (thr[ok], precision[ok], recall[ok])
        value = recall[ok]
    else:
        ok = recall >= level
        keys = (thr[ok], recall[ok], precision[ok])
        value = precision[ok]
    if not ok.any():
        return math.nan, math.nan
    best = np.lexsort(keys)[-1]
    return float(value[best]), float(thr[ok][best])


def random_frame(seed: int, n: int = 400, weighted: bool = False) -> pd.DataFrame:
    """Heavy ties (12 distinct scores), three slices and a NULL slice, dyadic weights with
    zeros (so every sum is exact in any order)."""
    rng = np.random.default_rng(seed)
    score = rng.choice(np.round(np.linspace(-1, 2, 12), 6), size=n)
    label = (rng.random(n) < 1 / (1 + np.exp(-2 * score))).astype(int)
    frame = pd.DataFrame(
        {
            "label": label,
            "score": score,
            "g": rng.choice(np.array(["a", "b", "c", None], dtype=object), size=n),
        }
    )
    if weighted:
        frame["w"] = rng.choice([0.0, 0.25, 1.0, 2.5, 4.0], size=n)
    return frame


LEVELS = {
    "recall_at_precision": [0.0, 0.3, 0.5, 0.62, 0.75, 0.9, 1.0],
    "precision_at_recall": [0.0, 0.25, 0.5, 0.8, 0.95, 1.0],
    "tpr_at_fpr": [1e-3, 0.05, 0.1, 0.3, 0.5, 1.0],
}


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", [0, 1])
def test_equal_sklearn_read_off_per_slice(seed: int, weighted: bool) -> None:
    frame = random_frame(seed, weighted=weighted)
    wcol = "w" if weighted else None
    for metric in OPS:
        for level in LEVELS[metric]:
            options = {OPTION[metric]: level}
            got = quiet(sqlmetrics.evaluate, frame, [metric], by="g", weight=wcol, **options)
            table = quiet(sqlmetrics.operating_points, frame, by="g", weight=wcol, **options)
            assert len(got) == len(table) == 4  # a, b, c and the NULL slice
            for i, key in enumerate(got["g"]):
                part = frame[frame["g"].isna()] if pd.isna(key) else frame[frame["g"] == key]
                y, s = part["label"].to_numpy(), part["score"].to_numpy()
                w = part["w"].to_numpy() if weighted else None
                value, threshold = sklearn_read_off(y, s, w, metric, level)
                assert same(got[metric].iloc[i], value), (metric, level, key)
                assert same(table[metric].iloc[i], value), (metric, level, key)
                assert same(table[f"{metric}_threshold"].iloc[i], threshold), (metric, level)


def test_the_read_off_meets_constraints_not_met_before() -> None:
    # the precision constraint binds: the unconstrained recall (1) is not the answer
    frame = random_frame(3)
    value = quiet(sqlmetrics.recall_at_precision, frame, min_precision=0.75)
    assert 0 < value < 1
    rap = quiet(sqlmetrics.operating_points, frame, min_precision=0.75)
    t = rap["recall_at_precision_threshold"].iloc[0]
    chosen = frame[frame["score"] >= t]
    assert chosen["label"].mean() >= 0.75
    assert chosen["label"].sum() / frame["label"].sum() == pytest.approx(value, abs=1e-15)


# ------------------------------------------------------------------ oracle (torchmetrics' rule)
SCORES = st.sampled_from([-2.0, 0.0, 0.1, 0.1, 0.3, 0.5, 0.5, 0.5, 0.9, 7.0])
COLUMNS = {"label": st.integers(0, 1), "s": SCORES, "w": st.sampled_from([0.0, 0.5, 1.0, 3.0])}


@given(
    frames(max_rows=40, **COLUMNS),
    st.booleans(),
    st.sampled_from([0.0, 0.25, 0.5, 2 / 3, 0.9, 1.0]),
    st.sampled_from([1e-3, 0.1, 0.5, 1.0]),
)
def test_equal_oracle(frame: pd.DataFrame, weighted: bool, level: float, max_fpr: float) -> None:
    wcol = "w" if weighted else None
    w = list(frame["w"]) if weighted else None
    y, s = list(frame["label"]), list(frame["s"])
    got = quiet(
        sqlmetrics.operating_points,
        frame,
        score="s",
        weight=wcol,
        min_precision=level,
        min_recall=level,
        max_fpr=max_fpr,
    )
    expected = osep.operating_points(y, s, w, level, level, max_fpr)
    for column, value in expected.items():
        assert same(got[column].iloc[0], value), column
    scalar = quiet(
        sqlmetrics.recall_at_precision, frame, score="s", weight=wcol, min_precision=level
    )
    assert same(scalar, expected["recall_at_precision"])


def test_torchmetrics_published_examples() -> None:
    # binary_recall_at_fixed_precision / binary_precision_at_fixed_recall doctests:
    # preds [0, .5, .7, .8], target [0, 1, 1, 0] -> (1.0, 0.5) and (0.6667, 0.5)
    frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.0, 0.5, 0.7, 0.8]})
    table = sqlmetrics.operating_points(frame, min_precision=0.5, min_recall=0.5)
    assert table["recall_at_precision"].iloc[0] == 1.0
    assert table["recall_at_precision_threshold"].iloc[0] == 0.5
    assert table["precision_at_recall"].iloc[0] == pytest.approx(2 / 3, rel=1e-15)
    assert table["precision_at_recall_threshold"].iloc[0] == 0.5
    # multilabel_precision_at_fixed_recall's doctest, one label per slice:
    # (1.0, 0.75), (0.6667, 0.55), (1.0, 0.35)
    long = pd.DataFrame(
        {
            "k": [0] * 4 + [1] * 4 + [2] * 4,
            "score": [0.75, 0.45, 0.05, 0.05, 0.05, 0.75, 0.55, 0.65, 0.35, 0.05, 0.75, 0.05],
            "label": [1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1],
        }
    )
    per_label = sqlmetrics.operating_points(long, min_recall=0.5, by="k")
    assert list(per_label["precision_at_recall"]) == pytest.approx([1.0, 2 / 3, 1.0], rel=1e-15)
    assert list(per_label["precision_at_recall_threshold"]) == [0.75, 0.55, 0.35]


def test_hand_computed_values() -> None:
    # points (t: tp, fp): .8: 1, 0 | .5: 2, 1 | .4: 2, 2 | .35: 3, 2 | .1: 3, 3
    assert sqlmetrics.recall_at_precision(DF, min_precision=0.65) == pytest.approx(2 / 3)
    assert sqlmetrics.recall_at_precision(DF, min_precision=0.6) == 1.0  # .35: 3/5
    assert sqlmetrics.recall_at_precision(DF, min_precision=1.0) == pytest.approx(1 / 3)
    assert sqlmetrics.precision_at_recall(DF, min_recall=0.9) == pytest.approx(0.6)
    # precision 1 at .8 beats 2/3 at .5 for recall >= 1/3
    assert sqlmetrics.precision_at_recall(DF, min_recall=0.3) == 1.0
    assert sqlmetrics.tpr_at_fpr(DF, max_fpr=0.5) == pytest.approx(2 / 3)
    assert sqlmetrics.tpr_at_fpr(DF, max_fpr=0.3) == pytest.approx(1 / 3)
    assert sqlmetrics.tpr_at_fpr(DF, max_fpr=1.0) == 1.0


def test_threshold_tie_break_takes_the_highest_of_equal_points() -> None:
    # zero-weight rows at .7 and .6 make points equal to .5's (tp 2, fp 1): the highest
    # threshold among equal points is reported, as torchmetrics' argmax over (.., threshold)
    frame = pd.DataFrame(
        {
            "label": [1, 1, 0, 0, 0, 1],
            "score": [0.9, 0.5, 0.5, 0.1, 0.7, 0.6],
            "w": [1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
        }
    )
    table = sqlmetrics.operating_points(frame, weight="w", min_precision=0.6, min_recall=1.0)
    # .9: (1, 0); .7, .6: (1, 0) too -> recall 1/2, precision 1 at .9; .5: (2, 1) 2/3
    assert table["recall_at_precision"].iloc[0] == 1.0
    assert table["recall_at_precision_threshold"].iloc[0] == 0.5
    assert table["precision_at_recall_threshold"].iloc[0] == 0.5
    high = sqlmetrics.operating_points(frame, weight="w", min_precision=1.0, max_fpr=0.2)
    assert high["recall_at_precision_threshold"].iloc[0] == 0.9  # not .7 or .6
    assert high["tpr_at_fpr_threshold"].iloc[0] == 0.9


# ------------------------------------------------------------------ evaluate, ci, report
def test_evaluate_shares_the_score_points_pass_with_ks_and_partial_auc() -> None:
    frame = random_frame(5, weighted=True)
    names = ["ks_statistic", "partial_auc", *OPS]
    options = {"min_precision": 0.7, "min_recall": 0.6, "max_fpr": 0.2}
    got = quiet(sqlmetrics.evaluate, frame, names, weight="w", by="g", **options)
    sql = sqlmetrics.render_evaluate("events", names, weight="w", by="g", **options)
    assert sql.count("per_score as (") == 1  # one pass over the score points
    for metric in OPS:
        own = {OPTION[metric]: options[OPTION[metric]]}
        single = quiet(sqlmetrics.evaluate, frame, [metric], weight="w", by="g", **own)
        assert np.array_equal(got[metric].to_numpy(), single[metric].to_numpy(), equal_nan=True)
    table = quiet(sqlmetrics.operating_points, frame, weight="w", by="g", **options)
    for metric in OPS:
        assert np.array_equal(got[metric].to_numpy(), table[metric].to_numpy(), equal_nan=True)


def test_bootstrap_interval() -> None:
    frame = random_frame(6)
    interval = sqlmetrics.recall_at_precision(frame, min_precision=0.7, ci=0.9, n_boot=50)
    assert interval.method == "bootstrap"
    assert interval.lo <= interval.value <= interval.hi
    assert interval.value == sqlmetrics.recall_at_precision(frame, min_precision=0.7)


def test_report_lists_them_as_rows(tmp_path: Any) -> None:
    frame = random_frame(7)
    page = quiet(
        sqlmetrics.report,
        frame,
        list(OPS),
        by="g",
        min_precision=0.7,
        max_fpr=0.2,
        path=tmp_path / "r.html",
    )
    text = (tmp_path / "r.html").read_text()
    for metric in OPS:
        assert metric in text
    assert page is not None


# ------------------------------------------------------------------ undefined cases
def test_undefined_cases_warn_and_give_nan() -> None:
    negatives = pd.DataFrame({"label": [0, 0, 0], "score": [0.1, 0.5, 0.9]})
    positives = pd.DataFrame({"label": [1, 1, 1], "score": [0.1, 0.5, 0.9]})
    for metric in OPS:
        with pytest.warns(UndefinedMetricWarning, match=f"{metric} is undefined: no positive"):
            assert math.isnan(getattr(sqlmetrics, metric)(negatives))
    with pytest.warns(UndefinedMetricWarning, match="tpr_at_fpr is undefined: no positive or"):
        assert math.isnan(sqlmetrics.tpr_at_fpr(positives, max_fpr=0.5))
    with warnings.catch_warnings():  # defined without negatives: precision 1 everywhere
        warnings.simplefilter("error")
        assert sqlmetrics.recall_at_precision(positives, min_precision=1.0) == 1.0
        assert sqlmetrics.precision_at_recall(positives, min_recall=1.0) == 1.0
    # no threshold reaches the precision: NaN (torchmetrics gives 0 and threshold NaN)
    with pytest.warns(UndefinedMetricWarning, match="no threshold reaches min_precision"):
        top_negative = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.9, 0.8, 0.7, 0.1]})
        assert math.isnan(sqlmetrics.recall_at_precision(top_negative, min_precision=0.9))
    with pytest.warns(
        UndefinedMetricWarning,
        match=r"operating_points: recall_at_precision is undefined .* in 1 slice\(s\)",
    ):
        table = sqlmetrics.operating_points(DF.assign(label=[0, 0, 1, 0, 0, 0]), min_precision=0.9)
    assert math.isnan(table["recall_at_precision"].iloc[0])
    assert math.isnan(table["recall_at_precision_threshold"].iloc[0])


def test_tpr_at_fpr_is_zero_above_the_top_score() -> None:
    # the highest score is a negative: only (0, 0) has FPR <= 0.1, TPR 0, no finite threshold
    frame = pd.DataFrame({"label": [0, 1, 1, 0], "score": [0.9, 0.8, 0.3, 0.2]})
    assert sqlmetrics.tpr_at_fpr(frame, max_fpr=0.1) == 0.0
    table = sqlmetrics.operating_points(frame, max_fpr=0.1)
    assert table["tpr_at_fpr"].iloc[0] == 0.0
    assert math.isnan(table["tpr_at_fpr_threshold"].iloc[0])


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("function", "option", "value", "message"),
    [
        ("recall_at_precision", "min_precision", 1.5, "0 <= min_precision <= 1"),
        ("recall_at_precision", "min_precision", -0.1, "0 <= min_precision <= 1"),
        ("recall_at_precision", "min_precision", "high", "0 <= min_precision <= 1"),
        ("precision_at_recall", "min_recall", 2, "0 <= min_recall <= 1"),
        ("precision_at_recall", "min_recall", float("nan"), "0 <= min_recall <= 1"),
        ("tpr_at_fpr", "max_fpr", 0, "0 < max_fpr <= 1"),
        ("tpr_at_fpr", "max_fpr", 1.01, "0 < max_fpr <= 1"),
        ("operating_points", "min_precision", 3, "0 <= min_precision <= 1"),
        ("operating_points", "max_fpr", -1, "0 < max_fpr <= 1"),
    ],
)
def test_bad_option_names_argument_value_and_range(
    function: str, option: str, value: Any, message: str
) -> None:
    with pytest.raises(InvalidParameterError) as raised:
        getattr(sqlmetrics, function)(DF, **{option: value})
    text = str(raised.value)
    assert text.startswith(f"{function}: {option}=")
    assert message in text and repr(value) in text


def test_evaluate_refuses_an_option_no_requested_metric_takes() -> None:
    with pytest.raises(InvalidParameterError, match=re.escape("option min_recall= is accepted")):
        sqlmetrics.evaluate(DF, ["recall_at_precision"], min_recall=0.5)
    with pytest.raises(InvalidParameterError, match=r"recall_at_precision: min_precision="):
        sqlmetrics.evaluate(DF, ["recall_at_precision"], min_precision=7)


def test_command_line_takes_the_levels_as_options(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from sqlmetrics import cli

    path = tmp_path / "scores.csv"
    random_frame(8).to_csv(path, index=False)
    args = ["eval", str(path), "-m", "recall_at_precision", "-m", "tpr_at_fpr", "--by", "g"]
    result = CliRunner().invoke(
        cli.main,
        [*args, "--option", "min_precision=0.7", "--option", "max_fpr=0.2", "--format", "csv"],
    )
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.output))
    want = quiet(
        sqlmetrics.evaluate,
        str(path),
        ["recall_at_precision", "tpr_at_fpr"],
        by="g",
        min_precision=0.7,
        max_fpr=0.2,
    )
    for metric in ("recall_at_precision", "tpr_at_fpr"):
        assert frame[metric].to_numpy() == pytest.approx(want[metric].to_numpy(), rel=1e-15)
    listed = CliRunner().invoke(cli.main, ["list"]).output
    assert all(name in listed for name in (*OPS, "operating_points"))
