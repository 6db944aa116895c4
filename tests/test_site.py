"""The documentation site (mkdocs.yml, docs/_hooks.py), built once with ``mkdocs build
--strict`` (every warning an error: a broken link, a docstring griffe cannot parse).

Checked on the built files: every name of ``sqlmetrics.__all__`` has its API reference with its
docstring's sections; every registered metric has its page holding its SQL template's header
and linking to its function and its template; every command of the command line is in the CLI
reference; no page loads a script, stylesheet, font or image from the network; search works
from the files opened as ``file://`` in headless Chromium (marker ``browser``). A throwaway
site built with the same hooks shows that a link to a repository file or folder becomes a page
of the site and that a link to a missing one fails the strict build.

The build takes some 15-25 s: these tests are in ``pytest --all`` (markers ``slow`` and
``browser``), not in the fast tier.
"""

from __future__ import annotations

import fcntl
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from PIL import Image, ImageStat

import sqlmetrics
from sqlmetrics._core.registry import REGISTRY
from sqlmetrics.cli._main import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
#: the plots of sqlmetrics.plot (a public module beside __all__)
PLOTS = ("roc", "pr", "calibration", "gains")

pytestmark = pytest.mark.slow


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, this checkout's package first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["NO_MKDOCS_2_WARNING"] = "1"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict"]
    command += ["--config-file", str(config), "--site-dir", str(site)]
    return subprocess.run(
        command, cwd=config.parent, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for all workers (a lock in the run's shared temporary folder)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    out = shared / "sqlmetrics-site"
    with open(shared / "sqlmetrics-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "index.html").is_file():
            done = build(ROOT / "mkdocs.yml", out)
            if done.returncode != 0:
                pytest.fail(
                    f"mkdocs build --strict failed ({done.returncode}):\n{done.stderr[-8000:]}",
                    pytrace=False,
                )
    return out


def text_of(fragment: str) -> str:
    """The text of an HTML fragment: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def doc_blocks(page: str) -> dict[str, str]:
    """The mkdocstrings blocks of an API page by their anchor (``sqlmetrics.auc``)."""
    parts = re.split(r'(?=<div class="doc doc-object )', page)
    blocks = {}
    for part in parts:
        found = re.search(r'id="(sqlmetrics\.[A-Za-z0-9_.]+)"', part)
        if found and part.startswith('<div class="doc doc-object '):
            blocks[found.group(1)] = part
    return blocks


def sql_header(template: str) -> str:
    """The template's leading ``{# ... #}`` comment, read here on its own (not the hooks')."""
    text = (ROOT / "sql" / template).read_text(encoding="utf-8")
    assert text.lstrip().startswith("{#"), template
    return text.lstrip()[2:].split("#}", 1)[0]


def test_every_public_name_has_its_api_reference(site: Path) -> None:
    pages = [site / "reference" / "api.html", *sorted((site / "reference" / "api").glob("*.html"))]
    blocks: dict[str, str] = {}
    for page in pages:
        blocks.update(doc_blocks(page.read_text(encoding="utf-8")))
    names = [*sqlmetrics.__all__, "plot"]
    assert [n for n in names if f"sqlmetrics.{n}" not in blocks] == []
    index = (site / "reference" / "api.html").read_text(encoding="utf-8")
    for name in names:  # the index links each name to its block
        assert re.search(rf'href="api/[a-z_]+\.html#sqlmetrics\.{name}"', index), name
    # the numpy sections were parsed (griffe), not shown as text: each function's block has
    # a section per heading of its docstring (sqlmetrics.plot's too)
    objects = {f"sqlmetrics.{n}": getattr(sqlmetrics, n) for n in sqlmetrics.__all__}
    objects.update({f"sqlmetrics.plot.{n}": getattr(sqlmetrics.plot, n) for n in PLOTS})
    for name, value in objects.items():
        doc = value.__doc__ or ""
        for section in ("Parameters", "Returns", "Raises", "Examples"):
            if re.search(rf"^\s*{section}\n\s*-{{3,}}$", doc, flags=re.M):
                titles = re.findall(r'class="doc-section-title">\s*([^<:]+)', blocks[name])
                assert section in [t.strip() for t in titles], (name, section, titles)
    assert "----------" not in text_of(blocks["sqlmetrics.auc"])  # no numpy underline as text
    # the Sphinx roles (:func:`evaluate`) are cross-references, not text
    for page in pages:
        shown = text_of(page.read_text(encoding="utf-8"))
        assert re.findall(r":(?:func|class|data|meth|math):", shown) == [], page
    assert 'href="evaluation.html#sqlmetrics.Interval"' in blocks["sqlmetrics.auc"]


def test_every_metric_has_its_page_with_its_definition(site: Path) -> None:
    listing = (site / "reference" / "metrics.html").read_text(encoding="utf-8")
    for name, spec in REGISTRY.items():
        page = site / "reference" / "metrics" / f"{name}.html"
        assert page.is_file(), name
        content = page.read_text(encoding="utf-8")
        shown = text_of(content)
        assert " ".join(sql_header(spec.template).split()) in shown, name
        assert " ".join(spec.summary.replace("`", "").split()) in shown, name
        assert re.search(rf'href="\.\./api/[a-z_]+\.html#sqlmetrics\.{spec.function}"', content)
        source = f"../../_source/sql/{spec.template}.html"
        assert f'href="{source}"' in content, name
        shown_sql = text_of((page.parent / source).read_text(encoding="utf-8"))
        body = (ROOT / "sql" / spec.template).read_text(encoding="utf-8")
        assert " ".join(body.split()) in shown_sql, name
        assert f'href="metrics/{name}.html"' in listing, name


def test_every_command_is_in_the_cli_reference(site: Path) -> None:
    page = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    headings = [
        text_of(h).rstrip("¶").strip()
        for h in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", page, re.S)
    ]

    def walk(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
        found = []
        for name, command in sorted(group.commands.items()):
            found.append((f"{prefix} {name}", command))
            if isinstance(command, click.Group):
                found += walk(command, f"{prefix} {name}")
        return found

    commands = walk(cli_main, "sqlmetrics")
    assert {"sqlmetrics eval", "sqlmetrics compare", "sqlmetrics plot roc"} <= dict(commands).keys()
    text = text_of(page)
    for path, command in commands:
        assert path in headings, (path, headings)
        for option in command.params:
            for flag in option.opts if isinstance(option, click.Option) else ():
                assert flag in text, (path, flag)


#: a tag that loads something: its src= or href= (an <a> only links)
LOADS = re.compile(r"<(script|link|img|source|iframe|embed|audio|video|object)\b[^>]*>", re.I)


def test_no_page_loads_anything_from_the_network(site: Path) -> None:
    remote = []
    for path in site.rglob("*.html"):
        for tag in LOADS.finditer(path.read_text(encoding="utf-8")):
            if re.search(r"""\b(src|href|data)\s*=\s*["']?(https?:)?//""", tag.group(0), re.I):
                remote.append(f"{path.relative_to(site)}: {tag.group(0)}")
    for path in site.rglob("*.css"):
        text = path.read_text(encoding="utf-8")
        remote += [f"{path}: {m}" for m in re.findall(r"url\(\s*[\"']?(?:https?:)?//[^)]*", text)]
        remote += [f"{path}: {m}" for m in re.findall(r"@import\s+[\"']https?:[^;]*", text)]
    assert remote == []
    assert len(list(site.rglob("*.html"))) > len(REGISTRY)  # the scan saw the whole site


@pytest.mark.browser
def test_search_works_from_the_files(site: Path) -> None:
    from test_report_browser import run_chromium

    url = (site / "index.html").as_uri() + "?q=ndcg"  # Material's search.share reads ?q=
    budget = "--virtual-time-budget=15000"
    dom = run_chromium(budget, "--dump-dom", url).stdout
    results = re.findall(r'<a href="([^"]*)" class="md-search-result__link"', dom)
    assert any("reference/metrics/ndcg.html" in r for r in results), results
    assert re.search(r'class="md-search-result__meta">\s*\d+ matching document', dom)
    shot = site.parent / "sqlmetrics-site-search.png"
    run_chromium(budget, "--window-size=1200,900", f"--screenshot={shot}", url)
    with Image.open(shot) as image:
        stat = ImageStat.Stat(image.convert("L"))
    assert stat.stddev[0] > 10, stat.stddev  # not one colour: text, results


# --------------------------------------------------------------------------- links to files
THROWAWAY = """site_name: throwaway
docs_dir: docs
use_directory_urls: false
hooks:
  - {hooks}
validation:
  omitted_files: info
  absolute_links: warn
  unrecognized_links: warn
  anchors: warn
extra:
  generated_reference: false
markdown_extensions:
  - pymdownx.superfences
"""


def throwaway(tmp: Path, page: str) -> Path:
    """A small repository: a page ``docs/recipes/page.md`` (``page``), a template, data."""
    (tmp / "docs" / "recipes").mkdir(parents=True)
    (tmp / "sql" / "classification").mkdir(parents=True)
    (tmp / "examples" / "data" / "export").mkdir(parents=True)
    (tmp / "sql" / "classification" / "auc.sql").write_text("{# auc #}\nselect 1 as auc\n")
    (tmp / "examples" / "data" / "export" / "day=1.csv").write_text("label,score\n1,0.5\n")
    (tmp / "examples" / "data" / "export" / "part.bin").write_bytes(b"\0\1\2")
    (tmp / "README.md").write_text("# The readme\n")
    (tmp / "docs" / "index.md").write_text("# Home\n\n[a recipe](recipes/page.md)\n")
    (tmp / "docs" / "recipes" / "page.md").write_text(page)
    config = tmp / "mkdocs.yml"
    config.write_text(THROWAWAY.format(hooks=ROOT / "docs" / "_hooks.py"))
    return config


def test_links_to_repository_files_and_folders_become_pages(tmp_path: Path) -> None:
    page = (
        "# Page\n\n"
        "The [template](../../sql/classification/auc.sql#L1-L2), the [export]"
        "(../../examples/data/export/), the [readme][r].\n\n"
        "[r]: ../../README.md\n\n"
        "```text\n[not a link](../../sql/classification/auc.sql)\n```\n"
    )
    config = throwaway(tmp_path, page)
    done = build(config, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    built = (site / "recipes" / "page.html").read_text(encoding="utf-8")
    assert 'href="../_source/sql/classification/auc.sql.html"' in built  # #L1-L2 dropped
    assert 'href="../_source/examples/data/export/index.html"' in built
    assert 'href="../_source/README.md.html"' in built
    assert "[not a link](../../sql/classification/auc.sql)" in html.unescape(built)
    assert "select 1 as auc" in text_of(
        (site / "_source" / "sql" / "classification" / "auc.sql.html").read_text()
    )
    listing = (site / "_source" / "examples" / "data" / "export" / "index.html").read_text()
    assert 'href="day%3D1.csv.html"' in listing  # day=1.csv.html, quoted
    assert (site / "_source" / "examples" / "data" / "export" / "day=1.csv.html").is_file()
    assert 'href="part.bin"' in listing  # not text: copied as it is
    assert (site / "_source" / "examples" / "data" / "export" / "part.bin").read_bytes() == (
        b"\0\1\2"
    )


@pytest.mark.parametrize(
    "link",
    [
        "../../sql/classification/missing.sql",
        "../../examples/data/missing/",
        "../../../outside.sql",
        "../missing-page.md",
        "../../sql/classification/auc.sql#no-such-anchor",
    ],
)
def test_a_link_to_a_missing_file_fails_the_strict_build(tmp_path: Path, link: str) -> None:
    config = throwaway(tmp_path, f"# Page\n\nSee [it]({link}).\n")
    done = build(config, tmp_path / "site")
    assert done.returncode != 0
    assert re.split(r"[/#]", link.rstrip("/"))[-1] in done.stderr, done.stderr
