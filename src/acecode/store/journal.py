"""The history journal: every saved change of a playbook, in an SQLite file beside it.

The journal lives in ``<playbook dir>/acecode/history.sqlite`` (standard-library
``sqlite3``, WAL mode, one transaction per cycle). ``update_playbook``
appends one *cycle* per saved change, still holding the playbook lock, so
the journal order is the save order. A cycle records its id, time, kind,
source, the operations the writer passed, and one *change* per touched entry
(:class:`acecode.store.diff.EntryChange`): the entry's section, position and
content before and after plus, for a removal, its cause and reason.

Schema: the journal's version is SQLite's ``user_version``; ``MIGRATIONS``
is the ordered list of named steps from an empty file to the current
schema. Opening a journal runs the steps it has not had yet, in order, in
one ``BEGIN IMMEDIATE`` transaction (two processes opening an old journal
together migrate it once), and records each in ``schema_migrations``. A
journal newer than this acecode is refused with a one-line error instead
of being written with the wrong schema.

What the writer puts in ``txn.meta`` (every key optional):

* ``cycle_id`` (str): unique id, e.g. from ``new_cycle_id()``; generated when
  absent, suffixed when already taken. The id recorded is written back.
* ``kind`` (str): ``learn``, ``bootstrap``, ``undo``, ``restore``, ``add``...;
  default ``change``.
* ``source`` (str): the transcript path or command that caused the change.
* ``operations`` (list): the operations or their outcomes, stored as JSON.
* ``removals`` (dict): entry name -> ``{"cause": ..., "reason": ...}`` for
  removed entries (see :func:`acecode.store.diff.removals_from_meta`).
* anything else JSON-serialisable is kept in the cycle's ``meta`` column.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.project.diagnostics import warn
from acecode.project.layer import Layer, Where
from acecode.store.diff import (
    EntryChange,
    annotate_removals,
    count_changes,
    diff_playbooks,
    removals_from_meta,
)
from acecode.store.errors import PlaybookError
from acecode.store.journal_schema import _AFTER_TEXT, HistoryError, migrate

JOURNAL_NAME = "history.sqlite"
# The kind of a cycle that moved an entry between layers (acecode.edits.layer_move): undo
# takes it back in both layers, so it is named here, below both.
MOVE_KIND = "move"


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

    @property
    def reverts(self) -> str | None:
        """The cycle this undo takes back: wholly (``undoes``), or for one entry and the
        entries merged into it (``meta["undoes_entry"]``, see ``acecode.store.undo``)."""
        if self.undoes:
            return self.undoes
        undone = self.meta.get("undoes_entry") if self.kind == "undo" else None
        cycle = undone.get("cycle") if isinstance(undone, dict) else None
        return cycle if isinstance(cycle, str) else None


def journal_path(playbook_path: Where) -> Path:
    """The journal file that belongs to ``playbook_path`` (a playbook file or its layer)."""
    return Layer.of(playbook_path).file(JOURNAL_NAME)


def _playbook_name(playbook_path: Where) -> str:
    """The playbook's file name, which the journal's rows are kept under."""
    return Layer.of(playbook_path).playbook_file.name


def new_cycle_id() -> str:
    """A sortable, unique cycle id: ``YYYYMMDD-HHMMSS-<6 hex>``."""
    return f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def to_json(value: Any) -> str:
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
def connect(playbook_path: Where, *, create: bool) -> Iterator[sqlite3.Connection | None]:
    """A migrated connection to the journal (None when it does not exist and not ``create``).

    Any SQLite failure inside the block becomes a one-line ``HistoryError``.
    """
    layer = Layer.of(playbook_path)
    target = journal_path(layer)
    if not create and not target.exists():
        yield None
        return
    try:
        layer.ensure_folder()
        with closing(sqlite3.connect(target, timeout=10.0)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            migrate(conn, target)
            yield conn
    except sqlite3.Error as exc:
        raise HistoryError(f"history journal {target} is unusable: {exc}") from exc


def _unique_cycle_id(conn: sqlite3.Connection, wanted: Any) -> str:
    base = wanted if isinstance(wanted, str) and wanted.strip() else new_cycle_id()
    candidate, suffix = base, 2
    while conn.execute("SELECT 1 FROM cycles WHERE cycle_id = ?", (candidate,)).fetchone():
        candidate, suffix = f"{base}-{suffix}", suffix + 1
    return candidate


def reserve_cycle_id(playbook_path: Where, wanted: Any = None) -> str:
    """The id the next cycle will be recorded under: ``wanted`` (or a new id), suffixed
    when taken. The caller holds the playbook lock, so no other writer takes it meanwhile.
    Raises ``HistoryError`` when the journal cannot be opened."""
    with connect(playbook_path, create=True) as conn:
        assert conn is not None
        return _unique_cycle_id(conn, wanted)


def has_cycle(playbook_path: Where, cycle_id: str) -> bool:
    """True when the journal holds the cycle ``cycle_id``."""
    with connect(playbook_path, create=False) as conn:
        return conn is not None and bool(
            conn.execute("SELECT 1 FROM cycles WHERE cycle_id = ?", (cycle_id,)).fetchone()
        )


def forget_cycle(playbook_path: Where, cycle_id: str) -> None:
    """Take the cycle ``cycle_id`` out of the journal: its save was undone before it
    committed (:mod:`acecode.store.commit`)."""
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return
        with conn:
            conn.execute(
                "DELETE FROM changes WHERE seq IN (SELECT seq FROM cycles WHERE cycle_id = ?)",
                (cycle_id,),
            )
            conn.execute("DELETE FROM cycles WHERE cycle_id = ?", (cycle_id,))


def record_cycle(
    playbook_path: Where,
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
    with connect(playbook_path, create=True) as conn, conn:
        cycle_id = _unique_cycle_id(conn, meta.get("cycle_id"))
        cursor = conn.execute(
            "INSERT INTO cycles (cycle_id, playbook, created_at, kind, source, undoes, counts, "
            "operations, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cycle_id,
                _playbook_name(playbook_path),
                datetime.now().astimezone().isoformat(timespec="seconds"),
                str(meta.get("kind") or "change"),
                None if meta.get("source") is None else str(meta["source"]),
                meta.get("undoes"),
                json.dumps(counts),
                to_json(meta.get("operations") or []),
                to_json(extra),
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
    playbook_path: Where,
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
        playbook = Layer.of(playbook_path).playbook_file
        warn(f"history journal not updated for {playbook} ({exc}); the playbook was saved")
        return None
    meta["cycle_id"] = cycle_id
    return cycle_id


_CYCLE_COLUMNS = "seq, cycle_id, created_at, kind, source, undoes, counts, operations, meta"
_CHANGE_COLUMNS = (
    "name, before_section, before_position, before_entry, after_section, "
    "after_position, after_entry, cause, reason"
)

_QUALIFIED_CHANGE_COLUMNS = ", ".join(f"changes.{c}" for c in _CHANGE_COLUMNS.split(", "))


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


def _change_from_row(row: tuple[Any, ...]) -> EntryChange:
    name, bs, bp, be, as_, ap, ae, cause, reason = row
    return EntryChange(name, bs, bp, _load(be), as_, ap, _load(ae), cause, reason)


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


def list_cycles(playbook_path: Where) -> list[Cycle]:
    """Every journaled cycle of ``playbook_path``, oldest first (empty without a journal)."""
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return []
        rows = conn.execute(
            f"SELECT {_CYCLE_COLUMNS} FROM cycles WHERE playbook = ? ORDER BY seq",
            (_playbook_name(playbook_path),),
        ).fetchall()
    cycles = [_cycle_from_row(row) for row in rows]
    _mark_undone(cycles)
    return cycles


# ``new_cycle_id``'s shape: the local time it was made, then its random part.
_STAMPED_ID = re.compile(r"^\d{8}-\d{6}-(?P<short>.+)$")


def short_id(cycle_id: str) -> str:
    """The part of a cycle id that tells it apart: ``a1b2c3`` of ``20260321-101500-a1b2c3``.

    ``acecode history`` shows it next to the cycle's time, so that a row fits on one
    line, and ``find_cycle`` takes it back. Ids of another shape are returned whole.
    """
    stamped = _STAMPED_ID.match(cycle_id)
    return stamped["short"] if stamped else cycle_id


def match_cycle_id(cycle_ids: list[str], wanted: str) -> str:
    """The one id of ``cycle_ids`` that ``wanted`` names: the id itself, its short id
    (``short_id``) or a unique prefix. Raises ``HistoryError`` for none or several."""
    matches = (
        [cycle_id for cycle_id in cycle_ids if cycle_id == wanted]
        or [cycle_id for cycle_id in cycle_ids if short_id(cycle_id) == wanted]
        or [cycle_id for cycle_id in cycle_ids if cycle_id.startswith(wanted)]
    )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise HistoryError(f"unknown cycle {wanted!r}; see `acecode history`")
    raise HistoryError(
        f"cycle {wanted!r} is ambiguous ({', '.join(matches[:5])}); give more characters"
    )


def find_cycle(cycles: list[Cycle], wanted: str | None) -> Cycle:
    """The cycle named by ``wanted`` (see ``match_cycle_id``); ``None`` means the last
    undoable one.

    The last undoable cycle is the newest that is not an undo and not undone,
    so repeated ``acecode undo`` walks back through history.
    """
    if wanted is None:
        for cycle in reversed(cycles):
            if cycle.undoes is None and cycle.undone_by is None:
                return cycle
        raise HistoryError("nothing to undo: the history journal has no undoable cycle")
    chosen = match_cycle_id([cycle.cycle_id for cycle in cycles], wanted)
    return next(cycle for cycle in cycles if cycle.cycle_id == chosen)


def get_cycle(playbook_path: Where, wanted: str | None = None) -> Cycle:
    """One cycle with its changes (see ``find_cycle`` for ``wanted``)."""
    cycle = find_cycle(list_cycles(playbook_path), wanted)
    cycle.changes = changes_of(playbook_path, [cycle.seq])[cycle.seq]
    return cycle


# Below SQLite's oldest limit on the parameters of one statement (999).
_SEQS_PER_QUERY = 500


def changes_of(playbook_path: Where, seqs: list[int]) -> dict[int, list[EntryChange]]:
    """The entry changes of the cycles numbered ``seqs``, each in the order recorded."""
    found: dict[int, list[EntryChange]] = {seq: [] for seq in seqs}
    if not seqs:
        return found
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return found
        for start in range(0, len(seqs), _SEQS_PER_QUERY):
            chunk = seqs[start : start + _SEQS_PER_QUERY]
            rows = conn.execute(
                f"SELECT seq, {_CHANGE_COLUMNS} FROM changes "
                f"WHERE seq IN ({', '.join('?' * len(chunk))}) ORDER BY rowid",
                chunk,
            ).fetchall()
            for row in rows:
                found[row[0]].append(_change_from_row(row[1:]))
    return found


def entries_added_at(playbook_path: Where) -> dict[str, str]:
    """When each entry ID was last added to ``playbook_path`` (by a cycle, a merge, an
    undo or a restore), as the journal's ISO timestamp; IDs the journal never saw
    added (hand edits, entries older than the journal) are absent."""
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return {}
        rows = conn.execute(
            "SELECT changes.name, MAX(cycles.created_at) FROM changes "
            "JOIN cycles ON cycles.seq = changes.seq "
            "WHERE cycles.playbook = ? AND changes.before_entry IS NULL "
            "AND changes.after_entry IS NOT NULL GROUP BY changes.name",
            (_playbook_name(playbook_path),),
        ).fetchall()
    return {name: created_at for name, created_at in rows}


def entry_changes(
    playbook_path: Where, name: str, after_seq: int = 0
) -> list[tuple[str, EntryChange]]:
    """``(cycle id, change)`` of every cycle after ``after_seq`` that changed entry ``name``,
    oldest first."""
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return []
        rows = conn.execute(
            f"SELECT cycles.cycle_id, {_QUALIFIED_CHANGE_COLUMNS} "
            "FROM changes JOIN cycles ON cycles.seq = changes.seq "
            "WHERE changes.name = ? AND cycles.seq > ? AND cycles.playbook = ? "
            "ORDER BY cycles.seq, changes.rowid",
            (name, after_seq, _playbook_name(playbook_path)),
        ).fetchall()
    return [(row[0], _change_from_row(row[1:])) for row in rows]


def last_removal(playbook_path: Where, name: str) -> tuple[str, EntryChange] | None:
    """The cycle that last removed entry ``name`` and that change, or None."""
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return None
        row = conn.execute(
            f"SELECT cycles.cycle_id, {_QUALIFIED_CHANGE_COLUMNS} "
            "FROM changes JOIN cycles ON cycles.seq = changes.seq "
            "WHERE changes.name = ? AND cycles.playbook = ? "
            "AND changes.after_entry IS NULL AND changes.before_entry IS NOT NULL "
            "ORDER BY cycles.seq DESC LIMIT 1",
            (name, _playbook_name(playbook_path)),
        ).fetchone()
    return None if row is None else (row[0], _change_from_row(row[1:]))


def cycles_with_text(playbook_path: Where, text: str) -> list[tuple[str, str]]:
    """``(entry name, cycle id)`` of every journaled change that left an entry with ``text``.

    Oldest first. Provenance follows an entry through a git merge with it: the
    merge driver may give the entry another ID, but its text is what this
    clone's journal saw.
    """
    with connect(playbook_path, create=False) as conn:
        if conn is None:
            return []
        rows = conn.execute(
            "SELECT changes.name, cycles.cycle_id FROM changes JOIN cycles "
            f"ON cycles.seq = changes.seq WHERE cycles.playbook = ? AND {_AFTER_TEXT} = ? "
            "ORDER BY cycles.seq",
            (_playbook_name(playbook_path), text),
        ).fetchall()
    return [(name, cycle_id) for name, cycle_id in rows]
