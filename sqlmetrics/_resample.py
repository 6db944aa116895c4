"""The Python replay of the resampling weights of ``sql/_macros/resample.sql``.

Tests (and the oracles in ``tests/oracle/``) use these to recompute, in plain Python/numpy,
exactly the replicate weights and sign flips the SQL draws, so a bootstrap interval or a
randomization p-value can be checked value for value.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["P", "key_hash", "poisson1", "poisson_weight", "replicate_uniform", "sign_flip"]

#: the Mersenne prime 2^31 - 1 all arithmetic is reduced modulo
P = 2147483647
#: Poisson(1) CDF at 0..7; u at or above the last gives 8
POISSON1_CDF = np.array(
    [
        0.36787944117144233,
        0.7357588823428847,
        0.9196986029286058,
        0.9810118431238462,
        0.9963401531726563,
        0.9994058151824183,
        0.9999167588507119,
        0.9999898508033944,
    ]
)


def key_hash(value: object) -> int:
    """The first 8 hex digits of md5 of ``value``'s text, as SQL's ``key_hash`` (ints, str)."""
    text = str(value).encode()
    return int(hashlib.md5(text).hexdigest()[:8], 16)


def replicate_uniform(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``replicate_uniform(key, b, seed)``, elementwise on integer arrays."""
    key = np.asarray(key, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    a = (key % P + (seed % P) * 16807) % P
    x1 = (a * 48271 + b * 69621 + 12345) % P
    x2 = (x1 * x1 + b + 1) % P
    x3 = (x2 * 48271 + a) % P
    result: np.ndarray = x3.astype(np.float64) / float(P)
    return result


def poisson1(u: np.ndarray) -> np.ndarray:
    """SQL's ``poisson1(u)``: the Poisson(1) count whose CDF first exceeds ``u``."""
    return np.searchsorted(POISSON1_CDF, np.asarray(u), side="right").astype(np.int64)


def poisson_weight(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``poisson1(replicate_uniform(key, b, seed))``."""
    return poisson1(replicate_uniform(key, b, seed))


def sign_flip(key: np.ndarray | int, b: np.ndarray | int, seed: int) -> np.ndarray:
    """SQL's ``sign_flip(key, b, seed)``: +1 where the uniform is below 1/2, else -1."""
    return np.where(replicate_uniform(key, b, seed) < 0.5, 1, -1)
