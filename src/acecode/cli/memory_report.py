"""Claude Code's own memory as ``acecode doctor`` reports it: the instruction files that
apply, whether auto memory is on, and the entries that repeat or contradict them.

The counts of entries come from the last learning cycle's record
(:mod:`acecode.instructions.overlap`), kept only while an entry's text is the one
the cycle judged; the instruction files are read now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.text.wording import counted


def memory_lines(project: Path, playbook: dict[str, Any] | None) -> list[str]:
    """The lines of doctor's "Claude Code's memory" check; ``playbook`` is the project
    layer (None: unreadable), shown with the user layer's entries."""
    from acecode.instructions.files import instruction_files

    files = instruction_files(project, memory=False)
    if playbook is not None:
        playbook = _with_user_layer(playbook)
    return [
        *_files_line(files),
        _auto_memory_line(project),
        *_entry_lines(project, playbook, bool(files)),
    ]


def _with_user_layer(playbook: dict[str, Any]) -> dict[str, Any]:
    """Both layers as the injection shows them; the project's alone when the user's
    cannot be read (the user layer check says why)."""
    from acecode.project.layer import Layer
    from acecode.project.layers import combine
    from acecode.store import PlaybookError, load_playbook

    user = Layer.user()
    try:
        mine = load_playbook(user) if user.playbook_file.exists() else None
    except PlaybookError:
        mine = None
    return combine(playbook, mine)


def _files_line(files: list[Any]) -> list[str]:
    if not files:
        return ["no instruction files here (CLAUDE.md, .claude/CLAUDE.md, .claude/rules)"]
    at_start = [f.label for f in files if f.at_start]
    limited = [f"{f.label} ({', '.join(f.paths)})" for f in files if not f.at_start]
    lines = [
        f"instruction files: {len(at_start)} loaded at every session start"
        + (f": {', '.join(at_start)}" if at_start else "")
    ]
    if limited:
        lines.append(
            f"{counted(len(limited), 'rules file')} loaded once a matching file is read: "
            + ", ".join(limited)
        )
    return lines


def _auto_memory_line(project: Path) -> str:
    from acecode.instructions import auto_memory

    off = auto_memory.disabled_by(project)
    if off is not None:
        return f"auto memory: off ({off})"
    index = auto_memory.memory_folder(project) / auto_memory.INDEX_NAME
    try:
        text = index.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return f"auto memory: on, no notes yet ({index})"
    loaded = auto_memory.loaded_part(text).count("\n") + 1
    notes = len(auto_memory.topic_files(project))
    return (
        f"auto memory: on, {counted(loaded, 'line')} of {index} loaded at session start, "
        f"{counted(notes, 'topic file')} beside it (`acecode import --auto-memory` offers "
        "them for review)"
    )


def _entry_lines(project: Path, playbook: dict[str, Any] | None, any_files: bool) -> list[str]:
    from acecode.instructions.overlap import OVERLAP_NAME, read_overlap
    from acecode.playbook.schema import iter_entries
    from acecode.project.layer import Layer

    path = Layer.of_project(project).state_file(OVERLAP_NAME)
    if not Path(path).exists():
        if any_files or playbook is None:
            return ["entries not compared with them yet: the next learning cycle does it"]
        return []
    texts = {str(e.get("name")): e.get("text") for _, e in iter_entries(playbook or {})}
    records = [r for r in read_overlap(path) if texts.get(r["name"]) == r.get("text")]
    repeats = [r for r in records if r.get("kind") == "repeats"]
    contradicts = [r for r in records if r.get("kind") == "contradicts"]
    lines = [
        f"{counted(len(repeats), 'entry')} repeat an instruction "
        "(left out of the injection when Claude Code loads it at start: see injection)",
    ]
    if contradicts:
        lines.append(
            f"[warning] {counted(len(contradicts), 'entry')} contradict an instruction; "
            "keep the one that is right (`acecode edit`, `acecode forget`, or edit the file):"
        )
    else:
        lines.append("0 entries contradict an instruction")
    for record in contradicts:
        why = f" ({record['reason']})" if record.get("reason") else ""
        lines.append(
            f"  [{record['name']}] contradicts {record['label']}:{record['line']}: "
            f"“{record['instruction']}”{why}"
        )
    return lines
