"""Users' own metrics (register_sql, --metrics-dir): like a built-in, or a clear error."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import sqlmetrics
from sqlmetrics import TemplateContractError
from sqlmetrics._templating import templates as _templates
from sqlmetrics.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "my_metrics" / "ctr_lift.sql"
CTR = ROOT / "examples" / "data" / "ctr.csv"


def oracle(frame: pd.DataFrame, threshold: float = 0.5) -> float:
    """CTR of the rows scored >= threshold over the overall CTR, row by row."""
    top = [c for c, p in zip(frame["click"], frame["pctr"]) if p >= threshold]
    if not top or not frame["click"].sum():
        return float("nan")
    return (sum(top) / len(top)) / (frame["click"].sum() / len(frame))


@pytest.fixture
def ctr_lift() -> sqlmetrics._core.registry.MetricSpec:
    return sqlmetrics.register_sql(EXAMPLE)


def test_value_matches_the_oracle(ctr_lift: object) -> None:
    frame = pd.read_csv(CTR)
    for threshold in (0.5, 0.3, 0.1):
        got = sqlmetrics.evaluate(
            frame, "ctr_lift", label="click", score="pctr", threshold=threshold
        )
        assert got["ctr_lift"][0] == pytest.approx(oracle(frame, threshold), rel=1e-12)


def test_by_slices_and_builtins_in_one_statement(ctr_lift: object) -> None:
    frame = pd.read_csv(CTR)
    got = sqlmetrics.evaluate(
        frame,
        ["auc", "ctr_lift", "gauc"],
        label="click",
        score="pctr",
        group="user_id",
        by=["country", "day"],
        threshold=0.3,
    )
    assert list(got.columns) == ["country", "day", "auc", "ctr_lift", "gauc", "n_rows", "n_groups"]
    for _, row in got.iterrows():
        part = frame[(frame["country"] == row["country"]) & (frame["day"] == row["day"])]
        assert row["ctr_lift"] == pytest.approx(oracle(part, 0.3), rel=1e-12)
        assert row["auc"] == sqlmetrics.auc(part, label="click", score="pctr")


def test_undefined_gives_nan_with_a_warning(ctr_lift: object) -> None:
    frame = pd.DataFrame({"click": [1, 0], "pctr": [0.2, 0.1]})
    with pytest.warns(sqlmetrics.UndefinedMetricWarning, match="no row scored >= threshold"):
        got = sqlmetrics.evaluate(frame, "ctr_lift", label="click", score="pctr")
    assert np.isnan(got["ctr_lift"][0])


def test_same_parameter_checks_as_a_builtin(ctr_lift: object) -> None:
    frame = pd.read_csv(CTR)
    with pytest.raises(sqlmetrics.InvalidParameterError, match="threshold= must be a finite"):
        sqlmetrics.evaluate(frame, "ctr_lift", label="click", score="pctr", threshold="x")
    with pytest.raises(sqlmetrics.InvalidParameterError, match="accepted by none"):
        sqlmetrics.evaluate(frame, "ctr_lift", label="click", score="pctr", beta=2.0)
    with pytest.raises(sqlmetrics.ColumnNotFoundError, match="clicks"):
        sqlmetrics.evaluate(frame, "ctr_lift", label="clicks", score="pctr")


def test_names_render_and_render_evaluate(ctr_lift: object) -> None:
    assert "ctr_lift" in sqlmetrics.metric_names(scalar_only=True)
    sql = sqlmetrics.render("ctr_lift", "events", label="click", score="pctr", threshold=0.3)
    assert "score >= cast(0.3e0 as double)" in sql and 'from "events"' in sql
    composed = sqlmetrics.render_evaluate(
        "events", ["auc", "ctr_lift"], label="click", score="pctr", by="country"
    )
    assert "ctr_lift" in composed


def test_builtins_render_identically_after_a_registration() -> None:
    before = {m: sqlmetrics.render(m, "t", by="c") for m in ("auc", "f1", "ndcg@5", "log_loss")}
    with sqlmetrics.registered_sql(EXAMPLE):
        after = {m: sqlmetrics.render(m, "t", by="c") for m in before}
    assert after == before
    assert "ctr_lift" not in sqlmetrics.metric_names()  # and gone after the block


def test_arguments_override_the_front_matter(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace("ctr_lift", "lift2")
    (tmp_path / "lift2.sql").write_text(text)
    spec = sqlmetrics.register_sql(
        tmp_path / "lift2.sql",
        roles={"label": "binary", "score": "score", "weight": "weight?"},
        summary="mine",
    )
    assert spec.summary == "mine" and spec.roles[2].required is False


def test_a_cut_off_as_for_ranking_metrics(tmp_path: Path) -> None:
    path = tmp_path / "m.sql"
    path.write_text(
        FRONT.replace("summary", "params: k\n  summary")
        + GOOD_KERNEL.replace(
            "count(*) as x",
            "{% for e in entries %}{{ e.k or 0 }} as {{ e.alias }}, {% endfor %}count(*) as x",
        )
    )
    sqlmetrics.register_sql(path)
    assert "m@k" in sqlmetrics.metric_names()
    frame = pd.DataFrame({"label": [1, 0]})
    got = sqlmetrics.evaluate(frame, ["m@3", "m@7", "m"])
    assert len(got) == 1 and list(got.iloc[0]) == [3, 7, 0, 2]
    with pytest.raises(sqlmetrics.InvalidParameterError, match="k= must be an integer >= 1"):
        sqlmetrics.render("m", "t", k=0)


def test_cli_eval_list_render_with_metrics_dir() -> None:
    runner = CliRunner()
    args = ["--metrics-dir", str(EXAMPLE.parent)]
    out = runner.invoke(
        main,
        [
            "eval",
            str(CTR),
            "-m",
            "ctr_lift",
            "-m",
            "auc",
            "--label",
            "click",
            "--score",
            "pctr",
            "--format",
            "csv",
            *args,
        ],
    )
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(CTR)
    value = float(out.output.splitlines()[1].split(",")[0])
    assert value == pytest.approx(oracle(frame), rel=1e-6)
    sqlmetrics.unregister_sql("ctr_lift")  # one CLI process per command in real use
    out = runner.invoke(main, ["list", *args])
    assert "ctr_lift" in out.output and "threshold=0.5" in out.output
    sqlmetrics.unregister_sql("ctr_lift")
    out = runner.invoke(main, ["render", "ctr_lift", "--label", "click", *args])
    assert out.exit_code == 0 and 'cast("click" as boolean)' in out.output


def test_cli_metrics_dir_errors(tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["list", "--metrics-dir", str(tmp_path / "none")])
    assert out.exit_code != 0 and "no such directory" in out.output
    out = CliRunner().invoke(main, ["list", "--metrics-dir", str(tmp_path)])
    assert out.exit_code != 0 and "holds no *.sql file" in out.output


# --------------------------------------------------------------------------- broken files
GOOD_KERNEL = (
    "{% macro m_kernel(relation, by, columns, options, entries) -%}\n"
    "select {{ slice_cols(by) }} count(*) as x\n"
    "from (select {{ slice_source(by) }} 1 as one from {{ relation }}) as s {{ group_by(by) }}\n"
    "{%- endmacro %}\n"
)
FRONT = "{#\n  name: m\n  roles: label=binary\n  summary: a test metric\n#}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (FRONT + "select 1\n" + GOOD_KERNEL, "breaks the template contract: only"),
        (FRONT + "{% import 'x.sql' as x %}\n" + GOOD_KERNEL, "breaks the template contract"),
        (
            FRONT + GOOD_KERNEL.replace("m_kernel", "m_query"),
            r"no kernel macro m_kernel\(relation, by, columns, options, entries\) \(macros found: "
            r"m_query\)",
        ),
        (
            FRONT + GOOD_KERNEL.replace("columns, options", "cols, options"),
            r"the kernel must be m_kernel\(relation, by, columns, options, entries\); it is "
            r"m_kernel\(relation, by, cols, options, entries\)",
        ),
        (
            FRONT.replace("label=binary", "label=boolean") + GOOD_KERNEL,
            "role 'label' has unknown kind 'boolean'; kinds: binary, score",
        ),
        (FRONT.replace("label=binary", "click=binary") + GOOD_KERNEL, "unknown role 'click'"),
        (
            FRONT.replace("summary", "params: threshold, tresh\n  summary") + GOOD_KERNEL,
            "unknown parameter 'tresh'",
        ),
        (
            FRONT.replace("label=binary", "label binary") + GOOD_KERNEL,
            "roles: expects 'role=kind' pairs",
        ),
        (FRONT.replace("  roles: label=binary\n", "") + GOOD_KERNEL, "no roles: pass roles="),
        (FRONT.replace("  summary: a test metric\n", "") + GOOD_KERNEL, "no summary"),
        (FRONT.replace("name: m", "name: M-1") + GOOD_KERNEL, "must be a lowercase identifier"),
        (
            FRONT + GOOD_KERNEL + "{% macro safe_div(a, b) %}{% endmacro %}\n",
            r"macro 'safe_div' is already defined in sql/_macros/shared/common.sql",
        ),
        (FRONT + GOOD_KERNEL + "{% macro ref(a) %}{% endmacro %}\n", "shadows a dbt builtin"),
        (FRONT + "{% macro m_kernel(relation %}\n", "m.sql"),
    ],
)
def test_a_broken_file_is_refused_with_its_name(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.sql"
    path.write_text(text)
    with pytest.raises(TemplateContractError, match=message) as info:
        sqlmetrics.register_sql(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, sqlmetrics.InvalidParameterError)
    assert "m" not in sqlmetrics.metric_names() and not _templates.USER_FILES


def test_front_matter_key_twice(tmp_path: Path) -> None:
    path = tmp_path / "m.sql"
    path.write_text(FRONT.replace("summary:", "summary: x\n  summary:") + GOOD_KERNEL)
    with pytest.raises(TemplateContractError, match=f"{path}: front matter gives summary: twice"):
        sqlmetrics.register_sql(path)


def test_registering_a_name_twice(tmp_path: Path, ctr_lift: object) -> None:
    with pytest.raises(TemplateContractError, match="a metric 'ctr_lift' is already registered"):
        sqlmetrics.register_sql(EXAMPLE)
    path = tmp_path / "auc.sql"
    path.write_text(FRONT.replace("name: m", "name: auc") + GOOD_KERNEL)
    with pytest.raises(TemplateContractError, match="a metric 'auc' is already registered"):
        sqlmetrics.register_sql(path)


def test_a_macro_of_another_user_file_names_both(tmp_path: Path, ctr_lift: object) -> None:
    path = tmp_path / "m.sql"
    path.write_text(FRONT + GOOD_KERNEL + "{% macro ctr_lift_ratio(a) %}{% endmacro %}\n")
    with pytest.raises(
        TemplateContractError,
        match=f"{path}: macro 'ctr_lift_ratio' is already defined in {EXAMPLE}",
    ):
        sqlmetrics.register_sql(path)


def test_missing_file_and_unregister_unknown(tmp_path: Path) -> None:
    with pytest.raises(TemplateContractError, match="no such file"):
        sqlmetrics.register_sql(tmp_path / "none.sql")
    with pytest.raises(TemplateContractError, match="'auc' is not a registered user metric"):
        sqlmetrics.unregister_sql("auc")


def test_a_kernel_calling_an_unknown_macro_is_refused_when_registered(tmp_path: Path) -> None:
    """Trial-rendered before it is accepted (issue 22): the error names the file and line."""
    path = tmp_path / "m.sql"
    path.write_text(FRONT + GOOD_KERNEL.replace("slice_cols(by)", "no_such(by)"))
    with pytest.raises(
        TemplateContractError, match=rf"{re.escape(str(path))}, line \d+: .*no_such"
    ):
        sqlmetrics.register_sql(path)
    assert "m" not in sqlmetrics._core.registry.REGISTRY and "m" not in _templates.USER_FILES
