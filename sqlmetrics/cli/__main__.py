"""``python -m sqlmetrics.cli``: the same command line as the ``sqlmetrics`` script."""

from ._main import main

main()
