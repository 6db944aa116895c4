"""Regenerate ``list_weights.json``: TF-Ranking's MRR, recall and hits with per-example
weights (the reference values of ``tests/test_ranking_weights.py``; CI has no tensorflow, so
the values are stored).

Run with a Python that has ``tensorflow-ranking`` (0.5.5) and ``tensorflow`` (2.15, CPU),
from the repository root::

    /path/to/tfr-venv/bin/python tests/data/tfr/generate.py

Each data set is a table of rows (group, item, score, label, w), seeded, scores distinct
within a list (TF-Ranking's order of equal scores is its sort's). TF-Ranking takes one
padded list per group (label -1: padding). ``metrics_impl.<Metric>(name, topn)
._compute_impl`` gives the per-list values and the per-list weights of
``_per_example_weights_to_per_list_weights``; the stored value is their weighted mean
sum_g W_g v_g / sum_g W_g (what its Keras metrics report), computed in float64 from TF's
float32 per-list numbers. Every weight is positive: TF-Ranking 0.5.5 also masks items of
weight 0 out of the list (and weighs a list whose weights sum to 0 by 0), which sqlmetrics
does not do. Each data set has lists without a relevant item (they weigh the mean W_g).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow_ranking.python import metrics_impl

OUT = Path(__file__).with_name("list_weights.json")
KS = (None, 1, 3, 5)
METRICS = {"mrr": metrics_impl.MRRMetric, "recall_at_k": metrics_impl.RecallMetric,
           "hit_rate": metrics_impl.HitsMetric}  # fmt: skip


def dataset(seed: int, n_groups: int) -> list[list[float]]:
    rnd = random.Random(seed)
    rows = []
    for g in range(n_groups):
        n = rnd.randint(1, 8)
        scores = rnd.sample(range(100), n)
        for i in range(n):
            label = rnd.choice((0, 0, 0, 1, 2)) if g % 4 else 0  # every 4th list: none relevant
            rows.append([g, i, scores[i] / 10, label, round(rnd.uniform(0.05, 3), 3)])
    return rows


def tfr_values(rows: list[list[float]]) -> dict[str, float]:
    groups = sorted({int(r[0]) for r in rows})
    lists = [[r for r in rows if r[0] == g] for g in groups]
    size = max(len(x) for x in lists)

    def pad(col: int, fill: float) -> tf.Tensor:
        return tf.constant(
            [[r[col] for r in x] + [fill] * (size - len(x)) for x in lists], dtype=tf.float32
        )

    scores, labels, weights = pad(2, 0.0), pad(3, -1.0), pad(4, 1.0)
    out = {}
    for name, cls in METRICS.items():
        for k in KS:
            metric = cls(name, topn=k)
            per_list, per_weight = metric._compute_impl(
                *metric._prepare_and_validate_params(labels, scores, weights, None)[:3],
                tf.cast(labels >= 0, tf.bool),
            )
            v = np.asarray(per_list, dtype=np.float64).ravel()
            w = np.asarray(per_weight, dtype=np.float64).ravel()
            out[f"{name}@{k}"] = float(np.sum(v * w) / np.sum(w))
    return out


def main() -> None:
    cases = []
    for name, seed, n_groups in (("small", 1, 8), ("medium", 2, 20), ("many_empty", 3, 13)):
        rows = dataset(seed, n_groups)
        cases.append({"name": name, "rows": rows, "values": tfr_values(rows)})
    import tensorflow_ranking

    generated_by = (
        f"tensorflow-ranking {tensorflow_ranking.__version__}, tensorflow {tf.__version__}"
    )
    OUT.write_text(json.dumps({"generated_by": generated_by, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
