"""acecode's own nested `claude -p` sessions are recognised by content and never learned.

The two nested sessions in ``tests/data/claude_cli/`` were saved by the real
Claude Code 2.1.197 when acecode (before ``--no-session-persistence``) ran its
reflector and curator through it; the real user sessions in
``tests/data/transcripts/`` must never be taken for one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.agents.claude_code.sessions import sessions_dir
from acecode.pipeline.own_sessions import own_session_role, split_own_sessions
from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, write_transcript

DATA = Path(__file__).resolve().parents[1] / "data"
NESTED = sorted((DATA / "claude_cli").glob("nested-*.jsonl"))
REAL_SESSIONS = sorted((DATA / "transcripts").rglob("*.jsonl"))


def test_the_fixtures_are_there() -> None:
    assert [path.name.split("-")[1] for path in NESTED] == ["curator", "reflector"]
    assert len(REAL_SESSIONS) > 40


@pytest.mark.parametrize("path", NESTED, ids=lambda p: p.name.split("-")[1])
def test_nested_sessions_saved_by_the_real_cli_are_recognised(path: Path) -> None:
    assert own_session_role(path) == path.name.split("-")[1]


def test_no_real_user_session_is_taken_for_one_of_ours() -> None:
    assert [path for path in REAL_SESSIONS if own_session_role(path)] == []


def test_a_user_override_template_is_recognised_too(tmp_path: Path, home_dir: Path) -> None:
    prompts = home_dir / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "curator.txt").write_text(
        "You curate the team playbook of acecode for our monorepo, carefully.\n{playbook}\n"
    )
    session = write_transcript(
        tmp_path / "s.jsonl",
        "You curate the team playbook of acecode for our monorepo, carefully.\n(empty)",
        "{}",
    )
    assert own_session_role(session) == "curator"
    assert own_session_role(NESTED[0]) == "curator"  # the packaged opening still counts


def test_an_opening_that_is_only_a_placeholder_matches_nothing(
    tmp_path: Path, home_dir: Path
) -> None:
    prompts = home_dir / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "reflector.txt").write_text("{transcript}\nWhat went wrong?\n")
    session = write_transcript(tmp_path / "s.jsonl", "Fix the failing build please", "ok")
    assert own_session_role(session) is None


def test_split_keeps_the_order(tmp_path: Path) -> None:
    ordinary = [write_transcript(tmp_path / f"{n}.jsonl", f"request {n}", "ok") for n in "ab"]
    mixed = [ordinary[0], NESTED[1], ordinary[1], NESTED[0]]
    assert split_own_sessions(mixed) == (ordinary, [NESTED[1], NESTED[0]])


def test_learn_on_a_nested_session_says_so_and_calls_no_llm(routed_llm, project_dir: Path) -> None:
    llm = routed_llm(lambda system, prompt: "{}")
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(NESTED[1])],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=HANG_GUARD,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "one of acecode's own nested `claude -p` sessions" in result.stderr
    assert "reflector prompt" in result.stderr
    assert llm.bodies == []
    assert not (project_dir / ".claude" / "playbook.json").exists()


def test_bootstrap_skips_nested_sessions(routed_llm, project_dir: Path) -> None:
    def router(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            return json.dumps({"reasoning": "r", "operations": []})
        return json.dumps({"analysis": "fine", "bullet_tags": []})

    llm = routed_llm(router)
    folder = sessions_dir(project_dir)
    folder.mkdir(parents=True)
    write_transcript(folder / "user.jsonl", "MARKER-user please fix the build", "done")
    for path in NESTED:
        shutil.copy(path, folder / path.name)
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "bootstrap", "--delay", "0"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=HANG_GUARD,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skipping 2 of acecode's own nested `claude -p` sessions" in result.stdout
    assert "learned 1, already learned 0, failed 0" in result.stdout
    # One cycle: a reflector call on the user's session, then a curator call.
    assert len(llm.bodies) == 2
    assert "MARKER-user" in llm.bodies[0]


def test_a_saved_safety_review_session_is_recognised(tmp_path: Path) -> None:
    """The safety review runs through `claude -p` too; its saved session is acecode's own."""
    from acecode.prompts.templates import load_template
    from acecode.roles.prompt import fill_template

    prompt = fill_template(load_template("safety_review.txt"), texts='[{"id": 1, "text": "x"}]')
    saved = write_transcript(tmp_path / "nested.jsonl", prompt, '{"verdicts": []}')
    assert own_session_role(saved) == "safety_review"
