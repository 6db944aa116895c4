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
from conftest import quiet
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


@pytest.mark.parametrize("engine", ["postgres", "spark"])
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
    quoted = '"device"' if engine == "postgres" else "`device`"  # the engine's dialect
    assert quoted in page.codes[0]
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
