"""The store under real contention and real failures: processes, SIGKILL, a full disk.

Writers are real processes (forked workers or ``python -c`` subprocesses)
working on a real file; nothing about locking or writing is faked except the
errno a system call returns in the disk-full tests.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from acecode.playbook.operations import apply_structured_operations
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, empty_playbook
from acecode.store import (
    PlaybookLockTimeout,
    PlaybookWriteError,
    load_playbook,
    save_playbook,
    update_playbook,
)
from support.hang_guard import HANG_GUARD, killed_after

pytestmark = pytest.mark.skipif(os.name != "posix", reason="uses fork and POSIX signals")

WRITERS = 8
ROUNDS = 20


@pytest.fixture
def playbook_file(project_dir: Path) -> Path:
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def large_playbook(count: int, tag: str = "v0") -> dict[str, Any]:
    playbook = empty_playbook()
    for i in range(count):
        section = SECTION_NAMES[i % len(SECTION_NAMES)]
        playbook["sections"][section].append(
            {
                "name": f"{SECTION_SLUGS[section]}-{i:05d}",
                "text": f"{tag} entry {i}: keep functions small and name things for what they do",
                "helpful": i % 7,
                "harmful": i % 3,
            }
        )
    return playbook


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(".playbook.json.*.tmp"))


def start_child(code: str) -> subprocess.Popen[str]:
    """A real Python process running ``code``; it prints ``ready`` when set up."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_line(child: subprocess.Popen[str], expected: str) -> None:
    assert child.stdout is not None
    with killed_after(child):  # a child that hangs before its line is killed: "" below
        line = child.stdout.readline().strip()
    if line != expected:
        child.kill()
        _, err = child.communicate(timeout=HANG_GUARD)
        pytest.fail(f"child said {line!r}, expected {expected!r}; stderr:\n{err}")


def kill(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=HANG_GUARD)
    assert child.returncode == -signal.SIGKILL


# --- concurrent writers ---------------------------------------------------------------------------


def _add_entry(path: str, text: str, barrier: Any) -> None:
    """Forked worker: one transactional ADD, started together with its siblings."""
    barrier.wait(timeout=HANG_GUARD)
    # acecode's lock timeout is not under test here: wait as long as the others take.
    with update_playbook(path, lock_timeout=HANG_GUARD) as txn:
        txn.playbook = apply_structured_operations(
            txn.playbook, [{"type": "ADD", "text": text, "section": "OTHERS"}]
        )
        txn.meta["source"] = "test"


@pytest.mark.slow
def test_concurrent_writers_lose_no_entry(playbook_file: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    expected: set[str] = set()
    for round_no in range(ROUNDS):
        barrier = ctx.Barrier(WRITERS)
        texts = [f"round {round_no} writer {w}" for w in range(WRITERS)]
        workers = [
            ctx.Process(target=_add_entry, args=(str(playbook_file), text, barrier))
            for text in texts
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=HANG_GUARD)
        assert [w.exitcode for w in workers] == [0] * WRITERS
        expected.update(texts)
        others = load_playbook(playbook_file)["sections"]["OTHERS"]
        assert {e["text"] for e in others} == expected
        assert len({e["name"] for e in others}) == len(others) == len(expected)
    assert temp_files(playbook_file.parent) == []


# --- crash safety ---------------------------------------------------------------------------------

SAVE_LOOP = """
    import sys
    from acecode.store import load_playbook, save_playbook
    path = sys.argv[1] if len(sys.argv) > 1 else {path!r}
    playbook = load_playbook(path)
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        playbook["sections"]["OTHERS"][0]["text"] = f"rewrite {{n}}"
        save_playbook(playbook, path)
"""


@pytest.mark.slow
def test_sigkill_during_save_never_leaves_a_broken_file(playbook_file: Path) -> None:
    from acecode.project.bounds import MAX_PLAYBOOK_ENTRIES

    count = MAX_PLAYBOOK_ENTRIES  # the largest playbook acecode reads: the longest save
    save_playbook(large_playbook(count), playbook_file)
    rng = random.Random(20_000)
    killed_mid_write = 0
    for _ in range(20):
        child = start_child(SAVE_LOOP.format(path=str(playbook_file)))
        wait_for_line(child, "ready")
        time.sleep(rng.uniform(0.0, 0.4))
        kill(child)
        killed_mid_write += bool(temp_files(playbook_file.parent))
        data = json.loads(playbook_file.read_bytes().decode("utf-8"))
        assert sum(len(v) for v in data["sections"].values()) == count
        loaded = load_playbook(playbook_file)
        first = loaded["sections"]["OTHERS"][0]["text"]
        assert first.startswith(("rewrite ", "v0 entry 4:")), first
    # The next save clears what killed writers left behind.
    save_playbook(load_playbook(playbook_file), playbook_file)
    assert temp_files(playbook_file.parent) == []
    print(f"{killed_mid_write}/20 kills left a temp file (killed between mkstemp and replace)")


def test_sigkill_between_fsync_and_replace_keeps_old_file(playbook_file: Path) -> None:
    save_playbook(large_playbook(50), playbook_file)
    before = playbook_file.read_bytes()
    child = start_child(
        f"""
        import os, time
        from acecode.store import load_playbook, save_playbook
        def hang(src, dst):
            print("ready", flush=True)
            while True:  # until the test kills it
                time.sleep(3600)
        os.replace = hang
        playbook = load_playbook({str(playbook_file)!r})
        playbook["sections"]["OTHERS"].clear()
        save_playbook(playbook, {str(playbook_file)!r})
        """
    )
    wait_for_line(child, "ready")
    (temp,) = temp_files(playbook_file.parent)
    assert json.loads(temp.read_text(encoding="utf-8"))["sections"]["OTHERS"] == []
    kill(child)
    assert playbook_file.read_bytes() == before
    with update_playbook(playbook_file, lock_timeout=0) as txn:  # the lock went with the process
        txn.playbook = apply_structured_operations(txn.playbook, [{"type": "ADD", "text": "new"}])
    assert temp_files(playbook_file.parent) == []
    assert len(load_playbook(playbook_file)["sections"]["OTHERS"]) == 11


# --- the lock -------------------------------------------------------------------------------------

HOLD_LOCK = """
    import threading
    from acecode.store import update_playbook
    with update_playbook({path!r}) as txn:
        print("ready", flush=True)
        threading.Event().wait()  # until the test kills it
"""


def test_lock_timeout_while_another_process_holds_the_lock(playbook_file: Path) -> None:
    save_playbook(large_playbook(5), playbook_file)
    before = playbook_file.read_bytes()
    child = start_child(HOLD_LOCK.format(path=str(playbook_file)))
    try:
        wait_for_line(child, "ready")
        started = time.monotonic()
        # The holder never lets go: raising at all is the bound (were acecode to wait
        # forever, killed_after would free the lock and the raise would not come).
        with (
            killed_after(child),
            pytest.raises(PlaybookLockTimeout) as raised,
            update_playbook(playbook_file, lock_timeout=0.3) as txn,
        ):
            txn.playbook = empty_playbook()
        assert time.monotonic() - started >= 0.25  # it did wait (a floor holds under any load)
        message = str(raised.value)
        assert str(playbook_file) in message and "locked" in message and "\n" not in message
        with killed_after(child), pytest.raises(PlaybookLockTimeout):
            save_playbook(empty_playbook(), playbook_file, lock_timeout=0.2)
        assert load_playbook(playbook_file)["sections"] == json.loads(before)["sections"]
    finally:
        kill(child)
    assert playbook_file.read_bytes() == before


def test_lock_of_a_killed_process_does_not_block_the_next_writer(playbook_file: Path) -> None:
    child = start_child(HOLD_LOCK.format(path=str(playbook_file)))
    wait_for_line(child, "ready")
    kill(child)
    # lock_timeout=0: one try, no waiting; the stale lock file must not refuse it.
    with update_playbook(playbook_file, lock_timeout=0) as txn:
        txn.playbook = apply_structured_operations(txn.playbook, [{"type": "ADD", "text": "after"}])
    assert load_playbook(playbook_file)["sections"]["OTHERS"][0]["text"] == "after"


# --- disk full ------------------------------------------------------------------------------------


def _enospc(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("failing_call", ["fsync", "replace"])
def test_enospc_during_save_keeps_old_file_and_no_temp_files(
    playbook_file: Path, monkeypatch: pytest.MonkeyPatch, failing_call: str
) -> None:
    save_playbook(large_playbook(20), playbook_file)
    before = playbook_file.read_bytes()
    monkeypatch.setattr(os, failing_call, _enospc)
    with pytest.raises(PlaybookWriteError) as raised:
        save_playbook(large_playbook(30, tag="v1"), playbook_file)
    message = str(raised.value)
    assert str(playbook_file) in message and "No space left" in message and "\n" not in message
    with pytest.raises(PlaybookWriteError), update_playbook(playbook_file) as txn:
        txn.playbook = large_playbook(40, tag="v2")
    monkeypatch.undo()
    assert playbook_file.read_bytes() == before
    assert temp_files(playbook_file.parent) == []
    with update_playbook(playbook_file, lock_timeout=0) as txn:  # lock released after failure
        assert len(txn.playbook["sections"]["OTHERS"]) == 4


def test_file_size_limit_mid_write_keeps_old_file(playbook_file: Path) -> None:
    # A real short write: the kernel refuses bytes past RLIMIT_FSIZE (EFBIG), like a full disk.
    save_playbook(large_playbook(10), playbook_file)
    before = playbook_file.read_bytes()
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import resource, signal, sys
                from acecode.store import PlaybookWriteError, save_playbook
                from acecode.playbook.schema import empty_playbook
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
                playbook = empty_playbook()
                playbook["sections"]["OTHERS"] = [
                    {{"name": f"oth-{{i:05d}}", "text": "x" * 100, "helpful": 0, "harmful": 0}}
                    for i in range(5000)
                ]
                try:
                    save_playbook(playbook, {str(playbook_file)!r})
                except PlaybookWriteError as exc:
                    print(exc)
                    sys.exit(3)
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert child.returncode == 3, child.stderr
    assert str(playbook_file) in child.stdout
    assert playbook_file.read_bytes() == before
    assert temp_files(playbook_file.parent) == []
