"""The built wheel, installed into a fresh virtualenv as a user would from a package
index (issue 29): ``acecode --version``, ``acecode install`` and one hook work, and
``acecode doctor`` on this plain install (no ``embed`` extra) is one note, not a
problem. Needs the package index for the dependencies (pip's cache is the
developer's, as in tests/installer)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from dist_support import Dist

import acecode
from support.hang_guard import HANG_GUARD, LONG_HANG_GUARD

pytestmark = pytest.mark.slow

PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
RULE = "Run the tests with pytest -q from the repository root."


def _run(command: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> str:
    done = subprocess.run(
        command,
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_in_a_fresh_venv_installs_hooks_and_injects(
    dist: Dist, tmp_path: Path, home_dir: Path, project_dir: Path
) -> None:
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=HANG_GUARD)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTHON", "ACECODE_", "CLAUDE_"))
    }
    env.update({"HOME": str(home_dir), "PIP_CACHE_DIR": PIP_CACHE})
    env["PATH"] = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(dist.wheel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=LONG_HANG_GUARD,
        check=False,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    command = str(venv / "bin" / "acecode")

    assert _run([command, "--version"], env, project_dir).split() == [
        "acecode",
        acecode.__version__,
    ]
    _run([command, "install"], env, project_dir)
    settings = json.loads((home_dir / ".claude" / "settings.json").read_text())
    start = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert start == f"{command} hook session-start"

    playbook = project_dir / ".claude" / "playbook.json"
    playbook.parent.mkdir(exist_ok=True)
    playbook.write_text(
        json.dumps({"sections": {"PATTERNS & APPROACHES": [{"name": "pat-001", "text": RULE}]}})
    )
    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
    hook_env = {**env, "CLAUDE_PROJECT_DIR": str(project_dir)}
    out = _run(["sh", "-c", start], hook_env, project_dir, json.dumps(payload))
    assert RULE in json.loads(out)["hookSpecificOutput"]["additionalContext"]

    doctor = _run(
        [command, "doctor"], {**hook_env, "AGENTIC_CONTEXT_API_KEY": "sk-test"}, project_dir
    )
    (note,) = [line.strip() for line in doctor.splitlines() if line.strip().startswith("[note]")]
    assert "semantic de-duplication is off" in note
    command_given = shlex.split(note.split("add it with: ", 1)[1])
    assert command_given == [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        f"{dist.wheel}[embed]",
    ]
    assert "[problem]" not in doctor
