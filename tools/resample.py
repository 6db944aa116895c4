"""The Python replay of the resampling weights of ``sql/_macros/inference/resample.sql``.

Tests (and the oracles in ``tests/oracle/``) use these to recompute, in plain Python/numpy,
exactly the replicate weights and sign flips the SQL draws, so a bootstrap interval or a
randomization p-value can be checked value for value.

``poisson_count(lam, x)`` is the Poisson(lam) draw of ``sql/_macros/inference/resample.sql``'s
``poisson_counts`` (AUC's bucket bootstrap): exact inversion through the integer thresholds
:func:`poisson_thresholds` for ``lam <= POISSON_EXACT_MAX``, a Cornish-Fisher quantile above.
:func:`poisson_table_jinja` writes the thresholds as the Jinja literal that ``resample.sql``
holds (a test checks the two agree).
"""

from __future__ import annotations

import decimal
import functools
import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


__all__ = [
    "AS241_A",
    "AS241_B",
    "AS241_C",
    "AS241_D",
    "POISSON_EXACT_MAX",
    "P",
    "key_hash",
    "normal_quantile",
    "poisson1",
    "poisson_count",
    "poisson_table_jinja",
    "poisson_thresholds",
    "poisson_weight",
    "replicate_int",
    "replicate_uniform",
    "sign_flip",
]

#: the Mersenne prime 2^31 - 1 all arithmetic is reduced modulo
P = 2147483647
#: Poisson(1) CDF at 0..7; u at or above the last gives 8
POISSON1_CDF = (
    0.36787944117144233,
    0.7357588823428847,
    0.9196986029286058,
    0.9810118431238462,
    0.9963401531726563,
    0.9994058151824183,
    0.9999167588507119,
    0.9999898508033944,
)


def key_hash(value: object) -> int:
    """The first 8 hex digits of md5 of ``value``'s text, as SQL's ``key_hash`` (ints, str)."""
    text = str(value).encode()
    return int(hashlib.md5(text).hexdigest()[:8], 16)


def replicate_int(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``replicate_int(key, b, seed)``: an integer in [0, P), elementwise."""
    import numpy as np

    key = np.asarray(key, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    a = (key % P + (seed % P) * 16807) % P
    x1 = (a * 48271 + b * 69621 + 12345) % P
    x2 = (x1 * x1 + b + 1) % P
    x3: np.ndarray = (x2 * 48271 + a) % P
    return x3


def replicate_uniform(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``replicate_uniform(key, b, seed)`` = ``replicate_int / P``, elementwise."""
    import numpy as np

    result: np.ndarray = replicate_int(key, b, seed).astype(np.float64) / float(P)
    return result


def poisson1(u: np.ndarray) -> np.ndarray:
    """SQL's ``poisson1(u)``: the Poisson(1) count whose CDF first exceeds ``u``."""
    import numpy as np

    return np.searchsorted(POISSON1_CDF, np.asarray(u), side="right").astype(np.int64)


def poisson_weight(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``poisson1(replicate_uniform(key, b, seed))``."""
    return poisson1(replicate_uniform(key, b, seed))


def sign_flip(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``sign_flip(key, b, seed)``: +1 where the uniform is below 1/2, else -1."""
    import numpy as np

    return np.where(replicate_uniform(key, b, seed) < 0.5, 1, -1)


# --------------------------------------------------------------------------- Poisson(lam)
#: means up to this are drawn by exact inversion (integer thresholds); above, Cornish-Fisher
POISSON_EXACT_MAX = 20


@functools.cache
def poisson_thresholds(lam: int) -> tuple[int, ...]:
    """``t_k = ceil(P * CDF_lam(k))`` for k = 0, 1, ... while ``t_k <= P - 1``.

    For an integer ``x`` in [0, P) (``replicate_int``), ``u = x / P < CDF(k)`` exactly when
    ``x < t_k``, so the Poisson quantile of u, the smallest k with CDF(k) > u, is the number of
    thresholds ``<= x``. The CDF is summed in 60-digit decimal arithmetic (no rounding that
    could move a threshold).

    >>> poisson_thresholds(1)[:3]
    (790015084, 1580030168, 1975037710)
    """
    ctx = decimal.Context(prec=60)
    mean = decimal.Decimal(lam)
    term = ctx.exp(-mean)
    cdf = term
    out: list[int] = []
    k = 0
    while True:
        t = int(ctx.multiply(cdf, decimal.Decimal(P)).to_integral_value(decimal.ROUND_CEILING))
        if t > P - 1:
            return tuple(out)
        out.append(t)
        k += 1
        term = ctx.divide(ctx.multiply(term, mean), decimal.Decimal(k))
        cdf = ctx.add(cdf, term)


def poisson_table_jinja() -> str:
    """The Jinja ``set`` of ``poisson_cdf_table`` in ``sql/_macros/inference/resample.sql``."""
    rows = [
        f"    {lam}: [{', '.join(map(str, poisson_thresholds(lam)))}],"
        for lam in range(1, POISSON_EXACT_MAX + 1)
    ]
    return "{%- set thresholds = {\n" + "\n".join(rows) + "\n} -%}"


#: AS241 (Wichura 1988) PPND16: central region |q| <= 0.425, numerator / denominator
AS241_A = (
    3.387132872796366608,
    133.14166789178437745,
    1971.5909503065514427,
    13731.693765509461125,
    45921.953931549871457,
    67265.770927008700853,
    33430.575583588128105,
    2509.0809287301226727,
)
AS241_B = (
    1.0,
    42.313330701600911252,
    687.1870074920579083,
    5394.1960214247511077,
    21213.794301586595867,
    39307.89580009271061,
    28729.085735721942674,
    5226.495278852854561,
)
#: tails with r = sqrt(-ln(min(u, 1 - u))) <= 5, at r - 1.6 (u >= 0.5 / P keeps r <= 4.72)
AS241_C = (
    1.42343711074968357734,
    4.6303378461565452959,
    5.7694972214606914055,
    3.64784832476320460504,
    1.27045825245236838258,
    0.24178072517745061177,
    0.0227238449892691845833,
    7.7454501427834140764e-4,
)
AS241_D = (
    1.0,
    2.05319162663775882187,
    1.6763848301838038494,
    0.68976733498510000455,
    0.14810397642748007459,
    0.0151986665636164571966,
    5.475938084995344946e-4,
    1.05075007164441684324e-9,
)


def _horner(coefs: tuple[float, ...], r: np.ndarray) -> np.ndarray:
    import numpy as np

    acc = np.full_like(r, coefs[-1])
    for c in reversed(coefs[:-1]):
        acc = acc * r + c
    return acc


def normal_quantile(u: np.ndarray) -> np.ndarray:
    """SQL's ``poisson_normal_quantile``: AS241 (PPND16) for u in [0.5 / P, 1 - 0.5 / P],
    the same operations in the same order (Horner, highest coefficient first).
    """
    import numpy as np

    u = np.asarray(u, dtype=np.float64)
    q = u - 0.5
    central = np.abs(q) <= 0.425
    rc = 0.180625 - q * q
    zc = q * _horner(AS241_A, rc) / _horner(AS241_B, rc)
    tail = np.where(q < 0.0, u, 1.0 - u)
    rt = np.sqrt(-np.log(np.where(central, 0.5, tail))) - 1.6
    zt = _horner(AS241_C, rt) / _horner(AS241_D, rt)
    z: np.ndarray = np.where(central, zc, np.where(q < 0.0, -zt, zt))
    return z


def poisson_count(lam: np.ndarray | int, x: np.ndarray | int) -> np.ndarray:
    """SQL's Poisson(lam) draw from ``x = replicate_int(...)`` (``poisson_counts``).

    ``lam <= POISSON_EXACT_MAX``: the exact quantile of ``u = x / P`` (threshold count).
    Above: Cornish-Fisher to order lam^(-1/2) with a continuity correction, at the midpoint
    ``u = (x + 1/2) / P``, ``z = AS241(u)``:
    ``n = floor(lam + z sqrt(lam) + (z^2 - 1) / 6 + (z - z^3) / (72 sqrt(lam)) + 1/2)``, >= 0.
    """
    import numpy as np

    lam_a, x_a = np.broadcast_arrays(np.asarray(lam, dtype=np.int64), np.asarray(x, dtype=np.int64))
    out = np.zeros(lam_a.shape, dtype=np.int64)
    for m in np.unique(lam_a[(lam_a > 0) & (lam_a <= POISSON_EXACT_MAX)]):
        at = lam_a == m
        t = np.asarray(poisson_thresholds(int(m)), dtype=np.int64)
        out[at] = np.searchsorted(t, x_a[at], side="right")
    big = lam_a > POISSON_EXACT_MAX
    if big.any():
        mean = lam_a[big].astype(np.float64)
        z = normal_quantile((x_a[big].astype(np.float64) + 0.5) / float(P))
        s = np.sqrt(mean)
        v = mean + z * s + (z * z - 1.0) / 6.0 + (z - z * z * z) / (72.0 * s)
        out[big] = np.maximum(np.floor(v + 0.5), 0.0).astype(np.int64)
    return out
