"""At render time: what the session-start cache needs for the exposure record and the draw.

Runs on a cache miss of the injection (:mod:`acecode.hooks.rendered`), so the
serve side (:mod:`acecode.experiments.serve`) only reads. It adds to the
cached session-start state:

- ``versions``: the version of every injected entry (the first 8 hex digits
  of the CRC-32 of its text; an edit of the text is a new version);
- ``experiment`` (experiments on only): the salt, ``holdback_rate``,
  ``holdback_max``, how many entries each section shows, and the eligible
  entries with their section and their exact line in the text.

An entry is eligible for the draw when it is in the session-start text (an
entry left out for the budget is not experimented on: the comparison must
be between sessions that would otherwise all have shown it), is not pinned,
has a failure or correction signature (:mod:`acecode.experiments.signatures`)
and has no conclusive class yet (:mod:`acecode.experiments.classes`). The
cache key includes ``classes.json`` and both provenance files, so a change
in any of them renders again.
"""

from __future__ import annotations

import os
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from acecode.experiments.files import SALT, experiments_path

if TYPE_CHECKING:
    from acecode.project.layer import Where
    from acecode.project.state_folder import StateFolder

PROVENANCE = "provenance.json"  # acecode.store.provenance.PROVENANCE_NAME


def entry_version(entry: Mapping[str, Any]) -> str:
    """A short hash of the entry's text: what ``name@version`` records."""
    return f"{zlib.crc32(str(entry.get('text') or '').encode('utf-8')):08x}"


def project_salt(state: StateFolder) -> str:
    """The project's secret salt (hex), created on first use."""
    path = experiments_path(state, SALT)
    try:
        with open(path, encoding="utf-8") as handle:
            salt = handle.read().strip()
        bytes.fromhex(salt)
        if salt:
            return salt
    except (OSError, ValueError):
        pass
    from acecode.project.state_folder import ensure_folder_of

    ensure_folder_of(state)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    salt = os.urandom(16).hex()
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(salt + "\n")
    except FileExistsError:  # another process made it meanwhile (or it was unreadable)
        with open(path, encoding="utf-8") as handle:
            salt = handle.read().strip()
    return salt


def raw_provenance(layers: Iterable[Where]) -> dict[str, list[Any]]:
    """Every entry's origins as raw JSON, from the provenance file of each layer: the
    cache miss needs the evidence only, not the store's validation and redaction (the file
    is acecode's own, written redacted). A damaged file counts as empty here; the CLI warns."""
    from acecode.project.bounds import read_json
    from acecode.project.layer import Layer

    merged: dict[str, list[Any]] = {}
    for where in layers:
        try:
            entries = read_json(Layer.of(where).state_file(PROVENANCE), "provenance").get("entries")
        except (OSError, ValueError, AttributeError):
            continue
        for name, record in entries.items() if isinstance(entries, dict) else ():
            origins = record.get("origins") if isinstance(record, dict) else None
            if isinstance(origins, list):
                merged[name] = [o for o in origins if isinstance(o, dict)]
    return merged


def plan_fields(
    state: StateFolder,
    playbook: Mapping[str, Any],
    text: str,
    injected: list[str],
    pinned: Iterable[str],
    limits: Mapping[str, Any],
    layers: Iterable[Where],
) -> dict[str, Any]:
    """``versions`` and, with ``limits["experiments"]``, ``experiment`` (module docstring).

    ``state`` is the project's state folder, ``text`` the session-start text that
    holds the ``injected`` entries, ``layers`` the layers whose provenance
    counts (the project's and the user layer). An entry whose line the text does not
    hold as a line of its own (a template override that formats it otherwise) is not
    eligible: it could not be cut.
    """
    from acecode.playbook.formatting import format_entry
    from acecode.playbook.schema import iter_entries

    where = {entry["name"]: (section, entry) for section, entry in iter_entries(playbook)}
    fields: dict[str, Any] = {
        "versions": {name: entry_version(where[name][1]) for name in injected if name in where}
    }
    if not limits.get("experiments"):
        return fields
    from acecode.experiments.classes import read_classes
    from acecode.experiments.signatures import has_signature

    concluded = read_classes(state)
    provenance = raw_provenance(layers)
    skip = set(pinned) | set(concluded)
    eligible = {}
    for name in injected:
        if name in skip or name not in where:
            continue
        section, entry = where[name]
        line = format_entry(entry)
        if "\n" + line in text and has_signature(entry, provenance.get(name, ())):
            eligible[name] = [section, line]
    fields["experiment"] = {
        "salt": project_salt(state),
        "rate": float(limits.get("holdback_rate", 0.0)),
        "max": int(limits.get("holdback_max", 0)),
        "shown": dict(Counter(where[name][0] for name in injected if name in where)),
        "eligible": eligible,
    }
    return fields
