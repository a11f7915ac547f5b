"""Fault 4: the playbook lock held by a hung process, then left behind by a dead one.

A writer that hangs while holding the playbook's lock
(``.claude/acecode/playbook.json.lock``) must not hang
``acecode learn`` with it: the wait is bounded by ``lock_timeout`` and ends in
one line. Once the holder is SIGKILLed, the lock file it leaves on disk is
stale (the kernel released its ``flock``) and must not block the next run.
"""

from __future__ import annotations

import json
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
from support.lock_holder import lock_held_elsewhere


def test_fault_lock_held_by_hung_process_bounded_wait_then_stale_lock_does_not_block(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    server = llm()
    before = seed_playbook(playbook)["sections"]
    old_bytes = playbook.read_bytes()
    transcript = session_transcript(tmp_path / "s.jsonl", "lock")
    env = acecode_env(project_dir, home_dir, server.env(), ACECODE_LOCK_TIMEOUT="1")
    lock_file = playbook_lock_file(playbook)
    with lock_held_elsewhere(lock_file):
        # The holder never lets go: that learn returns at all, saying it waited the
        # configured 1 s, is the bound (no wall-clock assertion; the subprocess
        # timeout is only a hang guard).
        blocked = run_acecode(["learn", str(transcript)], env, cwd=project_dir)

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
        )
        assert hook.returncode == 0 and hook.stderr == ""
        context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "Run pytest -x first" in context

    assert lock_file.exists()  # the dead (SIGKILLed) holder's lock file stays behind...
    after = run_acecode(["learn", str(transcript)], env, cwd=project_dir)

    assert after.returncode == 0, after.stderr  # ...and does not block the next run
    assert "Traceback" not in after.stderr
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "lock"))
