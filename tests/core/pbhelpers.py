"""Small builders and probes shared by the playbook core tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.playbook.schema import SECTION_NAMES

PAT, MIS, PREF, CTX, OTH = SECTION_NAMES


def kp(name: str, text: str, helpful: int = 0, harmful: int = 0) -> dict[str, Any]:
    """One entry in the canonical shape."""
    return {"name": name, "text": text, "helpful": helpful, "harmful": harmful}


def make_playbook(**by_slug: list[dict[str, Any]]) -> dict[str, Any]:
    """A playbook with all five sections; keyword = slug (pat, mis, pref, ctx, oth)."""
    slugs = {"pat": PAT, "mis": MIS, "pref": PREF, "ctx": CTX, "oth": OTH}
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    for slug, entries in by_slug.items():
        sections[slugs[slug]] = list(entries)
    return {"version": "1.0", "last_updated": None, "sections": sections}


def names(playbook: dict[str, Any], section: str | None = None) -> list[str]:
    """Entry names of one section, or of all sections in canonical order."""
    wanted = [section] if section else list(SECTION_NAMES)
    return [e["name"] for s in wanted for e in playbook["sections"][s]]


def texts(playbook: dict[str, Any]) -> list[str]:
    """Every entry text, canonical order."""
    return [e["text"] for s in SECTION_NAMES for e in playbook["sections"][s]]


def find(playbook: dict[str, Any], name: str) -> tuple[str, dict[str, Any]] | None:
    """``(section, entry)`` for ``name`` or None."""
    for section in SECTION_NAMES:
        for entry in playbook["sections"][section]:
            if entry["name"] == name:
                return section, entry
    return None


def diagnostics(folder: Path, name: str) -> list[str]:
    """Contents of the diagnostic files called ``<timestamp>_<name>.txt``, oldest first."""
    if not folder.is_dir():
        return []
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob(f"*_{name}.txt"))]
