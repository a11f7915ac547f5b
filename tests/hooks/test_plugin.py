"""The Claude Code plugin files: shape, and the same hooks as ``acecode install``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import acecode
from acecode.hooks import EVENT_ARGUMENTS
from acecode.install import hook_entries, is_acecode_command

ROOT = Path(__file__).resolve().parents[2]
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def _load(relative: str) -> dict:
    data = json.loads((ROOT / relative).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_plugin_manifest() -> None:
    manifest = _load(".claude-plugin/plugin.json")
    assert KEBAB.match(manifest["name"])
    assert manifest["name"] == "acecode"
    assert manifest["version"] == acecode.__version__
    assert isinstance(manifest["description"], str) and manifest["description"]
    # hooks/hooks.json is loaded automatically; naming it again loads it twice.
    assert "hooks" not in manifest


def test_marketplace_lists_this_repository_as_the_plugin() -> None:
    manifest = _load(".claude-plugin/plugin.json")
    market = _load(".claude-plugin/marketplace.json")
    assert KEBAB.match(market["name"])
    assert isinstance(market["owner"]["name"], str) and market["owner"]["name"]
    [entry] = market["plugins"]
    assert entry["name"] == manifest["name"]
    assert entry["source"] == "./"  # "." is rejected by Claude Code's schema
    assert entry.get("version", manifest["version"]) == manifest["version"]


def test_plugin_hooks_are_the_install_hooks() -> None:
    hooks = _load("hooks/hooks.json")
    assert hooks["hooks"] == hook_entries("acecode")
    assert set(hooks["hooks"]) == set(EVENT_ARGUMENTS)
    for event, groups in hooks["hooks"].items():
        [group] = groups
        [hook] = group["hooks"]
        assert hook["type"] == "command"
        assert hook["command"] == f"acecode hook {EVENT_ARGUMENTS[event]}"
        assert is_acecode_command(hook["command"])
        assert isinstance(hook["timeout"], int) and 0 < hook["timeout"] <= 60


def test_plugin_command_works_with_acecode_on_path(project_dir: Path) -> None:
    """What the plugin runs, with PATH holding the installed ``acecode`` script."""
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "playbook.json").write_text(
        json.dumps({"sections": {"OTHERS": [{"name": "oth-001", "text": "plugin hook works"}]}})
    )
    command = _load("hooks/hooks.json")["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=b'{"session_id": "s1", "source": "startup"}',
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "plugin hook works" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
