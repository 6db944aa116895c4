"""``off_policy_value`` (issue 43): IPS, SNIPS, DR and obp's slate estimators in SQL, against a
naive numpy oracle written here (the definitions of sql/_macros/counterfactual/off_policy.sql's
header), hand-computed cases, clipping, the weight diagnostics, a NULL slice, row order, every
error message and both interval methods.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._inference.stats import two_sided_t
from sqlmetrics.errors import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
    UndefinedMetricWarning,
)

OPE = sqlmetrics.off_policy_value
COLS = {"reward": "r", "pscore": "p", "target": "t"}
DR = {**COLS, "reward_hat": "q", "reward_hat_target": "g"}


def _logs(n: int = 600, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.05, 1.0, n), 3)
    t = np.round(rng.uniform(0.0, 1.0, n) * (rng.random(n) > 0.1), 3)  # some zero targets
    q = np.round(rng.uniform(0, 1, n), 3)
    return pd.DataFrame(
        {
            "r": (rng.random(n) < 0.3 + 0.4 * q).astype("int64"),
            "p": p,
            "t": t,
            "q": q,
            "g": np.round(rng.uniform(0, 1, n), 3),
            "country": np.array(["de", "fr", None], dtype=object)[rng.integers(0, 3, n)],
        }
    )


def _slates(n_slates: int = 150, length: int = 3, seed: int = 9) -> pd.DataFrame:
    """One row per (slate, position): joint (constant), marginal and cascade propensities."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_slates):
        pb = np.round(rng.uniform(0.2, 1.0, length), 3)
        pe = np.round(rng.uniform(0.0, 1.0, length), 3)
        cb, ce = np.cumprod(pb), np.cumprod(pe)
        for k in range(length):
            rows.append(
                {
                    "slate": s,
                    "pos": k + 1,
                    "r": int(rng.random() < 0.3),
                    "p_joint": cb[-1],
                    "t_joint": ce[-1],
                    "p_marg": pb[k],
                    "t_marg": pe[k],
                    "p_casc": cb[k],
                    "t_casc": ce[k],
                    "country": ["de", "fr", None][s % 3],
                }
            )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the oracle
def _weights(frame: pd.DataFrame, clip: float | None, p: str = "p", t: str = "t") -> np.ndarray:
    w = frame[t].to_numpy(float) / frame[p].to_numpy(float)
    return w if clip is None else np.minimum(w, clip)


def oracle(
    frame: pd.DataFrame, estimator: str, clip: float | None = None, p: str = "p", t: str = "t"
) -> dict[str, float]:
    """value, n, ess, max_weight, mean_weight, and the t interval's (A, B, units' x, b)."""
    w = _weights(frame, clip, p, t)
    r = frame["r"].to_numpy(float)
    if estimator.startswith("slate"):
        keys = frame["slate"].to_numpy()
        slates = list(dict.fromkeys(keys))
        x = np.array([np.sum((w * r)[keys == s]) for s in slates])
        unit_w = np.array([np.mean(w[keys == s]) for s in slates])
        b = np.ones(len(slates))
    else:
        unit_w = w
        if estimator == "dr":
            q, g = frame["q"].to_numpy(float), frame["g"].to_numpy(float)
            x = g + w * (r - q)
        else:
            x = w * r
        b = w if estimator == "snips" else np.ones(len(w))
    n = len(x)
    return {
        "value": x.sum() / b.sum() if b.sum() else math.nan,
        "n": n,
        "ess": unit_w.sum() ** 2 / np.sum(unit_w**2),
        "max_weight": unit_w.max(),
        "mean_weight": unit_w.sum() / n,
        "x": x,
        "b": b,
    }


def t_bounds(o: dict[str, float], level: float) -> tuple[float, float]:
    """The header's t interval in numpy: V -+ t_{n-1} sqrt(n / (n - 1) sum (x - V b)^2) / B."""
    x, b, v, n = o["x"], o["b"], o["value"], o["n"]
    se = math.sqrt(n / (n - 1) * np.sum((x - v * b) ** 2)) / b.sum()
    half = two_sided_t(level, n - 1) * se
    return v - half, v + half


def _close(got: float, want: float, rtol: float = 1e-12) -> None:
    assert math.isclose(got, want, rel_tol=rtol, abs_tol=1e-15), (got, want)


# --------------------------------------------------------------------------- values
def test_hand_computed_ips_and_snips() -> None:
    logs = pd.DataFrame({"r": [1, 0, 1, 0], "p": [0.5, 0.5, 0.25, 0.8], "t": [1.0, 0.5, 0.5, 0.2]})
    out = OPE(logs, **COLS)
    # w = 2, 1, 2, 0.25: ips = (2 + 2) / 4, snips = 4 / 5.25, ess = 5.25^2 / 9.0625
    assert list(out["estimator"]) == ["ips", "snips"]
    assert out["value"].tolist() == [1.0, 4 / 5.25]
    assert out["n"].tolist() == [4, 4]
    assert out["ess"].tolist() == [5.25**2 / 9.0625] * 2
    assert out["max_weight"].tolist() == [2.0, 2.0]
    assert out["mean_weight"].tolist() == [5.25 / 4] * 2


def test_hand_computed_dr() -> None:
    logs = pd.DataFrame(
        {"r": [1, 0], "p": [0.5, 0.25], "t": [0.5, 0.5], "q": [0.5, 0.25], "g": [0.75, 0.5]}
    )
    out = OPE(logs, **DR, estimator="dr")
    # w = 1, 2: [0.75 + 1 (1 - 0.5)] + [0.5 + 2 (0 - 0.25)] = 1.25 + 0, / 2
    assert out["value"].tolist() == [0.625]


@pytest.mark.parametrize("clip", [None, 3.0])
def test_single_estimators_equal_the_oracle_by_slice(clip: float | None) -> None:
    logs = _logs()
    out = OPE(logs, **DR, estimator=["dr", "ips", "snips"], clip=clip, by="country")
    # ordered by the slice (NULL last), then the estimators as given
    assert out["country"].fillna("-").tolist()[::3] == ["de", "fr", "-"]
    assert out["estimator"].tolist() == ["dr", "ips", "snips"] * 3
    for _, row in out.iterrows():
        part = (
            logs[logs["country"].isna()]
            if pd.isna(row["country"])
            else logs[logs["country"] == row["country"]]
        )
        want = oracle(part, row["estimator"], clip)
        _close(row["value"], want["value"])
        assert row["n"] == want["n"]
        for column in ("ess", "max_weight", "mean_weight"):
            _close(row[column], want[column])


def test_clipping_caps_every_weight() -> None:
    logs = pd.DataFrame({"r": [1, 1, 0], "p": [0.1, 0.5, 0.5], "t": [0.9, 0.5, 1.0]})
    out = OPE(logs, **COLS, clip=2.0)
    # w = min(9, 2), 1, 2: ips = (2 + 1) / 3, snips = 3 / 5
    assert out["value"].tolist() == [1.0, 0.6]
    assert out["max_weight"].tolist() == [2.0, 2.0]
    unclipped = OPE(logs, **COLS)
    assert unclipped["value"].tolist() == [10 / 3, 10 / 12]
    assert unclipped["max_weight"].iloc[0] == 9.0


def test_ess_of_equal_weights_is_n_and_of_one_weight_is_one() -> None:
    even = pd.DataFrame({"r": [1, 0, 1, 1], "p": [0.5] * 4, "t": [0.25] * 4})
    assert OPE(even, **COLS)["ess"].tolist() == [4.0, 4.0]
    one = pd.DataFrame({"r": [1, 0, 1, 1], "p": [0.5] * 4, "t": [0.5, 0, 0, 0]})
    assert OPE(one, **COLS)["ess"].tolist() == [1.0, 1.0]


def test_a_null_slice_is_a_slice_of_its_own() -> None:
    logs = pd.DataFrame(
        {
            "r": [1, 0, 1, 1],
            "p": [0.5, 0.5, 0.5, 0.5],
            "t": [1.0, 0.5, 0.25, 0.5],
            "country": ["de", None, None, "de"],
        }
    )
    out = OPE(logs, **COLS, estimator="ips", by="country")
    assert out["country"].fillna("-").tolist() == ["de", "-"]
    assert out["value"].tolist() == [(2 + 1) / 2, (0 + 0.5) / 2]
    assert out["n"].tolist() == [2, 2]


@pytest.mark.parametrize("estimator", ["slate_standard_ips", "slate_independent_ips", "slate_rips"])
def test_slate_estimators_equal_the_oracle(estimator: str) -> None:
    slates = _slates()
    kind = {"slate_standard_ips": "joint", "slate_independent_ips": "marg", "slate_rips": "casc"}
    p, t = f"p_{kind[estimator]}", f"t_{kind[estimator]}"
    out = OPE(
        slates, reward="r", pscore=p, target=t, estimator=estimator, slate="slate",
        position="pos", by="country", clip=4.0,
    )  # fmt: skip
    assert out["country"].fillna("-").tolist() == ["de", "fr", "-"]
    for _, row in out.iterrows():
        part = (
            slates[slates["country"].isna()]
            if pd.isna(row["country"])
            else slates[slates["country"] == row["country"]]
        )
        want = oracle(part, estimator, 4.0, p, t)
        _close(row["value"], want["value"])
        assert row["n"] == want["n"] == 50
        for column in ("ess", "max_weight", "mean_weight"):
            _close(row[column], want[column])


def test_standard_slate_ips_weight_is_the_joint_one() -> None:
    slates = pd.DataFrame(
        {"slate": [1, 1, 2, 2], "r": [1, 0, 1, 1], "p": [0.25] * 2 + [0.5] * 2, "t": [0.5] * 4}
    )
    out = OPE(slates, **COLS, estimator="slate_standard_ips", slate="slate")
    # slate 1: w 2, sum w r = 2; slate 2: w 1, sum w r = 2; / 2 slates
    assert out["value"].tolist() == [2.0]
    assert out["n"].tolist() == [2]
    assert out["max_weight"].tolist() == [2.0] and out["mean_weight"].tolist() == [1.5]
    assert out["ess"].tolist() == [9 / 5]


def test_shuffled_rows_give_the_same_bits() -> None:
    logs = _logs()
    kwargs = {**DR, "estimator": ["ips", "snips", "dr"], "by": "country", "clip": 5.0}
    for extra in ({}, {"ci": 0.9}, {"ci": 0.9, "ci_method": "bootstrap", "n_boot": 30}):
        a = OPE(logs, **kwargs, **extra)
        b = OPE(logs.sample(frac=1.0, random_state=3, ignore_index=True), **kwargs, **extra)
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    slates = _slates()
    kwargs = {"reward": "r", "pscore": "p_marg", "target": "t_marg", "slate": "slate"}
    kwargs |= {"estimator": "slate_independent_ips", "ci": 0.9, "ci_method": "bootstrap"}
    a = OPE(slates, **kwargs, n_boot=30)
    b = OPE(slates.sample(frac=1.0, random_state=5, ignore_index=True), **kwargs, n_boot=30)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def _same_bits(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for column in a.columns:  # and the sign of a zero
        if a[column].dtype.kind == "f":
            assert np.array_equal(
                a[column].to_numpy().view(np.int64), b[column].to_numpy().view(np.int64)
            )


@pytest.mark.parametrize(
    ("case", "paths"),
    [
        ("one slice", ["fixed"]),
        ("equal slices", ["fixed"]),
        ("a slice of smaller rewards", ["fixed", "slices"]),
        ("a slice of zero rewards", ["fixed", "slices"]),
    ],
)
def test_the_check_pass_exponents_give_the_slices_bits(
    monkeypatch: pytest.MonkeyPatch, case: str, paths: list[str]
) -> None:
    """The statement at the check pass's table-wide exponents (issue 43's speed-up) gives the
    bits of the statement that takes each slice's own exponents (forced here: a check pass
    returning no exponents), whether its result is kept (each slice's exponents are the
    table's) or it runs again without them (a slice of smaller or zero terms)."""
    import sqlmetrics._evaluate.off_policy as module

    logs = _logs()
    rewards = logs["r"].astype("float64")
    if case == "a slice of smaller rewards":
        logs["r"] = np.where(logs["country"] == "fr", rewards * 1e-3, rewards)
    if case == "a slice of zero rewards":
        logs["r"] = np.where(logs["country"] == "fr", 0.0, rewards)
    by = {} if case == "one slice" else {"by": "country"}
    calls = [
        {**DR, "estimator": ["ips", "snips", "dr"], "clip": 5.0, "ci": 0.9},
        {**COLS, "estimator": ["snips", "ips"], "clip": 5.0, "ci": 0.9},
        {**COLS, "estimator": ["ips"], "clip": 2.0},
        {**COLS, "estimator": ["snips"], "clip": 5.0, "ci": 0.9, "ci_method": "bootstrap",
         "n_boot": 20},
    ]  # fmt: skip
    if case == "one slice":
        calls.append({**COLS, "estimator": ["ips", "snips"], "ci": 0.95})
    else:
        # the slices' largest terms: unclipped weights (1 / their smallest pscore) and DR's
        # g + w (r - q) have other exponents in each slice
        calls = calls[1:]
    rendered: list[str] = []
    render, check = module.render_macro, module._check_values

    def recording(name: str, *args: object, **kwargs: object) -> str:
        if name == "off_policy_value":
            rendered.append("fixed" if args[3].get("exponents") else "slices")  # type: ignore[attr-defined]
        return render(name, *args, **kwargs)

    monkeypatch.setattr(module, "render_macro", recording)
    for kwargs in calls:
        rendered.clear()
        got = OPE(logs, **kwargs, **by)
        assert rendered == paths, kwargs
        monkeypatch.setattr(module, "_check_values", lambda *a: check(*a) and None)
        rendered.clear()
        want = OPE(logs, **kwargs, **by)
        assert rendered == ["slices"]
        monkeypatch.setattr(module, "_check_values", check)
        _same_bits(got, want)


def test_where_keeps_the_rows_it_holds_for() -> None:
    logs = _logs()
    got = OPE(logs, **COLS, where="country = 'de'")
    want = OPE(logs[logs["country"] == "de"].reset_index(drop=True), **COLS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


# --------------------------------------------------------------------------- undefined
def test_no_rows_is_undefined() -> None:
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        out = OPE(_logs(), **COLS, where="1 = 0")
    assert out["value"].isna().all() and out["n"].tolist() == [0, 0]


def test_snips_with_all_weights_zero_is_undefined() -> None:
    logs = pd.DataFrame({"r": [1, 0], "p": [0.5, 0.5], "t": [0.0, 0.0]})
    with pytest.warns(UndefinedMetricWarning, match="1 estimate"):
        out = OPE(logs, **COLS)
    assert out["value"].iloc[0] == 0.0 and math.isnan(out["value"].iloc[1])


# --------------------------------------------------------------------------- intervals
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_t_interval_equals_numpy(level: float) -> None:
    logs = _logs()
    out = OPE(logs, **DR, estimator=["ips", "snips", "dr"], by="country", ci=level, clip=6.0)
    for _, row in out.iterrows():
        part = (
            logs[logs["country"].isna()]
            if pd.isna(row["country"])
            else logs[logs["country"] == row["country"]]
        )
        lo, hi = t_bounds(oracle(part, row["estimator"], 6.0), level)
        _close(row["value_lo"], lo)
        _close(row["value_hi"], hi)
        assert row["value_lo"] <= row["value"] <= row["value_hi"]


def test_t_interval_over_slates_equals_numpy() -> None:
    slates = _slates()
    kwargs = {"reward": "r", "pscore": "p_casc", "target": "t_casc", "slate": "slate"}
    out = OPE(slates, **kwargs, estimator="slate_rips", position="pos", ci=0.95)
    lo, hi = t_bounds(oracle(slates, "slate_rips", None, "p_casc", "t_casc"), 0.95)
    _close(out["value_lo"].iloc[0], lo)
    _close(out["value_hi"].iloc[0], hi)


def test_bootstrap_interval_holds_the_value() -> None:
    logs = _logs()
    out = OPE(
        logs, **DR, estimator=["ips", "snips", "dr"], by="country", ci=0.95,
        ci_method="bootstrap", n_boot=100, seed=3,
    )  # fmt: skip
    assert list(out.columns) == [
        "country", "estimator", "value", "value_lo", "value_hi", "n", "ess", "max_weight",
        "mean_weight",
    ]  # fmt: skip
    assert ((out["value_lo"] <= out["value"]) & (out["value"] <= out["value_hi"])).all()
    assert (out["value_hi"] - out["value_lo"] > 0).all()
    again = OPE(
        logs, **DR, estimator=["ips", "snips", "dr"], by="country", ci=0.95,
        ci_method="bootstrap", n_boot=100, seed=4,
    )  # fmt: skip
    assert not again["value_lo"].equals(out["value_lo"])  # the seed draws other weights
    slates = _slates()
    boot = OPE(
        slates, reward="r", pscore="p_joint", target="t_joint", slate="slate",
        estimator="slate_standard_ips", ci=0.9, ci_method="bootstrap", n_boot=50,
    )  # fmt: skip
    assert boot["value_lo"].iloc[0] <= boot["value"].iloc[0] <= boot["value_hi"].iloc[0]


def test_an_interval_over_one_round_is_undefined() -> None:
    logs = pd.DataFrame({"r": [1], "p": [0.5], "t": [0.5]})
    with pytest.warns(UndefinedMetricWarning, match="interval is undefined"):
        out = OPE(logs, **COLS, ci=0.95)
    assert out["value_lo"].isna().all() and out["value"].tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------- errors
LOGS = pd.DataFrame({"r": [1, 0], "p": [0.5, 0.5], "t": [0.5, 1.0], "s": [1, 1], "k": [1, 2]})


def _raises(error: type[Exception], message: str, data: pd.DataFrame = LOGS, **kwargs) -> None:
    with warnings.catch_warnings(), pytest.raises(error, match=re.escape(message)):
        OPE(data, **{**COLS, **kwargs})


def test_unknown_estimator_suggests_one() -> None:
    _raises(InvalidParameterError, "estimator='snip' is not an estimator; did you mean 'snips'?",
            estimator="snip")  # fmt: skip


def test_an_estimator_twice() -> None:
    _raises(InvalidParameterError, "estimator= names 'ips' twice", estimator=["ips", "ips"])


def test_no_estimator() -> None:
    _raises(InvalidParameterError, "estimator=[] must be an estimator's name", estimator=[])


def test_dr_needs_the_reward_model() -> None:
    _raises(InvalidParameterError, "estimator='dr' needs reward_hat=", estimator="dr",
            reward_hat="r")  # fmt: skip


def test_slate_estimator_needs_slate() -> None:
    _raises(InvalidParameterError, "estimator='slate_rips' is a slate estimator and needs slate=",
            estimator="slate_rips")  # fmt: skip


def test_single_estimator_with_slate() -> None:
    _raises(InvalidParameterError, "estimator='ips' is a single-action estimator, but slate='s'",
            slate="s")  # fmt: skip


def test_rips_needs_position() -> None:
    _raises(InvalidParameterError, "estimator='slate_rips' needs position=",
            estimator="slate_rips", slate="s")  # fmt: skip


@pytest.mark.parametrize("clip", [0, -1.0, math.inf, True, "2"])
def test_clip_must_be_positive(clip: object) -> None:
    _raises(InvalidParameterError, f"clip={clip!r} must be a positive number", clip=clip)


def test_ci_method_is_t_or_bootstrap() -> None:
    _raises(InvalidParameterError, "ci_method='boot' must be 't'", ci=0.9, ci_method="boot")


@pytest.mark.parametrize(
    "kwargs",
    [{"ci": 1.5}, {"ci": 0.9, "n_boot": 3}, {"ci": 0.9, "seed": -1}, {"n_boot": 2.5}],
)
def test_ci_options_are_checked_as_everywhere(kwargs: dict[str, object]) -> None:
    name = next(k for k in kwargs if k != "ci" or len(kwargs) == 1)
    _raises(InvalidParameterError, f"off_policy_value: {name}=", **kwargs)


def test_a_column_name_must_be_text() -> None:
    _raises(InvalidParameterError, "reward_hat= must be a column name", reward_hat="")


def test_a_missing_column_is_named() -> None:
    _raises(ColumnNotFoundError, "column 'nope' (pscore=) not found", pscore="nope")


def test_a_non_numeric_column() -> None:
    _raises(InvalidDataError, "target column 'x' has type VARCHAR; target= must name a numeric",
            LOGS.assign(x=["a", "b"]), target="x")  # fmt: skip


@pytest.mark.parametrize("value", [0.0, 1.5, None])
def test_pscore_in_zero_one(value: float | None) -> None:
    problem = "NULL" if value is None else "<= 0 or > 1"
    _raises(InvalidDataError, f"pscore column 'p' (pscore=) has 1 of 2 rows {problem}",
            LOGS.assign(p=[0.5, value]))  # fmt: skip


@pytest.mark.parametrize("value", [-0.5, 1.5])
def test_target_in_zero_one(value: float) -> None:
    _raises(InvalidDataError, "target column 't' (target=) has 1 of 2 rows outside [0, 1]",
            LOGS.assign(t=[0.5, value]))  # fmt: skip


def test_a_null_reward() -> None:
    _raises(InvalidDataError, "reward column 'r' (reward=) has 1 of 2 rows NULL",
            LOGS.assign(r=[1.0, None]))  # fmt: skip


def test_an_infinite_reward() -> None:
    _raises(InvalidDataError, "reward column 'r' (reward=) has 1 of 2 rows NaN or infinite",
            LOGS.assign(r=[1.0, math.inf]))  # fmt: skip


@pytest.mark.parametrize(
    ("arg", "kwargs"),
    [("reward", {}), ("reward", {"estimator": "slate_independent_ips", "slate": "s"}),
     ("reward_hat", {"estimator": "dr", "reward_hat": "q", "reward_hat_target": "r"})],
)  # fmt: skip
def test_t_interval_refuses_rewards_whose_squares_overflow(arg: str, kwargs: dict) -> None:
    """1e200 squared overflows a double: the t interval is refused naming the column (it was
    an engine's conversion error); the bootstrap and the point values still run."""
    huge = LOGS.assign(r=[1e200, 0.0], q=[0.0, 1e200] if arg == "reward_hat" else [0.0, 0.0])
    if arg == "reward_hat":
        huge = huge.assign(r=[1.0, 0.0])
    column = {"reward": "r", "reward_hat": "q"}[arg]
    _raises(InvalidDataError, f"{arg} column {column!r} ({arg}=) holds values up to 1e+200 "
            f"(weights up to 2): the t interval (ci_method='t') squares them", huge,
            ci=0.9, **kwargs)  # fmt: skip
    if arg == "reward":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            boot = OPE(huge, **COLS, ci=0.9, ci_method="bootstrap", n_boot=20, **kwargs)
        assert np.isfinite(boot["value"]).all() and (boot["value"] > 1e199).all()


def test_standard_slate_propensities_constant_within_a_slate() -> None:
    _raises(InvalidDataError, "1 slates ('s') have pscore= or target= values that vary",
            estimator="slate_standard_ips", slate="s")  # fmt: skip


def test_rips_cascade_cannot_grow() -> None:
    _raises(InvalidDataError, "1 rows have a pscore= or target= above the previous position's",
            estimator="slate_rips", slate="s", position="k")  # fmt: skip


def test_rips_position_once_per_slate() -> None:
    _raises(InvalidDataError, "(one row per slate and position)", LOGS.assign(k=[1, 1]),
            estimator="slate_rips", slate="s", position="k")  # fmt: skip
