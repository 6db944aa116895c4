"""Log loss and Brier score: SQL == oracle == scikit-learn; bad probabilities are refused."""

from __future__ import annotations

import math
import warnings

import duckdb
import pandas as pd
import pytest
from conftest import frames
from hypothesis import given
from hypothesis import strategies as st
from oracle import curves as ocv
from sklearn import metrics as skm

import sqlmetrics

# 0 and 1 included on purpose: log loss must clip them as scikit-learn does
PROBS = st.sampled_from([0.0, 1e-20, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])


FRAMES = frames(label=st.integers(0, 1), p=PROBS, w=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]))


def test_published_vectors() -> None:
    # scikit-learn log_loss and brier_score_loss docstrings
    df = pd.DataFrame({"label": [0, 1, 1, 0], "p": [0.1, 0.9, 0.8, 0.3]})
    assert sqlmetrics.brier_score(df, score="p") == pytest.approx(0.0375, abs=1e-15)
    assert ocv.brier_score(df["label"], df["p"]) == pytest.approx(0.0375)
    # log_loss(["spam", "ham", "ham", "spam"], [[.1, .9], [.9, .1], [.8, .2], [.35, .65]])
    spam = pd.DataFrame({"label": [1, 0, 0, 1], "p": [0.9, 0.1, 0.2, 0.65]})
    assert sqlmetrics.log_loss(spam, score="p") == pytest.approx(0.21616, abs=1e-5)
    assert ocv.log_loss(spam["label"], spam["p"]) == pytest.approx(0.21616, abs=1e-5)


@given(FRAMES, st.booleans())
def test_equal_oracle_and_sklearn(frame: pd.DataFrame, weighted: bool) -> None:
    w = frame["w"] if weighted else None
    if weighted and frame["w"].sum() == 0:
        return
    wcol = "w" if weighted else None
    got_ll = sqlmetrics.log_loss(frame, score="p", weight=wcol)
    got_bs = sqlmetrics.brier_score(frame, score="p", weight=wcol)
    assert got_ll == pytest.approx(ocv.log_loss(frame["label"], frame["p"], w), rel=1e-12)
    assert got_bs == pytest.approx(
        ocv.brier_score(frame["label"], frame["p"], w), rel=1e-12, abs=1e-15
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk_ll = skm.log_loss(frame["label"], frame["p"], sample_weight=w, labels=[0, 1])
        sk_bs = skm.brier_score_loss(
            frame["label"], frame["p"], sample_weight=w, pos_label=1, labels=[0, 1]
        )
    assert got_ll == pytest.approx(sk_ll, rel=1e-12)
    assert got_bs == pytest.approx(sk_bs, rel=1e-12, abs=1e-15)
    shuffled = frame.sample(frac=1.0, random_state=4)
    assert sqlmetrics.log_loss(shuffled, score="p", weight=wcol) == got_ll  # bit-identical
    assert sqlmetrics.brier_score(shuffled, score="p", weight=wcol) == got_bs


def test_eps_clips_confident_mistakes() -> None:
    df = pd.DataFrame({"label": [1, 0], "p": [0.0, 1.0]})
    assert sqlmetrics.log_loss(df, score="p") == pytest.approx(-math.log(2.220446049250313e-16))
    assert sqlmetrics.log_loss(df, score="p", eps=1e-3) == pytest.approx(-math.log(1e-3))


def test_zero_weights_warn_nan() -> None:
    df = pd.DataFrame({"label": [1, 0], "p": [0.3, 0.4], "w": [0.0, 0.0]})
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match="log_loss is undefined: the weights sum to 0"
    ):
        assert math.isnan(sqlmetrics.log_loss(df, score="p", weight="w"))
    with pytest.warns(
        sqlmetrics.UndefinedMetricWarning, match="brier_score is undefined: the weights sum to 0"
    ):
        assert math.isnan(sqlmetrics.brier_score(df, score="p", weight="w"))


def test_bad_input_errors() -> None:
    out = pd.DataFrame({"label": [1, 0, 1], "p": [1.2, 0.5, -0.1]})
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"log_loss: score column 'p' \(score=\) has 2 of 3 rows outside "
        r"\[0, 1\]",
    ):
        sqlmetrics.log_loss(out, score="p")
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"brier_score: score column 'p' \(score=\) has 2 of 3 rows "
        r"outside \[0, 1\]; .*sigmoid",
    ):
        sqlmetrics.brier_score(out, score="p")
    nulls = duckdb.sql("select * from (values (1, 0.5), (0, null)) t(label, p)")
    with pytest.raises(
        sqlmetrics.InvalidDataError,
        match=r"log_loss: score column 'p' \(score=\) has 1 of 2 rows NULL",
    ):
        sqlmetrics.log_loss(nulls, score="p")
    labels = pd.DataFrame({"label": [1, 3], "p": [0.5, 0.5]})
    with pytest.raises(
        sqlmetrics.InvalidDataError, match=r"brier_score: label column 'label' .* outside \{0, 1\}"
    ):
        sqlmetrics.brier_score(labels, score="p")
    for bad in (0, 0.5, -1, "tiny", True):
        with pytest.raises(
            sqlmetrics.InvalidParameterError,
            match=r"log_loss: eps= must be 'auto' .* 0 < eps < 0.5; got",
        ):
            sqlmetrics.log_loss(labels.assign(label=1), score="p", eps=bad)  # type: ignore
