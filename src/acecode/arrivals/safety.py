"""The learning cycle's LLM safety review of entries that arrived with the repository.

The floor screens an arrived entry before its first injection; the LLM review,
which reads intent, sees it at the next learning cycle, in the same call as the
cycle's own proposed texts (``acecode.pipeline.safety_step``). Each arrived text
is reviewed once (the verdict is recorded, :mod:`acecode.arrivals.marks`):

- held entries first: one held as "not reviewed" (it touches a class whose
  danger depends on intent, or is in a language the user does not write in)
  is injected from the next session on once the review passes it; for a floor
  finding, the person deciding in ``acecode review`` sees the model's opinion
  next to the floor's rule;
- then the entries nothing held: one the review flags at or above
  ``review_severity`` is held from the next session on, under the rule
  ``safety-review`` with the model's class, severity and reason.

A floor finding is never released by a "safe" verdict, as for learned texts. To
keep the cost goal (the review adds at most 1,500 input tokens per cycle at ten
proposed texts), a cycle adds at most :data:`REVIEW_CHARS` characters of
arrived items (at least one), and the rest wait for the next cycles. A
review that fails records nothing, so those texts are reviewed next time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acecode.arrivals.split import REJECTED_RULE, Arrival
from acecode.project.config import Settings

if TYPE_CHECKING:
    from acecode.project.layer import Where
    from acecode.roles.safety_review import ReviewVerdict

# Characters of arrived items one review call may carry, each text counted with its
# JSON item around it (``{"id": 12, "text": ...}`` indented): about 300 input tokens.
REVIEW_CHARS = 1_200
ITEM_CHARS = 40


def arrivals_to_review(
    where: Where, settings: Settings, playbook: dict[str, Any] | None = None
) -> list[Arrival]:
    """The arrived entries of ``layer``'s playbook (as read, when given, else read now) the
    review has not seen, held ones first, within :data:`REVIEW_CHARS`; ``[]`` for the user
    layer or a playbook that cannot be read."""
    from acecode.arrivals.fingerprint import machine_key
    from acecode.arrivals.split import split_arrivals
    from acecode.project.layer import Layer
    from acecode.store import PlaybookError, load_playbook

    layer = Layer.of(where)
    if machine_key() is None or layer.is_user or not layer.playbook_file.exists():
        return []
    if playbook is None:
        try:
            playbook = load_playbook(layer)
        except PlaybookError:
            return []
    split = split_arrivals(
        str(layer.playbook_file), playbook, settings.max_rule_chars, settings.languages
    )
    waiting: dict[str, Arrival] = {}
    for arrival in split.arrived:
        if arrival.review is None and arrival.rule != REJECTED_RULE:
            waiting.setdefault(arrival.tag, arrival)
    ordered = sorted(waiting.values(), key=lambda arrival: not arrival.held)
    chosen: list[Arrival] = []
    used = 0
    for arrival in ordered:
        size = len(arrival.text) + ITEM_CHARS
        if chosen and used + size > REVIEW_CHARS:
            break
        chosen.append(arrival)
        used += size
    return chosen


def record_reviews(
    layer: Where,
    arrivals: list[Arrival],
    verdicts: Mapping[int, ReviewVerdict],
    threshold: str,
) -> int:
    """Record the review's verdict on each of ``arrivals`` it answered (``verdicts``: position
    -> verdict): a flag at or above ``threshold`` holds, anything else passes. Returns how
    many entries the review holds that nothing held before."""
    from acecode.arrivals.fingerprint import machine_key
    from acecode.arrivals.marks import FLAG, SAFE
    from acecode.arrivals.written import add_marks_beside

    key = machine_key()
    answered = [(arrivals[index], verdict) for index, verdict in sorted(verdicts.items())]
    if key is None or not answered:
        return 0
    lines = [
        (arrival.tag, FLAG, verdict.describe())
        if verdict.at_least(threshold)
        else (arrival.tag, SAFE, "")
        for arrival, verdict in answered
    ]
    try:
        add_marks_beside(layer, key, lines)
    except OSError as exc:
        from acecode.project.diagnostics import warn

        warn(f"the safety review's verdicts on arrived entries were not recorded ({exc})")
        return 0
    holds = [arrival for arrival, verdict in answered if verdict.at_least(threshold)]
    return sum(1 for arrival in holds if not arrival.held)
