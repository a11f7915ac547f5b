"""The real Claude Code CLI injects the playbook however acecode was installed, and again
after ``/compact`` and ``/clear``: asserted on the requests the model received."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded
from scripted import PLAYBOOK_TAG, Script, is_agent_turn

from acecode.playbook.schema import empty_playbook
from acecode.store import save_playbook
from support.hang_guard import HANG_GUARD

REPO = Path(__file__).resolve().parents[2]
RULES = {
    "MISTAKES TO AVOID": "Never run the migrations against the shared staging database.",
    "USER PREFERENCES": "The user wants commit messages in the imperative mood.",
    "PROJECT CONTEXT": "The API server lives in services/api and starts with make serve.",
}


def write_playbook(project: Path) -> None:
    playbook = empty_playbook()
    for number, (section, text) in enumerate(RULES.items(), start=1):
        slug = {"MISTAKES TO AVOID": "mis", "USER PREFERENCES": "pref", "PROJECT CONTEXT": "ctx"}
        playbook["sections"][section].append(
            {"name": f"{slug[section]}-{number:03d}", "text": text, "helpful": 1, "harmful": 0}
        )
    save_playbook(playbook, project / ".claude" / "playbook.json")


def acecode(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert result.returncode == 0, result.stderr
    return result


def carries_playbook(request: Recorded) -> bool:
    return PLAYBOOK_TAG in request.text and all(rule in request.text for rule in RULES.values())


def assert_injected_once(server: MessagesServer) -> None:
    agent = server.matching(is_agent_turn)
    assert agent, "the agent made no request"
    assert carries_playbook(agent[0]), agent[0].text[-3000:]
    assert agent[0].text.count(PLAYBOOK_TAG) == 1


def test_user_scope_install_injects_into_a_real_session(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_playbook(project_dir)
    acecode("install", "--scope", "user", cwd=project_dir, env=claude.env())
    assert "acecode" in claude.settings_file.read_text()

    result = claude.run_print(project_dir, "What should I know about this project?")
    assert result.returncode == 0, result.stderr
    assert_injected_once(server)


def test_project_scope_install_injects_into_a_real_session(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_playbook(project_dir)
    acecode("install", "--scope", "project", cwd=project_dir, env=claude.env())
    assert not claude.settings_file.exists()
    assert "acecode hook" in (project_dir / ".claude" / "settings.json").read_text()

    result = claude.run_print(project_dir, "What should I know about this project?")
    assert result.returncode == 0, result.stderr
    assert_injected_once(server)


def test_plugin_install_injects_into_a_real_session(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_playbook(project_dir)
    env = claude.env()
    for command in (
        ["plugin", "marketplace", "add", str(REPO)],
        ["plugin", "install", "acecode@acecode"],
    ):
        done = subprocess.run(
            [str(claude.claude_bin), *command],
            cwd=project_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    enabled = json.loads(claude.settings_file.read_text()).get("enabledPlugins", {})
    assert enabled.get("acecode@acecode") is True

    result = claude.run_print(project_dir, "What should I know about this project?")
    assert result.returncode == 0, result.stderr
    assert_injected_once(server)


def test_injection_at_startup_after_compact_and_after_clear(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_playbook(project_dir)
    acecode("install", "--scope", "user", cwd=project_dir, env=claude.env())
    session = claude.interactive(project_dir)
    try:
        for turn in range(4):  # /compact refuses a conversation shorter than this
            session.submit(f"Turn {turn}: tell me about the project in detail.")
            server.wait_for(is_agent_turn, count=turn + 1)
        first = server.matching(is_agent_turn)[0]
        assert carries_playbook(first), "not injected at startup"

        session.submit("/compact")
        session.wait_screen("Compacted")
        session.submit("And after the compaction?")
        after_compact = server.wait_for(
            lambda r: is_agent_turn(r) and "And after the compaction?" in r.text
        )[-1]
        assert carries_playbook(after_compact), "not injected again after /compact"
        assert "Turn 0:" not in after_compact.text  # the old context really was summarised

        session.submit("/clear")
        session.submit("A fresh start after clear.")
        after_clear = server.wait_for(
            lambda r: is_agent_turn(r) and "A fresh start after clear." in r.text
        )[-1]
        assert carries_playbook(after_clear), "not injected after /clear"
        assert "And after the compaction?" not in after_clear.text
        assert after_clear.text.count(PLAYBOOK_TAG) == 1

        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()


def test_a_pinned_entry_reaches_the_model_first_in_its_section_as_show_injected_says(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    playbook = empty_playbook()
    playbook["sections"]["PATTERNS & APPROACHES"] = [
        {"name": f"pat-{n:03d}", "text": text, "helpful": helpful, "harmful": 0}
        for n, (text, helpful) in enumerate(
            [
                ("Run make test before pushing; CI runs the same target.", 5),
                ("Keep each migration in its own commit.", 2),
                ("Regenerate the API client with make client after editing openapi.yaml.", 0),
            ],
            start=1,
        )
    ]
    save_playbook(playbook, project_dir / ".claude" / "playbook.json")
    env = claude.env()
    acecode("install", "--scope", "user", cwd=project_dir, env=env)
    acecode("pin", "pat-003", cwd=project_dir, env=env)
    shown = acecode("show", "--injected", cwd=project_dir, env=env).stdout

    result = claude.run_print(project_dir, "What should I know about this project?")
    assert result.returncode == 0, result.stderr
    request = server.matching(is_agent_turn)[0].text
    lines = [line for line in shown.splitlines() if line.startswith("[pat-")]
    assert [line[1:8] for line in lines] == ["pat-003", "pat-001", "pat-002"]
    positions = [request.index(line) for line in lines]  # each line as the model got it
    assert positions == sorted(positions)
