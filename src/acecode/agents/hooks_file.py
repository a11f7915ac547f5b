"""acecode's hooks in a JSON file of the ``{"hooks": {Event: [groups]}}`` shape.

Claude Code's ``settings.json`` and Codex's ``hooks.json`` share this shape, so
both agents install through here. The file belongs to the user: everything
that is not an acecode hook is kept exactly as it was, a file that is not a
JSON object is refused untouched, every write is atomic and the previous
content is kept in ``<file>.bak``. acecode's own entries are recognised by
their command (``... acecode hook <event>``), so entries left by an older
install (another path, another timeout) are replaced rather than duplicated.

The command is the absolute path of the running install's ``acecode`` script
(the one beside ``sys.executable``, else the one on ``PATH``, else
``<python> -m acecode``), so hooks keep working when ``PATH`` differs inside
the agent. A ``project`` scope is committed and shared with a team, so there
the command is the bare ``acecode`` each member has on ``PATH``.

The tool events (``PreToolUse`` and the failure events, run at every tool call)
are the exception where the interpreter is known: they run recall's fast path
directly, ``<python> -P -c "from acecode.recall.gate import main; main()" <event>``
(:func:`tool_hook_command`), because the ``acecode`` script imports ``re`` before
anything else and that alone is more than their time budget (``bench/hook_bench.py``).
``-P`` keeps the project folder off ``sys.path``, so a file of the project can
never stand in for a module.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.agents.base import Change, HookEvent, SettingsFileError, SettingsUpdate
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookWriteError

Groups = dict[str, list[dict[str, Any]]]

_ACECODE_HOOK = re.compile(
    r"acecode(?:\.exe)?['\"]?\s+hook(?:\s|$)|from acecode\.recall\.gate import main; main\(\)"
)
GATE_CODE = "from acecode.recall.gate import main; main()"


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


def tool_hook_command(scope: str) -> str | None:
    """The fast command prefix of the tool hooks for ``scope``: the interpreter running this
    install with recall's gate; None for a ``project`` scope (its members' interpreters
    differ: they run ``acecode hook``)."""
    if scope == "project":
        return None
    return f"{shlex.quote(sys.executable)} -P -c {shlex.quote(GATE_CODE)}"


def is_acecode_command(command: object) -> bool:
    """True for a hook command that runs ``acecode hook ...`` (ours, any version)."""
    return isinstance(command, str) and _ACECODE_HOOK.search(command) is not None


def hook_groups(
    events: tuple[HookEvent, ...],
    executable: str,
    suffix: str = "",
    per_call: str | None = None,
    **handler: Any,
) -> Groups:
    """One group per event holding acecode's command handler; ``suffix`` is appended to
    each command (``--agent codex``), ``handler`` adds fields to every handler;
    ``per_call`` (:func:`tool_hook_command`) runs the tool events, when given."""
    groups: Groups = {}
    for hook in events:
        if hook.per_call and per_call:
            command = f"{per_call} {hook.argument}{suffix}"
        else:
            command = f"{executable} hook {hook.argument}{suffix}"
        group: dict[str, Any] = {} if hook.matcher is None else {"matcher": hook.matcher}
        group["hooks"] = [
            {"type": "command", "command": command, "timeout": hook.timeout, **handler}
        ]
        groups[hook.event] = [group]
    return groups


def read_hooks_file(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's object and its text (None when there is no file)."""
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


@dataclass(frozen=True)
class Installation:
    """Where acecode's hooks were found (for ``acecode doctor``)."""

    scope: str
    path: Path
    events: tuple[str, ...]
    commands: tuple[str, ...]


def installation_in(scope: str, path: Path) -> Installation | None:
    """acecode's hooks in the hooks file at ``path``, or None when it holds none or cannot
    be read (this is a report, not a repair)."""
    try:
        data, _ = read_hooks_file(path)
    except SettingsFileError:
        return None
    events, commands = [], []
    for event, groups in data.get("hooks", {}).items():
        ours = acecode_hooks(groups)
        if ours:
            events.append(event)
            commands.extend(str(hook.get("command")) for hook in ours)
    return Installation(scope, path, tuple(events), tuple(commands)) if events else None


def acecode_hooks(groups: list[Any]) -> list[dict[str, Any]]:
    """acecode's handlers among an event's groups."""
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


def write_hooks_file(update: SettingsUpdate, data: dict[str, Any], old_text: str | None) -> None:
    """Write ``data`` (backup of ``old_text`` first); through a symlink, not over it."""
    # Dotfile managers link settings files: write the file the link points to.
    target = update.path.resolve() if update.path.is_symlink() else update.path
    try:
        if old_text is not None:
            update.backup = target.with_name(target.name + ".bak")
            atomic_write_text(update.backup, old_text)
        atomic_write_text(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except PlaybookWriteError as exc:
        raise SettingsFileError(str(exc)) from None
    update.written = True


def remove_hooks_file(update: SettingsUpdate, backup_too: bool) -> None:
    """Delete ``update.path``, which held only acecode's entries, so that the folder is as
    it was before acecode created the file; also its ``.bak`` when ``backup_too`` (it
    holds nothing of the user's either: a backup of it would only restore acecode's
    hooks) and the folder when that leaves it empty."""
    path = update.path
    backup = path.with_name(path.name + ".bak")
    try:
        path.unlink()
        update.removed.append(path)
        if backup_too and backup.exists():
            backup.unlink()
            update.removed.append(backup)
    except OSError as exc:
        raise SettingsFileError(f"cannot remove {path}: {exc.strerror or exc}") from None
    try:
        path.parent.rmdir()
    except OSError:  # not empty (the usual case), or not ours to remove
        return
    update.removed.append(path.parent)


def write_or_remove(
    update: SettingsUpdate,
    data: dict[str, Any],
    old_text: str | None,
    strip: Callable[[dict[str, Any], SettingsUpdate], dict[str, Any]],
) -> None:
    """Write what is left of ``update.path`` after acecode's entries were taken out
    (``data``, what ``strip`` returned), or delete the file when nothing is left: it held
    only what acecode wrote, and the folder is left as it was before ``acecode install``
    (with the ``.bak`` when ``strip`` leaves nothing of that either). A symlinked file (a
    dotfile manager's) is kept and written as ``{}``."""
    path = update.path
    if data or path.is_symlink():
        write_hooks_file(update, data, old_text)
        return
    remove_hooks_file(update, _holds_only_acecode(path.with_name(path.name + ".bak"), strip))


def _holds_only_acecode(
    path: Path, strip: Callable[[dict[str, Any], SettingsUpdate], dict[str, Any]]
) -> bool:
    try:
        data, text = read_hooks_file(path)
    except SettingsFileError:
        return False
    return text is not None and not strip(data, SettingsUpdate(path))


def merge_hooks(data: dict[str, Any], wanted: Groups, update: SettingsUpdate) -> dict[str, Any]:
    """``data`` with acecode's groups for each event set to ``wanted``, after other groups;
    records one change per event in ``update``."""
    hooks: dict[str, list[Any]] = dict(data.get("hooks", {}))
    for event, groups in wanted.items():
        current = hooks.get(event, [])
        present = acecode_hooks(current)
        matchers = [g.get("matcher") for g in current if acecode_hooks([g])]
        if present == groups[0]["hooks"] and matchers == [groups[0].get("matcher")]:
            update.changes.append(Change(event, "unchanged"))
            continue
        hooks[event] = _without_acecode(current) + groups
        update.changes.append(Change(event, "updated" if present else "added"))
    return {**data, "hooks": hooks}


def remove_hooks(data: dict[str, Any], update: SettingsUpdate) -> dict[str, Any]:
    """``data`` without any acecode hook; one change per event that had one."""
    hooks: dict[str, list[Any]] = {}
    for event, groups in data.get("hooks", {}).items():
        if not acecode_hooks(groups):
            hooks[event] = groups
            continue
        update.changes.append(Change(event, "removed"))
        remaining = _without_acecode(groups)
        if remaining:
            hooks[event] = remaining
    new_data = {key: value for key, value in data.items() if key != "hooks"}
    if hooks:
        new_data["hooks"] = hooks
    return new_data
