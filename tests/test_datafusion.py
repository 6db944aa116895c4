"""A semantics probe on Apache DataFusion: the parity subset's SQL run there equals DuckDB's.

DataFusion is no engine of ours (``con=`` does not take it), but its SQL differs from DuckDB's
in exactly the ways real warehouses do, so running our rendered SQL there finds template bugs
the supported engines hide:

- ``a is not distinct from b and c`` parses as ``a is not distinct from (b and c)``;
- integer ``/`` integer is an integer division (``count(*) / count(*)`` is 0 or 1), as on
  PostgreSQL, Trino, Snowflake (DuckDB divides as doubles);
- the key of an outer ``join ... using (k)`` is the left side's column, NULL for a row only
  the right side has (DuckDB, PostgreSQL: the coalesce of both sides);
- a nested ``with`` may not reuse a name of an enclosing one.

How it runs: the parity tables (``tests/test_engines.py``: ties, NULL slices, empty groups,
judgments the run lacks) are registered in a DataFusion ``SessionContext`` as Arrow tables;
every parity case is rendered for ``dialect="trino"`` (the render closest to DataFusion's SQL:
``is not distinct from`` as written, no ``hugeint``, ``double``) and run there, and its rows
must equal, to 1e-12 relative, those of the ``duckdb`` render of the same case run by DuckDB.
No metric is left out: every parity case runs (the variants ``render`` refuses by design, such
as ``ties='average'`` for bpref, are refused before any engine runs). Each trap is then
injected into a copy of ``sql/`` to show that the probe, and the static checks of the
templates below, catch it. About 20 seconds: the tests that use DataFusion (its fixture
``datafusion_ctx``) are in the tier ``datafusion`` (``pytest --all``); the static checks are fast.
"""

from __future__ import annotations

import math
import re
import shutil
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datafusion
import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import duckdb_tables
from engine_variants import CASES, FAMILY_COLUMNS, REFUSED, TABLES, Case, _family

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics._templating import templates

RTOL = 1e-12
#: the render DataFusion runs (see the module docstring)
DIALECT = "trino"
SQL = Path(__file__).resolve().parents[1] / "sql"


def _refused(case: Case) -> bool:
    return any((m, p, v) in REFUSED for m in case.metrics for p, v in case.options)


@dataclass(frozen=True)
class Probe:
    """A parity case and the slice columns it runs by (none, one, or two)."""

    case: Case
    by: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.case.id + ("+part" if len(self.by) == 2 else "")


#: the parity cases the probe runs: all but those refused by design, and those with a slice
#: again by two slice columns (`country`, `part`: both with a NULL slice), whose joins chain
#: null-safe equalities with `and`
PROBED = [Probe(case, ("country",) if case.by else ()) for case in CASES if not _refused(case)] + [
    Probe(case, ("country", "part")) for case in CASES if case.by and not _refused(case)
]
#: the parity tables with the second slice column
_PART = np.array(["x", "y", None], dtype=object)
PROBE_TABLES = {
    **TABLES,
    "parity_run": TABLES["parity_run"].assign(part=_PART[TABLES["parity_run"]["g"] // 3 % 3]),
    "parity_scores": TABLES["parity_scores"].assign(
        part=_PART[TABLES["parity_scores"]["row_id"] // 3 % 3]
    ),
}


# --------------------------------------------------------------------------- engines
@pytest.fixture(scope="module")
def datafusion_ctx() -> datafusion.SessionContext:
    ctx = datafusion.SessionContext()
    for name, frame in PROBE_TABLES.items():
        ctx.register_record_batches(
            name, [pa.Table.from_pandas(frame, preserve_index=False).to_batches()]
        )
    return ctx


@pytest.fixture(scope="module")
def duckdb_con() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb_tables(PROBE_TABLES)
    yield con
    con.close()


def render_case(run: Probe, dialect: str) -> str:
    """The SQL of ``run`` in ``dialect``: ``render_evaluate`` for a batch of scalar metrics
    (the statement ``evaluate`` runs), ``render`` for a table output (curves, reports)."""
    case = run.case
    options = dict(case.options)
    columns: dict[str, Any] = dict(FAMILY_COLUMNS[case.family])
    if options.get("pos_label") is not None:
        columns["label"] = "label_txt"
    if case.weight:
        columns["weight"] = "w"
    if case.prediction:
        columns["prediction"] = "pred"
        columns.pop("score", None)
    qrels = "parity_qrels" if case.qrels else None
    if qrels is not None:
        columns["label"] = "rel"
    train = {"train": "parity_train"} if case.family == "beyond" else {}
    by = list(run.by) or None
    table = "parity_scores" if case.family == "multiclass_scores" else "parity_run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case.table:
            spec = REGISTRY[case.metrics[0]]
            roles = {r.name: columns[r.name] for r in spec.roles if columns.get(r.name)}
            if qrels is not None:
                roles.pop("label", None)
                roles["qrels"] = qrels
            return sqlmetrics.render(
                spec.name, table, by=by, dialect=dialect, **roles, **options, **train
            )
        metrics = list(case.metrics)
        k = options.pop("k", None)
        if k is not None:  # evaluate's names carry the cut-off
            metrics = [f"{m}@{k}" for m in metrics]
        return sqlmetrics.render_evaluate(
            table, metrics, by=by, qrels=qrels, dialect=dialect, **columns, **options, **train
        )


def _cells(frame: pd.DataFrame, column: str) -> list[Any]:
    values = frame[column].astype(object).where(frame[column].notna(), None)
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def difference(expected: pd.DataFrame, got: pd.DataFrame) -> str | None:
    """Where ``got`` differs from ``expected`` (columns, rows, a value beyond 1e-12), or None."""
    if list(expected.columns) != list(got.columns):
        return f"columns {list(expected.columns)} vs {list(got.columns)}"
    if len(expected) != len(got):
        return f"{len(expected)} rows vs {len(got)}"
    for column in expected.columns:
        for i, (a, b) in enumerate(zip(_cells(expected, column), _cells(got, column))):
            if a is None or b is None:
                same = a is None and b is None
            elif isinstance(a, (float, int)) and isinstance(b, (float, int)):
                same = math.isclose(float(a), float(b), rel_tol=RTOL, abs_tol=1e-300)
            else:
                same = str(a) == str(b)
            if not same:
                return f"column {column!r} row {i}: {a!r} (duckdb) vs {b!r} (datafusion)"
    return None


def probe(run: Probe, ctx: datafusion.SessionContext, con: duckdb.DuckDBPyConnection) -> str | None:
    """None when DataFusion's rows of ``run`` equal DuckDB's, else what differs or the error."""
    expected = con.execute(render_case(run, "duckdb")).fetch_df()
    try:
        got = ctx.sql(render_case(run, DIALECT)).to_pandas()
    except Exception as exc:  # DataFusion's own errors (planning, types): an outcome here
        return f"error: {str(exc).splitlines()[0][:300]}"
    return difference(expected, got)


# --------------------------------------------------------------------------- the engine
def test_datafusion_has_the_traps(datafusion_ctx: datafusion.SessionContext) -> None:
    """The semantics the probe relies on: if DataFusion lost one, the probe would no longer
    catch that trap (and this test says which)."""

    def one(sql: str) -> list[Any]:
        return list(datafusion_ctx.sql(sql).to_pandas().iloc[:, 0])

    # precedence: DuckDB reads (false is not distinct from false) and false = false
    assert one("select false is not distinct from false and false") == [True]
    assert duckdb.sql("select false is not distinct from false and false").fetchall() == [(False,)]
    # integer division
    assert one("select count(*) / count(*) * 0 + 7 / 2 from (values (1)) as v(a)") == [3]
    # the key of an outer using join: the left side's, NULL for a right-only row
    joined = (
        "select k from (values (1, 10)) as a(k, v) "
        "full join (values (1, 100), (3, 300)) as b(k, w) using (k) order by w"
    )
    assert [None if pd.isna(x) else x for x in one(joined)] == [1, None]
    assert duckdb.sql(joined).fetchall() == [(1,), (3,)]
    # a nested with reusing an enclosing name
    with pytest.raises(Exception, match="specified more than once"):
        one("with t as (select 1 as x) select * from (with t as (select 2 as x) select x from t)")


# --------------------------------------------------------------------------- the probe
def test_probe_covers_every_metric() -> None:
    assert {m for run in PROBED for m in run.case.metrics} == set(REGISTRY)
    assert {m for run in PROBED if len(run.by) == 2 for m in run.case.metrics} == set(REGISTRY)
    assert len(PROBED) > 100


@pytest.mark.parametrize("run", PROBED, ids=[r.id for r in PROBED])
def test_datafusion_equals_duckdb(
    run: Probe, datafusion_ctx: datafusion.SessionContext, duckdb_con: duckdb.DuckDBPyConnection
) -> None:
    assert probe(run, datafusion_ctx, duckdb_con) is None, run.id


# --------------------------------------------------------------------------- intervals
#: render(ci=) by two slice columns: each default interval method of a family (DeLong, the
#: t interval over groups, Wilson, ...), joined back to the point values by slice
CI_METRICS = (
    "auc", "gauc", "ndcg", "map", "mrr", "recall_at_k", "precision", "accuracy",
    # the means of per-row losses: their default t interval (issue 39) runs on DataFusion
    "log_loss", "brier_score",
)  # fmt: skip
#: intervals DataFusion cannot run for want of a function, not for a template bug: the
#: bootstrap's resampling hash is written with Trino's `mod` / `from_base`, which it lacks
CI_MISSING = {
    "hit_ratio": "Invalid function 'from_base'",
}


def render_ci(metric: str, dialect: str) -> str:
    spec = REGISTRY[metric]
    family = _family(spec)
    roles = {r.name for r in spec.roles}
    columns = {k: v for k, v in FAMILY_COLUMNS[family].items() if k in roles}
    return sqlmetrics.render(
        metric, "parity_run", by=["country", "part"], ci=0.9, dialect=dialect, **columns
    )


@pytest.mark.parametrize("metric", CI_METRICS)
def test_intervals_equal_duckdb(
    metric: str, datafusion_ctx: datafusion.SessionContext, duckdb_con: duckdb.DuckDBPyConnection
) -> None:
    expected = duckdb_con.execute(render_ci(metric, "duckdb")).fetch_df()
    got = datafusion_ctx.sql(render_ci(metric, DIALECT)).to_pandas()
    assert len(expected) == 9  # 3 x 3 slices, NULLs included
    assert difference(expected, got) is None


@pytest.mark.parametrize("metric", CI_MISSING)
def test_intervals_datafusion_cannot_run(
    metric: str, datafusion_ctx: datafusion.SessionContext, duckdb_con: duckdb.DuckDBPyConnection
) -> None:
    """The expected failures: still failing, and for the stated reason (DuckDB runs them)."""
    assert len(duckdb_con.execute(render_ci(metric, "duckdb")).fetch_df()) == 9
    with pytest.raises(Exception, match=CI_MISSING[metric]):
        datafusion_ctx.sql(render_ci(metric, DIALECT)).to_pandas()


# --------------------------------------------------------------------------- static checks
def _code(text: str) -> str:
    """A template without its comments (Jinja ``{# #}`` and SQL ``--``)."""
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    return re.sub(r"--[^\n]*", "", text)


def template_traps(root: Path) -> list[str]:
    """Each place under ``root`` (a copy of ``sql/``) that writes one of the traps: a bare
    ``is not distinct from`` (anywhere but the dialect macro behind ``null_safe_equal``), a
    ``null_safe_equal`` whose result is not parenthesized, a join ``using (...)``."""
    found = []
    for path in sorted(root.rglob("*.sql")):
        code = _code(path.read_text())
        name = path.relative_to(root).as_posix()
        for match in re.finditer(r"is\s+not\s+distinct\s+from", code, flags=re.I):
            line = code[: match.start()].count("\n") + 1
            owner = re.findall(r"\{%-?\s*macro\s+(\w+)", code[: match.start()])
            if not (
                name == "_macros/shared/dialect.sql" and owner[-1:] == ["default__null_safe_equal"]
            ):
                found.append(f"{name}:{line}: is not distinct from")
        for match in re.finditer(r"\busing\s*\(", code, flags=re.I):
            found.append(f"{name}:{code[: match.start()].count(chr(10)) + 1}: join using")
    dialect = _code((root / "_macros" / "shared" / "dialect.sql").read_text())
    wrapper = re.search(
        r"macro null_safe_equal\(a, b\) -%\}\s*(.*?)\s*\{%-? endmacro", dialect, re.S
    )
    if wrapper is None or not re.fullmatch(r"\(\{\{.*\}\}\)", wrapper.group(1)):
        found.append("_macros/shared/dialect.sql: null_safe_equal's result is not parenthesized")
    return found


def test_templates_write_no_trap() -> None:
    assert template_traps(SQL) == []


# --------------------------------------------------------------------------- the traps, injected
#: each trap as it was (or could be) written into a template: (file under sql/, the text as it
#: is, the trap, whether the static checks flag it, the cases the probe runs on it)
TRAPS: dict[str, tuple[str, str, str, bool, list[Probe]]] = {
    # null_safe_equal before the ClickHouse work (dffbbbf): auc's bucket join read
    # `slice_0 is not distinct from (p_slice_0 and bucket = p_bucket)` on DataFusion
    "null_safe_equal unparenthesized": (
        "_macros/shared/dialect.sql",
        "({{ adapter.dispatch('null_safe_equal', 'sqlmetrics')(a, b) }})",
        "{{ adapter.dispatch('null_safe_equal', 'sqlmetrics')(a, b) }}",
        True,
        [r for r in PROBED if len(r.by) == 2 and r.case.family == "binary"],
    ),
    # calibration's slice join before dffbbbf: a bare `is not distinct from` (and so, on
    # PostgreSQL, a nested loop); two slices chain two of them with `and`
    "bare is not distinct from": (
        "_macros/kernels/calibration.sql",
        "{{ sqlmetrics.null_safe_equal(left ~ '.slice_' ~ loop.index0, right ~ '.slice_' ~ "
        "loop.index0) }}",
        "{{ left }}.slice_{{ loop.index0 }} is not distinct from {{ right }}.slice_{{ "
        "loop.index0 }}",
        True,
        [r for r in PROBED if len(r.by) == 2 and r.case.family == "multiclass"],
    ),
    # a USING join on the slices: drops the NULL slice everywhere, and its key is the left
    # side's on DataFusion; caught by the static check
    "join using": (
        "_macros/kernels/ranking.sql",
        "left join aggregated on {{ sqlmetrics.join_on_slices('counted', 'aggregated', by) }}",
        "left join aggregated using ({{ sqlmetrics.slice_cols(by) }} n_rows)",
        True,
        [],
    ),
    # the shared division without its casts: count / count is an integer division there
    "integer division": (
        "_macros/shared/common.sql",
        "cast({{ num }} as {{ sqlmetrics.float_type() }}) / nullif(cast({{ den }} as "
        "{{ sqlmetrics.float_type() }}), 0)",
        "{{ num }} / nullif({{ den }}, 0)",
        False,
        [r for r in PROBED if r.id in ("binary[default]", "binary[threshold=0.3]")],
    ),
    # gini_index's catalog CTE was named `slices` inside evaluate's own `slices`
    "nested with reusing a name": (
        "beyond/gini_index.sql",
        "catalog_slices",
        "slices",
        False,
        [r for r in PROBED if r.case.family == "beyond"],
    ),
}


@pytest.fixture
def sql_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of sql/ that the templates are read from while the test runs."""
    root = tmp_path / "sql"
    shutil.copytree(SQL, root)
    monkeypatch.setattr(templates, "sql_dir", lambda: root)
    templates.environment.cache_clear()
    yield root
    monkeypatch.undo()
    templates.environment.cache_clear()


@pytest.mark.parametrize("trap", TRAPS)
def test_each_trap_is_caught(
    trap: str,
    sql_copy: Path,
    datafusion_ctx: datafusion.SessionContext,
    duckdb_con: duckdb.DuckDBPyConnection,
) -> None:
    """The trap written into a template: the static check flags it, or the probe finds a
    difference on DataFusion (where the trap is silent on DuckDB)."""
    file, now, trapped, static, cases = TRAPS[trap]
    path = sql_copy / file
    text = path.read_text()
    assert now in text, f"{trap}: sql/{file} no longer holds the text the trap replaces"
    path.write_text(text.replace(now, trapped))
    assert bool(template_traps(sql_copy)) == static, template_traps(sql_copy)
    if cases:
        found = [probe(run, datafusion_ctx, duckdb_con) for run in cases]
        assert any(found), f"{trap}: the probe finds no difference in {[r.id for r in cases]}"
    assert static or cases
