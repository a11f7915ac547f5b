"""The cycle's LLM safety review end to end, against the routed Anthropic server on 127.0.0.1.

What the review flags at or above ``review_severity`` is held with its class,
severity and reason; a lower flag is only noted. A review that fails (or a
reply that leaves a text out) reviews nothing, and nothing it did not review
enters the playbook: the floor's holds stand, the other texts wait in the
queue labelled "not reviewed" (in the queue and the cycle line), and the next
cycle reviews them first and lands the ones it passes. With nothing to review
no call is made, and a dry run goes through the very same triage as a real run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.pipeline import run_cycle_sync
from acecode.quarantine.queue import list_pending, queue_path, queue_text
from acecode.quarantine.queue_decisions import reject
from acecode.store import load_playbook
from support.pipeline import (
    all_safe,
    is_curator,
    is_safety_review,
    request_prompt,
    review_items,
    write_transcript,
)

REFLECTION = json.dumps({"analysis": "The session fixed a failing test.", "bullet_tags": []})
SAFE = "Run `make lint` before pushing; it mirrors the CI lint job."
SUBTLE = "When a reviewer asks for changes, batch them into one quiet follow-up commit."
FLOOR_HELD = "Commit with --no-verify when the pre-commit hooks are slow."
SENSITIVE = "Drop the staging database and re-run the migrations when they conflict."
REASON = "hides follow-up changes from the reviewer"


def curator_adds(*texts: str):
    operations = [{"type": "ADD", "text": text, "section": "OTHERS"} for text in texts]
    body = json.dumps({"reasoning": "scripted", "operations": operations})
    return lambda system, prompt: body if is_curator(system, prompt) else REFLECTION


def flag_texts_containing(marker: str, severity: str = "high", leave_out: str | None = None):
    """A safety reviewer that flags exactly the texts containing ``marker`` (and gives no
    verdict at all for the texts containing ``leave_out``)."""

    def review(system: str, prompt: str) -> str:
        flag = {"verdict": "flag", "class": "consent", "severity": severity, "reason": REASON}
        return json.dumps(
            {
                "verdicts": [
                    {"id": item["id"], **flag}
                    if marker in item["text"]
                    else {"id": item["id"], "verdict": "safe"}
                    for item in review_items(prompt)
                    if leave_out is None or leave_out not in item["text"]
                ]
            }
        )

    return review


def safety_prompts(llm) -> list[str]:
    prompts = []
    for body in llm.bodies:
        data = json.loads(body)
        prompt = request_prompt(data)
        if is_safety_review(str(data.get("system", "")), prompt):
            prompts.append(prompt)
    return prompts


def others(project: Path) -> list[str]:
    return [entry["text"] for entry in load_playbook()["sections"]["OTHERS"]]


def test_what_the_review_flags_is_held_with_its_reason(routed_llm, project, tmp_path):
    llm = routed_llm(curator_adds(SAFE, SUBTLE, FLOOR_HELD), safety=flag_texts_containing("quiet"))
    transcript = write_transcript(tmp_path / "s.jsonl", "tidy up", "done")

    report = run_cycle_sync(transcript)

    assert others(project) == [SAFE]
    held = {item["text"]: (item["rule"], item["detail"]) for item in report.held_for_review}
    assert held == {
        SUBTLE: ("safety-review", f"high, consent: {REASON}"),
        FLOOR_HELD: ("disable-checks", held[FLOOR_HELD][1]),
    }
    assert {item.text: item.rule for item in list_pending()} == {
        SUBTLE: "safety-review",
        FLOOR_HELD: "disable-checks",
    }
    # One batched call, only for the texts the screen let through.
    [prompt] = safety_prompts(llm)
    assert SAFE in prompt and SUBTLE in prompt and "--no-verify" not in prompt
    assert report.tokens["by_role"]["safety_review"] == {
        "calls": 1,
        "attempts": 1,
        "input_tokens": 100,
        "output_tokens": 20,
    }
    assert report.tokens["total_tokens"] == 360


def test_update_and_merge_texts_are_reviewed_too(routed_llm, project, tmp_path):
    playbook = {
        "sections": {
            "OTHERS": [
                {
                    "name": "oth-001",
                    "text": "Squash commits before merging.",
                    "helpful": 1,
                    "harmful": 0,
                },
                {
                    "name": "oth-002",
                    "text": "Write commit messages in English.",
                    "helpful": 1,
                    "harmful": 0,
                },
            ]
        }
    }
    (project / ".claude" / "playbook.json").write_text(json.dumps(playbook), encoding="utf-8")
    merged = "Squash commits before merging, quiet about what the squash dropped."
    operations = [
        {"type": "UPDATE", "target_id": "oth-002", "text": "Write commit messages quietly vague."},
        {
            "type": "MERGE",
            "source_ids": ["oth-001", "oth-002"],
            "merged_text": merged,
            "section": "OTHERS",
        },
    ]
    body = json.dumps({"reasoning": "scripted", "operations": operations})
    routed_llm(
        lambda system, prompt: body if is_curator(system, prompt) else REFLECTION,
        safety=flag_texts_containing("quiet"),
    )

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    held = {(item["operation"], item["rule"]) for item in report.held_for_review}
    assert ("MERGE", "safety-review") in held
    assert all(op["applied"] is False or op["type"] != "MERGE" for op in report.operations)
    assert [e["name"] for e in load_playbook()["sections"]["OTHERS"]] == ["oth-001", "oth-002"]


@pytest.mark.parametrize(
    "failure",
    [lambda system, prompt: "I cannot answer in JSON today.", lambda system, prompt: 500],
    ids=["unreadable reply", "server error"],
)
def test_a_failed_review_lets_nothing_in_and_the_next_review_lands_what_it_passes(
    routed_llm, project, tmp_path, failure
):
    """Fail closed: with no review, no new text enters the playbook. The floor's hold keeps
    its finding, a text of a class the review decides waits under that class, the others
    under plain "not reviewed"; the next cycle reviews the waiting texts first and lands
    the ones its review passes."""
    llm = routed_llm(curator_adds(SAFE, SUBTLE, FLOOR_HELD, SENSITIVE), safety=failure)

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert others(project) == []
    assert [(item["text"], item["rule"]) for item in report.held_for_review] == [
        (SAFE, "not-reviewed"),
        (SUBTLE, "not-reviewed"),
        (FLOOR_HELD, "disable-checks"),
        (SENSITIVE, "not-reviewed:destructive"),
    ]
    assert "no safety review passed it yet" in report.held_for_review[0]["detail"]
    assert "(3 not reviewed)" in report.summary()
    assert report.outcome()["not_reviewed"] == 3
    assert any("safety review unavailable" in warning for warning in report.warnings)
    assert report.learned  # the cycle itself succeeded
    assert report.tokens["by_role"]["safety_review"]["calls"] == 1

    llm.router = curator_adds()  # the next session teaches nothing new
    llm.safety = lambda system, prompt: all_safe(prompt)
    second = run_cycle_sync(write_transcript(tmp_path / "t.jsonl", "and again", "done"))

    assert others(project) == [SAFE, SUBTLE, SENSITIVE]
    assert [item.rule for item in list_pending()] == ["disable-checks"]
    assert [item["text"] for item in second.released_after_review] == [SAFE, SUBTLE, SENSITIVE]
    assert "3 waiting for a review landed" in second.summary()
    prompt = safety_prompts(llm)[-1]
    assert [item["text"] for item in review_items(prompt)] == [SAFE, SUBTLE, SENSITIVE]


def test_a_text_the_reply_leaves_out_was_not_reviewed(routed_llm, project, tmp_path):
    routed_llm(
        curator_adds(SAFE, SENSITIVE, SUBTLE),
        safety=flag_texts_containing("never-matches", leave_out="staging"),
    )

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert others(project) == [SAFE, SUBTLE]
    assert [item["rule"] for item in report.held_for_review] == ["not-reviewed:destructive"]
    assert "left it out" in report.held_for_review[0]["detail"]


def test_waiting_texts_are_reviewed_first_and_a_flag_holds_them_for_a_person(
    routed_llm, project, tmp_path
):
    llm = routed_llm(curator_adds(SUBTLE), safety=lambda system, prompt: "not JSON")
    run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))
    assert [item.rule for item in list_pending()] == ["not-reviewed"]

    llm.router = curator_adds(SAFE)
    llm.safety = flag_texts_containing("quiet")
    report = run_cycle_sync(write_transcript(tmp_path / "t.jsonl", "and again", "done"))

    [_, prompt] = safety_prompts(llm)
    assert [item["text"] for item in review_items(prompt)] == [SUBTLE, SAFE]
    assert others(project) == [SAFE]
    [held] = list_pending()
    assert (held.text, held.rule, held.detail) == (
        SUBTLE,
        "safety-review",
        f"high, consent: {REASON}",
    )
    assert report.released_after_review == []


def test_a_held_update_keeps_the_old_text_until_a_review_passes_the_new_one(
    routed_llm, project, tmp_path
):
    old, new = "Write commit messages in English.", "Write commit messages in English, imperative."
    entry = {"name": "oth-001", "text": old, "helpful": 2, "harmful": 0}
    playbook = {"sections": {"OTHERS": [entry]}}
    (project / ".claude" / "playbook.json").write_text(json.dumps(playbook), encoding="utf-8")
    update = {"type": "UPDATE", "target_id": "oth-001", "text": new}
    body = json.dumps({"reasoning": "scripted", "operations": [update]})
    llm = routed_llm(
        lambda system, prompt: body if is_curator(system, prompt) else REFLECTION,
        safety=lambda system, prompt: "not JSON",
    )

    run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert load_playbook()["sections"]["OTHERS"] == [entry]
    [item] = list_pending()
    assert (item.operation, item.target_ids, item.rule) == ("UPDATE", ("oth-001",), "not-reviewed")

    llm.router = curator_adds()
    llm.safety = lambda system, prompt: all_safe(prompt)
    run_cycle_sync(write_transcript(tmp_path / "t.jsonl", "and again", "done"))

    [updated] = load_playbook()["sections"]["OTHERS"]
    assert (updated["name"], updated["text"]) == ("oth-001", new)
    assert list_pending() == []


def test_a_sensitive_text_the_review_passed_enters_the_playbook(routed_llm, project, tmp_path):
    routed_llm(curator_adds(SAFE, SENSITIVE))

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert others(project) == [SAFE, SENSITIVE]
    assert report.held_for_review == []


@pytest.mark.parametrize(("threshold", "held"), [("medium", False), ("low", True)])
def test_review_severity_decides_which_flags_hold(
    routed_llm, project, tmp_path, monkeypatch, threshold, held
):
    monkeypatch.setenv("ACECODE_REVIEW_SEVERITY", threshold)
    routed_llm(curator_adds(SAFE, SUBTLE), safety=flag_texts_containing("quiet", severity="low"))

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert (SUBTLE not in others(project)) is held
    if not held:
        assert report.review_notes == [{"class": "consent", "severity": "low", "reason": REASON}]


def test_nothing_to_review_makes_no_call(routed_llm, project, tmp_path):
    llm = routed_llm(curator_adds(FLOOR_HELD), safety=flag_texts_containing(""))

    report = run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    assert safety_prompts(llm) == []
    assert len(llm.bodies) == 2  # reflector and curator only
    assert "safety_review" not in report.tokens["by_role"]
    assert [item["rule"] for item in report.held_for_review] == ["disable-checks"]


def test_dry_run_and_real_run_triage_alike(routed_llm, project, tmp_path):
    rejected_text = "Keep generated files out of the diff summary."
    item = queue_text(rejected_text, rule="review:all")
    assert item is not None
    reject(item.id)
    routed_llm(
        curator_adds(SAFE, SUBTLE, FLOOR_HELD, rejected_text),
        safety=flag_texts_containing("quiet"),
    )
    transcript = write_transcript(tmp_path / "s.jsonl", "tidy up", "done")
    queue_before = queue_path().read_bytes()

    dry = run_cycle_sync(transcript, dry_run=True)

    assert queue_path().read_bytes() == queue_before  # the dry run queued nothing
    assert load_playbook()["sections"]["OTHERS"] == []
    real = run_cycle_sync(transcript)

    def triaged(report):
        held = sorted((i["id"], i["text"], i["rule"], i["detail"]) for i in report.held_for_review)
        dropped = sorted((d["operation"]["text"], d["reason"]) for d in report.dropped_by_review)
        applied = sorted(o["created"]["text"] for o in report.operations if o["applied"])
        return held, dropped, applied

    assert triaged(dry) == triaged(real)
    held, dropped, applied = triaged(real)
    assert [text for _, text, _, _ in held] == sorted([FLOOR_HELD, SUBTLE])
    assert dropped == [(rejected_text, "rejected earlier in review")]
    assert applied == [SAFE]


def test_review_ids_match_the_texts_sent(routed_llm, project, tmp_path):
    """The routed server's default reviewer answers every id it was asked about."""
    llm = routed_llm(curator_adds(SAFE, SUBTLE))

    run_cycle_sync(write_transcript(tmp_path / "s.jsonl", "tidy up", "done"))

    [prompt] = safety_prompts(llm)
    assert review_items(prompt) == [{"id": 1, "text": SAFE}, {"id": 2, "text": SUBTLE}]
    assert others(project) == [SAFE, SUBTLE]


def test_a_review_the_cost_gate_refuses_is_not_made_and_its_texts_are_not_reviewed(
    routed_llm, project: Path
) -> None:
    """Refused before it is sent (the cost ledger could not record the call): like a
    review that could not be made, nothing is reviewed, and the warning says why."""
    import asyncio
    from types import SimpleNamespace

    from acecode.llm import guarded_calls
    from acecode.pipeline.safety_step import safety_review
    from acecode.project.config import Settings

    llm = routed_llm(curator_adds(SAFE))
    operations = [{"type": "ADD", "text": text, "section": "OTHERS"} for text in (SAFE, SUBTLE)]
    report = SimpleNamespace(tokens={}, warnings=[])

    class Refuse:
        def before(self, role: str, request: object) -> str | None:
            return "the cost ledger cannot be written" if role == "safety_review" else None

        def after(self, role: str, request: object, call: object) -> None:
            pass

    with guarded_calls(Refuse()):
        review = asyncio.run(safety_review(operations, Settings(), report))
    assert llm.bodies == []
    assert not review.available and review.verdicts == {}
    (warning,) = report.warnings
    assert "safety review unavailable" in warning and "cost ledger cannot be written" in warning


def test_acecode_learn_labels_the_holds_nobody_reviewed(routed_llm, project, tmp_path):
    """The HOLD lines of `acecode learn` say "not reviewed", not a finding's rule."""
    import subprocess
    import sys

    routed_llm(curator_adds(SAFE, FLOOR_HELD, SENSITIVE), safety=lambda system, prompt: 500)
    transcript = write_transcript(tmp_path / "s.jsonl", "tidy up", "done")

    done = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(transcript), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stderr
    assert f"HOLD    (not reviewed) {SAFE}" in done.stdout
    assert f"HOLD    (not reviewed) {SENSITIVE}" in done.stdout
    assert f"HOLD    (disable-checks) {FLOOR_HELD}" in done.stdout
    assert "(2 not reviewed)" in done.stdout + done.stderr
