"""The bodies of :mod:`sqlmetrics.plot`: ROC, precision-recall, calibration and gains plots.

The curves are computed in SQL (:func:`sqlmetrics.roc_curve`, :func:`sqlmetrics.pr_curve`, ...),
thinned to ``max_points`` exact points at score quantiles, then drawn with matplotlib, which is
imported only when a plot is made. The figures are built without pyplot, so no global state or
GUI backend is touched.
"""

from __future__ import annotations

import datetime
import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.params import Function, args, entry_point
from .._engine.run import compute, normalize_by
from .._metrics._api_calibration import calibration_curve
from .._metrics._api_classification_curves import pr_curve, roc_curve
from .._metrics._api_classification_separation import lift_table
from ..errors import UndefinedMetricWarning

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .._core._calls import CalibrationCall, GainsCall, PrCall, RocCall

#: the public functions are declared at the end of this module (API) and generated into
#: ``_api_plot.py`` by ``python -m tools.api`` (decision 0013); sqlmetrics.plot exports them
__all__ = ["run_calibration", "run_gains", "run_pr", "run_roc"]

#: points per curve unless told otherwise: plenty for a figure, small for any table
DEFAULT_MAX_POINTS = 2000


def _quietly(function: Callable[..., pd.DataFrame], *args: Any, **kwargs: Any) -> pd.DataFrame:
    """``function(*args, **kwargs)`` with undefined-metric warnings silenced: a slice without
    a curve or a value says "n/a" in the legend instead.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def _finish(axes: Axes, xlabel: str, ylabel: str, *, diagonal: bool = True, **legend: Any) -> None:
    """The dashed diagonal (a random or a perfectly calibrated model), axis labels, legend."""
    if diagonal:
        axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.legend(**legend)


def _matplotlib() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "sqlmetrics.plot needs matplotlib: pip install 'sqlmetrics[plot]'"
        ) from None
    return Figure


def _axes(ax: Axes | None, title: str) -> tuple[Figure, Axes]:
    figure_class = _matplotlib()
    if ax is None:
        figure = figure_class(figsize=(5.5, 5), layout="constrained")
        ax = figure.subplots()
    else:
        figure = ax.get_figure()
    ax.set_title(title)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.3)
    return figure, ax


def _slices(frame: pd.DataFrame, by: list[str]) -> list[tuple[str, pd.DataFrame]]:
    """(legend prefix, rows) per slice, in the frame's (sorted) order."""
    if not by:
        return [("", frame)]
    out = []
    for key, rows in frame.groupby(by, sort=False, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        out.append((", ".join(f"{c}={_shown(v)}" for c, v in zip(by, values)) + " ", rows))
    return out


def _shown(value: Any) -> str:
    """A slice value for a legend: dates as ``2026-11-01`` (DuckDB's DATE arrives in pandas as
    a midnight timestamp), timestamps without a ``T`` or nanoseconds, anything else as str.
    """
    import pandas as pd

    if isinstance(value, (pd.Timestamp, datetime.datetime)):
        stamp = pd.Timestamp(value)
        if stamp == stamp.normalize():
            return str(stamp.strftime("%Y-%m-%d"))
        return str(stamp.strftime("%Y-%m-%d %H:%M:%S"))
    return str(value)


def _summary(
    name: str,
    data: Any,
    columns: dict[str, str | None],
    by: list[str],
    con: Any,
    params: dict[str, Any],
) -> dict[tuple[Any, ...], float]:
    """The exact AUC / AP / ECE per slice (computed over every row, not the thinned curve)."""
    import pandas as pd

    frame = _quietly(compute, name, data, con=con, columns=columns, by=by or None, params=params)
    return {
        _key(row, by): float(row[name]) if pd.notna(row[name]) else math.nan
        for _, row in frame.iterrows()
    }


def _key(row: Any, by: list[str]) -> tuple[Any, ...]:
    """A slice's values as a dict key (NULL / NaN slices all map to None)."""
    import pandas as pd

    return tuple(None if pd.isna(row[c]) else row[c] for c in by)


def _label(prefix: str, what: str, value: float) -> str:
    shown = "n/a" if math.isnan(value) else f"{value:.4f}"
    return f"{prefix}({what} {shown})" if prefix else f"{what} {shown}"


#: the curves of ``roc`` and ``pr``: (curve function, summary metric, title)
_THRESHOLD_CURVES: dict[str, tuple[Callable[..., pd.DataFrame], str, str]] = {
    "roc": (roc_curve, "auc", "ROC curve"),
    "pr": (pr_curve, "average_precision", "Precision-recall curve"),
}


def _threshold_curve(
    plot: str, a: RocCall | PrCall
) -> tuple[Figure, Axes, list[tuple[str, pd.DataFrame, float]]]:
    """What ``roc`` and ``pr`` share: their curve, their summary metric per slice and the axes,
    as (figure, axes, [(legend prefix, curve rows, summary value) per slice]).
    """
    curve_function, metric, title = _THRESHOLD_CURVES[plot]
    by_cols = normalize_by(f"plot.{plot}", a.by)
    columns: dict[str, str | None] = {"label": a.label, "score": a.score, "weight": a.weight}
    curve = _quietly(
        curve_function,
        a.data,
        **columns,
        by=by_cols or None,
        max_points=a.max_points,
        con=a.con,
        pos_label=a.pos_label,
    )
    values = _summary(metric, a.data, columns, by_cols, a.con, {"pos_label": a.pos_label})
    figure, axes = _axes(a.ax, title)
    slices = [
        (prefix, rows, values.get(_key(rows.iloc[0], by_cols), math.nan))
        for prefix, rows in _slices(curve, by_cols)
    ]
    return figure, axes, slices


def run_roc(a: RocCall) -> Figure:
    figure, axes, slices = _threshold_curve("roc", a)
    for prefix, rows, auc in slices:
        axes.plot(rows["fpr"], rows["tpr"], label=_label(prefix, "AUC", auc))
    _finish(axes, "false positive rate", "true positive rate", loc="lower right")
    return figure


def run_pr(a: PrCall) -> Figure:
    figure, axes, slices = _threshold_curve("pr", a)
    for prefix, rows, ap in slices:
        axes.plot(
            rows["recall"],
            rows["precision"],
            drawstyle="steps-post",
            label=_label(prefix, "AP", ap),
        )
    # outside the axes, to the right: precision-recall curves fill any corner of the plot
    _finish(
        axes,
        "recall",
        "precision",
        diagonal=False,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
    )
    return figure


def run_calibration(a: CalibrationCall) -> Figure:
    by_cols = normalize_by("plot.calibration", a.by)
    options = {"n_bins": a.n_bins, "strategy": a.strategy, "pos_label": a.pos_label}
    columns: dict[str, str | None] = {"label": a.label, "score": a.score, "weight": a.weight}
    curve = _quietly(calibration_curve, a.data, **columns, by=by_cols or None, **options, con=a.con)
    eces = _summary("expected_calibration_error", a.data, columns, by_cols, a.con, options)
    figure, axes = _axes(a.ax, "Calibration curve")
    for prefix, rows in _slices(curve, by_cols):
        key = _key(rows.iloc[0], by_cols)
        axes.plot(
            rows["mean_predicted"],
            rows["fraction_positive"],
            marker="o",
            label=_label(prefix, "ECE", eces.get(key, math.nan)),
        )
    _finish(axes, "mean predicted probability", "fraction of positives", loc="upper left")
    return figure


def run_gains(a: GainsCall) -> Figure:
    by_cols = normalize_by("plot.gains", a.by)
    table = _quietly(
        lift_table,
        a.data,
        label=a.label,
        score=a.score,
        by=by_cols or None,
        n_bins=a.n_bins,
        con=a.con,
        pos_label=a.pos_label,
    )
    figure, axes = _axes(a.ax, "Cumulative gains")
    for prefix, rows in _slices(table, by_cols):
        total = float(rows["n"].sum())
        x = [0.0, *(rows["cumulative_n"] / total)]
        y = [0.0, *rows["gain"]]
        lift = float(rows["lift"].iloc[0])
        axes.plot(x, y, marker="o", label=_label(prefix, "top-bin lift", lift))
    _finish(
        axes,
        "share of rows (highest scores first)",
        "share of positives (gain)",
        loc="lower right",
    )
    return figure


# ------------------------------------------------------------------------- the declarations

#: the plots' own entries (the others are the shared declarations': the binary metrics' label
#: and score, ``by:plots``); ``{source}``: the metric function a plot draws
_OWN = """
max_points : int or None, default {max_points}
    Points per curve, chosen at score quantiles (see :func:`sqlmetrics.{source}`); None
    draws every distinct score.
n_bins : int, default 10
    Number of score bins, as in :func:`sqlmetrics.{source}`.
strategy : {{"uniform", "quantile"}}, default "uniform"
    Bins of equal width or of equal mass, as in :func:`sqlmetrics.{source}`.
ax : matplotlib.axes.Axes, optional
    Draw on these axes; by default a new figure is made.
"""
_TYPES: dict[str, tuple[str, object]] = {
    "max_points": ("int | None", DEFAULT_MAX_POINTS),
    "n_bins": ("int", 10),
    "strategy": ("str", "uniform"),
    "ax": ("Axes | None", None),
}
_CURVE = ("data", "label", "score", "weight", "by", "max_points", "ax", "con", "pos_label")


def _plot(
    name: str,
    call: Callable[..., Figure],
    takes: tuple[str, ...],
    source: str,
    *,
    summary: str,
    notes: str,
    example: str,
    shown: str,
    returns: str = "",
) -> Function:
    """A plot's declaration: what the four share written once; ``source``: the metric function
    it draws, which its entries and Raises refer to.
    """
    own = args(_OWN.format(source=source, max_points=DEFAULT_MAX_POINTS), **_TYPES)
    return entry_point(
        name,
        takes=takes,
        call=call,
        returns_type="Figure",
        own=tuple(arg for arg in own if arg.name in takes),
        summary=summary,
        returns=f"""
    matplotlib.figure.Figure
        The figure{returns}.
    """,
        raises=f"""
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.{source}`.
    """,
        notes=notes,
        examples=f"""
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({{"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]}})
    >>> fig = sqlmetrics.plot.{example}
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    {shown}
    """,
    )


API = (
    _plot(
        "roc",
        run_roc,
        _CURVE,
        "roc_curve",
        summary="Draw the ROC curve (one per slice with ``by``), with the AUC in the legend.",
        returns=' (save it with ``fig.savefig("roc.png")``)',
        notes="""
    The AUC in the legend is the exact one (:func:`sqlmetrics.auc`, over every row), not the
    area under the drawn, thinned curve. A slice with a single class has no curve to draw;
    its legend entry says "n/a".
    """,
        example="roc(df)",
        shown="'AUC 0.7222'",
    ),
    _plot(
        "pr",
        run_pr,
        _CURVE,
        "pr_curve",
        summary="Draw the precision-recall curve (one per slice with ``by``), with the AP in the "
        "legend.",
        notes="""
    Drawn as a step function (``steps-post``, as scikit-learn's ``PrecisionRecallDisplay``),
    which is what average precision integrates. The AP in the legend is the exact
    :func:`sqlmetrics.average_precision` over every row.
    """,
        example="pr(df)",
        shown="'AP 0.7556'",
    ),
    _plot(
        "calibration",
        run_calibration,
        (*_CURVE[:5], "n_bins", "strategy", *_CURVE[6:]),
        "calibration_curve",
        summary="Draw the calibration (reliability) curve, one per slice, with the ECE in the "
        "legend.",
        notes="""
    Each point is a non-empty bin: its mean predicted probability (x) against its fraction of
    positives (y); the diagonal is perfect calibration. The legend gives
    :func:`sqlmetrics.expected_calibration_error` with the same bins.
    """,
        example="calibration(df, n_bins=2)",
        shown="'ECE 0.0583'",
    ),
    _plot(
        "gains",
        run_gains,
        (*_CURVE[:3], "by", "n_bins", *_CURVE[6:]),
        "lift_table",
        summary="Draw the cumulative gains curve by score bins (deciles), one per slice.",
        notes="""
    x: the share of rows targeted (``cumulative_n / n``, highest scores first), y: the share
    of all positives they hold (``gain``), from (0, 0); the diagonal is a random order. The
    legend gives the lift of the first bin (its response rate over the overall rate).
    """,
        example="gains(df, n_bins=3)",
        shown="'top-bin lift 1.3333'",
    ),
)
