"""``sqlmetrics.report`` and ``sqlmetrics report``: the HTML page holds evaluate's numbers
exactly, escapes user data, and refuses bad arguments (the fast tier; the real-browser checks
are in tests/test_report_browser.py).

The page is read back with :mod:`html.parser`: a table cell's ``data-value`` is the exact value
(``repr`` of the float) and its text the value to 6 significant digits (report_html's
docstring).
"""

from __future__ import annotations

import math
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import chdb_table, quiet
from docpages import section

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.errors import InvalidDataError, InvalidParameterError, UndefinedMetricWarning

HOSTILE = '<script>alert("x")</script>'


class Page(HTMLParser):
    """The tables (by id: header texts, rows of (text, data-value)), the elements seen, the
    text of every <details>'s <code>."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, dict[str, Any]] = {}
        self.tags: list[str] = []
        self.captions: dict[str, str] = {}
        self.codes: list[str] = []
        self._table: str | None = None
        self._cell: dict[str, Any] | None = None
        self._in: str | None = None
        self._text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id") or f"table{len(self.tables)}"
            self.tables[self._table] = {"header": [], "rows": []}
        elif tag == "tr" and self._table is not None:
            self.tables[self._table]["rows"].append([])
        elif tag in ("td", "th", "caption", "code"):
            self._in, self._text = tag, []
            self._cell = {"value": a.get("data-value")}

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        text = "".join(self._text)
        if tag == "th" and self._table is not None:
            self.tables[self._table]["header"].append(text)
        elif tag == "td" and self._table is not None and self._cell is not None:
            self.tables[self._table]["rows"][-1].append((text, self._cell["value"]))
        elif tag == "caption" and self._table is not None:
            self.captions[self._table] = text
        elif tag == "code":
            self.codes.append(text)
        elif tag == "table":
            self._table = None
        if tag == self._in:
            self._in = None

    def rows(self, table: str) -> list[dict[str, tuple[str, str | None]]]:
        header = self.tables[table]["header"]
        return [dict(zip(header, row)) for row in self.tables[table]["rows"] if row]


def read(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def assert_cell(cell: tuple[str, str | None], value: Any) -> None:
    """A cell holds ``value`` exactly (data-value) and shows it as documented (text)."""
    text, exact = cell
    if isinstance(value, (float, np.floating)):
        assert exact is not None
        if math.isnan(value):
            assert (text, exact) == ("NaN", "NaN")
        else:
            assert float(exact) == float(value)  # the same float, bit for bit
            assert exact == repr(float(value))
            assert text == f"{float(value):.6g}"
    elif isinstance(value, (int, np.integer)):
        assert (text, exact) == (str(int(value)), str(int(value)))
    else:
        assert (text, exact) == (str(value), str(value))


@pytest.fixture
def events() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 400
    frame = pd.DataFrame(
        {
            "country": rng.choice(["DE", "FR", HOSTILE], n),
            "device": rng.choice(["app", "web"], n),
            "user": rng.integers(0, 30, n),
            "label": rng.integers(0, 2, n),
            "a": rng.random(n).round(2),  # ties
            "b": rng.random(n),
        }
    )
    frame["score"] = frame["a"]
    # one slice with a single class: auc undefined (NaN) there
    frame.loc[(frame.country == "FR") & (frame.device == "web"), "label"] = 1
    return frame


def test_the_table_holds_evaluates_frame_exactly(events: pd.DataFrame, tmp_path: Path) -> None:
    metrics = ["auc", "gauc", "log_loss", "accuracy"]
    kwargs: dict[str, Any] = dict(by=["country", "device"], group="user", ci=0.9)
    expected = quiet(sqlmetrics.evaluate, events, metrics, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = sqlmetrics.report(events, metrics, path=tmp_path / "r.html", **kwargs)
    assert any(issubclass(w.category, UndefinedMetricWarning) for w in caught)  # passed on
    page = read(path)
    rows = page.rows("metrics-table")
    slices = ["country", "device"]
    columns = [c for c in expected.columns if c not in ("n_rows", "n_groups")]
    assert page.tables["metrics-table"]["header"] == columns
    assert len(rows) == len(expected) == 6
    assert any(math.isnan(v) for v in expected["auc"])  # the undefined slice is there
    for row, (_, want) in zip(rows, expected.iterrows()):
        for column in columns:
            assert_cell(row[column], want[column])
    counts = page.rows("counts-table")
    for row, (_, want) in zip(counts, expected.iterrows()):
        for column in [*slices, "n_rows", "n_groups"]:
            assert_cell(row[column], want[column])
    # the page lists the warnings too
    assert "auc is undefined in 1 of 6 slice(s)" in path.read_text()


def test_skipped_groups_per_slice_with_their_reason(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "country": ["DE"] * 6 + ["FR"] * 4,
            "user": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
            "label": [1, 0, 1, 1, 0, 1, 1, 0, 0, 1],  # DE: user 2 has one class
            "score": [0.9, 0.1, 0.4, 0.6, 0.3, 0.8, 0.7, 0.2, 0.5, 0.6],
        }
    )
    path = sqlmetrics.report(frame, ["gauc"], group="user", by="country", path=tmp_path / "g.html")
    rows = read(path).rows("counts-table")
    assert [r["country"][0] for r in rows] == ["DE", "FR"]
    assert [r["n_groups_total"][1] for r in rows] == ["3", "2"]
    assert [r["n_groups"][1] for r in rows] == ["2", "2"]
    assert [r["skipped"][1] for r in rows] == ["1", "0"]
    assert rows[0]["reason"][0] == "gauc: 1 with one class only (all positive or all negative)"
    assert rows[1]["reason"][0] == "none skipped"


def test_ranking_skips_and_no_curves(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "q": [1, 1, 1, 2, 2, 3, 3],
            "doc": [1, 2, 3, 1, 2, 1, 2],
            "label": [1, 0, 1, 0, 0, 1, 0],  # q2: no relevant item
            "score": [0.3, 0.2, 0.9, 0.5, 0.4, 0.1, 0.7],
        }
    )
    both = ["ndcg@2", "gauc"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sqlmetrics.evaluate(frame, both, group="q", item="doc")
        path = sqlmetrics.report(frame, both, group="q", item="doc", path=tmp_path / "k.html")
    page = read(path)
    (row,) = page.rows("counts-table")
    assert_cell(row["n_groups_ndcg@2"], expected["n_groups_ndcg@2"][0])
    assert_cell(row["skipped_ndcg@2"], 1)
    assert row["reason"][0].startswith("ndcg@2: 1 with no relevant item (empty='skip')")
    assert "gauc: 1 with one class only" in row["reason"][0]
    assert "No plots: ranking metrics are requested" in path.read_text()
    assert "svg" not in page.tags


def test_hostile_values_and_names_stay_text(events: pd.DataFrame, tmp_path: Path) -> None:
    hostile_column = '"><img src=x onerror=alert(1)>'
    frame = events.rename(columns={"device": hostile_column})
    path = quiet(
        sqlmetrics.report,
        frame,
        ["auc"],
        by=["country", hostile_column],
        title="<b>title</b>",
        path=tmp_path / "h.html",
    )
    text = path.read_text()
    page = read(path)
    assert page.tags.count("script") == 1  # ours: the sorting
    assert "img" not in page.tags and "b" not in page.tags
    assert HOSTILE not in text and "<img" not in text
    assert hostile_column in page.tables["metrics-table"]["header"]
    values = [r["country"] for r in page.rows("metrics-table")]
    assert (HOSTILE, HOSTILE) in values  # shown and held as text
    assert any(HOSTILE in code for code in page.codes) is False  # the SQL names no value
    assert any(hostile_column in code for code in page.codes)  # the column, quoted, as text


def test_comparison_of_models_holds_compares_values(events: pd.DataFrame, tmp_path: Path) -> None:
    metrics = ["auc", "log_loss", "expected_calibration_error"]
    path = quiet(
        sqlmetrics.report, events, metrics, by="device", scores=["a", "b"], path=tmp_path / "c.html"
    )
    expected = quiet(sqlmetrics.compare, events, metrics[:2], by="device", scores=["a", "b"])
    page = read(path)
    rows = page.rows("comparison-table")
    assert len(rows) == len(expected) == 8
    for row, (_, want) in zip(rows, expected.iterrows()):
        for column in ("metric", "model", "value", "diff", "p_value", "p_adjusted"):
            assert_cell(row[column], want[column])
    assert "Not compared (no paired test): expected_calibration_error" in path.read_text()
    # the table has a row per (slice, model), each model's evaluate values
    table = page.rows("metrics-table")
    assert [(r["device"][0], r["model"][0]) for r in table] == [
        ("app", "a"),
        ("app", "b"),
        ("web", "a"),
        ("web", "b"),
    ]
    for model in ("a", "b"):
        want = quiet(sqlmetrics.evaluate, events, metrics, by="device", score=model)
        got = [r for r in table if r["model"][0] == model]
        for row, (_, w) in zip(got, want.iterrows()):
            for column in metrics:
                assert_cell(row[column], w[column])


def test_curves_plots_settings_sql_and_print(events: pd.DataFrame, tmp_path: Path) -> None:
    path = quiet(
        sqlmetrics.report,
        events,
        ["auc"],
        by="country",
        max_slices=2,
        convention="sklearn",
        path=tmp_path / "p.html",
    )
    text = path.read_text()
    page = read(path)
    assert page.tags.count("svg") == 2 * 4  # 2 slices x ROC, PR, calibration, gains
    assert page.tags.count("figure") == 2
    assert "Plots of the 2 largest of 3 slice(s) by rows." in text
    assert "<dt>convention</dt><dd>&#x27;sklearn&#x27;</dd>" in text
    assert f"<dt>engine</dt><dd>duckdb {__import__('duckdb').__version__}</dd>" in text
    assert "@media print" in text
    assert page.tags.count("details") == 5  # evaluate, the 4 curves
    assert not any("not rendered" in code for code in page.codes)
    assert "as &quot;auc&quot;" in text or 'as "auc"' in "".join(page.codes)
    # self-contained: nothing is fetched
    assert not re.search(r"""(src|href)\s*=|@import|url\(""", text)
    assert set(re.findall(r"https?://[^\s\"']+", text)) == {"http://www.w3.org/2000/svg"}
    assert all(page.captions.get(t) for t in page.tables)


def test_a_plot_that_cannot_be_drawn_is_named(tmp_path: Path) -> None:
    frame = pd.DataFrame({"label": [0, 1, 0, 1], "score": [-2.0, 3.0, 0.5, 1.5]})
    path = sqlmetrics.report(frame, ["auc"], path=tmp_path / "s.html")
    text = path.read_text()
    assert "Calibration: not drawn:" in text
    assert read(path).tags.count("svg") == 3
    with pytest.raises(InvalidDataError, match=r"\[0, 1\]"):
        sqlmetrics.report(frame, ["auc"], curves=True, path=tmp_path / "s2.html")
    path = sqlmetrics.report(frame, ["auc"], curves=False, path=tmp_path / "s3.html")
    assert "svg" not in read(path).tags


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": []}, r"metrics=\[\] names no metric; pass at least one"),
        ({"path": "{tmp}/missing/r.html"}, r"its directory .*missing' does not exist; create"),
        ({"path": "{tmp}"}, r"is a directory; pass a file name in it, e\.g\. path="),
        ({"path": 3}, r"path=3 must be a file name, e\.g\. path='report\.html'"),
        ({"scores": ["a"]}, r"scores=\['a'\] needs at least two different score columns"),
        ({"scores": "a"}, r"scores='a' must be a list of score columns"),
        ({"max_slices": 0}, r"max_slices=0 must be an integer >= 1"),
        ({"curves": "yes"}, r"curves='yes' must be True, False or None"),
        ({"metrics": ["aucc"]}, r"report: unknown metric 'aucc'; did you mean 'auc'\?"),
    ],
)
def test_bad_arguments(events: pd.DataFrame, tmp_path: Path, kwargs: Any, message: str) -> None:
    args: dict[str, Any] = {"metrics": ["auc"], "path": tmp_path / "r.html", **kwargs}
    if isinstance(args["path"], str):
        args["path"] = args["path"].format(tmp=tmp_path)
    with pytest.raises(sqlmetrics.SqlMetricsError, match=message):
        sqlmetrics.report(events, **args)


def test_a_path_that_cannot_be_written(events: pd.DataFrame) -> None:
    # /proc refuses new files even to root (os.access may say yes: the write itself fails)
    with pytest.raises(InvalidParameterError, match=r"path='/proc/r\.html' .*writ"):
        quiet(sqlmetrics.report, events, ["auc"], path="/proc/r.html")


def test_the_command_line_writes_the_page(events: pd.DataFrame, tmp_path: Path) -> None:
    data = tmp_path / "events.parquet"
    events.to_parquet(data)
    out = tmp_path / "cli.html"
    args = [str(data), "-m", "auc", "-m", "gauc", "--group", "user", "--by", "country"]
    result = CliRunner().invoke(cli.main, ["report", *args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    expected = quiet(sqlmetrics.evaluate, str(data), ["auc", "gauc"], group="user", by="country")
    page = read(out)
    for row, (_, want) in zip(page.rows("metrics-table"), expected.iterrows()):
        for column in ("country", "auc", "gauc"):
            assert_cell(row[column], want[column])
    assert f"<dt>data</dt><dd>&#x27;{data}&#x27;</dd>" in out.read_text()
    # several models, and a bad flag: one line, exit 2
    models = ["--model", "a", "--model", "b"]
    result = CliRunner().invoke(cli.main, ["report", *args, *models, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "comparison-table" in read(out).tables
    result = CliRunner().invoke(cli.main, ["report", *args, "--model", "a", "-o", str(out)])
    assert result.exit_code == 2
    assert "--model a: give at least two --model columns" in result.output
    result = CliRunner().invoke(cli.main, ["report", str(data), "-m", "auc", "--option", "path=x"])
    assert result.exit_code == 2
    assert "path is set by -o/--output, not by --option" in result.output


def test_the_sites_example(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[1]
    (block,) = re.findall(r"```python\n(.*?)\n```", section("HTML report"), flags=re.S)
    monkeypatch.chdir(root)
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the example does not warn
        exec(compile(block, "docs/recipes/html-report.md", "exec"), namespace)
    clicks = namespace["clicks"]
    kwargs: dict[str, Any] = dict(label="click", group="user_id", by="country", ci=0.95)
    page = read(namespace["page"])
    rows = page.rows("metrics-table")
    for model in ("pctr", "pctr_coarse"):
        want = sqlmetrics.evaluate(clicks, ["auc", "gauc", "log_loss"], score=model, **kwargs)
        got = [r for r in rows if r["model"][0] == model]
        assert len(got) == len(want) == 3
        for row, (_, w) in zip(got, want.iterrows()):
            for column in ("country", "auc", "auc_lo", "gauc_hi", "log_loss"):
                assert_cell(row[column], w[column])
    assert len(page.rows("comparison-table")) == 3 * 3 * 2


@pytest.mark.parametrize("engine", ["postgres", "spark", "clickhouse"])
def test_on_another_engine_the_page_holds_its_evaluate(
    engine: str, events: pd.DataFrame, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # the same SQL on the engine: the page holds exactly what evaluate gives there
    frame = events.drop(columns="country").iloc[:200]
    if engine == "postgres":
        import sqlalchemy

        con = request.getfixturevalue("pg_engine")
        frame.to_sql("report_events", con, index=False, if_exists="replace")
        table = "report_events"
    elif engine == "clickhouse":
        con = request.getfixturevalue("chdb_session")
        chdb_table(con, "report_events", frame)
        table = "report_events"
    else:
        con = request.getfixturevalue("spark")
        con.createDataFrame(frame).createOrReplaceTempView("report_events")
        table = "report_events"
    kwargs: dict[str, Any] = dict(by="device", group="user", con=con)
    try:
        want = quiet(sqlmetrics.evaluate, table, ["auc", "gauc"], **kwargs)
        path = quiet(sqlmetrics.report, table, ["auc", "gauc"], path=tmp_path / "e.html", **kwargs)
    finally:
        if engine == "postgres":
            with con.begin() as c:
                c.execute(sqlalchemy.text("drop table if exists report_events"))
        elif engine == "clickhouse":
            con.query("DROP TABLE IF EXISTS report_events")
        else:
            con.catalog.dropTempView("report_events")
    page = read(path)
    rows = page.rows("metrics-table")
    assert len(rows) == len(want) == 2
    for row, (_, w) in zip(rows, want.iterrows()):
        for column in ("device", "auc", "gauc"):
            assert_cell(row[column], w[column])
    for row, (_, w) in zip(page.rows("counts-table"), want.iterrows()):
        assert_cell(row["n_groups"], w["n_groups"])
    text = path.read_text()
    assert re.search(rf"<dt>engine</dt><dd>{engine} \d+\.\d+", text)
    # the SQL behind the numbers is the engine's own dialect (ClickHouse's, not DuckDB's)
    quoted = "`device`" if engine == "spark" else '"device"'
    assert quoted in page.codes[0]
    assert page.codes[0] == sqlmetrics.render_evaluate(
        table, ["auc", "gauc"], by="device", group="user", dialect=engine
    )
    assert page.tags.count("svg") == 2 * 4


def test_with_qrels_the_page_holds_evaluates_values(tmp_path: Path) -> None:
    run = pd.DataFrame({"q": [1, 1, 2, 2], "doc": [1, 2, 1, 3], "score": [0.9, 0.2, 0.4, 0.8]})
    qrels = pd.DataFrame({"q": [1, 2, 2], "doc": [2, 3, 4], "label": [1, 2, 1]})
    kwargs: dict[str, Any] = dict(group="q", item="doc", qrels=qrels, empty="zero")
    want = sqlmetrics.evaluate(run, ["ndcg@2", "mrr"], **kwargs)
    path = sqlmetrics.report(run, ["ndcg@2", "mrr"], path=tmp_path / "q.html", **kwargs)
    page = read(path)
    (row,) = page.rows("metrics-table")
    for column in ("ndcg@2", "mrr"):
        assert_cell(row[column], want[column][0])
    # the SQL of a DataFrame's judgments cannot be named: said, not rendered without them
    assert page.codes == ["-- not rendered: qrels= is not a table name or a file path"]


def test_a_librarys_own_warning_is_passed_on_but_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warning raised inside the computation by an engine's client or a library (PySpark
    warns about its pandas version on every toPandas) is no finding about the data: the page
    shows sqlmetrics' own warnings only; the caller still receives both."""
    from sqlmetrics._evaluate import report as report_module

    real = report_module.evaluate

    def noisy(*args: Any, **kwargs: Any) -> Any:
        warnings.warn("a client library's own deprecation", FutureWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(report_module, "evaluate", noisy)
    frame = pd.DataFrame({"label": [1, 1, 1], "score": [0.2, 0.4, 0.9]})  # no negative
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = sqlmetrics.report(frame, ["auc"], path=tmp_path / "r.html")
    page = path.read_text(encoding="utf-8")
    assert {w.category for w in caught} >= {FutureWarning, UndefinedMetricWarning}
    assert "auc is undefined" in page
    assert "client library" not in page


# ----------------------------------------------------------------------- the operating points
OPERATING = ("recall_at_precision", "precision_at_recall", "tpr_at_fpr")
LEVELS: dict[str, Any] = dict(min_precision=0.8, min_recall=0.6, max_fpr=0.2)


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The statements the DuckDB backend executes, ``(method, sql)``, each registered
    relation's generated name read as "source_table" (render's name for the input)."""
    from sqlmetrics._backends.duckdb_backend import DuckDBBackend

    seen: list[tuple[str, str]] = []
    for name in ("query", "rows", "columns"):
        original = getattr(DuckDBBackend, name)

        def spy(self: Any, sql: str, _original: Any = original, _name: str = name) -> Any:
            seen.append((_name, re.sub(r'"__sqlmetrics_[0-9a-f]+"', '"source_table"', sql)))
            return _original(self, sql)

        monkeypatch.setattr(DuckDBBackend, name, spy)
    return seen


def test_the_operating_points_are_operating_points_values(
    events: pd.DataFrame, tmp_path: Path
) -> None:
    metrics = ["auc", "tpr_at_fpr", "recall_at_precision", "precision_at_recall"]
    kwargs: dict[str, Any] = dict(by=["country", "device"], weight="w", **LEVELS)
    events = events.assign(w=np.random.default_rng(1).random(len(events)).round(1))
    where = "b > 0.2"  # every part of the page reads these rows: the operating points too
    rows_kept = events[events["b"] > 0.2]
    path = quiet(
        sqlmetrics.report, events, metrics, where=where, path=tmp_path / "o.html", **kwargs
    )
    want = quiet(sqlmetrics.operating_points, rows_kept, **kwargs)
    table = quiet(sqlmetrics.evaluate, rows_kept, metrics, **kwargs)
    page = read(path)
    header = page.tables["operating-table"]["header"]
    assert header == ["country", "device", "metric", "level", "value", "threshold"]
    rows = page.rows("operating-table")
    assert len(rows) == 3 * len(want) == 3 * 6
    levels = {"tpr_at_fpr": "max_fpr=0.2", "recall_at_precision": "min_precision=0.8"}
    levels["precision_at_recall"] = "min_recall=0.6"
    metric_rows = page.rows("metrics-table")
    for i, (_, w) in enumerate(want.iterrows()):
        got = rows[3 * i : 3 * i + 3]
        assert [r["metric"][0] for r in got] == metrics[1:]  # in the order of metrics=
        for row, name in zip(got, metrics[1:]):
            for column in ("country", "device"):
                assert_cell(row[column], w[column])
                assert row[column] == metric_rows[i][column]  # shown as the metrics table does
            assert_cell(row["level"], levels[name])
            assert_cell(row["value"], w[name])
            assert_cell(row["threshold"], w[f"{name}_threshold"])
            # the value is the metrics table's, bit for bit (evaluate's own statement)
            assert row["value"] == metric_rows[i][name]
            assert_cell(row["value"], table[name].iloc[i])
    # undefined points (FR/web has no negative: no FPR) shown as NaN, as elsewhere
    assert ("NaN", "NaN") in [r["value"] for r in rows if r["metric"][0] == "tpr_at_fpr"]
    assert ("NaN", "NaN") in [r["threshold"] for r in rows]
    assert (HOSTILE, HOSTILE) in [r["country"] for r in rows]  # escaped: held as text
    assert HOSTILE not in path.read_text()
    assert "operating-table" in re.findall(
        r'<table id="([^"]+)" class="sortable"', path.read_text()
    )
    # the SQL behind it: operating_points' own at the page's levels, over the rows kept
    rendered = sqlmetrics.render("operating_points", **kwargs)
    assert f"-- over the rows where ({where})\n{rendered}" in page.codes


def test_the_operating_points_are_one_statement_per_model(
    statements: list[tuple[str, str]], tmp_path: Path
) -> None:
    """Beyond evaluate's statements (its checks included) the page reads the data once per
    model for the operating points (the data's column lookup aside): no check again."""
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame(
        {
            "g": rng.choice(["x", "y"], n),
            "label": rng.integers(0, 2, n),
            "a": rng.random(n),
            "b": rng.random(n),
        }
    )
    metrics = ["average_precision", "precision_at_recall"]  # no paired test: no compare
    for scores in (["a"], ["a", "b"]):
        several = {"scores": scores} if len(scores) > 1 else {"score": scores[0]}
        statements.clear()
        for model in scores:
            quiet(sqlmetrics.evaluate, frame, metrics, by="g", score=model, min_recall=0.7)
        alone = list(statements)
        statements.clear()
        quiet(
            sqlmetrics.report,
            frame,
            metrics,
            by="g",
            min_recall=0.7,
            curves=False,
            path=tmp_path / "one.html",
            **several,
        )
        assert statements[: len(alone)] == alone
        more = [sql for method, sql in statements[len(alone) :] if method != "columns"]
        assert more == [
            sqlmetrics.render("operating_points", by="g", score=m, min_recall=0.7) for m in scores
        ]
    # without an operating-point metric: no statement, no section, no SQL of it
    statements.clear()
    quiet(sqlmetrics.evaluate, frame, ["log_loss", "partial_auc"], by="g", score="a", max_fpr=0.2)
    alone = list(statements)
    statements.clear()
    path = quiet(
        sqlmetrics.report,
        frame,
        ["log_loss", "partial_auc"],
        by="g",
        score="a",
        max_fpr=0.2,
        curves=False,
        path=tmp_path / "none.html",
    )
    assert [s for s in statements[len(alone) :] if s[0] != "columns"] == []
    text = path.read_text()
    page = read(path)
    assert "operating-table" not in page.tables and 'id="operating"' not in text
    assert "Operating points" not in text and "operating_points" not in text  # nor its SQL


def test_the_operating_points_of_several_models_with_a_null_slice(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    n = 500
    frame = pd.DataFrame(
        {
            "country": rng.choice(["DE", "FR", None], n),
            "label": rng.integers(0, 2, n),
            "a": rng.random(n).round(2),
            "b": rng.random(n),
        }
    )
    path = quiet(
        sqlmetrics.report,
        frame,
        ["auc", "recall_at_precision"],
        by="country",
        scores=["a", "b"],
        min_precision=0.55,
        path=tmp_path / "null.html",
    )
    page = read(path)
    assert page.tables["operating-table"]["header"] == [
        "country",
        "model",
        "metric",
        "level",
        "value",
        "threshold",
    ]
    rows = page.rows("operating-table")
    metric_rows = page.rows("metrics-table")
    assert len(rows) == len(metric_rows) == 3 * 2
    # auc is compared, min_precision= (recall_at_precision's) is no option of compare's
    assert len(page.rows("comparison-table")) == 3 * 2
    for model in ("a", "b"):
        want = quiet(
            sqlmetrics.operating_points, frame, score=model, by="country", min_precision=0.55
        )
        assert want["country"].isna().iloc[-1]  # the NULL slice, last as in evaluate's frame
        got = [r for r in rows if r["model"][0] == model]
        shown = [r for r in metric_rows if r["model"][0] == model]
        assert len(got) == len(want) == 3
        for row, table_row, (_, w) in zip(got, shown, want.iterrows()):
            assert row["country"] == table_row["country"]  # a NULL slice read as the page does
            assert_cell(row["level"], "min_precision=0.55")
            assert_cell(row["value"], w["recall_at_precision"])
            assert_cell(row["threshold"], w["recall_at_precision_threshold"])
            assert row["value"] == table_row["recall_at_precision"]
        assert got[-1]["country"] == ("NULL", "")  # the NULL slice shown as NULL in both tables
    assert [r["country"] for r in rows][-1] == metric_rows[-1]["country"]


# ------------------------------------------------------------------ the metrics over time (day=)
#: the days of ``daily_events`` whose DE scores are noise: AUC drops and log loss rises there
BAD_DAYS = (30, 36)


def daily_rows(n_days: int = 40, n: int = 150, seed: int = 11) -> pd.DataFrame:
    """Rows over ``n_days`` days in two countries (one of them a hostile string); in DE the
    scores of ``BAD_DAYS`` are near noise."""
    rng = np.random.default_rng(seed)
    parts = []
    for d in range(n_days):
        for country in ("DE", HOSTILE):
            label = rng.integers(0, 2, n)
            spread = 6.0 if country == "DE" and d in BAD_DAYS else 1.0
            logit = label * 1.6 - 0.8 + rng.normal(0, spread, n)
            parts.append(
                pd.DataFrame(
                    {
                        "day": pd.Timestamp("2026-01-01") + pd.Timedelta(days=d),
                        "country": country,
                        "label": label,
                        "score": 1 / (1 + np.exp(-logit)),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def daily_events() -> pd.DataFrame:
    return daily_rows()


def anomaly_markers(text: str) -> list[str]:
    """The days of the flagged markers drawn in the page's charts."""
    return re.findall(r'<circle class="anomaly" data-day="([^"]*)"', text)


def test_the_flagged_days_are_metric_anomalies_rows(
    daily_events: pd.DataFrame, tmp_path: Path
) -> None:
    metrics = ["auc", "log_loss"]
    monitor = {"window": 21, "min_history": 7}
    path = quiet(
        sqlmetrics.report,
        daily_events,
        metrics,
        by="country",
        ci=0.9,
        day="day",
        monitor=monitor,
        path=tmp_path / "t.html",
    )
    text = path.read_text()
    page = read(path)
    daily = quiet(sqlmetrics.evaluate, daily_events, metrics, by=["day", "country"], ci=0.9)
    want = []
    summary = []
    for metric in metrics:
        scored = sqlmetrics.metric_anomalies(
            daily, metric, day="day", by="country", ci_level=0.9, **monitor
        )
        want += [(metric, r) for _, r in scored[scored["anomaly"]].iterrows()]
        for country, part in scored.groupby("country", sort=False):
            summary.append((metric, country, part))
    # the data has its bad days: each metric flags some, in DE
    assert {m for m, _ in want} == set(metrics)
    assert {r["country"] for _, r in want} == {"DE"}
    rows = page.rows("anomalies-table")
    assert page.tables["anomalies-table"]["header"] == [
        "metric", "country", "day", "value", "lo", "hi", "n_rows", "baseline", "band_lo",
        "band_hi", "z", "deviation",
    ]  # fmt: skip
    assert len(rows) == len(want)
    for row, (metric, w) in zip(rows, want):
        assert row["metric"][0] == metric
        assert row["day"][0] == w["day"].strftime("%Y-%m-%d")
        for column in ("country", "value", "lo", "hi", "n_rows", "baseline", "band_lo"):
            assert_cell(row[column], w[column])
        for column in ("band_hi", "z", "deviation"):
            assert_cell(row[column], w[column])
    # every series: its counts; all four drawn, a chart each, a marker per flagged day
    series = page.rows("series-table")
    assert len(series) == len(summary) == 4
    for row, (metric, country, part) in zip(series, summary):
        assert (row["metric"][0], row["country"][0]) == (metric, country)
        assert_cell(row["days"], len(part))
        assert_cell(row["scored"], int((part["status"] == "scored").sum()))
        assert_cell(row["flagged"], int(part["anomaly"].sum()))
        assert row["drawn"][0] == "yes"
    assert text.count('class="series-chart"') == 4
    assert sorted(anomaly_markers(text)) == sorted(w["day"].strftime("%Y-%m-%d") for _, w in want)
    assert text.count('<polygon class="band"') >= 4
    assert "Charts of 4 of 4 series" in text
    assert "Flagged direction: auc: drop, log_loss: rise." in text
    # accessible: each chart names itself and its flagged days; the tooltips hold the numbers
    first = want[0][1]
    day_text = first["day"].strftime("%Y-%m-%d")
    assert re.search(
        rf'aria-label="auc, country = DE: 40 days, \d+ flagged \([^"]*{day_text}', text
    )
    assert f"<title>{day_text}: auc = {first['value']:.4g} (interval" in text
    assert f"z = {first['z']:.4g}; flagged: drop</title>" in text
    # the hostile slice value is text in titles, captions and labels
    assert HOSTILE not in text and page.tags.count("script") == 1
    assert "<dt>day</dt><dd>&#x27;day&#x27;</dd>" in text
    (daily_sql,) = [c for c in page.codes if "metric_anomalies(<this table>" in c]
    assert "day='day', by=['country'], ci_level=0.9, **monitor)" in daily_sql
    assert 'slice_0 as "day"' in daily_sql and 'slice_1 as "country"' in daily_sql


def test_no_time_series_without_day(daily_events: pd.DataFrame, tmp_path: Path) -> None:
    path = quiet(sqlmetrics.report, daily_events, ["auc"], by="country", path=tmp_path / "n.html")
    text = path.read_text()
    assert 'id="timeseries"' not in text and "series-chart" not in text
    assert "anomalies-table" not in read(path).tables
    assert "<dt>day</dt>" not in text


def test_the_charts_are_capped_flagged_series_first(
    daily_events: pd.DataFrame, tmp_path: Path
) -> None:
    path = quiet(
        sqlmetrics.report,
        daily_events,
        ["auc", "log_loss"],
        by="country",
        day="day",
        max_series=1,
        monitor={"direction": "rise"},  # auc: only a rise is flagged now, log_loss: a rise
        path=tmp_path / "m.html",
    )
    text = path.read_text()
    series = read(path).rows("series-table")
    drawn = [(r["metric"][0], r["country"][0]) for r in series if r["drawn"][0] == "yes"]
    flagged = [(r["metric"][0], r["country"][0]) for r in series if r["flagged"][1] != "0"]
    assert len(drawn) == 1 and drawn[0] in flagged
    assert text.count('class="series-chart"') == 1
    assert "Charts of 1 of 4 series" in text
    assert "Flagged direction: auc: rise, log_loss: rise." in text
    assert "<dt>max_series</dt><dd>1</dd>" in text


def test_several_models_a_series_each_and_a_null_day(tmp_path: Path) -> None:
    frame = daily_rows(n_days=12, n=60, seed=2)
    frame["coarse"] = frame["score"].round(1)
    frame.loc[frame.index[:50], "day"] = pd.NaT
    path = quiet(
        sqlmetrics.report,
        frame,
        ["auc"],
        scores=["score", "coarse"],
        day="day",
        monitor={"min_history": 3, "window": 5},
        path=tmp_path / "s.html",
    )
    text = path.read_text()
    page = read(path)
    series = page.rows("series-table")
    assert [r["model"][0] for r in series] == ["score", "coarse"]
    assert text.count('class="series-chart"') == 2
    assert "Left out: 100 rows with a NULL day." in text  # 50 per model's daily table
    daily = quiet(sqlmetrics.evaluate, frame, ["auc"], by=["day"], ci=0.95, score="coarse")
    scored = sqlmetrics.metric_anomalies(
        daily[daily["day"].notna()], "auc", min_history=3, window=5
    )
    assert_cell(series[1]["scored"], int((scored["status"] == "scored").sum()))
    assert_cell(series[1]["days"], 12)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"day": 3}, InvalidParameterError, r"report: day=3 must be the name of the day column"),
        (
            {"day": "dy"},
            sqlmetrics.errors.ColumnNotFoundError,
            r"report: day='dy' is not a column of data=.*; did you mean day='day'\? pass the "
            r"day column \(a DATE or TIMESTAMP\)",
        ),
        (
            {"day": "country", "by": "country"},
            InvalidParameterError,
            r"report: day='country' is also in by=\['country'\]; .* leave 'country' out of by=",
        ),
        (
            {"day": "label"},
            InvalidDataError,
            r"report: day='label' has type BIGINT; day= must name a DATE or TIMESTAMP column: "
            r"convert it first \(pandas: frame\['label'\] = pd.to_datetime",
        ),
        (
            {"monitor": {"window": 7}},
            InvalidParameterError,
            r"report: monitor=\{'window': 7\} needs day=, the day column .* e\.g\. day='day'",
        ),
        (
            {"day": "day", "monitor": {"windo": 7}},
            InvalidParameterError,
            r"'windo' is not an option of metric_anomalies .*\(did you mean 'window'\?\); pass "
            r"some of window, seasonality",
        ),
        (
            {"day": "day", "monitor": {"ci_level": 0.9}},
            InvalidParameterError,
            r"'ci_level' is not an option .* \(report sets it: day=, by=, ci=\)",
        ),
        (
            {"day": "day", "monitor": {"window": 0}},
            InvalidParameterError,
            r"report: monitor=\{'window': 0\}: metric_anomalies: window=0 must be an integer",
        ),
        (
            {"day": "day", "monitor": {"seasonality": "week"}},
            InvalidParameterError,
            r"seasonality='week' is not one of None, 'weekday'",
        ),
        (
            {"day": "day", "monitor": ["window"]},
            InvalidParameterError,
            r"monitor=\['window'\] must be a dict of metric_anomalies' options",
        ),
        (
            {"day": "day", "max_series": 0},
            InvalidParameterError,
            r"max_series=0 must be an integer >= 1",
        ),
    ],
)
def test_bad_day_and_monitor(
    daily_events: pd.DataFrame, tmp_path: Path, kwargs: Any, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        sqlmetrics.report(daily_events, ["auc"], path=tmp_path / "b.html", **kwargs)
    assert not (tmp_path / "b.html").exists()  # refused before anything ran


def test_the_command_line_draws_the_series(daily_events: pd.DataFrame, tmp_path: Path) -> None:
    data = tmp_path / "daily.parquet"
    daily_events.to_parquet(data)
    out = tmp_path / "cli.html"
    args = [str(data), "-m", "auc", "--by", "country", "--day", "day", "-o", str(out)]
    watch = ["--monitor", "window=21", "--monitor", "direction=both"]
    result = CliRunner().invoke(cli.main, ["report", *args, *watch])
    assert result.exit_code == 0, result.output
    daily = quiet(sqlmetrics.evaluate, str(data), ["auc"], by=["day", "country"], ci=0.95)
    scored = sqlmetrics.metric_anomalies(daily, "auc", by="country", window=21, direction="both")
    flagged = scored[scored["anomaly"]]
    assert len(flagged) > 0
    rows = read(out).rows("anomalies-table")
    assert [(r["country"][0], r["day"][0]) for r in rows] == [
        (c, d.strftime("%Y-%m-%d")) for c, d in zip(flagged["country"], flagged["day"])
    ]
    for row, (_, w) in zip(rows, flagged.iterrows()):
        assert_cell(row["z"], w["z"])
    for bad, said in (
        (["--monitor", "window=21"], "--monitor window=21: the series need --day"),
        (["--day", "day", "--monitor", "window"], "--monitor 'window': write NAME=VALUE"),
        (["--day", "dy"], "report: --day 'dy' is not a column of DATA"),
        (["--day", "day", "--monitor", "window=0"], "window=0 must be an integer >= 1"),
    ):
        plain = [a for a in args if a not in ("--day", "day")]
        result = CliRunner().invoke(cli.main, ["report", *plain, *bad])
        assert result.exit_code == 2, result.output
        assert said in result.output


def test_the_sites_time_series_example(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[1]
    (block,) = re.findall(r"```python\n(.*?)\n```", section("Metrics over time"), flags=re.S)
    monkeypatch.chdir(root)
    namespace: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the example does not warn
        exec(compile(block, "docs/recipes/html-report.md", "exec"), namespace)
    daily = sqlmetrics.evaluate(namespace["rows"], ["auc", "log_loss"], by="day", ci=0.95)
    want = []
    for metric in ("auc", "log_loss"):
        scored = sqlmetrics.metric_anomalies(daily, metric, window=21)
        want += [(metric, d.strftime("%Y-%m-%d")) for d in scored.loc[scored["anomaly"], "day"]]
    rows = read(namespace["page"]).rows("anomalies-table")
    assert [(r["metric"][0], r["day"][0]) for r in rows] == want
    assert want == [("auc", "2026-04-02"), ("log_loss", "2026-04-02")]
