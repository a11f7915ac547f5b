"""Both layers reach the model: real ``acecode hook`` subprocesses on a temp home and project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hook_helpers import run_hook, write_playbook

from acecode.project.layers import user_playbook_file
from support.hang_guard import HANG_GUARD
from support.playbooks import entry


def _start(session: str = "s1") -> dict:
    return {"session_id": session, "hook_event_name": "SessionStart", "source": "startup"}


def _write_user_layer(sections: dict) -> Path:
    path = Path(user_playbook_file())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": "1.0", "sections": sections}), encoding="utf-8")
    return path


PREFERENCE = entry("u-pref-001", "Answer in short paragraphs without headings.", 2)


def test_the_user_layer_alone_is_injected_in_a_project_without_a_playbook(project_dir: Path):
    _write_user_layer({"USER PREFERENCES": [PREFERENCE]})

    context = run_hook("session-start", _start()).context()

    assert "[u-pref-001] helpful=2 harmful=0 :: Answer in short paragraphs" in context


def test_both_layers_are_injected_together_each_entry_once(project_dir: Path):
    write_playbook(project_dir, {"PROJECT CONTEXT": [entry("ctx-001", "Tests live in t/.", 1)]})
    _write_user_layer({"USER PREFERENCES": [PREFERENCE]})

    context = run_hook("session-start", _start()).context()

    assert context.count("[ctx-001]") == 1 and context.count("[u-pref-001]") == 1


def test_in_the_home_folder_each_entry_is_injected_once(home_dir: Path):
    write_playbook(home_dir, {"PROJECT CONTEXT": [entry("ctx-001", "Dotfiles are in ~/src.", 1)]})
    _write_user_layer({"USER PREFERENCES": [PREFERENCE]})

    run = run_hook("session-start", _start(), env={"CLAUDE_PROJECT_DIR": str(home_dir)})

    assert run.context().count("[u-pref-001]") == 1 and run.context().count("[ctx-001]") == 1


def test_a_change_to_the_user_layer_invalidates_the_projects_cached_injection(project_dir: Path):
    write_playbook(project_dir, {"PROJECT CONTEXT": [entry("ctx-001", "Tests live in t/.", 1)]})
    _write_user_layer({"USER PREFERENCES": [PREFERENCE]})
    assert "[u-pref-002]" not in run_hook("session-start", _start("a")).context()
    assert (project_dir / ".claude" / "acecode" / "injection-cache.json").is_file()

    _write_user_layer(
        {"USER PREFERENCES": [PREFERENCE, entry("u-pref-002", "Use British spelling.", 1)]}
    )

    assert (
        "[u-pref-002] helpful=1 harmful=0 :: Use British spelling."
        in run_hook("session-start", _start("b")).context()
    )


def test_user_pins_put_a_user_entry_first_within_the_budget(project_dir: Path):
    many = [entry(f"ctx-{i:03d}", f"Project fact number {i} " + "x" * 80, 5) for i in range(1, 40)]
    write_playbook(project_dir, {"PROJECT CONTEXT": many})
    # As long as the project's entries, so it cannot slip into the room they leave.
    mine = entry("u-ctx-001", "My machines run Linux, like project fact number 0 " + "y" * 80, 0)
    _write_user_layer({"PROJECT CONTEXT": [mine]})
    env = {"ACECODE_INJECTION_BUDGET_CHARS": "3000"}
    assert "[u-ctx-001]" not in run_hook("session-start", _start("a"), env=env).context()

    subprocess.run(
        [sys.executable, "-m", "acecode", "pin", "u-ctx-001"],
        check=True,
        capture_output=True,
        env={**os.environ, **env},
        timeout=HANG_GUARD,
    )

    assert (Path(user_playbook_file()).parent / "acecode" / "pins.json").is_file()
    assert "[u-ctx-001]" in run_hook("session-start", _start("b"), env=env).context()


def test_acecode_off_in_the_project_stops_the_user_layer_there(project_dir: Path):
    _write_user_layer({"USER PREFERENCES": [PREFERENCE]})
    subprocess.run(
        [sys.executable, "-m", "acecode", "off"],
        check=True,
        capture_output=True,
        timeout=HANG_GUARD,
    )

    run = run_hook("session-start", _start())

    assert "u-pref-001" not in run.stdout


def test_a_left_out_user_entry_comes_with_the_prompt_it_is_relevant_to(project_dir: Path):
    topics = ("migrations", "fixtures", "docker", "pagination", "retries", "logging", "flags")
    patterns = [
        entry(f"pat-{i:03d}", f"Pattern {i}: review the {topics[i % 7]} of module {i}.", 3)
        for i in range(1, 200)
    ]
    write_playbook(project_dir, {"PATTERNS & APPROACHES": patterns})
    needle = "Write changelog entries in the imperative mood, like a commit subject."
    _write_user_layer({"PATTERNS & APPROACHES": [entry("u-pat-001", needle, 0)]})
    assert "[u-pat-001]" not in run_hook("session-start", _start()).context()

    prompt = {"session_id": "s1", "hook_event_name": "UserPromptSubmit"}
    topped = run_hook("user-prompt-submit", {**prompt, "prompt": "update the changelog entries"})

    assert f"[u-pat-001] helpful=0 harmful=0 :: {needle}" in topped.context()


def test_a_broken_user_layer_is_named_and_the_project_is_still_injected(project_dir: Path):
    write_playbook(project_dir, {"PROJECT CONTEXT": [entry("ctx-001", "Tests live in t/.", 1)]})
    user = Path(user_playbook_file())
    user.parent.mkdir(parents=True, exist_ok=True)  # the machine key lives beside it
    user.write_text("{not json", encoding="utf-8")

    run = run_hook("session-start", _start())

    assert run.returncode == 0 and "[ctx-001]" in run.context()
    assert run.output()["systemMessage"] == (
        f"acecode: your user layer was not injected: {user}: invalid JSON at line 1 column 2 "
        "(Expecting property name enclosed in double quotes); file left untouched; fix the "
        "file or move it aside (`acecode doctor`)"
    )
    assert run.stderr == ""
    assert user.read_text() == "{not json"
    again = run_hook("session-start", _start("s2"))  # a later session, from the cache: still said
    assert again.output()["systemMessage"] == run.output()["systemMessage"]
