"""What a concluded verdict does, and that it lasts: sessions run through the real hook, the
verdicts refreshed by the real CLI.

- An entry measured to hurt is no longer injected: it waits in ``acecode review`` with its
  figure, and the user keeps it (injected again) or deletes it (undoable).
- A verdict survives the loss of what it was computed from: the outcome cache deleted and
  the transcripts gone (Claude Code deletes them after 30 days); the entry stays out of the
  draw. ``--transcripts`` finds the transcripts kept elsewhere.
- A rewritten entry is a new rule: its old verdict goes and it is measured afresh.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.experiments.world import (
    acecode,
    experiments_on,
    exposures,
    rules_measured,
    run_sessions,
    sessions_folder,
    start_payload,
    state_folder,
    write_project,
)

from acecode.experiments.classes import RULE, read_classes, write_classes
from hooks.hook_helpers import run_hook

HURTING_TEXT = "Before `git push`, avoid: fatal: The current branch feat has no upstream branch."


@pytest.fixture
def hurting(project_dir: Path, home_dir: Path) -> Path:
    """mis-001's failure recurs only in the sessions it was injected into: it hurts."""
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=2)
    run_sessions(project_dir, home_dir, 24, {"mis-001": "injected"})
    rule = rules_measured()["mis-001"]
    assert rule["class"] == "hurts", rule
    return project_dir


def _start(project: Path, session: str) -> tuple[str, str]:
    """The context and the notice of a new session's start."""
    output = run_hook("session-start", start_payload(session, project)).output()
    context = output.get("hookSpecificOutput", {}).get("additionalContext", "")
    return context, output.get("systemMessage", "")


def test_an_entry_measured_to_hurt_is_not_injected_and_waits_in_review(hurting: Path) -> None:
    context, notice = _start(hurting, "after-1")
    assert HURTING_TEXT not in context and "mis-002" in context
    assert "mis-001 makes its failure more frequent" in notice
    assert "no longer injected" in notice and "acecode review" in notice
    listed = acecode("review").stdout
    assert "Measured to make their failure more frequent" in listed and "mis-001" in listed
    assert "% more" in listed  # with its figure
    doctor = acecode("doctor", code=None).stdout
    assert "not injected until you keep or delete them (`acecode review`): mis-001" in doctor


def test_kept_in_review_it_is_injected_again_and_no_longer_announced(hurting: Path) -> None:
    done = acecode("review", "approve", "mis-001")
    assert "Kept [mis-001]" in done.stdout
    context, notice = _start(hurting, "after-2")
    assert HURTING_TEXT in context and "mis-001" not in notice
    assert "Measured to make their failure more frequent" not in acecode("review").stdout
    # The verdict stays, with the user's decision, through later refreshes.
    rules_measured()
    assert read_classes(state_folder(hurting))["mis-001"]["kept"] is True
    assert "kept injected by you: mis-001" in acecode("doctor", code=None).stdout


def test_rejected_in_review_it_is_deleted_and_undo_brings_it_back(hurting: Path) -> None:
    acecode("review", "reject", "mis-001")
    playbook = json.loads((hurting / ".claude" / "playbook.json").read_text())
    names = [e["name"] for entries in playbook["sections"].values() for e in entries]
    assert "mis-001" not in names
    assert "measured to make its failure more frequent" in acecode("history", "--verbose").stdout
    acecode("undo")
    playbook = json.loads((hurting / ".claude" / "playbook.json").read_text())
    assert HURTING_TEXT in [e["text"] for e in playbook["sections"]["MISTAKES TO AVOID"]]


def test_the_top_up_does_not_bring_back_an_entry_measured_to_hurt(project_dir: Path) -> None:
    write_project(project_dir)
    write_classes(
        state_folder(project_dir),
        {"mis-001": {"class": "hurts", "figure": "120% more", "sessions": 80, "rule": RULE}},
    )
    # A budget too small for the whole playbook: the mistakes come with the top-up.
    env = {"ACECODE_INJECTION_BUDGET_CHARS": "1400"}
    start = run_hook("session-start", start_payload("s-1", project_dir), env=env).context()
    assert "Cannot find module" not in start and "no upstream branch" not in start

    def topup(number: int, prompt: str) -> str:
        payload = {"session_id": "s-1", "prompt_id": f"p-{number}", "cwd": str(project_dir)}
        return run_hook("user-prompt-submit", {**payload, "prompt": prompt}, env=env).stdout

    assert "Cannot find module" in topup(1, "npm test fails: Error: Cannot find module 'jest'")
    assert "no upstream branch" not in topup(
        2, "git push fails: fatal: The current branch feat has no upstream branch."
    )


def test_approving_an_entry_that_is_not_waiting_is_refused(project_dir: Path) -> None:
    write_project(project_dir)
    write_classes(
        state_folder(project_dir),
        {"mis-002": {"class": "helps", "figure": "80% fewer", "sessions": 50}},
    )
    assert not read_classes(state_folder(project_dir)).get("mis-001")
    failed = acecode("review", "approve", "mis-001", code=None)
    assert failed.returncode != 0


@pytest.fixture
def concluded(project_dir: Path, home_dir: Path) -> Path:
    """mis-001 measured to help (its failure recurs only when it is held back)."""
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=2)
    run_sessions(project_dir, home_dir, 24, {"mis-001": "held"})
    assert rules_measured()["mis-001"]["class"] == "helps"
    return project_dir


def test_a_verdict_survives_deleting_the_outcome_cache_and_the_transcripts(
    concluded: Path, home_dir: Path
) -> None:
    before = read_classes(state_folder(concluded))["mis-001"]
    (state_folder(concluded) / "experiments" / "outcomes.jsonl").unlink()
    shutil.rmtree(sessions_folder(concluded, home_dir))  # Claude Code's 30-day clean-up
    rules_measured()
    assert read_classes(state_folder(concluded))["mis-001"] == before
    run_hook("session-start", start_payload("later", concluded))
    assert "mis-001" not in exposures(concluded)[-1]["drawn"]  # it stays out of the draw


def test_transcripts_kept_elsewhere_give_the_randomised_figures(
    concluded: Path, home_dir: Path, tmp_path: Path
) -> None:
    kept = tmp_path / "kept"
    shutil.move(sessions_folder(concluded, home_dir), kept)
    (state_folder(concluded) / "experiments" / "outcomes.jsonl").unlink()
    rule = rules_measured("--transcripts", str(kept))["mis-001"]
    assert rule["basis"] == "randomised" and rule["class"] == "helps"
    assert rule["effect"]["held"]["recurred"] == rule["effect"]["held"]["sessions"] > 0


def test_a_rewritten_entry_loses_its_verdict_and_is_drawn_again(concluded: Path) -> None:
    acecode("edit", "mis-001", "Run `git push -u origin HEAD` the first time a branch is pushed.")
    rules_measured()
    assert "mis-001" not in read_classes(state_folder(concluded))
    run_hook("session-start", start_payload("rewritten", concluded))
    assert "mis-001" in exposures(concluded)[-1]["drawn"]


def test_an_older_rules_verdict_is_checked_again_while_its_data_is_there(
    project_dir: Path, home_dir: Path
) -> None:
    """0.3 concluded "helps" from a handful of recurrences; the current rule needs more."""
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    run_sessions(project_dir, home_dir, 6, {"mis-001": "held"})
    write_classes(
        state_folder(project_dir),
        {"mis-001": {"class": "helps", "figure": "100% fewer", "sessions": 6}},
    )
    rules_measured()
    assert "mis-001" not in read_classes(state_folder(project_dir))
    # A verdict of the current rule is kept even where the data says less now.
    write_classes(
        state_folder(project_dir),
        {"mis-001": {"class": "helps", "figure": "90% fewer", "sessions": 6, "rule": RULE}},
    )
    rules_measured()
    assert read_classes(state_folder(project_dir))["mis-001"]["figure"] == "90% fewer"
