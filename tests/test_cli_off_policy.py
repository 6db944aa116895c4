"""``sqlmetrics off-policy`` (issue 43): ``off_policy_value`` from the command line, the same
rows as Python; bad input exits 2 with the library's message in flags.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import cli


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(1)
    n = 400
    q = np.round(rng.uniform(0, 1, n), 3)
    frame = pd.DataFrame(
        {
            "click": (rng.random(n) < 0.2 + 0.5 * q).astype("int64"),
            "p": np.round(rng.uniform(0.1, 1.0, n), 3),
            "t": np.round(rng.uniform(0.0, 1.0, n), 3),
            "q": q,
            "g": np.round(rng.uniform(0, 1, n), 3),
            "country": rng.choice(["de", "fr"], n),
        }
    )
    path = tmp_path_factory.mktemp("off_policy") / "logs.csv"
    frame.to_csv(path, index=False)
    return path


ARGS = ["--reward", "click", "--pscore", "p", "--target", "t"]


def test_the_estimates_are_pythons(logs: Path) -> None:
    extra = ["--estimator", "dr", "--estimator", "ips", "--reward-hat", "q"]
    extra += ["--reward-hat-target", "g", "--by", "country", "--clip", "4", "--ci", "0.9"]
    result = CliRunner().invoke(
        cli.main, ["off-policy", str(logs), *ARGS, *extra, "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    printed = pd.read_csv(StringIO(result.stdout))
    python = sqlmetrics.off_policy_value(
        str(logs), reward="click", pscore="p", target="t", estimator=["dr", "ips"],
        reward_hat="q", reward_hat_target="g", by="country", clip=4.0, ci=0.9,
    )  # fmt: skip
    assert list(printed.columns) == list(python.columns)
    assert printed["estimator"].tolist() == ["dr", "ips", "dr", "ips"]
    for column in ("value", "value_lo", "value_hi", "ess", "max_weight", "mean_weight"):
        np.testing.assert_allclose(printed[column], python[column], rtol=1e-12)


def test_the_default_estimators_are_ips_and_snips(logs: Path) -> None:
    result = CliRunner().invoke(cli.main, ["off-policy", str(logs), *ARGS, "--format", "json"])
    assert result.exit_code == 0, result.output
    printed = pd.read_json(StringIO(result.stdout))
    assert printed["estimator"].tolist() == ["ips", "snips"]
    assert printed["n"].tolist() == [400, 400]


def test_bad_input_exits_2_with_flags(logs: Path) -> None:
    result = CliRunner().invoke(cli.main, ["off-policy", str(logs), *ARGS, "--estimator", "dr"])
    assert result.exit_code == 2
    assert "--estimator 'dr' needs --reward-hat" in result.stderr
    missing = CliRunner().invoke(cli.main, ["off-policy", str(logs), "--reward", "click"])
    assert missing.exit_code == 2 and "--pscore" in missing.stderr
