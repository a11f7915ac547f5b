"""`acecode uninstall` also takes out the setting `acecode install --learn-on-exit` wrote.

acecode 0.1's `install --learn-on-exit` wrote `"playbook_update_on_exit": true`
beside its hooks. Uninstalling removes that value; an explicit `false` is the
user's opt-out and stays, and so does everything else in the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.agents.claude_code.install import hook_entries
from support.hang_guard import HANG_GUARD


def uninstall(home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "acecode", "uninstall"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=True,
    )


def settings_as_0_1_left_them(home: Path, learn_on_exit: object) -> Path:
    """User settings after `acecode install --learn-on-exit` (or a hand edit of the value)."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    user_hook = {"hooks": [{"type": "command", "command": "notify-send done"}]}
    hooks = hook_entries("/opt/acecode/bin/acecode")
    hooks["SessionEnd"].insert(0, user_hook)
    data = {"model": "opus", "playbook_update_on_exit": learn_on_exit, "hooks": hooks}
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return settings


def test_uninstall_removes_the_true_that_install_wrote(home_dir: Path) -> None:
    settings = settings_as_0_1_left_them(home_dir, True)
    before = settings.read_text(encoding="utf-8")

    result = uninstall(home_dir)

    assert json.loads(settings.read_text(encoding="utf-8")) == {
        "model": "opus",
        "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    }
    assert "playbook_update_on_exit" in result.stdout and "removed" in result.stdout
    assert settings.with_name("settings.json.bak").read_text(encoding="utf-8") == before


@pytest.mark.parametrize("value", [False, "yes"])
def test_uninstall_keeps_a_value_acecode_did_not_write(home_dir: Path, value: object) -> None:
    settings = settings_as_0_1_left_them(home_dir, value)

    uninstall(home_dir)

    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["playbook_update_on_exit"] == value
    assert list(data["hooks"]) == ["SessionEnd"]
