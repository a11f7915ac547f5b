"""The session-start notice: one ``systemMessage`` line when rules await review or the
last learning cycle failed; nothing otherwise, nothing after a compaction or on a prompt.

Real ``python -m acecode hook`` subprocesses over real state files. That Claude Code
shows ``systemMessage`` to the user (and not to the model) was checked with the real
CLI 2.1.197 in a pseudo-terminal: ``SessionStart:startup says: <message>``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hook_helpers import run_hook

from acecode.hooks import notice
from acecode.project import outcomes
from acecode.quarantine import queue
from acecode.quarantine.unreviewed import NOT_REVIEWED

FAILED = {
    "cycle_id": "20261123-120000-abcdef",
    "status": "failed",
    "reason": "reflector: anthropic call failed (3 attempts used): HTTP 500: scripted 500",
}
FAILURE_LINE = (
    "the last learning cycle failed: reflector: anthropic call failed (3 attempts used): "
    "HTTP 500: scripted 500 (see .claude/acecode/logs/learn.log or `acecode doctor`)"
)


def _state(project: Path) -> Path:
    path = project / ".claude" / "acecode"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _queue(project: Path, count: int) -> None:
    items = [{"id": f"{i:08x}", "text": f"rule {i}", "session": "s0"} for i in range(count)]
    (_state(project) / "pending.json").write_text(json.dumps({"version": 1, "pending": items}))


def _start(source: str = "startup") -> dict | None:
    run = run_hook("session-start", {"session_id": "s1", "source": source})
    assert (run.returncode, run.stderr) == (0, "")
    return json.loads(run.stdout) if run.stdout else None


def test_the_queue_file_name_matches_the_review_queue() -> None:
    assert notice.QUEUE_FILE == queue.QUEUE_FILE
    assert notice.NOT_REVIEWED == NOT_REVIEWED == queue.WAITING_PREFIX


def test_texts_waiting_only_for_a_review_are_counted_apart(
    project_dir: Path, playbook: Path
) -> None:
    """A finding or a review's flag waits for the user; a text no review passed yet waits
    for the next review, which lands it without the user."""
    rules = ["disable-checks", "safety-review", "not-reviewed", "not-reviewed:language"]
    items = [
        {"id": f"{i:08x}", "text": f"rule {i}", "rule": rule, "session": "s1"}
        for i, rule in enumerate(rules)
    ]
    (_state(project_dir) / "pending.json").write_text(json.dumps({"version": 1, "pending": items}))
    assert _start()["systemMessage"].splitlines() == [
        "acecode: 2 learned rules await review (run `acecode review`)",
        "acecode: 2 learned rules wait for the safety review and are not in the playbook yet "
        "(the next learning cycle reviews them, or run `acecode review --retry`)",
    ]


def test_the_commit_file_suffix_matches_the_store() -> None:
    from acecode.store.commit import COMMIT_SUFFIX

    assert notice.COMMIT_SUFFIX == COMMIT_SUFFIX


def test_all_well_means_no_message(project_dir: Path, playbook: Path) -> None:
    output = _start()
    assert output is not None and "systemMessage" not in output
    assert "hookSpecificOutput" in output


@pytest.mark.parametrize("source", ["startup", "resume", "clear"])
def test_rules_awaiting_review_are_announced_with_the_injection(
    project_dir: Path, playbook: Path, source: str
) -> None:
    _queue(project_dir, 3)
    output = _start(source)
    assert output["systemMessage"] == (
        "acecode: 3 learned rules await review (run `acecode review`)"
    )
    assert "[pat-001]" in output["hookSpecificOutput"]["additionalContext"]


def test_a_failed_last_cycle_is_announced_even_without_a_playbook(project_dir: Path) -> None:
    outcomes.record_outcome(_state(project_dir), FAILED)
    assert _start() == {"systemMessage": f"acecode: {FAILURE_LINE}"}


def test_one_line_each(project_dir: Path) -> None:
    _queue(project_dir, 1)
    outcomes.record_outcome(_state(project_dir), FAILED)
    message = _start()["systemMessage"]
    assert message.splitlines() == [
        "acecode: 1 learned rule awaits review (run `acecode review`)",
        f"acecode: {FAILURE_LINE}",
    ]


def test_a_long_reason_is_clipped(project_dir: Path) -> None:
    outcomes.record_outcome(_state(project_dir), {**FAILED, "reason": "x" * 400})
    message = _start()["systemMessage"]
    assert len(message) < 300 and "x" * 119 + "…" in message


def test_a_later_success_clears_the_failure_notice(project_dir: Path) -> None:
    outcomes.record_outcome(_state(project_dir), FAILED)
    outcomes.record_outcome(_state(project_dir), {"cycle_id": "c2", "status": "ok"})
    assert _start() is None


def test_not_after_a_compaction_and_never_on_a_prompt(project_dir: Path, playbook: Path) -> None:
    _queue(project_dir, 2)
    assert "systemMessage" not in _start("compact")
    run = run_hook("user-prompt-submit", {"session_id": "s2", "prompt": "hi"})
    assert "systemMessage" not in (json.loads(run.stdout) if run.stdout else {})


def test_a_project_turned_off_says_only_that(project_dir: Path) -> None:
    outcomes.record_outcome(_state(project_dir), FAILED)
    config = project_dir / ".claude" / "acecode.toml"
    config.write_text("enabled = false\n")
    assert _start() == {
        "systemMessage": f"acecode: off in this project (turned off for this project in "
        f"{config}): nothing is injected or learned; `acecode on` turns it back on"
    }


def test_the_session_checks_key_every_prompt_template() -> None:
    from acecode.hooks.user_checks import TEMPLATE_NAMES
    from acecode.prompts.templates import TEMPLATES

    assert TEMPLATE_NAMES == TEMPLATES
