"""The gate the learning cycle puts in front of the playbook.

``needs_review`` answers for one text: the screen's verdict, or the
``review: all`` setting's. ``triage_operations`` applies it to a curator's
operation list, together with the LLM safety review's flags: texts that pass
go on to be applied, flagged ones go to the review queue, and texts a
reviewer already rejected are dropped. It fails closed: a text that cannot be
queued is dropped, never applied. A dry run goes through the very same
triage and only skips writing the queue, so it cannot disagree with a real
run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.config import Settings
from acecode.diagnostics import warn
from acecode.playbook.operations import clean_text
from acecode.playbook.schema import iter_entries
from acecode.quarantine.normalize import text_key
from acecode.quarantine.queue import (
    PendingItem,
    QueueError,
    pending_item,
    queue_text,
    rejected_keys,
)
from acecode.quarantine.screen import Verdict, floor_verdict

REVIEW_ALL_RULE = "review:all"
# The rule under which texts flagged by the LLM safety review are held.
SAFETY_REVIEW_RULE = "safety-review"
# The key holding each screened operation's text.
TEXT_FIELDS = {"ADD": "text", "UPDATE": "text", "MERGE": "merged_text"}


def needs_review(text: str, settings: Settings) -> Verdict | None:
    """Why ``text`` must wait for a human, or None when it may enter the playbook now.

    The screen runs first so a dangerous text keeps its telling rule even
    under ``review: all``; with ``review = "all"`` every other text is held
    too, under the rule ``review:all``.
    """
    verdict = floor_verdict(text, settings)
    if verdict.flagged:
        return verdict
    if settings.review.strip().lower() == "all":
        return Verdict(True, REVIEW_ALL_RULE, "review = all: every new text waits for a human")
    return None


@dataclass
class Triage:
    """The split of one operation list.

    ``allowed`` keeps the original order and includes DELETE and malformed
    operations untouched (the operation validator reports those);
    ``dropped`` pairs an operation with the reason it was not applied.
    """

    allowed: list[Any] = field(default_factory=list)
    queued: list[PendingItem] = field(default_factory=list)
    dropped: list[tuple[dict[str, Any], str]] = field(default_factory=list)


def operation_text(op: Any) -> str | None:
    """The cleaned (redacted) text an ADD, UPDATE or MERGE would store, else None."""
    op_type = op.get("type") if isinstance(op, dict) else None
    text_field = TEXT_FIELDS.get(op_type) if isinstance(op_type, str) else None
    return clean_text(op.get(text_field)) if text_field else None


def _with_safety_flag(
    verdict: Verdict | None, key: str, flagged: Mapping[str, str]
) -> Verdict | None:
    """The floor's verdict, or the safety review's where the floor did not hold the text.

    A floor hold is never released and keeps its telling rule; a flag turns a
    pass (or a mere ``review: all`` hold) into a hold with the model's reason.
    """
    if key not in flagged or (verdict is not None and verdict.rule != REVIEW_ALL_RULE):
        return verdict
    return Verdict(True, SAFETY_REVIEW_RULE, flagged[key])


def _section_of(playbook: dict[str, Any] | None, name: Any) -> str | None:
    if playbook is None or not isinstance(name, str):
        return None
    for section, entry in iter_entries(playbook):
        if entry.get("name") == name:
            return section
    return None


def _targets(op: dict[str, Any]) -> list[str]:
    if op["type"] == "UPDATE":
        target = op.get("target_id")
        return [target] if isinstance(target, str) else []
    sources = op.get("source_ids")
    return [s for s in sources if isinstance(s, str)] if isinstance(sources, list) else []


def triage_operations(
    operations: list[Any],
    settings: Settings,
    *,
    playbook: dict[str, Any] | None = None,
    playbook_path: str | Path | None = None,
    session: str | None = None,
    transcript: str | None = None,
    flagged: Mapping[str, str] | None = None,
    dry_run: bool = False,
) -> Triage:
    """Screen every ADD/UPDATE/MERGE text of ``operations`` and queue the flagged ones.

    ``playbook`` (the current one) lets a queued UPDATE/MERGE remember the
    section of its target, so approving it later as an ADD lands it in the
    right place. ``flagged`` maps ``text_key`` of a text to the reason the
    LLM safety review gave for holding it. With ``dry_run`` nothing is
    written: ``queued`` holds the items a real run would queue. Call this
    before entering ``update_playbook``; it takes only the queue's lock.
    """
    flagged = flagged or {}
    result = Triage()
    try:
        rejected = rejected_keys(playbook_path)
    except QueueError as exc:
        warn(f"review queue unreadable ({exc}); holding back every new text")
        rejected = None
    for op in operations:
        cleaned = operation_text(op)
        if cleaned is None:
            result.allowed.append(op)
            continue
        if rejected is None:
            result.dropped.append((op, "review queue unreadable"))
            continue
        key = text_key(cleaned)
        if key in rejected:
            result.dropped.append((op, "rejected earlier in review"))
            continue
        verdict = _with_safety_flag(needs_review(cleaned, settings), key, flagged)
        if verdict is None:
            result.allowed.append(op)
            continue
        targets = _targets(op)
        section = op.get("section") or (_section_of(playbook, targets[0]) if targets else None)
        details: dict[str, Any] = {
            "rule": verdict.rule,
            "detail": verdict.detail,
            "section": section,
            "operation": op["type"],
            "target_ids": targets,
            "session": session,
            "transcript": transcript,
        }
        try:
            if dry_run:
                item: PendingItem | None = pending_item(cleaned, **details)
            else:
                item = queue_text(cleaned, playbook=playbook_path, **details)
        except QueueError as exc:
            warn(f"could not queue a flagged text for review ({exc}); it was dropped")
            result.dropped.append((op, f"flagged ({verdict.rule}) and could not be queued"))
            continue
        if item is None:
            result.dropped.append((op, "rejected earlier in review"))
        else:
            result.queued.append(item)
    return result
