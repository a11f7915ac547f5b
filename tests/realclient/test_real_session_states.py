"""States that stop injection reach the user inside a real Claude Code session.

acecode's SessionStart hook says them in its ``systemMessage``. The real CLI
(2.1.197) shows that on screen as ``SessionStart:startup says: <message>`` and records
it in the session's transcript as an attachment ``{"type": "hook_system_message",
"content": <message>}``; it does not send it to the model. These sessions prove:

- a corrupt playbook is named to the user, and nothing of it reaches the model;
- a project config of ``enabled = false`` followed by a broken line turns acecode off
  (the playbook is not in the model's request) and says so on screen; once the file
  is fixed, the playbook is injected again.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from claude_driver import ClaudeHome
from messages_server import MessagesServer, Reply
from scripted import PLAYBOOK_TAG, Script, is_agent_turn
from test_real_learning import install
from test_real_session_endings import wait_for_log

from acecode.store import save_playbook

RULE = "Run the tests with pytest -q from the repository root."
BROKEN_OFF = "enabled = false\nthis line = is not toml\n"


def _system_messages(claude: ClaudeHome, project: Path) -> list[str]:
    """What the CLI recorded as hook system messages in the project's transcripts."""
    found = []
    for transcript in sorted(claude.sessions_dir(project).glob("*.jsonl")):
        for line in transcript.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            attachment = record.get("attachment") if isinstance(record, dict) else None
            if isinstance(attachment, dict) and attachment.get("type") == "hook_system_message":
                found.append(attachment.get("content"))
    return found


def _toml_error(text: str) -> str:
    with pytest.raises(tomllib.TOMLDecodeError) as parsed:
        tomllib.loads(text)
    return str(parsed.value)


def test_a_corrupt_playbook_is_shown_to_the_user_and_nothing_reaches_the_model(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script(agent=(Reply("Hello."),))
    install(claude, project_dir)
    playbook = project_dir / ".claude" / "playbook.json"
    broken = '{"version": "1.0", "sections": {"OTHERS": [' + json.dumps(RULE)
    playbook.parent.mkdir()
    playbook.write_text(broken)

    done = claude.run_print(project_dir, "Say hello.")
    assert done.returncode == 0, done.stderr

    (message,) = _system_messages(claude, project_dir)
    assert message.startswith(
        "acecode: the playbook was not injected and sessions are not learned from: "
        f"{playbook}: invalid JSON at line 1 column "
    )
    assert message.endswith("fix the file or move it aside (`acecode doctor`)")
    (request,) = server.matching(is_agent_turn)
    assert PLAYBOOK_TAG not in request.text and RULE not in request.text
    assert "the playbook was not injected" not in request.text  # shown, not sent
    assert playbook.read_text() == broken
    # the session's learner stops at the same file, leaving it as it is
    wait_for_log(project_dir, f"{playbook}: invalid JSON")
    assert playbook.read_text() == broken


def test_a_broken_config_that_said_off_keeps_acecode_off_and_says_so_on_screen(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script(agent=(Reply("Hello."),))
    install(claude, project_dir)
    save_playbook(
        {
            "sections": {
                "PATTERNS & APPROACHES": [
                    {"name": "pat-001", "text": RULE, "helpful": 3, "harmful": 0}
                ]
            }
        },
        project_dir / ".claude" / "playbook.json",
    )
    config = project_dir / ".claude" / "acecode.toml"
    config.write_text(BROKEN_OFF)
    line = (
        f"acecode: cannot read {config}: invalid TOML ({_toml_error(BROKEN_OFF)}); "
        "acecode is off in this project until it is fixed"
    )

    session = claude.interactive(project_dir)
    try:
        session.wait_screen(f"SessionStart:startup says: {line}")
        session.submit("Say hello.")
        session.wait_screen("Hello.")
        session.submit("/exit", wait=False)
        session.wait_exit()
    finally:
        session.close()

    (request,) = server.matching(is_agent_turn)
    assert PLAYBOOK_TAG not in request.text and RULE not in request.text
    assert "acecode is off" not in request.text  # shown, not sent
    assert _system_messages(claude, project_dir) == [line]

    config.write_text("enabled = true\n")  # fixed: injected again, nothing to say
    server.requests.clear()
    after = claude.run_print(project_dir, "Say hello again.")
    assert after.returncode == 0, after.stderr
    (request,) = server.matching(is_agent_turn)
    assert f"[pat-001] helpful=3 harmful=0 :: {RULE}" in request.text
    assert _system_messages(claude, project_dir) == [line]
