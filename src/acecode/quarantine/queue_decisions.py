"""A reviewer's decisions on held texts: approve (as held or edited, applied to the playbook
under its lock), reject, and remember a rejection so the same text is not held again.

The queue file is read and written under its lock by :mod:`acecode.quarantine.queue`;
this module decides what a decision does to it and to the playbook.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.playbook.operations import apply_operations_with_outcomes, clean_text
from acecode.playbook.schema import (
    SECTION_SLUGS,
    format_keypoint_name,
    iter_entries,
    max_slug_number,
    new_entry,
)
from acecode.playbook.scoring import should_prune
from acecode.project.config import Settings, load_settings
from acecode.project.layer import Where
from acecode.project.layers import name_prefix_for
from acecode.quarantine.normalize import text_key
from acecode.quarantine.queue import (
    Approval,
    PendingItem,
    QueueError,
    _find,
    _locked,
    _now,
    _read,
    pending_item,
    queue_path,
)
from acecode.quarantine.screen import floor_verdict
from acecode.store import DEFAULT_LOCK_TIMEOUT, update_playbook


def item_operation(item: PendingItem, text: str, playbook: dict[str, Any]) -> dict[str, Any]:
    """The original UPDATE/MERGE while all its targets exist, else an ADD of the text."""
    names = {entry.get("name") for _, entry in iter_entries(playbook)}
    targets_exist = bool(item.target_ids) and all(t in names for t in item.target_ids)
    if item.operation == "UPDATE" and targets_exist:
        return {"type": "UPDATE", "target_id": item.target_ids[0], "text": text}
    if item.operation == "MERGE" and targets_exist and len(item.target_ids) >= 2:
        return {
            "type": "MERGE",
            "source_ids": list(item.target_ids),
            "merged_text": text,
            "section": item.section,
        }
    return {"type": "ADD", "text": text, "section": item.section}


def approve(
    item_id: str,
    edited_text: str | None = None,
    *,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    settings: Settings | None = None,
) -> Approval:
    """Put a pending text (or the reviewer's edit of it) into the playbook and dequeue it.

    An UPDATE or MERGE is applied as proposed when all its target entries
    still exist (the reviewer saw which entries it replaces); otherwise, or
    for an ADD, the text is added to the item's section with a newly
    generated ID, and the next de-duplication pass reconciles any overlap.
    The playbook transaction's ``meta`` records ``kind: "review"``, the
    operation outcome and the item (rule, session, whether it was edited) for
    the history journal.

    An edited text goes through the screen first (``settings``, default: the
    project's): a flagged edit is not approved but replaces the item in the
    queue under the rule that flagged it, and ``QueueError`` says so; the
    reviewer who still wants it approves that item as it stands.
    """
    path = queue_path(playbook)
    item = _find(_read(path), item_id, path)
    text = item.text if edited_text is None else clean_text(edited_text)
    if text is None:
        raise QueueError("the edited text is empty; nothing was approved")
    if edited_text is not None:
        _hold_flagged_edit(item, text, settings or load_settings(), path, lock_timeout)
    with update_playbook(playbook, lock_timeout=lock_timeout) as txn:
        operation = item_operation(item, text, txn.playbook)
        prefix = name_prefix_for(txn.path)
        updated, outcomes = apply_operations_with_outcomes(txn.playbook, [operation], prefix)
        outcome = outcomes[0] if outcomes else None
        if outcome is None or not outcome.applied:
            note = outcome.reason if outcome else "nothing to apply"
            result = Approval(item=item, text=text, applied_as=None, note=note)
        else:
            if outcome.created and outcome.section and item.was:
                outcome.created = _bring_back(
                    updated, outcome.section, outcome.created, item, prefix
                )
            entry = outcome.created or outcome.updated_after
            result = Approval(item, text, outcome.type, outcome.section, entry)
        txn.playbook = updated
        txn.meta.update(
            {
                "kind": "review",
                "source": f"acecode review approve {item.id}",
                "transcript": item.transcript,
                "operations": [record.as_dict() for record in outcomes],
                "review": {
                    "item_id": item.id,
                    "rule": item.rule,
                    "detail": item.detail,
                    "operation": item.operation,
                    "applied_as": result.applied_as,
                    "edited": edited_text is not None,
                    "session": item.session,
                    "transcript": item.transcript,
                    "was": item.was,
                },
            }
        )
    with _locked(path, lock_timeout) as queue:
        queue.pending = [pending for pending in queue.pending if pending.id != item.id]
    return result


def _bring_back(
    playbook: dict[str, Any], section: str, created: dict[str, Any], item: PendingItem, prefix: str
) -> dict[str, Any]:
    """The approved ADD of an entry a git merge deleted, as that entry comes back.

    Under a new ID above the one it had: a new ID is the highest + 1, which
    is its old ID when it was the highest, and the old ID names the deleted
    entry in the history (``acecode restore``, provenance). With the
    counters it had, the evidence of the sessions that rated it (reset to
    0/0, as ``acecode restore`` does, when they would prune it at once).
    """
    slug = prefix + SECTION_SLUGS[section]
    old = max_slug_number([{"name": item.was}], slug)
    new = max_slug_number([created], slug)
    name = created["name"] if new > old else format_keypoint_name(slug, old + 1)
    helpful, harmful = item.counters or (0, 0)
    entry = new_entry(name, created["text"], helpful, harmful)
    if should_prune(entry):
        entry = new_entry(name, created["text"])
    entries = playbook["sections"][section]
    entries[[e["name"] for e in entries].index(created["name"])] = entry
    return entry


def _hold_flagged_edit(
    item: PendingItem, text: str, settings: Settings, path: Path, lock_timeout: float
) -> None:
    """Raise ``QueueError`` after swapping ``item`` for ``text`` when the screen flags ``text``."""
    verdict = floor_verdict(text, settings)
    if not verdict.flagged:
        return
    edited = pending_item(
        text,
        rule=verdict.rule,
        detail=verdict.detail,
        section=item.section,
        operation=item.operation,
        target_ids=item.target_ids,
        session=item.session,
        transcript=item.transcript,
        was=item.was,
        counters=item.counters,
    )
    with _locked(path, lock_timeout) as queue:
        if text_key(edited.text) in queue.rejected:
            raise QueueError(
                f"the edited text was rejected earlier in review ({verdict.rule}); "
                f"{item.id} stays pending as it was"
            )
        queue.pending = [
            pending for pending in queue.pending if pending.id not in (item.id, edited.id)
        ]
        queue.pending.append(edited)
    raise QueueError(
        f"the edited text is held by the screen ({verdict.rule}: {verdict.detail}); "
        f"nothing was approved, and it now waits as {edited.id} in place of {item.id}: "
        f"`acecode review approve {edited.id}` accepts it as written"
    )


def reject(
    item_id: str,
    *,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> PendingItem:
    """Drop a pending text and remember it, so the pipeline never proposes it again."""
    path = queue_path(playbook)
    with _locked(path, lock_timeout) as queue:
        item = _find(queue, item_id, path)
        queue.pending = [pending for pending in queue.pending if pending.id != item.id]
        queue.rejected[text_key(item.text)] = _rejection(item.text, item.rule, item.id)
    return item


def _rejection(text: str, rule: str, item_id: str) -> dict[str, Any]:
    return {"text": text, "rule": rule, "item_id": item_id, "rejected_at": _now()}


def remember_rejection(
    text: str,
    *,
    rule: str,
    item_id: str,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Remember ``text`` as rejected without a pending item (an entry that arrived with
    the repository, rejected in review), so no cycle proposes it again."""
    cleaned = clean_text(text)
    if cleaned is None:
        return
    with _locked(queue_path(playbook), lock_timeout) as queue:
        queue.rejected[text_key(cleaned)] = _rejection(cleaned, rule, item_id)
