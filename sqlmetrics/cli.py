"""The ``sqlmetrics`` command line (being built: evaluate issue)."""

from __future__ import annotations

import click


@click.group()
def main() -> None:
    """Evaluate classification, CTR and ranking models in SQL."""
