"""sqlmetrics on Spark (``con=`` a SparkSession), what is Spark's own: a Spark DataFrame and a
Parquet path as data, the score buckets of Spark's AUC kernel, thinned curves, temporary views
removed afterwards (also after an error), errors that name spark, the CLI's ``--spark``.

Every public function and option variant on a Spark table against DuckDB is the engine
contract suite's (tests/test_engines.py); shuffled input, the invariance suite's
(tests/test_invariance.py).
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY, MetricSpec
from sqlmetrics.errors import ColumnNotFoundError, DataSourceError

pytestmark = pytest.mark.spark

TOL = 1e-9
N = 600


def make_events(seed: int = 5, n: int = N) -> pd.DataFrame:
    """Scores with many ties, weights, 40 queries, a slice column with NULLs."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": label.astype("int64"),
            "score": (0.6 * label + rng.random(n)).round(1),
            "prob": rng.random(n).round(3) * 0.98 + 0.01,
            "weight": rng.random(n).round(3) + 0.05,
            "query": rng.integers(0, 40, n).astype("int64"),
            "item": np.arange(n, dtype="int64"),
            "rel": rng.integers(0, 4, n).astype("int64"),
            "cls": rng.integers(0, 3, n).astype("int64"),
            "pred": rng.integers(0, 3, n).astype("int64"),
            "country": pd.Series(rng.choice(["de", "fr", None], n), dtype=object),
        }
    )


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_events()


@pytest.fixture(scope="module")
def sdf(spark: Any, frame: pd.DataFrame) -> Any:
    return spark.createDataFrame(frame)


@pytest.fixture(scope="module")
def table(spark: Any, sdf: Any) -> Any:
    name = "spark_events"
    sdf.createOrReplaceTempView(name)
    yield name
    spark.catalog.dropTempView(name)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory, frame: pd.DataFrame) -> str:
    path = tmp_path_factory.mktemp("spark") / "events.parquet"
    frame.to_parquet(path)
    return str(path)


def temp_views(spark: Any) -> list[str]:
    names = [str(row[1]) for row in spark.sql("show tables").collect()]
    return [name for name in names if name.startswith("__sqlmetrics_")]


#: values of the options a public function requires (no default)
REQUIRED = {"beta": 2.0}


def arguments(spec: MetricSpec) -> dict[str, Any]:
    """The public function's column arguments (and average / k) for ``spec`` on the events."""
    roles = {r.name: r.kind for r in spec.roles}
    required = {p: REQUIRED[p] for p in _required(spec)}
    if spec.family == "beyond":  # the train= interactions are passed by run()
        return {"item": "item"}
    if spec.family == "multiclass_scores":  # the long table of class scores
        return {"row_id": "row_id", "class_col": "cls", "score": "score", "label": "label"}
    if spec.family == "ranking":
        out: dict[str, Any] = {"group": "query", "item": "item", "label": "rel", "score": "score"}
        if "k" in _params(spec):
            out["k"] = 5
        return out
    if spec.family == "multiclass":
        out = {"label": "cls", "prediction": "pred", **required}
    else:
        probability = roles.get("score") == "probability" or spec.name in (
            "log_loss",
            "brier_score",
        )
        out = {"label": "label", "score": "prob" if probability else "score", **required}
        if "group" in roles:
            out["group"] = "query"
    if spec.average is not None:
        out["average"] = spec.average
    return out


def _params(spec: MetricSpec) -> list[str]:
    import inspect

    return list(inspect.signature(getattr(sqlmetrics, spec.function)).parameters)


def _required(spec: MetricSpec) -> list[str]:
    """The keyword-only options of the public function without a default (``beta``)."""
    import inspect

    parameters = inspect.signature(getattr(sqlmetrics, spec.function)).parameters.values()
    return [
        p.name
        for p in parameters
        if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name in REQUIRED
    ]


def as_frame(value: Any) -> pd.DataFrame:
    if isinstance(value, pd.DataFrame):
        return value.reset_index(drop=True)
    if isinstance(value, dict):
        return pd.DataFrame([value])
    return pd.DataFrame({"value": [value]})


def assert_same(got: Any, want: Any, what: str) -> None:
    g, w = as_frame(got), as_frame(want)
    assert list(g.columns) == list(w.columns), what
    assert len(g) == len(w), what
    for column in w.columns:
        for a, b in zip(g[column], w[column], strict=True):
            if isinstance(b, float) or isinstance(a, float):
                fa, fb = float(a), float(b)
                assert (
                    fa == fb
                    or (math.isnan(fa) and math.isnan(fb))
                    or abs(fa - fb) <= TOL * max(1.0, abs(fb))
                ), f"{what}: {column}: {a} != {b}"
            else:
                assert (pd.isna(a) and pd.isna(b)) or a == b, f"{what}: {column}: {a!r} != {b!r}"


def run(spec: MetricSpec, data: Any, con: Any, **extra: Any) -> Any:
    """``spec``'s public function on ``data``; a beyond-accuracy metric takes the same events
    as its ``train=`` interactions."""
    if spec.family == "beyond" and "train" in _params(spec):
        extra = {"train": data, **extra}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sqlmetrics, spec.function)(data, con=con, **arguments(spec), **extra)


def bucket_scores(kind: str, n: int = 30_000, seed: int = 9) -> pd.DataFrame:
    """Enough rows for spark__auc_kernel's score buckets (a 1/64 sample of ~160 rows per
    slice: up to 64 buckets of ~160 rows each), scores of one ``kind``:
    rounded doubles (ties within and across buckets), doubles from -1e308 to 1e308 and
    subnormals, bigints around 2^60 (distinct
    integers that are equal as doubles), a NULL slice."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    if kind == "ties":
        score: Any = np.round(rng.normal(size=n) + 0.7 * label, 2)
    elif kind == "extreme":
        score = rng.choice([-1.7e308, -1e300, -5e-324, 0.0, 5e-324, 1e-300, 1e300, 1.7e308], n)
        score = np.where(
            rng.random(n) < 0.5, score, rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)
        )
    else:  # "bigint"
        score = (2**60 + rng.integers(0, 4000, n) * 97 + label * 50_000).astype("int64")
    return pd.DataFrame(
        {
            "label": label.astype("int64"),
            "score": score,
            "country": pd.Series(rng.choice(["de", "fr", None], n), dtype=object),
        }
    )


@pytest.mark.parametrize("kind", ["ties", "extreme", "bigint"])
def test_auc_buckets_on_spark_equal_duckdb(spark: Any, kind: str) -> None:
    """The unweighted spark__auc_kernel (score buckets from a sample, ranks inside each) gives
    DuckDB's bits, overall and per slice; and the data do split into many buckets (so the
    test exercises the running sums between them)."""
    from sqlmetrics._templating.templates import render_macro

    frame = bucket_scores(kind)
    sdf = spark.createDataFrame(frame)
    sdf.createOrReplaceTempView("spark_bucket_scores")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert sqlmetrics.auc(sdf, con=spark) == sqlmetrics.auc(frame)
            got = sqlmetrics.evaluate(sdf, "auc", by="country", con=spark)
            want = sqlmetrics.evaluate(frame, "auc", by="country")
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        sql = render_macro(
            "spark__auc_kernel",
            "spark_bucket_scores",
            ["`country`"],
            {"label": "`label`", "score": "`score`", "weight": None},
            {"pos_label": None},
            [{"alias": "auc", "metric": "auc", "k": None, "needs": []}],
            dialect="spark",
        )
        head = sql[: sql.index("\n-- rank2:")].rstrip().rstrip(",")
        buckets = spark.sql(
            f"{head}\nselect count(distinct slice_0, bucket) from row_bucketed"
        ).collect()[0][0]
        assert buckets > 3 * 20, buckets  # most of the 3 x 64 (slice, bucket) pairs
    finally:
        spark.catalog.dropTempView("spark_bucket_scores")


@pytest.mark.parametrize("max_points", [2, 5])
def test_thinned_curves_on_spark_equal_duckdb(
    spark: Any, table: str, frame: pd.DataFrame, max_points: int
) -> None:
    for name in ("roc_curve", "pr_curve"):
        spec = REGISTRY[name]
        extra = {"max_points": max_points, "by": "country", "weight": "weight"}
        assert_same(run(spec, table, spark, **extra), run(spec, frame, None, **extra), name)


def evaluate_kwargs() -> dict[str, Any]:
    return {
        "label": "label",
        "score": "score",
        "group": "query",
        "item": "item",
        "by": "country",
    }


def test_evaluate_on_a_dataframe_and_parquet(
    spark: Any, sdf: Any, parquet: str, frame: pd.DataFrame
) -> None:
    metrics = ["auc", "average_precision", "gauc", "accuracy", "f1", "auc_bounds", "ndcg@5"]
    want = sqlmetrics.evaluate(frame, metrics, **evaluate_kwargs())
    assert_same(sqlmetrics.evaluate(sdf, metrics, con=spark, **evaluate_kwargs()), want, "df")
    assert temp_views(spark) == []
    assert_same(sqlmetrics.evaluate(parquet, metrics, con=spark, **evaluate_kwargs()), want, "pq")


def test_curves_on_a_dataframe_and_parquet(
    spark: Any, sdf: Any, parquet: str, frame: pd.DataFrame
) -> None:
    for name in ("roc_curve", "pr_curve"):
        spec = REGISTRY[name]
        want = run(spec, frame, None, by="country")
        assert_same(run(spec, sdf, spark, by="country"), want, f"{name} df")
        assert_same(run(spec, parquet, spark, by="country"), want, f"{name} parquet")
    assert temp_views(spark) == []


def test_temporary_view_dropped_after_an_error(spark: Any, sdf: Any) -> None:
    with pytest.raises(ColumnNotFoundError, match="spark"):
        sqlmetrics.auc(sdf, label="no_such_column", con=spark)
    assert temp_views(spark) == []


def test_missing_parquet_file(spark: Any, tmp_path: Path) -> None:
    with pytest.raises(DataSourceError, match="spark"):
        sqlmetrics.auc(str(tmp_path / "absent.parquet"), con=spark)


def test_pandas_frame_refused_with_spark(spark: Any, frame: pd.DataFrame) -> None:
    with pytest.raises(DataSourceError, match=r"spark\.createDataFrame"):
        sqlmetrics.auc(frame, con=spark)


def test_unsupported_con_names_spark() -> None:
    with pytest.raises(DataSourceError, match=r"SparkSession"):
        sqlmetrics.auc("events", con=object())


@pytest.mark.parametrize("session", ["spark", "spark_connect"])
def test_a_dataframe_of_another_session_is_refused(
    session: str, frame: pd.DataFrame, request: pytest.FixtureRequest
) -> None:
    """A DataFrame's temporary view lives in its own session: a DataFrame of another session
    than con= (classic, or Spark Connect) is refused with the fix, and its view is gone."""
    con = request.getfixturevalue(session)
    other = con.newSession()
    data = other.createDataFrame(frame[["label", "score"]])
    with pytest.raises(DataSourceError, match=r"of another SparkSession than con= \(spark\); "
                       r"pass the session that made it as con="):  # fmt: skip
        sqlmetrics.auc(data, con=con)
    assert temp_views(other) == [] and temp_views(con) == []
    assert sqlmetrics.auc(data, con=other) == sqlmetrics.auc(frame[["label", "score"]])


def test_spark_connect_needs_no_jvm(spark_connect: Any, frame: pd.DataFrame) -> None:
    """A Spark Connect session (pyspark-client has no py4j, no JVM): the backend reads no JVM
    attribute and catches no py4j error on it; its DataFrames, views and errors work."""
    from pyspark.errors import PySparkException

    from sqlmetrics._backends.spark_backend import SparkBackend, is_connect

    assert is_connect(spark_connect)
    assert SparkBackend(spark_connect).errors == (PySparkException,)
    # is_sail's probe: Spark's own Connect server renders Spark SQL; Sail's (.ci/sail) its own
    sail = os.environ.get("SQLMETRICS_TEST_SPARK") == "sail"
    assert SparkBackend(spark_connect).dialect == ("sail" if sail else "spark")
    package = Path(sqlmetrics.__file__).parent
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not any(a in text for a in ("_jsparkSession", "_jvm", "_jsc", "_jdf")), path
    data = spark_connect.createDataFrame(frame)
    got = sqlmetrics.evaluate(data, ["auc", "log_loss"], score="prob", by="country",
                              con=spark_connect)  # fmt: skip
    want = sqlmetrics.evaluate(frame, ["auc", "log_loss"], score="prob", by="country")
    pd.testing.assert_frame_equal(got, want, rtol=1e-12)
    with pytest.raises(ColumnNotFoundError, match="spark"):
        sqlmetrics.auc(data, label="no_such_column", con=spark_connect)
    assert temp_views(spark_connect) == []


def test_table_lookup_in_a_database(spark: Any, sdf: Any) -> None:
    from sqlmetrics._backends.spark_backend import SparkBackend

    backend = SparkBackend(spark)
    assert backend.resolve_table("spark_events") == "`spark_events`"
    assert backend.resolve_table("no_such_db.t") is None
    assert backend.resolve_table("not a name!") is None


# --------------------------------------------------------------------------- determinism
CLI = [__import__("sys").executable, "-c", "from sqlmetrics.cli import main; main()"]


def test_cli_spark_master_end_to_end(parquet: str, frame: pd.DataFrame) -> None:
    """``sqlmetrics eval PARQUET --spark local[2]`` in a fresh process: its own session."""
    import subprocess

    result = subprocess.run(
        [
            *CLI,
            "eval",
            parquet,
            "--metric",
            "auc",
            "--metric",
            "average_precision",
            "--format",
            "csv",
            "--spark",
            "local[2]",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    from io import StringIO

    got = pd.read_csv(StringIO(result.stdout))
    want = sqlmetrics.evaluate(frame, ["auc", "average_precision"])
    for name in ("auc", "average_precision"):
        assert abs(float(got[name].iloc[0]) - float(want[name].iloc[0])) <= TOL


def test_cli_spark_connect_end_to_end(
    spark_connect: Any, spark: Any, parquet: str, frame: pd.DataFrame
) -> None:
    """``--spark sc://host:port``: the CLI as a Spark Connect client of a running server (the
    spark fixture's), a session of its own, stopped at the end; DuckDB's values."""
    import subprocess

    port = spark.conf.get("spark.connect.grpc.binding.port")
    result = subprocess.run(
        [*CLI, "eval", parquet, "--metric", "auc", "--metric", "log_loss", "--score", "prob",
         "--format", "csv", "--spark", f"sc://127.0.0.1:{port}"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    from io import StringIO

    got = pd.read_csv(StringIO(result.stdout))
    want = sqlmetrics.evaluate(frame, ["auc", "log_loss"], score="prob")
    for name in ("auc", "log_loss"):
        assert math.isclose(float(got[name].iloc[0]), float(want[name].iloc[0]), rel_tol=1e-12)


def test_cli_spark_missing_table_names_spark() -> None:
    import subprocess

    result = subprocess.run(
        [*CLI, "eval", "no_such_table", "--metric", "auc", "--spark", "local[1]"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode != 0
    assert "no_such_table" in result.stderr and "spark" in result.stderr


@pytest.mark.parametrize(
    "value",
    [2.0**80, 2.0**92 + 2.0**40, 2.0**80 - 2.0**27, 12345678901234567.0, -(2.0**85) - 2.0**33],
)
def test_exact_int_of_a_double_is_exact_on_spark(spark: Any, value: float) -> None:
    """Spark casts a double to DECIMAL through its shortest decimal repr (2^80 ->
    1208925819614629200000000): exact_int_of, the term of every exact sum, must not."""
    from sqlmetrics._templating.templates import render_macro

    expr = render_macro("exact_int_of", f"cast({value!r} as double)", dialect="spark").strip()
    got = spark.sql(f"select cast({expr} as string) as v").collect()[0]["v"]
    assert int(got) == int(value)


def test_a_relative_path_is_pythons_not_the_jvms(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JVM keeps the working directory it started in: a relative path given after an
    os.chdir is read from Python's working directory, as DuckDB reads it."""
    frame = pd.DataFrame({"label": [1, 0, 1, 0], "score": [0.9, 0.8, 0.3, 0.1]})
    frame.to_parquet(tmp_path / "events.parquet")
    spark.range(1).collect()  # the JVM is up, in another working directory
    monkeypatch.chdir(tmp_path)
    assert sqlmetrics.auc("events.parquet", con=spark) == sqlmetrics.auc("events.parquet")
