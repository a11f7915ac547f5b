"""Helpers of the fault-matrix tests: run the real CLI, script the LLM, judge what the user saw.

Every fault test runs ``python -m acecode ...`` as a subprocess against a real
project folder and a real HTTP LLM on 127.0.0.1, then checks two things the
issue asks of every fault: the playbook is the old one or the new one (valid,
loadable), and the user got exactly one clear ``acecode: ...`` line, never a
traceback.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from acecode.store import load_playbook, save_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, write_transcript

ACECODE = (sys.executable, "-m", "acecode")
# --- the scripted LLM ---------------------------------------------------------------------------

MARKER = re.compile(r"MARKER-([A-Za-z0-9]+)")


# Lessons on unrelated topics, so that the semantic de-duplication ladder keeps
# the lessons of successive sessions apart instead of crediting the first one.
LESSONS = (
    "install PyYAML before running the test suite of this repository.",
    "regenerate the protobuf stubs with make proto after editing any .proto file.",
    "the staging database resets every night at 02:00 UTC; never store fixtures there.",
    "write commit messages in the imperative mood and reference the ticket number.",
    "the frontend uses pnpm workspaces; npm install corrupts the lockfile.",
    "Windows CI runners need long path support enabled for the vendored assets.",
    "ask the user before renaming public API symbols; downstream plugins import them.",
    "profile with py-spy before optimising; the slow part is usually JSON parsing.",
)


def lesson_text(marker: str) -> str:
    """The rule the curator adds for the session carrying ``marker``.

    A marker ending in a number N gets lesson N (mod 8), others a lesson by checksum.
    """
    digits = re.search(r"(\d+)$", marker)
    number = int(digits.group(1)) if digits else sum(marker.encode())
    return f"Lesson {marker}: {LESSONS[number % len(LESSONS)]}"


def lesson_router(system: str, prompt: str) -> str:
    """Reflector: echo the session's marker. Curator: ADD that marker's lesson.

    The marker travels transcript -> reflector analysis -> curator prompt, so
    concurrent or successive cycles each learn their own, recognisable rule.
    """
    found = MARKER.search(prompt)
    marker = found.group(1) if found else "none"
    if is_curator(system, prompt):
        operation = {"type": "ADD", "text": lesson_text(marker), "section": "MISTAKES TO AVOID"}
        return json.dumps({"reasoning": "record the lesson", "operations": [operation]})
    return json.dumps(
        {
            "analysis": f"Session MARKER-{marker}: pytest failed on a missing yaml module.",
            "bullet_tags": [{"name": "pat-001", "tag": "helpful", "rationale": "it was applied"}],
        }
    )


def session_transcript(path: Path, marker: str) -> Path:
    """A small Claude Code transcript whose request carries ``MARKER-<marker>``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_transcript(
        path, f"Please fix the failing tests (MARKER-{marker})", "Fixed it, following [pat-001]."
    )


# --- playbooks ----------------------------------------------------------------------------------

SEED_TEXTS = (
    "Run pytest -x first so the first failure is the one you read.",
    "Prefer pathlib over os.path in new modules of this project.",
    "Keep hook handlers free of network calls; Claude Code waits for them.",
)


def seed_playbook(path: Path, extra_entries: int = 0, padding: int = 0) -> dict[str, Any]:
    """Save a valid playbook (pat-001 plus two more, plus ``extra_entries`` in OTHERS).

    ``padding`` appends that many characters of detail to each extra entry, for
    a large file with few entries (fewer texts to embed).
    """
    patterns = [
        {"name": f"pat-{i:03d}", "text": text, "helpful": 1, "harmful": 0}
        for i, text in enumerate(SEED_TEXTS, start=1)
    ]
    others = [
        {
            "name": f"oth-{i:03d}",
            "text": f"Entry {i} of a long playbook: module_{i}.py owns feature {i * 7919 % 10007}; "
            f"read its docstring before editing it (ticket {i}).{_detail(i, padding)}",
            "helpful": i % 3,
            "harmful": 0,
        }
        for i in range(1, extra_entries + 1)
    ]
    playbook = {
        "version": "1.0",
        "last_updated": None,
        "sections": {"PATTERNS & APPROACHES": patterns, "OTHERS": others},
    }
    save_playbook(playbook, path)
    return load_playbook(path)


def _detail(number: int, chars: int) -> str:
    if chars <= 0:
        return ""
    words = " ".join(f"step{number}.{k}" for k in range(chars // 8 + 1))
    return f" Details: {words}"[:chars]


def sections(path: Path) -> dict[str, Any]:
    """The playbook's sections as loaded (raises if the file is not a valid playbook)."""
    return load_playbook(path)["sections"]


def with_lesson(before: Mapping[str, Any], marker: str) -> dict[str, Any]:
    """The sections a clean cycle for ``marker`` leaves: pat-001 credited, the lesson added.

    Entry names are not predicted; the texts and counters are compared.
    """
    after = json.loads(json.dumps(before))
    for entry in after["PATTERNS & APPROACHES"]:
        if entry["name"] == "pat-001":
            entry["helpful"] += 1
    after["MISTAKES TO AVOID"].append({"text": lesson_text(marker), "helpful": 0, "harmful": 0})
    return after


def comparable(secs: Mapping[str, Any]) -> dict[str, Any]:
    """Sections reduced to what a cycle's outcome must match (texts and counters)."""
    return {
        section: [(e["text"], e["helpful"], e["harmful"]) for e in entries]
        for section, entries in secs.items()
    }


def temp_files(folder: Path) -> list[str]:
    """Leftover atomic-write temp files (``.<name>.XXXXXXXX.tmp``) anywhere below ``folder``."""
    return sorted(str(p) for p in folder.rglob(".*.tmp"))


# --- running acecode ----------------------------------------------------------------------------


def acecode_env(project: Path, home: Path, llm_env: Mapping[str, str] | None = None, **extra: str):
    """The subprocess environment: isolated HOME and project, the scripted LLM, ``extra``."""
    env = dict(os.environ)
    env.update(HOME=str(home), USERPROFILE=str(home), CLAUDE_PROJECT_DIR=str(project))
    env.update(llm_env or {})
    env.update(extra)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return env


def run_acecode(
    args: list[str],
    env: Mapping[str, str],
    *,
    cwd: Path,
    stdin: str | None = None,
    timeout: float = HANG_GUARD,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m acecode ARGS`` to completion; stdout and stderr captured as text."""
    return subprocess.run(
        [*ACECODE, *args],
        env=dict(env),
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec_fn,
        check=False,
    )


def one_clear_line(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Assert the user saw exactly one ``acecode: ...`` line on stderr, and no traceback.

    Returns the line (the tests print it so the fault table can quote it).
    """
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one stderr line, got {lines!r}"
    line = lines[0]
    assert line.startswith("acecode: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    print(f"\nUSER SAW (exit {result.returncode}): {line}")
    return line


# --- privileges ---------------------------------------------------------------------------------

# Linux capability numbers (linux/capability.h) that let root ignore permission bits.
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_PR_CAPBSET_DROP = 24


def _drop_permission_overrides() -> None:
    """preexec_fn: remove root's permission-bypassing capabilities from the child.

    Dropped from the bounding set, so they do not come back at ``execve``. The
    child stays uid 0 (and can still run the interpreter wherever it is
    installed), but now obeys mode bits like any user: a root-owned file of
    mode 000 is unreadable, a 0555 folder is read-only, a file owned by another
    user with mode 0600 cannot be opened.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, os.strerror(errno))


def permission_bits_enforced() -> tuple[Callable[[], None] | None, str | None]:
    """How to run a child that obeys permission bits: (preexec_fn, None) or (None, skip reason).

    A non-root user obeys them already. Root needs its DAC capabilities dropped
    in the child; this is checked once by running a child that must fail to
    read a mode-000 file.
    """
    if not hasattr(os, "geteuid"):
        return None, "POSIX permission bits are not available on this platform"
    if os.geteuid() != 0:
        return None, None
    probe = Path(f"/tmp/acecode-cap-probe-{os.getpid()}-{time.monotonic_ns()}")
    probe.write_text("x")
    probe.chmod(0)
    try:
        result = subprocess.run(
            [sys.executable, "-c", f"open({str(probe)!r}).read()"],
            preexec_fn=_drop_permission_overrides,
            capture_output=True,
            text=True,
            check=False,
            timeout=HANG_GUARD,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"running as root and cannot drop CAP_DAC_OVERRIDE in a child: {exc}"
    finally:
        probe.unlink()
    if "PermissionError" not in result.stderr:
        return None, "running as root and a child without CAP_DAC_OVERRIDE still reads mode 000"
    return _drop_permission_overrides, None
