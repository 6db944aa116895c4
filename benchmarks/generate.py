"""Seeded synthetic data for the benchmarks, written as Parquet in chunks (any size fits in RAM).

CTR log: ``user_id, item_id, label, score, score_r4``. Impressions per user are skewed (user
activity drawn from a log-normal, rows drawn from users in proportion to it, in random order
as a log would be); ``label`` is a click (about 8 %); ``score`` a float64 that depends on the
label, the user and noise (continuous: ties have probability ~0); ``score_r4`` the same score
rounded to 4 decimals (many ties: at most 10 001 distinct values).

Ranking table: ``query_id, item_id, rel, score``; ``items`` items per query, graded relevance
0..3 (every query has at least one relevant item, so NDCG is defined everywhere and every
tool agrees on it), a float64 score correlated with ``rel``. Rows are grouped by query, as in a
TREC run file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CHUNK = 5_000_000


def _write(path: Path, batches: object, schema: pa.Schema) -> None:
    tmp = path.with_suffix(".parquet.tmp")
    with pq.ParquetWriter(tmp, schema, compression="snappy") as writer:
        for table in batches:  # type: ignore[attr-defined]
            writer.write_table(table, row_group_size=1_000_000)
    os.replace(tmp, path)


def ctr(path: Path, rows: int, users: int, seed: int = 0) -> dict[str, object]:
    """Write the CTR log; return its description."""
    rng = np.random.default_rng(seed)
    activity = rng.lognormal(mean=0.0, sigma=1.2, size=users)
    cumulative = np.cumsum(activity / activity.sum())
    cumulative[-1] = 1.0
    user_bias = rng.normal(0.0, 0.6, size=users)
    schema = pa.schema(
        [
            ("user_id", pa.int64()),
            ("item_id", pa.int64()),
            ("label", pa.int8()),
            ("score", pa.float64()),
            ("score_r4", pa.float64()),
        ]
    )

    def batches():  # type: ignore[no-untyped-def]
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            user = np.searchsorted(cumulative, rng.random(n), side="right").astype(np.int64)
            item = rng.integers(0, 1_000_000, size=n, dtype=np.int64)
            logit = -2.7 + user_bias[user] + rng.normal(0.0, 0.5, size=n)
            label = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int8)
            score = 1 / (1 + np.exp(-(logit + 1.2 * label + rng.normal(0.0, 1.0, size=n))))
            yield pa.table(
                {
                    "user_id": user,
                    "item_id": item,
                    "label": label,
                    "score": score,
                    "score_r4": np.round(score, 4),
                },
                schema=schema,
            )
            done += n

    _write(path, batches(), schema)
    return {"kind": "ctr", "rows": rows, "users": users, "seed": seed}


def ranking(path: Path, queries: int, items: int = 20, seed: int = 1) -> dict[str, object]:
    """Write the ranking table; return its description."""
    rng = np.random.default_rng(seed)
    schema = pa.schema(
        [
            ("query_id", pa.int64()),
            ("item_id", pa.int64()),
            ("rel", pa.int8()),
            ("score", pa.float64()),
        ]
    )
    per_chunk = max(1, CHUNK // items)

    def batches():  # type: ignore[no-untyped-def]
        done = 0
        while done < queries:
            q = min(per_chunk, queries - done)
            qid = np.repeat(np.arange(done, done + q, dtype=np.int64), items)
            j = np.tile(np.arange(items, dtype=np.int64), q)
            item = (qid * 7919 + j * 104_729) % 1_000_003  # distinct within a query
            rel = rng.choice(4, size=(q, items), p=[0.55, 0.25, 0.12, 0.08]).astype(np.int8)
            none = ~(rel > 0).any(axis=1)  # give every query at least one relevant item
            rel[none, rng.integers(0, items, size=int(none.sum()))] = 1
            rel = rel.ravel()
            score = 0.6 * rel + rng.normal(0.0, 1.0, size=q * items)
            yield pa.table(
                {"query_id": qid, "item_id": item, "rel": rel, "score": score}, schema=schema
            )
            done += q

    _write(path, batches(), schema)
    return {
        "kind": "ranking",
        "rows": queries * items,
        "queries": queries,
        "items": items,
        "seed": seed,
    }


def ensure(
    data_dir: Path, rows: int, *, users_per_row: float = 0.05, items: int = 20
) -> tuple[Path, Path]:
    """Paths of the CTR log and ranking table with ``rows`` rows each; generated if missing.

    The defaults give 10M rows -> 500k users and 500k queries x 20 items.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    tag = f"{rows:.0e}".replace("+", "") if rows % 10 ** (len(str(rows)) - 1) == 0 else str(rows)
    ctr_path = data_dir / f"ctr_{tag}.parquet"
    rank_path = data_dir / f"ranking_{tag}.parquet"
    for path, make in (
        (ctr_path, lambda p: ctr(p, rows, max(1, int(rows * users_per_row)))),
        (rank_path, lambda p: ranking(p, max(1, rows // items), items)),
    ):
        meta = path.with_suffix(".json")
        if not (path.exists() and meta.exists()):
            meta.write_text(json.dumps(make(path)))
    return ctr_path, rank_path
