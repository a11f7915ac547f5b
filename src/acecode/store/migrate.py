"""Turn whatever a ``playbook.json`` holds into the canonical sections schema.

Handles every legacy shape of the specification: a flat ``key_points`` list
(moved to OTHERS, IDs preserved, OBS-SECT-001), bare strings, dicts without
counters, the legacy ``score`` field, and dual-key files (``sections`` wins,
OBS-SECT-007 warning). Anything that cannot be migrated without losing data
raises ``PlaybookFileError`` so the caller never saves over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acecode.diagnostics import diagnose
from acecode.playbook.schema import (
    DEFAULT_SECTION,
    PLAYBOOK_VERSION,
    SECTION_NAMES,
    empty_sections,
    new_entry,
)
from acecode.store.errors import PlaybookFileError

if TYPE_CHECKING:
    from os import PathLike

_SECTION_BY_FOLDED = {name.casefold(): name for name in SECTION_NAMES}
_TOP_LEVEL_ONLY = {"version", "last_updated"}


def _number(value: Any) -> int:
    """An int for a JSON number; 0 for anything else (booleans included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    try:
        return int(value)
    except (OverflowError, ValueError):  # JSON's Infinity and NaN
        return 0


def _counter(value: Any) -> int:
    return max(_number(value), 0)


def _legacy_name(position: int, taken: set[str]) -> str:
    """``kpt_NNN`` from the entry's 1-based position, or the next free number."""
    number = position + 1
    while f"kpt_{number:03d}" in taken:
        number += 1
    return f"kpt_{number:03d}"


def _migrate_entries(raw: Any, where: str, path: str | PathLike[str]) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise PlaybookFileError(f"{path}: {where} is not a list; file left untouched")
    taken = {
        item["name"] for item in raw if isinstance(item, dict) and isinstance(item.get("name"), str)
    }
    entries = []
    for position, item in enumerate(raw):
        if isinstance(item, str):
            name = _legacy_name(position, taken)
            taken.add(name)
            entries.append(new_entry(name, item))
            continue
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise PlaybookFileError(
                f"{path}: entry {position + 1} of {where} has no text; file left untouched"
            )
        name = item.get("name")
        if not isinstance(name, str) or not name:
            name = _legacy_name(position, taken)
            taken.add(name)
        if "helpful" in item or "harmful" in item or "score" not in item:
            helpful, harmful = _counter(item.get("helpful")), _counter(item.get("harmful"))
        else:
            score = _number(item["score"])
            helpful, harmful = max(score, 0), max(-score, 0)
        entries.append(new_entry(name, item["text"], helpful, harmful))
    return entries


def migrate_playbook(data: Any, path: str | PathLike[str]) -> dict[str, Any]:
    """The canonical playbook for the parsed JSON ``data`` read from ``path``."""
    if not isinstance(data, dict):
        raise PlaybookFileError(
            f"{path}: not a playbook (top level is {type(data).__name__}, expected an object); "
            "file left untouched"
        )
    playbook: dict[str, Any] = {
        "version": data.get("version", PLAYBOOK_VERSION),
        "last_updated": data.get("last_updated"),
    }
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
        sections = empty_sections()
        for raw_name, raw_entries in raw_sections.items():
            canonical = _SECTION_BY_FOLDED.get(str(raw_name).strip().casefold(), DEFAULT_SECTION)
            sections[canonical].extend(_migrate_entries(raw_entries, f"section {raw_name!r}", path))
    elif "key_points" in data:
        sections = empty_sections()
        sections[DEFAULT_SECTION] = _migrate_entries(data["key_points"], "key_points", path)
        diagnose(
            "sections_migration",
            f"OBS-SECT-001: migrated {len(sections[DEFAULT_SECTION])} flat key points "
            f"from {path} into OTHERS",
        )
    elif set(data) <= _TOP_LEVEL_ONLY:
        sections = empty_sections()
    else:
        raise PlaybookFileError(
            f"{path}: not a playbook (no 'sections' or 'key_points'); file left untouched"
        )
    playbook["sections"] = sections
    for key, value in data.items():
        if key not in playbook and key != "key_points":
            playbook[key] = value
    return playbook
