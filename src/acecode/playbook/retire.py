"""Retire candidates: entries that no recent learned session cited or tagged.

An entry earns its place by bearing on sessions: the agent cites it
(``[pat-001]``) or the reflector tags it helpful, harmful or neutral. An
entry that none of the last ``sessions`` learned sessions cited or tagged is
a candidate to retire. The curator is offered a few of them for UPDATE or
DELETE (it decides; nothing is removed here), and ``acecode impact`` can
report them to the user.

The evidence is acecode's own cycle records (``cycles.jsonl``, see
:mod:`acecode.project.outcomes`): every learned cycle records the IDs the session
cited (``cited_ids``) and the IDs the reflector tagged (``tagged_ids``).
Records written before those fields existed are not evidence either way,
so until ``sessions`` recorded cycles exist there are no candidates. An
entry added during the window (``added_at``, from the history journal) has
not had its chance yet and is not a candidate; neither is a pinned entry.

Pure: plain dicts in, a list out, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from acecode.playbook.ranking import ranked_entries

LEARNED_STATUSES = ("ok", "nothing-new")


@dataclass(frozen=True)
class RetireCandidate:
    """An entry no recent session used: where it is, and how many sessions were looked at."""

    section: str
    name: str
    sessions: int

    def note(self) -> str:
        """One line for people and for the curator's list."""
        return f"not cited or tagged in the last {self.sessions} learned sessions"


def usage_records(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The learned cycles that recorded which entries were cited and tagged, oldest first."""
    return [
        record
        for record in records
        if record.get("status") in LEARNED_STATUSES
        and isinstance(record.get("cited_ids"), list)
        and isinstance(record.get("tagged_ids"), list)
    ]


def used_names(records: Sequence[Mapping[str, Any]]) -> set[str]:
    """Every entry ID the ``records`` say was cited or tagged."""
    return {
        str(name)
        for record in records
        for name in (*record.get("cited_ids", ()), *record.get("tagged_ids", ()))
    }


def _when(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.astimezone()


def retire_candidates(
    playbook: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    sessions: int,
    added_at: Mapping[str, str] | None = None,
    pinned: Set[str] = frozenset(),
) -> list[RetireCandidate]:
    """Entries of ``playbook`` not cited or tagged in the last ``sessions`` learned cycles.

    ``records`` are cycle records, oldest first (``outcomes.read_outcomes``);
    ``added_at`` maps an entry ID to when it was last added (history journal),
    an ID missing there being older than any record. Worst-ranked first
    (:mod:`acecode.playbook.ranking`): the entries with the least evidence
    for them lead. ``[]`` when ``sessions`` is 0 or fewer learned cycles
    recorded their usage.
    """
    usable = usage_records(records)
    if sessions <= 0 or len(usable) < sessions:
        return []
    window = usable[-sessions:]
    used = used_names(window)
    start = _when(window[0].get("started_at"))
    added = added_at or {}
    candidates = []
    for item in reversed(ranked_entries(playbook.get("sections") or {}, pinned)):
        name = item.entry["name"]
        if name in used or name in pinned:
            continue
        since = _when(added[name]) if name in added else None
        if since is not None and (start is None or since >= start):
            continue
        candidates.append(RetireCandidate(item.section, name, sessions))
    return candidates
