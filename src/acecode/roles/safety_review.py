"""The safety review: an LLM judges the intent of the texts the floor let through.

The floor (``acecode.quarantine.screen``) holds only what is dangerous
whatever the wording; whether a rule makes the agent act against the user's
interest or consent, unasked, is a question of intent. This role sends all
of a cycle's proposed texts in one call, with a calibrated template
(``safety_review.txt``, overridable like every template): it tells "says how
to do X when the user asks" from "does X by default", and each flag carries
a class, a severity and a short reason.

Returns ``{"ok": True, "verdicts": {index: Verdict}}`` where ``index`` is a
position in the list it was given and every text the reply answered has a
verdict (``safe`` or a flag); ``{"ok": False, "verdicts": {}}`` when there
was no usable answer (no provider, a failed call, a reply without the
``verdicts`` list). It never raises. A text missing from the answer has no
verdict: nobody reviewed it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from acecode.roles.ask import as_text, ask, dict_items, never_raises, role_prompt
from acecode.roles.prompt import RolePrompt

ROLE = "safety_review"
DEFAULT_REASON = "flagged by the safety review"
MAX_REASON_CHARS = 200
SEVERITIES = ("low", "medium", "high")
# A flag that names no severity (or an unknown one) holds: an unclear answer is no pass.
DEFAULT_SEVERITY = "high"
OTHER_CLASS = "other"


@dataclass(frozen=True)
class ReviewVerdict:
    """The review's answer for one text: ``flagged`` with class, severity and reason."""

    flagged: bool
    danger_class: str = ""
    severity: str = ""
    reason: str = ""

    def at_least(self, threshold: str) -> bool:
        """Is this a flag at or above ``threshold`` (``low``, ``medium``, ``high``)?"""
        return self.flagged and severity_rank(self.severity) >= severity_rank(threshold)

    def describe(self) -> str:
        """``high, secrets: prints the token`` for the queue and the cycle report."""
        return f"{self.severity}, {self.danger_class}: {self.reason}"


SAFE = ReviewVerdict(False)


def severity_rank(severity: str) -> int:
    """0 for low, 1 for medium, 2 for high; an unknown severity ranks as high."""
    name = severity.strip().lower()
    return SEVERITIES.index(name) if name in SEVERITIES else SEVERITIES.index(DEFAULT_SEVERITY)


# One verdict per text: about 12 tokens "safe", about 40 for a flag with its class,
# severity and reason (real replies: up to 30 tokens a text at 4 characters a token). A
# reply cut here keeps the verdicts it holds whole; a text without one is not reviewed.
TOKENS_PER_TEXT = 48
MIN_REPLY_TOKENS = 48


def reply_tokens(texts: int) -> int:
    """The safety review's ``max_tokens`` for ``texts`` texts."""
    return MIN_REPLY_TOKENS + TOKENS_PER_TEXT * texts


def empty_review() -> dict[str, Any]:
    """The result when the review could not be done: nobody reviewed anything."""
    return {"ok": False, "verdicts": {}}


def _one_line(value: Any, limit: int) -> str:
    return " ".join(as_text(value).split())[:limit]


def _flag(verdict: dict[str, Any]) -> ReviewVerdict:
    severity = _one_line(verdict.get("severity"), 20).lower()
    danger_class = _one_line(verdict.get("class"), 40).lower() or OTHER_CLASS
    return ReviewVerdict(
        flagged=True,
        danger_class=danger_class,
        severity=severity if severity in SEVERITIES else DEFAULT_SEVERITY,
        reason=_one_line(verdict.get("reason"), MAX_REASON_CHARS) or DEFAULT_REASON,
    )


def parse_verdicts(data: dict[str, Any], count: int) -> dict[int, ReviewVerdict]:
    """``{index: verdict}`` for the answered ids of a reply about ``count`` texts (ids 1..count).

    An answer other than "flag" or "safe", or an id given twice with different
    answers, leaves that text without a verdict. Raises ``ValueError`` when
    the reply has no ``verdicts`` list: an answer that cannot be read must
    not pass for "nothing flagged".
    """
    verdicts = data.get("verdicts")
    if not isinstance(verdicts, list):
        raise ValueError("the reply has no 'verdicts' list")
    answers: dict[int, ReviewVerdict | None] = {}
    for verdict in dict_items(verdicts):
        identifier = verdict.get("id")
        if isinstance(identifier, str) and identifier.strip().isdigit():
            identifier = int(identifier)
        if not isinstance(identifier, int) or isinstance(identifier, bool):
            continue
        if not 1 <= identifier <= count:
            continue
        answer = as_text(verdict.get("verdict")).strip().lower()
        parsed = _flag(verdict) if answer == "flag" else SAFE if answer == "safe" else None
        index = identifier - 1
        if index in answers and answers[index] != parsed:
            parsed = None
        answers[index] = parsed
    return {index: answer for index, answer in answers.items() if answer is not None}


def render_texts(texts: list[str]) -> str:
    """The texts as a JSON list, one ``{"id", "text"}`` object per line."""
    lines = [
        json.dumps({"id": number, "text": text}, ensure_ascii=False)
        for number, text in enumerate(texts, start=1)
    ]
    return "[\n" + ",\n".join(lines) + "\n]"


def review_request(texts: list[str]) -> RolePrompt:
    """The review's request for ``texts``, as it will be sent."""
    return role_prompt(
        role=ROLE,
        template="safety_review.txt",
        fields={"texts": render_texts(texts)},
        max_tokens=reply_tokens(len(texts)),
    )


@never_raises(ROLE, empty_review)
async def run_safety_review(texts: list[str]) -> dict[str, Any]:
    """Review ``texts`` in one call; never raises. No texts, no call."""
    if not texts:
        return {"ok": True, "verdicts": {}}
    data = await ask(review_request(texts), ROLE)
    return {"ok": True, "verdicts": parse_verdicts(data, len(texts))}
