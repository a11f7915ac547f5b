"""Session-start lines a new user meets in the first week (issue 29): acecode turned off
says so once per session; a rule added by hand and held is named as added by hand; the
first session after a cycle learned rules says which, once, to the user and not to the
model. Real ``python -m acecode`` subprocesses over real state files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hook_helpers import run_hook

from acecode.project.layer import Layer
from acecode.project.learned_notice import keep_learned
from support.hang_guard import HANG_GUARD
from support.llm_env import LLM_ENV_VARS
from support.pipeline import RoutedLLM, Router, routed_servers


@pytest.fixture
def routed_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Router], RoutedLLM]]:
    """A content-routed Anthropic server on 127.0.0.1, made the configured provider."""
    with routed_servers() as start_server:

        def start(router: Router) -> RoutedLLM:
            llm = start_server(router, 0.0, None)
            for name in LLM_ENV_VARS:
                monkeypatch.delenv(name, raising=False)
            for name, value in llm.env().items():
                monkeypatch.setenv(name, value)
            return llm

        yield start


def _acecode(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return done


def _start(session: str = "s1", source: str = "startup") -> dict:
    run = run_hook("session-start", {"session_id": session, "source": source})
    assert (run.returncode, run.stderr) == (0, "")
    return json.loads(run.stdout) if run.stdout else {}


def _message(output: dict) -> str | None:
    return output.get("systemMessage")


# ----------------------------------------------------------------- acecode off


def test_acecode_off_says_so_once_per_session(project_dir: Path, playbook: Path) -> None:
    _acecode("off")
    switch = project_dir / ".claude" / "acecode" / "switch.toml"
    line = (
        f"acecode: off in this project (turned off for this project in {switch}): nothing is "
        "injected or learned; `acecode on` turns it back on"
    )

    first = _start("s1")
    assert first == {"systemMessage": line}  # and nothing for the model
    assert _start("s1", "resume") == {}  # the same session: said already
    assert _start("s1", "compact") == {}
    assert _message(_start("s2", "clear")) == line  # a new session

    _acecode("on")
    assert _message(_start("s3")) is None


def test_off_by_the_teams_shared_file_says_so_too(project_dir: Path, playbook: Path) -> None:
    (project_dir / ".claude" / "acecode.toml").write_text("enabled = false\n")
    message = _message(_start())
    assert message is not None and message.startswith("acecode: off in this project (")
    assert str(project_dir / ".claude" / "acecode.toml") in message


def test_opt_in_projects_not_turned_on_stay_silent(home_dir: Path, playbook: Path) -> None:
    (home_dir / ".claude").mkdir(exist_ok=True)
    (home_dir / ".claude" / "acecode.toml").write_text("opt_in = true\n")
    assert _start() == {}


# ----------------------------------------------------------------- held by hand


def test_a_rule_added_by_hand_and_held_is_named_as_added_by_hand(
    project_dir: Path, playbook: Path
) -> None:
    held = _acecode(
        "add", "Use uv for every install.", "--section", "pat", env={"ACECODE_REVIEW": "all"}
    )
    assert "held" in held.stdout + held.stderr

    assert _message(_start()) == (
        "acecode: 1 rule you added by hand awaits review (run `acecode review`)"
    )


def test_learned_and_hand_added_held_rules_are_counted_apart(
    project_dir: Path, playbook: Path
) -> None:
    _acecode("add", "Use uv for every install.", "--section", "pat", env={"ACECODE_REVIEW": "all"})
    queue = project_dir / ".claude" / "acecode" / "pending.json"
    data = json.loads(queue.read_text())
    learned = {**data["pending"][0], "id": "0000beef", "text": "Run ruff.", "session": "abc"}
    data["pending"].append(learned)
    queue.write_text(json.dumps(data))

    assert _message(_start()) == (
        "acecode: 2 rules await review: 1 learned, 1 you added by hand (run `acecode review`)"
    )


# ----------------------------------------------------------------- learned


def test_the_first_session_after_a_cycle_learned_says_which_rules_once(
    project_dir: Path, playbook: Path
) -> None:
    layer = Layer.of_project(project_dir)
    keep_learned(layer, "20260101T100000-aaaaaa", ["ctx-004", "pat-007"], "s0.jsonl")

    first = _start("s1")
    line = (
        "acecode: acecode learned 2 rules from your last session (ctx-004, pat-007; `acecode show`)"
    )
    assert _message(first) == line
    assert "acecode learned" not in first["hookSpecificOutput"]["additionalContext"]
    assert _message(_start("s2")) is None  # only once


def test_several_cycles_since_the_last_start_are_said_together(
    project_dir: Path, playbook: Path
) -> None:
    layer = Layer.of_project(project_dir)
    keep_learned(layer, "20260101T100000-aaaaaa", ["pat-002"], "a.jsonl")
    keep_learned(layer, "20260101T110000-bbbbbb", ["u-pref-001"], "b.jsonl")

    assert _message(_start()) == (
        "acecode: acecode learned 2 rules from your last 2 sessions (pat-002, u-pref-001; "
        "`acecode show`)"
    )


def test_a_compaction_leaves_the_learned_line_for_the_next_start(
    project_dir: Path, playbook: Path
) -> None:
    keep_learned(Layer.of_project(project_dir), "20260101T100000-aaaaaa", ["pat-002"], "a.jsonl")
    assert _message(_start("s1", "compact")) is None
    assert "pat-002" in (_message(_start("s2")) or "")


@pytest.mark.parametrize("source", ["session-end", "cli"])
def test_only_a_cycle_a_hook_started_leaves_the_line(
    project_dir: Path, playbook: Path, routed_llm, source: str
) -> None:
    from acecode.pipeline.cycle import run_cycle_sync
    from support.pipeline import is_curator, write_transcript

    def router(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            operation = {
                "type": "ADD",
                "section": "PROJECT CONTEXT",
                "text": "Docs build with mkdocs.",
            }
            return json.dumps({"reasoning": "r", "operations": [operation]})
        return json.dumps({"analysis": "a", "bullet_tags": []})

    routed_llm(router)
    transcript = project_dir / "s.jsonl"
    write_transcript(transcript, "How are the docs built?", "With mkdocs.")
    report = run_cycle_sync(transcript, source=source)
    assert report.status == "ok", report.reason

    message = _message(_start()) or ""
    if source == "cli":
        assert "learned" not in message
    else:
        assert message == (
            "acecode: acecode learned 1 rule from your last session (ctx-001; `acecode show`)"
        )


def test_the_merge_rule_name_matches_the_merge_driver() -> None:
    from acecode.edits.merge_driver import REVIEW_RULE
    from acecode.hooks import notice

    assert notice.MERGE_RULE == REVIEW_RULE
