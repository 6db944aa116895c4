"""The small dataset of the invariance suite (tests/test_invariance.py).

Three tables, built once, deterministic:

``inv_run`` (one row per (query, item)): every family but the class-score one reads it.
Scores are multiples of 1/8 in [0, 1] (heavy ties; a probability; exact under x4 and +1),
graded relevance 0..3, a 0/1 label (relevant or not), a 0/1 prediction, weights that are
multiples of 1/4, a column of weights 1, a weight per query (``gw``, 0 for every fourth),
a true and a predicted class, and the slice
column ``seg``: ``a`` and ``b`` (many queries), NULL (several queries), ``one`` (one row, one
query) and ``norel`` (queries without a relevant item, so every label 0).

``inv_scores`` (one row per (row, class)): class scores for ``multiclass_auc``,
``top_k_accuracy`` and ``multilabel_average_precision``: one true class per row, tied scores,
weights per row, ``seg`` per row (``one``: a single row).

``inv_train``: interactions for the beyond-accuracy metrics (items repeat: popularity; some
never recommended).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SLICES: tuple[str | None, ...] = ("a", "b", None, "one", "norel")


def _run(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    n_groups = 36
    for g in range(n_groups):
        if g == n_groups - 1:
            seg, size = "one", 1
        elif g >= n_groups - 4:
            seg, size = "norel", int(rng.integers(3, 7))
        else:
            seg = ("a", "b", None)[g % 3]
            size = int(rng.integers(3, 9))
        items = rng.choice(40, size=size, replace=False)
        for item in items:
            rel = 0 if seg == "norel" else int(rng.integers(0, 4) * (rng.random() < 0.5))
            rel = 2 if seg == "one" else rel
            score = float(np.clip(np.round(rng.random() * 6 + rel) / 8, 0, 1))
            rows.append((g, int(item), score, rel, seg))
    frame = pd.DataFrame(rows, columns=["g", "item", "score", "rel", "seg"])
    n = len(frame)
    classes = np.array(["x", "y", "z"])
    cls = classes[rng.integers(0, 3, n)]
    pcls = np.where(rng.random(n) < 0.4, classes[rng.integers(0, 3, n)], cls)
    frame["g"] = frame["g"].astype("int64")
    frame["item"] = frame["item"].astype("int64")
    frame["rel"] = frame["rel"].astype("int64")
    frame["label"] = (frame["rel"] > 0).astype("int64")
    frame["pred"] = (frame["score"] >= 0.5).astype("int64")
    frame["w"] = (rng.integers(1, 9, n) / 4).astype("float64")
    frame["one"] = np.ones(n, dtype="float64")
    # a weight per query (issue 43: group_weight=), 0 for every fourth query; no draw of rng
    frame["gw"] = ((frame["g"] * 7) % 4 * 0.5).astype("float64")
    frame["cls"] = cls
    frame["pcls"] = pcls
    frame["seg"] = frame["seg"].astype(object)
    columns = ["g", "item", "score", "rel", "label", "pred", "w", "one", "gw", "cls", "pcls", "seg"]
    return frame[columns]


def _scores(rng: np.random.Generator) -> pd.DataFrame:
    n_rows, classes = 48, np.array(["x", "y", "z", "v"])
    truth = rng.integers(0, 4, n_rows)
    raw = np.round(rng.random((n_rows, 4)) * 5 + 2 * (np.arange(4) == truth[:, None])) / 8
    seg = np.array(["a", "b", None], dtype=object)[np.arange(n_rows) % 3]
    seg[n_rows - 1] = "one"
    seg[[0, 5]] = "norel"  # no class-score row lacks a true class: an ordinary slice
    return pd.DataFrame(
        {
            "row_id": np.repeat(np.arange(n_rows), 4).astype("int64"),
            "cls": np.tile(classes, n_rows),
            "score": np.clip(raw, 0, 1).ravel(),
            "label": (np.arange(4) == truth[:, None]).astype("int64").ravel(),
            "w": np.repeat(rng.integers(1, 9, n_rows) / 4, 4).astype("float64"),
            "one": np.ones(4 * n_rows, dtype="float64"),
            "seg": np.repeat(seg, 4),
        }
    )


def _train(run: pd.DataFrame) -> pd.DataFrame:
    items = np.sort(run["item"].unique())
    repeated = np.repeat(items[::2], 1 + np.arange(len(items[::2])) % 4)
    return pd.DataFrame({"item": np.r_[repeated, np.arange(5) + 1000].astype("int64")})


def tables() -> dict[str, pd.DataFrame]:
    """The three tables, by name."""
    rng = np.random.default_rng(20261125)
    run = _run(rng)
    scores = _scores(rng)
    for frame in (run, scores):  # a quarter of the scores 0.0: one tie of both labels
        frame["score"] = frame["score"].where(frame["score"] > 0.25, 0.0)
    return {"inv_run": run, "inv_scores": scores, "inv_train": _train(run)}


def with_signed_zeros(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every other 0.0 of its score written -0.0 (the "names" check's copy,
    tests/test_invariance.py): -0.0 and 0.0 are one number, one tied score, so every value
    stays the same."""
    out = frame.copy()
    zero = (out["score"] == 0.0).to_numpy()
    signs = np.where(np.cumsum(zero) % 2 == 0, -1.0, 1.0)
    out["score"] = np.where(zero, signs * 0.0, out["score"])
    return out
