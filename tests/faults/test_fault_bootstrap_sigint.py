"""Fault 6: Ctrl-C (SIGINT) in the middle of ``acecode bootstrap``.

Six sessions wait in ``~/.claude/projects/<encoded project>/``; the LLM holds
its answer to the third session's reflector call until the interrupt has been
sent, so the interrupt lands while that session is being learned, however
fast or slow the machine is. The state file
must then be valid JSON listing only sessions whose lessons are in the
playbook, the command must end cleanly with one line, and a rerun must skip
those sessions and learn the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

from fault_support import (
    ACECODE,
    acecode_env,
    lesson_router,
    lesson_text,
    run_acecode,
    seed_playbook,
    session_transcript,
)

from acecode.agents.claude_code.sessions import encode_project_path
from support.hang_guard import HANG_GUARD, wait_until
from support.pipeline import is_curator

SESSIONS = 6


def _as_a_terminal_starts_it() -> None:
    """Ctrl-C's default action, as in a shell's foreground job: a test suite started in the
    background (``cmd &`` in a script, ``nohup``) passes on an ignored SIGINT, and Python
    then leaves it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _state(project: Path) -> dict:
    path = project / ".claude" / "acecode" / "bootstrap.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_fault_sigint_during_bootstrap_state_consistent_and_rerun_resumes(
    project_dir: Path, home_dir: Path, playbook: Path, llm
) -> None:
    interrupted = threading.Event()

    def router(system: str, prompt: str) -> str:
        if "MARKER-boot2" in prompt and not is_curator(system, prompt):
            interrupted.wait(HANG_GUARD)  # the third session's reflector call stays out
        return lesson_router(system, prompt)

    server = llm(router)
    seed_playbook(playbook)
    folder = home_dir / ".claude" / "projects" / encode_project_path(project_dir)
    sessions = []
    for number in range(SESSIONS):
        path = session_transcript(folder / f"session-{number}.jsonl", f"boot{number}")
        os.utime(path, (1_700_000_000 + number, 1_700_000_000 + number))  # oldest first
        sessions.append(path)
    env = acecode_env(project_dir, home_dir, server.env(), ACECODE_LLM_TIMEOUT=str(HANG_GUARD))

    child = subprocess.Popen(
        [*ACECODE, "bootstrap", "--delay", "0"],
        env=env,
        cwd=project_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_a_terminal_starts_it,
    )
    try:
        wait_until(
            lambda: any("MARKER-boot2" in body for body in server.bodies),
            "the third session's reflector call",
        )
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=HANG_GUARD)
    finally:
        interrupted.set()
    print(f"\nUSER SAW (exit {child.returncode}): stdout={stdout!r} stderr={stderr!r}")

    assert "Traceback" not in stdout + stderr
    assert child.returncode == 130
    assert "interrupted" in stdout + stderr and "acecode bootstrap" in stdout + stderr
    state = _state(project_dir)  # valid JSON
    done = sorted(state.get("done", {}))
    assert done == sorted(str(s) for s in sessions[: len(done)])  # only a prefix, in order
    assert len(done) == 2  # the two sessions before the interrupted one
    learned = playbook.read_text(encoding="utf-8")
    for number in range(len(done)):
        assert lesson_text(f"boot{number}") in learned  # "done" means fully learned

    rerun = run_acecode(["bootstrap", "--delay", "0"], env, cwd=project_dir)
    print(f"rerun: {rerun.stdout.strip()[-120:]!r}")

    assert rerun.returncode == 0, rerun.stderr
    assert f"already learned {len(done)}" in rerun.stdout
    assert sorted(_state(project_dir)["done"]) == sorted(str(s) for s in sessions)
    final = playbook.read_text(encoding="utf-8")
    for number in range(SESSIONS):
        assert final.count(lesson_text(f"boot{number}")) == 1
