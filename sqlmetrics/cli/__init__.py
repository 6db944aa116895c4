"""The ``sqlmetrics`` command line: ``eval``, ``render``, ``compare``, ``report``, ``plot``,
``list``, one module each (``_eval``, ...; the group in ``_main``), their shared options and
input and output helpers in ``_io``, the engines DATA is read by in ``_engines``.

The modules of the package are imported when a command runs, so that ``sqlmetrics --version``
starts fast.
"""

from ._main import main

__all__ = ["main"]
