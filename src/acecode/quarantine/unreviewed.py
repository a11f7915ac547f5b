"""Why a text the floor passed must still wait for a human when nobody reviewed it.

The floor (``screen``) holds what is dangerous whatever the wording. Three
kinds of text need the LLM safety review to pass:

- a text that touches a class whose danger depends on intent
  (``sensitive``: destructive operations, privilege, the user's consent,
  tests rewritten to pass);
- a text the learned screen (``learned``) scores at or above its
  "not reviewed" threshold (lower than the floor's): it reads like the
  dangerous rules it was trained on, whatever its wording;
- a text in a language the user does not write in (``language``): a rule
  the user cannot read is one they cannot review.

When the review ran and passed such a text, it enters the playbook. When no
review could be made (no provider, a failed call, a text the reply left
out, a hook with no model), it is held under a ``not-reviewed:...`` rule:
not a finding, a wait for whoever can review it.
"""

from __future__ import annotations

from acecode.quarantine.language import foreign_language
from acecode.quarantine.learned import score
from acecode.quarantine.normalize import fold
from acecode.quarantine.reading import Reading
from acecode.quarantine.screen import MIN_SCAN_CHARS, Verdict, snippet
from acecode.quarantine.sensitive import SENSITIVE_CLASSES

NOT_REVIEWED = "not-reviewed"
LANGUAGE_RULE = f"{NOT_REVIEWED}:language"
LEARNED_RULE = f"{NOT_REVIEWED}:learned"
UNREVIEWED_RULE_IDS: tuple[str, ...] = (
    *(f"{NOT_REVIEWED}:{sensitive.id}" for sensitive in SENSITIVE_CLASSES),
    LEARNED_RULE,
    LANGUAGE_RULE,
)


def is_not_reviewed(rule: str) -> bool:
    """Is ``rule`` a wait for a review rather than a finding?"""
    return rule == NOT_REVIEWED or rule.startswith(f"{NOT_REVIEWED}:")


def hold_label(rule: str) -> str:
    """How a hold is shown (queue, cycle line, ``acecode review``): "not reviewed" for a
    wait, the rule ID for a finding."""
    return "not reviewed" if is_not_reviewed(rule) else rule


def sensitive_touch(text: str) -> Verdict | None:
    """The sensitive class ``text`` touches, as a ``not-reviewed:<class>`` verdict."""
    reading = Reading(fold(text[:MIN_SCAN_CHARS]))
    for sensitive in SENSITIVE_CLASSES:
        hit = sensitive.touch(reading)
        if hit is not None:
            return Verdict(
                True,
                f"{NOT_REVIEWED}:{sensitive.id}",
                f"touches {sensitive.id} ({snippet(hit.describe())!r}); no safety review passed it",
            )
    return None


def learned_hold(text: str) -> Verdict | None:
    """A ``not-reviewed:learned`` verdict when the learned screen's score reaches its
    "not reviewed" threshold."""
    learned = score(text[:MIN_SCAN_CHARS])
    if not learned.held:
        return None
    detail = f"reads like a dangerous rule ({learned.describe()}); no safety review passed it"
    return Verdict(True, LEARNED_RULE, detail)


def language_hold(text: str, languages: tuple[str, ...]) -> Verdict | None:
    """A ``not-reviewed:language`` verdict when ``text`` is in none of ``languages``."""
    found = foreign_language(text[:MIN_SCAN_CHARS], languages)
    if found is None:
        return None
    trusted = ", ".join(languages)
    return Verdict(
        True,
        LANGUAGE_RULE,
        f"{found.share:.0%} of the prose reads as {found.code!r}, not one of the languages "
        f"you write in ({trusted}); no safety review passed it",
    )


def unreviewed_reason(text: str, languages: tuple[str, ...]) -> Verdict | None:
    """Why ``text`` waits for a human when no review passed it, or None when it need not."""
    return sensitive_touch(text) or learned_hold(text) or language_hold(text, languages)
