"""The HTML of :func:`sqlmetrics.report`: one self-contained page (inline CSS, SVG, a few
lines of JavaScript), built by plain Python string building.

Why not a template engine: every piece of user data (slice values, column and metric names,
option values, messages, SQL text) reaches the page through one function, :func:`esc`
(``html.escape`` with quotes), at the place it is written, so a reviewer sees the escaping
at each insertion and nothing is marked safe by accident. A Jinja environment with
autoescaping would do the same for the text, but the SVG and table markup are built from
numbers in Python anyway, and the package's Jinja environment is the sandboxed SQL one
(``_templating``), which must not learn HTML. The markup itself is constant text of this
module; user data never becomes markup.

Numbers: a table cell shows the value rounded to 6 significant digits and holds the exact
value, ``repr(float(value))`` (the shortest text that reads back as the same float), in its
``data-value`` attribute, which is also what sorting reads. NaN (undefined) shows as
``NaN``; a NULL slice value as ``NULL``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Curves", "Monitor", "Page", "Series", "cell_value", "esc", "page_html"]

#: the colours of the models' lines (colour-blind safe, Okabe-Ito)
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def esc(value: Any) -> str:
    """``value`` as text, escaped for HTML text and attribute values."""
    return html.escape(str(value), quote=True)


#: columns of p-values, and how one of 0.0 reads: a test's p-value is never 0, one that
#: underflowed a double is (below the smallest normal double, 2.2e-308)
P_VALUES = ("p_value", "p_adjusted")
P_UNDERFLOW = "< 1e-308"


def cell_value(value: Any, column: Any = None) -> tuple[str, str]:
    """``(shown, exact)`` of a table value: the text shown and its ``data-value``."""
    import pandas as pd

    if column in P_VALUES and isinstance(value, float) and value == 0.0:
        return P_UNDERFLOW, "0.0"
    if value is None or value is pd.NA or value is pd.NaT:
        return "NULL", ""
    if isinstance(value, bool):
        return str(value), str(value)
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return str(int(value)), str(int(value))
    if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
        number = float(value)
        if math.isnan(number):
            return "NaN", "NaN"
        return f"{number:.6g}", repr(number)
    return str(value), str(value)


@dataclass
class Curves:
    """The curves of one slice: per kind, per model, ``(xs, ys)``; or why a kind is absent."""

    title: str
    lines: dict[str, dict[str, tuple[list[float], list[float]]]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)


@dataclass
class Series:
    """One metric's daily series in one slice (and model), as :func:`metric_anomalies` scored
    it: per day ``(day, value, lo, hi, baseline, band_lo, band_hi, z, deviation, anomaly,
    status)``, ``day`` as its text (``2026-01-30``) and NaN for a NULL number.
    """

    title: str
    metric: str
    days: list[tuple[Any, ...]]


@dataclass
class Monitor:
    """The time-series section: the charts drawn (``series``), what it says about which are
    shown (``note``), the table of every series (``summary``) and of the flagged days
    (``flagged``), and the settings line (``settings``).
    """

    day: str
    series: list[Series]
    note: str
    summary: pd.DataFrame
    flagged: pd.DataFrame
    settings: str


@dataclass
class Page:
    """Everything the page shows, already computed."""

    title: str
    metrics: pd.DataFrame
    metric_columns: list[str]
    counts: pd.DataFrame
    comparison: pd.DataFrame | None
    not_compared: list[str]
    curves: list[Curves]
    curves_note: str
    settings: list[tuple[str, str]]
    about: list[tuple[str, str]]
    sql: list[tuple[str, str]]
    messages: list[str]
    monitor: Monitor | None = None
    #: the section "Operating points" (None: no operating-point metric requested) and its note
    operating: pd.DataFrame | None = None
    operating_note: str = ""


CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
  margin: 1.5rem auto; max-width: 78rem; padding: 0 1rem; background: #fff; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem;
  border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .5rem; text-align: right; }
th { background: #f2f4f7; } td.text, th.text { text-align: left; }
table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
.curves { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0 1rem; }
figure { margin: 0; break-inside: avoid; } figcaption { font-weight: 600; margin: .5rem 0 0; }
svg { border: 1px solid #e3e3e3; background: #fff; }
.note { color: #555; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; font-family: ui-monospace, monospace; }
pre { background: #f7f7f7; padding: .5rem; overflow-x: auto; font-size: 12px; }
.scroll { max-width: 100%; overflow-x: auto; }
ul.messages li { margin: .2rem 0; }
.series { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0 1rem; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; }
ul.legend svg, svg.swatch { border: 0; vertical-align: middle; }
@media print {
  body { margin: 0; max-width: none; font-size: 11px; }
  a, summary { color: inherit; } .curves, .series { gap: .25rem; }
  svg { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  pre { white-space: pre-wrap; word-break: break-all; }
  .scroll { overflow: visible; } th, td { padding: .1rem .2rem; overflow-wrap: anywhere; }
  table, figure, .slice { break-inside: avoid; }
  table.sortable th { cursor: auto; } h2 { break-after: avoid; }
}
"""

#: click a header to sort its table by that column (numbers by data-value, else text)
SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    var up = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    function key(row) { var v = row.cells[i].getAttribute("data-value") || "";
      var x = Number(v); return v !== "" && !isNaN(x) ? [0, x] : [1, v]; }
    Array.from(body.rows).sort(function (a, b) { var x = key(a), y = key(b);
      var r = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0); return up ? r : -r; })
      .forEach(function (row) { body.appendChild(row); });
  });
});
"""


def _table(
    frame: pd.DataFrame,
    caption: str,
    table_id: str,
    text_columns: Sequence[str] = (),
    sortable: bool = True,
) -> str:
    """``frame`` as a table: header cells, a caption, one ``data-value`` per cell."""
    klass = ' class="sortable"' if sortable else ""
    out = [f'<table id="{esc(table_id)}"{klass}>', f"<caption>{esc(caption)}</caption>"]
    out.append("<thead><tr>")
    for column in frame.columns:
        text = ' class="text"' if column in text_columns else ""
        out.append(f'<th scope="col"{text}>{esc(column)}</th>')
    out.append("</tr></thead><tbody>")
    for row in frame.itertuples(index=False, name=None):
        out.append("<tr>")
        for column, value in zip(frame.columns, row):
            text = ' class="text"' if column in text_columns else ""
            if text and isinstance(value, float) and math.isnan(value):
                value = None  # a NULL slice (or text) pandas holds as NaN: shown as NULL
            shown, exact = cell_value(value, column)
            out.append(f'<td{text} data-value="{esc(exact)}">{esc(shown)}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _scroll(frame: pd.DataFrame, caption: str, table_id: str, text_columns: Sequence[str]) -> str:
    """A table in a box that scrolls sideways when it is wider than the page (many metrics,
    intervals), so the page itself never does; printed, it wraps instead.
    """
    return f'<div class="scroll">{_table(frame, caption, table_id, text_columns)}</div>'


def _number(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def svg_plot(
    title: str,
    x_label: str,
    y_label: str,
    lines: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    diagonal: bool,
    colours: Mapping[str, str],
) -> str:
    """One plot on [0, 1] x [0, 1] as inline SVG: axes, ticks, a line per model."""
    size, left, bottom, top, right = 240, 38, 34, 22, 8
    width = size - left - right
    height = size - top - bottom

    def px(x: float) -> float:
        return left + min(max(x, 0.0), 1.0) * width

    def py(y: float) -> float:
        return top + (1 - min(max(y, 0.0), 1.0)) * height

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" role="img" aria-label="{esc(title)}">',
        f"<title>{esc(title)}</title>",
        f'<text x="{size / 2}" y="14" text-anchor="middle" font-size="12" '
        f'font-weight="600">{esc(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" stroke="#999"/>',
    ]
    for t in (0.0, 0.5, 1.0):
        out.append(
            f'<text x="{px(t):.1f}" y="{top + height + 12}" text-anchor="middle" '
            f'font-size="9">{_number(t)}</text>'
        )
        out.append(
            f'<text x="{left - 4}" y="{py(t) + 3:.1f}" text-anchor="end" '
            f'font-size="9">{_number(t)}</text>'
        )
    out.append(
        f'<text x="{left + width / 2}" y="{size - 4}" text-anchor="middle" '
        f'font-size="10">{esc(x_label)}</text>'
    )
    out.append(
        f'<text x="10" y="{top + height / 2}" text-anchor="middle" font-size="10" '
        f'transform="rotate(-90 10 {top + height / 2})">{esc(y_label)}</text>'
    )
    if diagonal:
        out.append(
            f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}" stroke="#bbb" '
            f'stroke-dasharray="4 3"/>'
        )
    for model, (xs, ys) in lines.items():
        points = " ".join(
            f"{px(x):.1f},{py(y):.1f}"
            for x, y in zip(xs, ys)
            if not (math.isnan(x) or math.isnan(y))
        )
        colour = colours.get(model, COLOURS[0])
        out.append(
            f'<polyline fill="none" stroke="{esc(colour)}" stroke-width="1.6" '
            f'points="{points}"><title>{esc(model)}</title></polyline>'
        )
    out.append("</svg>")
    return "".join(out)


PLOTS = {  # kind -> (title, x label, y label, diagonal)
    "roc": ("ROC", "false positive rate", "true positive rate", True),
    "pr": ("Precision-recall", "recall", "precision", False),
    "calibration": ("Calibration", "mean predicted", "fraction positive", True),
    "gains": ("Cumulative gains", "share of rows (by score)", "share of positives", True),
}


def _curves(page: Page, models: Sequence[str]) -> str:
    colours = {m: COLOURS[i % len(COLOURS)] for i, m in enumerate(models)}
    out = ['<section id="curves"><h2>Curves</h2>', f'<p class="note">{esc(page.curves_note)}</p>']
    if len(models) > 1:
        out.append('<p class="legend">')
        out.extend(
            f'<span style="color:{esc(colours[m])}">&#9632;</span> {esc(m)} ' for m in models
        )
        out.append("</p>")
    for curves in page.curves:
        out.append(f'<figure class="slice"><figcaption>{esc(curves.title)}</figcaption>')
        out.append('<div class="curves">')
        for kind, (title, x_label, y_label, diagonal) in PLOTS.items():
            if kind in curves.lines:
                out.append(svg_plot(title, x_label, y_label, curves.lines[kind], diagonal, colours))
        out.append("</div>")
        for kind, why in curves.missing.items():
            out.append(f'<p class="note">{esc(PLOTS[kind][0])}: not drawn: {esc(why)}</p>')
        out.append("</figure>")
    out.append("</section>")
    return "".join(out)


#: the time series' colours: the band's fill, the baseline mean, the value and its interval,
#: the flagged days' markers (Okabe-Ito vermillion), the days waiting for labels (pending)
BAND, BASELINE, VALUE, INTERVAL, ANOMALY, PENDING = (
    "#C6DBEF",
    "#4A78A8",
    "#1B1B1B",
    "#8A8A8A",
    "#D55E00",
    "#9A9A9A",
)


def _g(x: float) -> str:
    """A number as a chart's tick or tooltip shows it: 4 significant digits."""
    return "NaN" if math.isnan(x) else f"{x:.4g}"


def _finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))


def day_tooltip(metric: str, day: Sequence[Any]) -> str:
    """A day's tooltip: the day, its value and interval, the band, z and what it was."""
    text, _, value, lo, hi, baseline, band_lo, band_hi, z, deviation, anomaly, status = day
    out = f"{text}: {metric} = {_g(value)}"
    if _finite(lo) and _finite(hi):
        out += f" (interval {_g(lo)} to {_g(hi)})"
    if status == "scored":
        out += f"; band {_g(band_lo)} to {_g(band_hi)} (baseline {_g(baseline)}); z = {_g(z)}"
        if anomaly:
            out += f"; flagged: {deviation}"
        elif deviation:
            out += f"; {deviation}, not the flagged direction"
    else:
        out += f"; not scored: {status}"
    return out


def svg_series(series: Series) -> str:
    """One series as inline SVG: the band (shaded), the baseline mean (dashed), the value
    line with each day's interval, and the flagged days as marked points with a tooltip.
    """
    width, height, left, right, top, bottom = 380, 180, 50, 12, 10, 30
    inner_w, inner_h = width - left - right, height - top - bottom
    days = series.days
    xs = [float(d[1]) for d in days]
    ys = [float(v) for d in days for v in (d[2], d[3], d[4], d[6], d[7]) if _finite(v)]
    flagged = [d for d in days if d[10]]
    label = f"{series.title}: {len(days)} days, {len(flagged)} flagged" + (
        " (" + ", ".join(d[0] for d in flagged[:5]) + (", ..." if len(flagged) > 5 else "") + ")"
        if flagged
        else ""
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}" '
        f'class="series-chart">',
        f"<title>{esc(label)}</title>",
        f'<rect x="{left}" y="{top}" width="{inner_w}" height="{inner_h}" fill="none" '
        f'stroke="#999"/>',
    ]
    if not ys:
        out.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" font-size="11">'
            f"no value to draw</text></svg>"
        )
        return "".join(out)
    y0, y1 = min(ys), max(ys)
    pad = (y1 - y0) * 0.06 or (abs(y0) * 0.05 or 1.0)
    y0, y1 = y0 - pad, y1 + pad
    x0, x1 = min(xs), max(xs)

    def px(x: float) -> float:
        return left + (inner_w / 2 if x1 == x0 else (x - x0) / (x1 - x0) * inner_w)

    def py(y: float) -> float:
        return top + (1 - (y - y0) / (y1 - y0)) * inner_h

    out.extend(
        f'<text x="{left - 4}" y="{py(t) + 3:.1f}" text-anchor="end" font-size="9">'
        f"{esc(_g(t))}</text>"
        for t in (y0 + pad, (y0 + y1) / 2, y1 - pad)
    )
    out.append(
        f'<text x="{left}" y="{height - 16}" text-anchor="start" font-size="9">'
        f"{esc(days[0][0])}</text>"
    )
    if len(days) > 1:
        out.append(
            f'<text x="{left + inner_w}" y="{height - 16}" text-anchor="end" font-size="9">'
            f"{esc(days[-1][0])}</text>"
        )
    out.append(
        f'<text x="{left + inner_w / 2}" y="{height - 4}" text-anchor="middle" font-size="10">'
        f"day ({len(days)} days)</text>"
    )
    # the band and the baseline mean: one piece per run of scored days
    runs: list[list[Sequence[Any]]] = [[]]
    for d in days:
        if _finite(d[6]) and _finite(d[7]):
            runs[-1].append(d)
        elif runs[-1]:
            runs.append([])
    for run in (r for r in runs if r):
        if len(run) == 1:
            x, one = px(run[0][1]), run[0]
            upper = [(x - 2, py(one[7])), (x + 2, py(one[7]))]
            lower = [(x + 2, py(one[6])), (x - 2, py(one[6]))]
            mean = [(x - 2, py(one[5])), (x + 2, py(one[5]))]
        else:
            upper = [(px(d[1]), py(d[7])) for d in run]
            lower = [(px(d[1]), py(d[6])) for d in reversed(run)]
            mean = [(px(d[1]), py(d[5])) for d in run]
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in [*upper, *lower])
        out.append(f'<polygon class="band" fill="{BAND}" stroke="none" points="{points}"/>')
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in mean)
        out.append(
            f'<polyline class="baseline" fill="none" stroke="{BASELINE}" stroke-width="1" '
            f'stroke-dasharray="4 3" points="{line}"/>'
        )
    for d in days:  # each day's interval
        if _finite(d[3]) and _finite(d[4]):
            x = px(d[1])
            out.append(
                f'<line class="interval" x1="{x:.1f}" y1="{py(d[3]):.1f}" x2="{x:.1f}" '
                f'y2="{py(d[4]):.1f}" stroke="{INTERVAL}" stroke-width="1"/>'
            )
    pieces: list[list[str]] = [[]]
    for d in days:
        if _finite(d[2]):
            pieces[-1].append(f"{px(d[1]):.1f},{py(d[2]):.1f}")
        elif pieces[-1]:
            pieces.append([])
    out.extend(
        f'<polyline class="value" fill="none" stroke="{VALUE}" stroke-width="1.4" '
        f'points="{" ".join(piece)}"/>'
        for piece in pieces
        if len(piece) > 1
    )
    for d in days:
        if not _finite(d[2]) or d[10]:
            continue
        pending = d[11] == "pending"
        fill = "#fff" if pending else VALUE
        stroke = PENDING if pending else VALUE
        out.append(
            f'<circle class="day{" pending" if pending else ""}" cx="{px(d[1]):.1f}" '
            f'cy="{py(d[2]):.1f}" r="1.8" fill="{fill}" stroke="{stroke}">'
            f"<title>{esc(day_tooltip(series.metric, d))}</title></circle>"
        )
    out.extend(  # last: on top of everything
        f'<circle class="anomaly" data-day="{esc(d[0])}" cx="{px(d[1]):.1f}" '
        f'cy="{py(d[2]):.1f}" r="5" fill="{ANOMALY}" stroke="#fff" stroke-width="1">'
        f"<title>{esc(day_tooltip(series.metric, d))}</title></circle>"
        for d in flagged
    )
    out.append("</svg>")
    return "".join(out)


def _swatch(shape: str) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="26" height="12" viewBox="0 0 26 12" '
        f'aria-hidden="true" class="swatch">{shape}</svg>'
    )


LEGEND = (
    '<ul class="legend" aria-label="Legend of the charts">'
    + "".join(
        f"<li>{_swatch(shape)} {text}</li>"
        for shape, text in (
            (
                f'<rect x="1" y="1" width="24" height="10" fill="{BAND}"/>',
                "band (baseline -+ threshold x sd)",
            ),
            (
                f'<line x1="1" y1="6" x2="25" y2="6" stroke="{BASELINE}" stroke-dasharray="4 3"/>',
                "baseline mean",
            ),
            (
                f'<line x1="1" y1="6" x2="25" y2="6" stroke="{VALUE}" stroke-width="1.4"/>'
                f'<line x1="13" y1="1" x2="13" y2="11" stroke="{INTERVAL}"/>',
                "daily value and its interval",
            ),
            (
                f'<circle cx="13" cy="6" r="5" fill="{ANOMALY}" stroke="#fff"/>',
                "flagged day (anomaly)",
            ),
            (
                f'<circle cx="13" cy="6" r="2" fill="#fff" stroke="{PENDING}"/>',
                "pending (waiting for labels, delay=)",
            ),
        )
    )
    + "</ul>"
)


def _monitor(monitor: Monitor, text_columns: Sequence[str]) -> str:
    text_columns = [*text_columns, monitor.day, "deviation", "last_status", "drawn"]
    out = [
        '<section id="timeseries"><h2>Metrics over time</h2>',
        f'<p class="note">{esc(monitor.settings)}</p>',
        f'<p class="note">{esc(monitor.note)}</p>',
    ]
    if monitor.series:
        out.append(LEGEND)
        out.append('<div class="series">')
        out.extend(
            f'<figure class="chart"><figcaption>{esc(series.title)}</figcaption>'
            f"{svg_series(series)}</figure>"
            for series in monitor.series
        )
        out.append("</div>")
    if len(monitor.flagged):
        out.append(
            _scroll(
                monitor.flagged,
                "Flagged days: the value left the band in the flagged direction",
                "anomalies-table",
                text_columns,
            )
        )
    else:
        out.append('<p class="note" id="no-anomalies">No day flagged.</p>')
    out.append(
        _scroll(
            monitor.summary,
            "Every series: its days, the days scored and flagged, and whether it is drawn",
            "series-table",
            text_columns,
        )
    )
    out.append("</section>")
    return "".join(out)


def _pairs(items: Sequence[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"


def page_html(page: Page, slices: Sequence[str], models: Sequence[str]) -> str:
    """The whole page."""
    text_columns = [*slices, "model", "metric", "test", "reason", "level"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(page.title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<header><h1>{esc(page.title)}</h1>",
        _pairs(page.about[:2]),
        "</header><main>",
        '<section id="metrics"><h2>Metrics per slice</h2>',
        _scroll(
            page.metrics,
            "Metrics per slice (click a header to sort; exact values in each cell's data-value)",
            "metrics-table",
            text_columns,
        ),
        "</section>",
    ]
    if page.operating is not None:
        parts.append('<section id="operating"><h2>Operating points</h2>')
        parts.append(f'<p class="note">{esc(page.operating_note)}</p>')
        parts.append(
            _scroll(
                page.operating,
                "Operating points per slice: each value, the level it is read at and the "
                "threshold reaching it (click a header to sort)",
                "operating-table",
                text_columns,
            )
        )
        parts.append("</section>")
    parts += [
        '<section id="groups"><h2>Rows, groups and skipped groups</h2>',
        _scroll(page.counts, "Rows and groups per slice", "counts-table", text_columns),
        "</section>",
    ]
    if page.comparison is not None:
        parts.append('<section id="comparison"><h2>Paired comparison of the models</h2>')
        parts.append(
            _scroll(
                page.comparison,
                "Each model against the baseline: difference, its interval, the paired "
                "test's p-value and p_adjusted (Holm) per slice",
                "comparison-table",
                text_columns,
            )
        )
        if page.not_compared:
            parts.append(
                f'<p class="note">Not compared (no paired test): '
                f"{esc(', '.join(page.not_compared))}</p>"
            )
        parts.append("</section>")
    if page.monitor is not None:
        parts.append(_monitor(page.monitor, text_columns))
    if page.curves or page.curves_note:
        parts.append(_curves(page, models))
    if page.messages:
        parts.append('<section id="messages"><h2>Warnings</h2><ul class="messages">')
        parts.extend(f"<li>{esc(m)}</li>" for m in page.messages)
        parts.append("</ul></section>")
    parts.append('<section id="settings"><h2>Convention and options</h2>')
    parts.append(_pairs(page.settings))
    parts.append("</section>")
    parts.append('<section id="about"><h2>Data and versions</h2>')
    parts.append(_pairs(page.about))
    parts.append("</section>")
    parts.append('<section id="sql"><h2>SQL</h2>')
    for name, sql in page.sql:
        parts.append(
            f"<details><summary>{esc(name)}</summary><pre><code>{esc(sql)}</code></pre></details>"
        )
    parts.append("</section></main>")
    parts.append(f"<script>{SCRIPT}</script></body></html>\n")
    return "\n".join(parts)
