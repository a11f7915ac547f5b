"""`acecode install --learn-on-exit`: the opt-in Claude Code setting, set alongside the hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_learn_on_exit_is_set_once_and_kept(tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus", "hooks": {}}), encoding="utf-8")

    first = run("install", home=tmp_path)
    assert "playbook_update_on_exit" in first.stdout  # the note explains the opt-in
    assert "playbook_update_on_exit" not in json.loads(settings.read_text())

    run("install", "--learn-on-exit", home=tmp_path)
    data = json.loads(settings.read_text())
    assert data["playbook_update_on_exit"] is True and data["model"] == "opus"

    again = run("install", home=tmp_path)
    assert json.loads(settings.read_text())["playbook_update_on_exit"] is True
    assert "nothing to change" in again.stdout and "note:" not in again.stdout
