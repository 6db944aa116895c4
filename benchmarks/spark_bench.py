"""sqlmetrics on Spark against Spark MLlib's evaluators, side by side in one run.

    python -m benchmarks.spark_bench --rows 10000000 --master "local[2]"

Data: generated in Spark (seeded), ``rows`` impressions, distinct double scores, 20 items per
query, relevance 0..3, cached and counted before any clock starts. Compared, values first:
- exact AUC: ``sqlmetrics.auc`` (the distributed ``spark__auc_kernel``) vs
  ``BinaryClassificationEvaluator(metricName="areaUnderROC")`` (binned: numBins=1000 by
  default), and the distributed kernel's SQL alone vs the one-window Spark SQL AUC (the
  default kernel rendered for Spark: ``rank() over (order by score)``, one partition);
- NDCG@10: ``sqlmetrics.ndcg(k=10, empty="zero")`` on the binary label ``rel >= 2`` vs
  ``RankingEvaluator(metricName="ndcgAtK", k=10)``, whose input is built from the same table
  as a user would (per query: item ids sorted by score desc, and the relevant items); building
  it is timed with the evaluator.
Each timing is the median of ``--repeats`` runs after a first run whose value is checked.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    """``fn()``'s value (first run, untimed) and the median wall time of ``repeats`` runs."""
    value = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return value, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--driver-memory", default="6g")
    args = parser.parse_args()

    from pyspark.ml.evaluation import BinaryClassificationEvaluator, RankingEvaluator
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import sqlmetrics
    from sqlmetrics._templating.templates import render_macro

    spark = (
        SparkSession.builder.master(args.master)
        .appName("sqlmetrics-spark-bench")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    load_start = os.getloadavg()

    events = (
        spark.range(args.rows)
        .select(
            F.col("id").alias("item"),
            (F.col("id") / 20).cast("long").alias("query"),
            F.rand(7).alias("u"),
            F.rand(8).alias("noise"),
        )
        .select(
            "item",
            "query",
            F.when(F.col("u") < 0.3, 1).otherwise(0).alias("label"),
            # distinct doubles, informative: positives score higher on average
            (F.when(F.col("u") < 0.3, 0.5).otherwise(0.0) + F.col("noise")).alias("score"),
            F.floor(F.col("noise") * 4 + F.col("u")).cast("int").alias("rel"),
        )
        .withColumn("clicked", (F.col("rel") >= 2).cast("int"))
        .withColumn("label_d", F.col("label").cast("double"))
        .cache()
    )
    events.count()
    events.createOrReplaceTempView("bench_events")
    rows: list[tuple[str, float, Any]] = []
    print(f"rows={args.rows} master={args.master} repeats={args.repeats}", flush=True)
    print(f"load (1, 5, 15 min) at start {load_start}", flush=True)

    def measured(name: str, fn: Callable[[], Any]) -> tuple[Any, float]:
        value, seconds = timed(fn, args.repeats)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"  {name}: {seconds:.1f} s, value {value!r}, load after {load}", flush=True)
        return value, seconds

    # ------------------------------------------------------------------ AUC
    auc_sql = sqlmetrics.render("auc", "bench_events", dialect="spark")
    one_window_sql = render_macro(
        "default__auc_kernel",
        "`bench_events`",
        [],
        {"label": "`label`", "score": "`score`", "weight": None},
        {"pos_label": 1},
        [{"alias": "auc", "metric": "auc", "k": None, "needs": []}],
        dialect="spark",
    )
    ours, t_ours = measured("sqlmetrics.auc", lambda: sqlmetrics.auc("bench_events", con=spark))
    sql_only, t_sql = measured("kernel SQL", lambda: spark.sql(auc_sql).collect()[0]["auc"])
    window, t_window = measured(
        "one-window SQL", lambda: spark.sql(one_window_sql).collect()[0]["auc"]
    )
    evaluator = BinaryClassificationEvaluator(
        rawPredictionCol="score", labelCol="label_d", metricName="areaUnderROC"
    )
    mllib, t_mllib = measured("MLlib AUC", lambda: evaluator.evaluate(events))
    assert ours == sql_only == window, (ours, sql_only, window)
    assert abs(ours - mllib) < 1e-3, (ours, mllib)
    rows += [
        ("sqlmetrics.auc (checks + distributed kernel)", t_ours, ours),
        ("distributed kernel SQL alone", t_sql, sql_only),
        ("one-window Spark SQL AUC", t_window, window),
        ("MLlib BinaryClassificationEvaluator areaUnderROC", t_mllib, mllib),
    ]

    # ------------------------------------------------------------------ NDCG@10
    def ours_ndcg() -> float:
        return sqlmetrics.ndcg(
            "bench_events",
            group="query",
            item="item",
            label="clicked",
            score="score",
            k=10,
            empty="zero",
            con=spark,
        )

    def mllib_ndcg() -> float:
        per_query = events.groupBy("query").agg(
            F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("s"), "item"))).alias(
                "ranked"
            ),
            F.collect_list(F.when(F.col("clicked") == 1, F.col("item").cast("double"))).alias(
                "label"
            ),
        )
        data = per_query.select(
            F.transform("ranked", lambda x: x["item"].cast("double")).alias("prediction"),
            "label",
        )
        return float(RankingEvaluator(metricName="ndcgAtK", k=10, labelCol="label").evaluate(data))

    ndcg, t_ndcg = measured("sqlmetrics.ndcg", ours_ndcg)
    mllib_n, t_mllib_n = measured("MLlib NDCG", mllib_ndcg)
    assert abs(ndcg - mllib_n) < 1e-9, (ndcg, mllib_n)
    rows += [
        ("sqlmetrics.ndcg(k=10)", t_ndcg, ndcg),
        ("MLlib RankingEvaluator ndcgAtK (input built + evaluated)", t_mllib_n, mllib_n),
    ]

    print(f"load (1, 5, 15 min) at end {os.getloadavg()}")
    print("| call | seconds | value |")
    print("| --- | ---: | ---: |")
    for name, seconds, value in rows:
        print(f"| {name} | {seconds:.1f} | {value!r} |")
    print(f"MLlib AUC / sqlmetrics.auc: {t_mllib / t_ours:.2f}")
    print(f"distributed / one-window (SQL alone): {t_sql / t_window:.2f}")
    print(f"MLlib NDCG / sqlmetrics.ndcg: {t_mllib_n / t_ndcg:.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
