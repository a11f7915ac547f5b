"""learn.log of a hook-started learner (issue 17): every line stamped, a long LLM wait
shown as it happens, the URL and the variables that chose it named, a budget skip that
promises only what will happen.

The real SessionEnd hook starts the real detached learner (``python -m acecode
learn``); the LLM is a server on 127.0.0.1 that accepts connections and never
answers, with acecode's request timeout set small (``ACECODE_LLM_TIMEOUT``) and
its progress lines due at once (``ACECODE_PROGRESS_AFTER=0``), so that the
assertions are about what the lines say, never about when they came.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hook_helpers import run_hook, wait_for_line

from acecode.agents.claude_code.sessions import sessions_dir
from support.dead_servers import silent_server
from support.pipeline import write_transcript

STAMPED = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S")


def _session(project: Path) -> Path:
    """A session worth learning from (a failed tool call), with one damaged line."""
    path = sessions_dir(project) / "s1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_transcript(path, "why does pytest fail?", "Installed PyYAML.")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{half a record\n")
    return path


def _end_session(transcript: Path, env: dict[str, str]) -> None:
    payload = {"session_id": "s1", "transcript_path": str(transcript), "reason": "other"}
    ended = run_hook("session-end", payload, env=env)
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "", "")


def test_a_server_that_never_answers_is_shown_in_stamped_lines(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hook tests' user has AGENTIC_CONTEXT_API_KEY set; this one keeps the key in
    # ANTHROPIC_API_KEY, so that the log must name a variable other than the URL's.
    monkeypatch.delenv("AGENTIC_CONTEXT_API_KEY")
    log = project_dir / ".claude" / "acecode" / "logs" / "learn.log"
    transcript = _session(project_dir)
    with silent_server() as url:
        host = url.removeprefix("http://")
        _end_session(
            transcript,
            {
                # The key from one variable, the URL from another: both are named.
                "ANTHROPIC_API_KEY": "test-key",
                "AGENTIC_CONTEXT_BASE_URL": url,
                "AGENTIC_CONTEXT_MODEL": "scripted-model",
                "ACECODE_LLM_TIMEOUT": "1",
                "ACECODE_PROGRESS_AFTER": "0",
            },
        )
        failed = wait_for_line(log, "[failed]")

    lines = log.read_text(encoding="utf-8").splitlines()
    assert all(STAMPED.match(line) for line in lines), lines  # no raw stderr line
    assert not any(" acecode: " in line for line in lines)  # in the log's own format
    text = "\n".join(lines)
    # reading and condensing the transcript say so too (a long one takes a while)
    assert " reading s1.jsonl, " in text and " condensing the session for the LLM, " in text
    for attempt in (1, 2, 3):
        assert f" reflector waiting on anthropic ({host}), attempt {attempt} of 3" in text
    for attempt in (1, 2):
        assert f" reflector: anthropic ({host}), attempt {attempt} of 3 failed: " in text
    assert " skipped 1 unreadable line in " in text  # the learner's warning, stamped
    # The failure once, naming the URL it called and the variables that chose it.
    assert text.count("3 attempts used") == 1
    assert f"reflector: anthropic call to {url} failed (3 attempts used)" in failed
    assert failed.endswith(
        "| provider anthropic (ANTHROPIC_API_KEY is set), model scripted-model, "
        f"at {url} (from AGENTIC_CONTEXT_BASE_URL; key from ANTHROPIC_API_KEY)"
    )


def test_a_budget_skip_says_what_the_user_can_do(project_dir: Path) -> None:
    log = project_dir / ".claude" / "acecode" / "logs" / "learn.log"
    transcript = _session(project_dir)
    with silent_server() as url:  # never reached: the budget refuses before any call
        _end_session(
            transcript,
            {
                "AGENTIC_CONTEXT_API_KEY": "test-key",
                "AGENTIC_CONTEXT_BASE_URL": url,
                "AGENTIC_CONTEXT_MODEL": "claude-sonnet-4-6",  # priced
                "ACECODE_DAILY_BUDGET_USD": "0.000001",
            },
        )
        skipped = wait_for_line(log, "[skipped]")

    assert "daily budget (daily_budget_usd" in skipped
    assert (
        "; the session stays due: `acecode bootstrap` learns it when the budget allows, "
        f"`acecode learn {transcript} --ignore-budget` now | provider anthropic"
    ) in skipped
    text = log.read_text(encoding="utf-8")
    assert "learned later" not in text  # nothing learns it by itself
    assert "--ignore-budget learns anyway" not in text  # the CLI's hint, not the hook's
    assert all(STAMPED.match(line) for line in text.splitlines())
