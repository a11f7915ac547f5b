"""Turn whatever a ``playbook.json`` holds into the canonical sections schema.

Handles every legacy shape of the specification: a flat ``key_points`` list
(moved to OTHERS, IDs preserved, OBS-SECT-001), bare strings, dicts without
counters, the legacy ``score`` field, and dual-key files (``sections`` wins,
OBS-SECT-007 warning). Anything that cannot be migrated without losing data
raises ``PlaybookFileError`` so the caller never saves over it.

Hand edits are read the way their author meant them where that is
unambiguous: a count written as ``"3"``, ``" 3 "`` or ``3.0`` is 3. What
is not (``"lots"``, ``2.5``, ``true``, a name that is not a string) is read
as best it can be and reported, one ``acecode: <file>: entry ...`` line per
entry on stderr. An ID used twice keeps its first entry (in file order); each
later one gets the next free ID of its section and is reported, so no entry,
text or count is ever dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acecode.playbook.schema import (
    DEFAULT_SECTION,
    PLAYBOOK_VERSION,
    SECTION_NAMES,
    SECTION_SLUGS,
    empty_sections,
    format_keypoint_name,
    max_slug_numbers,
    new_entry,
)
from acecode.project.bounds import MAX_ENTRY_CHARS, MAX_PLAYBOOK_ENTRIES
from acecode.project.diagnostics import diagnose, warn
from acecode.store.errors import PlaybookFileError

if TYPE_CHECKING:
    from os import PathLike

_SECTION_BY_FOLDED = {name.casefold(): name for name in SECTION_NAMES}
_TOP_LEVEL_ONLY = {"version", "last_updated"}

# A file is read several times by one command (snapshot, transaction, report):
# each problem line is printed once per process.
_already_reported: set[str] = set()


def _number(value: Any) -> tuple[int, str | None]:
    """``value`` as a whole number, and the problem when that was a guess.

    Missing (``None``) is 0 without complaint: an entry never evaluated.
    """
    if value is None:
        return 0, None
    if isinstance(value, bool):
        return 0, f"{value!r} is not a count; read as 0"
    if isinstance(value, int):
        return value, None
    number = value
    if isinstance(value, str):
        try:
            return int(value.strip()), None
        except ValueError:
            pass
        try:
            number = float(value.strip())
        except ValueError:
            return 0, f"{value!r} is not a number; read as 0"
    if not isinstance(number, float):
        kind = {"dict": "an object", "list": "an array"}.get(type(value).__name__, repr(value))
        return 0, f"{kind} is not a count; read as 0"
    if number.is_integer():
        return int(number), None
    try:
        whole = int(number)
    except (OverflowError, ValueError):  # Infinity and NaN
        return 0, f"{value!r} is not a count; read as 0"
    return whole, f"{value!r} is not a whole number; read as {whole}"


class _Reader:
    """The state of one file's migration: names in use and what to report.

    A plain class: ``dataclasses`` would cost the injection hook's cache miss
    several milliseconds of imports.
    """

    def __init__(self, path: str | PathLike[str]) -> None:
        self.path = path
        self.taken: set[str] = set()  # every name written in the file or generated
        self.seen: set[str] = set()  # names of the entries read so far
        self.repeated: list[tuple[str, dict[str, Any]]] = []  # (section, later entry)
        self.problems: list[str] = []

    def legacy_name(self, position: int) -> str:
        """``kpt_NNN`` from the entry's 1-based position, or the next free number."""
        number = position + 1
        while f"kpt_{number:03d}" in self.taken:
            number += 1
        name = f"kpt_{number:03d}"
        self.taken.add(name)
        return name

    def counters(self, item: dict[str, Any], notes: list[str]) -> tuple[int, int]:
        if "helpful" in item or "harmful" in item or "score" not in item:
            helpful, helpful_note = _number(item.get("helpful"))
            harmful, harmful_note = _number(item.get("harmful"))
            notes += [f"helpful {helpful_note}"] if helpful_note else []
            notes += [f"harmful {harmful_note}"] if harmful_note else []
            return max(helpful, 0), max(harmful, 0)
        score, score_note = _number(item["score"])
        notes += [f"score {score_note}"] if score_note else []
        return max(score, 0), max(-score, 0)

    def entries(self, raw: Any, where: str, section: str) -> list[dict[str, Any]]:
        """The entries of one list of the file, all of which go to ``section``."""
        if not isinstance(raw, list):
            raise PlaybookFileError(f"{self.path}: {where} is not a list; file left untouched")
        entries = []
        for position, item in enumerate(raw):
            text = item.get("text") if isinstance(item, dict) else item
            if not isinstance(text, str):
                raise PlaybookFileError(
                    f"{self.path}: entry {position + 1} of {where} has no text; file left untouched"
                )
            if len(text) > MAX_ENTRY_CHARS:
                raise PlaybookFileError(
                    f"{self.path}: entry {position + 1} of {where} has a text of "
                    f"{len(text):,} characters, over acecode's limit of "
                    f"{MAX_ENTRY_CHARS:,}; file left untouched"
                )
            if isinstance(item, str):
                entries.append(new_entry(self.legacy_name(position), item))
                continue
            notes: list[str] = []
            name = item.get("name")
            if not isinstance(name, str) or not name:
                if name not in (None, ""):
                    notes.append(f"name {name!r} is not a string")
                name = self.legacy_name(position)
            helpful, harmful = self.counters(item, notes)
            entry = new_entry(name, item["text"], helpful, harmful)
            if name in self.seen:
                self.repeated.append((section, entry))
            self.seen.add(name)
            if notes:
                self.problems.append(f"entry {name!r} of {where}: {'; '.join(notes)}")
            entries.append(entry)
        return entries

    def rename_repeated(self, sections: dict[str, list[dict[str, Any]]]) -> None:
        """Give every later entry of a repeated ID the next free ID of its section."""
        if not self.repeated:
            return
        from acecode.project.layers import USER_PREFIX, is_user_name

        every = [entry for entries in sections.values() for entry in entries]
        highest = {prefix: max_slug_numbers(every, prefix) for prefix in ("", USER_PREFIX)}
        for section, entry in self.repeated:
            slug = SECTION_SLUGS[section]
            prefix = USER_PREFIX if is_user_name(entry["name"]) else ""
            highest[prefix][slug] += 1
            number = highest[prefix][slug]
            old, entry["name"] = entry["name"], format_keypoint_name(prefix + slug, number)
            self.problems.append(
                f"entry {old!r} in {section} repeats an ID used earlier in the file; "
                f"renamed {entry['name']!r}, nothing dropped"
            )

    def report(self) -> None:
        for problem in self.problems:
            line = f"{self.path}: {problem}"
            if line not in _already_reported:
                _already_reported.add(line)
                warn(line)


def _explicit_names(lists: list[Any]) -> set[str]:
    """Every non-empty string name written in the file (kept by legacy naming)."""
    return {
        item["name"]
        for raw in lists
        if isinstance(raw, list)
        for item in raw
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]
    }


def _check_count(data: dict[str, Any], path: str | PathLike[str]) -> None:
    """Refuse a file of more entries than :data:`MAX_PLAYBOOK_ENTRIES` before reading any."""
    lists = data.get("sections") if isinstance(data.get("sections"), dict) else {}
    count = sum(len(raw) for raw in lists.values() if isinstance(raw, list))
    if isinstance(data.get("key_points"), list) and not lists:
        count = len(data["key_points"])
    if count > MAX_PLAYBOOK_ENTRIES:
        raise PlaybookFileError(
            f"{path}: the playbook holds {count:,} entries, over acecode's limit of "
            f"{MAX_PLAYBOOK_ENTRIES:,}; file left untouched"
        )


def migrate_playbook(data: Any, path: str | PathLike[str]) -> dict[str, Any]:
    """The canonical playbook for the parsed JSON ``data`` read from ``path``."""
    if not isinstance(data, dict):
        raise PlaybookFileError(
            f"{path}: not a playbook (top level is {type(data).__name__}, expected an object); "
            "file left untouched"
        )
    _check_count(data, path)
    playbook: dict[str, Any] = {
        "version": data.get("version", PLAYBOOK_VERSION),
        "last_updated": data.get("last_updated"),
    }
    reader = _Reader(path)
    sections = empty_sections()
    if "sections" in data:
        if "key_points" in data:
            diagnose(
                "sections_dual_key",
                f"OBS-SECT-007: {path} has both 'sections' and 'key_points'; "
                "'sections' used, 'key_points' ignored",
            )
        raw_sections = data["sections"]
        if not isinstance(raw_sections, dict):
            raise PlaybookFileError(f"{path}: 'sections' is not an object; file left untouched")
        reader.taken = _explicit_names(list(raw_sections.values()))
        for raw_name, raw_entries in raw_sections.items():
            canonical = _SECTION_BY_FOLDED.get(str(raw_name).strip().casefold(), DEFAULT_SECTION)
            where = f"section {raw_name!r}"
            sections[canonical].extend(reader.entries(raw_entries, where, canonical))
    elif "key_points" in data:
        reader.taken = _explicit_names([data["key_points"]])
        sections[DEFAULT_SECTION] = reader.entries(
            data["key_points"], "key_points", DEFAULT_SECTION
        )
        diagnose(
            "sections_migration",
            f"OBS-SECT-001: migrated {len(sections[DEFAULT_SECTION])} flat key points "
            f"from {path} into OTHERS",
        )
    elif not set(data) <= _TOP_LEVEL_ONLY:
        raise PlaybookFileError(
            f"{path}: not a playbook (no 'sections' or 'key_points'); file left untouched"
        )
    reader.rename_repeated(sections)
    reader.report()
    playbook["sections"] = sections
    for key, value in data.items():
        if key not in playbook and key != "key_points":
            playbook[key] = value
    return playbook
