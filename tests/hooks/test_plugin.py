"""The Claude Code plugin: a small folder (``plugin/``) with the same hooks as ``acecode install``.

The marketplace at the repository root points at ``plugin/``, so installing
the plugin copies only that folder, never the tests, benchmarks or sources.
Its hooks run a launcher (``plugin/scripts/acecode``) that finds the
installed ``acecode`` command even when Claude Code's PATH lacks its folder,
and that says so once, at session start, when there is none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import acecode
from acecode.agents.claude_code.install import (
    HOOK_EVENTS,
    PLUGIN_EXECUTABLE,
    hook_entries,
    is_acecode_command,
    plugin_hooks_file,
)
from support.hang_guard import HANG_GUARD
from support.playbooks import written_here

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SCRIPT = Path(sys.executable).with_name("acecode")  # the installed console script
START = {"session_id": "s1", "source": "startup"}


def _load(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_plugin_manifest() -> None:
    manifest = _load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert KEBAB.match(manifest["name"])
    assert manifest["name"] == "acecode"
    assert manifest["version"] == acecode.__version__
    assert isinstance(manifest["description"], str) and manifest["description"]
    # hooks/hooks.json is loaded automatically; naming it again loads it twice.
    assert "hooks" not in manifest


def test_marketplace_points_at_the_plugin_folder() -> None:
    manifest = _load(PLUGIN / ".claude-plugin" / "plugin.json")
    market = _load(ROOT / ".claude-plugin" / "marketplace.json")
    assert KEBAB.match(market["name"])
    assert isinstance(market["owner"]["name"], str) and market["owner"]["name"]
    [entry] = market["plugins"]
    assert entry["name"] == manifest["name"]
    assert entry["source"] == "./plugin"
    assert entry.get("version", manifest["version"]) == manifest["version"]
    assert sorted(str(p.relative_to(PLUGIN)) for p in PLUGIN.rglob("*") if p.is_file()) == [
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "scripts/acecode",
    ]


def test_plugin_hooks_are_the_install_hooks() -> None:
    text = (PLUGIN / "hooks" / "hooks.json").read_text(encoding="utf-8")
    assert text == plugin_hooks_file(), (
        "plugin/hooks/hooks.json is stale; regenerate it with: python -c "
        "'from acecode.agents.claude_code.install import plugin_hooks_file as f; "
        'print(f(), end="")\' '
        "> plugin/hooks/hooks.json"
    )
    hooks = json.loads(text)["hooks"]
    assert hooks == hook_entries(PLUGIN_EXECUTABLE)
    arguments = {hook.event: hook.argument for hook in HOOK_EVENTS}
    assert set(hooks) == set(arguments)
    for event, groups in hooks.items():
        [group] = groups
        [hook] = group["hooks"]
        assert hook["type"] == "command"
        assert hook["command"] == f"{PLUGIN_EXECUTABLE} hook {arguments[event]}"
        assert is_acecode_command(hook["command"])
        assert isinstance(hook["timeout"], int) and 0 < hook["timeout"] <= 60


def _command(event: str) -> str:
    hooks = _load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    return hooks[event][0]["hooks"][0]["command"]


def _tools(folder: Path, *names: str) -> Path:
    """A folder holding only the named system tools (what a bare PATH would give)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        found = shutil.which(name)
        assert found, f"{name} is needed"
        (folder / name).symlink_to(found)
    return folder


def _run_plugin_hook(
    event: str, path: str, home: Path, payload: dict
) -> subprocess.CompletedProcess:
    """What Claude Code does: the hook's command through ``sh -c``, the plugin root set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACECODE_", "XDG_"))}
    env.update({"PATH": path, "HOME": str(home), "CLAUDE_PLUGIN_ROOT": str(PLUGIN)})
    return subprocess.run(
        ["/bin/sh", "-c", _command(event)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=HANG_GUARD,
    )


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    (project_dir / ".claude").mkdir()
    path = project_dir / ".claude" / "playbook.json"
    path.write_text(
        json.dumps({"sections": {"OTHERS": [{"name": "oth-001", "text": "plugin hook works"}]}})
    )
    return written_here(path)  # the user's own playbook, not one that arrived


def _context(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_plugin_command_works_with_acecode_on_path(playbook: Path, home_dir: Path) -> None:
    path = f"{SCRIPT.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    assert "plugin hook works" in _context(_run_plugin_hook("SessionStart", path, home_dir, START))


@pytest.mark.parametrize(
    "where",
    [
        ".local/bin",  # install.py, uv tool and pipx put their command links here
        ".local/share/acecode/venv/bin",  # install.py's own environment
        ".local/share/uv/tools/acecode/bin",  # uv tool's own environment
        ".local/share/pipx/venvs/acecode/bin",  # pipx's own environment
    ],
)
def test_plugin_finds_acecode_off_path(
    playbook: Path, home_dir: Path, tmp_path: Path, where: str
) -> None:
    folder = home_dir / where
    folder.mkdir(parents=True)
    (folder / "acecode").symlink_to(SCRIPT)
    path = str(_tools(tmp_path / "bin", "sh", "cat"))

    assert "plugin hook works" in _context(_run_plugin_hook("SessionStart", path, home_dir, START))


def test_plugin_falls_back_to_a_python_that_has_acecode(
    playbook: Path, home_dir: Path, tmp_path: Path
) -> None:
    folder = _tools(tmp_path / "bin", "sh", "cat")
    python = folder / "python3"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)

    assert "plugin hook works" in _context(
        _run_plugin_hook("SessionStart", str(folder), home_dir, START)
    )


def test_without_acecode_one_message_at_session_start_and_silence_after(
    playbook: Path, home_dir: Path, tmp_path: Path
) -> None:
    path = str(_tools(tmp_path / "bin", "sh", "cat"))

    start = _run_plugin_hook("SessionStart", path, home_dir, START)

    assert start.returncode == 0 and start.stderr == b""
    message = json.loads(start.stdout)["systemMessage"]
    assert message.startswith("acecode plugin: the acecode command was not found")
    assert "\n" not in message
    for event in ("UserPromptSubmit", "PreCompact", "SessionEnd", "SubagentStop"):
        other = _run_plugin_hook(event, path, home_dir, {"session_id": "s1", "prompt": "hi"})
        assert (other.returncode, other.stdout, other.stderr) == (0, b"", b""), event
