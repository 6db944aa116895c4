"""``python -m sqlmetrics``: the same command line as the ``sqlmetrics`` script."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="sqlmetrics")
