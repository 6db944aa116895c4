"""The registry-wide invariance suite's hostile ClickHouse session (issue 39).

Every ClickHouse setting that can change a result of sqlmetrics' SQL, at its worst value on the
chdb session at once (the ones sqlmetrics pins, tests/test_clickhouse_settings.py, and the ones
it leaves to the user because they change no result: they are here to prove it):
:data:`HOSTILE_SESSION`. tests/test_invariance.py's "names" check runs every registered metric
in it (by slice: a NULL slice, a one-row slice, a slice without a relevant item; the renamed
table with signed zeros) and must give the default session's values bit for bit. The limits
on rows (``max_rows_to_read`` and the like) are not set: their modes are set to 'break' /
'any', and sqlmetrics' statements turn them back to 'throw' (a limit then holds as an error:
tests/test_clickhouse_settings.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_clickhouse_settings import HOSTILE

pytestmark = pytest.mark.clickhouse

#: the worst value of every setting sqlmetrics pins whose hostile value leaves a result to
#: compare (the limits' modes without their limits)
PINNED_WORST: dict[str, Any] = {
    name: value
    for settings, expect in HOSTILE.values()
    for name, value in settings.items()
    if (expect == "same" or "_mode" in name) and name != "use_query_cache"
}  # the query cache refuses modes other than 'throw': its own test, test_clickhouse_settings
#: settings sqlmetrics leaves to the user, at values that would change a result of SQL written
#: differently (aliases shadowing columns, IN with NULL, DDL types, bare UNION, block and join
#: algorithms, threads): none changes one of ours
UNPINNED_WORST: dict[str, Any] = {
    "prefer_column_name_to_alias": 1,
    "transform_null_in": 1,
    "data_type_default_nullable": 1,
    "union_default_mode": "ALL",
    "join_algorithm": "partial_merge",
    "max_threads": 1,
    "max_block_size": 7,
    "join_any_take_last_row": 1,
    "cross_to_inner_join_rewrite": 0,
    "group_by_two_level_threshold": 1,
    "max_bytes_before_external_sort": 1,
    "max_bytes_before_external_group_by": 1,
    "short_circuit_function_evaluation": "force_enable",
    "session_timezone": "Asia/Kolkata",
}
HOSTILE_SESSION = {**UNPINNED_WORST, **PINNED_WORST}


def test_the_hostile_session_sets_every_pinned_setting() -> None:
    from sqlmetrics._backends.clickhouse_backend import SETTINGS

    assert set(SETTINGS) - {"use_query_cache"} <= set(HOSTILE_SESSION)
    assert not set(UNPINNED_WORST) & set(SETTINGS)
