"""Possibly stale entries for ``acecode stats`` and ``acecode doctor``.

Stale entries are a warning, never a problem: the curator is offered them at
the next cycle and decides, and a name the check cannot find may still be
right (a file the project generates, a tool's name).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.staleness import StaleReport

# Entries listed one per line; the rest are counted.
MAX_LINES = 20


def stale_report(playbook_file: Path, playbook: dict[str, Any]) -> StaleReport:
    """The stale check of ``playbook`` against the project ``playbook_file`` belongs to."""
    from acecode.staleness import find_stale, project_root_for

    return find_stale(playbook, project_root_for(playbook_file))


def stale_lines(report: StaleReport) -> list[str]:
    """The summary line, then one line per possibly stale entry (at most ``MAX_LINES``)."""
    lines = [report.describe()]
    lines += [f"{entry.name} {entry.note()}" for entry in report.entries[:MAX_LINES]]
    if len(report.entries) > MAX_LINES:
        lines.append(f"... and {len(report.entries) - MAX_LINES} more (`acecode stats --json`)")
    return lines


def stale_json(report: StaleReport) -> dict[str, Any]:
    """JSON-ready form for ``acecode stats --json``."""
    return {
        "summary": report.describe(),
        "complete": report.complete,
        "entries": [
            {"name": entry.name, "section": entry.section, "missing": list(entry.missing)}
            for entry in report.entries
        ],
    }
