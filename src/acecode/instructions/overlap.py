"""Which playbook entries repeat or contradict one of the project's instructions.

Written by the learning cycle, from the judge's verdicts
(:mod:`.relations`), into ``.claude/acecode/instruction-overlap.json``::

    {"version": 1,
     "entries": [{"name", "text", "kind", "file", "label", "line", "instruction",
                  "reason", "at_start", "memory"}],
     "files": {"<instruction file>": "<sha256 of its bytes>"}}

Read by the injection hook when it renders its cache (never on a cache hit):
an entry that *repeats* an instruction Claude Code loads at session start is
left out of the session-start text and of the per-prompt top-up, since the
model already has the instruction in the same context. The hook decides
without the judge or the embedding model, so it trusts a record only while
everything it was decided on is unchanged: the entry's text, the instruction
file's bytes (the hook reads and hashes the few files the records name), and,
for the auto memory, that auto memory is still on. Anything changed, and the
entry is injected again until the next cycle decides anew; a rule is never
lost for a stale record. Entries that repeat a ``paths:`` rule (loaded only
once a matching file is read) are injected as before, and Codex, which does
not load CLAUDE.md, gets every entry.

Only ``json``, ``os`` and ``hashlib`` are imported at module level: the hook
imports this module.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    from acecode.instructions.relations import Relation
    from acecode.project.layer import Layer

OVERLAP_NAME = "instruction-overlap.json"
VERSION = 1
# What turns Claude Code's auto memory off (acecode.instructions.auto_memory).
_MEMORY_OFF_VARIABLE = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"


def file_digest(path: str) -> str | None:
    """SHA-256 of a file's bytes, or None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def overlap_records(named: Iterable[tuple[str, Relation]]) -> dict[str, Any]:
    """The file's content for entries ``(name, relation)``."""
    from acecode.instructions.files import MEMORY_LABEL

    entries, files = [], {}
    for name, relation in named:
        unit = relation.instruction
        entries.append(
            {
                "name": name,
                "text": relation.text,
                "kind": relation.kind,
                "file": unit.path,
                "label": unit.label,
                "line": unit.line,
                "instruction": unit.text,
                "reason": relation.reason,
                "at_start": unit.at_start,
                "memory": unit.label == MEMORY_LABEL,
            }
        )
        files.setdefault(unit.path, file_digest(unit.path))
    return {"version": VERSION, "entries": entries, "files": files}


def write_overlap(layer: Layer, data: dict[str, Any]) -> None:
    """Save the records beside the project's playbook (atomic; an empty list removes them)."""
    from acecode.store.atomic import atomic_write_text

    path = layer.file(OVERLAP_NAME)
    if not data["entries"]:
        path.unlink(missing_ok=True)
        return
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def read_overlap(path: str) -> list[dict[str, Any]]:
    """The records of an overlap file; none when it is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return []
    entries = data.get("entries")
    files = data.get("files") if isinstance(data.get("files"), dict) else {}
    return [
        {**record, "digest": files.get(record.get("file"))}
        for record in entries or ()
        if isinstance(record, dict) and isinstance(record.get("name"), str)
    ]


def auto_memory_on(project: str) -> bool:
    """Whether Claude Code loads the auto memory for ``project`` (the variable and the
    three settings files, read only when a record depends on it)."""
    if os.environ.get(_MEMORY_OFF_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}:
        return False
    for path in settings_files(project):
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("autoMemoryEnabled") is False:
            return False
    return True


def settings_files(project: str) -> list[str]:
    """Claude Code's settings files that can turn the auto memory off."""
    return [
        os.path.join(os.path.expanduser("~"), ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.local.json"),
    ]


def repeated_at_start(project: str, path: str, texts: dict[str, str]) -> list[dict[str, Any]]:
    """The records of entries (``texts``: name -> text) that repeat an instruction loaded at
    session start, still valid now (module doc): what the injection leaves out."""
    records = [r for r in read_overlap(path) if r.get("kind") == "repeats" and r.get("at_start")]
    if not records:
        return []
    digests: dict[str, str | None] = {}
    memory_on: bool | None = None
    valid = []
    for record in records:
        if texts.get(record["name"]) != record.get("text"):
            continue
        file = str(record.get("file"))
        if file not in digests:
            digests[file] = file_digest(file)
        if digests[file] is None or digests[file] != record.get("digest"):
            continue
        if record.get("memory"):
            memory_on = auto_memory_on(project) if memory_on is None else memory_on
            if not memory_on:
                continue
        valid.append(record)
    return valid


def watched_files(project: str, records: list[dict[str, Any]]) -> list[str]:
    """The files whose change must re-render a cache that left ``records`` out."""
    files = {str(record["file"]) for record in records}
    if any(record.get("memory") for record in records):
        files.update(settings_files(project))
    return sorted(files)
