"""What the last sessions taught, said once at the next session start.

A learning cycle that a hook started (the user did not watch it run) and that
added rules leaves one small file, ``learned/<cycle id>.json`` in the
project's state folder, naming the new entries of both layers. The next
session start (not a compaction) takes every such file and says, in the
notice Claude Code shows to the user and never sends to the model::

    acecode learned 2 rules from your last session (ctx-004, pat-007; `acecode show`)

One file per cycle, written atomically, so concurrent cycles never lose each
other's names; each file is taken by renaming it first, so two sessions
starting at once cannot both say it, and a taken file is deleted.

Only ``os`` and ``json``: the injection hook reads this.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from acecode.project.state_folder import ensure_folder_of, folder_of

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

FOLDER = "learned"
SUFFIX = ".json"
# Names shown on the line; the rest are counted.
SHOWN_NAMES = 6


def keep_learned(state: StateFolder, cycle_id: str, names: list[str], transcript: str) -> None:
    """Leave the names a cycle added for the next session start. Raises ``OSError``."""
    folder = os.path.join(ensure_folder_of(state), FOLDER)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, cycle_id + SUFFIX)
    temporary = os.path.join(folder, f".{cycle_id}.{os.getpid():08x}.tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump({"cycle_id": cycle_id, "names": names, "transcript": transcript}, handle)
    os.replace(temporary, target)


def take_learned(state: StateFolder) -> list[dict]:
    """Every record left since the last take, oldest first; each is taken once."""
    folder = os.path.join(folder_of(state), FOLDER)
    try:
        files = sorted(name for name in os.listdir(folder) if name.endswith(SUFFIX))
    except OSError:
        return []
    taken = []
    for name in files:
        path = os.path.join(folder, name)
        claimed = f"{path}.{os.getpid():08x}.taken"
        try:
            os.rename(path, claimed)  # another session start took it first: skip it
        except OSError:
            continue
        try:
            with open(claimed, encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            record = None
        _remove(claimed)
        if isinstance(record, dict) and isinstance(record.get("names"), list):
            taken.append(record)
    return taken


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return  # gone already: nothing to take


def learned_line(records: list[dict]) -> str | None:
    """``acecode learned N rules from your last session (names; `acecode show`)``, or None."""
    names = [str(name) for record in records for name in record["names"]]
    if not names:
        return None
    sessions = len({str(record.get("transcript")) for record in records if record["names"]})
    rules = "1 rule" if len(names) == 1 else f"{len(names)} rules"
    where = "your last session" if sessions == 1 else f"your last {sessions} sessions"
    shown = ", ".join(names[:SHOWN_NAMES])
    if len(names) > SHOWN_NAMES:
        shown += f" and {len(names) - SHOWN_NAMES} more"
    return f"acecode learned {rules} from {where} ({shown}; `acecode show`)"
