"""Quarantine: screen learned texts before they reach the playbook, queue the doubtful ones.

``screen_text`` is the deterministic floor (``floor``: what is dangerous
whatever the wording, read by ``reading`` with negation and scope);
``unreviewed`` says which texts it passed must still wait when no LLM safety
review passed them (``sensitive`` classes, what the ``learned`` screen
scores as dangerous, a ``language`` the user does not write in, learned by
``user_languages``). ``triage_operations`` splits a
curator's operations into applied, queued and dropped, with the safety
review's flags (``pipeline.safety_step``) on top of the floor's, and
``needs_review`` does the same for a text a person wrote. The ``queue``
module keeps the texts a human must approve or reject (``acecode review``).
See ``docs/quarantine.md``.
"""

from acecode._lazy import lazy_exports

# Lazy (PEP 562): a hook that screens a text imports the floor, not the queue and store.
_EXPORTS: dict[str, str] = {
    "REVIEW_ALL_RULE": "acecode.quarantine.gate",
    "Triage": "acecode.quarantine.gate",
    "needs_review": "acecode.quarantine.gate",
    "triage_operations": "acecode.quarantine.gate",
    "Approval": "acecode.quarantine.queue",
    "PendingItem": "acecode.quarantine.queue",
    "QueueError": "acecode.quarantine.queue",
    "approve": "acecode.quarantine.queue",
    "is_rejected": "acecode.quarantine.queue",
    "list_pending": "acecode.quarantine.queue",
    "queue_path": "acecode.quarantine.queue",
    "queue_text": "acecode.quarantine.queue",
    "reject": "acecode.quarantine.queue",
    "RULE_IDS": "acecode.quarantine.screen",
    "Verdict": "acecode.quarantine.screen",
    "screen_text": "acecode.quarantine.screen",
    "unreviewed_reason": "acecode.quarantine.unreviewed",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports("acecode.quarantine", globals(), _EXPORTS)
