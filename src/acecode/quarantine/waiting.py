"""Texts that wait in the review queue only for a safety review, and their retry.

A learned text no safety review passed (no provider, a failed call, an
unreadable reply, a text the reply left out, a review the budget refused)
never enters the playbook: the gate (:mod:`acecode.quarantine.gate`) queues it
under a ``not-reviewed`` rule. Such an item is not a finding, only a wait, so
the next learning cycle reviews the waiting texts first, in the same call as
its own texts (:mod:`acecode.pipeline.stages.screen`), and ``acecode review
--retry`` does the same on demand (:mod:`acecode.pipeline.review_retry`):

- the floor, the learned screen and the language rule run first, as for a new
  text, so what they hold keeps (or gets) its own reason;
- a text the review flags at or above ``review_severity`` stays queued under
  ``safety-review`` with the model's class, severity and reason: a person decides;
- a text the review passes lands: its UPDATE or MERGE as proposed when all its
  target entries still exist, else an ADD to its section (as ``acecode review
  approve`` does), and its item leaves the queue once the playbook is saved;
- a text still without a verdict keeps waiting.

Meanwhile an UPDATE leaves the entry's old text in place, and a MERGE its
source entries. Items a person must decide (findings, flags, ``review:all``)
are never retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.playbook.schema import iter_entries
from acecode.project.config import Settings
from acecode.project.layer import Where
from acecode.quarantine.queue import PendingItem, QueueError, list_pending, settle_items
from acecode.quarantine.unreviewed import is_not_reviewed

if TYPE_CHECKING:
    from acecode.pipeline.safety_step import SafetyReview

# Characters of waiting texts one review call carries (each with its JSON item around it,
# like the arrivals'): about forty ordinary rules, about 3,000 input tokens. A cycle
# leaves at most ten texts waiting, so the cycle after an outage of a few cycles reviews
# all of them; a longer outage is caught up over the next cycles (or ``--retry``).
RETRY_CHARS = 12_000
ITEM_CHARS = 40


def waiting_items(where: Where = None) -> list[PendingItem]:
    """Every queued item that waits only for a review, oldest first. Raises ``QueueError``."""
    return [item for item in list_pending(where) if is_not_reviewed(item.rule)]


def count_waiting(where: Where = None) -> tuple[int, int]:
    """``(waiting for a review, held for a person)`` in the queue. Raises ``QueueError``."""
    items = list_pending(where)
    waiting = sum(1 for item in items if is_not_reviewed(item.rule))
    return waiting, len(items) - waiting


def batch(items: Sequence[PendingItem], limit: int = RETRY_CHARS) -> list[PendingItem]:
    """The first ``items`` that fit in ``limit`` characters (at least one)."""
    chosen: list[PendingItem] = []
    used = 0
    for item in items:
        size = len(item.text) + ITEM_CHARS
        if chosen and used + size > limit:
            break
        chosen.append(item)
        used += size
    return chosen


@dataclass
class Retry:
    """What one review did to the waiting items: the ones that ``landed`` (each with the
    operation that applies it), the ones now ``held`` for a person (with the verdict's
    rule and detail), and those ``still_waiting``."""

    landed: list[tuple[PendingItem, dict[str, Any]]] = field(default_factory=list)
    held: list[tuple[PendingItem, str, str]] = field(default_factory=list)
    still_waiting: list[PendingItem] = field(default_factory=list)
    # Items whose text is already in the playbook (a crash after a save): just dequeued.
    present: list[PendingItem] = field(default_factory=list)

    @property
    def operations(self) -> list[dict[str, Any]]:
        """The operations that apply the texts that landed, in queue order."""
        return [operation for _item, operation in self.landed]


def retry_operations(
    items: Sequence[PendingItem], playbook: dict[str, Any]
) -> list[dict[str, Any]]:
    """The operation each item would apply to ``playbook`` now (what the review is asked
    about, and what applies it when passed)."""
    from acecode.quarantine.queue_decisions import item_operation

    return [item_operation(item, item.text, playbook) for item in items]


def triage_waiting(
    items: Sequence[PendingItem],
    playbook: dict[str, Any],
    settings: Settings,
    review: SafetyReview,
    languages: tuple[str, ...],
) -> Retry:
    """Split ``items`` by the gate's verdict under ``review`` (see the module docstring)."""
    from acecode.quarantine.gate import gate_verdict

    present = {entry.get("text") for _section, entry in iter_entries(playbook)}
    result = Retry()
    for item, operation in zip(items, retry_operations(items, playbook), strict=True):
        if item.text in present:
            result.present.append(item)
            continue
        verdict = gate_verdict(item.text, settings, review, languages)
        if verdict is None:
            result.landed.append((item, operation))
        elif is_not_reviewed(verdict.rule):
            result.still_waiting.append(item)
        else:
            result.held.append((item, verdict.rule, verdict.detail))
    return result


def settle(where: Where, retry: Retry, *, landed: bool) -> None:
    """Write what ``retry`` decided into the queue: the items now held get their rule
    (always); the items that landed, and those already present, leave the queue when
    ``landed`` (call it so once the playbook holds them), unless a later step of the cycle
    held the text for a person meanwhile (it contradicts an instruction). Warns instead
    of raising: an item left behind is only reviewed again."""
    gone = [item.id for item in retry.present]
    if landed:
        gone += [item.id for item, _operation in retry.landed]
    rules = {item.id: (rule, detail) for item, rule, detail in retry.held}
    if not gone and not rules:
        return
    try:
        settle_items(
            where, remove=gone, rules=rules, removable=lambda item: is_not_reviewed(item.rule)
        )
    except QueueError as exc:
        from acecode.project.diagnostics import warn

        warn(f"the review queue was not updated after the safety review ({exc})")
