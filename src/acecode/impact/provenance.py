"""Reading the provenance side store (``<state folder>/provenance.json``).

The provenance store is written by the learner (another module owns the
writer); this reader follows the agreed format and API, ``load_provenance``
returning ``{entry name: [Origin, ...]}``, so that it can give way to
``acecode.store.provenance`` without changing its callers. A missing file
is empty; a damaged one is one warning and empty, never an exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode import paths
from acecode.diagnostics import warn

PROVENANCE_NAME = "provenance.json"


@dataclass(frozen=True)
class Evidence:
    """The short, redacted excerpt an entry was learned from."""

    kind: str = "none"  # failure | request | none
    tool: str = ""
    command: str = ""
    error: str = ""
    request: str = ""


@dataclass(frozen=True)
class Origin:
    """One cycle or command that created or changed an entry."""

    cycle_id: str = ""
    at: str = ""
    how: str = ""
    agent: str = ""
    session: str = ""
    transcript: str | None = None
    reason: str = ""
    evidence: Evidence = Evidence()


def provenance_path(playbook_path: Path) -> Path:
    """The provenance file beside a playbook."""
    return paths.state_dir_for(playbook_path) / PROVENANCE_NAME


def load_provenance(playbook_path: Path) -> dict[str, list[Origin]]:
    """Every entry's origins, oldest first as stored."""
    path = provenance_path(playbook_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        warn(f"{path}: provenance unreadable ({exc}); shown without it")
        return {}
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        warn(f"{path}: provenance has no 'entries' object; shown without it")
        return {}
    return {
        str(name): [_origin(item) for item in record.get("origins", []) if isinstance(item, dict)]
        for name, record in entries.items()
        if isinstance(record, dict)
    }


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _origin(data: dict[str, Any]) -> Origin:
    raw = data.get("evidence")
    evidence = raw if isinstance(raw, dict) else {}
    transcript = data.get("transcript")
    return Origin(
        cycle_id=_text(data, "cycle_id"),
        at=_text(data, "at"),
        how=_text(data, "how"),
        agent=_text(data, "agent"),
        session=_text(data, "session"),
        transcript=transcript if isinstance(transcript, str) else None,
        reason=_text(data, "reason"),
        evidence=Evidence(
            kind=_text(evidence, "kind") or "none",
            tool=_text(evidence, "tool"),
            command=_text(evidence, "command"),
            error=_text(evidence, "error"),
            request=_text(evidence, "request"),
        ),
    )
