"""Two install scopes and a subfolder session, through the real Claude Code CLI.

With acecode installed at user scope and at project scope (and as the plugin),
Claude Code runs every copy of every hook, in parallel. The model's request must
still carry the playbook once, and the session must be learned from once: one
learner started, one reflector call and one curator call at the scripted server.

A session started in a subfolder of the project (Claude Code then sets
``CLAUDE_PROJECT_DIR`` to that subfolder) must get the project's playbook, and
what it teaches must land in the project's playbook, not in a new one in the
subfolder.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Reply
from scripted import PLAYBOOK_TAG, Script, acecode_role, bash, is_agent_turn
from test_real_install_inject import RULES, acecode, carries_playbook, write_playbook
from test_real_learning import MISSING_DIR, MISSING_MODULE, curation_for, wait_for_rule
from test_real_plugin_launcher import install_plugin

from acecode.project import outcomes
from support.hang_guard import HANG_GUARD, wait_until

LEARNED_RULE = "Check that a folder exists with test -d before listing it."


def _failing_session_script() -> Script:
    """An agent whose two commands fail, and the roles that turn that into one rule."""
    return Script(
        agent=(
            Reply(tool_calls=(bash(MISSING_DIR),)),
            Reply(tool_calls=(bash(MISSING_MODULE),)),
            Reply("The reports folder does not exist here."),
        ),
        roles={
            "reflector": {"analysis": "Commands failed on missing paths.", "bullet_tags": []},
            "curator": curation_for(LEARNED_RULE),
        },
    )


def _allow_bash(claude: ClaudeHome) -> None:
    """Let the scripted Bash calls run without a permission prompt (user settings)."""
    settings = json.loads(claude.settings_file.read_text())
    settings["permissions"] = {"allow": ["Bash"]}
    claude.settings_file.write_text(json.dumps(settings))


def _wait_for_cycles(project: Path, count: int) -> list[dict]:
    """The learning cycles recorded for ``project`` once there are ``count`` of them."""
    state = project / ".claude" / "acecode"
    log = state / "logs" / "learn.log"

    def enough() -> list[dict]:
        records = outcomes.read_outcomes(state)
        return records if len(records) >= count else []

    return wait_until(
        enough,
        lambda: (
            f"{count} cycle(s) in {state}; learn.log:\n"
            + (log.read_text() if log.exists() else "(none)")
        ),
    )


def _learners_started(project: Path) -> list[str]:
    """The hooks' "learning from" lines in the project's learn.log."""
    log = project / ".claude" / "acecode" / "logs" / "learn.log"
    return [line for line in log.read_text().splitlines() if ": learning from " in line]


def test_two_scopes_and_the_plugin_inject_once_and_learn_once(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = _failing_session_script()
    write_playbook(project_dir)
    installed = acecode("install", cwd=project_dir, env=claude.env())
    assert "warning" not in installed.stdout
    both = acecode("install", "--scope", "project", cwd=project_dir, env=claude.env())
    said = " ".join(both.stdout.split())
    assert f"{claude.settings_file} (user scope)" in said
    assert f"{project_dir / '.claude' / 'settings.json'} (project scope)" in said
    assert "learns once per session anyway" in said
    install_plugin(claude, project_dir)
    _allow_bash(claude)

    result = claude.run_print(project_dir, "List the reports folder and import the module.")
    assert result.returncode == 0, result.stderr

    agent = server.matching(is_agent_turn)
    assert carries_playbook(agent[0])
    assert [request.text.count(PLAYBOOK_TAG) for request in agent] == [1] * len(agent)

    wait_for_rule(project_dir, LEARNED_RULE)
    (cycle,) = _wait_for_cycles(project_dir, 1)
    assert cycle["status"] in outcomes.LEARNED, cycle
    started = _learners_started(project_dir)
    assert len(started) == 1 and "session-end: learning from" in started[0], started
    roles = [acecode_role(request) for request in server.requests]
    assert roles.count("reflector") == 1
    assert roles.count("curator") == 1


def test_a_session_started_in_a_subfolder_uses_and_teaches_the_projects_playbook(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = _failing_session_script()
    subprocess.run(["git", "init", "-q"], cwd=project_dir, check=True, timeout=HANG_GUARD)
    write_playbook(project_dir)
    deeper = project_dir / "sub" / "deeper"
    deeper.mkdir(parents=True)
    acecode("install", cwd=deeper, env=claude.env())
    _allow_bash(claude)

    result = claude.run_print(deeper, "List the reports folder and import the module.")
    assert result.returncode == 0, result.stderr

    first = server.matching(is_agent_turn)[0]
    assert carries_playbook(first), first.text[-3000:]
    assert first.text.count(PLAYBOOK_TAG) == 1
    assert all(rule in first.text for rule in RULES.values())
    wait_for_rule(project_dir, LEARNED_RULE)
    assert not (deeper / ".claude").exists()
    assert not (project_dir / "sub" / ".claude").exists()
    (started,) = _learners_started(project_dir)
    assert str(claude.sessions_dir(deeper)) in started  # Claude Code filed it under deeper


def test_two_scopes_reinject_once_after_compact_and_clear_and_learn_once_per_event(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_playbook(project_dir)
    acecode("install", cwd=project_dir, env=claude.env())
    acecode("install", "--scope", "project", cwd=project_dir, env=claude.env())
    session = claude.interactive(project_dir)
    try:
        for turn in range(4):  # /compact refuses a conversation shorter than this
            session.submit(f"Turn {turn}: tell me about the project in detail.")
            server.wait_for(is_agent_turn, count=turn + 1)
        session.submit("/compact")
        session.wait_screen("Compacted")
        session.submit("And after the compaction?")
        session.submit("/clear")
        session.submit("A fresh start after clear.")
        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()

    def last_request_with(words: str) -> str:
        return [r.text for r in server.matching(is_agent_turn) if words in r.text][-1]

    for words in ("Turn 0:", "And after the compaction?", "A fresh start after clear."):
        text = last_request_with(words)
        assert text.count(PLAYBOOK_TAG) == 1, words
        assert all(rule in text for rule in RULES.values()), words
    started = [
        line.split(": learning from")[0].split()[-1] for line in _learners_started(project_dir)
    ]
    assert sorted(started) == ["pre-compact", "session-end", "session-end"], started


def test_a_session_resumed_twice_in_a_row_keeps_the_playbook_once(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    """``--resume`` keeps the session id and its ``SessionStart`` has no prompt id, so the
    claim tells a second resume within its 60 s from a copy by the Claude Code process that
    runs the hooks: each resume injects once (acecode installed in two scopes), and the
    model has the playbook once in every request."""
    server.responder = Script()
    write_playbook(project_dir)
    acecode("install", cwd=project_dir, env=claude.env())
    acecode("install", "--scope", "project", cwd=project_dir, env=claude.env())
    first = claude.run_print(project_dir, "Start the session.")
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    claims = claude.home / ".claude" / "acecode-user" / "acecode" / "claims" / session
    for prompt in ("Resumed once.", "Resumed twice."):
        resumed = claude.run_print(project_dir, prompt, "--resume", session)
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["session_id"] == session
        # However slow this machine, the claims stay younger than 60 s until the next resume.
        young = time.time() + 3600
        for made in claims.glob("SessionStart.resume.*"):
            os.utime(made, (young, young))

    resumes = sorted(path.name for path in claims.glob("SessionStart.resume.*"))
    assert resumes == ["SessionStart.resume.0", "SessionStart.resume.1"]
    agent = server.matching(is_agent_turn)
    assert len(agent) == 3
    assert all(carries_playbook(request) for request in agent)
    assert [request.text.count(PLAYBOOK_TAG) for request in agent] == [1, 1, 1]
