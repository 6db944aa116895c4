"""The documentation site's machinery: mkdocs hooks (``hooks:`` in mkdocs.yml).

At build time, from the package (nothing here is a committed copy):

- ``reference/api.md`` and one page per group under ``reference/api/``: a ``::: sqlmetrics.X``
  block (mkdocstrings) for every name in ``sqlmetrics.__all__``, the metric functions grouped
  by the family of their registry entries (:data:`API_GROUPS`);
- ``reference/cli.md``: the ``sqlmetrics`` command group and every subcommand (mkdocs-click);
- ``reference/metrics/<metric>.md``: one page per registered metric (summary, options and
  defaults, undefined cases, the definition from its SQL template's header, links to its
  function and its template), listed at the marker :data:`METRIC_PAGES_MARKER` of
  ``reference/metrics.md`` (or at its end);
- the list of the decision records at :data:`DECISIONS_MARKER` of ``decisions/index.md``;
- links to files of the repository outside ``docs/``: a page writes them relative to itself,
  as a git host renders them (``[auc.sql](../../sql/classification/auc.sql)`` from
  ``docs/recipes/x.md``, ``../examples/data/ctr_export/`` for a folder). Each linked file that
  exists becomes a page ``_source/<path>.md`` showing it (a binary or large file: a copy at
  ``_source/<path>``), each linked folder a listing ``_source/<path>/index.md``, and the link is
  rewritten to it (a git host's line anchor, ``#L12``, dropped); a link to a path that does
  not exist is left as written, and mkdocs' link validation fails the strict build on it.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit
from xml.etree.ElementTree import Element

import griffe

# Python-Markdown ships no type information (its stubs are types-Markdown)
from markdown import Markdown  # type: ignore[import-untyped]
from markdown.extensions import Extension  # type: ignore[import-untyped]
from markdown.treeprocessors import Treeprocessor  # type: ignore[import-untyped]
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

#: where the pages of the repository's files go in the site
SOURCE = "_source"
#: in ``reference/metrics.md``: replaced by the list of the metric pages (else appended)
METRIC_PAGES_MARKER = "<!-- metric-pages -->"
#: in ``decisions/index.md``: replaced by the list of the decision records (else appended)
DECISIONS_MARKER = "<!-- decisions -->"
#: the generated pages in mkdocs.yml's nav (the others are linked from them)
NAV_PAGES = ("reference/api.md", "reference/cli.md")
#: a file larger than this is copied as it is, not shown in a page
LARGEST_SHOWN = 256 * 1024

#: the groups of the API reference (page name, title, what it holds); the metric functions
#: go by the family of their registry entry (``MetricSpec.family``), the rest as listed here;
#: a name in ``__all__`` that fits no group lands in ``other`` (and the site's test names it)
API_GROUPS: tuple[tuple[str, str, str], ...] = (
    ("evaluation", "Evaluation, states, monitoring, comparison and reports", ""),
    ("counterfactual", "Off-policy evaluation of logged bandit feedback", ""),
    ("classification", "Binary classification metrics", "classification"),
    ("calibration", "Calibration metrics", "calibration"),
    ("multiclass", "Multiclass and multilabel metrics", "multiclass multiclass_scores"),
    ("ranking", "Ranking metrics", "ranking"),
    ("retrieval", "Retrieval (trec_eval) metrics", "retrieval"),
    ("correlation", "Rank correlation metrics", "correlation"),
    ("beyond", "Beyond accuracy: coverage, novelty, concentration", "beyond"),
    ("configuration", "Names, configuration and your own metrics", ""),
    ("errors", "Errors and warnings", ""),
    ("modules", "Public modules", ""),
    ("other", "Other names", ""),
)
#: the names of ``__all__`` placed by hand (the metric functions and exceptions are found)
API_PLACED = {
    "evaluation": (
        "evaluate",
        "state",
        "merge",
        "render_state",
        "metric_anomalies",
        "position_propensities",
        "click_metrics",
        "compare",
        "report",
        "render",
        "render_evaluate",
        "Interval",
        "read_trec_run",
        "read_trec_qrels",
    ),
    "counterfactual": ("off_policy_value",),
    "configuration": (
        "configure",
        "metric_names",
        "convention_names",
        "register_sql",
        "registered_sql",
        "unregister_sql",
        "load_metrics_dir",
    ),
}
#: public modules documented beside ``__all__`` (the package's docstring names them)
API_MODULES = ("plot",)

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))


# --------------------------------------------------------------------------- the API pages
def api_groups() -> dict[str, list[str]]:
    """Every name of ``sqlmetrics.__all__`` (and :data:`API_MODULES`) by its group."""
    import sqlmetrics
    from sqlmetrics._core.registry import REGISTRY

    family_group = {f: page for page, _, fams in API_GROUPS for f in fams.split()}
    by_function: dict[str, str] = {}
    for spec in REGISTRY.values():  # a function's own entry (name == function) wins
        if spec.name == spec.function or spec.function not in by_function:
            by_function[spec.function] = family_group[spec.family]
    placed = {name: page for page, names in API_PLACED.items() for name in names}
    groups: dict[str, list[str]] = {page: [] for page, _, _ in API_GROUPS}
    for name in sqlmetrics.__all__:
        value = getattr(sqlmetrics, name)
        if name in placed:
            groups[placed[name]].append(name)
        elif name in by_function:
            groups[by_function[name]].append(name)
        elif isinstance(value, type) and issubclass(value, BaseException):
            groups["errors"].append(name)
        else:
            groups["other"].append(name)
    groups["modules"].extend(API_MODULES)
    return {page: names for page, names in groups.items() if names}


def api_pages() -> dict[str, str]:
    """The API reference's pages: ``reference/api.md`` and one per group, by path."""
    titles = {page: title for page, title, _ in API_GROUPS}
    groups = api_groups()
    index = [
        "# Python API",
        "",
        "Every public name of `sqlmetrics` (its `__all__`), generated from the package's "
        "docstrings at build time, by group:",
        "",
    ]
    pages: dict[str, str] = {}
    for page, names in groups.items():
        shown = ", ".join(f"[`{n}`][sqlmetrics.{n}]" for n in names)
        index.append(f"- [{titles[page]}](api/{page}.md): {shown}")
        blocks = [f"::: sqlmetrics.{name}" for name in names]
        pages[f"reference/api/{page}.md"] = f"# {titles[page]}\n\n" + "\n\n".join(blocks) + "\n"
    pages["reference/api.md"] = "\n".join(index) + "\n"
    return pages


#: a Sphinx role in a docstring (``:func:`evaluate```, ``:class:`~sqlmetrics.Interval```)
_ROLE = re.compile(r":(func|class|data|meth|mod|attr|exc|obj|math):`(~?)([^`]+)`")


def sphinx_roles(text: str, public: frozenset[str]) -> str:
    """``text`` with its Sphinx roles written for mkdocstrings: a name of the package
    (``evaluate``, ``sqlmetrics.auc``, ``Interval.lo``) as an optional cross-reference to its
    API entry (shown as code when the site has none), any other name and ``:math:`` as code.
    """

    def replace(match: re.Match[str]) -> str:
        role, tilde, name = match.groups()
        name = name.strip().lstrip(".")
        if role == "math":
            return f"`{name}`"
        shown = name.rsplit(".", 1)[-1] if tilde else name
        target = name.removeprefix("sqlmetrics.")
        if target.split(".")[0] not in public:
            return f"`{shown}`"
        return f'<autoref identifier="sqlmetrics.{target}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(replace, text)


class PackageDocstrings(griffe.Extension):
    """Griffe's static reading of the package, amended for the site's API reference: the
    docstrings' Sphinx roles (``:func:`evaluate```) become cross-references
    (:func:`sphinx_roles`). Registered in mkdocs.yml (mkdocstrings' python handler,
    ``extensions``). Every public docstring is in the source as written (the generated
    modules, decision 0013), so griffe reads it without importing the package.
    """

    def __init__(self) -> None:
        import sqlmetrics

        self.public = frozenset([*sqlmetrics.__all__, *API_MODULES, "errors"])

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Write the Sphinx roles of a docstring of the package for mkdocstrings."""
        if obj.docstring is not None and obj.path.split(".")[0] == "sqlmetrics":
            obj.docstring.value = sphinx_roles(obj.docstring.value, self.public)


# --------------------------------------------------------------------------- the CLI page
CLI_PAGE = """# Command line

Every command of `sqlmetrics` and its options, generated from the command line's own help
(`sqlmetrics --help`, `sqlmetrics COMMAND --help`) at build time.

::: mkdocs-click
    :module: sqlmetrics.cli._main
    :command: main
    :prog_name: sqlmetrics
    :depth: 1
    :style: table
    :list_subcommands: true
"""


def cli_commands() -> list[str]:
    """Every command of the ``sqlmetrics`` group, as typed (``eval``, ``plot roc``)."""
    import click

    from sqlmetrics.cli._main import main

    def walk(group: click.Group, prefix: str) -> Iterator[str]:
        for name, command in sorted(group.commands.items()):
            yield prefix + name
            if isinstance(command, click.Group):
                yield from walk(command, prefix + name + " ")

    return list(walk(main, ""))


# --------------------------------------------------------------------------- the metric pages
def sql_header(template: str) -> str:
    """The definition a template opens with: its leading ``{# ... #}`` comment, unindented."""
    from sqlmetrics._templating.templates import sql_dir

    text = (sql_dir() / template).read_text(encoding="utf-8")
    found = re.match(r"\s*\{#(.*?)#\}", text, flags=re.S)
    if found is None:
        raise ValueError(f"sql/{template} does not open with a {{# ... #}} header")
    lines = found.group(1).strip("\n").splitlines()
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:].rstrip() for x in lines)


def metric_pages() -> dict[str, str]:
    """One page per registered metric, by path (``reference/metrics/<name>.md``)."""
    from sqlmetrics._core.names import metric_form
    from sqlmetrics._core.registry import REGISTRY, default_of

    pages = {}
    for name in sorted(REGISTRY):
        spec = REGISTRY[name]
        options = ", ".join(f"`{p}={default_of(spec, p)!r}`" for p in spec.params if p != "k")
        call = f"[`sqlmetrics.{spec.function}`][sqlmetrics.{spec.function}]"
        if spec.average is not None:
            call += f" with `average={spec.average!r}`"
        columns = ", ".join(
            f"`{r.name}`" + ("" if r.required else " (optional)") for r in spec.roles
        )
        rows = [
            ("`evaluate` name", f"`{metric_form(spec)}`"),
            ("function", call),
            ("family", spec.family),
            ("output", "one value per slice" if spec.output == "scalar" else "a table"),
            ("columns", columns),
            ("options (default)", options or "-"),
            ("undefined", spec.undefined),
            ("better", spec.better),
        ]
        if spec.aliases:
            rows.append(("aliases", ", ".join(f"`{a}`" for a in spec.aliases)))
        names = [
            f"{tool} `{base}`"
            for tool, base in (("ir_measures", spec.ir_measures), ("trec_eval", spec.trec_eval))
            if base
        ]
        if names:
            rows.append(("other tools", ", ".join(names)))
        rows.append(("SQL", f"[sql/{spec.template}](../../../sql/{spec.template})"))
        table = "\n".join(f"| {k} | {v.replace('|', chr(92) + '|')} |" for k, v in rows)
        header = sql_header(spec.template)
        pages[f"reference/metrics/{name}.md"] = (
            f"# {name}\n\n{spec.summary}\n\n| this metric | |\n| --- | --- |\n{table}\n\n"
            f"## Definition\n\nThe header of its template, "
            f"[sql/{spec.template}](../../../sql/{spec.template}):\n\n"
            f"{fenced(header, 'text')}\n"
        )
    return pages


def metric_pages_list(page: str) -> str:
    """The Markdown list of the metric pages, linked from ``page`` (a docs path)."""
    from sqlmetrics._core.registry import REGISTRY

    here = posixpath.dirname(page)
    lines = ["## Every metric's page", ""]
    for name in sorted(REGISTRY):
        link = posixpath.relpath(f"reference/metrics/{name}.md", here or ".")
        lines.append(f"- [`{name}`]({link}): {REGISTRY[name].summary}")
    return "\n".join(lines) + "\n"


def decisions_list(docs_dir: Path) -> str:
    """The Markdown list of the decision records in ``docs/decisions/``, by number."""
    lines = []
    for path in sorted((docs_dir / "decisions").glob("[0-9]*.md")):
        text = path.read_text(encoding="utf-8")
        title = re.search(r"^#\s+(.+)$", text, flags=re.M)
        lines.append(f"- [{title.group(1).strip() if title else path.stem}]({path.name})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- repository files
def fenced(text: str, language: str) -> str:
    """``text`` in a fenced code block whose fence no line of it can close."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


LANGUAGES = {
    ".sql": "sql+jinja",
    ".py": "python",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".md": "markdown",
    ".json": "json",
    ".sh": "bash",
    ".html": "html",
    ".cfg": "ini",
    ".ini": "ini",
}


def repo_files(root: Path) -> set[str]:
    """The repository's files (tracked, or new and not ignored), as posix paths from ``root``;
    outside a git repository every file but those under a hidden folder or ``__pycache__``.
    """
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        )
        found = {p for p in done.stdout.decode().split("\0") if p}
    except (OSError, subprocess.CalledProcessError):
        found = {
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if not any(
                part.startswith(".") or part == "__pycache__" for part in p.relative_to(root).parts
            )
        }
    return {p for p in found if (root / p).is_file()}


#: a link target in Markdown (inline, reference definition) or in HTML (href, src); code
#: blocks are read too: a target found there and not linked only adds an unused page
_TARGET = re.compile(
    r"\]\(\s*<?([^)\s>]+)"
    r"|^[ ]{0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)"
    r"""|\b(?:href|src)\s*=\s*["']([^"']+)["']""",
    flags=re.M,
)


class RepoLinks:
    """The links of the pages to the repository's files outside ``docs/``: what each target
    (a repository path, ``""`` the root) became in the site (:meth:`add_pages`), and the
    rewriting of a page's links to them (:meth:`rewrite`).
    """

    def __init__(self, root: Path, docs_dir: Path) -> None:
        self.root = root
        self.docs = docs_dir.resolve().relative_to(root.resolve()).as_posix()
        self.files = repo_files(root)
        self.folders = {posixpath.dirname(p) for p in self.files}
        for folder in list(self.folders):
            while folder:
                folder = posixpath.dirname(folder)
                self.folders.add(folder)
        #: repository path -> the docs path (src_uri) standing for it in the site
        self.targets: dict[str, str] = {}

    def repo_path(self, page: str, url: str) -> str | None:
        """The repository path a link of ``page`` names, when it leaves ``docs/`` and stays in
        the repository; else None (a URL, an anchor, a page of the site, a path outside).
        """
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
            return None
        within = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
        if not within.startswith("../"):
            return None
        path = posixpath.normpath(posixpath.join(self.docs, within))
        if path == "." or path.startswith("../") or path == "..":
            return "" if path == "." else None
        if path == self.docs or path.startswith(self.docs + "/"):
            return None
        return path

    def scan(self, page: str, markdown: str) -> None:
        """Note every existing repository file or folder the Markdown of ``page`` links to."""
        for match in _TARGET.finditer(markdown):
            path = self.repo_path(page, next(g for g in match.groups() if g is not None))
            if path is None or path in self.targets:
                continue
            if path in self.files:
                self.targets[path] = self.file_target(path)
            elif path in self.folders:
                self.targets[path] = posixpath.join(SOURCE, path, "index.md")
                for file in self.files_under(path):
                    self.targets.setdefault(file, self.file_target(file))

    def files_under(self, folder: str) -> list[str]:
        """The repository's files under ``folder`` (``""``: all), sorted."""
        prefix = folder + "/" if folder else ""
        return sorted(p for p in self.files if p.startswith(prefix))

    def shown(self, path: str) -> bool:
        """A file shown in a page: text, and not larger than :data:`LARGEST_SHOWN`."""
        full = self.root / path
        if full.stat().st_size > LARGEST_SHOWN:
            return False
        try:
            return "\0" not in full.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return False

    def file_target(self, path: str) -> str:
        """The docs path standing for the repository file ``path``."""
        return posixpath.join(SOURCE, path + (".md" if self.shown(path) else ""))

    def add_pages(self, files: Files, config: MkDocsConfig) -> None:
        """Add the pages, copies and listings of :attr:`targets` to ``files``."""
        level = InclusionLevel.NOT_IN_NAV
        for path, target in sorted(self.targets.items()):
            if path not in self.files:  # a folder
                content = self.listing(path, target)
                files.append(File.generated(config, target, content=content, inclusion=level))
            elif target == posixpath.join(SOURCE, path):  # copied as it is
                abs_path = str(self.root / path)
                files.append(File.generated(config, target, abs_src_path=abs_path, inclusion=level))
            else:
                content = self.source_page(path)
                files.append(File.generated(config, target, content=content, inclusion=level))

    def source_page(self, path: str) -> str:
        """The page showing the repository file ``path``."""
        text = (self.root / path).read_text(encoding="utf-8")
        language = LANGUAGES.get(posixpath.splitext(path)[1], "text")
        # pymdownx.snippets reads its marker in code blocks too: shown as an entity instead
        text = text.replace("--8<--", "-&#45;8<--")
        return f"---\nsearch:\n  exclude: true\n---\n\n# {path}\n\n{fenced(text, language)}\n"

    def listing(self, folder: str, target: str) -> str:
        """The page listing the files under ``folder``, each linked to its own page."""
        here = posixpath.dirname(target)
        lines = []
        for path in self.files_under(folder):
            link = posixpath.relpath(self.targets[path], here)
            shown = path[len(folder) + 1 :] if folder else path
            lines.append(f"- [{shown}]({link})")
        title = (folder or "the repository") + "/"
        body = "\n".join(lines)
        return f"---\nsearch:\n  exclude: true\n---\n\n# {title}\n\n{body}\n"

    def rewrite(self, page: str, url: str) -> str:
        """``url`` (a link of ``page``) pointed at the site's copy of the repository file or
        folder it names; unchanged when it names none (mkdocs then reports a missing one).
        """
        path = self.repo_path(page, url)
        if path is None or path not in self.targets:
            return url
        parts = urlsplit(url)
        link = posixpath.relpath(self.targets[path], posixpath.dirname(page) or ".")
        # a git host's line anchor (#L12, #L12-L20): the site's page has none, the file's top
        fragment = "" if re.fullmatch(r"L\d+(-L\d+)?", parts.fragment) else parts.fragment
        return urlunsplit(("", "", link, parts.query, fragment))


class _Rewrite(Treeprocessor):  # type: ignore[misc]
    """Rewrites the links (``a href``, ``img src``) of the page being rendered; runs before
    mkdocs' own link processor (priority 0), which then validates the rewritten links.
    """

    def run(self, root: Element) -> None:
        if _STATE.links is None or _STATE.page is None:
            return
        for element in root.iter():
            key = {"a": "href", "img": "src"}.get(element.tag)
            value = element.get(key) if key else None
            if key and value:
                element.set(key, _STATE.links.rewrite(_STATE.page, value))


class RepoLinksExtension(Extension):  # type: ignore[misc]
    """Registers :class:`_Rewrite` (added to the Markdown extensions by :func:`on_config`)."""

    def extendMarkdown(self, md: Markdown) -> None:
        """Register the treeprocessor."""
        md.treeprocessors.register(_Rewrite(md), "sqlmetrics_repo_links", 1)


class _State:
    links: RepoLinks | None = None
    page: str | None = None


_STATE = _State()


# --------------------------------------------------------------------------- the hooks
def on_config(config: MkDocsConfig, **kwargs: Any) -> MkDocsConfig:
    """Add the link rewriting to the Markdown extensions."""
    config.markdown_extensions.append(RepoLinksExtension())
    return config


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add the generated reference pages (unless ``extra: generated_reference: false``), then
    the pages of the repository's linked files.
    """
    generated: dict[str, str] = {}
    if config.extra.get("generated_reference", True):  # false: a test's throwaway site
        generated = {**api_pages(), "reference/cli.md": CLI_PAGE, **metric_pages()}
    for path, content in generated.items():
        existing = files.get_file_from_path(path)
        if existing is not None:  # a placeholder page of the skeleton
            files.remove(existing)
        level = InclusionLevel.UNDEFINED if path in NAV_PAGES else InclusionLevel.NOT_IN_NAV
        files.append(File.generated(config, path, content=content, inclusion=level))
    root = Path(config.config_file_path).resolve().parent
    links = RepoLinks(root, Path(config.docs_dir))
    for file in files.documentation_pages():
        links.scan(file.src_uri, file.content_string)
    links.add_pages(files, config)
    _STATE.links = links
    return files


def on_page_markdown(
    markdown: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any
) -> str:
    """Fill the generated lists (metric pages, decisions); note the page for the links."""
    _STATE.page = page.file.src_uri
    if page.file.src_uri == "reference/metrics.md":
        found = METRIC_PAGES_MARKER in markdown
        listing = metric_pages_list(page.file.src_uri)
        if found:
            markdown = markdown.replace(METRIC_PAGES_MARKER, listing)
        else:
            markdown = markdown.rstrip("\n") + "\n\n" + listing
    elif page.file.src_uri == "decisions/index.md":
        listing = decisions_list(Path(config.docs_dir))
        if DECISIONS_MARKER in markdown:
            markdown = markdown.replace(DECISIONS_MARKER, listing)
        else:
            markdown = markdown.rstrip("\n") + "\n\n" + listing
    return markdown
