"""Graduated entries as text in an instruction file, and taken out of it again.

Each entry is one block: a marker line, then the rule as a list item::

    <!-- acecode pat-003 -->
    - Run `make migrate` before starting the API server.

Claude Code leaves out an HTML comment that opens a line (measured, see
docs/claude-code.md), so the model gets the rule and not the marker; the
marker lets ``acecode undo`` find exactly the block it wrote. In a rules file
acecode creates, the blocks follow ``paths:`` front matter (when the entries
are about some paths) and a heading; in a ``CLAUDE.md`` they go under a
section of their own, ``## Learned with acecode``, added at the end when the
file does not have it.

Pure text functions: the caller reads and writes the files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from acecode.instructions.frontmatter import render_front_matter

HEADING = "Learned with acecode"
_MARKER = "<!-- acecode {name} -->"
_SECTION = re.compile(rf"^##\s+{re.escape(HEADING)}\s*$", re.MULTILINE)
_NEXT_HEADING = re.compile(r"^#{1,2}\s", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One graduated entry: its name (the marker) and its text."""

    name: str
    text: str

    @property
    def marker(self) -> str:
        return _MARKER.format(name=self.name)

    def render(self) -> str:
        """The marker line and the rule as a list item (continuation lines indented)."""
        lines = self.text.strip().split("\n")
        body = "\n".join([f"- {lines[0]}", *(f"  {line}" for line in lines[1:])])
        return f"{self.marker}\n{body}\n"


def new_rules_file(blocks: Sequence[Block], paths: Sequence[str] = ()) -> str:
    """A rules file holding ``blocks``, limited to ``paths`` when there are any."""
    head = render_front_matter(tuple(paths)) if paths else ""
    return head + f"# {HEADING}\n\n" + "\n".join(block.render() for block in blocks)


def append_blocks(text: str, blocks: Sequence[Block], *, section: bool) -> str:
    """``text`` with ``blocks`` added: at the end of its ``## Learned with acecode`` section
    when ``section`` (the section added at the end when missing), else at the end."""
    rendered = "\n".join(block.render() for block in blocks)
    if not section:
        return _joined(text, rendered)
    found = _SECTION.search(text)
    if found is None:
        return _joined(text, f"## {HEADING}\n\n{rendered}")
    following = _NEXT_HEADING.search(text, found.end())
    end = following.start() if following else len(text)
    return _joined(text[:end], rendered) + ("\n" + text[end:] if following else "")


def _joined(text: str, addition: str) -> str:
    """``addition`` after ``text``, one blank line between."""
    stripped = text.rstrip("\n")
    return f"{stripped}\n\n{addition}" if stripped else addition


def find_block(text: str, block: Block) -> tuple[int, int] | None:
    """Where ``block`` stands in ``text``, exactly as :meth:`Block.render` wrote it."""
    rendered = block.render()
    start = text.find(rendered)
    return None if start < 0 else (start, start + len(rendered))


def remove_blocks(text: str, blocks: Sequence[Block]) -> str:
    """``text`` without ``blocks`` (each must be there, see :func:`find_block`), the blank
    line after each, and a ``## Learned with acecode`` section left empty."""
    for block in blocks:
        span = find_block(text, block)
        if span is None:
            raise ValueError(f"{block.name} is not in the text as written")
        start, end = span
        if text[end : end + 1] == "\n":
            end += 1
        text = text[:start] + text[end:]
    empty = re.compile(rf"\n*^##\s+{re.escape(HEADING)}[ \t]*\n*(?=^#{{1,2}}\s|\Z)", re.MULTILINE)
    text = empty.sub(lambda m: "\n" if m.end() == len(text) else "\n\n", text)
    return text.rstrip("\n") + "\n" if text.strip() else ""


def only_scaffolding(text: str) -> bool:
    """True when a rules file acecode created holds nothing but its front matter and heading."""
    from acecode.instructions.frontmatter import split_front_matter

    body = split_front_matter(text).body
    return not body.replace(f"# {HEADING}", "").strip()
