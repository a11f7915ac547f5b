"""Quarantine: screen learned texts before they reach the playbook, queue the doubtful ones.

``screen_text`` is the deterministic screen, ``needs_review`` applies the
user's ``review`` setting on top of it and ``triage_operations`` splits a
curator's operations into applied, queued and dropped, with the LLM safety
review's flags (``pipeline.safety_step``) on top of the screen's. The ``queue`` module
keeps the texts a human must approve or reject (``acecode review``).
See ``docs/quarantine.md``.
"""

from acecode.quarantine.gate import REVIEW_ALL_RULE, Triage, needs_review, triage_operations
from acecode.quarantine.queue import (
    Approval,
    PendingItem,
    QueueError,
    approve,
    is_rejected,
    list_pending,
    queue_path,
    queue_text,
    reject,
)
from acecode.quarantine.screen import RULE_IDS, Verdict, screen_text

__all__ = [
    "REVIEW_ALL_RULE",
    "RULE_IDS",
    "Approval",
    "PendingItem",
    "QueueError",
    "Triage",
    "Verdict",
    "approve",
    "is_rejected",
    "list_pending",
    "needs_review",
    "queue_path",
    "queue_text",
    "reject",
    "screen_text",
    "triage_operations",
]
