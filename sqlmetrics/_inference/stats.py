r"""Normal and Student t distribution functions for intervals and tests (no scipy at runtime).

The normal distribution is :class:`statistics.NormalDist`. Student's t is computed from the
regularized incomplete beta function :math:`I_x(a, b)`, evaluated by its continued fraction
(modified Lentz's method, Numerical Recipes 3rd ed., section 6.4), with

.. math:: P(|T_\nu| > t) = I_{\nu / (\nu + t^2)}(\nu / 2, 1 / 2),

and the t quantile solved from the CDF by safeguarded Newton steps inside a bisection bracket.
``tests/test_stats.py`` checks every function against ``scipy.stats`` to 1e-10 over many
degrees of freedom and probabilities.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = [
    "betainc",
    "normal_cdf",
    "normal_quantile",
    "t_cdf",
    "t_quantile",
    "t_sf",
    "t_two_sided_p",
    "two_sided_normal",
    "two_sided_t",
    "two_sided_t_interval",
]

_STANDARD = NormalDist()
_EPS = 1e-16  # relative change at which the continued fraction has converged
_TINY = 1e-300  # Lentz's guard against a zero denominator
_MAX_TERMS = 100_000  # ~ sqrt(max(a, b)) terms are needed; this covers df up to 1e9


def normal_quantile(p: float) -> float:
    """The standard normal quantile: ``z`` with ``P(Z <= z) = p``, for ``0 < p < 1``.

    Examples
    --------
    >>> round(normal_quantile(0.975), 6)
    1.959964
    """
    return _STANDARD.inv_cdf(p)


def two_sided_normal(level: float) -> float:
    """The half-width factor ``z`` of a two-sided normal interval at confidence ``level``:
    ``P(|Z| <= z) = level``, for ``0 < level < 1``.

    Computed from the lower tail, ``z = -Phi^-1((1 - level) / 2)``: ``1 - level`` is exact for
    ``level >= 1/2``, while ``(1 + level) / 2`` rounds to 1 for the largest level below 1
    (``1 - 2^-53``), where ``z`` is finite (about 8.29).

    Examples
    --------
    >>> round(two_sided_normal(0.95), 6)
    1.959964
    >>> round(two_sided_normal(1 - 2**-53), 4)
    8.2924
    """
    return 0.0 - _STANDARD.inv_cdf((1.0 - level) / 2.0)  # 0.0 -: +0 for a tiny level


def normal_cdf(z: float) -> float:
    """The standard normal CDF ``P(Z <= z)``.

    Examples
    --------
    >>> normal_cdf(0.0)
    0.5
    """
    return _STANDARD.cdf(z)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (Numerical Recipes' ``betacf``), by Lentz's method."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def _stirling_tail(x: float) -> float:
    """lgamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2), the Stirling series, for x >= 10."""
    r = 1.0 / (x * x)
    return (1 / 12 - r * (1 / 360 - r * (1 / 1260 - r * (1 / 1680 - r / 1188)))) / x


def _log_beta(a: float, b: float) -> float:
    """The log of B(a, b), without the cancellation of lgamma(a) + lgamma(b) - lgamma(a + b) for a
    large argument (lgamma(5e5) ~ 6e6 would leave 1e-10 of relative accuracy).
    """
    small, large = min(a, b), max(a, b)
    if large < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    total = small + large
    corr = _stirling_tail(large) - _stirling_tail(total)
    if small >= 10.0:  # both large: Stirling for all three
        corr += _stirling_tail(small)
        # (s - 1/2) ln(s/T) - ln(T)/2 - (L - 1/2) ln(1 + s/L) + ln(2 pi)/2, s + L = T
        return (
            (small - 0.5) * math.log(small / total)
            - 0.5 * math.log(total)
            - (large - 0.5) * math.log1p(small / large)
            + 0.5 * math.log(2.0 * math.pi)
            + corr
        )
    # lgamma(large) - lgamma(total) = -(large - 1/2) ln(1 + small/large) - small ln(total)
    #                                 + small + corr
    return (
        math.lgamma(small)
        - (large - 0.5) * math.log1p(small / large)
        - small * math.log(total)
        + small
        + corr
    )


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function :math:`I_x(a, b)` for ``a, b > 0``, ``0 <= x <= 1``.

    Examples
    --------
    >>> round(betainc(2.0, 3.0, 0.4), 12)
    0.5248
    """
    if not (a > 0 and b > 0):
        raise ValueError(f"betainc: a and b must be > 0; got a={a!r}, b={b!r}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc: x must lie in [0, 1]; got {x!r}")
    if x == 0.0 or x == 1.0:
        return x
    front = math.exp(a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b))
    # the fraction converges fast for x < (a + 1) / (a + b + 2); else I_x(a,b) = 1 - I_{1-x}(b,a)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _check_df(df: float) -> float:
    if not (isinstance(df, (int, float)) and df > 0 and math.isfinite(df)):
        raise ValueError(f"Student t: df must be a finite number > 0; got {df!r}")
    return float(df)


def _upper_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0: I_x(df/2, 1/2) / 2, x = df / (df + t^2), each side of the
    incomplete beta's switch point evaluated by the fraction that converges there, so that
    neither a small tail nor a tail near 1/2 is a difference of nearly equal numbers.
    """
    if math.isinf(t):
        return 0.0
    t2 = t * t
    a = df / 2.0
    x = df / (df + t2)
    if x < (a + 1.0) / (a + 2.5):  # betainc(a, 1/2, x) is its direct fraction here
        return 0.5 * betainc(a, 0.5, x)
    return 0.5 - 0.5 * betainc(0.5, a, t2 / (df + t2))  # P(0 < T < t), direct too


def t_two_sided_p(t: float, df: float) -> float:
    """``P(|T| >= |t|)`` for Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(t_two_sided_p(2.0, 10), 10)
    0.0733880348
    """
    df = _check_df(df)
    if math.isnan(t):
        return math.nan
    return 2.0 * _upper_tail(abs(t), df)


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> t_sf(0.0, 3)
    0.5
    """
    df = _check_df(df)
    if math.isnan(t):
        return math.nan
    tail = _upper_tail(abs(t), df)
    return tail if t > 0 else 1.0 - tail


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(t_cdf(2.228138851986, 10), 10)
    0.975
    """
    return t_sf(-t, df)


def _t_pdf(t: float, df: float) -> float:
    log_pdf = (
        math.lgamma((df + 1.0) / 2.0)
        - math.lgamma(df / 2.0)
        - 0.5 * math.log(df * math.pi)
        - (df + 1.0) / 2.0 * math.log1p(t * t / df)
    )
    return math.exp(log_pdf)


def two_sided_t(level: float, df: float) -> float:
    """The half-width factor ``t`` of a two-sided Student t interval at confidence ``level``
    with ``df`` degrees of freedom: ``P(|T| <= t) = level``, from the lower tail as
    :func:`two_sided_normal` (finite for every level below 1).

    Examples
    --------
    >>> round(two_sided_t(0.95, 10), 9)
    2.228138852
    """
    return 0.0 - t_quantile((1.0 - level) / 2.0, df)


#: the largest degrees of freedom whose interval factor is :func:`two_sided_t` itself; above
#: it, :func:`two_sided_t_interval` uses the Cornish-Fisher expansion (SQL writes the same rule:
#: a literal table of df = 1..T_TABLE_DF, then the expansion, sql/_macros/inference/intervals.sql)
T_TABLE_DF = 1000


def t_expansion_terms(level: float) -> tuple[float, float, float, float, float]:
    """The terms ``z, g1, g2, g3, g4`` of the Cornish-Fisher expansion of the two-sided t
    factor at ``level`` (Abramowitz & Stegun 26.7.5, ``z`` = :func:`two_sided_normal`):
    ``t = z + g1 / df + g2 / df^2 + g3 / df^3 + g4 / df^4``, the ``g`` by Horner in ``z^2``.

    Examples
    --------
    >>> [round(g, 6) for g in t_expansion_terms(0.95)]
    [1.959964, 2.372271, 2.822499, 2.55585, 1.589534]
    """
    z = two_sided_normal(level)
    y = z * z
    g1 = z * (y + 1.0) / 4.0
    g2 = z * ((5.0 * y + 16.0) * y + 3.0) / 96.0
    g3 = z * (((3.0 * y + 19.0) * y + 17.0) * y - 15.0) / 384.0
    g4 = z * (((((79.0 * y + 776.0) * y + 1482.0) * y - 1920.0) * y) - 945.0) / 92160.0
    return z, g1, g2, g3, g4


def t_expansion(terms: tuple[float, float, float, float, float], df: float) -> float:
    """:func:`t_expansion_terms`' ``terms`` summed at ``df`` in SQL's order (ci_t_bounds):
    ``z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df``.

    Examples
    --------
    >>> round(t_expansion(t_expansion_terms(0.95), 2000.0), 9)
    1.961150826
    """
    z, g1, g2, g3, g4 = terms
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def two_sided_t_interval(level: float, df: float) -> float:
    """The t factor of a t interval (``ci_method='t'``): :func:`two_sided_t` for
    ``df <= T_TABLE_DF`` (1000), the four-term Cornish-Fisher expansion :func:`t_expansion`
    above, so that SQL computes it bit for bit (a literal table, then the expansion). The
    expansion's relative error above df = 1000 is about its first omitted term
    ``g5(z) / df^5``: below 3e-14 for levels up to 0.999, 4e-12 at 1 - 1e-8 (checked against
    scipy), smaller than :func:`two_sided_t`'s own error at large df.

    Examples
    --------
    >>> two_sided_t_interval(0.95, 10) == two_sided_t(0.95, 10)
    True
    >>> round(two_sided_t_interval(0.95, 5000), 9)
    1.960438552
    """
    if df <= T_TABLE_DF:
        return two_sided_t(level, df)
    return t_expansion(t_expansion_terms(level), df)


def t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t: ``t`` with ``P(T <= t) = p``, for ``0 < p < 1``.

    Solved for the upper tail probability ``q = min(p, 1 - p)`` by Newton steps on
    ``t_sf(t) = q``, each kept inside a bisection bracket that shrinks every step, to a relative
    tolerance of 4 ulp.

    Examples
    --------
    >>> round(t_quantile(0.975, 10), 9)
    2.228138852
    """
    df = _check_df(df)
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: p must lie in (0, 1); got {p!r}")
    if p == 0.5:
        return 0.0
    q = min(p, 1.0 - p)  # upper tail of |t|
    lo, hi = 0.0, max(1.0, -normal_quantile(q))
    while t_sf(hi, df) > q:  # t's tails are heavier than the normal's: widen the bracket
        lo, hi = hi, hi * 2.0
    x = 0.5 * (lo + hi)
    for _ in range(400):
        f = t_sf(x, df) - q
        if f > 0:
            lo = x
        else:
            hi = x
        pdf = _t_pdf(x, df)
        step = x + f / pdf if pdf > 0 else math.nan  # d/dx sf = -pdf
        x_new = step if lo < step < hi else 0.5 * (lo + hi)
        if abs(x_new - x) <= 4 * math.ulp(x) or hi - lo <= 4 * math.ulp(hi):
            x = x_new
            break
        x = x_new
    return x if p > 0.5 else -x
