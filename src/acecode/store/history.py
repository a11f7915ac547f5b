"""The history journal's public names, for callers that import them from one place.

The journal is three modules with one job each: :mod:`acecode.store.diff`
(what changed between two playbooks, and the counts; pure),
:mod:`acecode.store.journal` (the SQLite journal and its named schema
migrations) and :mod:`acecode.store.undo` (undo and restore). The names
below were this module's before the split and stay importable from here.
"""

from __future__ import annotations

from acecode.store.diff import (
    REMOVAL_CAUSE_COUNTS,
    EntryChange,
    annotate_removals,
    count_changes,
    diff_playbooks,
    removals_from_meta,
)
from acecode.store.journal import (
    JOURNAL_NAME,
    Cycle,
    HistoryError,
    find_cycle,
    get_cycle,
    journal_path,
    journal_saved_change,
    list_cycles,
    new_cycle_id,
    record_cycle,
    short_id,
)
from acecode.store.journal_schema import SCHEMA_VERSION
from acecode.store.undo import (
    EntryUndoResult,
    RestoreResult,
    UndoResult,
    restore_entry,
    undo_cycle,
    undo_entry,
)

__all__ = [
    "JOURNAL_NAME",
    "REMOVAL_CAUSE_COUNTS",
    "SCHEMA_VERSION",
    "Cycle",
    "EntryChange",
    "EntryUndoResult",
    "HistoryError",
    "RestoreResult",
    "UndoResult",
    "annotate_removals",
    "count_changes",
    "diff_playbooks",
    "find_cycle",
    "get_cycle",
    "journal_path",
    "journal_saved_change",
    "list_cycles",
    "new_cycle_id",
    "record_cycle",
    "removals_from_meta",
    "restore_entry",
    "short_id",
    "undo_cycle",
    "undo_entry",
]
