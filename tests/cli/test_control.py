"""Per-project control: `acecode on` / `off`, ACECODE_SKIP and the user's opt_in setting."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from acecode.project.control import Activity, activity, project_switch, set_project_switch
from support.hang_guard import HANG_GUARD


def acecode(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args], capture_output=True, text=True, timeout=HANG_GUARD
    )


def test_off_then_on_round_trip_through_the_cli_leaves_the_shared_file_alone(
    project_dir: Path,
) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    team = '# team settings\nreview = "all"\n\n[extra]\nx = 1\n'
    config.write_text(team)
    switch = project_dir / ".claude" / "acecode" / "switch.toml"

    off = acecode("off")
    assert off.returncode == 0, off.stderr
    assert f"acecode is off for {project_dir}" in off.stdout
    assert str(switch) in off.stdout and "git-ignored" in off.stdout
    assert tomllib.loads(switch.read_text()) == {"enabled": False}
    assert config.read_text() == team  # the file a team may commit is never written
    assert (project_dir / ".claude" / "acecode" / ".gitignore").read_text().endswith("*\n")
    assert activity(project_dir) == Activity(False, f"turned off for this project in {switch}")

    assert acecode("on").returncode == 0
    assert tomllib.loads(switch.read_text()) == {"enabled": True}
    assert config.read_text() == team
    assert activity(project_dir).active is True


def test_the_switch_file_is_ignored_by_git(project_dir: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True, timeout=HANG_GUARD)
    assert acecode("off").returncode == 0
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project_dir,
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD,
    )
    assert status.stdout == ""


def test_enabled_in_the_shared_file_still_works_and_the_local_switch_wins(
    project_dir: Path,
) -> None:
    """Before the local switch, `acecode off` wrote `enabled = false` into acecode.toml."""
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text("enabled = false\n")
    assert activity(project_dir) == Activity(False, f"turned off for this project in {config}")

    on = acecode("on")
    assert on.returncode == 0, on.stderr
    assert f"note: {config} sets enabled = false for everyone who shares it" in on.stdout
    assert activity(project_dir).active
    assert config.read_text() == "enabled = false\n"


@pytest.mark.parametrize(
    "where", [".claude/acecode.toml", ".claude/acecode/switch.toml", "HOME/.claude/acecode.toml"]
)
def test_a_switch_file_that_cannot_be_read_turns_acecode_off_and_says_why(
    project_dir: Path, home_dir: Path, where: str
) -> None:
    """`enabled = false` then a broken line: the file may say off, so acecode is off."""
    path = home_dir / where[5:] if where.startswith("HOME/") else project_dir / where
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "enabled = false\nthis is = not toml\n"
    path.write_text(text)
    with pytest.raises(tomllib.TOMLDecodeError) as parsed:
        tomllib.loads(text)
    state = activity(project_dir)
    scope = "in every project" if where.startswith("HOME/") else "in this project"
    assert state == Activity(
        False,
        f"cannot read {path}: invalid TOML ({parsed.value}); "
        f"acecode is off {scope} until it is fixed",
    )


def test_off_works_even_when_the_shared_file_is_broken(project_dir: Path) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text("enabled = [\n")
    off = acecode("off")
    assert off.returncode == 0, off.stderr
    assert config.read_text() == "enabled = [\n"
    on = acecode("on")
    assert on.returncode == 0
    assert f"note: still inactive: cannot read {config}" in on.stdout


def test_a_broken_switch_file_is_repaired_by_on_or_off(project_dir: Path) -> None:
    switch = project_dir / ".claude" / "acecode" / "switch.toml"
    switch.parent.mkdir(parents=True)
    switch.write_text("enabled = = \n")
    assert not activity(project_dir).active
    assert acecode("on").returncode == 0
    assert activity(project_dir).active


def test_skip_variable_skips_one_session(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert activity(project_dir).active
    monkeypatch.setenv("ACECODE_SKIP", "1")
    state = activity(project_dir)
    assert not state.active and "ACECODE_SKIP" in state.reason


def test_opt_in_limits_acecode_to_projects_turned_on(project_dir: Path, home_dir: Path) -> None:
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode.toml").write_text("opt_in = true\n")
    state = activity(project_dir)
    assert not state.active and "acecode on" in state.reason
    set_project_switch(True, project_dir)
    assert project_switch(project_dir) is True
    assert activity(project_dir).active
    set_project_switch(False, project_dir)
    assert not activity(project_dir).active
