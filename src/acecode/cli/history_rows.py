"""What ``acecode history`` says about each cycle: one status for every kind of change.

Two files tell a cycle's story: the history journal (every saved change:
learned cycles, hand edits, git merges, undos, moves, restores, reviews) and
``cycles.jsonl`` (every learning cycle, including those that saved nothing).
A row merges them, and its *status* is meaningful whatever the kind:

* ``ok``: the change was saved and is in effect;
* ``undone``: it was saved and later undone (``acecode undo CYCLE``);
* ``partly undone``: some of its entries were taken back (``acecode undo NAME``);
* ``nothing-new``, ``skipped``, ``failed``: a learning cycle that saved nothing
  (``acecode.project.outcomes``), with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acecode.project import outcomes
from acecode.store.diff import EntryChange
from acecode.store.journal import Cycle, short_id

OK = outcomes.OK
UNDONE = "undone"
PARTLY_UNDONE = "partly undone"
# Signs of the changes column, and of an entry in a cycle's detail.
CHANGE_SIGNS = {"added": "+", "updated": "~", "removed": "-", "rated": "r"}


@dataclass
class HistoryRow:
    """One cycle as ``history`` shows it (``as_json`` is the ``--json`` record)."""

    cycle_id: str
    created_at: str
    kind: str
    status: str
    source: str | None = None
    transcript: str | None = None
    reason: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    undoes: str | None = None
    undone_by: str | None = None
    # entry name -> the cycle that took back this cycle's change of it (``undo NAME``)
    entries_undone: dict[str, str] = field(default_factory=dict)
    # what an undo took back: the cycle, and the entry when it was one entry's change
    reverts: str | None = None
    reverts_entry: str | None = None
    held_for_review: int = 0
    seq: int | None = None  # the journal's number; None for a cycle that saved nothing
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def short(self) -> str:
        return short_id(self.cycle_id)

    def as_json(self, changes: list[EntryChange] | None) -> dict[str, Any]:
        """The ``--json`` record; ``entries`` (name -> added/updated/rated/removed) when
        the changes were read."""
        record = {
            "cycle_id": self.cycle_id,
            "created_at": self.created_at,
            "kind": self.kind,
            "status": self.status,
            "reason": self.reason,
            "source": self.source,
            "transcript": self.transcript,
            "counts": self.counts,
            "undoes": self.undoes,
            "undone_by": self.undone_by,
            "entries_undone": self.entries_undone,
        }
        if changes is not None:
            record["entries"] = {change.name: change.kind for change in changes}
        return record


def _entry_undos(cycles: list[Cycle]) -> dict[str, dict[str, str]]:
    """Per cycle, the entries a per-entry undo still in effect took back, and by which."""
    found: dict[str, dict[str, str]] = {}
    for cycle in cycles:
        undone = cycle.meta.get("undoes_entry")
        if cycle.undone_by is None and cycle.kind == "undo" and isinstance(undone, dict):
            for name in (undone.get("name"), *(undone.get("restored") or ())):
                found.setdefault(str(undone.get("cycle")), {})[str(name)] = cycle.cycle_id
    return found


def _journaled(cycle: Cycle, record: dict[str, Any], undos: dict[str, str]) -> HistoryRow:
    status = UNDONE if cycle.undone_by else PARTLY_UNDONE if undos else OK
    entry = cycle.meta.get("undoes_entry")
    return HistoryRow(
        cycle_id=cycle.cycle_id,
        created_at=cycle.created_at,
        kind=cycle.kind,
        status=status,
        source=cycle.source,
        transcript=cycle.meta.get("transcript") or record.get("transcript"),
        counts=cycle.counts,
        undoes=cycle.undoes,
        undone_by=cycle.undone_by,
        entries_undone=undos,
        reverts=cycle.reverts,
        reverts_entry=entry.get("name") if isinstance(entry, dict) else None,
        held_for_review=int(record.get("held_for_review") or 0),
        seq=cycle.seq,
        meta=cycle.meta,
    )


def _unsaved(record: dict[str, Any]) -> HistoryRow:
    """A learning cycle that saved nothing to this playbook (cycles.jsonl only)."""
    return HistoryRow(
        cycle_id=str(record.get("cycle_id") or "?"),
        created_at=str(record.get("finished_at") or ""),
        kind="learn",
        status=str(record.get("status") or "?"),
        source=record.get("source"),
        transcript=record.get("transcript"),
        reason=str(record.get("reason") or ""),
        held_for_review=int(record.get("held_for_review") or 0),
    )


def _when(row: HistoryRow) -> datetime:
    """The row's time for ordering; a row without one sorts first."""
    try:
        return datetime.fromisoformat(row.created_at).astimezone()
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)


def history_rows(cycles: list[Cycle], records: list[dict[str, Any]]) -> list[HistoryRow]:
    """Journaled cycles (saved changes) and the learning cycles that saved nothing
    (nothing new, skipped, failed), oldest first."""
    by_id = {record.get("cycle_id"): record for record in records}
    undos = _entry_undos(cycles)
    rows = [
        _journaled(cycle, by_id.pop(cycle.cycle_id, {}), undos.get(cycle.cycle_id, {}))
        for cycle in cycles
    ]
    rows += [_unsaved(record) for record in by_id.values()]
    return sorted(rows, key=_when)


def change_counts(counts: dict[str, int]) -> str:
    """``+3 ~1 -2 r5``: entries added, rewritten (text or section), removed, rated."""
    removed = counts.get("removed")
    if removed is None:  # journals older than the "removed" count
        removed = sum(counts.get(key, 0) for key in ("merged", "deleted", "pruned"))
    values = {
        "added": counts.get("added", 0),
        "updated": counts.get("updated", 0),
        "removed": removed,
        "rated": counts.get("rated", 0),
    }
    return " ".join(f"{CHANGE_SIGNS[key]}{value}" for key, value in values.items() if value)


def relation(row: HistoryRow) -> str:
    """How the row stands to other cycles: what it undoes, what undid it."""
    parts = []
    if row.reverts:
        what = f"{row.reverts_entry} of " if row.reverts_entry else ""
        parts.append(f"undoes {what}{short_id(row.reverts)}")
    if row.undone_by:
        parts.append(f"undone by {short_id(row.undone_by)}")
    for name, by in row.entries_undone.items():
        parts.append(f"{name} undone by {short_id(by)}")
    return "; ".join(parts)


def session_name(row: HistoryRow) -> str:
    """Where a learned change came from: ``hook 5f3c1c8e.jsonl``; "" for a command."""
    source = row.source or ""
    if source.startswith("acecode "):  # the kind and the entries already say it
        source = ""
    transcript = row.transcript
    if isinstance(transcript, str) and transcript and transcript != source:
        name = Path(transcript).name
        return f"{source} {name}" if source else name
    return source
