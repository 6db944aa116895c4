"""``eval --labels`` (scikit-learn's ``labels=`` on the command line): the CLI gives what
the Python functions give with the same classes, typed as the Python layer receives them
(an integer class column takes ``--labels 0,1,2``; a class in quotes stays text); every
error message, exit status 2 and no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import quiet

import sqlmetrics
from sqlmetrics import cli
from sqlmetrics.cli import _eval, _io


@pytest.fixture(scope="module")
def classes_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """60 rows: integer classes (y, p: p has a class 3 that y lacks), text classes (s, t),
    text classes that look like numbers (d, e) and weights; a Parquet file keeps the types."""
    rng = np.random.default_rng(7)
    n = 60
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 3, n),
            "p": rng.integers(0, 4, n),
            "s": rng.choice(["a", "b", "c"], n),
            "t": rng.choice(["a", "b", "c", "d"], n),
            "d": rng.choice(["1", "2", "10"], n),
            "e": rng.choice(["1", "2", "10"], n),
            "w": rng.choice([0.5, 1.0, 2.0], n),
        }
    )
    path = tmp_path_factory.mktemp("labels") / "classes.parquet"
    frame.to_parquet(path, index=False)
    return path, frame


def run_cli(path: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli.main, ["eval", str(path), *args, "--format", "json"])
    return result


def cli_value(path: Path, metric: str, *args: str) -> float:
    result = run_cli(path, "-m", metric, *args)
    assert result.exit_code == 0, result.output
    return float(json.loads(result.stdout)[0][metric])


# (CLI metric, --labels arguments, columns, the Python function and its arguments)
CASES = [
    ("f1_macro", ["2,0,9"], "y", "p", sqlmetrics.f1, {"average": "macro", "labels": [2, 0, 9]}),
    (
        "precision_weighted",
        ["0", "3", "1"],  # repeated --labels
        "y",
        "p",
        sqlmetrics.precision,
        {"average": "weighted", "labels": [0, 3, 1]},
    ),
    (
        "recall_micro",
        ["c,a", "x"],  # both: comma-separated and repeated
        "s",
        "t",
        sqlmetrics.recall,
        {"average": "micro", "labels": ["c", "a", "x"]},
    ),
    (
        "fbeta_macro",
        ["b,d"],
        "s",
        "t",
        sqlmetrics.fbeta,
        {"average": "macro", "labels": ["b", "d"], "beta": 2.0},
    ),
    (
        "jaccard_weighted",
        ["1,2"],
        "y",
        "p",
        sqlmetrics.jaccard,
        {"average": "weighted", "labels": [1, 2]},
    ),
    ("cohen_kappa", ["2,1,0"], "y", "p", sqlmetrics.cohen_kappa, {"labels": [2, 1, 0]}),
    # text classes that look like numbers: quoted on the command line
    (
        "f1_micro",
        ["'10','1'"],
        "d",
        "e",
        sqlmetrics.f1,
        {"average": "micro", "labels": ["10", "1"]},
    ),
]


@pytest.mark.parametrize(
    ("metric", "lists", "label", "prediction", "function", "kwargs"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_cli_labels_equal_the_python_function(
    classes_file: tuple[Path, pd.DataFrame],
    metric: str,
    lists: list[str],
    label: str,
    prediction: str,
    function: Any,
    kwargs: dict[str, Any],
) -> None:
    path, frame = classes_file
    flags = [arg for text in lists for arg in ("--labels", text)]
    options = ["--option", "beta=2"] if "beta" in kwargs else []
    got = cli_value(path, metric, "--label", label, "--prediction", prediction, *flags, *options)
    expected = quiet(function, frame, label=label, prediction=prediction, **kwargs)
    assert got == pytest.approx(expected, rel=1e-12)
    # and evaluate with the same labels (the statement the CLI runs)
    out = quiet(
        sqlmetrics.evaluate,
        frame,
        [metric],
        label=label,
        prediction=prediction,
        labels=kwargs["labels"],
        **({"beta": 2.0} if "beta" in kwargs else {}),
    )
    assert got == pytest.approx(float(out[metric].iloc[0]), rel=1e-12)
    # without --labels the value differs (the listed classes matter), so the option is read
    unlisted = cli_value(path, metric, "--label", label, "--prediction", prediction, *options)
    assert unlisted != pytest.approx(got, rel=1e-12)


def test_cli_labels_with_weights_and_slices(classes_file: tuple[Path, pd.DataFrame]) -> None:
    path, frame = classes_file
    result = run_cli(
        path,
        "-m",
        "f1_weighted",
        "--label",
        "y",
        "--prediction",
        "p",
        "--weight",
        "w",
        "--by",
        "s",
        "--labels",
        "1,0,5",
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["s"] for r in rows] == ["a", "b", "c"]
    for row in rows:
        part = frame[frame["s"] == row["s"]]
        expected = quiet(
            sqlmetrics.f1,
            part,
            label="y",
            prediction="p",
            weight="w",
            average="weighted",
            labels=[1, 0, 5],
        )
        assert row["f1_weighted"] == pytest.approx(expected, rel=1e-12)


def test_cli_labels_top_k_accuracy_long_table(tmp_path: Path) -> None:
    """top_k_accuracy's labels order tied classes: the CLI passes them as given."""
    rng = np.random.default_rng(3)
    n, classes = 40, [0, 1, 2]
    truth = rng.integers(0, 3, n)
    rows = [
        (r, c, float(rng.integers(0, 3)), int(c == truth[r])) for r in range(n) for c in classes
    ]
    long = pd.DataFrame(rows, columns=["row", "cls", "score", "label"])
    path = tmp_path / "long.parquet"
    long.to_parquet(path, index=False)
    for listed in ([2, 1, 0], [0, 1, 2]):
        got = cli_value(
            path,
            "top_k_accuracy@1",
            "--group",
            "row",
            "--item",
            "cls",
            "--labels",
            ",".join(map(str, listed)),
        )
        expected = sqlmetrics.top_k_accuracy(
            long, row_id="row", class_col="cls", k=1, labels=listed
        )
        assert got == pytest.approx(expected, rel=1e-12)
    assert cli_value(
        path, "top_k_accuracy@1", "--group", "row", "--item", "cls", "--labels", "2,1,0"
    ) != pytest.approx(
        cli_value(path, "top_k_accuracy@1", "--group", "row", "--item", "cls", "--labels", "0,1,2")
    )


def test_parse_class_typing() -> None:
    assert [_io.parse_class(t) for t in ["2", " 2 ", "2.5", "true", "'2'", '"x y"', "cat"]] == [
        2,
        2,
        2.5,
        True,
        "2",
        "x y",
        "cat",
    ]
    # none and nan name no Python class: they stay text
    assert [_io.parse_class(t) for t in ["none", "NaN"]] == ["none", "NaN"]
    assert _eval.parse_classes(("a,b", "c")) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--labels", "2,,1"],
            "--labels '2,,1': an empty class; write the classes separated by commas, e.g. "
            "--labels cat,dog or --labels 0,1,2",
        ),
        (["--labels", ""], "--labels '': an empty class"),
        (
            ["--labels", "2,0", "--labels", "2"],
            "f1_macro: --labels lists class 2 twice: [2, 0, 2]; list each class once",
        ),
        (
            ["--labels", "2,a"],
            "f1_macro: --labels mixes kinds of classes (number, text): [2, 'a']; list classes "
            "of the label column's one type",
        ),
        (
            ["--labels", "'1','2'"],
            "f1_macro: --labels ['1', '2'] holds text classes but label column 'y' has type "
            "BIGINT; list number classes (e.g. [1, ...])",
        ),
        (
            ["--labels", "1", "--option", "labels=2"],
            "--labels and --option labels= both given; give the classes with --labels only",
        ),
    ],
)
def test_cli_labels_errors(
    classes_file: tuple[Path, pd.DataFrame], args: list[str], message: str
) -> None:
    path, _ = classes_file
    result = run_cli(path, "-m", "f1_macro", "--label", "y", "--prediction", "p", *args)
    assert result.exit_code == 2, result.output
    assert f"sqlmetrics: error: {message}" in result.output
    assert "Traceback" not in result.output


def test_cli_labels_errors_of_the_data_and_the_metric(
    classes_file: tuple[Path, pd.DataFrame],
) -> None:
    path, _ = classes_file
    text = run_cli(path, "-m", "f1_macro", "--label", "d", "--prediction", "e", "--labels", "1,2")
    assert text.exit_code == 2
    assert (
        "sqlmetrics: error: f1_macro: --labels [1, 2] holds number classes but label column "
        "'d' has type VARCHAR; list text classes (e.g. ['a', ...])" in text.output
    )
    binary = run_cli(path, "-m", "auc", "--label", "y", "--score", "w", "--labels", "1")
    assert binary.exit_code == 2
    assert (
        "sqlmetrics: error: evaluate: option --labels is accepted by none of the requested "
        "metrics (auc)" in binary.output
    )


def test_cli_labels_with_class_scores_is_refused(tmp_path: Path) -> None:
    """--class-score pairs each class with its column: the classes are named there."""
    frame = pd.DataFrame(
        {"y": list("abcab"), "pa": [0.5, 0.2, 0.1, 0.6, 0.3], "pb": [0.3, 0.5, 0.2, 0.2, 0.4]}
    )
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    pairs = ["--class-score", "a=pa", "--class-score", "b=pb"]
    result = run_cli(path, "-m", "multiclass_auc", "--label", "y", *pairs, "--labels", "a,b")
    assert result.exit_code == 2
    assert (
        "sqlmetrics: error: multiclass_auc: --class-score is a mapping (class -> column) and "
        "--labels ['a', 'b'] is given too; the mapping names the classes: leave --labels out"
        in result.output
    )
