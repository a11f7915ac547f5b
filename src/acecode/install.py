"""Add acecode's hooks to a Claude Code settings file, or take them out again.

The settings file belongs to the user: everything that is not an acecode hook
is kept exactly as it was, a file that is not a JSON object is refused
untouched, every write is atomic and the previous content is kept in
``<file>.bak``. acecode's own entries are recognised by their command
(``... acecode hook <event>``), so entries left by an older install (another
path, another timeout) are replaced rather than duplicated.

The command is the absolute path of the running install's ``acecode`` script
(the one beside ``sys.executable``, else the one on ``PATH``, else
``<python> -m acecode``), so hooks keep working when ``PATH`` differs inside
Claude Code. The ``project`` scope is committed and shared with a team, so
there the command is the bare ``acecode`` each member has on ``PATH``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode import paths
from acecode.errors import AcecodeError
from acecode.hooks import EVENT_ARGUMENTS
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookWriteError

SCOPES: tuple[str, ...] = ("user", "project", "local")

# Seconds Claude Code waits for each hook. Injection reads one small file;
# the learning hooks only start a background process.
HOOK_TIMEOUTS: dict[str, int] = {
    "SessionStart": 10,
    "UserPromptSubmit": 10,
    "PreCompact": 30,
    "SessionEnd": 30,
    "SubagentStop": 30,
}

# Top-level settings that ``acecode install --learn-on-exit`` (acecode 0.1) wrote,
# with the value it wrote. ``uninstall`` removes them while they still hold that
# value; any other value (an explicit ``false``) is the user's and stays.
INSTALLED_SETTINGS: dict[str, Any] = {"playbook_update_on_exit": True}

_ACECODE_HOOK = re.compile(r"acecode(?:\.exe)?['\"]?\s+hook(?:\s|$)")
PLUGIN_NAME = "acecode"
# What the plugin's hooks run: its launcher script, which finds the installed
# acecode command even off Claude Code's PATH (plugin/scripts/acecode). Run by
# ``sh`` so that it works whether or not the plugin copy kept the executable bit.
PLUGIN_EXECUTABLE = 'sh "${CLAUDE_PLUGIN_ROOT}/scripts/acecode"'


class SettingsFileError(AcecodeError):
    """The settings file cannot be safely rewritten; it was left untouched."""


@dataclass(frozen=True)
class Change:
    """What happened to acecode's hook for one event."""

    event: str
    action: str  # "added", "updated", "unchanged" or "removed"


@dataclass
class SettingsUpdate:
    """The outcome of ``install`` / ``uninstall`` on one settings file."""

    path: Path
    changes: list[Change] = field(default_factory=list)
    written: bool = False
    backup: Path | None = None


@dataclass(frozen=True)
class Installation:
    """Where acecode's hooks were found (for ``acecode doctor``)."""

    scope: str
    path: Path
    events: tuple[str, ...]
    commands: tuple[str, ...]


def settings_path(scope: str, project: Path | None = None) -> Path:
    """The settings file of ``scope``: user, project (committed) or local (personal)."""
    if scope == "user":
        return paths.user_claude_dir() / "settings.json"
    if scope == "project":
        return paths.claude_dir(project) / "settings.json"
    if scope == "local":
        return paths.claude_dir(project) / "settings.local.json"
    raise ValueError(f"unknown scope {scope!r} (expected one of {', '.join(SCOPES)})")


def acecode_executable(scope: str) -> str:
    """The shell words that run acecode from a hook of ``scope`` (see module docstring)."""
    if scope == "project":
        return "acecode"
    script_name = "acecode.exe" if os.name == "nt" else "acecode"
    beside = Path(sys.executable).parent / script_name
    if beside.is_file():
        return shlex.quote(str(beside))
    found = shutil.which("acecode")
    if found:
        return shlex.quote(str(Path(found).resolve()))
    return f"{shlex.quote(sys.executable)} -m acecode"


def is_acecode_command(command: object) -> bool:
    """True for a hook command that runs ``acecode hook ...`` (ours, any version)."""
    return isinstance(command, str) and _ACECODE_HOOK.search(command) is not None


def hook_entries(executable: str) -> dict[str, list[dict[str, Any]]]:
    """acecode's ``hooks`` object for settings.json and the plugin's hooks.json.

    No ``matcher``: every source, reason and trigger of each event is wanted.
    """
    return {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"{executable} hook {argument}",
                        "timeout": HOOK_TIMEOUTS[event],
                    }
                ]
            }
        ]
        for event, argument in EVENT_ARGUMENTS.items()
    }


def plugin_hooks_file() -> str:
    """The text of the plugin's ``plugin/hooks/hooks.json``: the same hooks as
    ``acecode install``, run through the plugin's launcher (a test keeps the file equal)."""
    document = {
        "description": "acecode: inject the playbook at session start and after compaction; "
        "learn in the background at session end, before compaction and when a subagent "
        "stops. Generated by acecode.install.plugin_hooks_file().",
        "hooks": hook_entries(PLUGIN_EXECUTABLE),
    }
    return json.dumps(document, indent=2) + "\n"


def _read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings object and the file's text (None when there is no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except UnicodeDecodeError:
        raise SettingsFileError(f"{path}: not UTF-8 text; nothing changed") from None
    except OSError as exc:
        raise SettingsFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); "
            "nothing changed"
        ) from None
    if not isinstance(data, dict):
        raise SettingsFileError(
            f"{path}: top level is a JSON {type(data).__name__}, expected an object; "
            "nothing changed"
        )
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise SettingsFileError(f"{path}: 'hooks' is not an object of lists; nothing changed")
    return data, text


def _acecode_hooks(groups: list[Any]) -> list[dict[str, Any]]:
    return [
        hook
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for hook in group["hooks"]
        if isinstance(hook, dict) and is_acecode_command(hook.get("command"))
    ]


def _without_acecode(groups: list[Any]) -> list[Any]:
    """The event's groups with acecode's hooks taken out and emptied groups dropped."""
    kept = []
    for group in groups:
        if not (isinstance(group, dict) and isinstance(group.get("hooks"), list)):
            kept.append(group)
            continue
        others = [
            h
            for h in group["hooks"]
            if not (isinstance(h, dict) and is_acecode_command(h.get("command")))
        ]
        if len(others) == len(group["hooks"]):
            kept.append(group)
        elif others:
            kept.append({**group, "hooks": others})
    return kept


def _write(update: SettingsUpdate, data: dict[str, Any], old_text: str | None) -> None:
    # Write through a symlink (dotfile managers link settings.json) instead of replacing it.
    target = update.path.resolve() if update.path.is_symlink() else update.path
    try:
        if old_text is not None:
            update.backup = target.with_name(target.name + ".bak")
            atomic_write_text(update.backup, old_text)
        atomic_write_text(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except PlaybookWriteError as exc:
        raise SettingsFileError(str(exc)) from None
    update.written = True


def install(
    scope: str = "user",
    project: Path | None = None,
    executable: str | None = None,
    options: dict[str, bool] | None = None,
) -> SettingsUpdate:
    """Merge acecode's hooks into the settings file of ``scope`` (idempotent).

    ``options`` are top-level acecode settings to set in the same file, such
    as ``{"playbook_update_on_exit": True}``.
    """
    path = settings_path(scope, project)
    data, old_text = _read_settings(path)
    update = SettingsUpdate(path)
    for key, value in (options or {}).items():
        if data.get(key) != value:
            update.changes.append(Change(key, "updated" if key in data else "added"))
            data = {**data, key: value}
    wanted = hook_entries(executable or acecode_executable(scope))
    hooks: dict[str, list[Any]] = dict(data.get("hooks", {}))
    for event, groups in wanted.items():
        current = hooks.get(event, [])
        present = _acecode_hooks(current)
        if present == groups[0]["hooks"]:
            update.changes.append(Change(event, "unchanged"))
            continue
        hooks[event] = _without_acecode(current) + groups
        update.changes.append(Change(event, "updated" if present else "added"))
    if any(change.action != "unchanged" for change in update.changes):
        _write(update, {**data, "hooks": hooks}, old_text)
    return update


def uninstall(scope: str = "user", project: Path | None = None) -> SettingsUpdate:
    """Remove every acecode hook, and the settings acecode set, from the file of ``scope``."""
    path = settings_path(scope, project)
    data, old_text = _read_settings(path)
    update = SettingsUpdate(path)
    new_data = {
        key: value
        for key, value in data.items()
        if not (key in INSTALLED_SETTINGS and value is INSTALLED_SETTINGS[key])
    }
    update.changes += [Change(key, "removed") for key in data if key not in new_data]
    hooks: dict[str, list[Any]] = {}
    for event, groups in data.get("hooks", {}).items():
        if not _acecode_hooks(groups):
            hooks[event] = groups
            continue
        update.changes.append(Change(event, "removed"))
        remaining = _without_acecode(groups)
        if remaining:
            hooks[event] = remaining
    if not update.changes:
        return update
    if hooks:
        new_data["hooks"] = hooks
    elif data.get("hooks"):  # only acecode's hooks were there
        del new_data["hooks"]
    _write(update, new_data, old_text)
    return update


def installations(project: Path | None = None) -> list[Installation]:
    """Every settings file (user, project, local) that holds acecode hooks.

    Unreadable or invalid files are skipped: this is a report, not a repair.
    """
    found = []
    for scope in SCOPES:
        path = settings_path(scope, project)
        try:
            data, _ = _read_settings(path)
        except SettingsFileError:
            continue
        events, commands = [], []
        for event, groups in data.get("hooks", {}).items():
            ours = _acecode_hooks(groups)
            if ours:
                events.append(event)
                commands.extend(str(hook.get("command")) for hook in ours)
        if events:
            found.append(Installation(scope, path, tuple(events), tuple(commands)))
    return found


def plugin_enabled(project: Path | None = None) -> list[str]:
    """Scopes whose ``enabledPlugins`` turn on an ``acecode@<marketplace>`` plugin."""
    scopes = []
    for scope in SCOPES:
        try:
            data, _ = _read_settings(settings_path(scope, project))
        except SettingsFileError:
            continue
        enabled = data.get("enabledPlugins")
        if isinstance(enabled, dict) and any(
            str(name).split("@")[0] == PLUGIN_NAME and bool(on) for name, on in enabled.items()
        ):
            scopes.append(scope)
    return scopes
