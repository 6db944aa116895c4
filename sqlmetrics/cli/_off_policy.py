"""``sqlmetrics off-policy DATA --reward click --pscore p --target t``: the value of a target
policy estimated from logged bandit feedback (``off_policy_value``: IPS, SNIPS, DR, the slate
estimators), with the weight diagnostics and, with ``--ci``, intervals; printed as a table,
CSV or JSON. Exit 0, or 2 on bad input.
"""

from __future__ import annotations

from typing import Any

import click

from ._io import COMMAND_FLAGS, ENGINE_CON, data_options, friendly, inputs_argument
from ._tables import print_table, table_options

#: the arguments of off_policy_value() that `off-policy` sets itself, and the flag of each
OFF_POLICY_FLAGS = {
    "data": "DATA",
    "estimator": "--estimator",
    "reward_hat": "--reward-hat",
    "reward_hat_target": "--reward-hat-target",
    "ci_method": "--ci-method",
    "n_boot": "--n-boot",
    "by": "--by",
    "con": ENGINE_CON,
}
COMMAND_FLAGS["off-policy"] = OFF_POLICY_FLAGS


@click.command("off-policy")
@inputs_argument
@click.option("--reward", required=True, help="Observed reward column (click, conversion).")
@click.option("--pscore", required=True, help="Logging policy's propensity column, in (0, 1].")
@click.option("--target", required=True, help="Target policy's probability column, in [0, 1].")
@click.option(
    "--estimator",
    "estimators",
    multiple=True,
    help="Estimator (repeatable, in the output's order): ips, snips, dr, slate_standard_ips, "
    "slate_independent_ips, slate_rips. Default: ips and snips.",
)
@click.option("--reward-hat", default=None, help="DR: the reward model's estimate column.")
@click.option(
    "--reward-hat-target",
    default=None,
    help="DR: the reward model's expectation under the target policy.",
)
@click.option("--slate", default=None, help="Slate (impression) id column: rows are positions.")
@click.option("--position", default=None, help="Position column (slate_rips).")
@click.option("--clip", default=None, type=float, help="Largest importance weight kept.")
@data_options("by", "where", by={"help": "Slice column (repeatable): rows per slice."})
@click.option("--ci", default=None, type=float, help="Confidence level, e.g. 0.95.")
@click.option(
    "--ci-method",
    default="t",
    show_default=True,
    type=click.Choice(["t", "bootstrap"]),
    help="t (SNIPS: the delta method) or the hashed-weights bootstrap.",
)
@click.option("--n-boot", default=200, show_default=True, type=int, help="Bootstrap replicates.")
@click.option("--seed", default=0, show_default=True, type=int, help="Bootstrap seed.")
@table_options
@friendly
def off_policy_command(
    inputs: tuple[str, ...],
    reward: str,
    pscore: str,
    target: str,
    estimators: tuple[str, ...],
    reward_hat: str | None,
    reward_hat_target: str | None,
    slate: str | None,
    position: str | None,
    clip: float | None,
    by: tuple[str, ...],
    where: str | None,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: int,
    fmt: str,
    output: str | None,
    db_url: str | None,
    spark_master: str | None,
) -> None:
    """Estimate a target policy's value from DATA, logged rounds (or slate positions) with
    their rewards, logging propensities and the target policy's probabilities.
    """
    from .._evaluate._api_off_policy import off_policy_value

    chosen: Any = list(estimators) if estimators else ("ips", "snips")

    def call(data: Any, con: Any) -> Any:
        return off_policy_value(
            data,
            reward=reward,
            pscore=pscore,
            target=target,
            estimator=chosen,
            reward_hat=reward_hat,
            reward_hat_target=reward_hat_target,
            slate=slate,
            position=position,
            clip=clip,
            by=list(by) or None,
            ci=ci,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            con=con,
        )

    print_table(call, inputs, where, fmt, output, db_url, spark_master)
