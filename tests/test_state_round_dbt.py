"""Rounded states in dbt (issue 26, part 2): ``sqlmetrics.evaluate_state(..., round=d)`` and
``sqlmetrics.merge_states(..., round=d)`` on dbt-duckdb give Python's state rows and merged
frame (the AUC of the rounded scores with its certified bounds), bit for bit, and refuse
what Python refuses with its message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import sqlmetrics

pytestmark = pytest.mark.dbt

ROOT = Path(__file__).resolve().parents[1]
DBT = Path(sys.executable).parent / "dbt"
ARGS = {"label": "click", "score": "pctr", "group": "user", "by": "country", "round": 2,
        "weighting": "positives"}  # fmt: skip
DBT_ARGS = "label='click', score='pctr', group='user', by='country', round=2, weighting='positives'"
METRICS = ["auc", "gauc"]

#: one partition per day, states appended with the day in front, and their merge
MODELS = {
    "rounded_states": "\n".join(
        [
            "{% for day in [0, 1, 2] %}",
            "select {{ day }} as day, state.* from (",
            "{{ sqlmetrics.evaluate_state('(select * from ' ~ ref('log') ~ ' where day = ' ~ day"
            f" ~ ') as one_day', metrics={METRICS}, {DBT_ARGS}) }}}}",
            ") as state {{ 'union all' if not loop.last }}",
            "{% endfor %}",
        ]
    ),
    "merged_rounded": "{{ sqlmetrics.merge_states(ref('rounded_states'), "
    f"metrics={METRICS}, {DBT_ARGS}) }}}}",
    "merged_unsliced": "{{ sqlmetrics.merge_states(ref('rounded_states'), metrics='auc', "
    "label='click', score='pctr', round=2) }}",
}


def _log() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 900
    score = np.round(rng.random(n), 4)
    score[::13] = 0.125  # halfway at round=2 (12.5 goes up), tied
    country = rng.choice(["DE", "FR", "IT"], n).astype(object)
    country[::9] = None  # a NULL slice
    return pd.DataFrame({
        "day": rng.integers(0, 3, n), "country": country, "user": rng.integers(0, 40, n),
        "click": (rng.random(n) < score).astype(int), "pctr": score,
    })  # fmt: skip


def _dbt(
    project: Path, env: dict[str, str], *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, DBT_PROFILES_DIR=str(project), DBT_SEND_ANONYMOUS_USAGE_STATS="false", **env
    )
    env.pop("DBT_TARGET_PATH", None)
    done = subprocess.run([str(DBT), *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    if check and done.returncode != 0:
        raise AssertionError(f"dbt {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def _project(tmp: Path, log: pd.DataFrame, target: str, env: dict[str, str]) -> Path:
    """A dbt project with the log as a seed and MODELS, for ``target`` (duckdb, postgres)."""
    project = tmp / "project"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    log.to_csv(project / "seeds" / "log.csv", index=False)  # floats: shortest round trip
    double = "double" if target == "duckdb" else "double precision"
    (project / "dbt_project.yml").write_text(
        "name: rounded_states\nversion: '1.0.0'\nconfig-version: 2\nprofile: rounded\n"
        "model-paths: ['models']\nseed-paths: ['seeds']\n"
        "models:\n  rounded_states:\n    +materialized: table\n"
        "seeds:\n  rounded_states:\n    log:\n      +column_types: {day: integer, user: integer, "
        f"country: varchar(8), click: integer, pctr: {double}}}\n"
    )
    output = (
        f"      type: duckdb\n      path: '{tmp / 'db.duckdb'}'\n      schema: main\n"
        if target == "duckdb"
        else "      type: postgres\n      host: \"{{ env_var('PGHOST') }}\"\n"
        "      port: \"{{ env_var('PGPORT') | as_number }}\"\n"
        "      user: \"{{ env_var('PGUSER') }}\"\n      password: ''\n"
        "      dbname: \"{{ env_var('PGDATABASE') }}\"\n      schema: rounded_states\n"
    )
    (project / "profiles.yml").write_text(
        f"rounded:\n  target: {target}\n  outputs:\n    {target}:\n{output}      threads: 1\n"
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: '{ROOT}'\n")
    for name, sql in MODELS.items():
        (project / "models" / f"{name}.sql").write_text(sql + "\n")
    return project


@pytest.mark.parametrize("target", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_rounded_states_in_dbt_are_pythons(
    tmp_path: Path, target: str, request: pytest.FixtureRequest
) -> None:
    log = _log()
    env: dict[str, str] = {}
    if target == "postgres":
        server = request.getfixturevalue("pg_server")
        env = {"PGHOST": server.host, "PGPORT": str(server.port), "PGUSER": server.user,
               "PGDATABASE": server.database}  # fmt: skip
    project = _project(tmp_path, log, target, env)
    _dbt(project, env, "deps")
    _dbt(project, env, "build")
    if target == "duckdb":
        with duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True) as con:
            tables = {name: con.sql(f"select * from main.{name}").df() for name in [*MODELS, "log"]}
    else:
        engine = request.getfixturevalue("pg_engine")
        tables = {
            name: pd.read_sql(f"select * from rounded_states.{name}", engine)
            for name in [*MODELS, "log"]
        }
    python_log = tables["log"]
    days = [d.drop(columns="day").reset_index(drop=True) for _, d in python_log.groupby("day")]
    metrics = METRICS
    states = [sqlmetrics.state(day, metrics, **ARGS) for day in days]
    for day, want in enumerate(states):
        got = tables["rounded_states"].query(f"day == {day}").drop(columns="day")
        want = want.astype({"sqlmetrics_args": "str"})  # Python's: categorical, held once
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False,
                                      check_exact=True)  # fmt: skip
    merged = sqlmetrics.merge(states, metrics, **ARGS)
    got = tables["merged_rounded"].sort_values("country", na_position="last")
    got = got[list(merged.columns)].reset_index(drop=True)  # dbt: the bounds come last
    pd.testing.assert_frame_equal(got, merged, check_dtype=False, check_exact=True)
    plain_args = {k: v for k, v in ARGS.items() if k != "round"}
    exact = sqlmetrics.evaluate(python_log, METRICS, **plain_args)
    for name in METRICS:
        lower, upper = merged[f"{name}_lower"], merged[f"{name}_upper"]
        assert ((lower <= exact[name]) & (exact[name] <= upper) & (lower < upper)).all()
    assert merged["country"].isna().sum() == 1
    plain = {"label": "click", "score": "pctr", "round": 2}  # no slice: one row
    unsliced = sqlmetrics.merge([sqlmetrics.state(d, "auc", **plain) for d in days], "auc",
                                **plain)  # fmt: skip
    assert tables["merged_unsliced"][["auc", "auc_lower", "auc_upper"]].iloc[0].tolist() == (
        unsliced[["auc", "auc_lower", "auc_upper"]].iloc[0].tolist()
    )
    # refused as Python refuses, with its message
    (project / "models" / "bad_round.sql").write_text(
        "{{ sqlmetrics.evaluate_state(ref('log'), metrics=['auc', 'log_loss'], label='click', "
        "score='pctr', round=3) }}\n"
    )
    done = _dbt(project, env, "compile", "--select", "bad_round", check=False)
    assert done.returncode != 0
    message = (
        "state: round=3 with 'log_loss' (its value changes with the rounded scores, and no "
        "bound on its exact value is certified (only AUC's and GAUC's are)); leave round= out"
    )
    assert message in done.stdout, done.stdout
    (project / "models" / "bad_round.sql").write_text(
        "{{ sqlmetrics.merge_states(ref('rounded_states'), metrics='auc', label='click', "
        "score='pctr', round='2') }}\n"
    )
    done = _dbt(project, env, "compile", "--select", "bad_round", check=False)
    assert "merge: round='2' is not a number of decimals; pass an integer" in done.stdout
