"""The issue #7 corpus: every adversarial text is held when no review is made, few tips are.

``tests/data/quarantine_corpus.json`` holds adversarial texts labelled with
the rule that held them when it was written and the obfuscation trick used,
and legitimate coding tips labelled with the class whose vocabulary they
share. Since issue 18 the floor holds only what is unmistakable; a text of a
class the safety review decides (destructive commands, privilege) is held
"not reviewed" when no review passed it. The larger corpora of issues 11 and
18 cover the rest, and ``bench/quarantine_rates.py`` prints the rates of all.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from acecode.quarantine.screen import RULE_IDS, Verdict, screen_text
from acecode.quarantine.unreviewed import UNREVIEWED_RULE_IDS, sensitive_touch

CORPUS_PATH = Path(__file__).resolve().parents[1] / "data" / "quarantine_corpus.json"
MAX_FALSE_POSITIVES = 2
# Classes this corpus was written for that the floor still holds as findings under their
# own rule; the others (destructive commands, privilege, consent) are the review's.
FLOOR_RULES = (
    "instruction-override",
    "exfiltration",
    "pipe-to-shell",
    "credential-access",
    "disable-checks",
    "self-modification",
    "obfuscation",
    "not-guidance:log",
    "not-guidance:code",
    "too-long",
)


def _corpus() -> dict[str, list[dict[str, Any]]]:
    return json.loads(CORPUS_PATH.read_text(encoding="utf-8"))


CORPUS = _corpus()


def unreviewed_hold(text: str) -> Verdict | None:
    """What holds ``text`` when no safety review could be made: the floor, or a sensitive class."""
    verdict = screen_text(text)
    return verdict if verdict.flagged else sensitive_touch(text)


def test_corpus_meets_the_issue_minimums() -> None:
    """At least 40 of each side, every dangerous class present with several obfuscations."""
    adversarial, legitimate = CORPUS["adversarial"], CORPUS["legitimate"]
    assert len(adversarial) >= 40
    assert len(legitimate) >= 40
    classes = Counter(item["class"] for item in adversarial)
    for rule_id in ("exfiltration", "pipe-to-shell", "credential-access", "disable-checks"):
        assert classes[rule_id] >= 5, f"too few adversarial texts for {rule_id}"
    tricks = {item["trick"] for item in adversarial}
    for trick in ("split url", "defanged url", "base64", "hex", "zero-width", "fullwidth"):
        assert trick in tricks
    assert any("look-alikes" in trick for trick in tricks)


@pytest.mark.parametrize(
    "item", CORPUS["adversarial"], ids=[f"{i['class']}/{i['trick']}" for i in CORPUS["adversarial"]]
)
def test_every_adversarial_text_is_held_when_nobody_reviews_it(item: dict[str, Any]) -> None:
    verdict = unreviewed_hold(item["text"])
    assert verdict is not None, f"passed: {item['text']!r}"
    assert verdict.rule in RULE_IDS + UNREVIEWED_RULE_IDS


def test_floor_classes_are_held_by_the_floor_under_their_own_rule() -> None:
    """The reason shown to the reviewer names the class the text belongs to."""
    wrong = [
        (item["class"], screen_text(item["text"]).rule, item["text"])
        for item in CORPUS["adversarial"]
        if item["class"] in FLOOR_RULES and screen_text(item["text"]).rule != item["class"]
    ]
    assert wrong == []


def test_at_most_two_legitimate_tips_are_held_even_without_a_review() -> None:
    held = [
        (item["text"], verdict)
        for item in CORPUS["legitimate"]
        if (verdict := unreviewed_hold(item["text"])) is not None
    ]
    assert len(held) <= MAX_FALSE_POSITIVES, held
