"""What changed between two versions of a playbook, entry by entry, and the per-cycle counts.

Pure: no I/O. The history journal stores these changes
(:mod:`acecode.store.journal`), the curation report counts them
(:mod:`acecode.consolidation.report`) and undo reverts them
(:mod:`acecode.store.undo`), so all three agree on what a cycle did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acecode.playbook.schema import SECTION_NAMES

# Which per-cycle count a removal adds to, by cause; an unknown cause counts as
# deleted, an undo of an addition only as removed.
REMOVAL_CAUSE_COUNTS: dict[str, str | None] = {
    "delete": "deleted",
    "prune": "pruned",
    "merge": "merged",
    "dedup": "merged",
    "undo": None,
    "renumber": None,  # a git merge gave the entry another ID: it is still there
    "graduate": None,  # acecode graduate: the rule is in CLAUDE.md or .claude/rules now
}


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


def positions(playbook: dict[str, Any]) -> dict[str, tuple[str, int, dict[str, Any]]]:
    """Every entry by name: ``(section, position in the section, entry)``."""
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
    old, new = positions(before), positions(after)
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
