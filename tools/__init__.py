"""Development-time code, not shipped in the wheel (issue 40): the generators of the dbt
package's registry files (``dbt``, ``python -m tools.dbt``) and of the README's tables
(``docs``, ``python -m tools.docs README.md``), and the Python replay of the SQL's resampling
weights (``resample``) that the tests and their oracles use. Run from the repository root.
"""
