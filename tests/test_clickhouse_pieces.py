"""ClickHouse's own pieces (chdb, in process): the resampling key hash, merge's expansion of
state rows, and the exact sums' integer of a double, each equal to DuckDB's.

Every public function of ``sqlmetrics.__all__`` on ClickHouse against DuckDB (issue 25's
table of calls) is the engine contract suite's: tests/test_engines.py, tests/engine_calls.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import chdb_table, duckdb_tables
from engine_calls import BIN, TABLES, E, same

import sqlmetrics
from sqlmetrics._backends.clickhouse_backend import ClickHouseBackend
from sqlmetrics._templating.templates import render_macro

pytestmark = pytest.mark.clickhouse


@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb_tables(TABLES)
    yield con
    con.close()


@pytest.fixture(scope="module")
def ch(chdb_session: Any) -> Any:
    for name, frame in TABLES.items():
        chdb_table(chdb_session, name, frame)
    return chdb_session


# --------------------------------------------------------------------------- the pieces
def test_key_hash_is_duckdbs(duck: Any, ch: Any) -> None:
    """The resampling key of a group or row (the first 4 bytes of MD5 of its text) is DuckDB's
    for integers and for text (empty, quotes, non-ASCII): same key, same replicates."""
    keys = pd.DataFrame(
        {
            "s": ["", "a", "é", "日本", "x y", "-1", "a'b"],
            "i": [0, 1, -1, 2**40, 7, 123456789, -99],
        }
    )
    chdb_table(ch, "cf_keys", keys)
    duck.register("cf_keys", keys)
    for column in ("s", "i"):
        sql = "select {} as h from cf_keys order by h"
        expected = duck.execute(sql.format(render_macro("key_hash", column))).df()
        got = ch.query(
            sql.format(render_macro("key_hash", column, dialect="clickhouse")), "DataFrame"
        )
        assert got["h"].tolist() == expected["h"].tolist() and len(set(got["h"])) == len(keys)


def test_state_rows_expands_states_on_clickhouse(duck: Any, ch: Any) -> None:
    """merge's expansion of a state row into sqlmetrics_n rows (state_rows) runs on ClickHouse
    and gives DuckDB's rows; it failed there (generate_series(1, column) is no ClickHouse table
    function)."""
    states = sqlmetrics.state(E, ["auc"], **BIN, by="country", con=ch)
    assert states["sqlmetrics_n"].max() > 1
    chdb_table(ch, "cf_state", states)
    duck.register("cf_state", states)
    columns = ['"country"', '"label"', '"score"']
    sql = "select * from ({}) as expanded order by 1, 2, 3"

    def rows(con: Any, dialect: str) -> pd.DataFrame:
        inner = render_macro(
            "state_rows", "(select * from cf_state) as s", columns, dialect=dialect
        )
        if dialect == "duckdb":
            return con.execute(sql.format(inner)).df()
        return ClickHouseBackend(con).query(sql.format(inner))

    expected, got = rows(duck, "duckdb"), rows(ch, "clickhouse")
    assert len(expected) == len(TABLES[E])
    same(expected, got, "state_rows")


def test_exact_int_of_is_exact(ch: Any) -> None:
    """The exact sums' integer of a double (|x| < 2^93) is exact on ClickHouse: its own cast of
    a Float64 to Int128 is off above 2^64, which moved sums, and so ranking means, weighted
    averages and AUC, by one unit in the last place."""
    rng = np.random.default_rng(93)
    values = [
        float(int(rng.uniform(1, 2) * 2.0**k)) * sign
        for k in range(93)
        for sign in (1, -1)
        for _ in range(5)
    ]
    literal = ", ".join(repr(v) for v in values)
    expr = render_macro("exact_int_of", "x", dialect="clickhouse")
    got = ch.query(
        f"select toString({expr}) as s from (select arrayJoin([{literal}]) as x)", "DataFrame"
    )
    assert [int(v) for v in got["s"]] == [int(v) for v in values]
