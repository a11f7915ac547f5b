"""Issue 19 through the real client: the SessionEnd hook of Claude Code 2.1.197 starts the
learner, whose triage reads the session before any LLM call. A session without a learning
signal costs nothing and says so in learn.log; one where the user states a preference is
learned, and its prompts mark their fixed instructions for the prompt cache.
"""

from __future__ import annotations

import time
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Reply
from scripted import Script, acecode_role
from test_real_learning import install, wait_for_rule

from support.hang_guard import HANG_GUARD

RULE = "Use double quotes for string literals in the TypeScript code."
SECTION = "USER PREFERENCES"


def wait_for_log(project: Path, text: str, timeout: float = HANG_GUARD) -> str:
    log = project / ".claude" / "acecode" / "logs" / "learn.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text():
            return log.read_text()
        time.sleep(0.25)
    raise AssertionError(
        f"{text!r} never reached {log}:\n" + (log.read_text() if log.exists() else "")
    )


def test_a_session_without_signal_costs_nothing_and_a_preference_is_learned(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script(
        agent=(Reply("Done."), Reply("Noted: double quotes from now on.")),
        roles={
            "reflector": {"findings": ["The user wants double quotes in TypeScript."], "tags": []},
            "curator": {
                "reasoning": "A stated preference.",
                "operations": [{"type": "ADD", "section": SECTION, "text": RULE}],
            },
        },
    )
    install(claude, project_dir)
    # Even one-request sessions are big enough for this user: only the triage decides.
    (claude.home / ".claude" / "acecode.toml").write_text(
        "learn_min_requests = 0\nlearn_min_tool_calls = 0\n"
    )

    quiet = claude.run_print(project_dir, "Rename the helper to formatDate.")
    assert quiet.returncode == 0, quiet.stderr
    log = wait_for_log(project_dir, "nothing to learn (triage)")
    assert "[nothing-new]" in log and "no LLM call, $0" in log
    assert [r for r in server.requests if acecode_role(r)] == []

    stated = claude.run_print(project_dir, "From now on always use double quotes in TypeScript.")
    assert stated.returncode == 0, stated.stderr
    wait_for_rule(project_dir, RULE)
    (curator,) = [r for r in server.requests if acecode_role(r) == "curator"]
    head = curator.body["messages"][0]["content"][0]
    assert head["cache_control"]["type"] == "ephemeral"
    assert head["text"].startswith("You are the curator of acecode")
