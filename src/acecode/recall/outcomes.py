"""What recall did, per entry: recalled N times, warned M times, and what came next.

Read from the exposure log's ``recall`` and ``warn`` lines (written by
:mod:`acecode.hooks.tools`) and from the sessions' transcripts: for each line,
the call it answered (its ``tool_use_id``) is found in the session's transcript,
and so is the next call *like it* (the same tool and command head, or the same
file: :func:`like`). "The same call succeeded on the next try" counts the
recalls and warnings whose next such call did not fail; a session that never
tried again is counted apart. A transcript that is gone (Claude Code deletes
them after 30 days by default) leaves the counts and drops only the next try.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVENTS = ("recall", "warn")


@dataclass
class RecallStats:
    """One entry's recalls and warnings, and how the call went the next time."""

    entry: str
    recalled: int = 0
    warned: int = 0
    tried_again: int = 0
    succeeded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "recalled": self.recalled,
            "warned": self.warned,
            "tried_again": self.tried_again,
            "succeeded_next": self.succeeded,
        }


@dataclass(frozen=True)
class Call:
    """One tool call of a transcript: what it was like and whether it failed."""

    call_id: str
    like: str
    failed: bool | None  # None: no result seen


def like(tool: str, tool_input: Any) -> str:
    """What makes a later call "the same call": the tool with its command head (shell) or
    the name of the file it names (``Bash | npm test``, ``Read | status.md``)."""
    from acecode.impact.signature import SHELL_TOOLS, command_head
    from acecode.recall.match import call_file

    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if tool in SHELL_TOOLS:
        command = tool_input.get("command", tool_input.get("cmd"))
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        head = command_head(command) if isinstance(command, str) else ""
        return f"shell | {head}" if head else "shell"
    name = call_file(tool, tool_input)
    return f"{tool} | {name}" if name else tool


def transcript_calls(path: Path) -> list[Call]:
    """The tool calls of one transcript, in order, each with whether it failed."""
    from acecode.agents import detect_agent
    from acecode.transcript.reader import TranscriptStats, iter_records

    stats = TranscriptStats()
    reader = detect_agent(path).message_reader(stats)
    order: list[str] = []
    likes: dict[str, str] = {}
    failed: dict[str, bool] = {}
    for record in iter_records(path, stats):
        for message in reader.convert(record):
            call_id = str(message.get("tool_use_id") or "")
            if message.get("kind") == "tool_use" and call_id:
                order.append(call_id)
                tool = str(message.get("tool_name") or "")
                likes[call_id] = like(tool, message.get("tool_input"))
            elif message.get("kind") == "tool_result" and call_id:
                failed[call_id] = bool(message.get("is_error"))
    return [Call(call_id, likes[call_id], failed.get(call_id)) for call_id in order]


def next_try(calls: list[Call], call_id: str) -> Call | None:
    """The first call after ``call_id`` like it, or None (not found, or never again)."""
    position = next((i for i, call in enumerate(calls) if call.call_id == call_id), None)
    if position is None:
        return None
    wanted = calls[position].like
    return next((call for call in calls[position + 1 :] if call.like == wanted), None)


def recall_stats(
    records: Iterable[Mapping[str, Any]], transcripts: Mapping[str, Path] | None = None
) -> dict[str, RecallStats]:
    """Per entry, from the exposure log's ``records``; ``transcripts`` maps a session to
    its transcript when the log's path is gone (the folder ``--transcripts`` names)."""
    stats: dict[str, RecallStats] = {}
    read: dict[str, list[Call]] = {}
    for record in records:
        event = record.get("event")
        if event not in EVENTS:
            continue
        names = [str(item).partition("@")[0] for item in record.get("entries") or ()]
        after = _next(record, transcripts or {}, read)
        for name in names:
            entry = stats.setdefault(name, RecallStats(name))
            if event == "recall":
                entry.recalled += 1
            else:
                entry.warned += 1
            if after is not None:
                entry.tried_again += 1
                entry.succeeded += after.failed is False
    return stats


def _next(
    record: Mapping[str, Any], transcripts: Mapping[str, Path], read: dict[str, list[Call]]
) -> Call | None:
    call_id = record.get("call")
    if not isinstance(call_id, str) or not call_id:
        return None
    path = record.get("transcript")
    if not isinstance(path, str) or not os.path.isfile(path):
        found = transcripts.get(str(record.get("session") or ""))
        path = str(found) if found is not None else None
    if path is None:
        return None
    if path not in read:
        try:
            read[path] = transcript_calls(Path(path))
        except OSError:
            read[path] = []
    return next_try(read[path], call_id)
