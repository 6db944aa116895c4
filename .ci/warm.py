"""Compile ranx's numba kernels once, into the venv's own caches (ranx's ``@njit(cache=True)``),
while CI runs the linters on the other core: each xdist worker's first ranx test then loads
them instead of compiling them (about a minute per worker on this 2-core machine). The calls
are those the tests make: ``ranx.evaluate`` over every metric they name, ``ranx.compare``
with the t test, and ir_measures' ranx provider (``nDCG(dcg='exp-log2')``).
"""

from __future__ import annotations

import time
import warnings

import ir_measures
import pandas as pd
from ranx import Qrels, Run, compare, evaluate

start = time.perf_counter()
judged = {"q1": {"d1": 1, "d2": 2, "d4": 0}, "q2": {"d1": 1}, "q3": {"d9": 1}}
scored = {"q1": {"d1": 0.5, "d2": 0.25, "d3": 0.1}, "q2": {"d2": 0.3, "d1": 0.2}}
other = {"q1": {"d1": 0.1, "d2": 0.75, "d3": 0.2}, "q2": {"d2": 0.1, "d1": 0.4}}
metrics = ["map", "ndcg", "mrr", "r-precision", "ndcg_burges"]
metrics += [
    f"{m}@{k}" for m in ("precision", "recall", "ndcg", "map", "mrr", "hit_rate") for k in (1, 5)
]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    evaluate(Qrels(judged), Run(scored), metrics, make_comparable=True)
    both = {q: judged[q] for q in scored}
    runs = [Run(scored, name="a"), Run(other, name="b")]
    compare(Qrels(both), runs, metrics=metrics, stat_test="student", make_comparable=True)
    qrels = pd.DataFrame(
        [(q, d, r) for q, docs in judged.items() for d, r in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    ).astype({"query_id": object, "doc_id": object})
    run = pd.DataFrame(
        [(q, d, s) for q, docs in scored.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    ).astype({"query_id": object, "doc_id": object})
    ir_measures.calc_aggregate(
        [ir_measures.parse_measure("nDCG(dcg='exp-log2')")], qrels[qrels.query_id != "q3"], run
    )
print(f"ranx's numba kernels compiled in {time.perf_counter() - start:.0f} s")
