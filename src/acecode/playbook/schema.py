"""Playbook schema: canonical sections, slugs, entry shape and ID generation.

A playbook is ``{"version", "last_updated", "sections": {SECTION: [entry]}}``
and an entry is exactly ``{"name", "text", "helpful", "harmful"}``
(REQ-SECT-001). ``SECTION_SLUGS`` is the single source of the canonical
section order and ID prefixes (REQ-SECT-010).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from acecode import events

SECTION_SLUGS: dict[str, str] = {
    "PATTERNS & APPROACHES": "pat",
    "MISTAKES TO AVOID": "mis",
    "USER PREFERENCES": "pref",
    "PROJECT CONTEXT": "ctx",
    "OTHERS": "oth",
}
SECTION_NAMES: tuple[str, ...] = tuple(SECTION_SLUGS)
DEFAULT_SECTION = "OTHERS"
ENTRY_KEYS: tuple[str, ...] = ("name", "text", "helpful", "harmful")
PLAYBOOK_VERSION = "1.0"

_SECTION_BY_FOLDED = {name.casefold(): name for name in SECTION_NAMES}


def empty_sections() -> dict[str, list[dict[str, Any]]]:
    """All five canonical sections, empty, in canonical order."""
    return {name: [] for name in SECTION_NAMES}


def empty_playbook() -> dict[str, Any]:
    """A new playbook with no entries."""
    return {"version": PLAYBOOK_VERSION, "last_updated": None, "sections": empty_sections()}


def new_entry(name: str, text: str, helpful: int = 0, harmful: int = 0) -> dict[str, Any]:
    """An entry in the exact on-disk key order."""
    return {"name": name, "text": text, "helpful": helpful, "harmful": harmful}


def match_section(raw: Any) -> str | None:
    """The canonical section ``raw`` names (stripped, case-insensitive), else None."""
    if not isinstance(raw, str):
        return None
    return _SECTION_BY_FOLDED.get(raw.strip().casefold())


def _resolve_section(raw: Any) -> str:
    """Map an LLM-given section name to a canonical one (REQ-SECT-005).

    Stripped, case-insensitive exact match; missing, ``None``, non-string or
    empty gives OTHERS silently; a non-empty unknown name gives OTHERS and
    emits OBS-SECT-002.
    """
    resolved = match_section(raw)
    if resolved is not None:
        return resolved
    if isinstance(raw, str) and raw.strip():
        events.diagnostic(
            "sections_unknown_section", f"OBS-SECT-002: unknown section {raw!r} -> OTHERS"
        )
    return DEFAULT_SECTION


@lru_cache(maxsize=32)
def _slug_pattern(slug: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(slug)}-(\d+)$")


def max_slug_number(entries: Iterable[Any], slug: str) -> int:
    """Highest NNN among names ``{slug}-NNN`` in ``entries`` (0 when none)."""
    pattern = _slug_pattern(slug)
    highest = 0
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str):
            match = pattern.match(name)
            if match:
                highest = max(highest, int(match.group(1)))
    return highest


_KNOWN_SLUGS = frozenset(SECTION_SLUGS.values())


def max_slug_numbers(entries: Iterable[dict[str, Any]], prefix: str = "") -> dict[str, int]:
    """``max_slug_number`` for every slug at once, in one pass over ``entries``.

    Gives the same answer as the regex ``^{prefix}{slug}-(\\d+)$`` (``\\d`` is
    ``str.isdecimal``; ``$`` also matches before one final newline) at a
    fraction of its cost, which matters when every curator call scans 10k names.
    ``prefix`` is a layer's name prefix (``u-`` for the user layer, see
    :mod:`acecode.project.layers`); the keys of the result are the bare slugs.
    """
    highest = dict.fromkeys(_KNOWN_SLUGS, 0)
    for entry in entries:
        name = entry.get("name")
        if not isinstance(name, str) or not name.startswith(prefix):
            continue
        slug, dash, digits = name[len(prefix) :].partition("-")
        if not dash or slug not in highest:
            continue
        if digits.endswith("\n"):
            digits = digits[:-1]
        if digits.isdecimal() and int(digits) > highest[slug]:
            highest[slug] = int(digits)
    return highest


def format_keypoint_name(slug: str, number: int) -> str:
    """``pat`` and 4 -> ``pat-004``."""
    return f"{slug}-{number:03d}"


def generate_keypoint_name(section_entries: list[dict[str, Any]], slug: str) -> str:
    """Next ID for a section: ``{slug}-{max+1:03d}`` (REQ-SECT-002).

    Only names matching ``^{slug}-(\\d+)$`` count, so legacy ``kpt_NNN`` IDs
    never move the counter.
    """
    return format_keypoint_name(slug, max_slug_number(section_entries, slug) + 1)


def iter_entries(playbook: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ``(section, entry)`` in canonical section order, then list order."""
    sections = playbook.get("sections") or {}
    for section in SECTION_NAMES:
        for entry in sections.get(section) or ():
            yield section, entry


def entry_count(playbook: dict[str, Any]) -> int:
    """Number of entries across all sections."""
    sections = playbook.get("sections") or {}
    return sum(len(sections.get(section) or ()) for section in SECTION_NAMES)


def without_names(playbook: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """``playbook`` without the entries called ``names`` (itself when none is there; else a
    copy whose entry dicts are shared, as :func:`isolated_copy`)."""
    out = set(names)
    if not out or not any(entry.get("name") in out for _section, entry in iter_entries(playbook)):
        return playbook
    copy = dict(playbook)
    copy["sections"] = {
        section: [entry for entry in entries if entry.get("name") not in out]
        for section, entries in (playbook.get("sections") or {}).items()
    }
    return copy


def isolated_copy(playbook: dict[str, Any]) -> dict[str, Any]:
    """A copy that can be edited without touching ``playbook``.

    The top-level dict, the sections dict and every section list are new;
    entry dicts are shared. Code in this package never mutates an entry in
    place (it replaces it with a new dict), so sharing them is safe and makes
    an isolated edit O(entries) pointer copies instead of a deep copy.
    """
    copy = dict(playbook)
    sections = playbook.get("sections") or {}
    copy["sections"] = {name: list(entries) for name, entries in sections.items()}
    for name in SECTION_NAMES:
        copy["sections"].setdefault(name, [])
    return copy
