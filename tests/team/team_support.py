"""Real git repositories for the merge-driver tests: build, commit, merge, inspect.

Everything runs as a user runs it: ``git`` and ``python -m acecode`` as
subprocesses in the test's project folder, with the identity set per command
(``HOME`` is a throw-away folder without a git config).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from acecode.playbook.schema import SECTION_NAMES, empty_playbook, new_entry
from acecode.store import load_playbook, serialize_playbook
from support.hang_guard import HANG_GUARD

PLAYBOOK = Path(".claude") / "playbook.json"
IDENTITY = ("-c", "user.name=Ada", "-c", "user.email=ada@example.com")
SLUGS = {"pat": SECTION_NAMES[0], "mis": SECTION_NAMES[1], "pref": SECTION_NAMES[2]}
SLUGS |= {"ctx": SECTION_NAMES[3], "oth": SECTION_NAMES[4]}
Row = tuple[str, str, int, int]  # name, text, helpful, harmful


def run(
    repo: Path,
    *command: str,
    ok: tuple[int, ...] = (0,),
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        list(command),
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode in ok, (command, done.returncode, done.stdout, done.stderr)
    return done


def git(repo: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return run(repo, "git", *IDENTITY, *args, **kwargs)


def acecode(
    repo: Path, *args: str, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """``acecode ARGS`` with ``repo`` as the project (as Claude Code's hooks would see it)."""
    env = {"CLAUDE_PROJECT_DIR": str(repo), **(env or {})}
    return run(repo, sys.executable, "-m", "acecode", *args, env=env, **kwargs)


def playbook(**by_slug: list[Row]) -> dict[str, Any]:
    """A playbook from rows per section slug: ``playbook(pat=[("pat-001", "text", 1, 0)])``."""
    built = empty_playbook()
    for slug, rows in by_slug.items():
        built["sections"][SLUGS[slug]] = [new_entry(*row) for row in rows]
    return built


def commit(repo: Path, book: dict[str, Any], message: str) -> None:
    """Write ``book`` as acecode saves it and commit it."""
    target = repo / PLAYBOOK
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(serialize_playbook(book), encoding="utf-8")
    git(repo, "add", str(PLAYBOOK))
    git(repo, "commit", "-qm", message)


def init_repo(repo: Path, base: dict[str, Any], *, install: bool = True) -> None:
    """A repository on ``main`` with ``base`` committed and (by default) the driver installed."""
    git(repo, "init", "-q", "-b", "main")
    if install:
        acecode(repo, "install", "--git")
        git(repo, "add", ".gitattributes")
    commit(repo, base, "base playbook")


def diverge(
    repo: Path,
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    ok: tuple[int, ...] = (0,),
) -> subprocess.CompletedProcess[str]:
    """Commit ``base``, then ``theirs`` on branch ``feature`` and ``ours`` on ``main``; merge."""
    init_repo(repo, base)
    git(repo, "checkout", "-qb", "feature")
    commit(repo, theirs, "feature learned")
    git(repo, "checkout", "-q", "main")
    commit(repo, ours, "main learned")
    return git(repo, "merge", "--no-edit", "feature", ok=ok)


def entries(repo: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every entry of the working tree's playbook by name: ``(section, entry)``."""
    book = load_playbook(repo / PLAYBOOK)
    return {e["name"]: (s, e) for s in SECTION_NAMES for e in book["sections"][s]}


def assert_canonical(repo: Path) -> None:
    """The file loads and is byte for byte what acecode itself would write."""
    raw = (repo / PLAYBOOK).read_text(encoding="utf-8")
    assert serialize_playbook(load_playbook(repo / PLAYBOOK)) == raw
    json.loads(raw)


def status(repo: Path) -> list[str]:
    """``git status --porcelain``, listing every untracked file."""
    return git(repo, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()
