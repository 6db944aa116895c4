"""A user's DuckDB macro named as a built-in function changes no value (issue 39).

DuckDB looks an unqualified function up in the user's schemas (the temporary one, then the
database's) before its own: on a connection where the user ran ``create macro ln(x) as 0``,
``ln(p)`` in sqlmetrics' SQL called that macro, and log loss, every exact sum (whose
exponents are ``ln``, ``power`` and ``round`` of the values) and any division guarded by
``nullif`` came out wrong without an error. sqlmetrics' statements on DuckDB call its
built-ins by their qualified name (``system.main.ln``), which no macro shadows
(``builtin_calls`` in sqlmetrics/_backends/duckdb_backend.py). Here each built-in the
templates call gets a macro of the user's that returns a plausible wrong value, and every
value must be the clean connection's, bit for bit.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import quiet

import sqlmetrics
from sqlmetrics._backends.duckdb_backend import builtin_calls

#: built-in -> the user's macro of that name (the arity sqlmetrics' SQL calls it with)
MACROS = {
    "ln": "ln(x) as 0",
    "power": "power(a, b) as 1",
    "round": "round(x) as 0",
    "floor": "floor(x) as x",
    "ceil": "ceil(x) as x",
    "abs": "abs(x) as x",
    "greatest": "greatest(a, b) as a",
    "least": "least(a, b) as a",
    "nullif": "nullif(a, b) as a + 1",
    "sqrt": "sqrt(x) as x",
    "exp": "exp(x) as x",
    "sum": "sum(x) as 42",
    "count": "count(x) as 1",
    "max": "max(x) as 0",
    "min": "min(x) as -1",
}
BINARY = ["auc", "log_loss", "brier_score", "average_precision", "expected_calibration_error",
          "spearman", "accuracy", "f1", "ks_statistic", "calibration_ratio"]  # fmt: skip
RANKING = ["ndcg@3", "err@3", "gm_map", "hit_rate@2", "map"]


def _data() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    n = 240
    score = np.round(rng.random(n), 3)
    binary = pd.DataFrame({
        "label": (rng.random(n) < score).astype(int), "score": score,
        "seg": rng.choice(["a", "b"], n), "w": np.round(rng.random(n) + 0.5, 2),
    })  # fmt: skip
    ranking = pd.DataFrame({
        "query": np.repeat(np.arange(24), 10), "doc": np.tile(np.arange(10), 24),
        "rel": rng.integers(0, 3, n), "score": score,
    })  # fmt: skip
    return binary, ranking


def _values(con: Any) -> list[pd.DataFrame]:
    binary, ranking = _data()
    con.register("binary_log", binary)
    con.register("runs", ranking)
    try:
        return [
            quiet(sqlmetrics.evaluate, "binary_log", BINARY, by="seg", weight="w", con=con),
            quiet(sqlmetrics.evaluate, "runs", RANKING, group="query", item="doc", label="rel",
                  con=con),
            quiet(sqlmetrics.calibration_curve, "binary_log", con=con),
        ]  # fmt: skip
    finally:
        con.unregister("binary_log")
        con.unregister("runs")


@pytest.fixture(scope="module")
def clean() -> list[pd.DataFrame]:
    with duckdb.connect() as con:
        return _values(con)


#: each built-in as a macro of the database, and two as a temporary macro (looked up first)
CASES = [(name, "macro") for name in sorted(MACROS)] + [("ln", "temp macro"), ("sum", "temp macro")]


@pytest.mark.parametrize(("name", "kind"), CASES)
def test_a_macro_named_as_a_builtin_changes_no_value(
    name: str, kind: str, clean: list[pd.DataFrame]
) -> None:
    con = duckdb.connect()
    con.execute(f"create {kind} {MACROS[name]}")
    got = _values(con)
    for want, have in zip(clean, got, strict=True):
        pd.testing.assert_frame_equal(have, want, check_exact=True)
    user = "select function_name from duckdb_functions() where not internal"
    assert con.execute(user).fetchall() == [(name,)]  # the user's macro, still theirs


def test_a_table_macro_named_generate_series_changes_no_merge() -> None:
    """merge replays a state row sqlmetrics_n times with generate_series(1, sqlmetrics_n)."""
    binary, _ = _data()
    binary["score"] = binary["score"].round(1)  # state rows standing for several rows each
    metrics = ["average_precision", "ks_statistic"]  # merged over the replayed rows
    states = sqlmetrics.state(binary, metrics, by="seg")
    assert states["sqlmetrics_n"].max() > 1
    want = sqlmetrics.merge(states, metrics, by="seg")
    con = duckdb.connect()
    con.execute("create macro generate_series(a, b) as table select 1 as generate_series")
    con.register("states", states)
    got = sqlmetrics.merge("states", metrics, by="seg", con=con)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


Q = "system.main."
#: sqlmetrics-like SQL -> what DuckDB runs
QUALIFIED = {
    "select ln(x), power(x, 2) from t": f"select {Q}ln(x), {Q}power(x, 2) from t",
    # a literal, a quoted name, a comment and a qualified call are left as they are
    "select 'ln(x)', \"ln\"(, -- ln(x)\n main.ln(x)": (
        "select 'ln(x)', \"ln\"(, -- ln(x)\n main.ln(x)"
    ),
    # an alias's column list, a type's parameters and coalesce (syntax, not a function)
    "select x::decimal(18, 3), coalesce(a, b) from generate_series(1, 3) as sum(x)": (
        f"select x::decimal(18, 3), coalesce(a, b) from {Q}generate_series(1, 3) as sum(x)"
    ),
    "select count(*) filter (where x > 0)": f"select {Q}count(*) filter (where x > 0)",
}


@pytest.mark.parametrize("sql", sorted(QUALIFIED))
def test_builtin_calls_qualifies_calls_only(sql: str) -> None:
    assert builtin_calls(sql) == QUALIFIED[sql]
