"""Render the playbook as the text injected into a Claude Code session.

Entries are grouped under ``## SECTION`` headers in canonical order, one line
each: ``[name] helpful=X harmful=Y :: text`` (REQ-SECT-003). The block goes
into the ``playbook.txt`` template, which frames the entries as learned
suggestions (data, not commands) and asks the agent to cite the IDs it uses.

The injection hook passes the template text it has already located, so that a
cache miss does not import ``acecode.prompts.templates`` (and ``pathlib``) just to find it.
"""

from __future__ import annotations

from typing import Any

from acecode.playbook.budget import PLACEHOLDER
from acecode.playbook.schema import SECTION_NAMES

TEMPLATE = "playbook.txt"
__all__ = ["PLACEHOLDER", "TEMPLATE", "format_entry", "format_key_points", "format_playbook"]


def format_entry(entry: dict[str, Any]) -> str:
    """One entry as a playbook line."""
    return (
        f"[{entry['name']}] helpful={entry['helpful']} harmful={entry['harmful']} :: "
        f"{entry['text']}"
    )


def format_key_points(playbook: dict[str, Any]) -> str:
    """The sectioned key points block, without the template ("" when empty)."""
    sections = playbook.get("sections") or {}
    blocks = []
    for section in SECTION_NAMES:
        entries = sections.get(section) or []
        if entries:
            lines = "\n".join(format_entry(entry) for entry in entries)
            blocks.append(f"## {section}\n{lines}")
    return "\n\n".join(blocks)


def format_playbook(playbook: dict[str, Any], template: str | None = None) -> str:
    """The full injected text, or ``""`` when the playbook has no entries.

    ``template`` is the text of ``playbook.txt``; by default it is loaded with
    ``load_template`` (the user's override, else the packaged file).
    """
    key_points = format_key_points(playbook)
    if not key_points:
        return ""
    if template is None:
        from acecode.prompts.templates import load_template

        template = load_template(TEMPLATE)
    return template.replace(PLACEHOLDER, key_points)
