"""Fault 4: the playbook lock held by a hung process, then left behind by a dead one.

A writer that hangs while holding the playbook's lock
(``.claude/acecode/playbook.json.lock``) must not hang
``acecode learn`` with it: the wait is bounded by ``lock_timeout`` and ends in
one line. Once the holder is SIGKILLed, the lock file it leaves on disk is
stale (the kernel released its ``flock``) and must not block the next run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from fault_support import (
    ACECODE,
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
from support.hang_guard import HANG_GUARD, killed_after
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


_TAKING_TURNS = """
import os, sys, time
from acecode.store.lock import playbook_lock
playbook, go, hold = sys.argv[1], sys.argv[2], float(sys.argv[3])
after_go = 0
while after_go < int(sys.argv[4]):
    with playbook_lock(playbook, 600):
        print("turn", flush=True)
        time.sleep(hold)
    after_go += os.path.exists(go)
"""


def test_fault_learner_queued_behind_writers_taking_turns_waits_its_turn_and_learns(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    """Sessions ending together: other writers hold the lock one after another, each for
    less than ``lock_timeout`` (1 s of 4), and go on for longer than ``lock_timeout`` after
    the learner starts waiting. A learner that has paid for its LLM calls waits its turn
    and says so (the old one gave up after 4 s in all, and lost the cycle)."""
    server = llm()
    before = seed_playbook(playbook)["sections"]
    transcript = session_transcript(tmp_path / "s.jsonl", "turns")
    env = acecode_env(
        project_dir, home_dir, server.env(), ACECODE_LOCK_TIMEOUT="4", ACECODE_PROGRESS_AFTER="0"
    )
    go, errors = tmp_path / "go", tmp_path / "learn.err"
    turns = subprocess.Popen(
        [sys.executable, "-c", _TAKING_TURNS, str(playbook), str(go), "1", "6"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    with killed_after(turns), errors.open("w") as stderr:
        assert turns.stdout is not None
        assert turns.stdout.readline().startswith("turn")
        learner = subprocess.Popen(
            [*ACECODE, "learn", "--json", str(transcript)],
            env=env,
            cwd=project_dir,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        with killed_after(learner):
            while learner.poll() is None and "waiting for" not in errors.read_text():
                time.sleep(0.05)
            go.touch()  # six more turns of 1 s from now: 6 s > 4 s
            out, _ = learner.communicate(timeout=HANG_GUARD)
        turns.kill()
        turns.wait(timeout=HANG_GUARD)

    said = errors.read_text()
    assert learner.returncode == 0, said
    assert "waiting for" in said and "another acecode process" in said, said
    (report,) = json.loads(out)
    assert report["status"] == "ok", report
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "turns"))


def test_fault_learn_json_prints_the_failure_when_the_lock_is_never_released(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    server = llm()
    seed_playbook(playbook)
    transcript = session_transcript(tmp_path / "s.jsonl", "json")
    env = acecode_env(project_dir, home_dir, server.env(), ACECODE_LOCK_TIMEOUT="1")
    with lock_held_elsewhere(playbook_lock_file(playbook)):
        blocked = run_acecode(["learn", "--json", str(transcript)], env, cwd=project_dir)

    assert blocked.returncode == 1
    one_clear_line(blocked, "locked by another acecode process")
    (report,) = json.loads(blocked.stdout)
    assert report["status"] == "failed" and "locked" in report["reason"], report
