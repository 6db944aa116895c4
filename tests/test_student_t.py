"""Student's t p-value in SQL (sql/_macros/inference/student_t.sql, compare_t_p) against compare()'s
Python p-value (``_t_result``, ``t_two_sided_p``): the dbt gate champion_challenger's test='t'.

The SQL evaluates the incomplete beta function with stats.py's own steps (the switch points,
the front factor, Lentz's continued fraction in a recursive CTE), so the two agree to a few
ulp of the exponent: 1e-12 relative is asserted (measured: 2e-14 on DuckDB).
"""

from __future__ import annotations

import math
from typing import Any

import duckdb
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sqlmetrics._inference.compare import _t_result
from sqlmetrics._templating.templates import render_macro

#: degrees of freedom across every branch: df = 1 (Cauchy), the factorial table (df < 20), the
#: Stirling form, huge df (every row of a log a pair)
DFS = [1, 2, 3, 4, 5, 9, 10, 19, 20, 21, 30, 99, 100, 1000, 12345, 10**5, 10**6, 10**7, 10**9]
#: |t| on both sides of the switch point x = (a + 1) / (a + 2.5) (t^2 ~ 3) and far in the tail
TS = [0.0, 1e-18, 1e-9, 1e-3, 0.01, 0.3, 1, 1.5, 1.7, 1.8, 2, 2.5, 3, 4, 6, 8, 10, 20, 40, 100,
      1e3, 1e6]  # fmt: skip

REL = 1e-12


def _sums(cases: list[tuple[float, float, int, float]]) -> str:
    """A VALUES statement of (slice_0, d, ss, n, sw) rows, the doubles written exactly."""
    rows = [
        f"({i}, cast({d!r} as double precision), cast({ss!r} as double precision), {n}, "
        f"cast({sw!r} as double precision))"
        for i, (d, ss, n, sw) in enumerate(cases)
    ]
    return "select * from (values " + ", ".join(rows) + ") as v(slice_0, d, ss, n, sw)"


def _grid() -> list[tuple[float, float, int, float]]:
    """(d, ss, n, sw) with se = 1 (ss = (n - 1) / n, sw = 1), so t = d, and both signs."""
    cases = []
    for df in DFS:
        n = df + 1
        for t in TS:
            cases.append((t, (n - 1) / n, n, 1.0))
            cases.append((-t, (n - 1) / n, n, 1.0))
    # the special rows: one pair, a constant difference (se = 0), weighted sums
    cases += [(0.5, 0.0, 1, 1.0), (0.0, 0.0, 5, 5.0), (0.2, 0.0, 5, 5.0), (0.2, -1e-18, 5, 5.0)]
    cases += [(0.01, 0.37, 40, 17.5), (-0.003, 2.5e-5, 7, 3.25)]
    return cases


def _check(got: dict[int, Any], cases: list[tuple[float, float, int, float]]) -> float:
    """The largest relative difference; asserts each p within REL of Python's."""
    worst = 0.0
    assert sorted(got) == list(range(len(cases)))
    for i, (d, ss, n, sw) in enumerate(cases):
        want = _t_result(d, ss, n, sw, 0.95)[2]
        have = got[i]
        if math.isnan(want):
            assert have is None or (isinstance(have, float) and math.isnan(have)), (d, ss, n, sw)
            continue
        have = float(have)
        if abs(d) > 1e150 * max(math.sqrt(max(ss, 0.0) * n / (n - 1)) / sw, 1e-300):
            assert have == 0.0 and want < 1e-140  # the documented guard
            continue
        assert math.isclose(have, want, rel_tol=REL, abs_tol=1e-300), (d, ss, n, sw, have, want)
        if want > 0:
            worst = max(worst, abs(have - want) / want)
    return worst


def test_t_p_value_equals_compares_on_duckdb() -> None:
    cases = _grid()
    sql = render_macro("compare_t_p", _sums(cases), 1)
    got = dict(duckdb.sql(sql).fetchall())
    assert _check(got, cases) < REL
    # the tail is computed, not 1 - (a number near 1): p far below 1e-16 keeps its digits
    tiny = dict(
        duckdb.sql(render_macro("compare_t_p", _sums([(40.0, 29 / 30, 30, 1.0)]), 1)).fetchall()
    )
    assert 0 < tiny[0] < 1e-20
    assert math.isclose(tiny[0], _t_result(40.0, 29 / 30, 30, 1.0, 0.95)[2], rel_tol=REL)


@given(
    d=st.floats(-50, 50, allow_nan=False),
    ss=st.floats(1e-6, 1e4),
    n=st.integers(1, 10**7),
    sw=st.floats(0.5, 1e6),
)
def test_t_p_value_equals_compares_on_random_sums(d: float, ss: float, n: int, sw: float) -> None:
    cases = [(d, ss, n, sw)]
    got = dict(duckdb.sql(render_macro("compare_t_p", _sums(cases), 1)).fetchall())
    _check(got, cases)


def test_t_p_value_keeps_null_slices_and_several_slices() -> None:
    src = (
        "select * from (values (null, 'a', 1.5e0, 0.9e0, 10, 10.0e0), ('x', null, -0.2e0, "
        "3.0e0, 4, 4.0e0)) as v(slice_0, slice_1, d, ss, n, sw)"
    )
    got = duckdb.sql(render_macro("compare_t_p", src, 2)).fetchall()
    want = {(None, "a"): _t_result(1.5, 0.9, 10, 10.0, 0.95)[2],
            ("x", None): _t_result(-0.2, 3.0, 4, 4.0, 0.95)[2]}  # fmt: skip
    assert {(a, b): p for a, b, p in got}.keys() == want.keys()
    for a, b, p in got:
        assert math.isclose(p, want[(a, b)], rel_tol=REL)


@pytest.mark.postgres
def test_t_p_value_equals_compares_on_postgres(pg_engine: Any) -> None:
    cases = _grid()
    sql = render_macro("compare_t_p", _sums(cases), 1, dialect="postgres")
    frame = pd.read_sql(sql, pg_engine)
    got = {int(i): (None if pd.isna(p) else float(p)) for i, p in frame.itertuples(index=False)}
    assert _check(got, cases) < REL
