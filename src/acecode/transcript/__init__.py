"""Reading Claude Code session transcripts (JSONL) into flat message dicts.

``load_transcript(path)`` is what most callers need; ``read_transcript``
also returns what had to be skipped; ``iter_messages`` streams for callers
that never need the whole list. See :mod:`acecode.agents.claude_code.messages` for
the message shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from acecode.agents.claude_code.messages import Message, MessageBuilder
from acecode.agents.claude_code.subagents import find_subagent_transcripts
from acecode.transcript.reader import TranscriptStats, iter_records

__all__ = [
    "Message",
    "MessageWindow",
    "Transcript",
    "TranscriptStats",
    "find_subagent_transcripts",
    "iter_messages",
    "load_transcript",
    "read_transcript",
]


@dataclass
class Transcript:
    """The messages of one transcript file and what reading it met."""

    messages: list[Message]
    stats: TranscriptStats


def iter_messages(path: str | Path, stats: TranscriptStats | None = None) -> Iterator[Message]:
    """Stream the messages of a transcript, one record at a time."""
    stats = stats if stats is not None else TranscriptStats()
    builder = MessageBuilder(stats)
    for record in iter_records(Path(path), stats):
        yield from builder.convert(record)


def read_transcript(path: str | Path) -> Transcript:
    """All messages of a transcript plus counts of skipped and damaged lines."""
    stats = TranscriptStats()
    messages = list(iter_messages(path, stats))
    return Transcript(messages, stats)


def load_transcript(path: str | Path) -> list[Message]:
    """All messages of a transcript; a missing file is an empty transcript."""
    return read_transcript(path).messages


class MessageWindow:
    """Messages ``start`` to ``stop`` of a transcript, read from the file on each pass.

    For callers that need several passes over a session too long to hold:
    it iterates like the list it stands for (the window is fixed, so a file
    still being appended to gives the same messages every time), but only one
    message is in memory at a time.
    """

    def __init__(self, path: str | Path, start: int, stop: int) -> None:
        self.path = Path(path)
        self.start = max(0, start)
        self.stop = max(self.start, stop)

    def __iter__(self) -> Iterator[Message]:
        return islice(iter_messages(self.path), self.start, self.stop)

    def __len__(self) -> int:
        return self.stop - self.start
