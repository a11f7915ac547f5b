"""Fault 4: the playbook lock held by a hung process, then left behind by a dead one.

A writer that hangs while holding the playbook's lock
(``.claude/acecode/playbook.json.lock``) must not hang
``acecode learn`` with it: the wait is bounded by ``lock_timeout`` and ends in
one line. Once the holder is SIGKILLed, the lock file it leaves on disk is
stale (the kernel released its ``flock``) and must not block the next run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from fault_support import (
    acecode_env,
    comparable,
    one_clear_line,
    run_acecode,
    sections,
    seed_playbook,
    session_transcript,
    temp_files,
    with_lesson,
)

from acecode.store.lock import playbook_lock_file

HOLDER = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("locked", flush=True)
time.sleep(600)
"""


def _hold_lock(lock_file: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_file)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "locked"
    return holder


def test_fault_lock_held_by_hung_process_bounded_wait_then_stale_lock_does_not_block(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    server = llm()
    before = seed_playbook(playbook)["sections"]
    old_bytes = playbook.read_bytes()
    transcript = session_transcript(tmp_path / "s.jsonl", "lock")
    env = acecode_env(project_dir, home_dir, server.env(), ACECODE_LOCK_TIMEOUT="1")
    lock_file = playbook_lock_file(playbook)
    holder = _hold_lock(lock_file)
    try:
        # The holder sleeps 600 s: returning within the subprocess timeout (30 s), and
        # saying it waited the configured 1 s, is the bound (no wall-clock assertion:
        # loaded CI machines are slow, the bound is the message and the timeout).
        blocked = run_acecode(["learn", str(transcript)], env, cwd=project_dir, timeout=30)

        assert blocked.returncode == 1, (blocked.stdout, blocked.stderr)
        one_clear_line(blocked, str(playbook), "locked by another acecode process", "waited 1 s")
        assert playbook.read_bytes() == old_bytes
        assert temp_files(playbook.parent) == []

        # Reading needs no lock: the injection hook still serves the playbook meanwhile.
        hook = run_acecode(
            ["hook", "session-start"],
            env,
            cwd=project_dir,
            stdin=json.dumps({"session_id": "s-lock", "source": "startup"}),
            timeout=30,
        )
        assert hook.returncode == 0 and hook.stderr == ""
        context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Run pytest -x first" in context
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)

    assert lock_file.exists()  # the dead holder's lock file stays behind...
    after = run_acecode(["learn", str(transcript)], env, cwd=project_dir, timeout=30)

    assert after.returncode == 0, after.stderr  # ...and does not block the next run
    assert "Traceback" not in after.stderr
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "lock"))
