"""Plots: valid non-blank images, one curve per slice, AUC/AP in the legend, lazy matplotlib."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
import sqlmetrics.plot
from sqlmetrics.cli._plot import plot as plot_command

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "label": y,
            "score": np.round(rng.normal(size=n) + y, 2),
            "country": rng.choice(["FR", "DE", "JP"], n),
        }
    )


def assert_valid_image(path: Path) -> None:
    from matplotlib.image import imread

    assert path.read_bytes()[:8] == PNG_SIGNATURE
    pixels = imread(str(path))
    assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
    assert pixels.std() > 0.05  # not blank
    assert len(np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)) > 20  # lines, text


def test_import_sqlmetrics_does_not_import_matplotlib() -> None:
    code = (
        "import sys, sqlmetrics, sqlmetrics.plot, sqlmetrics.cli._plot; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_roc_one_curve_per_slice_with_exact_auc(frame: pd.DataFrame, tmp_path: Path) -> None:
    fig = sqlmetrics.plot.roc(frame, by="country")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    expected = [
        f"country={c} (AUC {sqlmetrics.auc(g):.4f})"
        for c, g in sorted(frame.groupby("country"), key=lambda kv: kv[0])
    ]
    assert labels == expected
    curve = sqlmetrics.roc_curve(frame[frame["country"] == "DE"], max_points=2000)
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), curve["fpr"])
    np.testing.assert_allclose(line.get_ydata(), curve["tpr"])
    path = tmp_path / "roc.png"
    fig.savefig(path)
    assert_valid_image(path)


def test_pr_plot_has_ap_and_renders(frame: pd.DataFrame, tmp_path: Path) -> None:
    fig = sqlmetrics.plot.pr(frame, max_points=50)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        f"AP {sqlmetrics.average_precision(frame):.4f}"
    ]
    assert len(ax.get_lines()[0].get_xdata()) <= 50
    path = tmp_path / "pr.png"
    fig.savefig(path)
    assert_valid_image(path)


def test_plot_on_given_axes(frame: pd.DataFrame) -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert sqlmetrics.plot.roc(frame, ax=left) is fig
    assert sqlmetrics.plot.pr(frame, ax=right) is fig
    assert left.get_lines() and right.get_lines()


def test_cli_writes_png(frame: pd.DataFrame, tmp_path: Path) -> None:
    data = tmp_path / "scores.parquet"
    frame.to_parquet(data)
    out = tmp_path / "roc.png"
    result = CliRunner().invoke(
        plot_command, ["roc", str(data), "--by", "country", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert_valid_image(out)
    out_pr = tmp_path / "pr.png"
    result = CliRunner().invoke(plot_command, ["pr", str(data), "-o", str(out_pr)])
    assert result.exit_code == 0, result.output
    assert_valid_image(out_pr)


def test_cli_bad_input_one_line_exit_2(frame: pd.DataFrame, tmp_path: Path) -> None:
    data = tmp_path / "scores.csv"
    frame.to_csv(data, index=False)
    runner = CliRunner()
    result = runner.invoke(
        plot_command, ["roc", str(data), "--score", "pctr", "--output", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        "sqlmetrics: error: roc_curve: column 'pctr' (--score) not found"
    )
    result = runner.invoke(plot_command, ["pr", str(data), "--output", str(tmp_path / "x.txt")])
    assert result.exit_code == 2
    assert "plot pr: --output" in result.stderr and "must end in .png" in result.stderr
    graded = tmp_path / "graded.csv"
    frame.assign(label=frame["label"] * 2).to_csv(graded, index=False)
    result = runner.invoke(plot_command, ["roc", str(graded), "--output", str(tmp_path / "g.png")])
    assert result.exit_code == 2
    assert "values outside {0, 1}" in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "g.png").exists()


def test_plot_by_validation_error(frame: pd.DataFrame) -> None:
    with pytest.raises(
        sqlmetrics.InvalidParameterError, match=r"plot.roc: by= names a column twice"
    ):
        sqlmetrics.plot.roc(frame, by=["country", "country"])


def test_missing_matplotlib_says_how_to_install(
    frame: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # makes the import fail
    with pytest.raises(ImportError, match=r"needs matplotlib: pip install 'sqlmetrics\[plot\]'"):
        sqlmetrics.plot.roc(frame)
    data = tmp_path / "scores.parquet"
    frame.to_parquet(data)
    result = CliRunner().invoke(plot_command, ["pr", str(data), "-o", str(tmp_path / "p.png")])
    assert result.exit_code == 2
    assert result.stderr == (
        "sqlmetrics: error: sqlmetrics.plot needs matplotlib: pip install 'sqlmetrics[plot]'\n"
    )


def test_date_slices_print_as_dates(frame: pd.DataFrame) -> None:
    days = pd.to_datetime(["2026-11-01", "2026-11-02"]).date
    dated = frame.assign(day=[days[i % 2] for i in range(len(frame))])
    for draw in (sqlmetrics.plot.roc, sqlmetrics.plot.pr):
        fig = draw(dated, by="day")
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert [t.split(" (")[0] for t in texts] == ["day=2026-11-01", "day=2026-11-02"]
    stamped = frame.assign(at=pd.Timestamp("2026-11-01 12:30:00"))
    fig = sqlmetrics.plot.roc(stamped, by="at")
    assert (
        fig.axes[0].get_legend().get_texts()[0].get_text().startswith("at=2026-11-01 12:30:00 (AUC")
    )


def test_pr_legend_does_not_cover_the_curves(frame: pd.DataFrame) -> None:
    fig = sqlmetrics.plot.pr(frame, by="country")
    fig.draw_without_rendering()  # lay the figure out (constrained layout)
    legend = fig.axes[0].get_legend().get_window_extent()
    axes = fig.axes[0].get_window_extent()
    assert not legend.overlaps(axes)
    assert fig.bbox.contains(legend.x1 - 1, legend.y1 - 1)  # still inside the image


def test_two_valued_labels_plot_with_pos_label(frame: pd.DataFrame, tmp_path: Path) -> None:
    # the error told to pass pos_label=, which plot.roc/pr and `sqlmetrics plot` did not take
    named = frame.assign(label=frame["label"].map({1: "spam", 0: "ham"}))
    figure = sqlmetrics.plot.roc(named, pos_label="spam")
    expected = sqlmetrics.auc(frame)
    assert figure.axes[0].get_legend().get_texts()[0].get_text() == f"AUC {expected:.4f}"
    figure = sqlmetrics.plot.pr(named, pos_label="spam")
    expected = sqlmetrics.average_precision(frame)
    assert figure.axes[0].get_legend().get_texts()[0].get_text() == f"AP {expected:.4f}"
    data = tmp_path / "named.csv"
    named.to_csv(data, index=False)
    runner = CliRunner()
    result = runner.invoke(plot_command, ["roc", str(data), "-o", str(tmp_path / "n.png")])
    assert result.exit_code == 2 and "--pos-label 'spam'" in result.stderr
    for kind in ("roc", "pr"):
        out = tmp_path / f"{kind}.png"
        result = runner.invoke(
            plot_command, [kind, str(data), "--option", "pos_label=spam", "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        assert_valid_image(out)
    result = runner.invoke(
        plot_command, ["roc", str(data), "--option", "gain=linear", "-o", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 2
    assert "--option gain= is not an option of a curve" in result.stderr


# ----------------------------------------------------------------- calibration and gains (hF)
def test_calibration_plot_has_ece_and_renders(frame: pd.DataFrame, tmp_path: Path) -> None:
    probs = frame.assign(pctr=frame["score"].rank(pct=True))
    fig = sqlmetrics.plot.calibration(probs, score="pctr", by="country", n_bins=5)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    for country, rows in probs.groupby("country"):
        ece = sqlmetrics.expected_calibration_error(rows, score="pctr", n_bins=5)
        assert f"country={country} (ECE {ece:.4f})" in texts
    curve = sqlmetrics.calibration_curve(probs, score="pctr", n_bins=5)
    single = sqlmetrics.plot.calibration(probs, score="pctr", n_bins=5)
    xs, ys = single.axes[0].get_lines()[0].get_data()
    assert list(xs) == list(curve["mean_predicted"])
    assert list(ys) == list(curve["fraction_positive"])
    out = tmp_path / "cal.png"
    single.savefig(out)
    assert_valid_image(out)


def test_gains_plot_starts_at_origin_and_ends_at_one(frame: pd.DataFrame, tmp_path: Path) -> None:
    fig = sqlmetrics.plot.gains(frame, n_bins=5)
    xs, ys = fig.axes[0].get_lines()[0].get_data()
    assert (xs[0], ys[0]) == (0.0, 0.0)
    assert xs[-1] == pytest.approx(1.0) and ys[-1] == pytest.approx(1.0)
    table = sqlmetrics.lift_table(frame, n_bins=5)
    text = fig.axes[0].get_legend().get_texts()[0].get_text()
    assert text == f"top-bin lift {table['lift'].iloc[0]:.4f}"
    out = tmp_path / "gains.png"
    fig.savefig(out)
    assert_valid_image(out)


def test_cli_calibration_and_gains(frame: pd.DataFrame, tmp_path: Path) -> None:
    data = tmp_path / "d.parquet"
    frame.assign(pctr=frame["score"].rank(pct=True)).to_parquet(data)
    out = tmp_path / "c.png"
    result = CliRunner().invoke(
        plot_command,
        ["calibration", str(data), "--score", "pctr", "--strategy", "quantile", "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert_valid_image(out)
    out = tmp_path / "g.svg"
    result = CliRunner().invoke(plot_command, ["gains", str(data), "--n-bins", "4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    result = CliRunner().invoke(
        plot_command, ["gains", str(data), "--option", "n_bins=3", "-o", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 2
    assert "plot gains: --option n_bins= is not an option of this plot" in result.stderr
    result = CliRunner().invoke(
        plot_command, ["calibration", str(data), "-o", str(tmp_path / "x.txt")]
    )
    assert result.exit_code == 2
    assert "plot calibration: --output" in result.stderr and "must end in .png" in result.stderr
