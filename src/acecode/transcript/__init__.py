"""Reading agents' session files (JSONL) into flat message dicts.

``load_transcript(path)`` is what most callers need; ``read_transcript``
also returns what had to be skipped; ``iter_messages`` streams for callers
that never need the whole list. Which agent wrote a file is told from its
first record (:func:`acecode.agents.detect_agent`) unless the caller says;
the agent's reader turns records into messages. See
:mod:`acecode.agents.claude_code.messages` for the message shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from acecode.agents.base import Message
from acecode.agents.claude_code.subagents import find_subagent_transcripts
from acecode.transcript.reader import TranscriptStats, iter_records

if TYPE_CHECKING:
    from acecode.agents.base import Agent

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


def iter_messages(
    path: str | Path, stats: TranscriptStats | None = None, agent: Agent | None = None
) -> Iterator[Message]:
    """Stream the messages of a transcript, one record at a time, read by ``agent``
    (default: the agent that wrote it)."""
    from acecode.agents import detect_agent

    stats = stats if stats is not None else TranscriptStats()
    reader = (agent or detect_agent(path)).message_reader(stats)
    for record in iter_records(Path(path), stats):
        yield from reader.convert(record)


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

    def __init__(self, path: str | Path, start: int, stop: int, agent: Agent | None = None) -> None:
        self.path = Path(path)
        self.agent = agent
        self.start = max(0, start)
        self.stop = max(self.start, stop)

    def __iter__(self) -> Iterator[Message]:
        return islice(iter_messages(self.path, agent=self.agent), self.start, self.stop)

    def __len__(self) -> int:
        return self.stop - self.start
