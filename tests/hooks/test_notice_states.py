"""Every state that stops injection or learning reaches the user as the SessionStart
``systemMessage``, one line each naming the file and the fix, through real hook
processes; and the answers come from caches, so a session start stays cheap.

(The corrupt project playbook is in test_hooks_inject.py, the broken user layer in
test_user_layer_injection.py, a failed last cycle and the review queue in test_notice.py.)
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tomllib
import uuid
from pathlib import Path

import pytest
from hook_helpers import HookRun, run_hook

from acecode.cost.ledger import Ledger, stamp
from acecode.project import outcomes

NO_PROVIDER = ("AGENTIC_CONTEXT_API_KEY", "AGENTIC_CONTEXT_BASE_URL")


def _new_session() -> dict[str, str]:
    """A new session's start, as Claude Code sends it: every new session has its own id."""
    return {"session_id": uuid.uuid4().hex, "source": "startup"}


def _start(**kwargs) -> HookRun:
    """A new session starts; a render (a cache miss) may also warn on stderr, one line each."""
    run = run_hook("session-start", _new_session(), **kwargs)
    assert run.returncode == 0
    assert all(line.startswith("acecode: ") for line in run.stderr.splitlines()), run.stderr
    return run


def _lines(run: HookRun) -> list[str]:
    return run.output().get("systemMessage", "").splitlines() if run.stdout else []


def _injected(run: HookRun) -> bool:
    return bool(run.stdout) and "hookSpecificOutput" in run.output()


def _bare_path(tmp_path: Path) -> dict[str, str]:
    """A PATH of one empty folder: no `claude` command, whatever this machine has."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    return {"PATH": str(folder)}


def _toml_error(text: str) -> str:
    with pytest.raises(tomllib.TOMLDecodeError) as parsed:
        tomllib.loads(text)
    return str(parsed.value)


BROKEN_OFF = "enabled = false\nthis line = is not toml\n"


@pytest.mark.parametrize("where", [".claude/acecode.toml", ".claude/acecode/switch.toml"])
def test_an_unreadable_project_switch_file_never_injects_and_says_so(
    project_dir: Path, playbook: Path, where: str
) -> None:
    path = project_dir / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BROKEN_OFF)
    expected = [
        f"acecode: cannot read {path}: invalid TOML ({_toml_error(BROKEN_OFF)}); "
        "acecode is off in this project until it is fixed"
    ]
    for _ in range(2):  # rendered, then from the injection cache
        run = _start()
        assert not _injected(run)
        assert _lines(run) == expected
    prompt = run_hook("user-prompt-submit", {"session_id": "s2", "prompt": "run the tests"})
    assert (prompt.stdout, prompt.stderr) == ("", "")

    path.write_text("enabled = true\n")
    fixed = _start()
    assert "[pat-001]" in fixed.context() and "systemMessage" not in fixed.output()


def test_an_unreadable_user_file_turns_acecode_off_everywhere_and_says_so(
    project_dir: Path, home_dir: Path, playbook: Path, tmp_path: Path
) -> None:
    path = home_dir / ".claude" / "acecode.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("opt_in = true\ndaily_budget_usd = [\n")
    line = (
        f"acecode: cannot read {path}: invalid TOML ({_toml_error(path.read_text())}); "
        "acecode is off in every project until it is fixed"
    )
    run = _start()
    assert not _injected(run) and _lines(run) == [line]
    elsewhere = tmp_path / "no-playbook-here"
    elsewhere.mkdir()
    other = _start(env={"CLAUDE_PROJECT_DIR": str(elsewhere)})
    assert _lines(other) == [line]
    assert not (elsewhere / ".claude").exists()


def test_an_ignored_setting_is_named_and_injection_goes_on(
    project_dir: Path, playbook: Path
) -> None:
    path = project_dir / ".claude" / "acecode.toml"
    path.write_text('max_rule_chars = "lots"\nreveiw = "all"\n')
    run = _start()
    assert "[pat-001]" in run.context()
    assert _lines(run) == [
        f'acecode: {path}: max_rule_chars = "lots" is not a whole number, 0 or more; ignored',
        f"acecode: {path}: unknown key reveiw ignored (did you mean review?)",
    ]


def test_no_provider_is_said_at_the_first_session_even_without_a_playbook(
    project_dir: Path, tmp_path: Path
) -> None:
    run = _start(drop_env=NO_PROVIDER, env=_bare_path(tmp_path))
    (line,) = _lines(run)
    assert line.startswith(
        "acecode: no LLM provider is configured, so sessions are not learned from: "
        "set ANTHROPIC_API_KEY"
    )
    assert "`claude` command on PATH" in line
    assert not (project_dir / ".claude").exists()  # nothing written in the project


def test_no_provider_is_not_said_where_acecode_is_off(project_dir: Path, tmp_path: Path) -> None:
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "acecode.toml").write_text("enabled = false\n")
    run = _start(drop_env=NO_PROVIDER, env=_bare_path(tmp_path))
    (line,) = json.loads(run.stdout)["systemMessage"].splitlines()
    assert line.startswith("acecode: off in this project")  # and nothing about a provider


def test_no_provider_says_more_than_an_older_failure(
    project_dir: Path, playbook: Path, tmp_path: Path
) -> None:
    state = project_dir / ".claude" / "acecode"
    outcomes.record_outcome(state, {"cycle_id": "c1", "status": "failed", "reason": "HTTP 500"})
    assert _lines(_start())[0].startswith("acecode: the last learning cycle failed: HTTP 500")
    (line,) = _lines(_start(drop_env=NO_PROVIDER, env=_bare_path(tmp_path)))
    assert line.startswith("acecode: no LLM provider is configured")


def test_installing_the_claude_command_ends_the_no_provider_notice(
    project_dir: Path, playbook: Path, tmp_path: Path
) -> None:
    """The answer is cached; the PATH folder's change is part of its key."""
    env = _bare_path(tmp_path)
    assert _lines(_start(drop_env=NO_PROVIDER, env=env))[0].startswith(
        "acecode: no LLM provider is configured"
    )
    claude = Path(env["PATH"]) / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
    assert "systemMessage" not in _start(drop_env=NO_PROVIDER, env=env).output()


def test_a_misconfigured_provider_is_named(project_dir: Path, playbook: Path) -> None:
    run = _start(env={"ACECODE_PROVIDER": "openai"})
    assert _lines(run) == [
        "acecode: sessions are not learned from: the openai provider needs a model name: set "
        "ACECODE_OPENAI_MODEL (or AGENTIC_CONTEXT_MODEL, OPENAI_MODEL) (`acecode doctor`)"
    ]


def _spent(usd: float) -> None:
    Ledger().append(
        {
            "kind": "cycle",
            "cycle_id": "earlier",
            "time": stamp(),
            "project": "/elsewhere",
            "cost_usd": usd,
            "cost_basis": "estimated",
            "input_tokens": 1,
            "output_tokens": 1,
        }
    )


def test_a_spent_budget_is_said_and_a_raised_one_is_not(
    project_dir: Path, home_dir: Path, playbook: Path
) -> None:
    _spent(1.25)  # the default daily budget is $1
    user_file = home_dir / ".claude" / "acecode.toml"
    assert _lines(_start()) == [
        "acecode: learning is paused until tomorrow: $1.25 spent today reached "
        f"daily_budget_usd = $1.00 (`acecode cost`; budgets are set in {user_file})"
    ]
    user_file.parent.mkdir(exist_ok=True)
    user_file.write_text("daily_budget_usd = 5\n")
    assert "systemMessage" not in _start().output()


def test_a_refused_cycle_is_said_until_a_cycle_is_admitted(
    project_dir: Path, playbook: Path
) -> None:
    _spent(0.9)
    reason = "daily budget (daily_budget_usd = $1.00) would be exceeded: $0.90 spent today"
    Ledger().append({"kind": "refuse", "time": stamp(), "period": "day", "reason": reason})
    (line,) = _lines(_start())
    assert line.startswith(
        f"acecode: learning is paused until tomorrow: the last cycle was refused: {reason}"
    )
    Ledger().append({"kind": "reserve", "cycle_id": "small", "time": stamp(), "pid": 1})
    assert "systemMessage" not in _start().output()


def _imported(run: HookRun) -> set[str]:
    return {
        line.split("|")[-1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }


def test_a_session_start_with_every_answer_cached_reads_no_toml_and_asks_no_registry(
    project_dir: Path, playbook: Path, tmp_path: Path
) -> None:
    """All states present and cached: the second session start imports neither the
    provider registry, the cost ledger, the settings nor a TOML parser."""
    (project_dir / ".claude" / "acecode.toml").write_text('max_rule_chars = "lots"\n')
    _spent(1.25)
    env = _bare_path(tmp_path)
    first = _start(drop_env=NO_PROVIDER, env=env)
    assert len(_lines(first)) == 3
    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", "session-start"]
    run = run_hook("session-start", _new_session(), drop_env=NO_PROVIDER, env=env, command=command)
    assert json.loads(run.stdout) == first.output()
    heavy = {"acecode.llm", "acecode.cost.ledger", "acecode.project.config", "tomllib", "pathlib"}
    assert _imported(run) & heavy == set()


def test_the_cache_of_the_users_checks_holds_no_secret(
    project_dir: Path, home_dir: Path, playbook: Path
) -> None:
    secret = "sk-ant-api03-do-not-write-me"
    _start(env={"ANTHROPIC_API_KEY": secret, "ANTHROPIC_BASE_URL": "http://user:pw@host"})
    cache = home_dir / ".claude" / "acecode-user" / "acecode" / "session-checks.json"
    text = cache.read_text()
    assert secret not in text and "user:pw" not in text
    assert (cache.parent / ".gitignore").exists()
    assert os.environ["AGENTIC_CONTEXT_API_KEY"] not in text
