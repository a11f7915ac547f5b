"""Undo a journaled cycle, or restore a removed entry, through the history journal.

Undo reverts a cycle entry by entry, and only where the entry still is what
that cycle left; if a later change touched the same entry, the undo is
refused naming the conflicting cycles (``force`` reverts the rest and leaves
those entries alone). Restore brings back a removed entry by name. Both go
through ``update_playbook`` and are therefore journaled cycles themselves
(kinds ``undo`` and ``restore``), which provenance reads to take back or
hand back an entry's history (:mod:`acecode.store.provenance_changes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, generate_keypoint_name
from acecode.playbook.scoring import should_prune
from acecode.store.diff import EntryChange, positions
from acecode.store.journal import HistoryError, get_cycle, last_removal, later_touching


@dataclass
class UndoResult:
    """What ``undo_cycle`` did."""

    undone: str
    journal_cycle: str | None
    reverted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _current_state(playbook: dict[str, Any], name: str) -> tuple[str | None, dict[str, Any] | None]:
    section, _, entry = positions(playbook).get(name, (None, None, None))
    return section, entry


def _without(playbook: dict[str, Any], name: str) -> None:
    for section in SECTION_NAMES:
        playbook["sections"][section] = [
            entry for entry in playbook["sections"][section] if entry["name"] != name
        ]


def _revert(playbook: dict[str, Any], changes: list[EntryChange]) -> None:
    """Put each change's ``before`` back; positions are restored in ascending order."""
    for change in changes:
        if change.after is not None:
            _without(playbook, change.name)
    restoring = [change for change in changes if change.before is not None]
    restoring.sort(key=lambda change: change.before_position or 0)
    for change in restoring:
        entries = playbook["sections"][change.before_section]
        entries.insert(min(change.before_position or 0, len(entries)), change.before)


def _editable(playbook: dict[str, Any]) -> dict[str, Any]:
    copy = dict(playbook)
    copy["sections"] = {name: list(playbook["sections"].get(name, [])) for name in SECTION_NAMES}
    return copy


def undo_cycle(
    playbook_path: Path,
    cycle_id: str | None = None,
    *,
    force: bool = False,
    lock_timeout: float = 10.0,
) -> UndoResult:
    """Restore the entries ``cycle_id`` changed (default: the last undoable cycle).

    An entry is reverted only when it is still exactly what that cycle left.
    Any entry changed since (by a later cycle or outside acecode) is a
    conflict: without ``force`` nothing is changed and ``HistoryError`` names
    the conflicting cycles; with ``force`` the other entries are reverted and
    the conflicting ones are left as they are (listed in ``skipped``). The
    undo is saved through ``update_playbook`` and journaled as kind ``undo``.
    """
    from acecode.store import update_playbook

    with update_playbook(playbook_path, lock_timeout=lock_timeout) as txn:
        cycle = get_cycle(playbook_path, cycle_id)
        if cycle.undone_by is not None:
            raise HistoryError(
                f"cycle {cycle.cycle_id} was already undone by cycle {cycle.undone_by}"
            )
        revertible, skipped = [], []
        for change in cycle.changes:
            if _current_state(txn.playbook, change.name) == (change.after_section, change.after):
                revertible.append(change)
                continue
            later = later_touching(playbook_path, cycle.seq, change.name)
            why = (
                f"changed later by cycle {', '.join(later)}"
                if later
                else ("changed outside acecode since")
            )
            skipped.append((change.name, why))
        if skipped and not force:
            details = "; ".join(f"{name} {why}" for name, why in skipped)
            raise HistoryError(
                f"cannot undo cycle {cycle.cycle_id}: {details}. Undo those cycles first, "
                "or use --force to revert only the other entries"
            )
        if not revertible:
            return UndoResult(cycle.cycle_id, None, [], skipped)
        playbook = _editable(txn.playbook)
        _revert(playbook, revertible)
        txn.playbook = playbook
        txn.meta.update(
            kind="undo",
            source=f"acecode undo {cycle.cycle_id}",
            undoes=cycle.cycle_id,
            removals={
                change.name: {"cause": "undo", "reason": f"undo of cycle {cycle.cycle_id}"}
                for change in revertible
                if change.before is None
            },
            skipped=[{"name": name, "reason": why} for name, why in skipped],
        )
    return UndoResult(
        cycle.cycle_id, txn.meta.get("cycle_id"), [c.name for c in revertible], skipped
    )


@dataclass
class RestoreResult:
    """What ``restore_entry`` did."""

    name: str
    restored_as: str
    section: str
    from_cycle: str
    counters_reset: bool
    journal_cycle: str | None


def restore_entry(playbook_path: Path, name: str, *, lock_timeout: float = 10.0) -> RestoreResult:
    """Bring back the most recently removed entry called ``name`` (pruned, deleted, merged).

    It returns to its old section, at the end, under its old name, or under a
    new ID of that section when the name is taken. An entry that would be
    pruned again at once (``harmful >= 3 and harmful > helpful``) comes back
    with its counters reset to 0/0: restoring it says the verdict was wrong.
    Refused when the same text is already in the playbook.
    """
    from acecode.store import update_playbook

    found = last_removal(playbook_path, name)
    if found is None:
        raise HistoryError(f"no removed entry named {name!r} in the history journal")
    from_cycle, change = found
    assert change.before is not None and change.before_section is not None
    with update_playbook(playbook_path, lock_timeout=lock_timeout) as txn:
        current = positions(txn.playbook)
        for other, (_, _, entry) in current.items():
            if entry["text"] == change.before["text"]:
                raise HistoryError(f"{name} is already in the playbook as {other}")
        section = change.before_section
        new_name = name
        if name in current:
            from acecode.layers import name_prefix_for

            new_name = generate_keypoint_name(
                [entry for _, _, entry in current.values()],
                name_prefix_for(playbook_path) + SECTION_SLUGS[section],
            )
        counters_reset = should_prune(change.before)
        entry = {
            **change.before,
            "name": new_name,
            **({"helpful": 0, "harmful": 0} if counters_reset else {}),
        }
        playbook = _editable(txn.playbook)
        playbook["sections"][section].append(entry)
        txn.playbook = playbook
        txn.meta.update(
            kind="restore",
            source=f"acecode restore {name}",
            restored={"name": name, "as": new_name, "from_cycle": from_cycle},
        )
    return RestoreResult(
        name, new_name, section, from_cycle, counters_reset, txn.meta.get("cycle_id")
    )
