"""Habits across projects: a failure learned in two projects becomes a user-layer entry.

The misses of issue 26's trial were general habits (Edit before Read, an
``old_string`` that is not unique, lint failing after the agent's own edit):
each project learned them on its own, or not at all. The user's failure record
(:mod:`acecode.habits.record`) says when an entry this cycle learned from a
failure comes from a failure another project of the user also learned an entry
from. That entry then moves to the user layer (:func:`acecode.edits.layer_move.move_entry`:
two journaled saves, undone together by ``acecode undo``), where every project's
sessions meet it: at session start, and at the failing call through the trigger
its provenance carries (the failure's signature, and its input patterns). The
moved entry's provenance in the user layer is a ``learned`` origin with the
failure as evidence and the patterns it had.

A failure is promoted once (the record remembers the user entry it became);
only project-layer entries move; the other project's own entry stays where it
is, for its own curator to merge or retire.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from acecode.habits.record import FailureRecord, family_key, mark_promoted
from acecode.impact.signature import evidence_signature
from acecode.project.layers import is_user_name

MIN_PROJECTS = 2


def candidates(
    plan_entries: Sequence[Mapping[str, Any]], record: FailureRecord, project: str
) -> list[tuple[str, str, Mapping[str, Any]]]:
    """``(entry, failure key, plan item)`` for each project entry this cycle learned from
    a failure that at least ``MIN_PROJECTS - 1`` other projects also learned from."""
    found = []
    for item in plan_entries:
        evidence = item.get("evidence") or {}
        name = item.get("name")
        if item.get("how") != "learned" or evidence.get("kind") != "failure":
            continue
        if not isinstance(name, str) or is_user_name(name):
            continue
        key = family_key(evidence_signature(evidence))
        history = record.history(project, key)
        if history.promoted or history.projects_learned < MIN_PROJECTS - 1:
            continue
        if key not in {k for _, k, _ in found}:
            found.append((name, key, item))
    return found


def promote(
    plan: Mapping[str, Any],
    record: FailureRecord,
    project: str,
    playbook: Path,
    user_playbook: Path,
    lock_timeout: float,
) -> list[dict[str, str]]:
    """Move each candidate entry to the user layer; what moved, one dict each
    (``name``, ``as``, ``failure``). A move that cannot be made is left out."""
    from acecode.edits.layer_move import MoveError, move_entry
    from acecode.project.layers import USER

    moved = []
    for name, key, item in candidates(plan.get("entries") or (), record, project):
        history = record.history(project, key)
        origin = {
            **{k: plan.get(k) for k in ("agent", "session", "transcript")},
            "entries": [
                {
                    "name": "",  # filled by move_entry with the entry's new name
                    "how": "learned",
                    "reason": f"the same failure was learned in {history.projects_learned + 1} "
                    f"of the user's projects: {item.get('reason') or ''}".strip(),
                    "evidence": item.get("evidence"),
                    **({"when": item["when"]} if item.get("when") else {}),
                }
            ],
        }
        try:
            result = move_entry(
                name,
                USER,
                project=playbook,
                user=user_playbook,
                lock_timeout=lock_timeout,
                provenance=origin,
            )
        except MoveError:
            continue
        mark_promoted(key, result.new_name)
        moved.append({"name": name, "as": result.new_name, "failure": key})
    return moved
