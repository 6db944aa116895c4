"""Time the metrics of issue 14 (classification side) alone against AUC on the 10M-row CTR data.

python -m benchmarks.classification_metrics [PATH.parquet]
    (default benchmarks/data/ctr_1e07.parquet)

One call per metric on a 2-thread DuckDB connection, CPU time of the process (DuckDB's threads
included) and wall time; AUC timed first and last, the ratio taken against their mean. The
agreement metrics read `prediction = (score >= 0.5)` from a view over the same file.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

import sqlmetrics


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    cpu, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, value


def main(path: str) -> None:
    con = duckdb.connect(config={"threads": 2})
    file = path.replace("'", "''")
    con.execute(
        f"create view ctr as select *, cast(score >= 0.5 as integer) as prediction "
        f"from read_parquet('{file}')"
    )
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("auc", lambda: sqlmetrics.auc("ctr", con=con)),
        ("partial_auc(max_fpr=0.1)", lambda: sqlmetrics.partial_auc("ctr", max_fpr=0.1, con=con)),
        ("ks_statistic", lambda: sqlmetrics.ks_statistic("ctr", con=con)),
        ("lift_table (deciles)", lambda: sqlmetrics.lift_table("ctr", con=con)),
        ("normalized_entropy", lambda: sqlmetrics.normalized_entropy("ctr", con=con)),
        ("calibration_ratio", lambda: sqlmetrics.calibration_ratio("ctr", con=con)),
        (
            "expected_calibration_error (uniform, 10)",
            lambda: sqlmetrics.expected_calibration_error("ctr", con=con),
        ),
        (
            "expected_calibration_error (quantile, 10)",
            lambda: sqlmetrics.expected_calibration_error("ctr", strategy="quantile", con=con),
        ),
        ("calibration_curve (uniform, 5)", lambda: sqlmetrics.calibration_curve("ctr", con=con)),
        ("balanced_accuracy", lambda: sqlmetrics.balanced_accuracy("ctr", con=con)),
        (
            "cohen_kappa (quadratic)",
            lambda: sqlmetrics.cohen_kappa("ctr", weights="quadratic", con=con),
        ),
        ("jaccard (macro)", lambda: sqlmetrics.jaccard("ctr", con=con)),
        ("hamming_loss", lambda: sqlmetrics.hamming_loss("ctr", con=con)),
        ("auc (again)", lambda: sqlmetrics.auc("ctr", con=con)),
    ]
    rows = [(name, *timed(fn)) for name, fn in calls]
    auc_cpu = (rows[0][1] + rows[-1][1]) / 2
    print("| metric | CPU s | wall s | CPU / AUC CPU | value |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, cpu, wall, value in rows:
        shown = f"{value:.6g}" if isinstance(value, float) else f"table, {len(value)} rows"
        print(f"| {name} | {cpu:.2f} | {wall:.2f} | {cpu / auc_cpu:.2f} | {shown} |")


if __name__ == "__main__":
    default = Path(__file__).parent / "data" / "ctr_1e07.parquet"
    main(sys.argv[1] if len(sys.argv) > 1 else str(default))
