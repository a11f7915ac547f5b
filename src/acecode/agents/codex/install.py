"""Add acecode's hooks to Codex CLI, trusted, or take them out again.

Two scopes: ``user`` writes ``$CODEX_HOME/hooks.json`` (default
``~/.codex``), every project; ``project`` writes ``<project>/.codex/hooks.json``,
which Codex reads only in a project the user trusted. The file has Claude
Code's ``hooks`` shape and is edited by :mod:`acecode.agents.hooks_file`
(other hooks untouched, atomic, ``.bak`` kept).

Codex runs a hook only when the user's ``config.toml`` holds the hash of its
exact text (:mod:`acecode.agents.codex.trust`); an untrusted hook is skipped
without a word. So install also writes those ``[hooks.state]`` records,
exactly what approving the hooks in Codex's ``/hooks`` review writes, and
uninstall removes exactly acecode's records. ``config.toml`` is edited with
``tomlkit``, so the user's comments and layout survive.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acecode.agents.base import HookEvent, SettingsFileError, SettingsUpdate
from acecode.agents.codex.sessions import codex_home
from acecode.agents.codex.trust import handler_states
from acecode.agents.hooks_file import (
    Installation,
    acecode_executable,
    hook_groups,
    installation_in,
    is_acecode_command,
    merge_hooks,
    read_hooks_file,
    remove_hooks,
    tool_hook_command,
    write_hooks_file,
    write_or_remove,
)
from acecode.project import paths
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookWriteError
from acecode.text.wording import counted

SCOPES: tuple[str, ...] = ("user", "project")
# What every command gets after the event, so acecode knows which agent calls it.
AGENT_ARGUMENT = " --agent codex"
# Codex clamps SessionEnd to 3 s; the learning hooks only start a background process.
HOOK_EVENTS: tuple[HookEvent, ...] = (
    HookEvent("SessionStart", "session-start", 10),
    HookEvent("UserPromptSubmit", "user-prompt-submit", 10),
    HookEvent("PreCompact", "pre-compact", 30),
    HookEvent("SessionEnd", "session-end", 3),
    HookEvent("SubagentStop", "subagent-stop", 30),
    # Recall (acecode.recall): before every call, and after every call (Codex 0.169 has no
    # failure event: the output tells a failure, docs/codex.md).
    HookEvent("PreToolUse", "pre-tool-use", 10, per_call=True),
    HookEvent("PostToolUse", "post-tool-use", 10, per_call=True),
)


def hooks_path(scope: str, project: Path | None = None) -> Path:
    """The ``hooks.json`` of ``scope``."""
    if scope == "user":
        return codex_home() / "hooks.json"
    if scope == "project":
        return (project or paths.project_dir()).resolve() / ".codex" / "hooks.json"
    raise ValueError(f"unknown scope {scope!r} for Codex (expected one of {', '.join(SCOPES)})")


def installations(project: Path | None = None) -> list[Installation]:
    """Every ``hooks.json`` (user, project) that holds acecode's hooks."""
    found = (installation_in(scope, hooks_path(scope, project)) for scope in SCOPES)
    return [installation for installation in found if installation is not None]


def config_path() -> Path:
    """The user's ``config.toml``: the only layer Codex reads trust records from."""
    return codex_home() / "config.toml"


def hook_entries(executable: str, per_call: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """acecode's ``hooks`` object for a Codex ``hooks.json`` (``per_call``: the tool
    events' fast command, :func:`acecode.agents.hooks_file.tool_hook_command`)."""
    return hook_groups(HOOK_EVENTS, executable, AGENT_ARGUMENT, per_call=per_call)


def _ours(handler: Mapping[str, Any]) -> bool:
    return is_acecode_command(handler.get("command"))


def install(
    scope: str = "user", project: Path | None = None, executable: str | None = None
) -> SettingsUpdate:
    """Merge acecode's hooks into the ``hooks.json`` of ``scope`` and trust them (idempotent)."""
    path = hooks_path(scope, project)
    data, old_text = read_hooks_file(path)
    before = handler_states(path, data.get("hooks", {}), _ours)
    update = SettingsUpdate(path)
    wanted = (
        hook_entries(executable)
        if executable
        else hook_entries(acecode_executable(scope), tool_hook_command(scope))
    )
    data = merge_hooks(data, wanted, update)
    if any(change.action != "unchanged" for change in update.changes):
        write_hooks_file(update, data, old_text)
    after = handler_states(path, data.get("hooks", {}), _ours)
    if _set_trust(before, after):
        update.notes.append(
            f"trusted acecode's {counted(len(after), 'hook')} in {config_path()} "
            "([hooks.state] records, what approving them in Codex's /hooks review writes): "
            "Codex skips untrusted hooks without a word"
        )
    else:
        update.notes.append(f"acecode's hooks are trusted in {config_path()}")
    if scope == "project" and not _project_trusted(path.parent.parent):
        update.notes.append(
            f"Codex reads {path} only in a trusted project: accept 'Trust this folder' when "
            "Codex asks, or run `codex exec --trust` once in the project"
        )
    return update


def uninstall(scope: str = "user", project: Path | None = None) -> SettingsUpdate:
    """Remove acecode's hooks from the ``hooks.json`` of ``scope`` and their trust records.

    A file left empty held only acecode's hooks: it is deleted rather than left as ``{}``
    (see :func:`acecode.agents.hooks_file.write_or_remove`)."""
    path = hooks_path(scope, project)
    data, old_text = read_hooks_file(path)
    ours = handler_states(path, data.get("hooks", {}), _ours)
    update = SettingsUpdate(path)
    new_data = remove_hooks(data, update)
    if update.changes:
        write_or_remove(update, new_data, old_text, remove_hooks)
    if _set_trust(ours, {}):
        update.notes.append(f"removed acecode's {len(ours)} trust records from {config_path()}")
    return update


def _read_config() -> tuple[Any, str | None]:
    import tomlkit

    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document(), None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsFileError(f"cannot read {path}: {exc}; nothing changed") from None
    try:
        return tomlkit.parse(text), text
    except tomlkit.exceptions.ParseError as exc:
        raise SettingsFileError(f"{path}: invalid TOML ({exc}); nothing changed") from None


def _set_trust(remove: Mapping[str, str], add: Mapping[str, str]) -> bool:
    """Replace the trust records ``remove`` by ``add`` in ``config.toml``; True when written."""
    import tomlkit

    document, old_text = _read_config()
    hooks = document.get("hooks")
    state = hooks.get("state") if hooks is not None else None
    current = {key: state[key].get("trusted_hash") for key in state} if state is not None else {}
    stale = [key for key in remove if key in current and key not in add]
    missing = {key: value for key, value in add.items() if current.get(key) != value}
    if not stale and not missing:
        return False
    if hooks is None:
        hooks = tomlkit.table(is_super_table=True)
        document["hooks"] = hooks
    if state is None:
        state = tomlkit.table(is_super_table=True)
        hooks["state"] = state
    for key in stale:
        del state[key]
    for key, digest in missing.items():
        if key in state:
            state[key]["trusted_hash"] = digest
        else:
            record = tomlkit.table()
            record["trusted_hash"] = digest
            state[key] = record
    if not state:  # the last records were acecode's: no empty tables are left behind
        del hooks["state"]
        if not hooks:
            del document["hooks"]
    text = tomlkit.dumps(document)
    if not text.strip():
        _remove_config(config_path())
        return True
    path = config_path()
    try:
        if old_text is not None:
            atomic_write_text(path.with_name(path.name + ".bak"), old_text)
        atomic_write_text(path, text)
    except PlaybookWriteError as exc:
        raise SettingsFileError(str(exc)) from None
    return True


def _remove_config(path: Path) -> None:
    """Delete ``config.toml``, which held nothing but acecode's trust records (so no backup
    is kept), and Codex's folder when that leaves it empty: as it was before the install."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise SettingsFileError(f"cannot remove {path}: {exc.strerror or exc}") from None
    with contextlib.suppress(OSError):  # not empty (the usual case), or not ours
        path.parent.rmdir()


def _project_trusted(project: Path) -> bool:
    try:
        document, _ = _read_config()
    except SettingsFileError:
        return False
    projects = document.get("projects") or {}
    entry = projects.get(str(project)) if hasattr(projects, "get") else None
    return bool(entry) and entry.get("trust_level") == "trusted"
