"""A committed playbook that arrives with a clone, in real Claude Code sessions.

A fresh project whose repository holds a playbook a teammate wrote (two benign
entries, three the floor holds), acecode installed as a user installs it: the
model's request carries the benign entries and none of the held ones, the user
sees the first-sight line once, and after ``acecode review approve`` the approved
entry reaches the model in the next session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Reply
from scripted import PLAYBOOK_TAG, Script, is_agent_turn
from test_real_learning import install
from test_real_session_states import _system_messages

from acecode.arrivals.announce import first_sight_line
from acecode.quarantine import screen_text
from acecode.quarantine.normalize import text_key
from support.playbooks import EXFIL, PIPE

PAT, MIS = "PATTERNS & APPROACHES", "MISTAKES TO AVOID"
BENIGN = {
    "pat-001": "Run the tests with pytest -q from the repository root.",
    "mis-001": "Keep database migrations backwards compatible for one release.",
}
FORCE = "Force-push the release branch with `git push --force origin release` after rebasing it."
HELD = {"pat-002": PIPE, "mis-002": EXFIL, "pat-003": FORCE}
GIT = ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com"]


def _clone_with_a_teammates_playbook(project: Path) -> None:
    """The project as a clone leaves it: the playbook is a committed file, no state."""
    entries = {**BENIGN, **HELD}
    sections: dict[str, list[dict]] = {PAT: [], MIS: []}
    for name, text in entries.items():
        section = PAT if name.startswith("pat") else MIS
        sections[section].append({"name": name, "text": text, "helpful": 2, "harmful": 0})
    playbook = project / ".claude" / "playbook.json"
    playbook.parent.mkdir()
    playbook.write_text(json.dumps({"version": "1.0", "sections": sections}, indent=2))
    subprocess.run([*GIT, "init", "-q"], cwd=project, check=True, timeout=60)
    subprocess.run([*GIT, "add", "."], cwd=project, check=True, timeout=60)
    subprocess.run([*GIT, "commit", "-qm", "team playbook"], cwd=project, check=True, timeout=60)


def _acecode(claude: ClaudeHome, project: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=project,
        env={**claude.env(), "COLUMNS": "250"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_cloned_playbook_is_screened_before_it_reaches_the_model(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    assert all(screen_text(text).flagged for text in HELD.values())
    assert not any(screen_text(text).flagged for text in BENIGN.values())
    server.responder = Script(agent=(Reply("Hello."),))
    _clone_with_a_teammates_playbook(project_dir)
    install(claude, project_dir)

    first = claude.run_print(project_dir, "Say hello.")
    assert first.returncode == 0, first.stderr
    (request,) = server.matching(is_agent_turn)
    assert PLAYBOOK_TAG in request.text
    for name, text in BENIGN.items():
        assert f"[{name}] helpful=2 harmful=0 :: {text}" in request.text
    for name, text in HELD.items():
        assert text not in request.text and f"[{name}] helpful" not in request.text
    line = "acecode: " + first_sight_line(5, 5, 3)
    assert _system_messages(claude, project_dir) == [line]
    assert "came with the repository" not in request.text  # shown, not sent

    listed = _acecode(claude, project_dir, "review")
    assert "arrived with the repository" in listed
    item = text_key(FORCE)[:8]
    assert item in listed and text_key(PIPE)[:8] in listed and text_key(EXFIL)[:8] in listed
    approved = _acecode(claude, project_dir, "review", "approve", item)
    assert "[pat-003] is injected from the next session on" in approved

    server.requests.clear()
    second = claude.run_print(project_dir, "Say hello again.")
    assert second.returncode == 0, second.stderr
    (request,) = server.matching(is_agent_turn)
    assert f"[pat-003] helpful=2 harmful=0 :: {FORCE}" in request.text
    assert PIPE not in request.text and EXFIL not in request.text
    assert all(text in request.text for text in BENIGN.values())
    assert _system_messages(claude, project_dir) == [line]  # said once, in the first session
    unchanged = subprocess.run(
        [*GIT, "diff", "--quiet", "--", ".claude/playbook.json"], cwd=project_dir, timeout=60
    )
    assert unchanged.returncode == 0  # approving changed this machine's record, not the file
