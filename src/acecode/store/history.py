"""The history journal: every saved change of a playbook, so any cycle can be undone.

The journal lives beside the playbook in ``<playbook dir>/acecode/history.sqlite``
(standard-library ``sqlite3``, WAL mode, one transaction per cycle).
``update_playbook`` appends one *cycle* per saved change, still holding the
playbook lock, so the journal order is the save order. A cycle records its
id, time, kind, source, the operations the writer passed, and one *change*
per touched entry: the entry's section, position and content before and
after (``None`` on the side where it did not exist) plus, for a removal, its
cause (delete, prune, merge, dedup) and reason.

Undo reverts a cycle entry by entry, and only where the entry still is what
that cycle left; if a later change touched the same entry, the undo is
refused naming the conflicting cycles (``force`` reverts the rest and leaves
those entries alone). Restore brings back a removed entry by name. Both go
through ``update_playbook`` and are therefore journaled cycles themselves.

What the writer puts in ``txn.meta`` (every key optional):

* ``cycle_id`` (str): unique id, e.g. from ``new_cycle_id()``; generated when
  absent, suffixed when already taken. The id recorded is written back.
* ``kind`` (str): ``learn``, ``bootstrap``, ``undo``, ``restore``...; default
  ``change``.
* ``source`` (str): the transcript path or command that caused the change.
* ``operations`` (list): the operations or their outcomes, stored as JSON.
* ``removals`` (dict): entry name -> ``{"cause": ..., "reason": ...}`` for
  removed entries; unlisted removals get cause ``removed``. Without it the
  causes are derived from ``operations`` (``OperationOutcome.as_dict()``
  records) and ``pruned`` (``{"entry", "reason"}`` records), see
  ``removals_from_meta``.
* anything else JSON-serialisable is kept in the cycle's ``meta`` column.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode import paths
from acecode.diagnostics import warn
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, generate_keypoint_name
from acecode.playbook.scoring import should_prune
from acecode.state_folder import ensure_state_folder
from acecode.store.errors import PlaybookError

JOURNAL_NAME = "history.sqlite"
SCHEMA_VERSION = 1
# Which per-cycle count a removal adds to, by cause; an unknown cause counts as
# deleted, an undo of an addition only as removed.
REMOVAL_CAUSE_COUNTS: dict[str, str | None] = {
    "delete": "deleted",
    "prune": "pruned",
    "merge": "merged",
    "dedup": "merged",
    "undo": None,
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cycles (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    cycle_id TEXT NOT NULL UNIQUE,
    playbook TEXT NOT NULL,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    source TEXT,
    undoes TEXT,
    counts TEXT NOT NULL,
    operations TEXT NOT NULL,
    meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER NOT NULL REFERENCES cycles(seq),
    name TEXT NOT NULL,
    before_section TEXT,
    before_position INTEGER,
    before_entry TEXT,
    after_section TEXT,
    after_position INTEGER,
    after_entry TEXT,
    cause TEXT,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS changes_by_name ON changes(name);
CREATE INDEX IF NOT EXISTS changes_by_seq ON changes(seq);
"""


class HistoryError(PlaybookError):
    """An undo or restore that cannot be done as asked; the message says why."""


@dataclass
class EntryChange:
    """One touched entry: where and what it was before and after the cycle."""

    name: str
    before_section: str | None
    before_position: int | None
    before: dict[str, Any] | None
    after_section: str | None
    after_position: int | None
    after: dict[str, Any] | None
    cause: str | None = None
    reason: str | None = None

    @property
    def kind(self) -> str:
        """``added``, ``removed``, ``updated`` (text or section) or ``rated`` (counters)."""
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        if self.before["text"] != self.after["text"] or self.before_section != self.after_section:
            return "updated"
        return "rated"


@dataclass
class Cycle:
    """One journaled save. ``changes`` is filled only by ``get_cycle``."""

    seq: int
    cycle_id: str
    created_at: str
    kind: str
    source: str | None
    counts: dict[str, int]
    undoes: str | None = None
    undone_by: str | None = None
    operations: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    changes: list[EntryChange] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """JSON-ready row for ``acecode history --json``."""
        return {
            "cycle_id": self.cycle_id,
            "created_at": self.created_at,
            "kind": self.kind,
            "source": self.source,
            "transcript": self.meta.get("transcript"),
            "counts": self.counts,
            "undoes": self.undoes,
            "undone_by": self.undone_by,
        }


def journal_path(playbook_path: Path) -> Path:
    """The journal file that belongs to ``playbook_path``."""
    return paths.state_dir_for(playbook_path) / JOURNAL_NAME


def new_cycle_id() -> str:
    """A sortable, unique cycle id: ``YYYYMMDD-HHMMSS-<6 hex>``."""
    return f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def _positions(playbook: dict[str, Any]) -> dict[str, tuple[str, int, dict[str, Any]]]:
    sections = playbook.get("sections") or {}
    where = {}
    for section in SECTION_NAMES:
        for position, entry in enumerate(sections.get(section) or ()):
            where[entry["name"]] = (section, position, entry)
    return where


def diff_playbooks(before: dict[str, Any], after: dict[str, Any]) -> list[EntryChange]:
    """The entries whose section or content differ, matched by name.

    A moved position alone is not a change (removing one entry shifts the
    rest). Order: entries of ``before`` in playbook order, then new ones.
    """
    old, new = _positions(before), _positions(after)
    changes = []
    for name in [*old, *(name for name in new if name not in old)]:
        b_section, b_position, b_entry = old.get(name, (None, None, None))
        a_section, a_position, a_entry = new.get(name, (None, None, None))
        if b_entry == a_entry and b_section == a_section:
            continue
        changes.append(
            EntryChange(name, b_section, b_position, b_entry, a_section, a_position, a_entry)
        )
    return changes


def annotate_removals(changes: list[EntryChange], removals: Any) -> list[EntryChange]:
    """Set cause and reason of removed entries from ``{name: {"cause", "reason"}}``.

    A removal the writer did not explain gets cause ``removed``. Returns ``changes``.
    """
    known = removals if isinstance(removals, dict) else {}
    for change in changes:
        if change.after is not None:
            continue
        detail = known.get(change.name)
        if isinstance(detail, dict):
            change.cause, change.reason = detail.get("cause"), detail.get("reason")
        else:
            change.cause = "removed"
    return changes


def removals_from_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Why entries were removed: ``meta["removals"]``, or derived from what a cycle recorded.

    Without an explicit ``removals`` mapping, causes are read from
    ``operations`` given as ``OperationOutcome.as_dict()`` records (DELETE,
    MERGE) and from ``pruned`` given as ``{"entry": {...}, "reason"}`` or
    ``{"name", "reason"}`` records.
    """
    if isinstance(meta.get("removals"), dict):
        return meta["removals"]
    removals: dict[str, Any] = {}
    for outcome in meta.get("operations") or ():
        if not isinstance(outcome, dict) or not outcome.get("applied"):
            continue
        created = (outcome.get("created") or {}).get("name")
        for removed in outcome.get("removed") or ():
            name = (removed.get("entry") or {}).get("name") if isinstance(removed, dict) else None
            if outcome.get("type") == "MERGE" and name:
                removals[name] = {"cause": "merge", "reason": f"merged into {created}"}
            elif outcome.get("type") == "DELETE" and name:
                removals[name] = {"cause": "delete", "reason": outcome.get("reason") or ""}
    for item in meta.get("pruned") or ():
        if isinstance(item, dict):
            name = item.get("name") or (item.get("entry") or {}).get("name")
            if name:
                removals[name] = {"cause": "prune", "reason": item.get("reason") or ""}
    return removals


def count_changes(changes: list[EntryChange]) -> dict[str, int]:
    """Per-cycle counts: added, updated, rated, merged, deleted, pruned, removed.

    ``merged`` counts entries merged away (curator MERGE or de-duplication);
    a removal whose cause is unknown counts as ``deleted``.
    """
    counts = dict.fromkeys(
        ("added", "updated", "rated", "merged", "deleted", "pruned", "removed"), 0
    )
    for change in changes:
        kind = change.kind
        if kind == "removed":
            counts["removed"] += 1
            category = REMOVAL_CAUSE_COUNTS.get(change.cause or "", "deleted")
            if category:
                counts[category] += 1
        else:
            counts[kind] += 1
    return counts


def _to_json(value: Any) -> str:
    """JSON for whatever a writer put in meta (dataclasses, tuples, paths)."""

    def fallback(obj: Any) -> Any:
        if hasattr(obj, "as_dict"):
            return obj.as_dict()
        if is_dataclass(obj) and not isinstance(obj, type):
            return asdict(obj)
        if isinstance(obj, set | frozenset):
            return sorted(obj, key=str)
        return str(obj)

    return json.dumps(value, ensure_ascii=False, default=fallback)


def _dump(entry: dict[str, Any] | None) -> str | None:
    return None if entry is None else json.dumps(entry, ensure_ascii=False)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


@contextmanager
def _connect(playbook_path: Path, *, create: bool) -> Iterator[sqlite3.Connection | None]:
    """A connection to the journal (None when it does not exist and ``create`` is False).

    Any SQLite failure inside the block becomes a one-line ``HistoryError``.
    """
    target = journal_path(playbook_path)
    if not create and not target.exists():
        yield None
        return
    try:
        ensure_state_folder(target.parent)
        with closing(sqlite3.connect(target, timeout=10.0)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                with conn:
                    conn.executescript(_SCHEMA)
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            yield conn
    except sqlite3.Error as exc:
        raise HistoryError(f"history journal {target} is unusable: {exc}") from exc


def _unique_cycle_id(conn: sqlite3.Connection, wanted: Any) -> str:
    base = wanted if isinstance(wanted, str) and wanted.strip() else new_cycle_id()
    candidate, suffix = base, 2
    while conn.execute("SELECT 1 FROM cycles WHERE cycle_id = ?", (candidate,)).fetchone():
        candidate, suffix = f"{base}-{suffix}", suffix + 1
    return candidate


def record_cycle(
    playbook_path: Path,
    before: dict[str, Any],
    after: dict[str, Any],
    meta: dict[str, Any],
) -> str:
    """Append the change from ``before`` to ``after`` as one cycle; return its id.

    Called by ``update_playbook`` under the playbook lock, right after the
    save. Raises ``HistoryError``/``OSError``/``TypeError`` on failure; use
    ``journal_saved_change`` where a failure must not propagate.
    """
    changes = annotate_removals(diff_playbooks(before, after), removals_from_meta(meta))
    counts = count_changes(changes)
    known = {"cycle_id", "kind", "source", "operations", "removals", "undoes"}
    extra = {key: value for key, value in meta.items() if key not in known}
    with _connect(playbook_path, create=True) as conn, conn:
        cycle_id = _unique_cycle_id(conn, meta.get("cycle_id"))
        cursor = conn.execute(
            "INSERT INTO cycles (cycle_id, playbook, created_at, kind, source, undoes, counts, "
            "operations, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cycle_id,
                playbook_path.name,
                datetime.now().astimezone().isoformat(timespec="seconds"),
                str(meta.get("kind") or "change"),
                None if meta.get("source") is None else str(meta["source"]),
                meta.get("undoes"),
                json.dumps(counts),
                _to_json(meta.get("operations") or []),
                _to_json(extra),
            ),
        )
        conn.executemany(
            "INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    cursor.lastrowid,
                    c.name,
                    c.before_section,
                    c.before_position,
                    _dump(c.before),
                    c.after_section,
                    c.after_position,
                    _dump(c.after),
                    c.cause,
                    c.reason,
                )
                for c in changes
            ],
        )
    return cycle_id


def journal_saved_change(
    playbook_path: Path,
    before: dict[str, Any],
    after: dict[str, Any],
    meta: dict[str, Any],
) -> str | None:
    """``record_cycle`` that never raises: the playbook is already saved.

    On failure it warns on stderr and returns None; the saved playbook stays
    as it is, only this cycle cannot be undone from the journal. On success
    the recorded id is written back to ``meta["cycle_id"]``.
    """
    try:
        cycle_id = record_cycle(playbook_path, before, after, meta)
    except (PlaybookError, OSError, TypeError, ValueError) as exc:
        warn(f"history journal not updated for {playbook_path} ({exc}); the playbook was saved")
        return None
    meta["cycle_id"] = cycle_id
    return cycle_id


_CYCLE_COLUMNS = "seq, cycle_id, created_at, kind, source, undoes, counts, operations, meta"


def _cycle_from_row(row: tuple[Any, ...]) -> Cycle:
    seq, cycle_id, created_at, kind, source, undoes, counts, operations, meta = row
    return Cycle(
        seq=seq,
        cycle_id=cycle_id,
        created_at=created_at,
        kind=kind,
        source=source,
        counts=json.loads(counts),
        undoes=undoes,
        operations=json.loads(operations),
        meta=json.loads(meta),
    )


def _mark_undone(cycles: list[Cycle]) -> None:
    """Set ``undone_by`` where an undo is in effect (an undone undo re-applies its target).

    Newest first: an undo is always newer than its target, so whether an
    undo is itself undone is settled before it is looked at.
    """
    by_id = {cycle.cycle_id: cycle for cycle in cycles}
    for cycle in reversed(cycles):
        target = by_id.get(cycle.undoes) if cycle.undoes else None
        if target is not None and cycle.undone_by is None and target.undone_by is None:
            target.undone_by = cycle.cycle_id


def list_cycles(playbook_path: Path) -> list[Cycle]:
    """Every journaled cycle of ``playbook_path``, oldest first (empty without a journal)."""
    with _connect(playbook_path, create=False) as conn:
        if conn is None:
            return []
        rows = conn.execute(
            f"SELECT {_CYCLE_COLUMNS} FROM cycles WHERE playbook = ? ORDER BY seq",
            (playbook_path.name,),
        ).fetchall()
    cycles = [_cycle_from_row(row) for row in rows]
    _mark_undone(cycles)
    return cycles


def _changes_of(conn: sqlite3.Connection, seq: int) -> list[EntryChange]:
    rows = conn.execute(
        "SELECT name, before_section, before_position, before_entry, after_section, "
        "after_position, after_entry, cause, reason FROM changes WHERE seq = ? ORDER BY rowid",
        (seq,),
    ).fetchall()
    return [
        EntryChange(name, bs, bp, _load(be), as_, ap, _load(ae), cause, reason)
        for name, bs, bp, be, as_, ap, ae, cause, reason in rows
    ]


def find_cycle(cycles: list[Cycle], wanted: str | None) -> Cycle:
    """The cycle named by an exact id or unique prefix; ``None`` means the last undoable one.

    The last undoable cycle is the newest that is not an undo and not undone,
    so repeated ``acecode undo`` walks back through history.
    """
    if wanted is None:
        for cycle in reversed(cycles):
            if cycle.undoes is None and cycle.undone_by is None:
                return cycle
        raise HistoryError("nothing to undo: the history journal has no undoable cycle")
    exact = [cycle for cycle in cycles if cycle.cycle_id == wanted]
    matches = exact or [cycle for cycle in cycles if cycle.cycle_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise HistoryError(f"unknown cycle {wanted!r}; see `acecode history`")
    names = ", ".join(cycle.cycle_id for cycle in matches[:5])
    raise HistoryError(f"cycle {wanted!r} is ambiguous ({names}); give more characters")


def get_cycle(playbook_path: Path, wanted: str | None = None) -> Cycle:
    """One cycle with its changes (see ``find_cycle`` for ``wanted``)."""
    cycle = find_cycle(list_cycles(playbook_path), wanted)
    with _connect(playbook_path, create=False) as conn:
        assert conn is not None  # list_cycles found the cycle, so the journal exists
        cycle.changes = _changes_of(conn, cycle.seq)
    return cycle


def _later_touching(playbook_path: Path, after_seq: int, name: str) -> list[str]:
    with _connect(playbook_path, create=False) as conn:
        assert conn is not None
        rows = conn.execute(
            "SELECT DISTINCT cycles.cycle_id FROM changes JOIN cycles ON cycles.seq = changes.seq "
            "WHERE changes.name = ? AND cycles.seq > ? AND cycles.playbook = ? ORDER BY cycles.seq",
            (name, after_seq, playbook_path.name),
        ).fetchall()
    return [row[0] for row in rows]


@dataclass
class UndoResult:
    """What ``undo_cycle`` did."""

    undone: str
    journal_cycle: str | None
    reverted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _current_state(playbook: dict[str, Any], name: str) -> tuple[str | None, dict[str, Any] | None]:
    section, _, entry = _positions(playbook).get(name, (None, None, None))
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
            later = _later_touching(playbook_path, cycle.seq, change.name)
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


def _editable(playbook: dict[str, Any]) -> dict[str, Any]:
    copy = dict(playbook)
    copy["sections"] = {name: list(playbook["sections"].get(name, [])) for name in SECTION_NAMES}
    return copy


@dataclass
class RestoreResult:
    """What ``restore_entry`` did."""

    name: str
    restored_as: str
    section: str
    from_cycle: str
    counters_reset: bool
    journal_cycle: str | None


def _last_removal(playbook_path: Path, name: str) -> tuple[str, EntryChange] | None:
    with _connect(playbook_path, create=False) as conn:
        if conn is None:
            return None
        row = conn.execute(
            "SELECT cycles.cycle_id, changes.rowid FROM changes JOIN cycles "
            "ON cycles.seq = changes.seq WHERE changes.name = ? AND cycles.playbook = ? "
            "AND changes.after_entry IS NULL AND changes.before_entry IS NOT NULL "
            "ORDER BY cycles.seq DESC LIMIT 1",
            (name, playbook_path.name),
        ).fetchone()
        if row is None:
            return None
        detail = conn.execute(
            "SELECT name, before_section, before_position, before_entry, after_section, "
            "after_position, after_entry, cause, reason FROM changes WHERE rowid = ?",
            (row[1],),
        ).fetchone()
    name_, bs, bp, be, as_, ap, ae, cause, reason = detail
    return row[0], EntryChange(name_, bs, bp, _load(be), as_, ap, _load(ae), cause, reason)


def restore_entry(playbook_path: Path, name: str, *, lock_timeout: float = 10.0) -> RestoreResult:
    """Bring back the most recently removed entry called ``name`` (pruned, deleted, merged).

    It returns to its old section, at the end, under its old name, or under a
    new ID of that section when the name is taken. An entry that would be
    pruned again at once (``harmful >= 3 and harmful > helpful``) comes back
    with its counters reset to 0/0: restoring it says the verdict was wrong.
    Refused when the same text is already in the playbook.
    """
    from acecode.store import update_playbook

    found = _last_removal(playbook_path, name)
    if found is None:
        raise HistoryError(f"no removed entry named {name!r} in the history journal")
    from_cycle, change = found
    assert change.before is not None and change.before_section is not None
    with update_playbook(playbook_path, lock_timeout=lock_timeout) as txn:
        current = _positions(txn.playbook)
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
