"""The lead's commands as a user runs them: real `python -m acecode` subprocesses."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.store import save_playbook
from support.hang_guard import HANG_GUARD

ENTRY = {"name": "pat-001", "text": "Run pytest -x first.", "helpful": 2, "harmful": 0}


def run(*args: str, env: dict[str, str], check_exit: int | None = 0) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    if check_exit is not None:
        assert result.returncode == check_exit, result.stderr
    return result


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    values = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ACECODE_", "AGENTIC_", "ANTHROPIC_", "OPENAI_"))
    }
    values.update(
        {"HOME": str(tmp_path / "home"), "CLAUDE_PROJECT_DIR": str(project), "COLUMNS": "200"}
    )
    values["PATH"] = str(tmp_path / "empty-bin")  # no `claude` on PATH
    values["PATH"] += os.pathsep + str(Path(sys.executable).parent)
    return values


def playbook_of(env: dict[str, str]) -> Path:
    return Path(env["CLAUDE_PROJECT_DIR"]) / ".claude" / "playbook.json"


def test_show_in_every_format(env):
    save_playbook({"sections": {"PATTERNS & APPROACHES": [ENTRY]}}, playbook_of(env))

    table = run("show", env=env).stdout
    markdown = run("show", "--format", "md", env=env).stdout
    as_json = json.loads(run("show", "--format", "json", env=env).stdout)

    assert "pat-001" in table and "Run pytest -x first." in table
    assert markdown.strip() == (
        "## PATTERNS & APPROACHES\n[pat-001] helpful=2 harmful=0 :: Run pytest -x first."
    )
    assert as_json["sections"]["PATTERNS & APPROACHES"] == [ENTRY]


def test_show_and_learn_refuse_a_corrupt_playbook_in_one_line(env, tmp_path):
    playbook_of(env).write_text('{"sections": [1, 2', encoding="utf-8")
    transcript = tmp_path / "s.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')

    shown = run("show", env=env, check_exit=1)
    learned = run("learn", str(transcript), env=env, check_exit=1)

    for result in (shown, learned):
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("acecode: ") and "playbook.json" in lines[0]
        assert "invalid JSON" in lines[0]
    assert playbook_of(env).read_text() == '{"sections": [1, 2'


def test_doctor_explains_what_is_missing(env):
    result = run("doctor", env=env, check_exit=1)  # problems found: exit status 1

    out = result.stdout
    assert "no LLM provider is configured" in out
    assert "not installed: run `acecode install`" in out
    assert "no learning cycle has run yet" in out
    assert re.search(r"\b\d+ problems? found", out)


def test_doctor_names_the_provider_and_the_installed_hooks(env):
    env = {**env, "ACECODE_PROVIDER": "anthropic", "AGENTIC_CONTEXT_API_KEY": "sk-test"}
    run("install", env=env)

    out = run("doctor", env=env).stdout  # nothing wrong: exit status 0

    assert out.rstrip().endswith("all good")
    assert "provider: anthropic" in out
    assert "sk-test" not in out
    assert f"user: {Path(env['HOME']) / '.claude' / 'settings.json'}" in out


def test_learn_without_a_provider_changes_nothing_and_says_why(env, tmp_path):
    save_playbook({"sections": {"PATTERNS & APPROACHES": [ENTRY]}}, playbook_of(env))
    before = playbook_of(env).read_bytes()
    transcript = tmp_path / "s.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')

    result = run("learn", str(transcript), env=env, check_exit=1)

    assert playbook_of(env).read_bytes() == before
    assert "[failed] s.jsonl: no LLM provider is configured" in result.stdout
    log = playbook_of(env).parent / "acecode" / "logs" / "learn.log"
    assert "[failed] s.jsonl: no LLM provider is configured" in log.read_text()
    doctor = run("doctor", env=env, check_exit=1).stdout  # a failed cycle is a problem
    assert "[problem] " in doctor
    assert "(cli, s.jsonl): failed: no LLM provider is configured" in doctor
