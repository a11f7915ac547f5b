"""The concluded entries: ``experiments/classes.json``, read by the hooks and the ranking.

Written by :func:`acecode.experiments.status.refresh` (after every learning
cycle, and by ``acecode impact --rules``) only when it changes, since its
``stat`` is part of the injection cache's key: ``{"version": 1, "entries":
{"pat-003": {"class": "helps", "figure": "62% fewer [+18%, +85%]",
"sessions": 140}}}``. An entry listed here is no longer held back; one that
``helps`` ranks higher in the injection; one that ``hurts`` is named in the
session-start notice; one with ``no measurable effect`` is a retire
candidate. Reading never raises: a missing or damaged file is no conclusion.

Only ``json`` and ``os``: the notice reads it at every session start.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from acecode.experiments.files import CLASSES, experiments_path

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

VERSION = 1
# The classes of acecode.experiments.estimate; the first three are conclusive.
HELPS = "helps"
HURTS = "hurts"
NO_EFFECT = "no measurable effect"
NO_EVIDENCE = "no evidence yet"
CONCLUSIVE = (HELPS, HURTS, NO_EFFECT)


def classes_file(state: StateFolder) -> str:
    return experiments_path(state, CLASSES)


def read_classes(state: StateFolder) -> dict[str, dict[str, Any]]:
    """``{name: {"class", "figure", "sessions"}}`` of the concluded entries ({} without a file)."""
    from acecode.project.bounds import read_json

    try:
        data = read_json(classes_file(state), "experiment classes")
    except (OSError, ValueError):
        return {}
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return {}
    return {
        name: item
        for name, item in entries.items()
        if isinstance(name, str) and isinstance(item, dict) and isinstance(item.get("class"), str)
    }


def names_in(state: StateFolder, label: str) -> list[str]:
    """The concluded entries of one class, sorted."""
    return sorted(name for name, item in read_classes(state).items() if item["class"] == label)


def write_classes(state: StateFolder, entries: dict[str, dict[str, Any]]) -> bool:
    """Save ``entries`` when they differ from the file; True when the file changed."""
    if read_classes(state) == entries and os.path.exists(classes_file(state)):
        return False
    from pathlib import Path

    from acecode.store.atomic import atomic_write_text

    path = classes_file(state)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps({"version": VERSION, "entries": entries}, indent=1, sort_keys=True)
    atomic_write_text(Path(path), text + "\n")
    return True


def retire_reasons(state: StateFolder, live: set[str]) -> dict[str, str]:
    """The entries of ``live`` measured to have no effect, each with the figure that says so:
    retire candidates for ``acecode impact``, the report and the curator."""
    return {
        name: f"no measurable effect in hold-back experiments: {item.get('figure', '?')} "
        f"over {item.get('sessions', '?')} sessions"
        for name, item in sorted(read_classes(state).items())
        if item["class"] == NO_EFFECT and name in live
    }
