"""``acecode review --retry``: review the texts that wait only for a safety review, now.

A learning cycle reviews the waiting texts first anyway
(:mod:`acecode.quarantine.waiting`); this does the same on demand, without a
session to learn from, for a user who does not want to wait for the next
cycle. The texts go to the safety review in calls of
:data:`~acecode.quarantine.waiting.RETRY_CHARS` characters, under the
configured provider and the user's budgets (:mod:`acecode.pipeline.review_job`),
and each call's verdicts are acted on at once:

- a text the review passes (and the floor, after it, still passes) lands in the
  playbook, in a journaled change of kind ``review`` (``acecode history``,
  ``acecode undo``), and leaves the queue;
- a text the review flags, or a finding of the floor, stays queued for a person
  under that rule;
- a text the reply left out keeps waiting.

A call that fails, or that the budget refuses, stops the retry: the texts it did
not reach keep waiting.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from acecode.pipeline.review_job import may_call, review_job
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.project.config import Settings
from acecode.project.layer import Layer, Where
from acecode.quarantine.queue import PendingItem
from acecode.quarantine.waiting import Retry, batch, settle, triage_waiting, waiting_items

SOURCE = "review-retry"


@dataclass
class RetryResult:
    """What ``acecode review --retry`` did: the entries that landed (name, text), the items
    now held for a person (item, rule, detail), those still waiting, and why the retry
    stopped early ("" when every waiting text got a verdict)."""

    landed: list[tuple[str, str]] = field(default_factory=list)
    held: list[tuple[PendingItem, str, str]] = field(default_factory=list)
    still_waiting: list[PendingItem] = field(default_factory=list)
    stopped: str = ""
    reviewed: int = 0


def retry_waiting(playbook: Where = None, settings: Settings | None = None) -> RetryResult:
    """Review the waiting texts of ``playbook``'s queue (see the module docstring). Raises
    ``QueueError`` and ``PlaybookError`` when the queue or the playbook cannot be used."""
    from acecode.project.config import load_settings

    return asyncio.run(_retry(Layer.of(playbook), settings or load_settings()))


async def _retry(layer: Layer, settings: Settings) -> RetryResult:
    from acecode.pipeline.safety_step import safety_review
    from acecode.quarantine.user_languages import trusted_languages
    from acecode.quarantine.waiting import retry_operations
    from acecode.store import load_playbook

    result = RetryResult()
    items = waiting_items(layer)
    if not items:
        return result
    languages = trusted_languages(settings, layer.folder)
    with review_job(SOURCE, layer, settings) as report:
        if not may_call(report):
            result.stopped, result.still_waiting = report.reason, items
            return result
        while items:
            chosen = batch(items)
            items = items[len(chosen) :]
            snapshot = load_playbook(layer)
            review = await safety_review(retry_operations(chosen, snapshot), settings, report)
            retry = triage_waiting(chosen, snapshot, settings, review, languages)
            result.reviewed += len(chosen) - len(retry.still_waiting)
            result.landed += _land(layer, retry, settings)
            settle(layer, retry, landed=True)
            result.held += retry.held
            result.still_waiting += retry.still_waiting
            if not review.available:
                result.stopped = review.failure or "the safety review could not be made"
                result.still_waiting += items
                break
    return result


def _land(layer: Layer, retry: Retry, settings: Settings) -> list[tuple[str, str]]:
    """Apply the texts the review passed to the playbook as it is now, in one journaled
    change; returns the (name, text) of each entry created or updated."""
    from acecode.quarantine.queue_decisions import item_operation
    from acecode.store import update_playbook

    if not retry.landed:
        return []
    with update_playbook(layer, lock_timeout=settings.lock_timeout) as txn:
        operations = [item_operation(item, item.text, txn.playbook) for item, _op in retry.landed]
        updated, outcomes = apply_operations_with_outcomes(
            txn.playbook, operations, layer.name_prefix
        )
        txn.playbook = updated
        txn.meta.update(
            {
                "kind": "review",
                "source": "acecode review --retry",
                "operations": [record.as_dict() for record in outcomes],
                "review": {"retried": [item.id for item, _op in retry.landed]},
            }
        )
    landed: list[tuple[str, str]] = []
    for outcome in outcomes:
        entry: dict[str, Any] | None = outcome.created or outcome.updated_after
        if outcome.applied and entry is not None:
            landed.append((str(entry["name"]), str(entry["text"])))
    return landed
