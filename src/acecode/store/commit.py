"""A playbook save and its records commit together, or the save is refused.

A saved change of the playbook has four records: the playbook file, the history
journal's cycle (:mod:`acecode.store.journal`), the provenance ledger
(:mod:`acecode.store.provenance_changes`) and the arrival record of the texts
this machine wrote (:mod:`acecode.arrivals.written`). They are separate files,
so a kill, a read-only state folder or a file-size limit between two of them
would leave entries in the playbook that ``why``, ``undo`` and the arrival
screen know nothing of. So every save of ``update_playbook`` runs, under the
playbook lock:

1. the *commit file* ``<state folder>/<playbook name>.commit`` is written: the
   cycle id (reserved in the journal), the writer's meta, the playbook before
   the save and the digest of the file after it. When it cannot be
   written the save is refused and nothing has changed;
2. the texts the save adds are recorded as this machine's (append-only and
   repeatable), so no hook ever announces them as arrived, not even while the
   save is under way;
3. the playbook file is replaced (atomically);
4. the journal records the cycle (one SQLite transaction; skipped when the
   cycle is there already);
5. the provenance ledger is updated (atomically; skipped when it records this
   cycle as its last);
6. the commit file is deleted.

When step 3, 4 or 5 fails, the save is undone (the old playbook written back,
the cycle taken out of the journal) and refused with one line. A process killed
between 1 and 6 leaves the commit file: whoever takes the playbook lock next
(:func:`settle`, called by every writer, by the SessionStart hook and by the
commands that read the history) finishes the save when the playbook is the new
one, or drops the commit file when the playbook is still the old one.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING, Any

from acecode.project.layer import Layer
from acecode.store.errors import PlaybookError, PlaybookWriteError

if TYPE_CHECKING:
    from pathlib import Path

COMMIT_SUFFIX = ".commit"
COMMIT_VERSION = 1
# A pause point for the fault tests: when ACECODE_PAUSE_AT names a step below, the
# process touches the file ACECODE_PAUSE_FILE names and waits there to be killed.
PAUSE_ENV, PAUSE_FILE_ENV = "ACECODE_PAUSE_AT", "ACECODE_PAUSE_FILE"
STEPS = ("commit-file", "marked", "replaced", "journaled", "provenance")


def commit_file(layer: Layer) -> Path:
    """``<state folder>/<playbook name>.commit``: a save under way, or one a kill cut."""
    from pathlib import Path

    return Path(pending_save(layer))


def pending_save(layer: Layer) -> str:
    """:func:`commit_file` as a string, without importing ``pathlib``."""
    return layer.state_file(os.path.basename(layer.playbook) + COMMIT_SUFFIX)


def _digest(data: bytes | None) -> str | None:
    import hashlib

    return None if data is None else hashlib.sha256(data).hexdigest()


def _file_bytes(path: str | Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def pause(step: str) -> None:
    """Stop at ``step`` for a fault test (see :data:`PAUSE_ENV`); nothing otherwise."""
    if os.environ.get(PAUSE_ENV) != step:
        return
    import time

    with open(os.environ[PAUSE_FILE_ENV], "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    while True:  # the test kills this process here
        time.sleep(1)


def _json_default(value: Any) -> Any:
    """What the journal stores for a value a writer put in meta (see its ``to_json``)."""
    from acecode.store.journal import to_json

    return json.loads(to_json(value))


def commit_save(
    layer: Layer, before: str, after: dict[str, Any], text: str, meta: dict[str, Any]
) -> None:
    """Save ``text`` (the serialised ``after``) in place of ``before`` (the serialised
    playbook as loaded), with its records (steps 1-6 of the module docstring). Raises
    ``PlaybookWriteError`` when the save is refused; the playbook and its records are then
    as they were."""
    from acecode.arrivals.written import record_written
    from acecode.store.atomic import atomic_write_text
    from acecode.store.journal import reserve_cycle_id

    target = commit_file(layer)
    try:
        meta["cycle_id"] = reserve_cycle_id(layer, meta.get("cycle_id"))
    except (PlaybookError, OSError) as exc:
        raise PlaybookWriteError(
            f"could not save {layer.playbook_file}: {_why_not(layer, exc)}; nothing was changed"
        ) from exc
    record = {
        "version": COMMIT_VERSION,
        "cycle_id": meta["cycle_id"],
        "before_existed": os.path.exists(layer.playbook_file),
        "after_digest": _digest(text.encode("utf-8")),
        "meta": _json_default(meta),
        "before": before,
    }
    original = json.loads(before)
    try:
        atomic_write_text(target, json.dumps(record, ensure_ascii=False))
    except PlaybookWriteError as exc:
        reason = getattr(exc.__cause__, "strerror", None) or exc
        raise PlaybookWriteError(
            f"could not save {layer.playbook_file}: {target} cannot be written ({reason}); "
            "nothing was changed"
        ) from exc
    pause("commit-file")
    record_written(layer, original, after, meta.get("kind"))
    pause("marked")
    try:
        atomic_write_text(layer.playbook_file, text)
    except PlaybookWriteError:
        _drop(target)
        raise
    pause("replaced")
    try:
        _record(layer, original, after, meta)
    except PlaybookError as exc:
        raise PlaybookWriteError(_roll_back(layer, record, exc)) from exc
    _drop(target)


def _why_not(layer: Layer, problem: Exception) -> str:
    """Why the history journal cannot be opened, in the words of the other writes: a state
    folder acecode may not write (SQLite says "unable to open database file"), a full disk
    ("database or disk is full"), else SQLite's own words."""
    import errno

    folder = layer.state_folder
    if os.path.isdir(folder) and not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder}: {os.strerror(errno.EACCES)} (the history journal is kept there)"
    if getattr(problem.__cause__, "sqlite_errorname", "") == "SQLITE_FULL":
        return f"{folder}: {os.strerror(errno.ENOSPC)} (the history journal is kept there)"
    return f"the history journal cannot be written ({problem})"


def _record(layer: Layer, before: dict[str, Any], after: dict[str, Any], meta: dict) -> None:
    """Steps 4 and 5: the journal's cycle and the provenance, each skipped when done."""
    from acecode.store.journal import has_cycle, record_cycle
    from acecode.store.provenance_changes import apply_provenance

    try:
        if not has_cycle(layer, meta["cycle_id"]):
            record_cycle(layer, before, after, meta)
    except (PlaybookError, OSError, TypeError, ValueError) as exc:
        raise PlaybookWriteError(f"history journal not updated ({exc})") from exc
    pause("journaled")
    apply_provenance(layer, before, after, meta)
    pause("provenance")


def _roll_back(layer: Layer, record: dict[str, Any], problem: Exception) -> str:
    """Undo a save whose records could not be written; the line that says so.

    Raises ``PlaybookWriteError`` when the old playbook cannot be written back either;
    the commit file then stays for the next :func:`settle`."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.journal import forget_cycle

    playbook = layer.playbook_file
    try:
        if record.get("before_existed", True):
            atomic_write_text(playbook, record["before"])
        else:
            _drop(playbook)
        forget_cycle(layer, record["cycle_id"])
    except (PlaybookError, OSError) as exc:
        raise PlaybookWriteError(
            f"could not record the save of {playbook} ({problem}) nor undo it ({exc}); "
            "acecode finishes it at its next start"
        ) from exc
    _drop(commit_file(layer))
    return f"could not record the save of {playbook} ({problem}); the save was undone"


def _drop(target: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        target.unlink()


def settle(layer: Layer) -> str | None:
    """Finish or drop the save a killed process left (the caller holds the playbook lock).

    Returns one line saying what was done, or None when no save was left. Raises
    ``PlaybookWriteError`` when it can do neither; the commit file then stays."""
    from acecode.store.reading import parse_playbook

    target = commit_file(layer)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PlaybookWriteError(f"cannot read {target}: {exc.strerror or exc}") from exc
    try:
        record = json.loads(raw.decode("utf-8"))
        before, meta = json.loads(record["before"]), record["meta"]
        after_digest, cycle_id = record["after_digest"], record["cycle_id"]
    except (ValueError, KeyError, TypeError):
        _drop(target)  # torn while written: the save never began
        return f"dropped {target.name}: an unfinished save that never began"
    current = _file_bytes(layer.playbook_file)
    if _digest(current) != after_digest:
        _drop(target)
        return f"dropped an interrupted save of {layer.playbook_file}: it never replaced the file"
    from acecode.arrivals.written import record_written

    after = parse_playbook(current or b"", layer.playbook_file)
    meta["cycle_id"] = cycle_id
    record_written(layer, before, after, meta.get("kind"))
    try:
        _record(layer, before, after, meta)
    except PlaybookError as exc:
        return _roll_back(layer, record, exc)
    _drop(target)
    return f"finished an interrupted save of {layer.playbook_file} (cycle {cycle_id})"


def settle_pending(layer: Layer, timeout: float = 2.0) -> str | None:
    """:func:`settle` for a reader: only when a commit file is there (one ``stat``), under
    the playbook lock taken for at most ``timeout`` seconds (a writer holding it settles
    the save itself). Returns the line saying what was done, or None; raises
    ``PlaybookWriteError`` when the save can be neither finished nor undone."""
    if not os.path.exists(pending_save(layer)):
        return None
    from acecode.store.errors import PlaybookLockTimeout
    from acecode.store.lock import playbook_lock

    try:
        with playbook_lock(layer, timeout):
            return settle(layer)
    except PlaybookLockTimeout:
        return None
