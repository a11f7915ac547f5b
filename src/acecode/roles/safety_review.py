"""The safety review: an LLM second opinion on the texts the screen let through.

The deterministic screen (``acecode.quarantine.screen``) catches dangerous
rules by class, but a pattern cannot understand intent. This role sends all
of a cycle's proposed texts in one call, with a strict template
(``safety_review.txt``, overridable like every template), and returns the
ones the model flags with its reason.

Returns ``{"ok": True, "flags": {index: reason}}`` where ``index`` is a
position in the list it was given; ``{"ok": False, "flags": {}}`` when there
was no usable answer (no provider, a failed call, a reply without the
``verdicts`` list). It never raises. A text missing from the answer has no
verdict, so the screen alone decides for it.
"""

from __future__ import annotations

import json
from typing import Any

from acecode.roles.ask import as_text, ask_json, dict_items, never_raises

ROLE = "safety_review"
DEFAULT_REASON = "flagged by the safety review"
MAX_REASON_CHARS = 200
# One verdict per text: about 12 tokens "safe", up to about 40 with a reason. A reply
# cut off here is asked again once with more room (acecode.llm.client.complete).
TOKENS_PER_TEXT = 40
MIN_REPLY_TOKENS = 48


def reply_tokens(texts: int) -> int:
    """The safety review's ``max_tokens`` for ``texts`` texts."""
    return MIN_REPLY_TOKENS + TOKENS_PER_TEXT * texts


def empty_review() -> dict[str, Any]:
    """The result when the review could not be done: the screen alone decides."""
    return {"ok": False, "flags": {}}


def _reason(verdict: dict[str, Any]) -> str:
    reason = " ".join(as_text(verdict.get("reason")).split())
    return reason[:MAX_REASON_CHARS] or DEFAULT_REASON


def parse_verdicts(data: dict[str, Any], count: int) -> dict[int, str]:
    """``{index: reason}`` for the flagged ids of a reply about ``count`` texts (ids 1..count).

    Raises ``ValueError`` when the reply has no ``verdicts`` list: an answer
    that cannot be read must not pass for "nothing flagged".
    """
    verdicts = data.get("verdicts")
    if not isinstance(verdicts, list):
        raise ValueError("the reply has no 'verdicts' list")
    flags: dict[int, str] = {}
    for verdict in dict_items(verdicts):
        identifier = verdict.get("id")
        if isinstance(identifier, str) and identifier.strip().isdigit():
            identifier = int(identifier)
        if not isinstance(identifier, int) or isinstance(identifier, bool):
            continue
        if not 1 <= identifier <= count:
            continue
        if as_text(verdict.get("verdict")).strip().lower() == "flag":
            flags[identifier - 1] = _reason(verdict)
    return flags


@never_raises(ROLE, empty_review)
async def run_safety_review(texts: list[str]) -> dict[str, Any]:
    """Classify ``texts`` in one call; never raises. No texts, no call."""
    if not texts:
        return {"ok": True, "flags": {}}
    items = [{"id": number, "text": text} for number, text in enumerate(texts, start=1)]
    data = await ask_json(
        role=ROLE,
        template="safety_review.txt",
        fields={"texts": json.dumps(items, indent=2, ensure_ascii=False)},
        diagnostic_name=ROLE,
        max_tokens=reply_tokens(len(texts)),
    )
    return {"ok": True, "flags": parse_verdicts(data, len(texts))}
