"""Regenerate ``weighted_dcg.json``: rax's DCG and NDCG with per-item weights (the reference
values of ``tests/test_ranking_weights.py``; CI has no jax, so the values are stored).

Run with a Python that has ``rax`` and ``jax`` (CPU), from the repository root::

    /path/to/rax-venv/bin/python tests/data/rax/generate.py

Each data set is a table of rows (group, item, score, label, w), seeded. rax takes one padded
list per group (``where=`` masks the padding) with the items in descending item order: rax
ranks equal scores in list order (a stable sort), so that is sqlmetrics' ``ties="item_desc"``.
rax's mean over lists counts every list (a list whose ideal DCG is 0 has NDCG 0): sqlmetrics'
``empty="zero"``. Computed in float64 (``jax_enable_x64``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import rax  # noqa: E402

OUT = Path(__file__).with_name("weighted_dcg.json")
KS = (None, 1, 3, 5)


def dataset(seed: int, n_groups: int, ties: bool, zero_weights: bool) -> list[list[float]]:
    """Rows [group, item, score, label, w]: distinct scores per group unless ``ties``;
    with ``zero_weights`` a quarter of the items weigh 0 and the last group weighs 0 on
    every item."""
    rnd = random.Random(seed)
    rows = []
    for g in range(n_groups):
        n = rnd.randint(2, 9)
        scores = rnd.sample(range(100), n) if not ties else [rnd.randint(0, 3) for _ in range(n)]
        for i in range(n):
            w = round(rnd.uniform(0, 3), 3)
            if zero_weights and (rnd.random() < 0.25 or g == n_groups - 1):
                w = 0.0
            label = rnd.choice((0, 0, 1, 2, 3))
            rows.append([g, i, float(scores[i]) / 10, label, w])
    return rows


def rax_values(rows: list[list[float]]) -> dict[str, float]:
    groups = sorted({int(r[0]) for r in rows})
    lists = [sorted((r for r in rows if r[0] == g), key=lambda r: -r[1]) for g in groups]
    size = max(len(x) for x in lists)

    def pad(col: int) -> jnp.ndarray:
        return jnp.array([[r[col] for r in x] + [0.0] * (size - len(x)) for x in lists])

    where = jnp.array([[True] * len(x) + [False] * (size - len(x)) for x in lists])
    scores, labels, weights = pad(2), pad(3), pad(4)
    out = {}
    for k in KS:
        for name, fn in (("dcg", rax.dcg_metric), ("ndcg", rax.ndcg_metric)):
            key = name if k is None else f"{name}@{k}"
            out[key] = float(fn(scores, labels, where=where, topn=k, weights=weights))
            out[key + ":unweighted"] = float(fn(scores, labels, where=where, topn=k))
    return out


def main() -> None:
    cases = []
    for name, seed, ties, zero in (
        ("distinct_scores", 1, False, False),
        ("tied_scores", 2, True, False),
        ("zero_weights", 3, False, True),
        ("tied_zero_weights", 4, True, True),
    ):
        rows = dataset(seed, 8, ties, zero)
        cases.append({"name": name, "rows": rows, "values": rax_values(rows)})
    meta = {"rax": rax.__version__ if hasattr(rax, "__version__") else "", "jax": jax.__version__}
    OUT.write_text(json.dumps({"generated_by": meta, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
