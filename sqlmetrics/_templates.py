"""Locate and render the Jinja SQL templates under ``sql/``.

In a source checkout (and an editable install) the templates are the top-level ``sql/`` folder;
in a wheel they are shipped as ``sqlmetrics/sql``. Jinja runs with ``StrictUndefined``: a
template that uses a parameter nobody passed fails loudly instead of rendering empty SQL.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from ._literals import sql_double

_HERE = Path(__file__).resolve().parent


def sql_dir() -> Path:
    """Return the folder that holds the metric templates."""
    for candidate in (_HERE / "sql", _HERE.parent / "sql"):
        if (candidate / "_macros").is_dir():
            return candidate
    raise FileNotFoundError(
        "sqlmetrics cannot find its SQL templates (sqlmetrics/sql in a wheel, sql/ in a checkout);"
        " reinstall the package"
    )


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(sql_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.do"],
    )
    # numbers reach SQL only through this filter: exact, finite DOUBLE literals
    env.filters["double"] = sql_double
    return env


def render_template(name: str, **context: Any) -> str:
    """Render ``sql/<name>`` with ``context``; blank lines left by Jinja tags are removed."""
    text = environment().get_template(name).render(**context)
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line.strip()) + "\n"


def template_names() -> list[str]:
    """Every metric template (files under ``sql/`` outside ``_macros``), as relative paths."""
    root = sql_dir()
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.sql")
        if not any(part.startswith("_") for part in p.relative_to(root).parts)
    )
