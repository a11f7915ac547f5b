"""What is specific to each coding agent acecode serves, behind one interface.

:class:`acecode.agents.base.Agent` is the seam; Claude Code
(:mod:`acecode.agents.claude_code`) and Codex CLI (:mod:`acecode.agents.codex`)
implement it. This registry names them and imports each only when asked, so
a hook for one agent never loads the other.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from acecode.errors import AcecodeError

if TYPE_CHECKING:
    from pathlib import Path

    from acecode.agents.base import Agent

# ``--agent`` value -> "module:class". The first is the default.
_REGISTRY: dict[str, str] = {
    "claude-code": "acecode.agents.claude_code:ClaudeCode",
    "codex": "acecode.agents.codex:Codex",
}
DEFAULT_AGENT = "claude-code"
_loaded: dict[str, Agent] = {}


class UnknownAgentError(AcecodeError, ValueError):
    """An agent name acecode does not know."""


def agent_names() -> tuple[str, ...]:
    """Every registered agent, the default first."""
    return tuple(_REGISTRY)


def get_agent(name: str | None = None) -> Agent:
    """The agent called ``name`` (default: Claude Code); one instance per name."""
    key = name or DEFAULT_AGENT
    agent = _loaded.get(key)
    if agent is None:
        target = _REGISTRY.get(key)
        if target is None:
            known = ", ".join(_REGISTRY)
            raise UnknownAgentError(f"unknown agent {key!r} (known: {known})")
        module, _, cls = target.partition(":")
        agent = getattr(import_module(module), cls)()
        _loaded[key] = agent
    return agent


def detect_agent(path: str | Path) -> Agent:
    """The agent that wrote the session file ``path``, told by its first record.

    A file no agent claims (empty, unreadable, foreign) is read as the default
    agent's, which reads what it can and counts the rest.
    """
    from pathlib import Path

    from acecode.transcript.reader import TranscriptStats, iter_records

    first = next(iter_records(Path(path), TranscriptStats()), None)
    if first is not None:
        for name in _REGISTRY:
            if name != DEFAULT_AGENT and get_agent(name).recognises(first):
                return get_agent(name)
    return get_agent(DEFAULT_AGENT)
