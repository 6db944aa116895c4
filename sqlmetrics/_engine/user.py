"""Users' own metrics: a template file of theirs, registered like a built-in (decision 0007).

A user's file follows the contract of ``sql/``: macros only, one kernel
``<name>_kernel(relation, by, columns, options, entries)`` returning ``slice_0..``, one column
per entry alias and one row per slice. It joins the one macro namespace, so it calls our shared
macros (``slice_source``, ``slice_cols``, ``group_by``, ``order_by``, ``safe_div``,
``binary_label``, ``float_type``, ``float_literal``, ...). Its registration metadata are the
arguments of :func:`register_sql` or, for those left out, the front matter of the file: lines
``name:``, ``roles:``, ``params:``, ``summary:``, ``undefined:`` in its leading ``{# #}``
comment (the CLI's ``--metrics-dir`` reads only the front matter).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import jinja2

from .._core.registry import ALIASES, PARAMS, REGISTRY, MetricSpec, Role, register
from .._templating import templates as _templates
from ..errors import SqlMetricsError, TemplateContractError
from .render import render

__all__ = ["load_metrics_dir", "register_sql", "registered_sql", "unregister_sql"]

#: the column roles evaluate, render and the CLI pass (a user metric reads some of them)
ROLE_NAMES = ("label", "score", "weight", "group", "item", "prediction")
#: the kinds of values a role may hold, checked before the query runs (see :class:`Role`)
ROLE_KINDS = ("binary", "score", "weight", "key", "relevance", "probability")
KERNEL_ARGS = ("relation", "by", "columns", "options", "entries")
FRONT_MATTER_KEYS = ("name", "roles", "params", "summary", "undefined")

_FRONT = re.compile(rf"^\s*({'|'.join(FRONT_MATTER_KEYS)})\s*:\s*(.*?)\s*$", re.M)
_NAME = re.compile(r"[a-z_][a-z0-9_]*")
_DISPATCH = re.compile(r"adapter\.dispatch\(\s*['\"](\w+)['\"]")


def front_matter(path: Path, text: str) -> dict[str, str]:
    """The ``key: value`` lines of the leading ``{# #}`` comment (keys of FRONT_MATTER_KEYS)."""
    match = re.match(r"\s*\{#(.*?)#\}", text, flags=re.S)
    found: dict[str, str] = {}
    if match is None:
        return found
    for key, value in _FRONT.findall(match.group(1)):
        if key in found:
            raise TemplateContractError(f"{path}: front matter gives {key}: twice")
        found[key] = value
    return found


def parse_roles(path: Path, text: str) -> tuple[Role, ...]:
    """``label=binary, score=score, weight=weight?`` (``?``: optional) as roles."""
    roles: list[Role] = []
    for part in (p.strip() for p in text.split(",")):
        role, eq, kind = (s.strip() for s in part.partition("="))
        optional = kind.endswith("?")
        kind = kind.removesuffix("?")
        if not eq or not role or not kind:
            raise TemplateContractError(
                f"{path}: roles: expects 'role=kind' pairs separated by commas (e.g. "
                f"'label=binary, score=score, weight=weight?'); got {part!r}"
            )
        roles.append(Role(role, kind, required=not optional))
    return tuple(roles)


def _check_roles(path: Path, roles: Sequence[Role]) -> None:
    if not roles:
        raise TemplateContractError(f"{path}: no roles: the metric must read at least a column")
    for role in roles:
        if role.name not in ROLE_NAMES:
            raise TemplateContractError(
                f"{path}: unknown role {role.name!r}; roles are the columns evaluate passes: "
                f"{', '.join(ROLE_NAMES)}"
            )
        if role.kind not in ROLE_KINDS:
            raise TemplateContractError(
                f"{path}: role {role.name!r} has unknown kind {role.kind!r}; kinds: "
                f"{', '.join(ROLE_KINDS)}"
            )
    names = [r.name for r in roles]
    if len(set(names)) != len(names):
        raise TemplateContractError(f"{path}: roles name a column twice: {names}")


def _check_params(path: Path, params: Sequence[str]) -> None:
    for name in params:
        if name not in PARAMS:
            known = ", ".join(PARAMS)
            raise TemplateContractError(
                f"{path}: unknown parameter {name!r}; a user metric takes the declared "
                f"options: {known}"
            )


def dispatched_names() -> list[str]:
    """The macros our templates resolve with ``adapter.dispatch`` (``as_boolean``, ...)."""
    names = {
        found
        for p in _templates.namespace_files()
        for found in _DISPATCH.findall((_templates.sql_dir() / p).read_text())
    }
    return sorted(names)


def _check_macros(path: Path, name: str, tree: jinja2.nodes.Template) -> None:
    """The kernel ``<name>_kernel`` is defined with the contract's arguments; no macro name of
    the file is already one of ours or of another user file, a name ``adapter.dispatch``
    resolves for one of ours (``<dialect>__<m>``, ``default__<m>``: it would change every
    built-in metric), a dbt builtin or a Jinja global (``range``, ``namespace``, ...).
    """
    macros = {node.name: node for node in tree.body if isinstance(node, jinja2.nodes.Macro)}
    owners = {
        m: f"sql/{p}" for p in _templates.namespace_files() for m in _templates.macro_names(p)
    }
    dispatched = dispatched_names()
    for m in macros:
        prefix, sep, base = m.rpartition("__")
        if sep and prefix and base in dispatched:
            raise TemplateContractError(
                f"{path}: macro {m!r} is reserved: adapter.dispatch resolves "
                f"'<dialect>__{base}' and 'default__{base}' for the built-in macro {base!r}, "
                f"so it would change every built-in metric; rename it (e.g. prefix it with "
                f"{name + '_'!r})"
            )
        if m in jinja2.Environment().globals:
            raise TemplateContractError(
                f"{path}: macro {m!r} shadows Jinja's global {m!r}, which the built-in macros "
                f"call; rename it"
            )
    for other, (other_path, other_text) in _templates.USER_FILES.items():
        for m in _templates._MACRO.findall(re.sub(r"\{#.*?#\}", "", other_text, flags=re.S)):
            owners[m] = f"{other_path} (metric {other!r})"
    for m in macros:
        if m in owners:
            raise TemplateContractError(
                f"{path}: macro {m!r} is already defined in {owners[m]}; macro names are one "
                f"namespace: rename it (e.g. prefix it with {name + '_'!r})"
            )
        if m in _templates.DBT_BUILTINS:
            raise TemplateContractError(f"{path}: macro {m!r} shadows a dbt builtin; rename it")
    kernel = macros.get(f"{name}_kernel")
    signature = f"{name}_kernel({', '.join(KERNEL_ARGS)})"
    if kernel is None:
        found = ", ".join(macros) or "none"
        raise TemplateContractError(
            f"{path}: no kernel macro {signature} (macros found: {found}); the metric "
            f"{name!r} is computed by it"
        )
    args = tuple(a.name for a in kernel.args)
    if args != KERNEL_ARGS or kernel.defaults:
        raise TemplateContractError(
            f"{path}: the kernel must be {signature}; it is {name}_kernel({', '.join(args)})"
        )


def register_sql(
    path: str | os.PathLike[str],
    name: str | None = None,
    *,
    roles: Mapping[str, str] | str | None = None,
    params: Sequence[str] | str | None = None,
    summary: str | None = None,
    undefined: str | None = None,
) -> MetricSpec:
    """Register a metric from your own template file; it joins ``evaluate``, ``render`` and
    the CLI like a built-in.

    Parameters
    ----------
    path : str or path
        A ``.sql`` file holding macros only (decision 0007), among them the kernel
        ``<name>_kernel(relation, by, columns, options, entries)``.
    name : str, optional
        The metric's name (lowercase identifier). Default: the front matter's ``name:``, else
        the file's stem.
    roles : dict or str, optional
        Column role -> kind, e.g. ``{"label": "binary", "score": "score"}`` or
        ``"label=binary, score=score, weight=weight?"`` (``?``: optional). Roles: label,
        score, weight, group, item, prediction; kinds: binary, score, weight, key, relevance,
        probability. Default: the front matter's ``roles:``.
    params : list of str or str, optional
        Options it takes, among the declared ones (``threshold``, ``pos_label``,
        ``zero_division``, ``k``, ...), checked as for every metric. Default: ``params:``,
        else none. With ``k`` the metric is written ``"<name>@10"``; its kernel reads the
        cut-off from each entry (``entry.k``, none for the whole list).
    summary : str, optional
        One-line definition (``sqlmetrics list``). Default: ``summary:``.
    undefined : str, optional
        When the metric is undefined (its value NULL). Default: ``undefined:``, else "never".

    Returns
    -------
    MetricSpec
        The registered spec (family ``"user"``, kernel ``<name>_kernel``).

    Raises
    ------
    TemplateContractError
        (an :class:`InvalidParameterError`) The file is not macros only, has no kernel or a
        kernel with other arguments, a macro named like one of ours or of another user file, an
        unknown role, kind or parameter, bad front matter, or the name is already registered.
        The message names the file and what is missing.
    """
    file = Path(path)
    if not file.is_file():
        raise TemplateContractError(f"register_sql: no such file: {file}")
    text = file.read_text()
    meta = front_matter(file, text)
    name = name if name is not None else meta.get("name") or file.stem
    if not _NAME.fullmatch(name):
        raise TemplateContractError(
            f"{file}: metric name {name!r} must be a lowercase identifier (a-z, 0-9, _)"
        )
    if name in REGISTRY or name in ALIASES or name in _templates.USER_FILES:
        raise TemplateContractError(f"{file}: a metric {name!r} is already registered")
    if roles is None:
        if "roles" not in meta:
            raise TemplateContractError(
                f"{file}: no roles: pass roles= or write a line 'roles: label=binary, "
                f"score=score' in the file's leading {{# #}} comment"
            )
        roles = meta["roles"]
    parsed = (
        parse_roles(file, roles)
        if isinstance(roles, str)
        else tuple(Role(r, k.removesuffix("?"), not k.endswith("?")) for r, k in roles.items())
    )
    _check_roles(file, parsed)
    if params is None:
        params = meta.get("params", "")
    if isinstance(params, str):
        params = [p.strip() for p in params.split(",") if p.strip()]
    _check_params(file, params)
    summary = summary if summary is not None else meta.get("summary")
    if not summary:
        raise TemplateContractError(
            f"{file}: no summary: pass summary= or write a line 'summary: ...' in the file's "
            f"leading {{# #}} comment"
        )
    env = _templates.environment()
    try:
        tree = _templates._check_file(env, file.name, text, label=str(file))
    except jinja2.TemplateSyntaxError as exc:
        message = exc.message or "cannot be parsed"
        where = "" if message.startswith(str(file)) else f"{file}: "
        raise TemplateContractError(f"{where}{message} (line {exc.lineno})") from None
    _check_macros(file, name, tree)
    spec = MetricSpec(
        name,
        str(file),
        "user",
        summary,
        parsed,
        params=tuple(params),
        undefined=undefined or meta.get("undefined") or "never",
        kernel=f"{name}_kernel",
        takes_k="k" in params,
    )
    register(spec)
    _templates.USER_FILES[name] = (file, text)
    _templates.user_files_changed()
    try:
        _trial(file, name)
    except BaseException:
        unregister_sql(name)
        raise
    return spec


def _trial(file: Path, name: str) -> None:
    """Compile the namespace with the new file and render its metric once (defaults, no
    slices, DuckDB): a file that would break the namespace (``{% extends %}`` in a macro) or
    fails to render is refused now, naming it, instead of breaking every metric later.
    """
    try:
        _templates.environment()
        render(name)
    except TemplateContractError as exc:
        message = str(exc)
        if str(file) not in message:
            message = f"{file}: {message}"
        raise type(exc)(f"{message} (the file is not registered)") from None
    except jinja2.TemplateError as exc:
        raise TemplateContractError(
            f"{file}: {type(exc).__name__}: {exc.message} (the file is not registered)"
        ) from None
    except SqlMetricsError:
        pass  # the kernel's own check (raise_compiler_error) refused the defaults: its choice


def unregister_sql(name: str) -> None:
    """Remove the user metric ``name`` (registered by :func:`register_sql`)."""
    if name not in _templates.USER_FILES:
        raise TemplateContractError(f"unregister_sql: {name!r} is not a registered user metric")
    del _templates.USER_FILES[name]
    del REGISTRY[name]
    _templates.user_files_changed()


@contextmanager
def registered_sql(
    path: str | os.PathLike[str], name: str | None = None, **metadata: object
) -> Iterator[MetricSpec]:
    """:func:`register_sql` for the ``with`` block only (tests, notebooks)."""
    spec = register_sql(path, name, **metadata)  # type: ignore[arg-type]
    try:
        yield spec
    finally:
        unregister_sql(spec.name)


def load_metrics_dir(directory: str | os.PathLike[str]) -> list[MetricSpec]:
    """Register every ``*.sql`` file of ``directory`` (sorted) from its front matter."""
    folder = Path(directory)
    if not folder.is_dir():
        raise TemplateContractError(f"--metrics-dir: no such directory: {folder}")
    files = sorted(folder.glob("*.sql"))
    if not files:
        raise TemplateContractError(f"--metrics-dir: {folder} holds no *.sql file")
    return [register_sql(f) for f in files]
