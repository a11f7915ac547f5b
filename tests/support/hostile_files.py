"""Files a clone (or a damaged disk) may hand acecode: the fault probe's hostile inputs.

Each :class:`Hostile` writes one file where acecode reads it (the project's playbook,
its ``acecode.toml``, the user's settings or prompt templates, a state file) into a
project that otherwise holds a small valid playbook. ``tests/faults/test_fault_hostile_files.py``
checks what each command and hook does with it; ``bench/fault_probe.py`` times them.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

VALID_RULE = "Run the unit tests with pytest -q from the repository root."


@dataclass(frozen=True)
class Hostile:
    """One hostile file: where it goes (``write(project, home)``), what acecode does with
    it, and the commands (besides the hooks) the tests run on it."""

    name: str
    write: Callable[[Path, Path], Path]
    # True: the file cannot be used at all, and the session-start message names it;
    # a refused playbook is not injected, a refused settings file turns acecode off in
    # the project (it may hold ``enabled = false``). False: the playbook is injected.
    refused: bool
    commands: tuple[str, ...] = ()


def valid_playbook(project: Path) -> Path:
    """A small valid project playbook (every case starts from it), recorded as written on
    this machine: the user's own playbook, which the session-start hook injects unscreened."""
    from support.playbooks import written_here

    path = project / ".claude" / "playbook.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = [{"name": "pat-001", "text": VALID_RULE, "helpful": 2, "harmful": 0}]
    path.write_text(json.dumps({"version": "1.0", "sections": {"PATTERNS & APPROACHES": entries}}))
    return written_here(path)


def _playbook(project: Path) -> Path:
    return project / ".claude" / "playbook.json"


def _entries(count: int, text: Callable[[int], str]) -> bytes:
    entries = [
        {"name": f"oth-{i:06d}", "text": text(i), "helpful": 0, "harmful": 0} for i in range(count)
    ]
    return json.dumps({"version": "1.0", "sections": {"OTHERS": entries}}).encode()


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _binary(size: int) -> bytes:
    return random.Random(size).randbytes(size)


NESTED = b"[" * 100_000 + b"]" * 100_000


def _fifo(project: Path, _home: Path) -> Path:
    path = _playbook(project)
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def _folder(project: Path, _home: Path) -> Path:
    path = _playbook(project)
    path.unlink(missing_ok=True)
    path.mkdir()
    return path


def _huge_strings() -> bytes:
    entries = [{"name": "oth-000", "text": "x" * 20_000_000, "helpful": 0, "harmful": 0}]
    entries += [
        {"name": f"oth-{i:03d}", "text": "y" * 100_000, "helpful": 0, "harmful": 0}
        for i in range(1, 201)
    ]
    return json.dumps({"version": "1.0", "sections": {"OTHERS": entries}}).encode()


def _toml(project: Path) -> Path:
    return project / ".claude" / "acecode.toml"


def _user_toml(home: Path) -> Path:
    return home / ".claude" / "acecode.toml"


def _template(home: Path, name: str) -> Path:
    return home / ".claude" / "prompts" / name


def _state(project: Path, name: str) -> Path:
    return project / ".claude" / "acecode" / name


HOSTILE: tuple[Hostile, ...] = (
    Hostile(
        "playbook of 100,000 entries",
        lambda p, h: _write(_playbook(p), _entries(100_000, lambda i: f"Entry {i}.")),
        True,
        ("show", "doctor", "learn"),
    ),
    Hostile(
        "playbook of a 20 MB string and 200 of 100 KB",
        lambda p, h: _write(_playbook(p), _huge_strings()),
        True,
        ("show", "doctor", "learn"),
    ),
    Hostile(
        "playbook of 100,000 nested brackets",
        lambda p, h: _write(_playbook(p), NESTED),
        True,
        ("show", "doctor", "learn"),
    ),
    Hostile(
        "playbook of binary bytes",
        lambda p, h: _write(_playbook(p), _binary(4096)),
        True,
        ("show",),
    ),
    Hostile("playbook that is a named pipe", _fifo, True, ("show",)),
    Hostile("playbook that is a folder", _folder, True, ("show",)),
    Hostile(
        "acecode.toml of 10 MB",
        lambda p, h: _write(_toml(p), b"# padding\n" * 1_000_000 + b"max_rule_chars = 500\n"),
        True,
        ("learn",),
    ),
    Hostile(
        "acecode.toml of binary bytes",
        lambda p, h: _write(_toml(p), _binary(4096)),
        True,
        ("learn",),
    ),
    Hostile(
        "acecode.toml with inf and nan",
        lambda p, h: _write(
            _toml(p),
            b"topup_budget_chars = 1e999\ninjection_budget_chars = inf\n"
            b"max_removal_ratio = nan\nlock_timeout = -inf\n",
        ),
        False,
        ("learn",),
    ),
    Hostile(
        "acecode.toml nested 100,000 deep",
        lambda p, h: _write(_toml(p), b"a = " + NESTED + b"\n"),
        True,
        ("learn",),
    ),
    Hostile(
        "acecode.toml with a Latin-1 comment",
        lambda p, h: _write(_toml(p), b"# r\xe8gles du caf\xe9\nmax_rule_chars = 500\n"),
        False,
    ),
    Hostile(
        "user acecode.toml with daily_budget_usd = nan",
        lambda p, h: _write(_user_toml(h), b"daily_budget_usd = nan\n"),
        False,
    ),
    Hostile(
        "reflector.txt of binary bytes",
        lambda p, h: _write(_template(h, "reflector.txt"), _binary(4096)),
        False,
        ("learn",),
    ),
    Hostile(
        "playbook.txt with a Latin-1 byte",
        lambda p, h: _write(_template(h, "playbook.txt"), b"R\xe8gles:\n{key_points}\n"),
        False,
    ),
    Hostile(
        "playbook.txt without its placeholder",
        lambda p, h: _write(_template(h, "playbook.txt"), b"Follow the project's rules.\n"),
        False,
    ),
    Hostile(
        "playbook.txt of 10 MB",
        lambda p, h: _write(_template(h, "playbook.txt"), b"{key_points}\n" + b"z" * 10_000_000),
        False,
    ),
    Hostile(
        "review queue nested 100,000 deep",
        lambda p, h: _write(_state(p, "pending.json"), NESTED),
        False,
        ("show",),
    ),
    Hostile(
        "injection cache nested 100,000 deep",
        lambda p, h: _write(_state(p, "injection-cache.json"), NESTED),
        False,
        ("show",),
    ),
    Hostile(
        "last cycle record nested 100,000 deep",
        lambda p, h: _write(_state(p, "last-cycle.json"), NESTED),
        False,
        ("show",),
    ),
    Hostile(
        "pins nested 100,000 deep",
        lambda p, h: _write(_state(p, "pins.json"), NESTED),
        False,
        ("show",),
    ),
    Hostile(
        "provenance of binary bytes",
        lambda p, h: _write(_state(p, "provenance.json"), _binary(4096)),
        False,
        ("show",),
    ),
    Hostile(
        "learned marks nested 100,000 deep",
        lambda p, h: _write(_state(p, "learned.json"), NESTED),
        False,
        ("show",),
    ),
)
