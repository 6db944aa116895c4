"""``python -m sqlmetrics.cli``: the same command line as the ``sqlmetrics`` script."""

from ._commands import main

main()
