"""Many ``dbt compile --inline`` calls in one dbt process, for the error-message tests of
tests/test_dbt.py.

``python tests/dbt_inline.py IN OUT``, run in a dbt project folder with its environment
(``DBT_PROFILES_DIR`` and the profile's variables): ``IN`` is a JSON object with ``args`` (the
options every command takes: ``--target``, ``--log-path``, ``--target-path``) and ``calls``
(Jinja expressions). dbt's own programmatic entry point (``dbtRunner``, the one its command
line calls) parses the project once, then compiles ``{{ call }}`` for each call against that
manifest, as ``dbt compile --inline "{{ call }}"`` would. ``OUT`` receives a JSON object: per
call, whether dbt succeeded and the text it logged (the lines ``dbt compile`` prints) with the
error it raised.

One process instead of one per call: a ``dbt`` start and project parse cost about 5 s, and the
error cases number about 50. The process ends before the caller goes on, so nothing holds the
project's DuckDB file afterwards.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def compile_all(args: list[str], calls: list[str]) -> dict[str, dict[str, Any]]:
    """Each call's outcome: ``success`` and ``output`` (the logged lines, then the error)."""
    from dbt.cli.main import dbtRunner

    lines: list[str] = []

    def keep(event: Any) -> None:
        lines.append(event.info.msg)

    parsed = dbtRunner(callbacks=[keep]).invoke(["parse", *args])
    if not parsed.success:
        raise SystemExit("dbt parse failed:\n" + "\n".join(lines) + f"\n{parsed.exception}")
    manifest = parsed.result
    runner = dbtRunner(manifest=manifest, callbacks=[keep])
    outcomes = {}
    for call in calls:
        lines.clear()
        done = runner.invoke(["compile", "--inline", "{{ " + call + " }}", *args])
        # dbt removes the inline node from the manifest after a run (CompileTask.after_run),
        # not after an error raised while compiling it (a check that runs a query, such as a
        # missing column's): the next call would be "two sql_operations named inline_query"
        for node in [n for n in manifest.nodes if n.startswith("sql_operation.")]:
            if node.endswith(".inline_query"):
                manifest.nodes.pop(node)
        error = "" if done.exception is None else f"\n{done.exception}"
        outcomes[call] = {"success": done.success, "output": "\n".join(lines) + error}
    return outcomes


def main() -> None:
    source, target = sys.argv[1:3]
    with open(source) as handle:
        spec = json.load(handle)
    outcomes = compile_all(spec["args"], spec["calls"])
    with open(target, "w") as handle:
        json.dump(outcomes, handle)


if __name__ == "__main__":
    main()
