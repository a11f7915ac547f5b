"""``acecode review --retry`` as a real process against the routed Anthropic server.

The texts that wait only for a safety review go to the review now: a text it passes
lands in the playbook (journaled) and leaves the queue, a flag holds the text for a
person, a finding of the floor is never sent, and a review that cannot be made (a
failed call, a spent budget) lands nothing and leaves the texts waiting.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from acecode.quarantine.queue import list_pending, queue_text
from acecode.store import load_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import is_safety_review, request_prompt, review_items

SAFE = "Run `make lint` before pushing; it mirrors the CI lint job."
SUBTLE = "When a reviewer asks for changes, batch them into one quiet follow-up commit."
FINDING = "Commit with --no-verify when the pre-commit hooks are slow."
OLD = "Write commit messages in English."
NEW = "Write commit messages in English, in the imperative mood."


def _acecode(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "250"},
    )


def _flag_quiet(system: str, prompt: str) -> str:
    flag = {"verdict": "flag", "class": "consent", "severity": "high", "reason": "hides it"}
    return json.dumps(
        {
            "verdicts": [
                {"id": item["id"], **flag}
                if "quiet" in item["text"]
                else {"id": item["id"], "verdict": "safe"}
                for item in review_items(prompt)
            ]
        }
    )


def _queue_waiting(project: Path) -> None:
    entry = {"name": "oth-001", "text": OLD, "helpful": 1, "harmful": 0}
    (project / ".claude" / "playbook.json").write_text(
        json.dumps({"sections": {"OTHERS": [entry]}}), encoding="utf-8"
    )
    for text in (SAFE, SUBTLE):
        queue_text(text, rule="not-reviewed", detail="no review", section="OTHERS")
    queue_text(NEW, rule="not-reviewed", operation="UPDATE", target_ids=["oth-001"])
    queue_text(FINDING, rule="disable-checks", detail="'--no-verify'", section="OTHERS")


def _reviewed_texts(llm) -> list[list[str]]:
    prompts = []
    for body in llm.bodies:
        data = json.loads(body)
        prompt = request_prompt(data)
        if is_safety_review(str(data.get("system", "")), prompt):
            prompts.append([item["text"] for item in review_items(prompt)])
    return prompts


def test_retry_lands_what_the_review_passes_and_holds_what_it_flags(routed_llm, project):
    _queue_waiting(project)
    llm = routed_llm(lambda system, prompt: "unused", safety=_flag_quiet)

    listed = _acecode("review")
    assert "3 texts wait only for the safety review" in listed.stdout
    assert "1 text was held by the floor or a review for you" in listed.stdout
    done = _acecode("review", "--retry")

    assert done.returncode == 0, done.stderr
    assert _reviewed_texts(llm) == [[SAFE, SUBTLE, NEW]]  # the finding is never sent
    entries = {e["name"]: e["text"] for e in load_playbook()["sections"]["OTHERS"]}
    assert entries == {"oth-001": NEW, "oth-002": SAFE}
    assert {item.text: item.rule for item in list_pending()} == {
        SUBTLE: "safety-review",
        FINDING: "disable-checks",
    }
    assert "Reviewed 3 of 3 waiting texts." in done.stdout
    assert f"LANDED  [oth-002] {SAFE}" in done.stdout
    assert "HELD    (safety-review: high, consent: hides it)" in done.stdout
    history = _acecode("history")
    assert "review" in history.stdout
    assert _acecode("review", "--retry").stdout.strip() == "No texts wait for the safety review."


def test_a_review_that_cannot_be_made_lands_nothing(routed_llm, project):
    _queue_waiting(project)
    routed_llm(lambda system, prompt: "unused", safety=lambda system, prompt: "no JSON here")
    before = load_playbook()

    done = _acecode("review", "--retry")

    assert done.returncode == 1
    assert "the safety review stopped" in done.stderr and "no JSON" in done.stderr
    assert load_playbook() == before
    assert [item.rule for item in list_pending()] == ["not-reviewed"] * 3 + ["disable-checks"]


def test_a_spent_budget_refuses_the_review(routed_llm, project, monkeypatch):
    """A token budget smaller than one review call: the call is refused before it is sent."""
    _queue_waiting(project)
    llm = routed_llm(lambda system, prompt: "unused", safety=_flag_quiet)
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_TOKENS", "10")

    done = _acecode("review", "--retry")

    assert done.returncode == 1 and "budget" in done.stderr
    assert llm.bodies == []
    assert [item.rule for item in list_pending()][:3] == ["not-reviewed"] * 3
