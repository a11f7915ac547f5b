"""`acecode install --learn-on-exit`: accepted, but learning at /exit is the default now."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.hang_guard import HANG_GUARD


def run(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=True,
    )


def test_learn_on_exit_is_accepted_and_writes_nothing_extra(tmp_path, provider_configured):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus", "hooks": {}}), encoding="utf-8")

    first = run("install", home=tmp_path)
    assert "every session is learned from however it ends (/exit" in first.stdout
    installed = json.loads(settings.read_text())

    again = run("install", "--learn-on-exit", home=tmp_path)
    assert "--learn-on-exit is the default now" in again.stdout
    assert json.loads(settings.read_text()) == installed  # nothing else written
    assert "playbook_update_on_exit" not in installed and installed["model"] == "opus"


def test_install_names_an_explicit_opt_out(tmp_path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"playbook_update_on_clear": False}), encoding="utf-8")

    out = run("install", home=tmp_path).stdout

    assert (
        'note: sessions ending with reason clear are not learned from: "playbook_update_on_clear":'
        f" false in {settings}" in out
    )
    assert "reason prompt_input_exit" not in out
