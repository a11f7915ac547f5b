"""What a Codex user reads (issue 29): no line tells them to start Claude Code, every
`acecode install` they are told to run is `acecode install --agent codex`, and doctor
does not call a Codex-only setup "not installed". Real `python -m acecode` subprocesses
in a fresh home."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_users import fresh_user
from test_cli_commands import run

from acecode.agents import get_agent

INSTALL = re.compile(r"`acecode install([^`]*)`")


@pytest.fixture
def env(project_dir: Path, home_dir: Path, tmp_path: Path) -> dict[str, str]:
    """A fresh home and a project; no provider, no `claude` on PATH."""
    return fresh_user(project_dir, tmp_path)


def _codex_lines(text: str) -> None:
    """Every line a Codex user reads: nothing about Claude Code, installs for Codex."""
    assert "Claude Code" not in text, text
    for options in INSTALL.findall(text):
        assert "--agent codex" in options, text


def test_install_and_uninstall_for_codex_speak_of_codex(env: dict[str, str]) -> None:
    with_provider = {**env, "AGENTIC_CONTEXT_API_KEY": "sk-test"}

    installed = run("install", "--agent", "codex", env=with_provider)
    again = run("install", "--agent", "codex", env=with_provider)
    removed = run("uninstall", "--agent", "codex", env=with_provider)

    assert "start Codex from a shell with the same settings" in installed.stdout
    assert "(`acecode install --agent codex` writes it again)" in removed.stdout
    for done in (installed, again, removed):
        _codex_lines(done.stdout + done.stderr)


def test_doctor_with_only_codex_hooks_is_not_a_missing_install(env: dict[str, str]) -> None:
    with_provider = {**env, "AGENTIC_CONTEXT_API_KEY": "sk-test"}
    run("install", "--agent", "codex", env=with_provider)

    out = run("doctor", env=with_provider, check_exit=0).stdout

    codex = out.split("Codex hooks", 1)[1].splitlines()[1].strip()
    events = ", ".join(hook.event for hook in get_agent("codex").hook_events)
    assert codex.startswith("user: ") and codex.endswith(f"hooks.json ({events})")
    claude = out.split("Claude Code hooks", 1)[1].splitlines()[1].strip()
    assert claude == "none (`acecode install` adds them, if you use Claude Code)"
    assert "[problem]" not in out


def test_doctor_with_no_hooks_anywhere_names_both_commands(env: dict[str, str]) -> None:
    out = run("doctor", env={**env, "AGENTIC_CONTEXT_API_KEY": "sk-test"}, check_exit=1).stdout

    assert (
        "[problem] not installed: run `acecode install` (Claude Code) or "
        "`acecode install --agent codex` (Codex CLI)"
    ) in out
