"""Time confidence intervals (issue 12) against the metric alone, in fresh processes.

    python -m benchmarks.intervals --rows 10000000 [--groups 500000] [--repeats 1]
    python -m benchmarks.intervals --rows 1000000 --groups 50000 --engine postgres  (or spark)
    python -m benchmarks.intervals --rows 3000000 --ctr-shape distinct --only auc "auc + delong"

Data (seeded, written once per size under benchmarks/data/): a CTR log of ``rows`` rows
(binary label, a float score with ~1e6 distinct values) and a ranking table of ``rows`` rows
in ``groups`` groups (graded labels 0-3). Cases: auc alone, auc + DeLong interval, auc + a
200-replicate bootstrap interval, ndcg@10 alone, ndcg@10 + a 200-replicate cluster bootstrap.
``--ctr-shape distinct``: the CTR log instead has ``rows`` distinct scores (a permutation of
0..rows-1 over rows) and 10 % positives, more likely at high scores; ``--ctr-shape r4``: the
same scores rounded to 4 decimals (at most 10,001 distinct values). ``--only NAME ...`` runs
those cases (each with its metric alone, the base of the ratio).
Each case runs in a new process; wall and CPU time (user + system of the process, all DuckDB
threads) are reported, with ratios to the metric alone.

``--engine postgres``: a throwaway server (tests/pg_server.py) with the two tables loaded
once; ``--engine spark``: a local[2] session per case (4 shuffle partitions), the Parquet files
read into cached temporary views before the clock starts. On these engines the work runs in
the server or the JVM, not in the timed Python process: only wall time is a fair figure there
(CPU is reported as the Python process's, for the record).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


SHAPED_SCORE = {
    # a permutation of 0..rows-1 (7919 is prime, not a factor of the sizes used) over rows
    "distinct": "((i * 7919) % {rows}) / {rows}",
    "r4": "round(((i * 7919) % {rows}) / {rows}, 4)",
}


def make_data(rows: int, groups: int, shape: str = "default") -> tuple[str, str]:
    """Write (once) the two seeded Parquet files for ``rows`` rows; return their paths."""
    import duckdb

    folder = os.path.join(HERE, "data")
    os.makedirs(folder, exist_ok=True)
    ctr = os.path.join(folder, f"ci_ctr_{rows}.parquet")
    if shape != "default":
        ctr = os.path.join(folder, f"ci_ctr_{shape}_{rows}.parquet")
    rank = os.path.join(folder, f"ci_rank_{rows}_{groups}.parquet")
    con = duckdb.connect()
    if shape != "default" and not os.path.exists(ctr):
        u = f"((i * 7919) % {rows}) / {rows}"
        con.execute(
            f"copy (select ((hash(i, 1) % 10000) / 10000 < 0.2 * {u})::int as label, "
            f"{SHAPED_SCORE[shape].format(rows=rows)} as score "
            f"from range({rows}) t(i)) to '{ctr}' (format parquet)"
        )
    if not os.path.exists(ctr):
        con.execute(
            f"copy (select (hash(i, 1) % 100 < 30)::int as label, "
            f"round(((hash(i, 2) % 1000000) / 1e6) * 0.8 "
            f"+ 0.2 * ((hash(i, 1) % 100 < 30)::int), 6) as score "
            f"from range({rows}) t(i)) to '{ctr}' (format parquet)"
        )
    if not os.path.exists(rank):
        con.execute(
            f"copy (select i % {groups} as query_id, i as item_id, "
            f"(hash(i, 3) % 4)::int as rel, (hash(i, 4) % 1000000) / 1e6 "
            f"+ 0.1 * (hash(i, 3) % 4) as score from range({rows}) t(i)) "
            f"to '{rank}' (format parquet)"
        )
    con.close()
    return ctr, rank


def cases(ctr: str, rank: str, n_boot: int, con: str = "") -> dict[str, str]:
    ranking = "group='query_id', item='item_id', label='rel', score='score', k=10, empty='zero'"
    ranking += con
    return {
        "auc": f"sqlmetrics.auc({ctr!r}{con})",
        "auc + delong": f"sqlmetrics.auc({ctr!r}{con}, ci=0.95)",
        f"auc + bootstrap({n_boot})": (
            f"sqlmetrics.auc({ctr!r}{con}, ci=0.95, ci_method='bootstrap', n_boot={n_boot})"
        ),
        "ndcg@10": f"sqlmetrics.ndcg({rank!r}, {ranking})",
        "ndcg@10 + t": f"sqlmetrics.ndcg({rank!r}, {ranking}, ci=0.95)",
        f"ndcg@10 + cluster bootstrap({n_boot})": (
            f"sqlmetrics.ndcg({rank!r}, {ranking}, ci=0.95, ci_method='bootstrap', n_boot={n_boot})"
        ),
    }


CODE = (
    "import resource, time, sqlmetrics\n"
    "{setup}\n"
    "def cpu():\n"
    "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return u.ru_utime + u.ru_stime\n"
    "c, t = cpu(), time.perf_counter()\n"
    "v = {call}\n"
    "w, c = time.perf_counter() - t, cpu() - c\n"
    "print(w, c, float(getattr(v, 'value', v)), float(getattr(v, 'hi', 'nan')))\n"
)

SPARK_SETUP = (
    "from pyspark.sql import SparkSession\n"
    "spark = (SparkSession.builder.master('local[2]').appName('ci-bench')\n"
    "         .config('spark.sql.shuffle.partitions', '4').config('spark.ui.enabled', 'false')\n"
    "         .config('spark.driver.memory', '3g').config('spark.sql.session.timeZone', 'UTC')\n"
    "         .getOrCreate())\n"
    "spark.sparkContext.setLogLevel('ERROR')\n"
    "for name, path in (('ci_ctr', {ctr!r}), ('ci_rank', {rank!r})):\n"
    "    frame = spark.read.parquet(path).cache()\n"
    "    frame.count()\n"
    "    frame.createOrReplaceTempView(name)\n"
)


def load_postgres(url: str, ctr: str, rank: str) -> None:
    """Copy the two Parquet files into tables ci_ctr and ci_rank of the server at ``url``."""
    import duckdb
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as pg:
        pg.execute("drop table if exists ci_ctr; drop table if exists ci_rank")
        pg.execute("create table ci_ctr (label integer, score double precision)")
        pg.execute(
            "create table ci_rank (query_id bigint, item_id bigint, rel integer, "
            "score double precision)"
        )
        for table, path in (("ci_ctr", ctr), ("ci_rank", rank)):
            rows = duckdb.sql(f"select * from read_parquet('{path}')").fetchall()
            with pg.cursor().copy(f"copy {table} from stdin") as copy:
                for row in rows:
                    copy.write_row(row)
        pg.execute("analyze ci_ctr; analyze ci_rank")


def run(call: str, setup: str = "") -> tuple[float, float, float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(call=call, setup=setup)],
        check=True,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(HERE),
    )
    wall, cpu, value, hi = out.stdout.split()[-4:]
    return float(wall), float(cpu), float(value), float(hi)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=500_000)
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--engine", choices=["duckdb", "postgres", "spark"], default="duckdb")
    parser.add_argument("--ctr-shape", choices=["default", "distinct", "r4"], default="default")
    parser.add_argument(
        "--only", nargs="*", default=None, help="case names, e.g. auc 'auc + delong'"
    )
    args = parser.parse_args()
    ctr, rank = make_data(args.rows, args.groups, args.ctr_shape)
    if args.engine == "postgres":
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
        import pg_server

        with pg_server.start() as server:
            load_postgres(server.url, ctr, rank)
            setup = f"import sqlalchemy\nengine = sqlalchemy.create_engine({server.url!r})"
            measure(args, cases("ci_ctr", "ci_rank", args.n_boot, ", con=engine"), setup)
    elif args.engine == "spark":
        setup = SPARK_SETUP.format(ctr=ctr, rank=rank)
        measure(args, cases("ci_ctr", "ci_rank", args.n_boot, ", con=spark"), setup)
    else:
        measure(args, cases(ctr, rank, args.n_boot), "")


def measure(args: argparse.Namespace, calls: dict[str, str], setup: str) -> None:
    """Run each call ``args.repeats`` times in fresh processes; print a Markdown table."""
    times: dict[str, tuple[float, float]] = {}
    if args.only:
        unknown = set(args.only) - set(calls)
        if unknown:
            raise SystemExit(f"--only: unknown case(s) {sorted(unknown)}; known: {list(calls)}")
        wanted = set(args.only) | {"auc" if n.startswith("auc") else "ndcg@10" for n in args.only}
        calls = {name: call for name, call in calls.items() if name in wanted}
    load = os.getloadavg()
    print(
        f"engine={args.engine} rows={args.rows} groups={args.groups} n_boot={args.n_boot} "
        f"ctr_shape={args.ctr_shape}"
    )
    print(f"load average at start: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")
    print(
        "| case | wall s | CPU s | value | upper bound | wall / alone | CPU / alone | load after |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    values: dict[str, float] = {}
    for name, call in calls.items():
        runs = [run(call, setup) for _ in range(args.repeats)]
        wall = sorted(r[0] for r in runs)[len(runs) // 2]
        cpu = sorted(r[1] for r in runs)[len(runs) // 2]
        times[name] = (wall, cpu)
        alone = "auc" if name.startswith("auc") else "ndcg@10"
        base = times[alone]
        values[name] = runs[0][2]
        if abs(values[name] - values[alone]) > 1e-12:  # the point value must not change
            raise SystemExit(f"{name}: value {values[name]!r} != {alone} {values[alone]!r}")
        print(
            f"| `{name}` | {wall:.2f} | {cpu:.2f} | {runs[0][2]!r} | {runs[0][3]:.6f} | "
            f"{wall / base[0]:.2f} | "
            f"{cpu / base[1]:.2f} | {', '.join(f'{x:.1f}' for x in os.getloadavg())} |",
            flush=True,
        )
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}")


if __name__ == "__main__":
    main()
