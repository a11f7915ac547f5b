"""Fault 1: the disk fills up while ``acecode learn`` saves the playbook.

Two ways to fill it: a real, tiny tmpfs mounted over ``.claude`` (needs
``mount``, i.e. root with CAP_SYS_ADMIN), and, always, an ENOSPC injected into
the child through a ``sitecustomize`` module that fails the playbook's temp
file at one of the three points a full disk shows up: ``write`` (half the
bytes land), ``fsync`` (delayed allocation) or ``os.replace``. Either way the
old playbook must survive byte for byte, no temp file may remain, the user
gets one line, and the transcript is not marked as learned, so the next run
with free space learns it.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
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

from support.hang_guard import HANG_GUARD

SITECUSTOMIZE = '''
"""Test fault: ENOSPC on the temp file of the playbook named in the environment."""
import errno
import os

_PLAYBOOK = os.environ.get("ACECODE_FAULT_ENOSPC_PLAYBOOK")
_AT = os.environ.get("ACECODE_FAULT_ENOSPC_AT")


def _full():
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _is_playbook_temp(fd):
    try:
        path = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    name = os.path.basename(path)
    return (
        os.path.dirname(path) == os.path.dirname(_PLAYBOOK)
        and name.startswith("." + os.path.basename(_PLAYBOOK) + ".")
        and name.endswith(".tmp")
    )


class _DiskFillsUp:
    """A text file whose disk fills up half way through the first write."""

    def __init__(self, handle):
        self._handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._handle.close()

    def write(self, text):
        self._handle.write(text[: len(text) // 2])
        self._handle.flush()
        raise _full()

    def __getattr__(self, name):
        return getattr(self._handle, name)


if _PLAYBOOK and _AT == "write":
    _real_fdopen = os.fdopen

    def fdopen(fd, *args, **kwargs):
        handle = _real_fdopen(fd, *args, **kwargs)
        return _DiskFillsUp(handle) if _is_playbook_temp(fd) else handle

    os.fdopen = fdopen

if _PLAYBOOK and _AT == "fsync":
    _real_fsync = os.fsync

    def fsync(fd):
        if _is_playbook_temp(fd):
            raise _full()
        return _real_fsync(fd)

    os.fsync = fsync

if _PLAYBOOK and _AT == "replace":
    _real_replace = os.replace

    def replace(src, dst, **kwargs):
        if os.fspath(dst) == _PLAYBOOK:
            raise _full()
        return _real_replace(src, dst, **kwargs)

    os.replace = replace
'''


def _learned_transcripts(project: Path) -> str:
    progress = project / ".claude" / "acecode" / "learned.json"
    return progress.read_text(encoding="utf-8") if progress.exists() else ""


@pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(),
    reason="the injected ENOSPC finds the playbook's temp file through /proc/self/fd (Linux)",
)
@pytest.mark.parametrize("point", ["write", "fsync", "replace"])
def test_fault_disk_full_injected_enospc_keeps_old_playbook_and_no_temp_files(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path, point: str
) -> None:
    server = llm()
    before = seed_playbook(playbook)["sections"]
    old_bytes = playbook.read_bytes()
    transcript = session_transcript(tmp_path / "s.jsonl", "full")
    fault = tmp_path / "fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    pythonpath = os.pathsep.join(filter(None, [str(fault), os.environ.get("PYTHONPATH")]))
    env = acecode_env(
        project_dir,
        home_dir,
        server.env(),
        PYTHONPATH=pythonpath,
        ACECODE_FAULT_ENOSPC_PLAYBOOK=str(playbook),
        ACECODE_FAULT_ENOSPC_AT=point,
    )

    result = run_acecode(["learn", str(transcript)], env, cwd=project_dir)

    assert result.returncode == 1
    one_clear_line(result, f"could not save {playbook}", os.strerror(errno.ENOSPC), "unchanged")
    assert playbook.read_bytes() == old_bytes
    assert temp_files(project_dir / ".claude") == []
    assert str(transcript) not in _learned_transcripts(project_dir)

    # Space again: the same transcript is learned, on top of the intact old playbook.
    del env["ACECODE_FAULT_ENOSPC_AT"]
    retry = run_acecode(["learn", str(transcript)], env, cwd=project_dir)
    assert retry.returncode == 0, retry.stderr
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "full"))


@pytest.fixture
def tiny_claude_dir(project_dir: Path) -> Iterator[tuple[Path, int]]:
    """``.claude`` as a tmpfs of a given size; yields (folder, size in bytes)."""
    folder = project_dir / ".claude"
    folder.mkdir()
    size = 128 * 1024
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root; the injected ENOSPC runs instead")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_GUARD,
    )
    if mounted.returncode != 0:
        reason = (mounted.stderr or mounted.stdout).strip()
        pytest.skip(f"this machine refuses to mount a tmpfs ({reason}); injected ENOSPC runs")
    try:
        yield folder, size
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, timeout=HANG_GUARD)


def test_fault_disk_full_real_tmpfs_keeps_old_playbook_and_no_temp_files(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path, tiny_claude_dir
) -> None:
    folder, size = tiny_claude_dir
    server = llm()
    # About 80 KB on disk: it fits once in the 128 KB tmpfs, not twice. Few long entries
    # (within acecode's 10,000 characters per entry), because each text is embedded
    # (uncached: the cache cannot be written either).
    seed_playbook(playbook, extra_entries=9, padding=9_000)
    old_bytes = playbook.read_bytes()
    assert size / 2 < len(old_bytes) < size - 16 * 1024
    transcript = session_transcript(tmp_path / "s.jsonl", "tmpfs")

    result = run_acecode(
        ["learn", str(transcript)],
        # Generated entries are near-paraphrases; only identical texts may merge here.
        acecode_env(project_dir, home_dir, server.env(), AGENTIC_CONTEXT_DEDUP_THRESHOLD="1"),
        cwd=project_dir,
    )

    assert result.returncode == 1, result.stdout
    one_clear_line(result, str(playbook), os.strerror(errno.ENOSPC))
    assert playbook.read_bytes() == old_bytes
    assert temp_files(folder) == []
