"""The plugin in the real CLI when ``acecode`` is not on Claude Code's PATH.

Installed through ``claude plugin marketplace add`` and ``claude plugin install``
like a user does, then run with a PATH that lacks acecode's folder (as for an
app started from the desktop). The plugin's launcher must find acecode where
``uv tool`` and ``pipx`` put it; where there is none, the user sees one clear
line at session start and nothing on every prompt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from claude_driver import ClaudeHome, squash
from messages_server import MessagesServer
from scripted import PLAYBOOK_TAG, Script, is_agent_turn

from acecode.playbook.schema import empty_playbook
from acecode.store import save_playbook
from support.hang_guard import HANG_GUARD

REPO = Path(__file__).resolve().parents[2]
RULE = "Never run the migrations against the shared staging database."
MISSING = "acecode plugin: the acecode command was not found"


def install_plugin(claude: ClaudeHome, project: Path) -> Path:
    """Add this repository as a marketplace and install the plugin; returns the copy."""
    for command in (
        ["plugin", "marketplace", "add", str(REPO)],
        ["plugin", "install", "acecode@acecode"],
    ):
        done = subprocess.run(
            [str(claude.claude_bin), *command],
            cwd=project,
            env=claude.env(),
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    [copy] = (claude.home / ".claude" / "plugins" / "cache" / "acecode" / "acecode").iterdir()
    return copy


def path_without_acecode(tmp_path: Path) -> str:
    """A PATH with the system tools the CLI needs but no acecode and no Python with it."""
    tools = tmp_path / "system-bin"
    tools.mkdir()
    for name in ("sh", "cat", "env", "git", "rg", "ps", "which", "uname"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    node = shutil.which("node")
    assert node, "the CLI runs on node"
    (tools / "node").symlink_to(node)
    return str(tools)


@pytest.fixture
def plugin_user(claude: ClaudeHome, server: MessagesServer, project_dir: Path) -> ClaudeHome:
    """A user with a one-rule playbook who installed the plugin; the model is scripted."""
    server.responder = Script()
    playbook = empty_playbook()
    playbook["sections"]["MISTAKES TO AVOID"].append(
        {"name": "mis-001", "text": RULE, "helpful": 1, "harmful": 0}
    )
    save_playbook(playbook, project_dir / ".claude" / "playbook.json")
    install_plugin(claude, project_dir)
    return claude


def test_the_installed_plugin_copy_holds_only_the_plugin(
    claude: ClaudeHome, project_dir: Path
) -> None:
    copy = install_plugin(claude, project_dir)

    files = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert files == [".claude-plugin/plugin.json", "hooks/hooks.json", "scripts/acecode"]
    assert sum((copy / f).stat().st_size for f in files) < 10_000


def test_plugin_finds_acecode_in_local_bin_when_it_is_not_on_path(
    plugin_user: ClaudeHome, server: MessagesServer, project_dir: Path, tmp_path: Path
) -> None:
    claude = plugin_user
    local_bin = claude.home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "acecode").symlink_to(Path(sys.executable).with_name("acecode"))

    result = claude.run_print(
        project_dir, "What should I know?", env=claude.env(PATH=path_without_acecode(tmp_path))
    )

    assert result.returncode == 0, result.stderr
    [first, *_] = server.matching(is_agent_turn)
    assert PLAYBOOK_TAG in first.text and RULE in first.text


def test_without_acecode_the_user_sees_one_line_at_start_and_nothing_per_prompt(
    plugin_user: ClaudeHome, server: MessagesServer, project_dir: Path, tmp_path: Path
) -> None:
    claude = plugin_user
    env = claude.env(PATH=path_without_acecode(tmp_path))
    folders = [Path(p) for p in env["PATH"].split(os.pathsep)]
    assert not any((f / name).exists() for f in folders for name in ("acecode", "python3"))

    session = claude.interactive(project_dir, env=env)
    try:
        session.wait_screen(MISSING, timeout=HANG_GUARD)
        for turn in range(2):
            session.submit(f"Prompt number {turn}.")
            server.wait_for(is_agent_turn, count=turn + 1)
        screen = session.screen()
        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()

    assert screen.count(squash(MISSING)) == 1
    assert "notfound" not in screen.replace(squash(MISSING), "")  # no /bin/sh: acecode: not found
    assert "hookerror" not in screen.lower()
    for request in server.matching(is_agent_turn):
        assert PLAYBOOK_TAG not in request.text
