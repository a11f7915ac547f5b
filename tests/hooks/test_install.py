"""``acecode install`` / ``uninstall`` over real settings files."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from acecode.agents.claude_code import install as installer
from acecode.cli.install_cmd import register
from support.hang_guard import HANG_GUARD
from support.playbooks import written_here

# The events acecode installs for Claude Code and the argument each command ends with.
EVENTS = {hook.event: hook.argument for hook in installer.HOOK_EVENTS}
PER_CALL = {hook.event for hook in installer.HOOK_EVENTS if hook.per_call}

OTHER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(pytest:*)"], "deny": []},
    "env": {"FOO": "bar"},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo prompt-hook"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 5}]}
        ],
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {"type": "command", "command": "/old/bin/acecode hook session-start"},
                    {"type": "command", "command": "cat notes.md"},
                ],
            }
        ],
    },
    "enabledPlugins": {"other@market": True},
}


def _cli(*args: str):
    app = typer.Typer()
    register(app)
    return CliRunner().invoke(app, list(args))


def _without_acecode(settings: dict) -> dict:
    """``settings`` with every acecode hook (and what only held them) taken out."""
    hooks = {}
    for event, groups in settings.get("hooks", {}).items():
        kept = []
        for group in groups:
            others = [h for h in group["hooks"] if not installer.is_acecode_command(h["command"])]
            if others:
                kept.append({**group, "hooks": others})
        if kept:
            hooks[event] = kept
    return {**settings, "hooks": hooks}


def _acecode_commands(settings: dict) -> dict[str, list[str]]:
    return {
        event: [
            h["command"]
            for g in groups
            for h in g["hooks"]
            if installer.is_acecode_command(h["command"])
        ]
        for event, groups in settings.get("hooks", {}).items()
    }


def test_install_twice_then_uninstall_keeps_everything_else(home_dir: Path) -> None:
    path = home_dir / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(OTHER_SETTINGS, indent=4))
    expected_others = _without_acecode(OTHER_SETTINGS)

    first = _cli("install")
    assert first.exit_code == 0, first.output
    after_first = json.loads(path.read_text())
    assert _without_acecode(after_first) == expected_others
    commands = _acecode_commands(after_first)
    assert set(e for e, c in commands.items() if c) == set(EVENTS)
    for event, argument in EVENTS.items():
        assert len(commands[event]) == 1  # the stale /old/bin entry was replaced
        # the tool hooks run recall's fast path with this interpreter, the others the script
        ending = f" {argument}" if event in PER_CALL else f" hook {argument}"
        assert commands[event][0].endswith(ending)
        assert "/old/bin" not in commands[event][0]
    for event in PER_CALL:
        assert shlex.split(commands[event][0])[:2] == [sys.executable, "-P"]
    # the user's own PreToolUse guard is kept beside acecode's
    assert after_first["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "guard.sh"
    assert json.loads((path.parent / "settings.json.bak").read_text()) == OTHER_SETTINGS
    for event in ("SessionStart", "UserPromptSubmit"):
        hook = after_first["hooks"][event][-1]["hooks"][0]
        assert hook["timeout"] == 10 and hook["type"] == "command"

    before_second = path.read_bytes()
    second = _cli("install")
    assert second.exit_code == 0, second.output
    assert "nothing to change" in second.output
    assert path.read_bytes() == before_second

    removed = _cli("uninstall")
    assert removed.exit_code == 0, removed.output
    after_uninstall = json.loads(path.read_text())
    assert after_uninstall == expected_others
    assert _cli("uninstall").output.count("nothing to change") == 1


def test_uninstall_deletes_a_file_acecode_created_and_leaves_no_empty_object(
    home_dir: Path,
) -> None:
    result = _cli("install")
    assert result.exit_code == 0, result.output
    path = home_dir / ".claude" / "settings.json"
    assert set(json.loads(path.read_text())["hooks"]) == set(EVENTS)
    assert not path.with_name("settings.json.bak").exists()
    removed = _cli("uninstall")
    assert removed.exit_code == 0
    assert f"removed {path}: it held only acecode's hooks" in removed.output
    assert not path.exists() and not path.with_name("settings.json.bak").exists()


def test_uninstall_project_scope_leaves_the_project_as_before_install(
    project_dir: Path,
) -> None:
    """Installed twice (the second run backs up a file of acecode's hooks alone), then
    uninstalled: no settings.json, no .bak, no empty .claude/."""
    assert not (project_dir / ".claude").exists()
    assert _cli("install", "--scope", "project").exit_code == 0
    settings = project_dir / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"timeout": 10', '"timeout": 9'))
    assert _cli("install", "--scope", "project").exit_code == 0  # updates: writes a .bak
    assert settings.with_name("settings.json.bak").exists()

    result = _cli("uninstall", "--scope", "project")

    assert result.exit_code == 0, result.output
    assert not (project_dir / ".claude").exists()
    assert f"removed {settings.with_name('settings.json.bak')}" in result.output


def test_uninstall_keeps_the_folder_and_a_backup_with_something_of_the_users(
    project_dir: Path,
) -> None:
    claude = project_dir / ".claude"
    claude.mkdir()
    (claude / "playbook.json").write_text('{"version": "1.0", "sections": {}}')
    assert _cli("install", "--scope", "project").exit_code == 0
    backup = claude / "settings.json.bak"
    backup.write_text('{"model": "opus"}')  # an older version the user may want back

    assert _cli("uninstall", "--scope", "project").exit_code == 0

    assert not (claude / "settings.json").exists()
    assert backup.read_text() == '{"model": "opus"}'
    assert (claude / "playbook.json").exists()


def test_uninstall_writes_an_empty_object_through_a_symlink(home_dir: Path) -> None:
    """A dotfile manager's link stays a link: its target is rewritten, not removed."""
    target = home_dir / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = home_dir / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    assert _cli("install").exit_code == 0
    assert _cli("uninstall").exit_code == 0
    assert link.is_symlink() and json.loads(target.read_text()) == {}


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", '"text"', '{"hooks": []}', '{"hooks": {"SessionStart": {}}}'],
)
def test_install_refuses_a_file_it_cannot_merge_and_changes_nothing(
    home_dir: Path, content: str
) -> None:
    path = home_dir / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    for command in ("install", "uninstall"):
        result = _cli(command)
        assert result.exit_code == 1
        assert "nothing changed" in result.output
        assert str(path) in result.output.replace("\n", "")
        assert path.read_text() == content
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize(
    ("scope", "relative"),
    [("project", ".claude/settings.json"), ("local", ".claude/settings.local.json")],
)
def test_project_scopes_write_the_project_files(
    project_dir: Path, home_dir: Path, scope: str, relative: str
) -> None:
    assert _cli("install", "--scope", scope).exit_code == 0
    settings = json.loads((project_dir / relative).read_text())
    commands = _acecode_commands(settings)
    if scope == "project":  # committed: every teammate's own acecode from PATH
        assert commands["SessionStart"] == ["acecode hook session-start"]
        assert commands["PreToolUse"] == ["acecode hook pre-tool-use"]
    else:
        assert Path(shlex.split(commands["SessionStart"][0])[0]).is_absolute()
        assert Path(shlex.split(commands["PreToolUse"][0])[0]).is_absolute()
    assert not (home_dir / ".claude" / "settings.json").exists()
    found = installer.installations()
    assert [(i.scope, i.path) for i in found] == [(scope, project_dir / relative)]
    assert set(found[0].events) == set(EVENTS)


def test_installations_and_plugin_detection(project_dir: Path, home_dir: Path) -> None:
    assert installer.installations() == []
    assert installer.plugin_enabled() == []
    installer.install("user")
    local = project_dir / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"enabledPlugins": {"acecode@acecode": True}}))
    assert [i.scope for i in installer.installations()] == ["user"]
    assert installer.plugin_enabled() == ["local"]


def test_symlinked_settings_file_stays_a_symlink(home_dir: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"model": "sonnet"}))
    link = home_dir / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    installer.install("user")
    assert link.is_symlink()
    data = json.loads(real.read_text())
    assert data["model"] == "sonnet" and set(data["hooks"]) == set(EVENTS)


def test_installed_commands_run_the_hooks(project_dir: Path) -> None:
    """The command written to settings.json is what Claude Code runs: run it through a shell."""
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "playbook.json").write_text(
        json.dumps({"sections": {"OTHERS": [{"name": "oth-001", "text": "installed hook works"}]}})
    )
    written_here(project_dir / ".claude" / "playbook.json")  # the user's own, not an arrival
    installer.install("local")
    settings = json.loads((project_dir / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps({"session_id": "s1", "source": "startup"}).encode(),
        capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")},
        timeout=HANG_GUARD,
    )
    assert proc.returncode == 0, proc.stderr
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "installed hook works" in context


def test_executable_prefers_the_running_install() -> None:
    words = shlex.split(installer.acecode_executable("user"))
    assert Path(words[0]).is_absolute()
    assert words == [str(Path(sys.executable).parent / "acecode")] or words[1:] == [
        "-m",
        "acecode",
    ]
    assert installer.acecode_executable("project") == "acecode"


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("acecode hook session-start", True),
        ("/home/u/.local/bin/acecode hook user-prompt-submit", True),
        ("'/path with space/acecode' hook pre-compact", True),
        ("/usr/bin/python3 -m acecode hook session-end", True),
        ("C:\\tools\\acecode.exe hook subagent-stop", True),
        ("acecode learn x.jsonl", False),
        ("echo acecode", False),
        ("my-acecode-hooks.sh", False),
        (None, False),
    ],
)
def test_acecode_commands_are_recognised(command: str | None, ours: bool) -> None:
    assert installer.is_acecode_command(command) is ours


def test_install_warns_when_the_plugin_is_enabled_too(home_dir: Path) -> None:
    path = home_dir / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"enabledPlugins": {"acecode@acecode": True}}))
    result = _cli("install")
    assert result.exit_code == 0
    out = " ".join(result.output.split())
    assert f"warning: acecode's hooks are in 2 places: {path} (user scope); " in out
    assert f"the acecode plugin (enabled in {path})" in out
    assert "learns once per session anyway" in out


def test_a_second_scope_is_installed_with_a_warning_naming_both_files(
    project_dir: Path, home_dir: Path
) -> None:
    user = home_dir / ".claude" / "settings.json"
    project = project_dir / ".claude" / "settings.json"
    first = _cli("install")
    assert first.exit_code == 0 and "warning" not in first.output
    second = _cli("install", "--scope", "project")
    assert second.exit_code == 0
    out = " ".join(second.output.split())
    assert f"acecode's hooks are in 2 places: {user} (user scope); {project} (project scope)" in out
    assert "injects the playbook and learns once per session anyway" in out
    assert "a project install shared with the team beside your own user install is fine" in out
    assert installer.install_places() == [f"{user} (user scope)", f"{project} (project scope)"]
    assert installer.settings_path("project").is_file()  # both stay installed
    assert _acecode_commands(json.loads(user.read_text()))["SessionStart"]
    uninstalled = _cli("uninstall", "--scope", "project")
    assert uninstalled.exit_code == 0
    again = _cli("install")  # one place left: nothing to warn about
    assert again.exit_code == 0 and "warning" not in again.output


def test_doctor_warns_about_two_scopes_naming_the_files(project_dir: Path, home_dir: Path) -> None:
    def doctor() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "acecode", "doctor"],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            env={**os.environ, "COLUMNS": "400"},
        )
        return done.stdout

    assert _cli("install").exit_code == 0
    assert "[warning] acecode's hooks are in" not in doctor()
    assert _cli("install", "--scope", "local").exit_code == 0
    user = home_dir / ".claude" / "settings.json"
    local = project_dir / ".claude" / "settings.local.json"
    assert (
        f"[warning] acecode's hooks are in 2 places: {user} (user scope); {local} (local scope)"
    ) in doctor()
