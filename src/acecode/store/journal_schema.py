"""The history journal's schema: its tables and indexes as named, ordered migrations.

A journal at version N (SQLite's ``user_version``) has had the first N steps;
each step is recorded in ``schema_migrations``. Append steps, never reorder them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from acecode.store.errors import PlaybookError


class HistoryError(PlaybookError):
    """An undo or restore that cannot be done as asked, or an unusable journal; one line."""


def _create_cycles_and_changes(conn: sqlite3.Connection) -> None:
    """Version 1: one row per saved change (cycle) and one per touched entry."""
    conn.execute(
        """CREATE TABLE IF NOT EXISTS cycles (
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
        )"""
    )
    conn.execute(
        """CREATE TABLE IF NOT EXISTS changes (
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
        )"""
    )
    conn.execute("CREATE INDEX IF NOT EXISTS changes_by_name ON changes(name)")
    conn.execute("CREATE INDEX IF NOT EXISTS changes_by_seq ON changes(seq)")


_AFTER_TEXT = "json_extract(after_entry, '$.text')"


def _index_playbook_and_texts(conn: sqlite3.Connection) -> None:
    """Version 2: every query filters cycles by playbook; provenance looks texts up
    (:func:`cycles_with_text`), which without an index reads every change ever saved."""
    conn.execute("CREATE INDEX IF NOT EXISTS cycles_by_playbook ON cycles(playbook, seq)")
    conn.execute(f"CREATE INDEX IF NOT EXISTS changes_by_after_text ON changes({_AFTER_TEXT})")


Migration = Callable[[sqlite3.Connection], None]
# Ordered: the journal at version N has had the first N steps. Append, never reorder.
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("create_cycles_and_changes", _create_cycles_and_changes),
    ("index_playbook_and_texts", _index_playbook_and_texts),
)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    """The journal's schema version (SQLite's ``user_version``; 0 for a new file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: Path) -> list[str]:
    """Bring the journal to ``SCHEMA_VERSION``; returns the names of the steps run.

    Raises ``HistoryError`` for a journal written by a newer acecode.
    """
    if schema_version(conn) == SCHEMA_VERSION:
        return []
    conn.isolation_level = None  # the transaction below is managed by hand
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(conn)  # another process may have migrated meanwhile
            if current > SCHEMA_VERSION:
                raise HistoryError(
                    f"history journal {target} has schema version {current}, newer than this "
                    f"acecode's {SCHEMA_VERSION}; upgrade acecode to use it"
                )
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            ran = []
            for version, (name, step) in enumerate(MIGRATIONS[current:], start=current + 1):
                step(conn)
                conn.execute(
                    "INSERT OR REPLACE INTO schema_migrations VALUES (?, ?, ?)",
                    (version, name, datetime.now().astimezone().isoformat(timespec="seconds")),
                )
                ran.append(name)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.isolation_level = ""
    return ran
