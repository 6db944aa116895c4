"""The ``sqlmetrics`` command group: ``--memory-limit``, ``--version`` and the commands, one
module each (``_eval``, ``_render``, ``_list``, ``_compare``, ``_report``, ``_monitor``,
``_off_policy``, ``_propensities``, ``_clicks``, ``_plot``).

    sqlmetrics eval DATA -m auc -m gauc -m ndcg@10 --label click --score pctr --group user_id
    sqlmetrics render auc --label click
    sqlmetrics compare DATA -m auc -m ndcg@10 --score model_a --score model_b --group user_id
    sqlmetrics monitor DAILY -m auc --day day --by country
    sqlmetrics off-policy LOGS --reward click --pscore p --target t --estimator dr ...
    sqlmetrics propensities LOGS --position pos --click clicked --intervention randomised
    sqlmetrics clicks LOGS --group q --position pos --click clicked --score new --propensity P
    sqlmetrics list

Bad input (a missing file, an unknown column, metric or option) prints one line on stderr and
exits 2; there is never a Python traceback for something we could check.
"""

from __future__ import annotations

import re

import click

from ._clicks import clicks_command
from ._compare import compare_command
from ._eval import eval_command
from ._io import Group
from ._list import list_command
from ._monitor import monitor_command
from ._off_policy import off_policy_command
from ._plot import plot
from ._propensities import propensities_command
from ._render import render_command
from ._report import report_command

__all__ = ["main"]


#: the example that ends ``sqlmetrics --help`` and ``sqlmetrics eval --help`` (the README's
#: first command, on the example click log that ships with the repository)
EXAMPLE = (
    "\b\nExample (the example click log of the repository):\n"
    "  sqlmetrics eval examples/data/ctr.csv -m auc -m gauc -m f1 --label click \\\n"
    "      --score pctr --group user_id --by country --option threshold=0.3\n\n"
    "Every metric, with its ir_measures and trec_eval names: sqlmetrics list"
)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLE)
@click.version_option(package_name="sqlmetrics")
@click.option(
    "--memory-limit",
    metavar="SIZE",
    default=None,
    help="Largest memory DuckDB may use on the files and DataFrames sqlmetrics reads itself, "
    "e.g. 4GB or 512MiB, given before the command (sqlmetrics --memory-limit 4GB eval ...); "
    "beyond it, sorts and sums spill to disk. Python: sqlmetrics.configure(memory_limit=). "
    "Default: DuckDB's, 80% of the machine's memory.",
)
def main(memory_limit: str | None) -> None:
    """Evaluate classification, CTR and ranking models in SQL, where the data lives."""
    if memory_limit is not None:
        from .._backends.config import configure
        from ..errors import InvalidParameterError

        try:
            configure(memory_limit=memory_limit)
        except InvalidParameterError as exc:
            message = str(exc).removeprefix("configure: ")  # named as the flag it came from
            message = re.sub(r"memory_limit=(\S*)", r"--memory-limit \1", message, count=1)
            raise click.UsageError(message.replace("--memory-limit  ", "--memory-limit ")) from None


eval_command.epilog = EXAMPLE
for _command in (
    eval_command,
    render_command,
    list_command,
    compare_command,
    report_command,
    monitor_command,
    off_policy_command,
    propensities_command,
    clicks_command,
    plot,
):
    main.add_command(_command)
