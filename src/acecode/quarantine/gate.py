"""The gate the learning cycle puts in front of the playbook.

``needs_review`` answers for one text a person wrote (``acecode add``): the
floor's verdict, or the ``review: all`` setting's. ``triage_operations``
applies the gate to a curator's operation list, in this order for each text:

1. the floor's finding holds it (whatever the review said);
2. a safety-review flag at or above ``review_severity`` holds it;
3. a text the review answered passes (unless ``review = "all"``);
4. a text nobody reviewed (no provider, a failed call, an unreadable reply, a
   text the reply left out, a review the budget refused) never enters the
   playbook: it waits in the queue as "not reviewed", under the rule that
   says most about it (a sensitive class, the learned screen, a language the
   user does not write in: ``unreviewed``), else under the plain
   ``not-reviewed`` rule. The next cycle's review, or ``acecode review
   --retry``, reviews it again (:mod:`acecode.quarantine.waiting`);
5. ``review = "all"`` holds the rest.

Texts that pass go on to be applied, held ones go to the review queue, and
texts a reviewer already rejected are dropped. It fails closed: a text that
cannot be queued is dropped, never applied. A dry run goes through the very
same triage and only skips writing the queue, so it cannot disagree with a
real run.

An UPDATE held this way leaves its entry's old text in the playbook until a
review passes the new one; a held MERGE leaves its source entries as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.playbook.operations import clean_text
from acecode.playbook.schema import iter_entries
from acecode.project.config import Settings
from acecode.project.diagnostics import warn
from acecode.quarantine.language import DEFAULT_LANGUAGES
from acecode.quarantine.normalize import text_key
from acecode.quarantine.queue import (
    PendingItem,
    QueueError,
    pending_item,
    queue_text,
    rejected_keys,
)
from acecode.quarantine.screen import Verdict, floor_verdict
from acecode.quarantine.unreviewed import NOT_REVIEWED, unreviewed_reason

if TYPE_CHECKING:
    from acecode.pipeline.safety_step import SafetyReview
    from acecode.project.layer import Where

REVIEW_ALL_RULE = "review:all"
# The rule under which texts flagged by the LLM safety review are held.
SAFETY_REVIEW_RULE = "safety-review"
# The key holding each screened operation's text.
TEXT_FIELDS = {"ADD": "text", "UPDATE": "text", "MERGE": "merged_text"}


def needs_review(text: str, settings: Settings) -> Verdict | None:
    """Why a text a person wrote must wait for a human, or None when it may enter now.

    The floor runs first so a dangerous text keeps its telling rule even
    under ``review: all``; with ``review = "all"`` every other text is held
    too, under the rule ``review:all``.
    """
    return gate_verdict(text, settings, None, DEFAULT_LANGUAGES)


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


def gate_verdict(
    text: str,
    settings: Settings,
    review: SafetyReview | None,
    languages: tuple[str, ...],
) -> Verdict | None:
    """Why ``text`` is held (the module doc's order), or None when it may enter.

    ``review`` is None for a text a person wrote: there is nothing to
    review, so nothing is held as "not reviewed".
    """
    verdict = floor_verdict(text, settings)
    if verdict.flagged:
        return verdict
    review_all = settings.review.strip().lower() == "all"
    if review is not None:
        key = text_key(text)
        flag = review.holding(key)
        if flag is not None:
            return Verdict(True, SAFETY_REVIEW_RULE, flag.describe())
        if not review.reviewed(key):
            why = review.why_not(key)
            waiting = unreviewed_reason(text, languages)
            if waiting is not None:
                return Verdict(True, waiting.rule, f"{waiting.detail} ({why})")
            return Verdict(True, NOT_REVIEWED, f"no safety review passed it yet ({why})")
    if review_all:
        return Verdict(True, REVIEW_ALL_RULE, "review = all: every new text waits for a human")
    return None


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
    playbook_path: Where = None,
    session: str | None = None,
    transcript: str | None = None,
    review: SafetyReview | None = None,
    languages: tuple[str, ...] = DEFAULT_LANGUAGES,
    dry_run: bool = False,
) -> Triage:
    """Gate every ADD/UPDATE/MERGE text of ``operations`` and queue the held ones.

    ``playbook`` (the current one) lets a queued UPDATE/MERGE remember the
    section of its target, so approving it later as an ADD lands it in the
    right place. ``review`` is the cycle's safety review (None for texts a
    person wrote); ``languages`` the ones a text may be in without a review
    (``user_languages.trusted_languages``). With ``dry_run`` nothing is
    written: ``queued`` holds the items a real run would queue. Call this
    before entering ``update_playbook``; it takes only the queue's lock.
    """
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
        verdict = gate_verdict(cleaned, settings, review, languages)
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
