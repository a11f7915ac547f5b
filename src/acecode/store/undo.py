"""Undo a journaled cycle or one entry's last change, or restore a removed entry.

Undo of a cycle reverts it entry by entry, and only where the entry still is
what that cycle left; if a later change touched the same entry (a later
cycle rating a rule changes its counters), the undo is refused naming the
conflicting cycles and pointing at the per-entry undo (``force`` reverts the
rest and leaves those entries alone).

Undo of an entry (``undo_entry``) is the easy path for one rule that looks
wrong: it takes back the last change of the entry's text still in effect
(the cycle that added it, or that rewrote it), whatever later cycles did to
its counters, together with the entries that cycle merged into it.

Restore brings back a removed entry by name. All three go through
``update_playbook`` and are therefore journaled cycles themselves (kinds
``undo`` and ``restore``), so each can be undone in turn; provenance reads
them to take back or hand back an entry's history
(:mod:`acecode.store.provenance_changes`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, generate_keypoint_name
from acecode.playbook.scoring import should_prune
from acecode.store.diff import EntryChange, positions
from acecode.store.journal import (
    MOVE_KIND,
    Cycle,
    HistoryError,
    changes_of,
    entry_changes,
    get_cycle,
    last_removal,
    list_cycles,
    short_id,
)

# How a removal names the entry it went into (``acecode.consolidation.report``'s
# ``removals``): "merged into pat-004" (curator MERGE), "duplicate of pat-004 (...)" (de-dup).
_MERGED_INTO = re.compile(r"^(?:merged into|duplicate of) (?P<name>\S+)")
# Cycles named in one line before "and N more".
_NAMED_CYCLES = 3


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


def _cycle_list(cycle_ids: list[str]) -> str:
    """``a1b2c3, d4e5f6 and 4 more`` (short ids, as ``acecode history`` shows them)."""
    shown = ", ".join(short_id(cycle_id) for cycle_id in cycle_ids[:_NAMED_CYCLES])
    more = len(cycle_ids) - _NAMED_CYCLES
    return shown + (f" and {more} more" if more > 0 else "")


def _changed_since(playbook_path: Path, cycle: Cycle, name: str) -> str:
    """What changed entry ``name`` after ``cycle``: its text (or section), its counters only,
    or something outside acecode."""
    later = entry_changes(playbook_path, name, cycle.seq)
    if not later:
        return "changed outside acecode since"
    edited = list(dict.fromkeys(cid for cid, change in later if change.kind != "rated"))
    rated = list(dict.fromkeys(cid for cid, change in later if change.kind == "rated"))
    parts = []
    if edited:
        parts.append(f"changed by later cycle {_cycle_list(edited)}")
    if rated:
        parts.append(
            f"{'and its counters' if edited else 'counters changed'} by "
            f"later cycle {_cycle_list(rated)}"
        )
    return " ".join(parts)


def _blocked_message(cycle: Cycle, skipped: list[tuple[str, str]], playbook: dict) -> str:
    """The one-line refusal of ``undo_cycle``: what blocks it, and the per-entry way out."""
    details = "; ".join(f"{name} {why}" for name, why in skipped)
    present = [name for name, _ in skipped if name in positions(playbook)]
    per_entry = (
        f" To take back one rule whatever came after, run `acecode undo {present[0]}` "
        "(one rule at a time);"
        if present
        else ""
    )
    return (
        f"cannot undo cycle {cycle.cycle_id}: {details}.{per_entry} --force reverts only "
        "the entries nothing changed since"
    )


def undo_cycle(
    playbook_path: Path,
    cycle_id: str | None = None,
    *,
    force: bool = False,
    lock_timeout: float = 10.0,
) -> UndoResult:
    """Restore the entries ``cycle_id`` changed (default: the last undoable cycle).

    An entry is reverted only when it is still exactly what that cycle left,
    and left alone when it is already what it was before (an ``undo_entry``
    took it back). Any other entry changed since (by a later cycle or outside
    acecode) is a conflict: without ``force`` nothing is changed and
    ``HistoryError`` names the conflicting cycles and the per-entry undo; with
    ``force`` the other entries are reverted and the conflicting ones are left
    as they are (listed in ``skipped``). The undo is saved through
    ``update_playbook`` and journaled as kind ``undo``.
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
            now = _current_state(txn.playbook, change.name)
            if now == (change.after_section, change.after):
                revertible.append(change)
            elif now != (change.before_section, change.before):
                skipped.append((change.name, _changed_since(playbook_path, cycle, change.name)))
        if skipped and not force:
            raise HistoryError(_blocked_message(cycle, skipped, txn.playbook))
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
class EntryUndoResult:
    """What ``undo_entry`` did: ``name``'s change in cycle ``undone`` was taken back."""

    name: str
    undone: str
    removed: bool  # True: that cycle added the entry, so it is gone; False: its old text is back
    restored: list[str]  # entries that cycle had merged into it, back in the playbook
    skipped: list[tuple[str, str]]  # merged entries left out, and why
    journal_cycle: str | None


def _change_in_effect(playbook_path: Path, name: str) -> tuple[Cycle, EntryChange] | None:
    """The last journaled change of ``name``'s text or section that is still in effect.

    Counter-only changes (a cycle rating the rule) are passed over. Newest
    first, an undo cancels the change it took back for this entry, unless it
    was itself cancelled by a newer undo: repeated ``undo NAME`` walks back
    through the entry's history.
    """
    cycles = {cycle.cycle_id: cycle for cycle in list_cycles(playbook_path)}
    cancelled: set[str] = set()
    for cycle_id, change in reversed(entry_changes(playbook_path, name)):
        cycle = cycles[cycle_id]
        if cycle_id in cancelled:
            continue
        if cycle.reverts is not None:
            cancelled.add(cycle.reverts)
        elif change.kind != "rated":
            return cycle, change
    return None


def _merged_into(name: str, changes: list[EntryChange]) -> list[EntryChange]:
    """The entries ``cycle`` removed by merging them into ``name`` (MERGE or de-dup)."""

    def into(change: EntryChange) -> str | None:
        found = _MERGED_INTO.match(change.reason or "")
        return found["name"] if found else None

    return [
        change
        for change in changes
        if change.after is None and change.cause in ("merge", "dedup") and into(change) == name
    ]


def undo_entry(playbook_path: Path, name: str, *, lock_timeout: float = 10.0) -> EntryUndoResult:
    """Take back the last change of entry ``name``'s text still in effect, whatever came after.

    When that change added the entry, the entry is removed; when it rewrote
    the entry (UPDATE, MERGE, an edit, a git merge), the entry is put back as
    it was before, counters included: the counts gathered since rated the
    text being taken back. Entries the same cycle merged into it come back
    too, unless their name or text is in the playbook again. Refused
    (``HistoryError``, one line) when the entry is not in the playbook, when
    the journal has no change of it, and for a move, which ``undo_cycle``
    takes back in both layers. Journaled as kind ``undo`` with
    ``meta["undoes_entry"]``, so ``undo_cycle`` of that cycle puts it back.
    """
    from acecode.store import update_playbook

    with update_playbook(playbook_path, lock_timeout=lock_timeout) as txn:
        where = positions(txn.playbook)
        if name not in where:
            raise HistoryError(
                f"no entry named {name!r} in {playbook_path} (`acecode restore {name}` brings "
                "back a removed entry)"
            )
        found = _change_in_effect(playbook_path, name)
        if found is None:
            raise HistoryError(
                f"the history journal has no change of {name} to undo (it predates the journal "
                f"or was written by hand); `acecode forget {name}` deletes it"
            )
        cycle, change = found
        if cycle.kind == MOVE_KIND:
            raise HistoryError(
                f"{name} came to this layer by `acecode move` (cycle {cycle.cycle_id}); "
                f"`acecode undo {cycle.cycle_id}` moves it back"
            )
        section, position, entry = where[name]
        reverting = [
            EntryChange(
                name,
                change.before_section,
                change.before_position,
                change.before,
                section,
                position,
                entry,
            )
        ]
        texts = {other["text"] for _, _, other in where.values()}
        restored, skipped = [], []
        for source in _merged_into(name, changes_of(playbook_path, [cycle.seq])[cycle.seq]):
            assert source.before is not None
            if source.name in where or source.before["text"] in texts:
                skipped.append((source.name, "its name or text is in the playbook again"))
            else:
                reverting.append(source)
                restored.append(source.name)
        playbook = _editable(txn.playbook)
        _revert(playbook, reverting)
        txn.playbook = playbook
        reason = f"undo of {name}'s change in cycle {cycle.cycle_id}"
        txn.meta.update(
            kind="undo",
            source=f"acecode undo {name}",
            undoes_entry={"name": name, "cycle": cycle.cycle_id, "restored": restored},
            removals={name: {"cause": "undo", "reason": reason}} if change.before is None else {},
            skipped=[{"name": other, "reason": why} for other, why in skipped],
        )
    return EntryUndoResult(
        name, cycle.cycle_id, change.before is None, restored, skipped, txn.meta.get("cycle_id")
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
            from acecode.project.layers import name_prefix_for

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
