"""A preference learned in project A reaches a session in project B, through the real CLI.

Session A (``claude -p`` in project A) fails two commands; its real SessionEnd
hook starts acecode's background learner, whose scripted curator ADDs a rule
with ``"scope": "user"``. The rule lands in the user layer
(``~/.claude/acecode-user/playbook.json``), not in project A's playbook. Then a
session in project B, which has no playbook of its own, sends the model a
request that carries the preference, injected by B's SessionStart hook.
"""

from __future__ import annotations

import json
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Reply
from scripted import Script, acecode_role, bash, is_agent_turn
from test_real_learning import MISSING_DIR, MISSING_MODULE, install, wait_for_rule

PREFERENCE = "Answer in short paragraphs without headings unless asked for a report."
PROJECT_RULE = "Check that a folder exists with test -d before listing it."


def test_a_preference_learned_in_project_a_reaches_a_session_in_project_b(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, home_dir: Path
) -> None:
    project_a, project_b = project_dir, project_dir.parent / "project-b"
    project_b.mkdir()
    server.responder = Script(
        agent=(
            Reply(tool_calls=(bash(MISSING_DIR),)),
            Reply(tool_calls=(bash(MISSING_MODULE),)),
            Reply("The reports folder does not exist here."),
        ),
        roles={
            "reflector": {"analysis": "The user wants short answers.", "bullet_tags": []},
            "curator": {
                "reasoning": "One preference of the user, one fact of this project.",
                "operations": [
                    {
                        "type": "ADD",
                        "section": "USER PREFERENCES",
                        "text": PREFERENCE,
                        "scope": "user",
                    },
                    {"type": "ADD", "section": "MISTAKES TO AVOID", "text": PROJECT_RULE},
                ],
            },
        },
    )
    install(claude, project_a)

    first = claude.run_print(project_a, "List the reports folder and import the module.")
    assert first.returncode == 0, first.stderr
    user_layer = home_dir / ".claude" / "acecode-user" / "playbook.json"
    wait_for_rule(project_a, PREFERENCE, playbook=user_layer)
    wait_for_rule(project_a, PROJECT_RULE)

    learned_by = {acecode_role(r) for r in server.requests} - {None}
    assert {"reflector", "curator"} <= learned_by
    user_entries = json.loads(user_layer.read_text())["sections"]["USER PREFERENCES"]
    assert user_entries == [{"name": "u-pref-001", "text": PREFERENCE, "helpful": 0, "harmful": 0}]
    assert PREFERENCE not in (project_a / ".claude" / "playbook.json").read_text()
    assert (home_dir / ".claude" / "acecode-user" / "acecode" / "history.sqlite").is_file()
    assert not (project_b / ".claude" / "playbook.json").exists()

    server.requests.clear()
    second = claude.run_print(project_b, "Where are the reports?")
    assert second.returncode == 0, second.stderr

    received = server.matching(is_agent_turn)[0].text
    assert f"[u-pref-001] helpful=0 harmful=0 :: {PREFERENCE}" in received
    assert PROJECT_RULE not in received
