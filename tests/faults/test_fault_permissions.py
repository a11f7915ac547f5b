"""Faults 2 and 3: a read-only ``.claude/`` and a playbook nobody may read.

Root ignores permission bits, so when the tests run as root the child runs
without the capabilities that bypass them (CAP_DAC_OVERRIDE,
CAP_DAC_READ_SEARCH, CAP_FOWNER): it is still uid 0, can still run the
interpreter wherever it is installed, and now meets the same "Permission
denied" as any user. As a normal user the bits apply already.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fault_support import (
    acecode_env,
    one_clear_line,
    run_acecode,
    seed_playbook,
    session_transcript,
)


def _tree(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path below ``folder`` with its mode and (for files) content; the content of
    a lock's holder stamp (who took the lock last, ``acecode.store.lock``) aside: taking
    the lock to find out that nothing can be saved is no change."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.name.endswith(".lock.holder"):
            found[str(path.relative_to(folder))] = (stat.S_IMODE(path.lstat().st_mode), None)
            continue
        mode = path.lstat().st_mode
        content = path.read_bytes() if stat.S_ISREG(mode) else None
        found[str(path.relative_to(folder))] = (stat.S_IMODE(mode), content)
    return found


def _stats(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """Every path below ``folder`` with mode, size, mtime and inode: ``stat`` needs no read
    permission, and an atomic save would change the inode."""
    found = {}
    for path in sorted(folder.rglob("*")):
        st = path.lstat()
        found[str(path.relative_to(folder))] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
    return found


@pytest.fixture(params=["used", "fresh"])
def read_only_claude(project_dir: Path, playbook: Path, request) -> Iterator[Path]:
    """A seeded ``.claude`` made read-only, restored after.

    ``used``: acecode's state folder exists from earlier runs (read-only too);
    ``fresh``: only the playbook is there (say, committed and checked out read-only).
    """
    seed_playbook(playbook)  # saving creates the state folder (the playbook's lock is there)
    claude = playbook.parent
    folders = [claude]
    if request.param == "fresh":
        shutil.rmtree(claude / "acecode")
    else:
        (claude / "acecode" / "learned.json").write_text("{}\n")
        (claude / "acecode" / ".gitignore").write_text("*\n")
        folders.append(claude / "acecode")
    for folder in folders:
        folder.chmod(0o555)
    try:
        yield claude
    finally:
        for folder in folders:
            folder.chmod(0o755)


def test_fault_read_only_claude_dir_learn_fails_with_one_line_and_changes_nothing(
    project_dir: Path,
    home_dir: Path,
    read_only_claude: Path,
    llm,
    tmp_path: Path,
    obeying_permissions,
) -> None:
    server = llm()
    before = _tree(read_only_claude)
    transcript = session_transcript(tmp_path / "s.jsonl", "ro")

    result = run_acecode(
        ["learn", str(transcript)],
        acecode_env(project_dir, home_dir, server.env()),
        cwd=project_dir,
        preexec_fn=obeying_permissions,
    )

    assert result.returncode == 1, result.stdout
    one_clear_line(result, str(read_only_claude), "Permission denied")
    assert _tree(read_only_claude) == before


def test_fault_read_only_claude_dir_show_and_injection_still_work(
    project_dir: Path, home_dir: Path, read_only_claude: Path, obeying_permissions
) -> None:
    env = acecode_env(project_dir, home_dir)
    before = _tree(read_only_claude)

    show = run_acecode(
        ["show", "--format", "md"], env, cwd=project_dir, preexec_fn=obeying_permissions
    )
    hook = run_acecode(
        ["hook", "session-start"],
        env,
        cwd=project_dir,
        stdin=json.dumps({"session_id": "s-ro", "source": "startup"}),
        preexec_fn=obeying_permissions,
    )

    assert show.returncode == 0 and show.stderr == ""
    assert "Run pytest -x first" in show.stdout
    assert hook.returncode == 0 and hook.stderr == ""
    output = json.loads(hook.stdout)
    context = output.get("hookSpecificOutput", {}).get("additionalContext", "")
    if (read_only_claude / "acecode").exists():
        assert "Run pytest -x first" in context
    else:
        # Without the state folder nothing records the texts as written here: a playbook
        # checked out read-only is one that arrived, held until a review passes it.
        assert "Run pytest -x first" not in context
        assert "not written on this machine" in output["systemMessage"]
    assert _tree(read_only_claude) == before


def test_fault_read_only_claude_dir_is_said_at_session_start_and_by_doctor(
    project_dir: Path, home_dir: Path, read_only_claude: Path, obeying_permissions
) -> None:
    """Nothing can be learned (and the learner's log cannot be written): the old hook said
    it on stderr only, and every later session started without a word."""
    env = acecode_env(project_dir, home_dir)
    hook = run_acecode(
        ["hook", "session-start"],
        env,
        cwd=project_dir,
        stdin=json.dumps({"session_id": "s-ro-notice", "source": "startup"}),
        preexec_fn=obeying_permissions,
    )
    doctor = run_acecode(["doctor"], env, cwd=project_dir, preexec_fn=obeying_permissions)

    message = json.loads(hook.stdout)["systemMessage"]
    assert "is not writable" in message and "not learned from" in message, message
    assert str(read_only_claude) in message
    assert doctor.returncode == 1
    assert any(
        line.strip().startswith("[problem]") and "is not writable" in line
        for line in doctor.stdout.splitlines()
    ), doctor.stdout


UNREADABLE = ["mode-000", "other-owner"]


@contextmanager
def _unreadable(playbook: Path, how: str) -> Iterator[Path]:
    """Make the (existing) playbook unreadable to acecode; readable again on exit."""
    if how == "other-owner":
        if os.geteuid() != 0:
            pytest.skip("giving the playbook to another user (chown) needs root")
        os.chown(playbook, 65534, 65534)  # nobody:nogroup
        playbook.chmod(0o600)
    else:
        playbook.chmod(0)
    try:
        yield playbook
    finally:
        playbook.chmod(0o644)


@pytest.fixture(params=UNREADABLE)
def unreadable_playbook(playbook: Path, request) -> Iterator[Path]:
    """A valid playbook the acecode process may not read."""
    seed_playbook(playbook)
    with _unreadable(playbook, request.param) as path:
        yield path


def test_fault_unreadable_playbook_show_says_so_in_one_line(
    project_dir: Path, home_dir: Path, unreadable_playbook: Path, obeying_permissions
) -> None:
    result = run_acecode(
        ["show"],
        acecode_env(project_dir, home_dir),
        cwd=project_dir,
        preexec_fn=obeying_permissions,
    )

    assert result.returncode == 1
    assert result.stdout == ""
    one_clear_line(result, f"cannot read {unreadable_playbook}", "Permission denied")


@pytest.mark.parametrize("cache", ["cold", "warm"])
@pytest.mark.parametrize("how", UNREADABLE)
def test_fault_unreadable_playbook_injection_hook_exits_0_and_names_it_to_the_user(
    project_dir: Path, home_dir: Path, playbook: Path, obeying_permissions, how: str, cache: str
) -> None:
    env = acecode_env(project_dir, home_dir)
    payload = json.dumps({"session_id": "s-unreadable", "source": "startup"})
    seed_playbook(playbook)
    if cache == "warm":  # a session injected the playbook before it became unreadable
        earlier = json.dumps({"session_id": "s-earlier", "source": "startup"})
        primed = run_acecode(["hook", "session-start"], env, cwd=project_dir, stdin=earlier)
        assert "Run pytest -x first" in primed.stdout

    with _unreadable(playbook, how) as unreadable:
        result = run_acecode(
            ["hook", "session-start"],
            env,
            cwd=project_dir,
            stdin=payload,
            preexec_fn=obeying_permissions,
        )

    assert (result.returncode, result.stderr) == (0, "")
    output = json.loads(result.stdout)
    assert list(output) == ["systemMessage"]  # nothing injected; Claude Code shows this
    line = output["systemMessage"].splitlines()[0]
    for fragment in ("not injected", f"cannot read {unreadable}", "Permission denied"):
        assert fragment in line, line
    print(f"\nUSER SAW (exit {result.returncode}): {line}")


def test_fault_unreadable_playbook_learn_refuses_and_changes_nothing(
    project_dir: Path,
    home_dir: Path,
    unreadable_playbook: Path,
    llm,
    tmp_path: Path,
    obeying_permissions,
) -> None:
    server = llm()
    claude = unreadable_playbook.parent
    before = _stats(claude)
    transcript = session_transcript(tmp_path / "s.jsonl", "unreadable")

    result = run_acecode(
        ["learn", str(transcript)],
        acecode_env(project_dir, home_dir, server.env()),
        cwd=project_dir,
        preexec_fn=obeying_permissions,
    )

    assert result.returncode == 1
    one_clear_line(result, f"cannot read {unreadable_playbook}", "Permission denied")
    assert _stats(claude) == before
    assert server.bodies == []  # refused before spending a single LLM call
