"""acecode with the real Codex CLI (0.169) behind the agent seam, offline.

Codex talks to the scripted Responses server; acecode's background learner
talks to the scripted Messages server through the Anthropic provider. Every
assertion is on what the model received (the requests the server recorded)
or on the files a user would find.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from codex_driver import CodexHome, hook_states
from codex_scripted import CodexScript, exec_command, is_agent_turn
from messages_server import MessagesServer, Reply
from responses_server import ResponsesRecorded, ResponsesServer, item_text
from scripted import PLAYBOOK_TAG, Script
from test_real_install_inject import RULES, write_playbook
from test_real_learning import wait_for_rule

from support.hang_guard import HANG_GUARD

MISSING_DIR = "ls /nonexistent-acecode-codex-reports"
MISSING_MODULE = "python3 -c 'import acecode_missing_codex_module'"
RULE = "Check that a folder exists with test -d before listing it."
CLOSED_RULE = "Ask the user where the build logs are before reading them."
MISSING_LOGS = "cat /nonexistent-acecode-codex-logs/build.log"


def acecode(codex: CodexHome, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=cwd,
        env=codex.env(),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def developer_texts(request: ResponsesRecorded) -> list[str]:
    return [item_text(i) for i in request.items("message") if i["role"] == "developer"]


def first_agent_request(server: ResponsesServer) -> ResponsesRecorded:
    agent = server.matching(is_agent_turn)
    assert agent, "Codex made no request"
    request = agent[0]
    assert isinstance(request, ResponsesRecorded)
    return request


def with_learner(codex: CodexHome, server: MessagesServer) -> None:
    """acecode's learner (run by Codex's hooks) reaches the scripted Messages server."""
    codex.extra_env.update(
        ANTHROPIC_BASE_URL=server.url, ANTHROPIC_API_KEY="sk-ant-realclient-codex-learner"
    )


def learner_roles(rule: str) -> dict:
    return {
        "reflector": {"analysis": "Shell commands failed on missing paths.", "bullet_tags": []},
        "curator": {
            "reasoning": "Record the lesson from the failed commands.",
            "operations": [{"type": "ADD", "section": "MISTAKES TO AVOID", "text": rule}],
        },
    }


def test_install_injects_into_a_real_codex_session_and_uninstall_keeps_other_hooks(
    codex: CodexHome, responses_server: ResponsesServer, project_dir: Path, tmp_path: Path
) -> None:
    # The user already has a hook of their own, approved in Codex's review.
    own = tmp_path / "own-hook.py"
    own.write_text("import sys; sys.stdin.read()\n")
    own_handler = {"type": "command", "command": f"{sys.executable} {own}", "timeout": 30}
    codex.hooks_file.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [own_handler]}]}}))
    codex.trust(project_dir)
    codex.trust_hooks(codex.hooks_file)
    own_states = hook_states(codex.hooks_file)
    write_playbook(project_dir)
    responses_server.responder = CodexScript(agent=(Reply("Noted."),))

    installed = acecode(codex, "install", "--agent", "codex", cwd=project_dir)
    assert "trusted acecode's 7 hooks" in installed.stdout
    again = acecode(codex, "install", "--agent", "codex", cwd=project_dir)
    assert "nothing to change" in again.stdout

    result = codex.run_exec(project_dir, "Where does the API server live?")
    assert result.returncode == 0, result.stderr
    request = first_agent_request(responses_server)
    injected = [text for text in developer_texts(request) if PLAYBOOK_TAG in text]
    assert len(injected) == 1, developer_texts(request)
    assert all(rule in injected[0] for rule in RULES.values())
    assert len(injected[0].encode()) <= 10_000

    acecode(codex, "uninstall", "--agent", "codex", cwd=project_dir)
    hooks = json.loads(codex.hooks_file.read_text())["hooks"]
    assert hooks == {"Stop": [{"hooks": [own_handler]}]}
    states = tomllib.loads(codex.config_file.read_text())["hooks"]["state"]
    assert set(states) == set(own_states)

    responses_server.requests.clear()
    result = codex.run_exec(project_dir, "Where does the API server live?")
    assert result.returncode == 0, result.stderr
    after = first_agent_request(responses_server)
    assert not any(RULES["MISTAKES TO AVOID"] in text for text in developer_texts(after))


def test_a_codex_session_with_failing_commands_is_learned_and_taught_to_the_next(
    codex: CodexHome,
    responses_server: ResponsesServer,
    server: MessagesServer,
    project_dir: Path,
) -> None:
    with_learner(codex, server)
    server.responder = Script(roles=learner_roles(RULE))
    responses_server.responder = CodexScript(
        agent=(
            Reply(tool_calls=(exec_command(MISSING_DIR),)),
            Reply(tool_calls=(exec_command(MISSING_MODULE),)),
            Reply("The reports folder does not exist here."),
        )
    )
    codex.trust(project_dir)
    acecode(codex, "install", "--agent", "codex", cwd=project_dir)

    first = codex.run_exec(project_dir, "List the reports folder and import the module.")
    assert first.returncode == 0, first.stderr
    wait_for_rule(project_dir, RULE)

    (reflected,) = [
        r.text for r in server.requests if "CITATION" in r.text or MISSING_DIR in r.text
    ]
    assert MISSING_DIR in reflected and "No such file or directory" in reflected
    assert "CALL (failed): exec_command" in reflected
    log = (project_dir / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    assert "session-end: learning from" in log and "rollout-" in log

    responses_server.requests.clear()
    responses_server.responder = CodexScript(agent=(Reply("Checking first."),))
    second = codex.run_exec(project_dir, "Where are the reports?")
    assert second.returncode == 0, second.stderr
    assert any(RULE in text for text in developer_texts(first_agent_request(responses_server)))


def test_a_codex_session_closed_without_session_end_is_caught_up_at_the_next_start(
    codex: CodexHome,
    responses_server: ResponsesServer,
    server: MessagesServer,
    project_dir: Path,
) -> None:
    with_learner(codex, server)
    server.responder = Script(roles=learner_roles(CLOSED_RULE))
    responses_server.responder = CodexScript(
        agent=(
            Reply(tool_calls=(exec_command(MISSING_LOGS),)),
            Reply("The build log is not there."),
        )
    )
    codex.trust(project_dir)
    acecode(codex, "install", "--agent", "codex", cwd=project_dir)

    ui = codex.interactive(project_dir)
    try:
        ui.submit("Read the build log.")
    finally:
        ui.close()  # the terminal goes away: Codex fires no SessionEnd
    # Give a stray hook (one Codex might have started in a session of its own) a moment
    # to write; a loaded machine can only make this check miss one, never fail wrongly.
    time.sleep(2)
    log = project_dir / ".claude" / "acecode" / "logs" / "learn.log"
    assert not log.exists() or "session-end" not in log.read_text()
    assert not (project_dir / ".claude" / "playbook.json").exists()

    responses_server.responder = CodexScript(agent=(Reply("Hello."),))
    started = codex.run_exec(project_dir, "Hello.")
    assert started.returncode == 0, started.stderr
    wait_for_rule(project_dir, CLOSED_RULE)
    assert "catch-up: learning 1 earlier codex session" in log.read_text()
    reflected = [r.text for r in server.requests if MISSING_LOGS in r.text]
    assert reflected and "No such file or directory" in reflected[0]

    responses_server.requests.clear()
    third = codex.run_exec(project_dir, "Where are the build logs?")
    assert third.returncode == 0, third.stderr
    request = first_agent_request(responses_server)
    assert any(CLOSED_RULE in text for text in developer_texts(request))
