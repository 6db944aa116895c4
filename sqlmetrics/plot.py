"""ROC, precision-recall, calibration and gains plots (optional extra:
``pip install 'sqlmetrics[plot]'``).

The curves are computed in SQL (:func:`sqlmetrics.roc_curve`, :func:`sqlmetrics.pr_curve`),
thinned to ``max_points`` exact points at score quantiles, then drawn with matplotlib, which
is imported only here, when a plot is made (``import sqlmetrics`` never imports it). The
figures are built without pyplot, so no global state or GUI backend is touched.
"""

from __future__ import annotations

import datetime
import math
import textwrap
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ._engine.run import compute, normalize_by
from ._metrics._api_calibration import calibration_curve
from ._metrics._api_classification_curves import pr_curve, roc_curve
from ._metrics._api_classification_separation import lift_table
from .errors import UndefinedMetricWarning

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["calibration", "gains", "pr", "roc"]

#: points per curve unless told otherwise: plenty for a figure, small for any table
DEFAULT_MAX_POINTS = 2000

_F = TypeVar("_F", bound=Callable[..., Any])

#: every plot's docstring; ``_documented`` fills in each plot's own parts
_DOC = """{summary}

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table, duckdb.DuckDBPyRelation or ibis.Table
        The input, as in :func:`sqlmetrics.{source}`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean.
    score : str, default "score"
        {score}
{weight}    by : str or list of str, optional
        Slice columns: one curve per distinct combination.
{options}    ax : matplotlib.axes.Axes, optional
        Draw on these axes; by default a new figure is made.
    con : duckdb connection, str, SparkSession or SQLAlchemy engine, optional
        As in :func:`sqlmetrics.{source}`.
    pos_label : optional
        The positive class of a label column of two other values{pos_label}

    Returns
    -------
    matplotlib.figure.Figure
        The figure{returns}.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.{source}`.

    Notes
    -----
{notes}
    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({{"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]}})
    >>> fig = sqlmetrics.plot.{example}
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    {shown}
    """


def _documented(
    *, options: str, notes: str, weight: bool = True, **parts: str
) -> Callable[[_F], _F]:
    """Give a plot its docstring: ``_DOC`` with the plot's own parts (its docstring as the
    summary, ``options`` and ``notes`` as dedented text), so that what the plots share has one
    text.
    """
    parts.setdefault("pos_label", ".")
    parts.setdefault("returns", "")
    weight_entry = "weight : str, optional\n    Column of non-negative sample weights.\n"

    def give(function: _F) -> _F:
        function.__doc__ = _DOC.format(
            summary=function.__doc__,
            weight=textwrap.indent(weight_entry, "    ") if weight else "",
            options=textwrap.indent(textwrap.dedent(options), "    "),
            notes=textwrap.indent(textwrap.dedent(notes), "    "),
            **parts,
        )
        return function

    return give


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
    plot: str, data: Any, *options: Any
) -> tuple[Figure, Axes, list[tuple[str, pd.DataFrame, float]]]:
    """What ``roc`` and ``pr`` share: their curve, their summary metric per slice and the axes,
    as (figure, axes, [(legend prefix, curve rows, summary value) per slice]).
    """
    curve_function, metric, title = _THRESHOLD_CURVES[plot]
    label, score, weight, by, max_points, ax, con, pos_label = options
    by_cols = normalize_by(f"plot.{plot}", by)
    columns: dict[str, str | None] = {"label": label, "score": score, "weight": weight}
    curve = _quietly(
        curve_function,
        data,
        **columns,
        by=by_cols or None,
        max_points=max_points,
        con=con,
        pos_label=pos_label,
    )
    values = _summary(metric, data, columns, by_cols, con, {"pos_label": pos_label})
    figure, axes = _axes(ax, title)
    slices = [
        (prefix, rows, values.get(_key(rows.iloc[0], by_cols), math.nan))
        for prefix, rows in _slices(curve, by_cols)
    ]
    return figure, axes, slices


@_documented(
    source="roc_curve",
    score="Column of finite numeric scores.",
    options="""\
        max_points : int or None, default 2000
            Points per curve, chosen at score quantiles (see :func:`sqlmetrics.roc_curve`); None
            draws every distinct score.
        """,
    pos_label=' (``"spam"``), as in\n        :func:`sqlmetrics.roc_curve`.',
    returns=' (save it with ``fig.savefig("roc.png")``)',
    notes="""\
        The AUC in the legend is the exact one (:func:`sqlmetrics.auc`, over every row), not the
        area under the drawn, thinned curve. A slice with a single class has no curve to draw;
        its legend entry says "n/a".
        """,
    example="roc(df)",
    shown="'AUC 0.7222'",
)
def roc(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
    ax: Axes | None = None,
    con: Any = None,
    pos_label: Any = None,
) -> Figure:
    """Draw the ROC curve (one per slice with ``by``), with the AUC in the legend."""
    figure, axes, slices = _threshold_curve(
        "roc", data, label, score, weight, by, max_points, ax, con, pos_label
    )
    for prefix, rows, auc in slices:
        axes.plot(rows["fpr"], rows["tpr"], label=_label(prefix, "AUC", auc))
    _finish(axes, "false positive rate", "true positive rate", loc="lower right")
    return figure


@_documented(
    source="pr_curve",
    score="Column of finite numeric scores.",
    options="""\
        max_points : int or None, default 2000
            Points per curve, chosen at score quantiles; None draws every distinct score.
        """,
    pos_label=", as in\n        :func:`sqlmetrics.pr_curve`.",
    notes="""\
        Drawn as a step function (``steps-post``, as scikit-learn's ``PrecisionRecallDisplay``),
        which is what average precision integrates. The AP in the legend is the exact
        :func:`sqlmetrics.average_precision` over every row.
        """,
    example="pr(df)",
    shown="'AP 0.7556'",
)
def pr(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    max_points: int | None = DEFAULT_MAX_POINTS,
    ax: Axes | None = None,
    con: Any = None,
    pos_label: Any = None,
) -> Figure:
    """Draw the precision-recall curve (one per slice with ``by``), with the AP in the legend."""
    figure, axes, slices = _threshold_curve(
        "pr", data, label, score, weight, by, max_points, ax, con, pos_label
    )
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


@_documented(
    source="calibration_curve",
    score="Column of predicted probabilities, in [0, 1].",
    options="""\
        n_bins : int, default 10
            Number of bins, as in :func:`sqlmetrics.calibration_curve`.
        strategy : {"uniform", "quantile"}, default "uniform"
            Bins of equal width or of equal mass, as in :func:`sqlmetrics.calibration_curve`.
        """,
    notes="""\
        Each point is a non-empty bin: its mean predicted probability (x) against its fraction of
        positives (y); the diagonal is perfect calibration. The legend gives
        :func:`sqlmetrics.expected_calibration_error` with the same bins.
        """,
    example="calibration(df, n_bins=2)",
    shown="'ECE 0.0583'",
)
def calibration(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    ax: Axes | None = None,
    con: Any = None,
    pos_label: Any = None,
) -> Figure:
    """Draw the calibration (reliability) curve, one per slice, with the ECE in the legend."""
    by_cols = normalize_by("plot.calibration", by)
    options = {"n_bins": n_bins, "strategy": strategy, "pos_label": pos_label}
    columns: dict[str, str | None] = {"label": label, "score": score, "weight": weight}
    curve = _quietly(calibration_curve, data, **columns, by=by_cols or None, **options, con=con)
    eces = _summary("expected_calibration_error", data, columns, by_cols, con, options)
    figure, axes = _axes(ax, "Calibration curve")
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


@_documented(
    source="lift_table",
    score="Column of finite numeric scores.",
    weight=False,
    options="""\
        n_bins : int, default 10
            Number of score bins, as in :func:`sqlmetrics.lift_table`.
        """,
    notes="""\
        x: the share of rows targeted (``cumulative_n / n``, highest scores first), y: the share
        of all positives they hold (``gain``), from (0, 0); the diagonal is a random order. The
        legend gives the lift of the first bin (its response rate over the overall rate).
        """,
    example="gains(df, n_bins=3)",
    shown="'top-bin lift 1.3333'",
)
def gains(
    data: Any,
    *,
    label: str = "label",
    score: str = "score",
    by: str | Sequence[str] | None = None,
    n_bins: int = 10,
    ax: Axes | None = None,
    con: Any = None,
    pos_label: Any = None,
) -> Figure:
    """Draw the cumulative gains curve by score bins (deciles), one per slice."""
    by_cols = normalize_by("plot.gains", by)
    table = _quietly(
        lift_table,
        data,
        label=label,
        score=score,
        by=by_cols or None,
        n_bins=n_bins,
        con=con,
        pos_label=pos_label,
    )
    figure, axes = _axes(ax, "Cumulative gains")
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
