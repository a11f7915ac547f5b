"""Real transcripts under ``tests/data/transcripts`` and the counts SOURCES.md states for them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
TRANSCRIPTS = DATA / "transcripts"

_COUNTS = re.compile(r"(\d+) tool calls; (\d+) failed; (\d+) prompts; (\d+) interrupts")


@dataclass(frozen=True)
class SourceRow:
    """One transcript file and what SOURCES.md says it holds."""

    path: Path
    records: int
    tool_calls: int
    failed: int
    prompts: int
    interrupts: int
    compaction: bool


def source_rows() -> list[SourceRow]:
    """Every Claude Code ``.jsonl`` row of ``tests/data/SOURCES.md``."""
    rows: list[SourceRow] = []
    for line in (DATA / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `") or ".jsonl`" not in line or line.startswith("| `codex/"):
            continue  # Codex session files have a table of their own: not Claude Code transcripts
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        counts = _COUNTS.search(cells[7])
        assert counts, line
        tool_calls, failed, prompts, interrupts = map(int, counts.groups())
        rows.append(
            SourceRow(
                path=TRANSCRIPTS / cells[0].strip("`"),
                records=int(cells[5].replace(",", "")),
                tool_calls=tool_calls,
                failed=failed,
                prompts=prompts,
                interrupts=interrupts,
                compaction="COMPACTION" in cells[7],
            )
        )
    return rows


SOURCE_ROWS = source_rows()


def row_id(row: SourceRow) -> str:
    return str(row.path.relative_to(TRANSCRIPTS))
