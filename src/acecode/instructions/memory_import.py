"""Claude's own auto-memory notes for a project, offered for review as playbook rules.

A user who starts with acecode keeps what Claude Code already learned:
``acecode import --auto-memory`` reads the project's auto memory
(:mod:`.auto_memory`): each topic file (one note with ``name``,
``description`` and ``type`` front matter: ``user``, ``feedback``,
``project`` or ``reference``) and each line of ``MEMORY.md`` that is a note
of its own rather than a link to a topic file. Every note becomes an item of
the review queue, never an entry: it becomes one when the user approves it
(``acecode review approve ID``).

Notes are screened like entries that arrived with a repository
(:func:`acecode.arrivals.verdicts.screen`): nobody reviewed them, so a floor
finding or a "not reviewed" class is the item's rule, shown in ``acecode
review`` beside where the note came from. A note already in the playbook, or
that one of the project's instructions says word for word, is left out; one
rejected before, or already waiting, is not queued again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.instructions import auto_memory

# Where a note of each type goes when approved.
SECTIONS = {
    "user": "USER PREFERENCES",
    "feedback": "USER PREFERENCES",
    "project": "PROJECT CONTEXT",
    "reference": "PROJECT CONTEXT",
}
DEFAULT_SECTION = "OTHERS"
# The queue's rule for a note nothing in the screen held.
AUTO_MEMORY_RULE = "auto-memory"
_LINK = re.compile(r"\]\(([^)\s]+\.md)\)")


@dataclass(frozen=True)
class Note:
    """One note of the auto memory: its text, the section it would go to, where it is."""

    text: str
    section: str
    source: str  # the file's name in the memory folder
    kind: str = ""  # its front matter's type, when it has one


def auto_memory_notes(project: Path) -> list[Note]:
    """The notes of ``project``'s auto memory: topic files, then ``MEMORY.md``'s own lines."""
    from acecode.instructions.files import InstructionFile
    from acecode.instructions.frontmatter import split_front_matter
    from acecode.instructions.units import split_units

    notes: list[Note] = []
    for path in auto_memory.topic_files(project):
        raw = _read(path)
        if raw is None:
            continue
        matter = split_front_matter(raw)
        data = _front_matter(matter.raw)
        kind = str(data.get("type") or "").strip().lower()
        body = " ".join(matter.body.split()) or str(data.get("description") or "").strip()
        if body:
            notes.append(Note(body, SECTIONS.get(kind, DEFAULT_SECTION), path.name, kind))
    index = auto_memory.memory_folder(project) / auto_memory.INDEX_NAME
    raw = _read(index)
    if raw is not None:
        file = InstructionFile(index, "memory", index.name, raw)
        for unit in split_units(file):
            if not _LINK.search(unit.bare):  # a link names a topic file, imported above
                notes.append(Note(unit.bare, DEFAULT_SECTION, index.name))
    return notes


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _front_matter(raw: str) -> dict[str, Any]:
    import yaml

    block = "\n".join(raw.split("\n")[1:-1])
    try:
        data = yaml.safe_load(block) if block else {}
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class ImportResult:
    """What the import queued, and each note it left out with why."""

    queued: list[Any]
    skipped: list[tuple[Note, str]]


def queue_notes(
    notes: list[Note],
    *,
    project: Path,
    playbook: dict[str, Any],
    layer: Any,
    settings: Any,
    dry_run: bool = False,
) -> ImportResult:
    """Queue each note for review, screened (module doc); ``dry_run`` queues nothing."""
    from acecode.arrivals.verdicts import screen
    from acecode.dedup.verbatim import verbatim_key
    from acecode.instructions.files import instruction_files
    from acecode.instructions.units import all_units
    from acecode.playbook.schema import iter_entries
    from acecode.quarantine.normalize import text_key
    from acecode.quarantine.queue import list_pending, pending_item, queue_text
    from acecode.quarantine.user_languages import trusted_languages

    entries = {verbatim_key(str(e.get("text", ""))) for _, e in iter_entries(playbook)}
    said = {
        verbatim_key(text)
        for unit in all_units(instruction_files(project, memory=False))
        for text in (unit.text, unit.bare)
    }
    languages = trusted_languages(settings, layer)
    waiting = {text_key(item.text) for item in list_pending(layer)}
    result = ImportResult([], [])
    for note in notes:
        key = verbatim_key(note.text)
        if text_key(note.text) in waiting:
            result.skipped.append((note, "already waiting for review"))
            continue
        if key in entries:
            result.skipped.append((note, "already an entry of the playbook"))
            continue
        if key in said:
            result.skipped.append((note, "one of the project's instructions says it"))
            continue
        _kind, rule, detail = screen(note.text, settings.max_rule_chars, languages)
        origin = f"from the auto memory, {note.source}" + (f" ({note.kind})" if note.kind else "")
        details = {
            "rule": rule or AUTO_MEMORY_RULE,
            "detail": f"{origin}; {detail}" if detail else origin,
            "section": note.section,
            "session": note.source,
        }
        timeout = settings.lock_timeout
        item = (
            pending_item(note.text, **details)
            if dry_run
            else queue_text(note.text, playbook=layer, lock_timeout=timeout, **details)
        )
        if item is None:
            result.skipped.append((note, "rejected in an earlier review"))
        else:
            result.queued.append(item)
    return result
