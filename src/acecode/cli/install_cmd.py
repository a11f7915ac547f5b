"""``acecode install`` / ``acecode uninstall``: acecode's hooks in a coding agent's settings."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from acecode.agents.base import SettingsFileError, SettingsUpdate

if TYPE_CHECKING:
    pass
from acecode.cli.common import console, fail


class Scope(StrEnum):
    """Which Claude Code settings file to change."""

    user = "user"
    project = "project"
    local = "local"


scope_option = Annotated[
    Scope,
    typer.Option(
        "--scope",
        help="Claude Code: user: ~/.claude/settings.json (every project); project: "
        ".claude/settings.json (committed, shared); local: .claude/settings.local.json (this "
        "project, only you). Codex: user: ~/.codex/hooks.json; project: .codex/hooks.json.",
    ),
]
agent_option = Annotated[
    str,
    typer.Option("--agent", help="Which coding agent: claude-code or codex."),
]

_STYLES = {"added": "green", "updated": "yellow", "removed": "red", "unchanged": "dim"}


def _line(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _show(update: SettingsUpdate, install_command: str) -> None:
    """The per-event changes as a table, then what was written where."""
    if update.changes:
        table = Table("setting", "change")
        for change in update.changes:
            style = _STYLES.get(change.action, "")
            table.add_row(change.event, f"[{style}]{change.action}[/{style}]")
        console.print(table)
    if update.removed:
        _removed(update, install_command)
        return
    if not update.written:
        _line(f"nothing to change in {update.path}")
        return
    _line(f"wrote {update.path}")
    if update.backup is not None:
        _line(f"previous version kept in {update.backup}")


def _removed(update: SettingsUpdate, install_command: str) -> None:
    """Say what an uninstall deleted because it held only acecode's entries."""
    for path in update.removed:
        if path == update.path:
            why = f"it held only acecode's hooks (`{install_command}` writes it again)"
        elif path == update.path.parent:
            why = "it was left empty"
        else:
            why = "it was a backup of acecode's hooks alone"
        _line(f"removed {path}: {why}")


def _agent_and_scope(agent: str, scope: Scope):
    """The agent called ``agent``, after checking it has ``scope``; exits on a bad pair."""
    from acecode.agents import UnknownAgentError, get_agent

    try:
        coding_agent = get_agent(agent)
    except UnknownAgentError as exc:
        fail(str(exc))
    if scope.value not in coding_agent.scopes:
        scopes = ", ".join(coding_agent.scopes)
        fail(f"{coding_agent.label} has no {scope.value} scope (it has {scopes})")
    return coding_agent


def install(
    scope: scope_option = Scope.user,
    agent: agent_option = "claude-code",
    learn_on_exit: Annotated[
        bool,
        typer.Option(
            "--learn-on-exit",
            help="No longer needed: sessions ended with /exit, Ctrl-D or /clear are learned "
            "from by default. Accepted so that older instructions keep working.",
        ),
    ] = False,
    git: Annotated[
        bool,
        typer.Option(
            "--git",
            help="Instead of hooks: register acecode's merge driver for the playbook in this "
            "git repository (.gitattributes and the clone's git config).",
        ),
    ] = False,
) -> None:
    """Add acecode's hooks (inject the playbook, learn at session end) to Claude Code or Codex."""
    if git:
        from acecode.cli.merge_cmd import install_git

        return install_git()
    coding_agent = _agent_and_scope(agent, scope)
    try:
        update = coding_agent.install(scope.value)
    except SettingsFileError as exc:
        fail(str(exc))
    _show(update, coding_agent.install_command)
    for note in update.notes:
        _line(note)
    learns = _say_provider(coding_agent.label)
    if coding_agent.name == "codex":
        if learns:
            _line(
                "Codex sessions are learned from at session end and compaction; sessions Codex "
                "ended without a SessionEnd (closed terminal, killed) are caught up in the "
                "background when the next Codex session starts in the project"
            )
        return
    if learn_on_exit:
        _line("note: --learn-on-exit is the default now; nothing extra was written")
    if learns:
        _line(
            "every session is learned from however it ends (/exit, Ctrl-D, /clear, a closed "
            "terminal, claude -p) and at every compaction; sessions too small to teach "
            "anything are skipped (see .claude/acecode/logs/learn.log)"
        )
    for opt_out in _opt_outs():
        _line(f"note: {opt_out}")
    _note_other_places()
    if update.written and scope is Scope.project:
        console.print(
            "the project hooks call `acecode` from PATH: each teammate needs acecode installed"
        )


def _note_other_places() -> None:
    """Name every place acecode's hooks are in when there is more than one (other scopes,
    the plugin), and say that acecode still acts once per session."""
    from acecode.agents.claude_code.install import install_places, several_places_note

    note = several_places_note(install_places())
    if note:
        _line(f"warning: {note[0]}")
        for line in note[1:]:
            _line(f"  {line}")


def _say_provider(agent_label: str) -> bool:
    """Say which LLM the learning cycles will call, or that none is configured and how to
    configure one; True when there is one. The hooks run with the agent's environment,
    which is this shell's when the agent is started from it."""
    from acecode.llm import ProviderConfigError, explain_provider

    try:
        choice = explain_provider()
    except ProviderConfigError as exc:
        first, *rest = str(exc).splitlines()
        if first.startswith("no LLM provider is configured"):
            _line(
                "no LLM provider is configured, so sessions will not be learned from until "
                "one is (the playbook is still injected). Choose one:"
            )
            for line in rest:
                _line(line)
        else:
            _line(f"the LLM provider cannot be used: {first}")
            for line in rest:
                _line(line)
            _line("sessions will not be learned from until it is fixed (see `acecode doctor`)")
        return False
    model = choice.model or "its default model"
    _line(
        f"learning will call {choice.provider} ({model}): {choice.reason}; start "
        f"{agent_label.removesuffix(' CLI')} from a shell with the same settings "
        "(`acecode doctor` shows them)"
    )
    return True


def _opt_outs() -> list[str]:
    """The session endings an explicit ``false`` in Claude Code's settings opts out of."""
    from acecode.hooks.learn import OPT_OUT_SETTINGS, opted_out
    from acecode.project import paths

    project = str(paths.project_dir())
    return [
        f"sessions ending with reason {reason} are not learned from: {why} (remove it to "
        "learn from them)"
        for reason in OPT_OUT_SETTINGS
        if (why := opted_out(reason, project))
    ]


def uninstall(
    scope: scope_option = Scope.user,
    agent: agent_option = "claude-code",
    git: Annotated[
        bool,
        typer.Option("--git", help="Instead of hooks: remove acecode's git merge driver."),
    ] = False,
) -> None:
    """Remove acecode's hooks from an agent's settings; everything else stays."""
    if git:
        from acecode.cli.merge_cmd import uninstall_git

        return uninstall_git()
    coding_agent = _agent_and_scope(agent, scope)
    try:
        update = coding_agent.uninstall(scope.value)
    except SettingsFileError as exc:
        fail(str(exc))
    _show(update, coding_agent.install_command)
    for note in update.notes:
        _line(note)


def register(app: typer.Typer) -> None:
    """Add ``install`` and ``uninstall`` to the app."""
    app.command()(install)
    app.command()(uninstall)
