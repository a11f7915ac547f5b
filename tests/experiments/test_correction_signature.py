"""The correction signature, the hold-back draw, and both against real data.

``tests/data/corrections.json`` was labelled by hand before the matcher existed; the figures
of its first run (docs/impact.md) are the floor the matcher must keep.
"""

from __future__ import annotations

import json
from pathlib import Path

from acecode.experiments.draw import held_back, uniform
from acecode.impact.correction import (
    clean,
    correction_terms,
    is_correction,
    same_correction,
    topic_terms,
)
from acecode.impact.scan import scan_transcripts

DATA = Path(__file__).resolve().parents[1] / "data" / "corrections.json"


def test_corrections_are_told_from_requests() -> None:
    for text in (
        "No, don't use print for debugging output, use the logging module.",
        "Still doesn't work, maybe the build needs the submodule?",
        "Why did you delete the migration?",
        "Wait, does it only run on main?",
        "I said keep the test files next to the module.",
    ):
        assert is_correction(text), text
    for text in (
        "Add a Pause/Resume feature.",
        "Please add a GitHub Action to run the tests.",
        "Excellent work, thank you!",
    ):
        assert not is_correction(text), text


def test_only_what_the_user_typed_counts() -> None:
    wrapped = (
        "<ide_opened_file>The user opened the file x.py. This may or may not be related: "
        "don't use it</ide_opened_file>\nAdd a test for the parser."
    )
    assert clean(wrapped) == "Add a test for the parser."
    assert not is_correction(wrapped)
    late = "Here is the log you asked for:\n" + "line\n" * 200 + "this is wrong"
    assert not is_correction(late)  # only the opening says whether it corrects


def test_a_correction_about_the_same_thing_matches_and_another_does_not() -> None:
    signature = correction_terms(
        "Use the logging module, never print(), for diagnostics.",
        ["No, don't use print for debugging output, use the logging module instead."],
    )
    assert "work" not in signature and "instead" not in signature  # cue words left out
    again = topic_terms("No, again print statements for debugging; use the logging module.")
    other = topic_terms("No, the button should be blue, not green.")
    assert same_correction(signature, again)
    assert not same_correction(signature, other)
    assert not same_correction(signature, frozenset({"print"}))  # one word is not enough


def test_the_scan_keeps_the_users_corrections_not_the_subagents(tmp_path: Path) -> None:
    main = tmp_path / "s1.jsonl"
    sub = tmp_path / "s1" / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)

    def record(text: str, session: str = "s1") -> str:
        return json.dumps(
            {
                "type": "user",
                "sessionId": session,
                "uuid": text[:8],
                "timestamp": "2026-03-02T09:00:00Z",
                "message": {"role": "user", "content": text},
            }
        )

    main.write_text(record("No, use the logging module, not print.") + "\n")
    sub.write_text(record("Don't use the cache, check the index instead.") + "\n")
    (scan,) = scan_transcripts([main, sub])
    assert scan.corrections == [topic_terms("No, use the logging module, not print.")]


def test_the_draw_is_keyed_per_session_and_entry_and_bounded() -> None:
    names = [f"e{i}" for i in range(10)]
    first = held_back(b"s" * 16, "session-1", names, 0.5, 3)
    assert first == held_back(b"s" * 16, "session-1", names, 0.5, 3)  # the same every start
    assert len(first) <= 3
    assert held_back(b"s" * 16, "session-1", names, 0.0, 3) == []
    assert len(held_back(b"s" * 16, "session-1", names, 1.0, 3)) == 3
    assert uniform(b"s" * 16, "a", "e1") != uniform(b"t" * 16, "a", "e1")  # the salt matters
    draws = [uniform(b"s" * 16, f"s{n}", "e1") for n in range(2000)]
    assert 0.45 < sum(draws) / len(draws) < 0.55 and min(draws) >= 0 and max(draws) < 1


def test_the_matcher_keeps_its_first_measured_precision_and_recall() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    messages = data["messages"]
    said = [is_correction(m["text"]) for m in messages]
    truth = [m["correction"] for m in messages]
    true_positive = sum(s and t for s, t in zip(said, truth, strict=True))
    # First run, labels committed before the matcher: precision 8/10, recall 8/17.
    assert true_positive >= 8 and sum(said) - true_positive <= 2
    by_id = {m["id"]: m for m in messages}
    found = wrong = 0
    for rule in data["rules"]:
        source = by_id[rule["source"]]
        signature = correction_terms(rule["text"], [source["text"]])
        for message in messages:
            if message["id"] == source["id"]:
                continue
            match = is_correction(message["text"]) and same_correction(
                signature, topic_terms(message["text"])
            )
            same = source["cluster"] is not None and message["cluster"] == source["cluster"]
            found += match and same
            wrong += match and not same
    assert found >= 6 and wrong <= 13  # first run: 6 of 26 found, 13 false matches
