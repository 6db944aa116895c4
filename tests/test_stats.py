"""sqlmetrics._inference.stats against scipy.stats (the oracle; scipy is a dev-only dependency)."""

from __future__ import annotations

import math

import pytest
import scipy.special
import scipy.stats

from sqlmetrics._inference import stats as _stats

DFS = [0.5, 1, 1.5, 2, 3, 4, 5, 7, 10, 17, 29, 30, 50, 99, 250, 1000, 12345, 1e6]
PS = [1e-9, 1e-6, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.45, 0.5, 0.6]
PS = PS + [1 - p for p in PS if p != 0.5]


def close(a: float, b: float, tol: float = 1e-10) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(b))


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_matches_scipy(df: float) -> None:
    for p in PS:
        assert close(_stats.t_quantile(p, df), scipy.stats.t.ppf(p, df)), (p, df)


@pytest.mark.parametrize("df", DFS)
def test_t_cdf_sf_and_two_sided_p_match_scipy(df: float) -> None:
    for t in [-1e6, -40.0, -7.5, -3.0, -2.0, -1.0, -0.3, -1e-4, 0.0, 1e-4, 0.2, 1.0, 1.96, 2.5,
              4.0, 12.0, 300.0]:  # fmt: skip
        assert close(_stats.t_cdf(t, df), scipy.stats.t.cdf(t, df)), (t, df)
        assert close(_stats.t_sf(t, df), scipy.stats.t.sf(t, df)), (t, df)
        expected = 2 * scipy.stats.t.sf(abs(t), df)
        assert close(_stats.t_two_sided_p(t, df), expected), (t, df)


def test_t_near_zero_against_closed_forms() -> None:
    # scipy's t.ppf / t.cdf lose digits within 1e-7 of the median; closed forms there:
    # df = 1 is Cauchy (cdf = 1/2 + atan(t) / pi); near 0, cdf ~ 1/2 + pdf(0) t
    for t in [-1e-8, 1e-12, 3e-6]:
        assert math.isclose(_stats.t_cdf(t, 1), 0.5 + math.atan(t) / math.pi, rel_tol=1e-15)
    pdf0 = math.gamma(2.5) / (math.sqrt(4 * math.pi) * math.gamma(2))  # df = 4
    p = 0.5000001
    assert math.isclose(_stats.t_quantile(p, 4), (p - 0.5) / pdf0, rel_tol=1e-9)


def test_t_tails_are_relatively_accurate() -> None:
    # far tails: relative accuracy, not just absolute
    for df in [1, 3, 10, 100]:
        for t in [10.0, 50.0, 1e3]:
            expected = scipy.stats.t.sf(t, df)
            assert abs(_stats.t_sf(t, df) - expected) <= 1e-10 * expected, (t, df)


def test_betainc_matches_scipy() -> None:
    for a in [0.5, 1.0, 2.5, 10.0, 150.0, 5e4]:
        for b in [0.5, 1.0, 3.0, 40.0, 7e3]:
            for x in [0.0, 1e-12, 0.01, 0.2, 0.5, 0.77, 0.99, 1 - 1e-9, 1.0]:
                assert close(_stats.betainc(a, b, x), scipy.special.betainc(a, b, x)), (a, b, x)


def test_normal_matches_scipy() -> None:
    for p in PS:
        assert close(_stats.normal_quantile(p), scipy.stats.norm.ppf(p)), p
    for z in [-8.0, -2.0, -0.5, 0.0, 1.0, 3.3]:
        assert close(_stats.normal_cdf(z), scipy.stats.norm.cdf(z)), z


def test_t_quantile_inverts_t_cdf() -> None:
    for df in [1, 4, 33]:
        for p in [0.01, 0.3, 0.9, 0.999]:
            assert math.isclose(_stats.t_cdf(_stats.t_quantile(p, df), df), p, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _stats.t_quantile(0.0, 5), "p must lie in \\(0, 1\\); got 0.0"),
        (lambda: _stats.t_quantile(0.5, 0), "df must be a finite number > 0; got 0"),
        (lambda: _stats.t_cdf(1.0, math.inf), "df must be a finite number > 0; got inf"),
        (lambda: _stats.betainc(0, 1, 0.5), "a and b must be > 0; got a=0, b=1"),
        (lambda: _stats.betainc(1, 1, 1.5), "x must lie in \\[0, 1\\]; got 1.5"),
    ],
)
def test_errors(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_interval_t_factor_is_exact_to_1000_then_the_expansion_within_its_bound() -> None:
    """two_sided_t_interval (render(ci=)'s rule): two_sided_t itself for df <= 1000; above it
    the Cornish-Fisher expansion, within the bound ci_t_bounds' header states."""
    for level, bound in [
        (0.5, 3e-14),
        (0.9, 3e-14),
        (0.95, 3e-14),
        (0.999, 3e-14),
        (1 - 1e-8, 4e-12),
    ]:
        for df in [1, 2, 17, 999, 1000]:
            assert _stats.two_sided_t_interval(level, df) == _stats.two_sided_t(level, df)
        for df in [1001, 1500, 4000, 12345, 1e6, 1e9]:
            want = scipy.stats.t.isf((1 - level) / 2, df)
            got = _stats.two_sided_t_interval(level, df)
            assert abs(got - want) <= bound * want, (level, df)
            assert got == _stats.t_expansion(_stats.t_expansion_terms(level), df)
