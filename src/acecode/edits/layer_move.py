"""Move an entry between the project layer and the user layer, and undo the move.

A move is two saves, one per layer, each under its own lock and journaled in
its own history under the same cycle id (kind ``move``): first the entry is
added to the destination under a new name of that layer (``pat-003`` becomes
``u-pat-001`` and back), then removed from the source. A crash between the
two leaves the entry in both layers, never in neither. Undoing a move undoes
both journal cycles, source first for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.playbook.schema import SECTION_SLUGS, format_keypoint_name, iter_entries
from acecode.project.layers import PROJECT, USER, USER_PREFIX, layer_of
from acecode.store.errors import PlaybookError
from acecode.store.journal import MOVE_KIND, HistoryError, get_cycle, new_cycle_id
from acecode.store.undo import undo_cycle


class MoveError(PlaybookError):
    """The move cannot be made; nothing was changed."""


@dataclass(frozen=True)
class MoveResult:
    """What a move did: the entry's old and new name, its section, the journal cycle."""

    name: str
    new_name: str
    section: str
    to: str
    cycle_id: str


def _find(playbook: dict[str, Any], name: str) -> tuple[str, dict[str, Any]] | None:
    for section, entry in iter_entries(playbook):
        if entry["name"] == name:
            return section, entry
    return None


def _next_name(playbook: dict[str, Any], section: str, prefix: str) -> str:
    from acecode.playbook.schema import max_slug_numbers

    entries = [entry for _, entry in iter_entries(playbook)]
    slug = SECTION_SLUGS[section]
    return format_keypoint_name(prefix + slug, max_slug_numbers(entries, prefix)[slug] + 1)


def _refuse_held_arrival(project: Path, name: str) -> None:
    """A held arrival must not reach every project's sessions through the user layer,
    which is never screened (``acecode.arrivals``)."""
    from acecode.arrivals.review import held_arrivals

    if any(item.name == name for item in held_arrivals(project)):
        raise MoveError(
            f"{name} arrived with the repository and is held for review; approve it first "
            "(`acecode review`), then move it"
        )


def move_entry(
    name: str,
    to: str,
    *,
    project: Path,
    user: Path,
    lock_timeout: float = 10.0,
    provenance: dict[str, Any] | None = None,
) -> MoveResult:
    """Move entry ``name`` into layer ``to`` (``"user"`` or ``"project"``).

    ``project`` and ``user`` are the two layers' files. Raises ``MoveError``
    (one line) when the entry is not in the other layer, the layers are one
    file, the destination already holds the same text, or the entry arrived
    with the repository and is held for review. ``provenance`` is a plan for the
    destination's provenance (:mod:`acecode.store.provenance_changes`) whose one
    entry describes the moved entry (its name is filled in); without it the
    entry arrives as ``imported``.
    """
    from acecode.store import load_playbook, update_playbook

    if to not in (PROJECT, USER):
        raise MoveError(f"unknown layer {to!r}: use --to user or --to project")
    if project.resolve() == user.resolve():
        raise MoveError(f"{user} is both layers here; there is nowhere to move {name} to")
    if layer_of(name) == to:
        raise MoveError(f"{name} is already in the {to} layer")
    source, destination = (project, user) if to == USER else (user, project)
    found = _find(load_playbook(source), name)
    if found is None:
        raise MoveError(f"no entry named {name!r} in {source} (see `acecode show`)")
    section, entry = found
    if to == USER:
        _refuse_held_arrival(project, name)
    cycle_id = new_cycle_id()
    meta = {"cycle_id": cycle_id, "kind": MOVE_KIND, "source": f"acecode move {name} --to {to}"}
    with update_playbook(destination, lock_timeout=lock_timeout) as txn:
        for _, other in iter_entries(txn.playbook):
            if other["text"] == entry["text"]:
                raise MoveError(f"the {to} layer already has this text as {other['name']}")
        new_name = _next_name(txn.playbook, section, USER_PREFIX if to == USER else "")
        playbook = dict(txn.playbook)
        playbook["sections"] = {key: list(value) for key, value in txn.playbook["sections"].items()}
        playbook["sections"][section].append({**entry, "name": new_name})
        txn.playbook = playbook
        moved = {"name": name, "as": new_name, "from": layer_of(name), "to": to}
        txn.meta.update(meta, moved=moved)
        if provenance is not None:
            entries = [{**item, "name": new_name} for item in provenance.get("entries") or ()]
            txn.meta["provenance"] = {**provenance, "entries": entries[:1]}
    with update_playbook(source, lock_timeout=lock_timeout) as txn:
        playbook = dict(txn.playbook)
        playbook["sections"] = {key: list(value) for key, value in txn.playbook["sections"].items()}
        playbook["sections"][section] = [
            other for other in playbook["sections"][section] if other["name"] != name
        ]
        txn.playbook = playbook
        txn.meta.update(
            meta,
            moved=moved,
            removals={name: {"cause": MOVE_KIND, "reason": f"moved to {to} as {new_name}"}},
        )
    return MoveResult(name, new_name, section, to, cycle_id)


def undo_move(
    cycle_id: str, *, project: Path, user: Path, force: bool = False, lock_timeout: float = 10.0
) -> list[str]:
    """Undo both halves of move ``cycle_id``: the entry goes back to its old layer and
    name. Returns the names reverted; raises ``HistoryError`` as ``undo_cycle`` does."""
    moved = get_cycle(project, cycle_id).meta.get("moved") or {}
    if not moved:
        raise HistoryError(f"cycle {cycle_id} is not a move")
    files = {PROJECT: project, USER: user}
    reverted: list[str] = []
    for layer in (moved["from"], moved["to"]):
        result = undo_cycle(files[layer], cycle_id, force=force, lock_timeout=lock_timeout)
        reverted += result.reverted
    return reverted


def is_move(playbook: Path, cycle_id: str | None) -> str | None:
    """The id of ``cycle_id`` (default: the last undoable) when it is a move, else None."""
    try:
        cycle = get_cycle(playbook, cycle_id)
    except HistoryError:
        return None
    return cycle.cycle_id if cycle.kind == MOVE_KIND and cycle.undone_by is None else None
