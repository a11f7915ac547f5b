"""The project's instructions as the reflector and the curator see them: a digest.

The roles must know what Claude Code already tells the agent, so that they do
not learn it again and notice a lesson that goes against it. They get every
instruction unit (:mod:`.units`) of the files that apply, one line each, most
binding first: the project's ``CLAUDE.md`` files and rules loaded at start, the
user's, the local file, the ``paths:`` rules (named with their patterns), the
organisation's, then the auto memory's index. What does not fit in the budget
is counted, not shown.

The digest is data, not instructions: a CLAUDE.md that came with a clone is
untrusted input. So each line is redacted like any other text bound for a
provider, clipped, and kept on one line, and the block's closing tag is
taken out of the text, so nothing inside can end the block or pose as the
prompt around it; the templates say the block is data to compare with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acecode.instructions.files import (
    LOCAL,
    MANAGED_KIND,
    MEMORY,
    PROJECT,
    USER,
    InstructionFile,
    instruction_files,
)
from acecode.instructions.units import Instruction, split_units

OPEN, CLOSE = "<project-instructions>", "</project-instructions>"
NONE = "(this project has no CLAUDE.md, rules or auto memory)"
# Longest line of the digest: an instruction longer than this is clipped.
MAX_LINE_CHARS = 300
BYTES_PER_TOKEN = 4
_ORDER = {PROJECT: 0, USER: 1, LOCAL: 2, MANAGED_KIND: 4, MEMORY: 5}


@dataclass(frozen=True)
class Digest:
    """The rendered digest and how many instructions it shows and leaves out."""

    text: str
    shown: int
    left_out: int


def _rank(file: InstructionFile) -> int:
    """Where ``file`` comes in the digest: ``paths:`` rules after every file loaded at start
    but the organisation's and the auto memory."""
    return 3 if file.paths else _ORDER.get(file.kind, 3)


def _heading(file: InstructionFile) -> str:
    if file.paths:
        return f"## {file.label} (loaded once a file matching {', '.join(file.paths)} is read)"
    if file.kind == MEMORY:
        return f"## {file.label}: Claude's own notes, loaded at every session start"
    return f"## {file.label}"


def _line(unit: Instruction) -> str:
    from acecode.text.redact import redact

    text = " ".join(redact(unit.text).replace(CLOSE, " ").replace(OPEN, " ").split())
    if len(text) > MAX_LINE_CHARS:
        text = text[: MAX_LINE_CHARS - 1].rstrip() + "…"
    return f"- {text}"


def render_digest(files: list[InstructionFile], budget_tokens: int) -> Digest:
    """The digest of ``files`` within ``budget_tokens`` (module doc)."""
    budget = max(0, budget_tokens) * BYTES_PER_TOKEN
    lines: list[str] = []
    used = shown = left_out = 0
    for file in sorted(files, key=_rank):
        units = split_units(file)
        if not units:
            continue
        heading = _heading(file)
        rows = [_line(unit) for unit in units]
        for index, row in enumerate(rows):
            cost = len(row.encode("utf-8")) + 1 + (len(heading) + 1 if index == 0 else 0)
            if used + cost > budget:
                left_out += len(rows) - index
                break
            if index == 0:
                lines.append(heading)
            lines.append(row)
            used += cost
            shown += 1
    text = "\n".join(lines) if lines or left_out else NONE
    if left_out:
        text += f"\n({left_out} more instruction{'s' if left_out != 1 else ''} not shown)"
    return Digest(f"{OPEN}\n{text.strip()}\n{CLOSE}", shown, left_out)


def digest_bound(budget_tokens: int) -> int:
    """The most bytes a digest within ``budget_tokens`` takes, framing included."""
    framing = len(OPEN) + len(CLOSE) + len(NONE) + 40
    return max(0, budget_tokens) * BYTES_PER_TOKEN + framing


def project_digest(project: Path, budget_tokens: int) -> Digest:
    """The digest of the instructions that apply to ``project``."""
    return render_digest(instruction_files(project), budget_tokens)
