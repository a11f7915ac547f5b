"""`acecode pin` / `unpin`, and what `doctor` and `stats` say about the injection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from acecode.store import save_playbook
from support.hang_guard import HANG_GUARD
from support.playbooks import entry


def acecode(*args: str, code: int | None = 0) -> subprocess.CompletedProcess:
    """Run the CLI; ``code=None`` accepts any exit status (``doctor`` reports problems here:
    no provider, no hooks)."""
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "250"},
    )
    assert code is None or result.returncode == code, result.stdout + result.stderr
    return result


def _playbook(project: Path, patterns: int) -> Path:
    path = project / ".claude" / "playbook.json"
    entries = [
        entry(f"pat-{i:03d}", f"Pattern {i}: " + "keep the change small and reviewed " * 4, i % 3)
        for i in range(1, patterns + 1)
    ]
    save_playbook({"sections": {"PATTERNS & APPROACHES": entries}}, path)
    return path


def _one_line_error(result: subprocess.CompletedProcess, *needles: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("acecode: "), result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_pin_and_unpin(project_dir: Path) -> None:
    path = _playbook(project_dir, 3)
    before = path.read_bytes()
    out = acecode("pin", "pat-002").stdout
    assert "pinned pat-002" in out
    acecode("pin", "pat-003")
    acecode("pin", "pat-002")  # twice is once
    pins = project_dir / ".claude" / "acecode" / "pins.json"
    assert json.loads(pins.read_text()) == {"pinned": ["pat-002", "pat-003"]}
    assert "unpinned pat-002" in acecode("unpin", "pat-002").stdout
    assert json.loads(pins.read_text()) == {"pinned": ["pat-003"]}
    assert path.read_bytes() == before  # the playbook itself is never touched


def test_pin_errors_are_one_clear_line(project_dir: Path) -> None:
    path = _playbook(project_dir, 2)
    _one_line_error(acecode("pin", "pat-999", code=1), "pat-999", str(path))
    _one_line_error(acecode("unpin", "pat-001", code=1), "pat-001", "not pinned")
    pins = project_dir / ".claude" / "acecode" / "pins.json"
    pins.parent.mkdir(parents=True, exist_ok=True)
    pins.write_text('{"pinned": "pat-001"}', encoding="utf-8")
    _one_line_error(acecode("pin", "pat-001", code=1), str(pins))
    assert pins.read_text(encoding="utf-8") == '{"pinned": "pat-001"}'  # left untouched


def test_doctor_and_stats_say_what_reaches_the_model(project_dir: Path) -> None:
    _playbook(project_dir, 12)
    doctor = acecode("doctor", code=None).stdout
    assert "12 of 12 entries reach the model at session start" in doctor
    assert "left out" not in doctor
    stats = acecode("stats", "--json").stdout
    assert json.loads(stats)["injection"] == {
        "active": True,
        "total": 12,
        "injected": 12,
        "left_out": 0,
        "budget_chars": 9000,
        "topup_budget_chars": 2000,
    }

    _playbook(project_dir, 200)
    acecode("pin", "pat-001")
    acecode("pin", "pat-002")
    doctor = acecode("doctor", code=None).stdout
    report = json.loads(acecode("stats", "--json").stdout)["injection"]
    shown, left = report["injected"], report["left_out"]
    assert shown + left == 200 and left > 0
    assert f"{shown} of 200 entries reach the model at session start" in doctor
    assert f"[warning] {left} entries left out at session start" in doctor
    assert "top-up adds the ones relevant to each prompt" in doctor
    assert "pinned: pat-001, pat-002" in doctor
    table = acecode("stats")
    assert f"{shown} of 200" in table.stdout
    assert f"{left} entries left out" in table.stderr


def test_doctor_flags_a_budget_above_claude_codes_cap_and_stale_pins(project_dir: Path) -> None:
    _playbook(project_dir, 3)
    acecode("pin", "pat-003")
    _playbook(project_dir, 2)  # pat-003 is gone
    (project_dir / ".claude" / "acecode.toml").write_text("injection_budget_chars = 12000\n")
    doctor = acecode("doctor", code=None).stdout
    assert "[problem] injection_budget_chars = 12000 is above the 10,000 characters" in doctor
    assert "[warning] pinned but not in the playbook: pat-003" in doctor


def test_doctor_says_when_acecode_is_off(project_dir: Path) -> None:
    _playbook(project_dir, 3)
    acecode("off")
    doctor = acecode("doctor", code=None).stdout
    assert "nothing is injected: acecode is off here (turned off for this project" in doctor
