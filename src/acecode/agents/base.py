"""The agent seam: everything acecode must know about one coding agent, in one place.

acecode's pipeline (condense, reflect, curate, apply, inject) is the same for
every agent; what differs is where an agent keeps its sessions, how a session
file reads, what its tools are called, which hook events it fires and how it
takes their output, how acecode is installed into its settings, and whether
its headless CLI can serve as acecode's LLM. An :class:`Agent` answers those
questions; :mod:`acecode.agents` holds the registry of implementations.

The injection hooks import this module, so it imports nothing heavy (no
``pathlib`` at module level beyond typing, no ``dataclasses``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from acecode.errors import AcecodeError

if TYPE_CHECKING:
    from pathlib import Path

Message = dict[str, Any]


class ToolClasses(NamedTuple):
    """How the condenser should treat an agent's tools, by tool name.

    ``shell`` tools' output is scanned for failure signals (a failing test run
    rarely sets an error flag); ``quiet`` tools (reads, searches, listings) are
    summarised to one line; ``subagents``' results are kept longer, since they
    are a whole piece of work; ``edits`` are named for completeness (they are
    rendered like any call). ``describe`` renders one call with its key
    arguments clipped to a length, and ``hidden_context`` lists openings of
    injected context not worth showing the reflector. A successful result of a
    ``silent`` tool (a file written, a to-do list updated) says nothing its call
    does not, so it is left out; its failures are shown like any other. The
    result of an ``answers`` tool (the agent asked the user a question, or showed
    a plan for approval) holds the user's own words, so it is kept like a
    request, however tight the budget.
    """

    shell: frozenset[str]
    quiet: frozenset[str]
    edits: frozenset[str]
    subagents: frozenset[str]
    describe: Callable[[str, Any, int], str]
    hidden_context: tuple[str, ...] = ()
    silent: frozenset[str] = frozenset()
    answers: frozenset[str] = frozenset()


class HookEvent(NamedTuple):
    """One hook event acecode installs for an agent.

    ``event`` is the agent's own name (``SessionStart``), ``argument`` what
    ``acecode hook`` is called with (``session-start``), ``timeout`` the seconds
    the agent is told to wait, ``matcher`` the agent's filter (None: all).
    ``per_call`` marks the tool events, which run at every tool call: where the
    interpreter is known they run through recall's fast path
    (:func:`acecode.agents.hooks_file.tool_hook_command`).
    """

    event: str
    argument: str
    timeout: int
    matcher: str | None = None
    per_call: bool = False


class ContextCap(NamedTuple):
    """What an agent passes to the model whole from one hook text, and how it counts."""

    limit: int
    measure: Callable[[str], int]
    unit: str  # for messages: "characters (UTF-16 code units)" or "UTF-8 bytes"


class SettingsFileError(AcecodeError):
    """An agent's config file cannot be safely rewritten; it was left untouched."""


class Change(NamedTuple):
    """What happened to one of acecode's hooks or settings in an agent's config."""

    event: str
    action: str  # "added", "updated", "unchanged" or "removed"


class SettingsUpdate:
    """The outcome of ``install`` / ``uninstall`` on one agent config file.

    ``notes`` are lines the user must read (another file written, a step left to them);
    ``removed`` the files and folders deleted because they held only acecode's entries.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.changes: list[Change] = []
        self.written = False
        self.backup: Path | None = None
        self.notes: list[str] = []
        self.removed: list[Path] = []


class MessageReader(ABC):
    """Turns an agent's session records into acecode's flat messages, one record at a time."""

    @abstractmethod
    def convert(self, record: dict[str, Any]) -> list[Message]:
        """The messages one record contributes (often none)."""


class Agent(ABC):
    """A coding agent acecode learns from and injects into (see the module docstring)."""

    #: Registry key and ``--agent`` value, e.g. ``claude-code``.
    name: str
    #: How people call it, e.g. ``Claude Code``.
    label: str
    #: The install scopes it has, the default first.
    scopes: tuple[str, ...]
    #: The hook events acecode installs, in order.
    hook_events: tuple[HookEvent, ...]
    #: The name of acecode's LLM provider that runs this agent's headless CLI, if any.
    provider: str | None = None
    #: The command that adds acecode's hooks to it, as its users are told to type it.
    install_command: str

    @property
    @abstractmethod
    def context_cap(self) -> ContextCap:
        """The most a hook's context may hold and reach the model whole."""

    @property
    @abstractmethod
    def tools(self) -> ToolClasses:
        """How the condenser treats this agent's tools."""

    @abstractmethod
    def message_reader(self, stats: Any) -> MessageReader:
        """A fresh reader for one session file; ``stats`` counts what it skips."""

    @abstractmethod
    def recognises(self, first_record: Mapping[str, Any]) -> bool:
        """Whether a session file whose first JSON record is this was written by this agent."""

    @abstractmethod
    def sessions_location(self, project: Path) -> Path:
        """The folder searched for the project's sessions (for messages)."""

    @abstractmethod
    def find_sessions(self, project: Path, *, include_subagents: bool = True) -> list[Path]:
        """The project's session files, oldest first."""

    @abstractmethod
    def install(self, scope: str, project: Path | None = None) -> SettingsUpdate:
        """Merge acecode's hooks into the agent's config of ``scope`` (idempotent)."""

    @abstractmethod
    def uninstall(self, scope: str, project: Path | None = None) -> SettingsUpdate:
        """Remove acecode's hooks (and only them) from the agent's config of ``scope``."""

    def hook_project(self, payload: Mapping[str, Any]) -> str | None:
        """The project a hook call is about, from its payload (None: the caller decides)."""
        cwd = payload.get("cwd")
        return cwd if isinstance(cwd, str) and cwd else None

    def hook_argument(self, name: str) -> HookEvent | None:
        """The installed event called ``name`` in any spelling (``SessionStart``,
        ``session-start``, ``session_start``), or None."""
        key = fold_event_name(name)
        for event in self.hook_events:
            if fold_event_name(event.event) == key:
                return event
        return None

    def events(self) -> Iterator[str]:
        """The agent's names of the installed events."""
        return (event.event for event in self.hook_events)


def fold_event_name(name: str) -> str:
    """``session-start``, ``SessionStart`` and ``session_start`` all fold to one key."""
    return name.replace("-", "").replace("_", "").lower()


def utf16_length(text: str) -> int:
    """Length as JavaScript counts it (UTF-16 code units): Claude Code's cap."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf8_length(text: str) -> int:
    """Length in UTF-8 bytes: Codex's cap."""
    return len(text.encode("utf-8", "surrogatepass"))
