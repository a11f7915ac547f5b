"""The learning cycle's LLM safety review of entries that arrived with the repository.

The floor screens an arrived entry before its first injection; the LLM review,
which reads intent, sees it at the next learning cycle, in the same call as the
cycle's own proposed texts (``acecode.pipeline.safety_step``). Each arrived text
is reviewed once (the verdict is recorded, :mod:`acecode.arrivals.marks`):

- held entries first, so the person deciding in ``acecode review`` sees the
  model's opinion next to the floor's rule;
- then the entries the floor let through: one the review flags is held from the
  next session on, under the rule ``safety-review`` with the model's reason.

A floor hold is never released by a "safe" verdict, as for learned texts. To
keep the cost goal (the review adds at most 1,500 input tokens per cycle at ten
proposed texts), a cycle adds at most :data:`REVIEW_CHARS` characters of
arrived items (at least one), and the rest wait for the next cycles. A
review that fails records nothing, so those texts are reviewed next time.
"""

from __future__ import annotations

from pathlib import Path

from acecode.arrivals.split import REJECTED_RULE, Arrival
from acecode.config import Settings

# Characters of arrived items one review call may carry, each text counted with its
# JSON item around it (``{"id": 12, "text": ...}`` indented): about 300 input tokens.
REVIEW_CHARS = 1_200
ITEM_CHARS = 40


def arrivals_to_review(playbook_path: Path, settings: Settings) -> list[Arrival]:
    """The arrived entries of ``playbook_path`` the review has not seen, held ones first,
    within :data:`REVIEW_CHARS`; ``[]`` for the user layer or a playbook that cannot be read."""
    from acecode.arrivals.fingerprint import machine_key
    from acecode.arrivals.split import split_arrivals
    from acecode.layers import is_user_layer
    from acecode.store import PlaybookError, load_playbook

    if machine_key() is None or is_user_layer(playbook_path) or not playbook_path.exists():
        return []
    try:
        playbook = load_playbook(playbook_path)
    except PlaybookError:
        return []
    split = split_arrivals(
        str(playbook_path), playbook, settings.max_rule_chars, settings.languages
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


def record_reviews(playbook_path: Path, arrivals: list[Arrival], flags: dict[int, str]) -> int:
    """Record the review's verdict on each of ``arrivals`` (``flags``: position -> reason);
    returns how many entries the review flagged that the floor had let through."""
    from acecode.arrivals.fingerprint import machine_key
    from acecode.arrivals.marks import FLAG, SAFE, add_marks
    from acecode.paths import state_dir_for

    key = machine_key()
    if key is None or not arrivals:
        return 0
    lines = [
        (arrival.tag, FLAG, flags[index]) if index in flags else (arrival.tag, SAFE, "")
        for index, arrival in enumerate(arrivals)
    ]
    try:
        add_marks(str(state_dir_for(playbook_path)), key, lines)
    except OSError as exc:
        from acecode.diagnostics import warn

        warn(f"the safety review's verdicts on arrived entries were not recorded ({exc})")
        return 0
    return sum(1 for index, arrival in enumerate(arrivals) if index in flags and not arrival.held)
