"""Streaming JSONL reader that survives whatever a crashed or foreign writer left behind.

Claude Code appends to a session file while it runs, so a file may end in a
half-written line, and files copied between machines may carry broken bytes.
Each line is read on its own with a hard size cap: memory stays flat however
large the file or any single line is, and a bad line costs only itself.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A line longer than this is skipped (and counted) without ever being held whole.
# Real records top out around 1 MB (an image or a large file read); 8 MiB leaves
# headroom while bounding the memory one line can take.
MAX_LINE_BYTES = 8 * 1024 * 1024
_DRAIN_CHUNK = 1024 * 1024


@dataclass
class TranscriptStats:
    """What reading a transcript met, so callers can report damage instead of hiding it."""

    lines: int = 0
    blank_lines: int = 0
    records: int = 0
    malformed_lines: int = 0
    invalid_utf8_lines: int = 0
    oversized_lines: int = 0
    messages: int = 0
    duplicate_blocks: int = 0
    skipped_types: Counter[str] = field(default_factory=Counter)
    unknown_blocks: Counter[str] = field(default_factory=Counter)

    @property
    def bad_lines(self) -> int:
        """Lines that could not be used at all."""
        return self.malformed_lines + self.invalid_utf8_lines + self.oversized_lines


def iter_records(path: Path, stats: TranscriptStats) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file, counting what had to be skipped.

    A missing or unreadable file yields nothing: a session that left no
    transcript is an empty session, not an error.
    """
    try:
        handle = path.open("rb")
    except OSError:
        return
    with handle:
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            stats.lines += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                stats.oversized_lines += 1
                _drain_line(handle)
                continue
            record = _parse_line(raw, stats)
            if record is not None:
                stats.records += 1
                yield record


def _drain_line(handle: Any) -> None:
    """Skip the rest of an oversized line in bounded chunks."""
    while True:
        chunk = handle.readline(_DRAIN_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def _parse_line(raw: bytes, stats: TranscriptStats) -> dict[str, Any] | None:
    stripped = raw.strip()
    if not stripped:
        stats.blank_lines += 1
        return None
    try:
        text = stripped.decode("utf-8")
    except UnicodeDecodeError:
        stats.invalid_utf8_lines += 1
        return None
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        stats.malformed_lines += 1
        return None
    if not isinstance(record, dict):
        stats.malformed_lines += 1
        return None
    return record
