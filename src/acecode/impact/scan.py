"""One streaming pass over transcripts: per session, its failures and its citations.

Each file is read record by record (:func:`acecode.transcript.reader.iter_records`
through the message reader of the agent that wrote it, as the learner does),
so memory depends on the number of sessions and distinct
failures, never on the size of a file. A subagent's transcript belongs to
the session that started it: ``<id>/subagents/agent-*.jsonl`` by its folder,
the older flat ``agent-*.jsonl`` by the ``sessionId`` its records carry.
The messages the user typed in a main transcript that read like a correction
are kept as their topic words (:mod:`acecode.impact.correction`): the
correction signatures of :mod:`acecode.experiments` count them.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acecode.impact.correction import is_correction, topic_terms
from acecode.impact.signature import (
    SHELL_TOOLS,
    FailureSignature,
    is_not_a_failure,
    shell_command,
    signature_of,
)
from acecode.playbook.citations import extract_cited_ids
from acecode.transcript.reader import TranscriptStats, iter_records

# Tool calls remembered per file while waiting for their results.
_PENDING_CALLS = 4096


@dataclass
class Citation:
    """One assistant message citing one entry."""

    entry: str
    at: datetime | None


@dataclass
class SessionScan:
    """What one session (its main transcript and its subagents) contains."""

    session: str
    started_at: datetime | None = None
    files: list[str] = field(default_factory=list)
    failures: Counter[FailureSignature] = field(default_factory=Counter)
    declined: int = 0
    citations: list[Citation] = field(default_factory=list)
    bad_lines: int = 0
    # The topic words of each correction the user typed (main transcripts only).
    corrections: list[frozenset[str]] = field(default_factory=list)

    def cited(self) -> set[str]:
        """Entry IDs cited anywhere in the session."""
        return {citation.entry for citation in self.citations}


def parse_time(value: Any) -> datetime | None:
    """An aware datetime from an ISO string (naive times are taken as UTC); None if unusable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def session_key_for_path(path: Path) -> str:
    """The session a transcript belongs to, from its path alone."""
    if path.parent.name == "subagents":
        return path.parent.parent.name
    return path.stem


def scan_transcripts(files: Iterable[Path]) -> list[SessionScan]:
    """Scan every file once; sessions ordered by start time (unknown starts last)."""
    sessions: dict[str, SessionScan] = {}
    for path in files:
        _scan_file(path, sessions)
    far_future = datetime.max.replace(tzinfo=UTC)
    return sorted(sessions.values(), key=lambda s: (s.started_at or far_future, s.session))


def _scan_file(path: Path, sessions: dict[str, SessionScan]) -> None:
    from acecode.agents import detect_agent

    stats = TranscriptStats()
    builder = detect_agent(path).message_reader(stats)
    commands: OrderedDict[str, str] = OrderedDict()
    scan: SessionScan | None = None
    # A subagent's prompts are written by the agent that started it, not by the user.
    by_user = path.parent.name != "subagents" and not path.name.startswith("agent-")
    for record in iter_records(path, stats):
        if scan is None:
            scan = _session_for(path, record, sessions)
        for message in builder.convert(record):
            _take(message, scan, commands)
            if by_user and message.get("kind") == "prompt" and not message.get("sidechain"):
                _take_prompt(str(message.get("content") or ""), scan)
    if scan is None:  # an empty or unreadable file still counts as read
        scan = sessions.setdefault(
            session_key_for_path(path), SessionScan(session_key_for_path(path))
        )
    scan.files.append(str(path))
    scan.bad_lines += stats.bad_lines


def _take_prompt(text: str, scan: SessionScan) -> None:
    if is_correction(text):
        scan.corrections.append(topic_terms(text))


def _session_for(
    path: Path, record: dict[str, Any], sessions: dict[str, SessionScan]
) -> SessionScan:
    key = session_key_for_path(path)
    if path.parent.name != "subagents" and isinstance(record.get("sessionId"), str):
        key = record["sessionId"] or key
    return sessions.setdefault(key, SessionScan(key))


def _take(message: dict[str, Any], scan: SessionScan, commands: OrderedDict[str, str]) -> None:
    at = parse_time(message.get("timestamp"))
    if at is not None and (scan.started_at is None or at < scan.started_at):
        scan.started_at = at
    kind = message.get("kind")
    if kind == "tool_use" and message.get("tool_name") in SHELL_TOOLS:
        commands[str(message.get("tool_use_id"))] = shell_command(message.get("tool_input"))
        if len(commands) > _PENDING_CALLS:
            commands.popitem(last=False)
    elif kind == "tool_result" and message.get("is_error"):
        content = str(message.get("content") or "")
        if is_not_a_failure(content):
            scan.declined += 1
            return
        command = commands.pop(str(message.get("tool_use_id")), "")
        tool = str(message.get("tool_name") or "?")
        scan.failures[signature_of(tool, command, content)] += 1
    elif kind == "text" and message.get("role") == "assistant":
        for entry in extract_cited_ids([message]):
            scan.citations.append(Citation(entry, at))
