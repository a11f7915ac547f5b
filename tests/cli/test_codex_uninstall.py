"""`acecode uninstall --agent codex` leaves Codex's files as they were before the install.

Run through the real CLI in a fresh HOME. A ``hooks.json`` or ``config.toml`` that
held only what acecode wrote is deleted (not left as ``{}`` or an empty file beside a
backup of acecode's own records); a user's own hooks and settings stay.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from acecode_cli import run_acecode


def test_a_fresh_install_then_uninstall_leaves_no_codex_file(home_dir: Path) -> None:
    codex = home_dir / ".codex"
    run_acecode("install", "--agent", "codex")
    assert (codex / "hooks.json").is_file() and (codex / "config.toml").is_file()

    result = run_acecode("uninstall", "--agent", "codex")

    assert not codex.exists(), sorted(path.name for path in codex.iterdir())
    assert "held only acecode's hooks" in result.stdout


def test_the_project_scope_leaves_no_codex_folder_in_the_project(project_dir: Path) -> None:
    run_acecode("install", "--agent", "codex", "--scope", "project")
    assert (project_dir / ".codex" / "hooks.json").is_file()

    run_acecode("uninstall", "--agent", "codex", "--scope", "project")

    assert not (project_dir / ".codex").exists()


def test_the_users_own_hooks_and_settings_stay(home_dir: Path) -> None:
    codex = home_dir / ".codex"
    codex.mkdir()
    own = {"type": "command", "command": "notify-send done", "timeout": 30}
    (codex / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [own]}]}}))
    (codex / "config.toml").write_text('model = "gpt-5"\n')
    run_acecode("install", "--agent", "codex")

    run_acecode("uninstall", "--agent", "codex")

    assert json.loads((codex / "hooks.json").read_text()) == {"hooks": {"Stop": [{"hooks": [own]}]}}
    assert tomllib.loads((codex / "config.toml").read_text()) == {"model": "gpt-5"}
