"""The ``sqlmetrics`` command line: ``eval``, ``render``, ``compare``, ``plot``, ``list``
(``_commands``; input and output helpers in ``_io``, the plots in ``_plot``).

The modules of the package are imported when a command runs, so that ``sqlmetrics --version``
starts fast.
"""

from ._commands import main

__all__ = ["main"]
