"""Fault 6: Ctrl-C (SIGINT) in the middle of ``acecode bootstrap``.

Six sessions wait in ``~/.claude/projects/<encoded project>/``; the LLM is
slow, so the interrupt lands while a session is being learned. The state file
must then be valid JSON listing only sessions whose lessons are in the
playbook, the command must end cleanly with one line, and a rerun must skip
those sessions and learn the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from fault_support import (
    ACECODE,
    acecode_env,
    lesson_text,
    run_acecode,
    seed_playbook,
    session_transcript,
    wait_until,
)

from acecode.agents.claude_code.sessions import encode_project_path

SESSIONS = 6


def _state(project: Path) -> dict:
    path = project / ".claude" / "acecode" / "bootstrap.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_fault_sigint_during_bootstrap_state_consistent_and_rerun_resumes(
    project_dir: Path, home_dir: Path, playbook: Path, llm
) -> None:
    server = llm(delay=0.4)
    seed_playbook(playbook)
    folder = home_dir / ".claude" / "projects" / encode_project_path(project_dir)
    sessions = []
    for number in range(SESSIONS):
        path = session_transcript(folder / f"session-{number}.jsonl", f"boot{number}")
        os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))  # oldest first
        sessions.append(path)
    env = acecode_env(project_dir, home_dir, server.env())

    child = subprocess.Popen(
        [*ACECODE, "bootstrap", "--delay", "0"],
        env=env,
        cwd=project_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Interrupt while the third session is being learned (its reflector call is out);
    # each session makes three calls: reflector, curator, safety review.
    wait_until(lambda: len(server.bodies) >= 7, timeout=60, what="the third session's LLM call")
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=30)
    print(f"\nUSER SAW (exit {child.returncode}): stdout={stdout!r} stderr={stderr!r}")

    assert "Traceback" not in stdout + stderr
    assert child.returncode == 130
    assert "interrupted" in stdout + stderr and "acecode bootstrap" in stdout + stderr
    state = _state(project_dir)  # valid JSON
    done = sorted(state.get("done", {}))
    assert done == sorted(str(s) for s in sessions[: len(done)])  # only a prefix, in order
    assert 2 <= len(done) < SESSIONS
    learned = playbook.read_text(encoding="utf-8")
    for number in range(len(done)):
        assert lesson_text(f"boot{number}") in learned  # "done" means fully learned

    started = time.monotonic()
    rerun = run_acecode(["bootstrap", "--delay", "0"], env, cwd=project_dir)
    print(f"rerun after {time.monotonic() - started:.1f} s: {rerun.stdout.strip()[-120:]!r}")

    assert rerun.returncode == 0, rerun.stderr
    assert f"already done {len(done)}" in rerun.stdout
    assert sorted(_state(project_dir)["done"]) == sorted(str(s) for s in sessions)
    final = playbook.read_text(encoding="utf-8")
    for number in range(SESSIONS):
        assert final.count(lesson_text(f"boot{number}")) == 1
