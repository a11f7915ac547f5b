"""The concluded entries: ``experiments/classes.json``, read by the hooks and the ranking.

Written by :func:`acecode.experiments.status.refresh` (after every learning
cycle, and by ``acecode impact --rules``) only when it changes, since its
``stat`` is part of the injection cache's key: ``{"version": 1, "entries":
{"pat-003": {"class": "helps", "figure": "62% fewer [+18%, +85%]",
"sessions": 140, "entry_version": "1a2b3c4d", "rule": 2}}}``. An entry listed
here is no longer held back; one that ``helps`` ranks higher in the
injection; one that ``hurts`` is *withheld*: not injected, and waiting in
``acecode review`` with its figure until the user keeps it (``"kept": true``)
or deletes it; one with ``no measurable effect`` is a retire candidate.
Reading never raises: a missing or damaged file is no conclusion.

A verdict is the record of evidence that may be gone: the transcripts it was
read from (Claude Code deletes them after 30 days) and the outcome cache
(``outcomes.jsonl``). So a verdict stays until the entry's text changes (a
new ``entry_version``: a new rule, measured afresh) or the entry is deleted;
a verdict reached under an older classification :data:`RULE` is replaced by
the current rule's answer while its data can still be read.

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
# The classification rule a verdict was reached under (acecode.experiments.estimate): 2 since
# classes need MIN_RECURRENCES and "hurts" the 1% test. Older verdicts are re-checked.
RULE = 2
KEPT = "kept"  # the user looked at an entry that hurts and keeps it injected
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


def withheld(state: StateFolder) -> frozenset[str]:
    """The entries measured to hurt that the user has not kept: not injected anywhere."""
    return frozenset(
        name
        for name, item in read_classes(state).items()
        if item["class"] == HURTS and not item.get(KEPT)
    )


def keep(state: StateFolder, name: str) -> bool:
    """Record that the user keeps ``name`` injected although it was measured to hurt; False
    when ``name`` is not withheld."""
    entries = read_classes(state)
    item = entries.get(name)
    if item is None or item["class"] != HURTS or item.get(KEPT):
        return False
    entries[name] = {**item, KEPT: True}
    write_classes(state, entries)
    return True


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
