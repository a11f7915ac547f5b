"""The playbook file: load with migration, save atomically under a lock.

``update_playbook()`` is the one way the project changes a playbook: it holds
an exclusive lock from load to save, so concurrent writers (two sessions
ending together, the CLI, a review) serialise instead of losing each other's
edits. It is meant for short critical sections, never held across an LLM
call. A file that is not a valid playbook is never overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.playbook.schema import ENTRY_KEYS, SECTION_NAMES
from acecode.project.layer import Layer, Where
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import (
    PlaybookError,
    PlaybookFileError,
    PlaybookLockTimeout,
    PlaybookWriteError,
)
from acecode.store.lock import playbook_lock
from acecode.store.reading import read_playbook

__all__ = [
    "PlaybookError",
    "PlaybookFileError",
    "PlaybookLockTimeout",
    "PlaybookTransaction",
    "PlaybookWriteError",
    "load_playbook",
    "resolve_path",
    "save_playbook",
    "serialize_playbook",
    "update_playbook",
]

DEFAULT_LOCK_TIMEOUT = 10.0


def resolve_path(path: Where = None) -> Path:
    """The explicit path (or layer's file), or ``$CLAUDE_PROJECT_DIR/.claude/playbook.json``."""
    return Layer.of(path).playbook_file


def load_playbook(path: Where = None) -> dict[str, Any]:
    """Read and migrate the playbook; a missing file is an empty playbook.

    Raises ``PlaybookFileError`` for a file that is unreadable, not JSON or
    not a playbook; the file itself is left exactly as it was.
    """
    return read_playbook(resolve_path(path))


def _entries_for_disk(entries: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [{key: entry[key] for key in ENTRY_KEYS} for entry in entries or []]


def serialize_playbook(playbook: dict[str, Any]) -> str:
    """Stable, diff-friendly JSON: canonical section order, 2-space indent, UTF-8.

    Entries are written with exactly ``name, text, helpful, harmful`` in that
    order (REQ-SECT-001), whatever order or extra keys the dicts in memory have.
    """
    ordered: dict[str, Any] = {
        "version": playbook.get("version", "1.0"),
        "last_updated": playbook.get("last_updated"),
        "sections": {
            name: _entries_for_disk(playbook["sections"].get(name)) for name in SECTION_NAMES
        },
    }
    for key, value in playbook.items():
        if key not in ordered and key != "key_points":
            ordered[key] = value
    text = json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (e.g. half an emoji escape in an LLM reply) cannot be
        # UTF-8: write it as its JSON escape, which reloads to the same string.
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _stamped(playbook: dict[str, Any]) -> dict[str, Any]:
    """``playbook`` as it is saved: without the legacy key points, with the time of saving."""
    assert "sections" in playbook, "save_playbook requires a sections-based playbook"
    stamped = {k: v for k, v in playbook.items() if k != "key_points"}
    stamped["last_updated"] = datetime.now().astimezone().isoformat(timespec="seconds")
    return stamped


def _write(playbook: dict[str, Any], path: Path) -> dict[str, Any]:
    stamped = _stamped(playbook)
    atomic_write_text(path, serialize_playbook(stamped))
    return stamped


def save_playbook(
    playbook: dict[str, Any],
    path: Where = None,
    *,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Write ``playbook`` atomically under the exclusive lock (INV-SECT-001/007).

    Refuses (``PlaybookFileError``) to replace an existing file that is not a
    valid playbook, so a file the user must repair is never silently lost. The
    texts it adds count as written by this machine (:mod:`acecode.arrivals.written`).
    """
    layer = Layer.of(path)
    with playbook_lock(layer, lock_timeout):
        current = read_playbook(layer.playbook_file)
        saved = _write(playbook, layer.playbook_file)
        from acecode.arrivals.written import record_written

        record_written(layer, current, saved)


@dataclass
class PlaybookTransaction:
    """The state of one ``update_playbook`` block: reassign ``playbook`` to change it.

    ``original`` is an independent copy of the playbook as loaded.
    ``meta`` describes the change for the history journal (source, cycle id,
    operations...).
    """

    path: Path
    playbook: dict[str, Any]
    original: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    saved: bool = False


@contextmanager
def update_playbook(
    path: Where = None,
    *,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> Iterator[PlaybookTransaction]:
    """Lock, load, let the caller edit ``txn.playbook``, then save if it changed.

    An exception inside the block saves nothing. The lock is held throughout,
    so keep the block short: compute LLM results before entering it. A save is
    journaled, its provenance recorded and the texts it adds counted as written
    by this machine (:mod:`acecode.arrivals.written`), all together or not at
    all (:mod:`acecode.store.commit`, which also finishes a save a killed
    process left before this one loads the playbook).
    """
    layer = Layer.of(path)
    target = layer.playbook_file
    with playbook_lock(layer, lock_timeout):
        from acecode.store.commit import settle

        settle(layer)  # a save a killed process left half done
        current = read_playbook(target)
        before = serialize_playbook(current)
        txn = PlaybookTransaction(path=target, playbook=current, original=json.loads(before))
        yield txn
        if serialize_playbook(txn.playbook) != before:
            from acecode.store.commit import commit_save  # sqlite3 off the hook path

            saved = _stamped(txn.playbook)
            commit_save(layer, before, saved, serialize_playbook(saved), txn.meta)
            txn.saved = True
