"""An instruction file cut into the single instructions it gives.

A playbook entry is one short rule; a CLAUDE.md is a page of them. To tell
whether an entry repeats or contradicts an instruction, both sides must be one
rule each, so a file is cut into *units*: a list item (with its continuation
lines), a table row, a paragraph, a fenced code block. A long paragraph is cut
into its sentences. Headings are not units; each unit remembers the heading
above it, and a unit too short to stand alone (a code block, a two-word item
like ``pnpm test``) is given that heading as context: ``Testing: pnpm test``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acecode.instructions.files import InstructionFile

# A unit shorter than this many words is read with its heading.
CONTEXT_WORDS = 4
# A paragraph longer than this is cut into sentences.
LONG_PARAGRAPH = 300
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*])")


@dataclass(frozen=True)
class Instruction:
    """One unit of an instruction file: its text, the file's label and the line it starts on."""

    text: str
    label: str
    line: int
    heading: str = ""
    at_start: bool = True
    bare: str = ""  # the text without the heading given as context (``text`` when none)
    path: str = ""  # the file's absolute path

    @property
    def where(self) -> str:
        """``CLAUDE.md:12``."""
        return f"{self.label}:{self.line}"


def split_units(file: InstructionFile) -> list[Instruction]:
    """The units of ``file`` in order (module doc)."""
    units: list[Instruction] = []
    heading = ""
    block: list[str] = []
    start = 0
    fenced = False

    def flush() -> None:
        nonlocal block
        if block:
            units.extend(_units_of(block, start, heading, file))
        block = []

    for number, line in enumerate(file.text.split("\n"), start=1):
        if fenced:
            block.append(line)
            if _FENCE.match(line):
                fenced = False
                flush()
            continue
        if _FENCE.match(line):
            flush()
            block, start, fenced = [line], number, True
            continue
        title = _HEADING.match(line)
        if title:
            flush()
            heading = _plain(title.group(1))
            continue
        if not line.strip():
            flush()
            continue
        item = _ITEM.match(line)
        table = bool(block) and _is_row(block[0])
        if (item and not item.group(1)) or _is_row(line) != table or not block:
            flush()
            start = number
        block.append(line)
    flush()
    return units


def _units_of(
    lines: list[str], start: int, heading: str, file: InstructionFile
) -> list[Instruction]:
    """The units of one block of lines (an item, a row, a paragraph or a code block)."""
    first = lines[0]
    if _FENCE.match(first):
        code = [line for line in lines[1:] if not _FENCE.match(line) and line.strip()]
        texts = ["; ".join(line.strip() for line in code)] if code else []
        return [_unit(text, file, start, heading, force_context=True) for text in texts]
    if _is_row(first):
        return _rows(lines, start, heading, file)
    item = _ITEM.match(first)
    body = [item.group(2) if item else first.strip()] + [line.strip() for line in lines[1:]]
    text = " ".join(part for part in body if part)
    if item is None and len(text) > LONG_PARAGRAPH:
        return [_unit(s, file, start, heading) for s in _SENTENCE.split(text) if s.strip()]
    return [_unit(text, file, start, heading)]


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _rows(lines: list[str], start: int, heading: str, file: InstructionFile) -> list[Instruction]:
    """One unit per body row of a table: the header row (the one above the ``|---|``
    rule) and the rule are not instructions."""
    header = {i - 1 for i, line in enumerate(lines) if _TABLE_RULE.match(line)}
    units = []
    for offset, line in enumerate(lines):
        if offset in header or _TABLE_RULE.match(line):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        text = " | ".join(cell for cell in cells if cell)
        if text:
            units.append(_unit(text, file, start + offset, heading))
    return units


def _unit(
    text: str, file: InstructionFile, line: int, heading: str, force_context: bool = False
) -> Instruction:
    bare = text.strip()
    text = bare
    if heading and (force_context or len(bare.split()) < CONTEXT_WORDS):
        text = f"{heading}: {bare}"
    return Instruction(text, file.label, line, heading, file.at_start, bare, str(file.path))


def _plain(title: str) -> str:
    """A heading without emphasis marks."""
    return title.replace("**", "").replace("`", "").strip()


def all_units(files: list[InstructionFile]) -> list[Instruction]:
    """The units of every file, in file order."""
    return [unit for file in files for unit in split_units(file)]
