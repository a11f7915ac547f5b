"""How much of each transcript has already been learned from.

A session is often learned from twice: at PreCompact and again at
SessionEnd (or by a later ``acecode bootstrap``). The transcript file only
grows, so remembering how many messages a cycle consumed lets the next cycle
reflect on the new part alone instead of paying for, and double-counting,
the same evidence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.project.state_folder import folder_of
from acecode.store.atomic import atomic_write_text
from acecode.store.lock import exclusive_lock

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

PROGRESS_FILE = "learned.json"


def _key(transcript: str | Path) -> str:
    return str(Path(transcript).resolve())


def _read(path: Path) -> dict[str, Any]:
    from acecode.project.bounds import read_json

    try:
        data = read_json(path, "learned marks")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def learned_count(state_dir: StateFolder, transcript: str | Path) -> int:
    """Messages of ``transcript`` already learned from (0 when never)."""
    record = _read(Path(folder_of(state_dir), PROGRESS_FILE)).get(_key(transcript))
    count = record.get("messages") if isinstance(record, dict) else None
    return count if isinstance(count, int) and count > 0 else 0


def record_learned(
    state_dir: StateFolder, transcript: str | Path, messages: int, cycle_id: str
) -> None:
    """Remember that the first ``messages`` messages of ``transcript`` are learned."""
    path = Path(folder_of(state_dir), PROGRESS_FILE)
    with exclusive_lock(path, timeout=10):
        data = _read(path)
        data[_key(transcript)] = {"messages": messages, "cycle_id": cycle_id}
        atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
