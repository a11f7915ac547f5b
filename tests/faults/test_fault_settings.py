"""Fault 9: a Claude Code settings.json that is not valid JSON.

``acecode install`` must refuse with one line naming the file and change
nothing: same bytes, no backup written, no other file created beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_support import acecode_env, one_clear_line, run_acecode

BROKEN_SETTINGS = {
    "truncated": b'{"permissions": {"allow": ["Bash(ls)"]},\n  "hooks": {',
    "trailing-comma": b'{"model": "opus",}\n',
    "not-utf8": b'{"model": "\xff\xfe opus"}\n',
    "top-level-array": b'[{"hooks": {}}]\n',
}


def _settings_file(scope: str, project: Path, home: Path) -> Path:
    return {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }[scope]


@pytest.mark.parametrize("scope", ["user", "project", "local"])
@pytest.mark.parametrize("damage", sorted(BROKEN_SETTINGS))
def test_fault_invalid_settings_json_install_refuses_and_changes_nothing(
    project_dir: Path, home_dir: Path, scope: str, damage: str
) -> None:
    settings = _settings_file(scope, project_dir, home_dir)
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_bytes(BROKEN_SETTINGS[damage])
    folder_before = sorted(p.name for p in settings.parent.iterdir())

    result = run_acecode(
        ["install", "--scope", scope], acecode_env(project_dir, home_dir), cwd=project_dir
    )

    assert result.returncode == 1
    one_clear_line(result, str(settings), "nothing changed")
    assert settings.read_bytes() == BROKEN_SETTINGS[damage]
    assert not settings.with_name(settings.name + ".bak").exists()
    assert sorted(p.name for p in settings.parent.iterdir()) == folder_before
