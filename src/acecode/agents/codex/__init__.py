"""Codex CLI behind the agent seam (measured facts: docs/codex.md, version 0.169).

The knowledge lives in this package's modules: ``messages`` (rollout files),
``tools``, ``sessions`` (``$CODEX_HOME/sessions``), ``install`` (``hooks.json``
and trust records) and ``trust`` (Codex's hook hash). :class:`Codex` ties them
to :class:`acecode.agents.base.Agent` and imports each only when used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acecode.agents.base import Agent, ContextCap, MessageReader, ToolClasses, utf8_length

if TYPE_CHECKING:
    from pathlib import Path

    from acecode.agents.base import SettingsUpdate

# 10,000 UTF-8 bytes of hook context reached the model whole with 0.169, 10,001 did not.
CONTEXT_CAP = 10_000


class Codex(Agent):
    """OpenAI's Codex CLI (``codex``)."""

    name = "codex"
    label = "Codex CLI"
    scopes = ("user", "project")
    install_command = "acecode install --agent codex"
    provider = None

    def __init__(self) -> None:
        from acecode.agents.codex.install import HOOK_EVENTS

        self.hook_events = HOOK_EVENTS

    @property
    def context_cap(self) -> ContextCap:
        return ContextCap(CONTEXT_CAP, utf8_length, "UTF-8 bytes")

    @property
    def tools(self) -> ToolClasses:
        from acecode.agents.codex.tools import describe_codex_call

        return ToolClasses(
            shell=frozenset({"exec_command", "write_stdin", "shell", "local_shell_call"}),
            quiet=frozenset({"view_image", "web_search"}),
            edits=frozenset({"apply_patch"}),
            subagents=frozenset({"spawn_agent", "wait_agent"}),
            describe=describe_codex_call,
            hidden_context=("<environment_context>",),
        )

    def message_reader(self, stats: Any) -> MessageReader:
        from acecode.agents.codex.messages import RolloutReader

        return RolloutReader(stats)

    def recognises(self, first_record: Mapping[str, Any]) -> bool:
        """A rollout file's records are ``{timestamp, type, payload}``; the first is
        ``session_meta``."""
        return isinstance(first_record.get("payload"), dict) and "timestamp" in first_record

    def sessions_location(self, project: Path) -> Path:
        from acecode.agents.codex.sessions import sessions_root

        return sessions_root()

    def find_sessions(self, project: Path, *, include_subagents: bool = True) -> list[Path]:
        from acecode.agents.codex.sessions import find_sessions

        return find_sessions(project, include_subagents=include_subagents)

    def install(self, scope: str, project: Path | None = None) -> SettingsUpdate:
        from acecode.agents.codex.install import install

        return install(scope, project)

    def uninstall(self, scope: str, project: Path | None = None) -> SettingsUpdate:
        from acecode.agents.codex.install import uninstall

        return uninstall(scope, project)
