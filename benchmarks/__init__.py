"""Benchmarks of sqlmetrics against the tools people use today (not part of the test suite).

Run ``python -m benchmarks --size 1e7`` (after ``pip install -e ".[bench]"``); it writes
``benchmarks/data/peers.md`` (``benchmarks/RESULTS.md`` keeps the current tables). See
``benchmarks/run.py`` for the method.
"""
