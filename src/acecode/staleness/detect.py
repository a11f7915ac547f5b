"""Which playbook entries name a path or symbol the project no longer has.

An entry is *possibly stale* when a path it names is neither a file nor a
folder of the project (whole, as a tail, or on disk), or a symbol it names
occurs nowhere in the project's text. A slash-only path with no known
extension (``and/or``, ``application/json``) counts only when its first part
is a folder or file of the project, so prose with a slash is not flagged.
Nothing is flagged from a listing or a search that was cut short: absence
there proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.playbook.schema import iter_entries
from acecode.project import paths
from acecode.project.layer import Layer, Where
from acecode.staleness.names import has_extension, named_in
from acecode.staleness.project import ProjectFiles, list_files, search_symbols
from acecode.text.wording import counted


@dataclass(frozen=True)
class StaleEntry:
    """An entry and the names in it that the project does not have."""

    section: str
    name: str
    missing: tuple[str, ...]

    def note(self) -> str:
        """One line for people and for the curator's list."""
        names = ", ".join(f"`{item}`" for item in self.missing)
        return f"names {names}, not found in the project"


@dataclass(frozen=True)
class StaleReport:
    """The possibly stale entries, and how sure the check could be."""

    entries: list[StaleEntry]
    paths_checked: int
    symbols_checked: int
    files: int
    source: str  # how the files were listed: "git" or "walk"
    complete: bool  # False when the listing or the symbol search was cut short

    def describe(self) -> str:
        """One summary line for ``stats`` and ``doctor``."""
        head = (
            f"{counted(len(self.entries), 'possibly stale entry')} "
            f"({counted(self.paths_checked, 'path')} and "
            f"{counted(self.symbols_checked, 'symbol')} checked "
            f"against {counted(self.files, 'file')} listed by {self.source})"
        )
        return head if self.complete else head + "; the check was cut short, absences unproven"


def project_root_for(playbook_file: Where) -> Path:
    """The project a playbook (or layer) belongs to: the folder holding its ``.claude``
    folder, else the current project (``$CLAUDE_PROJECT_DIR`` or the working directory)."""
    return Layer.of(playbook_file).project_root or paths.project_dir()


def find_stale(
    playbook: dict[str, Any], root: Path, project: ProjectFiles | None = None
) -> StaleReport:
    """The entries of ``playbook`` naming paths or symbols that ``root`` lacks."""
    project = project if project is not None else list_files(root)
    named = [
        (section, entry["name"], named_in(entry["text"]))
        for section, entry in iter_entries(playbook)
    ]
    all_paths = {path for _, _, found in named for path in found.paths}
    all_symbols = {symbol for _, _, found in named for symbol in found.symbols}
    missing_paths = set(_missing_paths(project, all_paths)) if project.complete else set()
    search = search_symbols(project, all_symbols)
    missing_symbols = all_symbols - search.found if search.complete else set()
    entries = []
    for section, name, found in named:
        missing = tuple(
            [p for p in found.paths if p in missing_paths]
            + [s for s in found.symbols if s in missing_symbols]
        )
        if missing:
            entries.append(StaleEntry(section, name, missing))
    return StaleReport(
        entries=entries,
        paths_checked=len(all_paths),
        symbols_checked=len(all_symbols),
        files=len(project.files),
        source=project.source,
        complete=project.complete and search.complete,
    )


def _missing_paths(project: ProjectFiles, candidates: Iterable[str]) -> Iterable[str]:
    for path in candidates:
        if project.has_path(path):
            continue
        if has_extension(path) or project.has_path(path.split("/", 1)[0]):
            yield path
