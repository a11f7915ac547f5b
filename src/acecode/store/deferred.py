"""The file of removals the budget deferred: ``<state folder>/deferred-removals.json``.

Written by a learning cycle under the playbook's lock, read by the next cycle
(the records are :class:`acecode.consolidation.deferred.DeferredRemoval`'s)
and by ``acecode doctor``. A file that
cannot be read is not fatal: the cycle goes on as if nothing were pending (the
deferred removals are lost, never applied wrongly) and says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.errors import AcecodeError
from acecode.project.bounds import read_json
from acecode.project.state_folder import folder_of
from acecode.store.atomic import atomic_write_text

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

DEFERRED_FILE = "deferred-removals.json"


class DeferredFileError(AcecodeError, ValueError):
    """The file exists but cannot be read as deferred removals (one line naming it)."""


def deferred_file(state_dir: StateFolder) -> Path:
    """``<state dir>/deferred-removals.json`` (the state folder given, or a layer's)."""
    return Path(folder_of(state_dir), DEFERRED_FILE)


def load_deferred(state_dir: StateFolder) -> list[Any]:
    """The records of the removals waiting in ``state_dir`` (as
    ``DeferredRemoval.as_dict`` wrote them); ``[]`` when there is no file.

    Raises :class:`DeferredFileError` when the file is unreadable or not JSON.
    """
    path = deferred_file(state_dir)
    try:
        data = read_json(path, "deferred removals")
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise DeferredFileError(f"{path}: cannot be read ({exc})") from None
    records = data.get("deferred") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise DeferredFileError(f'{path}: expected {{"deferred": [...]}}')
    return records


def save_deferred(state_dir: StateFolder, records: Sequence[dict[str, Any]]) -> None:
    """Replace the file with ``records`` (removing it when there are none)."""
    path = deferred_file(state_dir)
    if not records:
        path.unlink(missing_ok=True)
        return
    payload = {"deferred": list(records)}
    atomic_write_text(path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
