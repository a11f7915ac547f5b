"""What a learning cycle reads: a transcript file, or messages a program passes in.

A cycle streams the session twice (once to count and collect citations, once
for the reflector's condenser), so a source offers both passes.
:class:`TranscriptFile` reads the file again on each pass and remembers
between cycles how much of it was learned (a session file only grows);
:class:`MessageList` holds what :func:`acecode.learn` was given and is learned
whole every time, as it has no identity to remember progress by.

The messages a program may pass (see :func:`message_list`) are either

* acecode's flat messages, as :func:`acecode.load_transcript` returns them:
  ``{"role": "user" | "assistant", "content": str}`` plus optional fields
  (``kind``, ``tool_name``, ``is_error``, ... as documented in
  :mod:`acecode.agents.claude_code.messages`); a missing ``kind`` means a typed
  request (``prompt``) for the user and a reply (``text``) for the assistant;
* or Claude Code's own transcript records, the JSON objects of a session
  ``.jsonl`` line (``{"type": "user" | "assistant", "message": {...}, ...}``),
  converted exactly as a file would be.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acecode.agents.claude_code.messages import Message, MessageBuilder, with_default_kind
from acecode.errors import LearnInputError
from acecode.text.wording import counted
from acecode.transcript import MessageWindow, TranscriptStats, iter_messages

if TYPE_CHECKING:
    from acecode.agents.base import Agent

_ROLES = ("user", "assistant")
_RECORD_TYPES = ("user", "assistant", "system")


class SessionSource(Protocol):
    """A session a cycle can read twice; ``label`` names it in reports and logs."""

    label: str
    # True when the cycle remembers how much of this source it learned.
    tracked: bool
    # The coding agent whose format the messages were read from (None: Claude Code's).
    agent: Agent | None

    def stream(self, stats: TranscriptStats) -> Iterator[Message]:
        """Every message, in order, counting what had to be skipped into ``stats``."""
        ...

    def window(self, start: int, stop: int) -> Sequence[Message] | MessageWindow:
        """Messages ``start`` to ``stop`` as a sized, re-iterable collection."""
        ...


@dataclass(frozen=True)
class TranscriptFile:
    """A session file, streamed from disk on each pass."""

    path: Path
    agent: Agent | None = None
    tracked = True

    @property
    def label(self) -> str:
        return str(self.path)

    def stream(self, stats: TranscriptStats) -> Iterator[Message]:
        return iter_messages(self.path, stats, self.agent)

    def window(self, start: int, stop: int) -> MessageWindow:
        return MessageWindow(self.path, start, stop, self.agent)


@dataclass(frozen=True)
class MessageList:
    """Messages held in memory, already in acecode's flat shape."""

    messages: tuple[Message, ...]
    tracked = False
    agent = None

    @property
    def label(self) -> str:
        return f"<{counted(len(self.messages), 'message')}>"

    def stream(self, stats: TranscriptStats) -> Iterator[Message]:
        return iter(self.messages)

    def window(self, start: int, stop: int) -> Sequence[Message]:
        return self.messages[max(0, start) : max(0, stop)]


def message_list(items: Iterable[Mapping[str, Any]]) -> MessageList:
    """Check and convert what a program passed; raises :class:`LearnInputError` naming
    the first item that is neither a flat message nor a Claude Code record."""
    if isinstance(items, str | bytes | Mapping):
        raise LearnInputError(
            "messages must be a list of message dicts, "
            f"got a single {type(items).__name__}; wrap it in a list"
        )
    builder = MessageBuilder(TranscriptStats())
    messages: list[Message] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise LearnInputError(f"message {index} is a {type(item).__name__}, not a dict")
        if item.get("type") in _RECORD_TYPES and isinstance(item.get("message"), Mapping):
            messages += builder.convert(dict(item))
        else:
            messages.append(_flat_message(index, item))
    return MessageList(tuple(messages))


def _flat_message(index: int, item: Mapping[str, Any]) -> Message:
    """A copy of a flat message, with its ``kind`` filled in when missing."""
    role, content = item.get("role"), item.get("content")
    if role not in _ROLES:
        raise LearnInputError(f"message {index}: role must be 'user' or 'assistant', got {role!r}")
    if not isinstance(content, str):
        raise LearnInputError(
            f"message {index}: content must be a string, got {type(content).__name__} "
            "(pass Claude Code transcript records whole for content blocks)"
        )
    return with_default_kind(dict(item))
