"""The documentation site's pages (``docs/``, built by ``mkdocs.yml``) as the tests read them:
a page's text, a section by its heading, and its code blocks with the output printed beside
them. The README is a landing page; what it said lives on the site's pages (issue 42).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: a fenced block: its info string (``python``, ``python spark``, ``bash``, ...) and its text
FENCE = re.compile(r"^```([^\n]*)\n(.*?)\n```$", flags=re.S | re.M)
#: the words between a block and the output block shown for it
PRINTS = re.compile(r"\s*(?:it )?prints:?\s*", flags=re.I)


@dataclass(frozen=True)
class Block:
    """A code block of a page: ``info`` its fence's info string, ``code`` its text, ``shown``
    the output block printed after it (``prints`` then a fenced block), if any.
    """

    info: str
    code: str
    shown: str | None


def pages() -> list[str]:
    """Every page of the site, as a path relative to ``docs/`` (``recipes/click-log.md``)."""
    return sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))


@cache
def page(path: str) -> str:
    """The Markdown of the page ``path`` (relative to ``docs/``, or ``README.md``)."""
    file = ROOT / path if path == "README.md" else DOCS / path
    return file.read_text(encoding="utf-8")


def section(heading: str) -> str:
    """The section of the site under ``## heading`` (or ``### heading``), up to the next
    heading of its level or above; it must exist on exactly one page.
    """
    found = []
    for path in pages():
        for level in ("##", "###"):
            text = "\n" + page(path)
            if f"\n{level} {heading}\n" in text:
                body = text.split(f"\n{level} {heading}\n", 1)[1]
                stop = re.search(rf"\n#{{1,{len(level)}}} ", body)
                found.append(body[: stop.start()] if stop else body)
    assert len(found) == 1, f"section {heading!r}: found on {len(found)} pages"
    return found[0]


def blocks(text: str) -> list[Block]:
    """The code blocks of ``text`` in order, each with the output shown after it."""
    matches = list(FENCE.finditer(text))
    out: list[Block] = []
    skip = False
    for i, match in enumerate(matches):
        if skip:
            skip = False
            continue
        shown = None
        if i + 1 < len(matches):
            between = text[match.end() : matches[i + 1].start()]
            if PRINTS.fullmatch(between):
                shown = matches[i + 1].group(2) + "\n"
                skip = True
        out.append(Block(match.group(1).strip(), match.group(2), shown))
    return out
