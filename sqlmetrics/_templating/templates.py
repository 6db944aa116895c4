"""Locate and render the Jinja SQL templates under ``sql/``.

In a source checkout (and an editable install) the templates are the top-level ``sql/`` folder;
in a wheel they are shipped as ``sqlmetrics/sql``. Jinja runs with ``StrictUndefined``: a
template that uses a parameter nobody passed fails loudly instead of rendering empty SQL.

The template contract (decision 0007): the files under ``sql/`` hold only ``{% macro %}``
definitions, every macro name unique, as in a dbt package. They are loaded as ONE Jinja module
(all files concatenated), so the macros of every file call each other by name, in any order.
Before the module is made, ``env.globals`` gets what dbt provides too: ``adapter`` (its
``dispatch``), ``exceptions`` (``raise_compiler_error``) and the namespace ``sqlmetrics``, a
dict filled with every macro once the module exists (what ``sqlmetrics.<name>(...)`` reaches).
No file is rendered on its own: Python calls a family's kernel macro
(:func:`render_macro`), and a file with anything but macros at its top level is refused with
its name. A user's template file (``sqlmetrics.register_sql``) goes through the same check
and joins the module after ours (``USER_FILES``; the cached environment is rebuilt).

Templates are code: Jinja runs sandboxed (as dbt renders macros), so a template reaches no
Python internals (``lipsum.__globals__``) and cannot change the namespace it shares with the
others. An error raised while a macro renders names the file and line it comes from.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import re
import textwrap
import types
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox

from .._core import dialects as _dialects
from .._core.dialects import DEFAULT, NAMES
from ..errors import (
    InvalidParameterError,
    SqlMetricsError,
    TemplateContractError,
    TemplateSecurityError,
)

_HERE = Path(__file__).resolve().parents[1]  # the package folder

#: the dialect Python renders for by default (dbt passes its own adapter)
DIALECT = DEFAULT

#: the dialects ``render(..., dialect=)`` writes, declared with their facts in
#: ``sqlmetrics/_core/dialects.py`` (their SQL: sql/_macros/shared/dialect.sql)
DIALECTS = NAMES


def check_dialect(dialect: Any, caller: str = "render") -> str:
    """``dialect`` if it is one of :data:`DIALECTS`, else an error naming the nearest one.

    >>> check_dialect("postgres")
    'postgres'
    """
    if isinstance(dialect, str) and dialect in DIALECTS:
        return dialect
    hint = difflib.get_close_matches(str(dialect).lower(), DIALECTS, n=1)
    near = f" Did you mean {hint[0]!r}?" if hint else ""
    raise InvalidParameterError(
        f"{caller}: Unknown dialect {dialect!r} (dialect=).{near} Supported dialects: "
        f"{', '.join(DIALECTS)}"
    )


#: names dbt's Jinja context defines; a package macro must not shadow them
DBT_BUILTINS = frozenset(
    {
        "adapter", "api", "builtins", "config", "dbt", "dbt_version", "env_var", "exceptions",
        "execute", "flags", "fromjson", "fromyaml", "graph", "invocation_id", "is_incremental",
        "load_result", "local_md5", "log", "model", "modules", "print", "project_name", "ref",
        "return", "run_query", "run_started_at", "schema", "selected_resources", "set",
        "set_strict", "source", "sqlmetrics", "statement", "store_result", "target", "this",
        "thread_id", "tojson", "toyaml", "try_set", "try_or_compiler_error", "var", "zip",
        "zip_strict", "write", "database", "caller", "varargs", "kwargs", "loop", "super",
    }
)  # fmt: skip

_MACRO = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(")


def sql_dir() -> Path:
    """Return the folder that holds the metric templates."""
    for candidate in (_HERE / "sql", _HERE.parent / "sql"):
        if (candidate / "_macros").is_dir():
            return candidate
    raise FileNotFoundError(
        "sqlmetrics cannot find its SQL templates (sqlmetrics/sql in a wheel, sql/ in a checkout);"
        " reinstall the package"
    )


def sql_files() -> list[str]:
    """Every file under ``sql/``, as sorted relative paths."""
    root = sql_dir()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.sql"))


def namespace_files() -> list[str]:
    """The files loaded into the one macro module: every file under ``sql/``."""
    return sql_files()


def macro_names(path: str) -> list[str]:
    """The names of the macros ``sql/<path>`` defines, in file order."""
    text = re.sub(r"\{#.*?#\}", "", (sql_dir() / path).read_text(), flags=re.S)
    return _MACRO.findall(text)


#: the file name of the joined module's compiled code (errors are mapped back to files)
NAMESPACE_FILENAME = "<sqlmetrics-namespace>"


class Environment(jinja2.sandbox.SandboxedEnvironment):
    """The sandboxed environment of the one macro module (dbt's is sandboxed too).

    Sandboxed and not immutable: our macros build local lists (``{% do cols.append(x) %}``),
    as dbt's do; what templates share is read-only (``sqlmetrics`` is a mapping proxy, and
    every call gets its own arguments). ``spans`` locates each joined file in the module's
    source: ``(label, first line, last line, is a user's file)``.
    """

    spans: list[tuple[str, int, int, bool]]
    module_template: jinja2.Template | None = None

    def locate(self, exc: BaseException) -> tuple[str, int, bool] | None:
        """``(file, line, is a user's file)`` where ``exc`` was raised in the module: the
        innermost frame in a user's file if there is one, else the innermost one.
        """
        found: list[tuple[str, int, bool]] = []
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == NAMESPACE_FILENAME and self.module_template:
                found.extend(
                    self.file_line(self.module_template.get_corresponding_lineno(tb.tb_lineno))
                )
            tb = tb.tb_next
        if isinstance(exc, jinja2.TemplateSyntaxError) and exc.lineno:
            found.extend(self.file_line(exc.lineno))
        users = [f for f in found if f[2]]
        return (users or found)[-1] if found else None

    def file_line(self, lineno: int) -> list[tuple[str, int, bool]]:
        """The file and line of line ``lineno`` of the joined source (none if outside)."""
        return [
            (label, lineno - first + 1, user)
            for label, first, last, user in self.spans
            if first <= lineno <= last
        ]


def wrap_error(env: Environment, exc: Exception) -> Exception:
    """An error raised in the module as a sqlmetrics error naming file and line:
    :class:`TemplateSecurityError` for what the sandbox refused, :class:`TemplateContractError`
    for any other error raised in a user's file (a Jinja error, or Python's, as ``1 + 'a'``);
    ``exc`` itself otherwise (our own templates, our own errors).
    """
    if isinstance(exc, SqlMetricsError):
        return exc
    where = env.locate(exc)
    at = f"{where[0]}, line {where[1]}" if where else "a template"
    message = (exc.message if isinstance(exc, jinja2.TemplateError) else str(exc)) or ""
    if isinstance(exc, jinja2.exceptions.SecurityError):
        return TemplateSecurityError(
            f"{at}: the template did what the sandbox forbids ({message}); templates are "
            f"sandboxed: they write SQL from their arguments and the shared macros, and reach "
            f"no Python object's internals"
        )
    if where and where[2]:
        return TemplateContractError(f"{at}: {type(exc).__name__}: {message}")
    return exc


def resolve(namespace: Mapping[str, Any], name: str, dialect: str) -> str | None:
    """The macro ``adapter.dispatch(name)`` picks for ``dialect`` in ``namespace``:
    ``<dialect>__<name>``, a parent dialect's, or ``default__<name>``; None if none exists.
    """
    for prefix in _dialects.DIALECTS[dialect].dispatch():
        if f"{prefix}__{name}" in namespace:
            return f"{prefix}__{name}"
    return None


def dispatched(name: str, dialect: str = DIALECT) -> str | None:
    """The macro ``adapter.dispatch(name)`` resolves to for ``dialect``: Sail's
    ``auc_kernel`` is ``spark__auc_kernel``, its parent's.
    """
    return resolve(environment(dialect).globals["sqlmetrics"], name, dialect)  # type: ignore[arg-type]


class Adapter:
    """The part of dbt's ``adapter`` the templates use: ``dispatch``.

    ``dispatch(name)`` returns the macro ``<dialect>__<name>`` if it is defined, else
    ``default__<name>`` (dbt's resolution within one package); a dialect with a parent (Sail,
    Spark's) tries the parent's ``<parent>__<name>`` in between (``Dialect.dispatch``).
    """

    def __init__(self, namespace: Mapping[str, Any], dialect: str) -> None:
        self._namespace = namespace
        self.dialect = dialect

    def dispatch(self, macro_name: str, macro_namespace: str | None = None) -> Any:
        found = resolve(self._namespace, macro_name, self.dialect)
        if found is not None:
            return self._namespace[found]
        candidates = [f"{p}__{macro_name}" for p in _dialects.DIALECTS[self.dialect].dispatch()]
        raise jinja2.TemplateRuntimeError(
            f"adapter.dispatch: no macro {' or '.join(candidates)} in namespace "
            f"{macro_namespace or 'sqlmetrics'}"
        )


class Exceptions:
    """The part of dbt's ``exceptions`` the templates use."""

    @staticmethod
    def raise_compiler_error(msg: str) -> None:
        raise InvalidParameterError(msg)


#: users' template files joined to the namespace (``sqlmetrics.register_sql``):
#: metric -> (path, text as checked when it was registered)
USER_FILES: dict[str, tuple[Path, str]] = {}


def user_files_changed() -> None:
    """Rebuild the namespace on next use: a user file was added or removed."""
    environment.cache_clear()


def _check_file(
    env: jinja2.Environment, path: str, text: str, label: str | None = None
) -> jinja2.nodes.Template:
    """A namespace file holds macros only: no import, no top-level SQL (errors name the file,
    ``label``: ``sql/<path>`` for ours, the path given for a user's file). Returns its tree.
    """
    label = label or f"sql/{path}"
    try:
        tree = env.parse(text, name=path, filename=path)
    except jinja2.TemplateSyntaxError as exc:
        raise jinja2.TemplateSyntaxError(exc.message or "", exc.lineno, path, path) from None
    for node in tree.body:
        if isinstance(node, jinja2.nodes.Macro):
            continue
        if isinstance(node, jinja2.nodes.Output) and all(
            isinstance(part, jinja2.nodes.TemplateData) and not part.data.strip()
            for part in node.nodes
        ):
            continue
        raise jinja2.TemplateSyntaxError(
            f"{label} breaks the template contract: only {{% macro %}} definitions and "
            f"{{# #}} comments may stand at its top level; found {type(node).__name__}",
            getattr(node, "lineno", 1),
            path,
            path,
        )
    return tree


def _compile(env: Environment, source: str, files: list[tuple[str, str]]) -> jinja2.Template:
    """The namespace module's template, compiled once per source text and Python version.

    Compiling the joined files takes seconds, which every process (every CLI call) would pay;
    Jinja's bytecode cache (its own per-user directory of the system temporary folder, checked
    for ownership) keeps the compiled code keyed by the exact source. The files are checked
    against the contract whenever they are compiled, so a changed file is always checked.
    """
    cache_dir: jinja2.BytecodeCache | None
    try:
        cache_dir = jinja2.FileSystemBytecodeCache()
        # one entry per source; sandboxed code is not the unsandboxed code of older versions
        key = "sqlmetrics-sandboxed-" + hashlib.sha256(source.encode()).hexdigest()
        bucket = cache_dir.get_bucket(env, key, None, source)
    except (OSError, RuntimeError):  # no usable temporary directory: compile every time
        cache_dir, bucket = None, None
    if bucket is not None and bucket.code is not None:
        code = bucket.code
    else:
        for path, text in files:
            _check_file(env, path, text)
        code = env.compile(source, name="sqlmetrics-namespace", filename=NAMESPACE_FILENAME)
        if cache_dir is not None and bucket is not None:
            bucket.code = code
            with contextlib.suppress(OSError):
                cache_dir.set_bucket(bucket)
    return env.template_class.from_code(env, code, env.make_globals(None))


@cache
def environment(dialect: str = DIALECT) -> Environment:
    """The Jinja environment whose ``adapter.dispatch`` resolves macros for ``dialect`` (an
    unknown dialect raises, and a raise is not cached). A user's file that fails to compile
    or to load raises :class:`TemplateContractError` naming it and the line.
    """
    check_dialect(dialect)
    env = Environment(
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        extensions=["jinja2.ext.do"],
    )
    # no filter of our own (dbt has none of them): numbers reach SQL through the macro
    # float_literal (sql/_macros/shared/dialect.sql), exact finite literals of float_type()
    namespace: dict[str, Any] = {}
    env.globals.update(
        adapter=Adapter(namespace, dialect),
        exceptions=Exceptions(),
        sqlmetrics=types.MappingProxyType(namespace),  # read-only to templates
    )
    files = [(path, (sql_dir() / path).read_text()) for path in namespace_files()]
    # users' files are checked by register_sql before they get here
    joined = [(f"sql/{path}", text, False) for path, text in files] + [
        (str(path), text, True) for path, text in USER_FILES.values()
    ]
    env.spans, first = [], 1
    for label, text, user in joined:
        breaks = len(re.findall(r"\r\n|\r|\n", text))  # Jinja's line breaks
        env.spans.append((label, first, first + breaks, user))
        first += breaks + 1
    source = "\n".join(text for _, text, _ in joined)
    try:
        env.module_template = _compile(env, source, files)
        module = env.module_template.make_module()
    except jinja2.TemplateError as exc:
        raise wrap_error(env, exc) from None
    macros = {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, jinja2.runtime.Macro)
    }
    namespace.update(macros)
    return env


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line.strip()) + "\n"


def macro(name: str, dialect: str = DIALECT) -> Callable[..., Any]:
    """The namespace macro ``name`` (e.g. a family's kernel)."""
    namespace: dict[str, Any] = environment(dialect).globals["sqlmetrics"]  # type: ignore[assignment]
    return namespace[name]  # type: ignore[no-any-return]


def _nul_strings(value: Any, name: str) -> Iterator[tuple[str, str]]:
    """``(argument, text)`` for every string inside ``value`` that holds NUL; ``argument`` is
    the nearest option name (``labels`` for ``options["labels"][1]``).
    """
    if isinstance(value, str):
        if "\x00" in value:
            yield name, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _nul_strings(item, key if isinstance(key, str) else name)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _nul_strings(item, name)


def render_macro(name: str, *args: Any, dialect: str = DIALECT) -> str:
    """Call the namespace macro ``name`` with ``args``; blank lines left by Jinja are removed.

    PostgreSQL text cannot hold NUL: a string argument holding one is refused here, by name
    (the literal macro refuses it too, for dbt).
    """
    if dialect == "postgres":
        for argument, text in _nul_strings(args, "an argument"):
            raise InvalidParameterError(
                f"{argument}= holds {text!r}: PostgreSQL text cannot hold the NUL character "
                f"('\\x00'); remove it from {argument}="
            )
    try:
        return _clean(str(macro(name, dialect)(*args)))
    except Exception as exc:
        wrapped = wrap_error(environment(dialect), exc)
        if wrapped is exc:
            raise
        raise wrapped from None


def template_names() -> list[str]:
    """Every metric template (files under ``sql/`` outside ``_macros``), as relative paths."""
    return [p for p in sql_files() if not any(part.startswith("_") for part in p.split("/"))]


#: a ranking header's one line standing for the shared rules (``_RULES`` in ranking.sql)
_RULES_LINE = re.compile(r"^([ \t]*)Ranking rules: sql/_macros/kernels/ranking\.sql\b.*$", re.M)
#: the comment of sql/_macros/kernels/ranking.sql holding the rules, after its title and a
#: blank line
_RULES = re.compile(r"\{#\s*ranking rules \(.*?\):[ \t]*\n[ \t]*\n(.*?)#\}", re.S)


def ranking_rules() -> str:
    """The rules every ranking metric shares (order and ties, relevance, judged items, empty
    and missing groups, slices, undefined), written once in ``sql/_macros/kernels/ranking.sql``.
    """
    found = _RULES.search((sql_dir() / "_macros" / "kernels" / "ranking.sql").read_text())
    if found is None:
        raise SqlMetricsError(
            "sql/_macros/kernels/ranking.sql has no comment '{# ranking rules (...):' followed "
            "by a blank line and the rules; reinstall the package"
        )
    return textwrap.dedent(found.group(1)).strip("\n")


def template_header(path: Path) -> str | None:
    """The header of the template file ``path`` (its leading ``{# #}`` comment), dedented,
    its line "Ranking rules: sql/_macros/kernels/ranking.sql ..." replaced by those rules: the whole
    definition of one metric, as ``sqlmetrics list <metric>`` prints it. None without one.
    """
    header = re.match(r"\s*\{#(.*?)#\}", path.read_text(), re.S)
    if header is None:
        return None
    text = textwrap.dedent(header.group(1).strip("\n"))
    if not _RULES_LINE.search(text):
        return text
    rules = ranking_rules()
    return _RULES_LINE.sub(lambda line: textwrap.indent(rules, line.group(1)), text)
