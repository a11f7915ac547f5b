"""The project's files and a bounded search of their text, for the stale-rule check.

A git repository is listed with ``git ls-files`` (tracked files and untracked
ones that are not ignored); anything else with a walk that skips the usual
generated and vendored folders. Both are bounded: a listing cut short is
marked incomplete, and the stale check then flags nothing it cannot be sure
of. Symbols are looked up in the listed files' text, up to a byte budget.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# Folders a walk never enters: version control, dependencies, caches, build output.
_IGNORED_DIRS_TEXT = """
    .git .hg .svn node_modules .venv venv env .env __pycache__ .tox .nox .mypy_cache
    .pytest_cache .ruff_cache .hypothesis dist build target .idea .vscode .next .nuxt
    .cache .gradle .terraform site-packages .eggs coverage htmlcov
    """
IGNORED_DIRS = frozenset(_IGNORED_DIRS_TEXT.split())
MAX_FILES = 50_000
MAX_SEARCH_BYTES = 64 * 1024 * 1024
MAX_FILE_BYTES = 2 * 1024 * 1024
GIT_TIMEOUT_S = 10.0
# Never searched for symbols: acecode's own files (the playbook, its state) name every
# symbol a rule names, so a rule would always find itself there.
NOT_SEARCHED = (".claude/",)


@dataclass
class ProjectFiles:
    """The files of a project (POSIX paths relative to ``root``) and how they were found."""

    root: Path
    files: list[str]
    complete: bool
    source: str  # "git" or "walk"
    _known: set[str] | None = field(default=None, repr=False)
    _folders: set[str] | None = field(default=None, repr=False)

    def _index(self) -> None:
        """Every path suffix at a folder boundary, of every file and folder, and every
        folder name: a rule may name ``models.py`` or ``app/models.py`` for
        ``src/app/models.py``."""
        known: set[str] = set()
        folder_paths: set[str] = set()
        for path in self.files:
            parts = path.split("/")
            known.update("/".join(parts[start:]) for start in range(len(parts)))
            folder_paths.update("/".join(parts[:end]) for end in range(1, len(parts)))
        for folder in folder_paths:
            parts = folder.split("/")
            known.update("/".join(parts[start:]) for start in range(len(parts)))
        self._known = known
        self._folders = {folder.rsplit("/", 1)[-1] for folder in folder_paths}

    def has_path(self, path: str) -> bool:
        """True when ``path`` is a file or folder of the project, whole or as a tail
        (``app/models.py`` matches ``src/app/models.py``), or exists on disk
        (a git-ignored build output is still there)."""
        if self._known is None:
            self._index()
        assert self._known is not None
        return path in self._known or (self.root / path).exists()

    def has_folder_named(self, name: str) -> bool:
        """True when some folder of the project is called ``name``."""
        if self._folders is None:
            self._index()
        assert self._folders is not None
        return name in self._folders


def list_files(root: Path, max_files: int = MAX_FILES) -> ProjectFiles:
    """The project's files: ``git ls-files`` in a git work tree, else a bounded walk."""
    listed = _git_files(root, max_files)
    return listed if listed is not None else _walk(root, max_files)


def _git_files(root: Path, max_files: int) -> ProjectFiles | None:
    try:
        result = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    names = list(dict.fromkeys(os.fsdecode(raw) for raw in result.stdout.split(b"\0") if raw))
    complete = len(names) <= max_files
    return ProjectFiles(root, names[:max_files], complete, "git")


def _walk(root: Path, max_files: int) -> ProjectFiles:
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        base = Path(folder).relative_to(root).as_posix()
        for name in sorted(names):
            if len(files) >= max_files:
                return ProjectFiles(root, files, False, "walk")
            files.append(name if base == "." else f"{base}/{name}")
    return ProjectFiles(root, files, True, "walk")


@dataclass
class SymbolSearch:
    """Which of the wanted symbols occur as whole words in the project's text."""

    found: set[str]
    complete: bool  # False when the byte budget ran out before every file was read


def search_symbols(
    project: ProjectFiles, symbols: Iterable[str], max_bytes: int = MAX_SEARCH_BYTES
) -> SymbolSearch:
    """Look for ``symbols`` as whole words in the project's files, stopping as soon as
    all are found or ``max_bytes`` have been read; binary and huge files are skipped."""
    wanted = set(symbols)
    found: set[str] = set()
    if not wanted:
        return SymbolSearch(found, True)
    budget = max_bytes
    pattern = _pattern(wanted)
    for name in project.files:
        if found == wanted:
            break
        if name.startswith(NOT_SEARCHED):
            continue
        path = project.root / name
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                continue
            if size > budget:
                return SymbolSearch(found, False)
            data = path.read_bytes()
        except OSError:
            continue
        budget -= len(data)
        if b"\0" in data[:8192]:
            continue
        hits = set(pattern.findall(data.decode("utf-8", "replace"))) - found
        if hits:
            found |= hits
            if found != wanted:
                pattern = _pattern(wanted - found)
    return SymbolSearch(found, project.complete)


def _pattern(symbols: set[str]) -> re.Pattern[str]:
    """One alternation of the symbols still missing, longest first, as whole words."""
    alternatives = "|".join(re.escape(s) for s in sorted(symbols, key=lambda s: (-len(s), s)))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")
