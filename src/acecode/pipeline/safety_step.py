"""The cycle's LLM safety review: a second opinion on the texts the screen let through.

One batched call per cycle (``roles.safety_review``) classifies every ADD,
UPDATE and MERGE text that passed the deterministic screen; what it flags is
held for review with its reason (``quarantine.gate`` applies the flags). If
the call fails or cannot be read, the screen alone decides: its holds stand,
and nothing else is held because of the failure. If the call is refused
before it is sent (the budget could not reserve for it,
:mod:`acecode.cost.gate`), no text went unreviewed by choice: every one is
held for review, with that reason. With nothing to review no call is made.
The call's tokens go into the cycle's token ledger under the role's name.
"""

from __future__ import annotations

from typing import Any, Protocol

from acecode.config import Settings
from acecode.quarantine.gate import operation_text
from acecode.quarantine.normalize import text_key
from acecode.quarantine.screen import floor_verdict


class _Report(Protocol):
    tokens: dict[str, Any]
    warnings: list[str]


def texts_to_review(operations: list[Any], settings: Settings) -> list[str]:
    """The distinct proposed texts the screen did not hold, in proposal order."""
    texts: dict[str, str] = {}
    for op in operations:
        text = operation_text(op)
        if text is not None and not floor_verdict(text, settings).flagged:
            texts.setdefault(text_key(text), text)
    return list(texts.values())


async def safety_flags(
    operations: list[Any], settings: Settings, report: _Report
) -> dict[str, str]:
    """``{text_key: reason}`` for the texts the safety review flags; ``{}`` when it could not run.

    Adds the call to ``report.tokens`` and, on failure, says in
    ``report.warnings`` that the screen alone decided.
    """
    from acecode.llm import usage
    from acecode.roles.ask import collect_failures
    from acecode.roles.safety_review import run_safety_review

    texts = texts_to_review(operations, settings)
    if not texts:
        return {}
    with usage.track() as ledger, collect_failures() as failures:
        result = await run_safety_review(texts)
    combined = usage.UsageLedger.from_dict(report.tokens)
    combined.calls.extend(ledger.calls)
    report.tokens = combined.to_dict()
    if not result["ok"] and failures and not ledger.calls:  # refused before it was sent
        reason = failures[0].removeprefix("safety_review: ")
        report.warnings.append(f"safety review not made ({reason}): the texts wait for review")
        return {text_key(text): f"not reviewed: {reason}" for text in texts}
    if not result["ok"]:
        report.warnings.append(
            "safety review unavailable: the deterministic screen alone decided this cycle"
        )
        return {}
    return {text_key(texts[index]): reason for index, reason in result["flags"].items()}
