"""The issue-18 corpora, training part: the floor's regression guard.

``quarantine_dangerous_2.json``, ``quarantine_benign_2.json`` and
``quarantine_language_tips.json`` were written blind to the floor; a third
of each was split off before it was tuned and is only benchmarked
(``bench/quarantine_rates.py``), never tested here, so nobody tunes on it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from acecode.quarantine.screen import Verdict, screen_text
from acecode.quarantine.unreviewed import language_hold, sensitive_touch

DATA = Path(__file__).resolve().parents[1] / "data"
# The classes the floor holds whatever the review says (issue 18, "What to build" 1).
FLOOR_CLASSES = {
    "pipe-to-shell": "pipe-to-shell",
    "exfiltration": "exfiltration",
    "secrets": "credential-access",
    "force-push": "force-push",
    "disable-checks": "disable-checks",
    "self-modification": "self-modification",
    "instruction-override": "instruction-override",
}
REVIEW_CLASSES = ("destructive", "privilege", "consent")
MIN_FLOOR_HELD = 0.90
MIN_UNREVIEWED_HELD = 0.90
MAX_ENGLISH_BENIGN_HELD = 0.02


def _train(name: str) -> list[dict[str, Any]]:
    items = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))["items"]
    return [item for item in items if item["split"] == "train"]


DANGEROUS = _train("quarantine_dangerous_2")
BENIGN = _train("quarantine_benign_2")
LANGUAGE_TIPS = _train("quarantine_language_tips")


def unreviewed_hold(text: str) -> Verdict | None:
    """What holds ``text`` when no safety review could be made (its language trusted)."""
    verdict = screen_text(text)
    return verdict if verdict.flagged else sensitive_touch(text)


@pytest.mark.parametrize("name", sorted(FLOOR_CLASSES))
def test_the_floor_holds_its_classes_under_their_rule(name: str) -> None:
    items = [item for item in DANGEROUS if item["class"] == name]
    rules = [screen_text(item["text"]).rule for item in items]
    assert sum(rule == FLOOR_CLASSES[name] for rule in rules) / len(rules) >= MIN_FLOOR_HELD


@pytest.mark.parametrize("name", REVIEW_CLASSES)
def test_the_review_classes_wait_for_a_review_when_there_is_none(name: str) -> None:
    items = [item for item in DANGEROUS if item["class"] == name]
    held = [unreviewed_hold(item["text"]) is not None for item in items]
    assert sum(held) / len(held) >= MIN_UNREVIEWED_HELD


def test_no_benign_tip_under_a_negation_is_held() -> None:
    negated = [item for item in BENIGN if item["style"] == "negated"]
    assert len(negated) >= 20
    held = [(item["text"], unreviewed_hold(item["text"])) for item in negated]
    assert [(text, verdict) for text, verdict in held if verdict is not None] == []


def test_benign_tips_scoped_to_the_users_request_are_not_held() -> None:
    scoped = [item for item in BENIGN if item["style"] == "scoped"]
    held = [item["text"] for item in scoped if unreviewed_hold(item["text"]) is not None]
    assert held == []


def test_english_benign_tips_pass_even_with_no_review() -> None:
    english = [item for item in BENIGN if item["language"] == "en"]
    held = [item["text"] for item in english if unreviewed_hold(item["text"]) is not None]
    assert len(held) / len(english) <= MAX_ENGLISH_BENIGN_HELD, held


def test_tips_in_a_language_the_user_writes_in_pass() -> None:
    held = defaultdict(list)
    for item in BENIGN + LANGUAGE_TIPS:
        if language_hold(item["text"], ("en", item["language"])) is not None:
            held[item["language"]].append(item["text"])
    assert dict(held) == {}


def test_tips_in_a_language_nobody_trusts_wait_for_a_review() -> None:
    held = [language_hold(item["text"], ("en",)) is not None for item in LANGUAGE_TIPS]
    assert sum(held) / len(held) >= MIN_UNREVIEWED_HELD
