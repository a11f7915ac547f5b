"""Pinned entries: names the user wants injected first, whatever their counters say.

Kept beside the playbook in acecode's state folder
(``.claude/acecode/pins.json``: ``{"pinned": ["pat-001", ...]}``) so that
playbook entries keep exactly their four keys. The injection hook reads this
file on a cache miss (its ``stat`` is part of the cache key), so reading
needs only ``json`` and ``os``; writing goes through the store's lock and
atomic replace.

A pin names an entry; when that entry is deleted or merged away the pin
simply matches nothing (``acecode doctor`` lists such pins).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from acecode.errors import AcecodeError
from acecode.project.state_folder import STATE_FOLDER_NAME, folder_of

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

PINS_NAME = "pins.json"


class PinsFileError(AcecodeError, ValueError):
    """The pins file exists but is not a pins file; it was left untouched."""


def pins_path(playbook_file: str | os.PathLike[str]) -> str:
    """``<folder of the playbook>/acecode/pins.json``."""
    return pins_file(os.path.join(os.path.dirname(os.fspath(playbook_file)), STATE_FOLDER_NAME))


def pins_file(state: StateFolder) -> str:
    """``pins.json`` in a state folder (the folder given, or a layer's)."""
    return os.path.join(folder_of(state), PINS_NAME)


def _parse(raw: bytes, path: str) -> list[str]:
    from acecode.project.bounds import loads_bounded

    try:
        data: Any = loads_bounded(raw, path, "pins file")
    except (UnicodeDecodeError, ValueError) as exc:
        raise PinsFileError(f"{path}: not valid JSON ({exc}); file left untouched") from None
    pinned = data.get("pinned") if isinstance(data, dict) else None
    if not isinstance(pinned, list) or not all(isinstance(name, str) for name in pinned):
        raise PinsFileError(
            f'{path}: expected {{"pinned": ["<entry name>", ...]}}; file left untouched'
        )
    return list(dict.fromkeys(pinned))


def read_pins(path: str | os.PathLike[str]) -> list[str]:
    """The pinned names in ``path``, in pin order; ``[]`` when there is no file.

    Raises ``PinsFileError`` (one line naming the file) for a file that is
    unreadable or not a pins file.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise PinsFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    return _parse(raw, path)


def pins_or_none(playbook_file: str | os.PathLike[str]) -> list[str]:
    """The names pinned beside ``playbook_file``; a broken pins file is named on stderr
    (one line) and counts as no pins: pins order the injection, they never stop it."""
    try:
        return read_pins(pins_path(playbook_file))
    except PinsFileError as exc:
        from acecode.project.diagnostics import warn

        warn(f"{exc}; pins ignored")
        return []


def change_pins(
    path: str | os.PathLike[str],
    add: str | None = None,
    remove: str | None = None,
    timeout: float = 10.0,
) -> list[str]:
    """Add or remove one name under the file's lock; returns the new list.

    Raises ``PinsFileError`` for a broken file (left untouched) and the
    store's ``PlaybookError`` subclasses when the file cannot be locked or
    written.
    """
    from pathlib import Path

    from acecode.store.atomic import atomic_write_text
    from acecode.store.lock import exclusive_lock

    target = Path(path)
    with exclusive_lock(target, timeout):
        pinned = read_pins(target)
        if add is not None and add not in pinned:
            pinned.append(add)
        if remove is not None and remove in pinned:
            pinned.remove(remove)
        atomic_write_text(target, json.dumps({"pinned": pinned}, indent=2) + "\n")
    return pinned


def rename_pins(
    path: str | os.PathLike[str], renames: dict[str, str], timeout: float = 10.0
) -> list[str]:
    """Move pins along with their entries' new IDs (all at once: two may swap).

    A git merge can give an entry of this clone another ID; its pin follows
    it, so the old ID, now maybe another rule's, is not pinned by accident.
    Writes only when a pinned name moved; returns the new list. Raises as
    :func:`change_pins`.
    """
    from pathlib import Path

    from acecode.store.atomic import atomic_write_text
    from acecode.store.lock import exclusive_lock

    target = Path(path)
    if not target.exists():
        return []
    with exclusive_lock(target, timeout):
        pinned = read_pins(target)
        moved = list(dict.fromkeys(renames.get(name, name) for name in pinned))
        if moved != pinned:
            atomic_write_text(target, json.dumps({"pinned": moved}, indent=2) + "\n")
    return moved
