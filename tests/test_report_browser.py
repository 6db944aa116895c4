"""The report page in a real browser: Debian's ``chromium`` in headless mode (``.ci/run`` installs
it with apt-get when it is missing; a machine without it FAILS here, never skips).

Checked: the DOM after the page's JavaScript ran holds each slice's values as ``evaluate`` gives
them, and its operating points as ``operating_points`` does; clicking a header sorts the table;
a screenshot is taken and is not blank; the page logs no console error and raises no uncaught
error; the tables have header cells and captions; the page prints to PDF. The time-series
section (``day=``), opened with every host unresolvable: a screenshot of it shows the bands'
fill and one marker per flagged day (the pixels of their colours counted, and counted again with
the bands or the markers hidden, so the count can fail), and in the DOM each marker lies outside
its chart's band.
"""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import quiet
from PIL import Image, ImageStat
from test_report import HOSTILE, Page, assert_cell, daily_rows

import sqlmetrics
from sqlmetrics._evaluate.report_html import ANOMALY, BAND

pytestmark = pytest.mark.browser

#: put first in <head>: every uncaught error and console.error lands in a DOM attribute
HOOK = """<script>
(function () {
  var seen = [];
  function keep(text) { seen.push(String(text));
    document.documentElement.setAttribute("data-errors", seen.join(" | ")); }
  window.addEventListener("error", function (e) { keep(e.message); });
  var error = console.error;
  console.error = function () {
    keep(Array.from(arguments).join(" ")); error.apply(console, arguments); };
})();
</script>"""
#: put last in <body>: click the "auc" header once (ascending)
CLICK = """<script>
Array.from(document.querySelectorAll("#metrics-table th"))
  .filter(function (th) { return th.textContent === "auc"; })[0].click();
</script>"""


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        pytest.fail(
            "chromium is not installed: the report's browser test needs Debian's chromium "
            "(apt-get install -y chromium; .ci/run does it)",
            pytrace=False,
        )
    return found


def run_chromium(*args: str) -> subprocess.CompletedProcess[str]:
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def recorded_errors(dom: str) -> list[str]:
    """What the hook recorded: the ``data-errors`` attribute of <html>, if any."""
    match = re.search(r'<html[^>]*\sdata-errors="([^"]*)"', dom)
    return [match.group(1)] if match else []


def console_errors(stderr: str) -> list[str]:
    """The page's console errors as Chromium logs them (``CONSOLE`` lines)."""
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line and ("Uncaught" in line or "Error" in line or ":ERROR:" in line)
    ]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame(
        {
            "country": rng.choice(["DE", "FR", "IT", HOSTILE], n),
            "user": rng.integers(0, 40, n),
            "label": rng.integers(0, 2, n),
            "score": rng.random(n),
        }
    )
    frame.loc[frame.country == "IT", "label"] = 0  # auc undefined there: NaN
    metrics = ["auc", "gauc", "log_loss", "tpr_at_fpr"]  # tpr_at_fpr: the operating points
    kwargs = dict(by="country", group="user", ci=0.95)
    expected = quiet(sqlmetrics.evaluate, frame, metrics, **kwargs)
    points = quiet(sqlmetrics.operating_points, frame, by="country")
    folder = tmp_path_factory.mktemp("browser")
    path = quiet(sqlmetrics.report, frame, metrics, path=folder / "report.html", **kwargs)
    return path, expected, points


def with_hooks(path: Path, click: bool) -> Path:
    text = path.read_text(encoding="utf-8")
    text = text.replace("<head>", "<head>" + HOOK, 1)
    if click:
        text = text.replace("</body>", CLICK + "</body>", 1)
    out = path.with_name(("clicked-" if click else "hooked-") + path.name)
    out.write_text(text, encoding="utf-8")
    return out


def test_the_dom_holds_evaluates_values_and_no_error(
    page: tuple[Path, pd.DataFrame, pd.DataFrame],
) -> None:
    path, expected, points = page
    done = run_chromium("--dump-dom", with_hooks(path, click=False).as_uri())
    dom = Page(done.stdout)
    assert console_errors(done.stderr) == []
    assert recorded_errors(done.stdout) == []
    rows = dom.rows("metrics-table")
    header = dom.tables["metrics-table"]["header"]
    assert header == [c for c in expected.columns if c not in ("n_rows", "n_groups")]
    assert all(dom.captions.get(t) for t in dom.tables)  # every table has its caption
    assert len(rows) == len(expected) == 4
    assert any(math.isnan(v) for v in expected["auc"])
    for row, (_, want) in zip(rows, expected.iterrows()):
        for column in header:
            assert_cell(row[column], want[column])
    assert (HOSTILE, HOSTILE) in [r["country"] for r in rows]
    assert dom.tags.count("script") == 2  # the hook and the page's own
    # the operating points rendered: tpr_at_fpr's value and threshold per slice (IT: NaN)
    assert [
        (r["country"], r["level"], r["value"], r["threshold"]) for r in dom.rows("operating-table")
    ] == [
        (
            (str(w["country"]), str(w["country"])),
            ("max_fpr=0.1", "max_fpr=0.1"),
            *(
                ("NaN", "NaN") if math.isnan(w[c]) else (f"{w[c]:.6g}", repr(float(w[c])))
                for c in ("tpr_at_fpr", "tpr_at_fpr_threshold")
            ),
        )
        for _, w in points.iterrows()
    ]


def test_the_error_checks_catch_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<!DOCTYPE html><html><head></head><body><script>no_such_function();</script></body></html>"
    )
    done = run_chromium("--dump-dom", with_hooks(broken, click=False).as_uri())
    assert "no_such_function is not defined" in recorded_errors(done.stdout)[0]
    assert any("no_such_function" in line for line in console_errors(done.stderr))


def test_clicking_a_header_sorts_the_table(page: tuple[Path, pd.DataFrame, pd.DataFrame]) -> None:
    path, expected, _ = page
    done = run_chromium("--dump-dom", with_hooks(path, click=True).as_uri())
    assert console_errors(done.stderr) == []
    assert recorded_errors(done.stdout) == []
    assert 'aria-sort="ascending"' in done.stdout
    rows = Page(done.stdout).rows("metrics-table")
    want = expected.sort_values("auc", na_position="last", kind="stable")  # NaN (text) last
    assert [r["country"][1] for r in rows] == list(want["country"])
    for row, (_, w) in zip(rows, want.iterrows()):
        assert_cell(row["auc"], w["auc"])


def test_a_screenshot_is_not_blank_and_the_page_prints(
    page: tuple[Path, pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    path, _, _ = page
    shot = tmp_path / "shot.png"
    run_chromium("--window-size=1280,1600", f"--screenshot={shot}", path.as_uri())
    image = Image.open(io.BytesIO(shot.read_bytes())).convert("L")
    assert image.size == (1280, 1600)
    stat = ImageStat.Stat(image)
    assert stat.stddev[0] > 20  # text, tables and plots; a blank page has 0
    assert len(image.getcolors(maxcolors=1 << 16) or []) > 50
    pdf = tmp_path / "report.pdf"
    run_chromium("--no-pdf-header-footer", f"--print-to-pdf={pdf}", path.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and data.count(b"/Type /Page") >= 2


# ----------------------------------------------------------------- the time series (day=)
#: no host resolves: the page must need none
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND"
#: put last in <head>: the time-series section alone at the top of the screenshot
ALONE = """<style>header, main > section:not(#timeseries) { display: none !important; }
#timeseries .scroll { display: none; }</style>"""
#: put last in <body>: for each flagged marker, whether it lies outside its chart's band
#: (isPointInFill of every band polygon) and inside the chart, written on <html>
WHERE = """<script>
var out = Array.from(document.querySelectorAll("svg.series-chart circle.anomaly")).map(
  function (c) {
    var svg = c.ownerSVGElement, p = svg.createSVGPoint();
    p.x = c.cx.baseVal.value; p.y = c.cy.baseVal.value;
    var inBand = Array.from(svg.querySelectorAll("polygon.band")).some(
      function (band) { return band.isPointInFill(p); });
    var box = c.getBoundingClientRect(), frame = svg.getBoundingClientRect();
    var inside = box.left >= frame.left && box.right <= frame.right &&
      box.top >= frame.top && box.bottom <= frame.bottom && box.width > 0;
    return c.getAttribute("data-day") + ":" + (inBand ? "in" : "out") + ":" +
      (inside ? "shown" : "hidden");
  });
document.documentElement.setAttribute("data-markers", out.join(" "));
</script>"""


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@pytest.fixture(scope="module")
def series_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    frame = daily_rows()
    folder = tmp_path_factory.mktemp("series")
    path = quiet(
        sqlmetrics.report,
        frame,
        ["auc", "log_loss"],
        by="country",
        day="day",
        monitor={"window": 21},
        curves=False,
        path=folder / "series.html",
    )
    daily = quiet(sqlmetrics.evaluate, frame, ["auc", "log_loss"], by=["day", "country"], ci=0.95)
    flagged = pd.concat(
        [
            sqlmetrics.metric_anomalies(daily, m, by="country", window=21).assign(metric=m)
            for m in ("auc", "log_loss")
        ]
    )
    return path, flagged[flagged["anomaly"]]


def shot_of_the_section(path: Path, out: Path, hide: str = "") -> Image.Image:
    text = path.read_text(encoding="utf-8")
    extra = f"<style>{hide}</style>" if hide else ""
    text = text.replace("</head>", ALONE + extra + "</head>", 1)
    page = out.with_suffix(".html")
    page.write_text(text, encoding="utf-8")
    run_chromium(OFFLINE, "--window-size=1280,1100", f"--screenshot={out}", page.as_uri())
    return Image.open(io.BytesIO(out.read_bytes())).convert("RGB")


def pixels(image: Image.Image, colour: str) -> int:
    counts = {c: n for n, c in image.getcolors(maxcolors=1 << 24) or []}
    return counts.get(rgb(colour), 0)


def test_a_screenshot_of_the_time_series_shows_the_band_and_the_flagged_days(
    series_page: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    path, flagged = series_page
    assert len(flagged) >= 2  # the data has its bad days
    markers = len(flagged) + 1  # a marker per flagged day (all 4 series drawn), the legend's
    image = shot_of_the_section(path, tmp_path / "series.png")
    band, marker = pixels(image, BAND), pixels(image, ANOMALY)
    # a marker is a disc of radius 4.5 in the marker's colour (about 50 pixels, less its rim)
    assert 30 * markers <= marker <= 80 * markers, (marker, markers)
    assert band > 4 * 5000  # four charts' bands, each thousands of pixels
    # the same page with the markers, then the bands, hidden: the counts fall to the legend's
    no_markers = shot_of_the_section(
        path, tmp_path / "no-markers.png", "svg.series-chart .anomaly { display: none; }"
    )
    assert pixels(no_markers, ANOMALY) <= 80
    assert pixels(no_markers, BAND) >= band  # the band the markers covered shows
    no_band = shot_of_the_section(
        path, tmp_path / "no-band.png", "svg.series-chart .band { display: none; }"
    )
    assert pixels(no_band, BAND) <= 24 * 10  # the legend's swatch
    assert abs(pixels(no_band, ANOMALY) - marker) <= 5 * markers  # their rims only
    pdf = tmp_path / "series.pdf"
    run_chromium(OFFLINE, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", path.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and data.count(b"/Type /Page") >= 2


def test_each_flagged_marker_lies_outside_its_band(
    series_page: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    path, flagged = series_page
    text = path.read_text(encoding="utf-8").replace("<head>", "<head>" + HOOK, 1)
    text = text.replace("</body>", WHERE + "</body>", 1)
    page = tmp_path / "where.html"
    page.write_text(text, encoding="utf-8")
    done = run_chromium(OFFLINE, "--dump-dom", page.as_uri())
    assert console_errors(done.stderr) == []
    assert recorded_errors(done.stdout) == []
    match = re.search(r'<html[^>]*\sdata-markers="([^"]*)"', done.stdout)
    assert match is not None
    seen = sorted(match.group(1).split())
    want = sorted(f"{d.strftime('%Y-%m-%d')}:out:shown" for d in flagged["day"])
    assert seen == want
