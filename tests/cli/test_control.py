"""Per-project control: `acecode on` / `off`, ACECODE_SKIP and the user's opt_in setting."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from acecode.control import activity, project_switch, set_project_switch
from support.hang_guard import HANG_GUARD


def acecode(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args], capture_output=True, text=True, timeout=HANG_GUARD
    )


def test_off_then_on_round_trip_through_the_cli(project_dir: Path) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text('# team settings\nreview = "all"\n\n[extra]\nx = 1\n')

    off = acecode("off")
    assert off.returncode == 0, off.stderr
    assert "off" in off.stdout
    data = tomllib.loads(config.read_text())
    assert data == {"review": "all", "enabled": False, "extra": {"x": 1}}
    assert config.read_text().startswith("# team settings\n")
    assert activity(project_dir).active is False
    assert "turned off" in activity(project_dir).reason

    assert acecode("on").returncode == 0
    assert tomllib.loads(config.read_text())["enabled"] is True
    assert config.read_text().count("enabled") == 1
    assert activity(project_dir).active is True


def test_invalid_toml_is_refused_in_one_line_and_left_untouched(project_dir: Path) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text("enabled = [\n")
    result = acecode("off")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert str(config) in result.stderr and "nothing changed" in result.stderr
    assert config.read_text() == "enabled = [\n"


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


def test_unreadable_switch_file_counts_as_on(project_dir: Path) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text("enabled = = false\n")
    assert activity(project_dir).active
