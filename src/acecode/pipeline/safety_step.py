"""The cycle's LLM safety review: the intent of the texts the floor let through.

One batched call per cycle (``roles.safety_review``) reviews every ADD,
UPDATE and MERGE text that passed the deterministic floor. Its flags at or
above ``review_severity`` hold the text for a human with the model's class,
severity and reason; lower flags are only noted in the cycle report. A text
the review answered "safe" (or flagged below the threshold) is *reviewed*:
it may enter the playbook even if it touches a sensitive class or is in a
language the user does not write in. If the call cannot be made or read,
or the reply leaves a text out, that text was not reviewed, and the gate
(``quarantine.gate``) holds it, labelled "not reviewed", until a later
review passes it (``quarantine.waiting``): nothing enters the playbook
unreviewed. With nothing to review no call is made. The call's tokens go
into the cycle's token ledger under the role's name.

The same call also reviews entries of the project playbook that arrived with
the repository and that the review has not seen yet (``acecode.arrivals.safety``):
their verdicts are recorded for the injection, not returned with the cycle's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from acecode.project.config import Settings
from acecode.quarantine.gate import operation_text
from acecode.quarantine.normalize import text_key
from acecode.quarantine.screen import floor_verdict
from acecode.roles.safety_review import SEVERITIES, ReviewVerdict

if TYPE_CHECKING:
    from acecode.project.layer import Layer


class _Report(Protocol):
    tokens: dict[str, Any]
    warnings: list[str]


@dataclass(frozen=True)
class SafetyReview:
    """What the cycle's safety review said about its texts, by ``text_key``.

    ``available`` is False when the review could not be made or read; then
    no text is reviewed. ``threshold`` is the least severity that holds.
    """

    available: bool = False
    verdicts: Mapping[str, ReviewVerdict] = field(default_factory=dict)
    threshold: str = "medium"
    # Why the review could not be made (the provider's or the budget's words), if known.
    failure: str = ""

    def reviewed(self, key: str) -> bool:
        """Did the review answer for the text with this key?"""
        return key in self.verdicts

    def why_not(self, key: str) -> str:
        """Why the text with this key has no verdict, for the queue's detail."""
        if self.reviewed(key):
            return "it was reviewed"
        if self.available:
            return "the review's reply left it out"
        return (
            f"the review could not be made: {self.failure}"
            if self.failure
            else ("the review could not be made")
        )

    def holding(self, key: str) -> ReviewVerdict | None:
        """The flag that holds this text (at or above the threshold), else None."""
        verdict = self.verdicts.get(key)
        return verdict if verdict is not None and verdict.at_least(self.threshold) else None

    def notes(self) -> list[ReviewVerdict]:
        """Flags below the threshold: reported, not held."""
        return [
            verdict
            for verdict in self.verdicts.values()
            if verdict.flagged and not verdict.at_least(self.threshold)
        ]


def review_threshold(settings: Settings) -> str:
    """The configured ``review_severity``; an unknown value warns and falls back to medium."""
    value = settings.review_severity.strip().lower()
    if value in SEVERITIES:
        return value
    from acecode.project.diagnostics import warn

    warn(f"review_severity must be one of {', '.join(SEVERITIES)}, not {value!r}; using medium")
    return "medium"


def texts_to_review(operations: list[Any], settings: Settings) -> list[str]:
    """The distinct proposed texts the floor did not hold, in proposal order."""
    texts: dict[str, str] = {}
    for op in operations:
        text = operation_text(op)
        if text is not None and not floor_verdict(text, settings).flagged:
            texts.setdefault(text_key(text), text)
    return list(texts.values())


async def safety_review(
    operations: list[Any],
    settings: Settings,
    report: _Report,
    arrivals_of: Layer | None = None,
    playbook: dict[str, Any] | None = None,
) -> SafetyReview:
    """Review the cycle's texts (one call); an unavailable ``SafetyReview`` when it failed.

    Adds the call to ``report.tokens`` and, on failure, says in
    ``report.warnings`` why and that nothing was reviewed. ``arrivals_of`` (the
    project's layer; None in a dry run) adds its arrived entries to the call, from
    ``playbook`` (the cycle's snapshot of it; None: read now).
    """
    from acecode.arrivals.safety import arrivals_to_review
    from acecode.llm import usage
    from acecode.roles.ask import collect_failures
    from acecode.roles.safety_review import run_safety_review

    threshold = review_threshold(settings)
    texts = texts_to_review(operations, settings)
    arrivals = (
        arrivals_to_review(arrivals_of, settings, playbook) if arrivals_of is not None else []
    )
    arrivals = _fitting(texts, arrivals)
    if not texts and not arrivals:
        return SafetyReview(True, {}, threshold)
    with usage.track() as ledger, collect_failures() as failures:
        result = await run_safety_review([*texts, *(arrival.text for arrival in arrivals)])
    combined = usage.UsageLedger.from_dict(report.tokens)
    combined.calls.extend(ledger.calls)
    report.tokens = combined.to_dict()
    if not result["ok"]:
        why = f" ({'; '.join(failures)})" if failures else ""
        report.warnings.append(
            f"safety review unavailable{why}: the new texts wait in the review queue as not "
            "reviewed until a review passes them (the next cycle, or `acecode review --retry`)"
        )
        return SafetyReview(False, {}, threshold, "; ".join(failures))
    answered: dict[int, ReviewVerdict] = result["verdicts"]
    if arrivals and arrivals_of is not None:
        _record_arrivals(arrivals_of, arrivals, answered, len(texts), threshold, report)
    verdicts = {
        text_key(texts[index]): verdict for index, verdict in answered.items() if index < len(texts)
    }
    return SafetyReview(True, verdicts, threshold)


def _fitting(texts: list[str], arrivals: list[Any]) -> list[Any]:
    """The arrived entries that fit with ``texts`` in what the cycle holds for the review
    (the cycle's own texts are planned for; arrived ones ride in what is left, the rest
    wait for a later cycle)."""
    from acecode.cost.gate import fits
    from acecode.roles.safety_review import review_request

    kept = list(arrivals)
    while kept and not fits("safety_review", review_request([*texts, *(a.text for a in kept)])):
        kept.pop()
    return kept


def _record_arrivals(
    playbook: Layer,
    arrivals: list[Any],
    answered: Mapping[int, ReviewVerdict],
    offset: int,
    threshold: str,
    report: _Report,
) -> None:
    """Record the review's verdicts on the arrived entries (after the ``offset`` proposed
    texts in the call) and say in the report when it holds entries the floor let through."""
    from acecode.arrivals.safety import record_reviews

    mine = {index - offset: verdict for index, verdict in answered.items() if index >= offset}
    newly_held = record_reviews(playbook, arrivals, mine, threshold)
    if newly_held:
        report.warnings.append(
            f"the safety review flagged {newly_held} entr{'y' if newly_held == 1 else 'ies'} "
            "that arrived with the repository; held from the next session on (`acecode review`)"
        )
