"""Correction signatures: the user correcting the agent about the same thing again.

A rule learned from a failed tool call recurs when that failure recurs
(:mod:`acecode.impact.signature`). A rule learned from the user correcting
the agent ("no, use the logger, not print") has no failure to count; what
recurs is the user having to say it again. This module decides both halves
with a cheap text match on the messages the user typed, no LLM:

* :func:`is_correction`: the message reads like a correction. Only its
  opening counts (:data:`HEAD_CHARS`, after the IDE's ``<ide_opened_file>``
  and ``<ide_selection>`` wrappers and image markers are removed), since a
  user who corrects says so first and a pasted log must not make every
  message a correction. The cues are openers (``no``, ``wait``, ``actually``,
  ``stop``...) and phrases anywhere in that opening: ``doesn't work``,
  ``still fails``, ``I said``, ``why did you``, ``instead of``, ``we lost``,
  ``are you sure``, ``don't use``...
* :func:`correction_terms`: what the correction was about, the content words
  (:func:`acecode.playbook.relevance.terms`) of the rule's text and of the
  message it was learned from, without the words that only say "this is a
  correction" (``work``, ``wrong``, ``instead``...).
* :func:`same_correction`: a later message is the same correction again when
  it is a correction and shares at least :data:`MIN_SHARED_TERMS` of those
  words.

``tests/data/corrections.json`` holds the user messages of the shared
transcripts labelled by hand before this matcher was written;
``bench/correction_match.py`` reports its precision and recall on them
(docs/impact.md has the figures).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from acecode.playbook.relevance import terms

HEAD_CHARS = 300  # the opening of a message where a correction says so
TOPIC_CHARS = 600  # the part of a later message compared with the rule's words
MIN_SHARED_TERMS = 2

_WRAPPERS = re.compile(
    r"<(ide_opened_file|ide_selection|system-reminder)>.*?</\1>", re.DOTALL | re.IGNORECASE
)
_IMAGE = re.compile(r"^\s*\[image: [^\]\n]*\]\s*$", re.MULTILINE | re.IGNORECASE)
_OPENER = re.compile(
    r"^\W*(no|nope|nah|wait|stop|hold on|hmm+|ugh|wrong|not quite|actually|oh no|oops|"
    r"that'?s not|that is not|this is not|this isn'?t)\b",
    re.IGNORECASE,
)
_CUE = re.compile(
    r"\b("
    r"(do not|don'?t|never|stop|please don'?t) (use|do|add|run|change|touch|create|write|make|"
    r"put|call|remove|delete|commit|push|edit|modify)"
    r"|(doesn'?t|does not|didn'?t|did not|isn'?t|is not|won'?t|wasn'?t|not) (work|working|"
    r"help|helpful|right|correct|compile|build|load|start|what i)"
    r"|still (doesn'?t|does not|fails|failing|broken|not|the same|wrong|there)"
    r"|i (said|told you|asked you|meant|wanted|didn'?t (ask|want|mean|find|say))"
    r"|(why|how come) (did|didn'?t|won'?t|wouldn'?t|are|do|would|is) you"
    r"|you (should have|shouldn'?t|should not|forgot|missed|broke|ignored|keep|removed|deleted)"
    r"|instead of|rather than|not what|wrong|incorrect|revert|undo|roll ?back|put (it )?back"
    r"|we lost|are you sure|i don'?t think|no need (to|for)|we don'?t need"
    r")\b",
    re.IGNORECASE,
)
# Words that say "this is a correction", not what it is about.
_CUE_WORDS = frozenset(
    terms(
        "work working works worked doesn didn isn won wasn don help helpful right correct wrong "
        "incorrect instead rather revert undo roll back put lost sure think need said told asked "
        "meant wanted ask want mean find say stop never actually wait nope nah hmm ugh oops "
        "fail fails failing broken fix fixed same still"
    )
)


def clean(message: str) -> str:
    """The text the user typed: the IDE's wrappers and image markers removed."""
    return _IMAGE.sub("", _WRAPPERS.sub("", message)).strip()


def is_correction(message: str) -> bool:
    """True when ``message`` reads like the user correcting the agent (see the module
    docstring)."""
    head = clean(message)[:HEAD_CHARS]
    return bool(_OPENER.search(head) or _CUE.search(head))


def topic_terms(message: str) -> frozenset[str]:
    """The content words of a message's opening, without the correction cue words."""
    return frozenset(terms(clean(message)[:TOPIC_CHARS])) - _CUE_WORDS


def correction_terms(rule_text: str, requests: Iterable[str]) -> frozenset[str]:
    """What a rule learned from the corrections ``requests`` is about: the content words of
    its text and of those messages, correction cue words left out."""
    words = set(terms(rule_text)) - _CUE_WORDS
    for request in requests:
        words |= topic_terms(request)
    return frozenset(words)


def same_correction(signature: frozenset[str], message_terms: frozenset[str]) -> bool:
    """True when a correction whose topic words are ``message_terms`` is about the same thing
    as a rule whose :func:`correction_terms` are ``signature``."""
    return len(signature & message_terms) >= MIN_SHARED_TERMS
