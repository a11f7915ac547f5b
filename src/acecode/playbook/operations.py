"""Curator operations ADD, UPDATE, MERGE, DELETE (REQ-CUR-002..009, 013, 014).

Operations run in list order, each seeing the state the previous ones left;
at most ``MAX_OPERATIONS`` are considered; an invalid operation is skipped
with its reason, never raised. Isolation: ``apply_structured_operations``
edits an isolated copy (``schema.isolated_copy``) instead of a deep copy, and
entries are replaced, never mutated, so the caller's playbook is untouched and
an exception returns it as it was. Every outcome is recorded so the learning
cycle can report what was applied and what was skipped, and why.
"""

from __future__ import annotations

import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from acecode import events
from acecode.playbook.schema import (
    SECTION_NAMES,
    SECTION_SLUGS,
    _resolve_section,
    format_keypoint_name,
    isolated_copy,
    match_section,
    max_slug_numbers,
    new_entry,
)
from acecode.text.redact import redact

MAX_OPERATIONS = 10
OPERATION_TYPES = ("ADD", "UPDATE", "MERGE", "DELETE")


@dataclass
class OperationOutcome:
    """What one operation did: applied or skipped (with the reason)."""

    index: int
    type: str
    applied: bool
    reason: str = ""
    section: str | None = None
    created: dict[str, Any] | None = None
    updated_before: dict[str, Any] | None = None
    updated_after: dict[str, Any] | None = None
    removed: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form for reports and the history journal."""
        return {
            "index": self.index,
            "type": self.type,
            "applied": self.applied,
            "reason": self.reason,
            "section": self.section,
            "created": self.created,
            "updated_before": self.updated_before,
            "updated_after": self.updated_after,
            "removed": [{"section": s, "entry": e} for s, e in self.removed],
        }


def clean_text(value: Any) -> str | None:
    """The text to store for an LLM-given value, or None when it is unusable.

    Must be a non-empty string after stripping; secrets are redacted so a
    key never lands in the playbook, whatever path the text came from.
    """
    if not isinstance(value, str):
        return None
    stripped = value.strip()
    return redact(stripped) if stripped else None


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit]


class _PlaybookIndex:
    """Name and text lookups over a playbook being edited, kept in step with it."""

    def __init__(self, playbook: dict[str, Any], name_prefix: str = "") -> None:
        self.name_prefix = name_prefix
        self.sections: dict[str, list[dict[str, Any]]] = playbook["sections"]
        self.section_of: dict[str, str] = {
            entry["name"]: section for section in SECTION_NAMES for entry in self.sections[section]
        }
        all_entries = [e for section in SECTION_NAMES for e in self.sections[section]]
        self.texts: Counter[str] = Counter(entry["text"] for entry in all_entries)
        # Counted once over the whole playbook, so no name is ever handed out twice.
        self.next_number: dict[str, int] = {
            slug: highest + 1
            for slug, highest in max_slug_numbers(all_entries, name_prefix).items()
        }

    def find(self, name: Any) -> tuple[str, dict[str, Any]] | None:
        if not isinstance(name, str) or name not in self.section_of:
            return None
        section = self.section_of[name]
        for entry in self.sections[section]:
            if entry["name"] == name:
                return section, entry
        return None

    def append(self, section: str, text: str, helpful: int = 0, harmful: int = 0) -> dict:
        slug = SECTION_SLUGS[section]
        name = format_keypoint_name(self.name_prefix + slug, self.next_number[slug])
        self.next_number[slug] += 1
        entry = new_entry(name, text, helpful, harmful)
        self.sections[section].append(entry)
        self.section_of[name] = section
        self.texts[text] += 1
        return entry

    def remove(self, name: str) -> tuple[str, dict[str, Any]]:
        section = self.section_of.pop(name)
        entries = self.sections[section]
        for position, entry in enumerate(entries):
            if entry["name"] == name:
                del entries[position]
                self.texts[entry["text"]] -= 1
                return section, entry
        raise KeyError(name)

    def replace_text(self, name: str, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
        section = self.section_of[name]
        entries = self.sections[section]
        for position, entry in enumerate(entries):
            if entry["name"] == name:
                updated = {**entry, "text": text}
                entries[position] = updated
                self.texts[entry["text"]] -= 1
                self.texts[text] += 1
                return entry, updated
        raise KeyError(name)


def _nonexistent(op_type: str, name: Any) -> None:
    events.warning(f"{op_type} references non-existent ID {name!r}; skipped")
    events.diagnostic("curator_nonexistent_id", f"{op_type} references non-existent ID: {name!r}")


def _apply_add(index: _PlaybookIndex, op: dict[str, Any], outcome: OperationOutcome) -> None:
    text = clean_text(op.get("text"))
    if text is None:
        outcome.reason = "empty or missing text"
        return
    section = _resolve_section(op.get("section"))
    if index.texts[text] > 0:
        outcome.reason = f"duplicate text {_short(text, 40)!r}"
        return
    outcome.created = index.append(section, text)
    outcome.section = section
    outcome.applied = True


def _apply_update(index: _PlaybookIndex, op: dict[str, Any], outcome: OperationOutcome) -> None:
    target_id = op.get("target_id")
    text = clean_text(op.get("text"))
    if not isinstance(target_id, str) or not target_id.strip():
        outcome.reason = "empty or missing target_id"
        return
    if text is None:
        outcome.reason = "empty or missing text"
        return
    found = index.find(target_id)
    if found is None:
        _nonexistent("UPDATE", target_id)
        outcome.reason = f"target_id {target_id!r} not found"
        return
    before, after = index.replace_text(target_id, text)
    outcome.section = found[0]
    outcome.updated_before, outcome.updated_after = before, after
    outcome.applied = True
    events.diagnostic(
        "curator_update_audit",
        f'UPDATE applied: target_id={target_id!r}, old="{_short(before["text"])}", '
        f'new="{_short(text)}"',
    )


def _apply_merge(index: _PlaybookIndex, op: dict[str, Any], outcome: OperationOutcome) -> None:
    source_ids = op.get("source_ids")
    merged_text = clean_text(op.get("merged_text"))
    if not isinstance(source_ids, list) or len(source_ids) < 2:
        outcome.reason = "source_ids has fewer than 2 entries"
        return
    if merged_text is None:
        outcome.reason = "empty or missing merged_text"
        return
    valid: list[tuple[str, str, dict[str, Any]]] = []
    for source_id in source_ids:
        found = index.find(source_id)
        if found is None:
            _nonexistent("MERGE", source_id)
        elif all(source_id != name for name, _, _ in valid):
            valid.append((source_id, *found))
    if len(valid) < 2:
        outcome.reason = "fewer than 2 valid source_ids remain after filtering"
        return
    # REQ-CUR-003: an absent, empty or unknown section means the first valid source's.
    section = match_section(op.get("section")) or valid[0][1]
    helpful = sum(entry["helpful"] for _, _, entry in valid)
    harmful = sum(entry["harmful"] for _, _, entry in valid)
    outcome.removed = [index.remove(name) for name, _, _ in valid]
    outcome.created = index.append(section, merged_text, helpful, harmful)
    outcome.section = section
    outcome.applied = True


def _apply_delete(index: _PlaybookIndex, op: dict[str, Any], outcome: OperationOutcome) -> None:
    target_id = op.get("target_id")
    if not isinstance(target_id, str) or not target_id.strip():
        outcome.reason = "empty or missing target_id"
        return
    if index.find(target_id) is None:
        _nonexistent("DELETE", target_id)
        outcome.reason = f"target_id {target_id!r} not found"
        return
    section, entry = index.remove(target_id)
    outcome.removed = [(section, entry)]
    outcome.section = section
    outcome.applied = True
    events.diagnostic(
        "curator_delete_audit",
        f'DELETE applied: target_id={target_id!r}, text="{_short(entry["text"])}", '
        f"reason={op.get('reason', '')!r}",
    )


_HANDLERS = {
    "ADD": _apply_add,
    "UPDATE": _apply_update,
    "MERGE": _apply_merge,
    "DELETE": _apply_delete,
}


def _summarise(outcomes: list[OperationOutcome]) -> str:
    lines = ["Curator operations summary:"]
    for op_type in (*OPERATION_TYPES, "unknown"):
        mine = [o for o in outcomes if o.type == op_type]
        applied = sum(o.applied for o in mine)
        lines.append(f"  {op_type}: {applied} applied, {len(mine) - applied} skipped")
    reasons = [f"    - #{o.index} {o.type}: {o.reason}" for o in outcomes if not o.applied]
    if reasons:
        lines += ["  Skip reasons:", *reasons]
    return "\n".join(lines)


def _apply_curator_operations(
    playbook: dict[str, Any],
    operations: list[Any],
    outcomes: list[OperationOutcome] | None = None,
    name_prefix: str = "",
    limit: int = MAX_OPERATIONS,
) -> dict[str, Any]:
    """Apply ``operations`` to ``playbook`` in place and return it.

    The caller passes an isolated copy. ``outcomes``, when given, receives one
    record per processed operation. New entries are named
    ``{name_prefix}{slug}-NNN`` (``u-`` in the user layer). At most ``limit``
    operations are applied.
    """
    if len(operations) > limit:
        events.diagnostic(
            "curator_ops_truncated",
            f"Operations list truncated from {len(operations)} to {limit}",
        )
        operations = operations[:limit]
    records = outcomes if outcomes is not None else []
    index = _PlaybookIndex(playbook, name_prefix)
    for position, op in enumerate(operations):
        op_type = op.get("type", "") if isinstance(op, dict) else ""
        handler = _HANDLERS.get(op_type) if isinstance(op_type, str) else None
        if handler is None:
            label = op_type if isinstance(op_type, str) else repr(op_type)
            records.append(
                OperationOutcome(position, "unknown", False, f"unknown operation type {label!r}")
            )
            continue
        outcome = OperationOutcome(position, op_type, False)
        handler(index, op, outcome)
        records.append(outcome)
    events.diagnostic("curator_ops_summary", _summarise(records))
    return playbook


def apply_operations_with_outcomes(
    playbook: dict[str, Any], operations: Any, name_prefix: str = "", limit: int = MAX_OPERATIONS
) -> tuple[dict[str, Any], list[OperationOutcome]]:
    """Isolated, all-or-nothing application that also returns each outcome.

    An empty or non-list ``operations`` returns ``playbook`` itself. On an
    unexpected exception the original playbook is returned with no outcomes.
    ``name_prefix`` is the layer's (``""`` for a project, ``u-`` for the user);
    ``limit`` the most operations applied (a cycle that also lands the texts an
    earlier review could not pass allows one more for each of them).
    """
    if not isinstance(operations, list) or not operations:
        return playbook, []
    outcomes: list[OperationOutcome] = []
    try:
        result = _apply_curator_operations(
            isolated_copy(playbook), operations, outcomes, name_prefix, limit
        )
    except Exception:
        events.warning("applying curator operations failed; playbook left unchanged")
        events.diagnostic(
            "curator_ops_rollback",
            f"Operations rollback due to exception:\n{traceback.format_exc()}",
        )
        return playbook, []
    return result, outcomes


def apply_structured_operations(playbook: dict[str, Any], operations: list[Any]) -> dict[str, Any]:
    """Apply curator operations without touching the caller's playbook (REQ-CUR-014)."""
    return apply_operations_with_outcomes(playbook, operations)[0]
