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
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

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
    pos_label: Any = None,
) -> dict[tuple[Any, ...], float]:
    """The exact AUC / AP per slice (computed over every row, not the thinned curve)."""
    import pandas as pd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        frame = compute(
            name, data, con=con, columns=columns, by=by or None, params={"pos_label": pos_label}
        )
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
    """Draw the ROC curve (one per slice with ``by``), with the AUC in the legend.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`sqlmetrics.roc_curve`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean.
    score : str, default "score"
        Column of finite numeric scores.
    weight : str, optional
        Column of non-negative sample weights.
    by : str or list of str, optional
        Slice columns: one curve per distinct combination.
    max_points : int or None, default 2000
        Points per curve, chosen at score quantiles (see :func:`sqlmetrics.roc_curve`); None
        draws every distinct score.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes; by default a new figure is made.
    con : duckdb connection, str, SparkSession or SQLAlchemy engine, optional
        As in :func:`sqlmetrics.roc_curve`.
    pos_label : optional
        The positive class of a label column of two other values (``"spam"``), as in
        :func:`sqlmetrics.roc_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (save it with ``fig.savefig("roc.png")``).

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.roc_curve`.

    Notes
    -----
    The AUC in the legend is the exact one (:func:`sqlmetrics.auc`, over every row), not the
    area under the drawn, thinned curve. A slice with a single class has no curve to draw;
    its legend entry says "n/a".

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> fig = sqlmetrics.plot.roc(df)
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    'AUC 0.7222'
    """
    by_cols = normalize_by("plot.roc", by)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        curve = roc_curve(
            data,
            label=label,
            score=score,
            weight=weight,
            by=by_cols or None,
            max_points=max_points,
            con=con,
            pos_label=pos_label,
        )
    aucs = _summary(
        "auc", data, {"label": label, "score": score, "weight": weight}, by_cols, con, pos_label
    )
    figure, axes = _axes(ax, "ROC curve")
    for prefix, rows in _slices(curve, by_cols):
        key = _key(rows.iloc[0], by_cols)
        axes.plot(rows["fpr"], rows["tpr"], label=_label(prefix, "AUC", aucs.get(key, math.nan)))
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel("false positive rate")
    axes.set_ylabel("true positive rate")
    axes.legend(loc="lower right")
    return figure


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
    """Draw the precision-recall curve (one per slice with ``by``), with the AP in the legend.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`sqlmetrics.pr_curve`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean.
    score : str, default "score"
        Column of finite numeric scores.
    weight : str, optional
        Column of non-negative sample weights.
    by : str or list of str, optional
        Slice columns: one curve per distinct combination.
    max_points : int or None, default 2000
        Points per curve, chosen at score quantiles; None draws every distinct score.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes; by default a new figure is made.
    con : duckdb connection, str, SparkSession or SQLAlchemy engine, optional
        As in :func:`sqlmetrics.pr_curve`.
    pos_label : optional
        The positive class of a label column of two other values, as in
        :func:`sqlmetrics.pr_curve`.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.pr_curve`.

    Notes
    -----
    Drawn as a step function (``steps-post``, as scikit-learn's ``PrecisionRecallDisplay``),
    which is what average precision integrates. The AP in the legend is the exact
    :func:`sqlmetrics.average_precision` over every row.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> fig = sqlmetrics.plot.pr(df)
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    'AP 0.7556'
    """
    by_cols = normalize_by("plot.pr", by)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        curve = pr_curve(
            data,
            label=label,
            score=score,
            weight=weight,
            by=by_cols or None,
            max_points=max_points,
            con=con,
            pos_label=pos_label,
        )
    aps = _summary(
        "average_precision",
        data,
        {"label": label, "score": score, "weight": weight},
        by_cols,
        con,
        pos_label,
    )
    figure, axes = _axes(ax, "Precision-recall curve")
    for prefix, rows in _slices(curve, by_cols):
        key = _key(rows.iloc[0], by_cols)
        axes.plot(
            rows["recall"],
            rows["precision"],
            drawstyle="steps-post",
            label=_label(prefix, "AP", aps.get(key, math.nan)),
        )
    axes.set_xlabel("recall")
    axes.set_ylabel("precision")
    # outside the axes, to the right: precision-recall curves fill any corner of the plot
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return figure


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
    """Draw the calibration (reliability) curve, one per slice, with the ECE in the legend.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`sqlmetrics.calibration_curve`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean.
    score : str, default "score"
        Column of predicted probabilities, in [0, 1].
    weight : str, optional
        Column of non-negative sample weights.
    by : str or list of str, optional
        Slice columns: one curve per distinct combination.
    n_bins : int, default 10
        Number of bins, as in :func:`sqlmetrics.calibration_curve`.
    strategy : {"uniform", "quantile"}, default "uniform"
        Bins of equal width or of equal mass, as in :func:`sqlmetrics.calibration_curve`.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes; by default a new figure is made.
    con : duckdb connection, str, SparkSession or SQLAlchemy engine, optional
        As in :func:`sqlmetrics.calibration_curve`.
    pos_label : optional
        The positive class of a label column of two other values.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.calibration_curve`.

    Notes
    -----
    Each point is a non-empty bin: its mean predicted probability (x) against its fraction of
    positives (y); the diagonal is perfect calibration. The legend gives
    :func:`sqlmetrics.expected_calibration_error` with the same bins.

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> fig = sqlmetrics.plot.calibration(df, n_bins=2)
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    'ECE 0.0583'
    """
    import pandas as pd

    by_cols = normalize_by("plot.calibration", by)
    options = {"n_bins": n_bins, "strategy": strategy, "pos_label": pos_label}
    columns: dict[str, str | None] = {"label": label, "score": score, "weight": weight}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        curve = calibration_curve(
            data,
            label=label,
            score=score,
            weight=weight,
            by=by_cols or None,
            n_bins=n_bins,
            strategy=strategy,
            pos_label=pos_label,
            con=con,
        )
        errors = compute(
            "expected_calibration_error",
            data,
            con=con,
            columns=columns,
            by=by_cols or None,
            params=options,
        )
    eces = {
        _key(row, by_cols): float(row["expected_calibration_error"])
        if pd.notna(row["expected_calibration_error"])
        else math.nan
        for _, row in errors.iterrows()
    }
    figure, axes = _axes(ax, "Calibration curve")
    for prefix, rows in _slices(curve, by_cols):
        key = _key(rows.iloc[0], by_cols)
        axes.plot(
            rows["mean_predicted"],
            rows["fraction_positive"],
            marker="o",
            label=_label(prefix, "ECE", eces.get(key, math.nan)),
        )
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel("mean predicted probability")
    axes.set_ylabel("fraction of positives")
    axes.legend(loc="upper left")
    return figure


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
    """Draw the cumulative gains curve by score bins (deciles), one per slice.

    Parameters
    ----------
    data : str, path, pandas.DataFrame, pyarrow.Table or duckdb.DuckDBPyRelation
        The input, as in :func:`sqlmetrics.lift_table`.
    label : str, default "label"
        Column of true labels: 0/1 or boolean.
    score : str, default "score"
        Column of finite numeric scores.
    by : str or list of str, optional
        Slice columns: one curve per distinct combination.
    n_bins : int, default 10
        Number of score bins, as in :func:`sqlmetrics.lift_table`.
    ax : matplotlib.axes.Axes, optional
        Draw on these axes; by default a new figure is made.
    con : duckdb connection, str, SparkSession or SQLAlchemy engine, optional
        As in :func:`sqlmetrics.lift_table`.
    pos_label : optional
        The positive class of a label column of two other values.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ColumnNotFoundError, InvalidDataError, InvalidParameterError, DataSourceError
        As in :func:`sqlmetrics.lift_table`.

    Notes
    -----
    x: the share of rows targeted (``cumulative_n / n``, highest scores first), y: the share
    of all positives they hold (``gain``), from (0, 0); the diagonal is a random order. The
    legend gives the lift of the first bin (its response rate over the overall rate).

    Examples
    --------
    >>> import pandas as pd
    >>> import sqlmetrics.plot
    >>> df = pd.DataFrame({"label": [0, 0, 1, 1, 1, 0], "score": [.1, .4, .35, .8, .5, .5]})
    >>> fig = sqlmetrics.plot.gains(df, n_bins=3)
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    'top-bin lift 1.3333'
    """
    by_cols = normalize_by("plot.gains", by)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        table = lift_table(
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
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8)
    axes.set_xlabel("share of rows (highest scores first)")
    axes.set_ylabel("share of positives (gain)")
    axes.legend(loc="lower right")
    return figure
