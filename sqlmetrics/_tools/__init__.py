"""Generators run at development time, not by users: the dbt package's registry files
(``dbt``, ``python -m sqlmetrics._tools.dbt``) and the README's tables (``docs``).
"""
