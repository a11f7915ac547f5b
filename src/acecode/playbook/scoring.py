"""Counters and pruning: evaluations, reflector tags, and ``update_playbook_data``.

Rating "helpful" adds 1 to ``helpful``, "harmful" adds 1 to ``harmful``,
anything else changes nothing; unknown names are ignored. An entry is pruned
when ``harmful >= 3 and harmful > helpful`` (so never with zero evaluations).
Like the operations, these functions return new structures and never mutate
the playbook they are given.
"""

from __future__ import annotations

from typing import Any

from acecode import events
from acecode.playbook import operations
from acecode.playbook.schema import SECTION_NAMES, isolated_copy

PRUNE_MIN_HARMFUL = 3
RATING_COUNTERS = {"helpful": "helpful", "harmful": "harmful"}


def should_prune(entry: dict[str, Any]) -> bool:
    """The pruning rule (INV-CUR-011): ``harmful >= 3 and harmful > helpful``."""
    return entry["harmful"] >= PRUNE_MIN_HARMFUL and entry["harmful"] > entry["helpful"]


def _apply_ratings(
    playbook: dict[str, Any], ratings: Any, rating_key: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Increment counters for ``[{name, <rating_key>}]``; return the new playbook and
    the list of ratings that were applied."""
    if not isinstance(ratings, list) or not ratings:
        return playbook, []
    result = isolated_copy(playbook)
    where: dict[str, tuple[str, int]] = {}
    for section in SECTION_NAMES:
        for position, entry in enumerate(result["sections"][section]):
            where[entry["name"]] = (section, position)
    applied: list[dict[str, Any]] = []
    for rating in ratings:
        if not isinstance(rating, dict):
            continue
        name, value = rating.get("name"), rating.get(rating_key)
        counter = RATING_COUNTERS.get(value.strip().lower()) if isinstance(value, str) else None
        if counter is None or not isinstance(name, str) or name not in where:
            continue
        section, position = where[name]
        entry = result["sections"][section][position]
        result["sections"][section][position] = {**entry, counter: entry[counter] + 1}
        applied.append({"name": name, "tag": counter})
    return result, applied


def apply_bullet_tags(playbook: dict[str, Any], tags: Any) -> dict[str, Any]:
    """Apply the reflector's ``[{name, tag, rationale}]`` to the counters."""
    return apply_bullet_tags_detailed(playbook, tags)[0]


def apply_bullet_tags_detailed(
    playbook: dict[str, Any], tags: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``apply_bullet_tags`` that also says which tags were applied."""
    return _apply_ratings(playbook, tags, "tag")


def prune_harmful_detailed(
    playbook: dict[str, Any],
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """``prune_harmful`` that also returns the pruned ``(section, entry)`` pairs."""
    pruned = [
        (section, entry)
        for section in SECTION_NAMES
        for entry in playbook.get("sections", {}).get(section, ())
        if should_prune(entry)
    ]
    if not pruned:
        return playbook, []
    result = isolated_copy(playbook)
    doomed = {id(entry) for _, entry in pruned}
    for section in SECTION_NAMES:
        result["sections"][section] = [
            e for e in result["sections"][section] if id(e) not in doomed
        ]
    lines = []
    for section, entry in pruned:
        line = (
            f"pruned [{entry['name']}] ({section}) helpful={entry['helpful']} "
            f"harmful={entry['harmful']} :: {entry['text'][:80]}"
        )
        events.warning(line)
        lines.append(line)
    events.diagnostic("prune_report", "\n".join(lines))
    return result, pruned


def prune_harmful(playbook: dict[str, Any]) -> dict[str, Any]:
    """Remove entries that proved harmful (REQ-CUR-015); the input is not mutated."""
    return prune_harmful_detailed(playbook)[0]


def _new_key_points_as_operations(new_key_points: Any) -> list[dict[str, Any]]:
    """Legacy ``new_key_points`` (strings or ``{text, section}``) as ADD operations."""
    if not isinstance(new_key_points, list):
        return []
    adds = []
    for point in new_key_points:
        if isinstance(point, str):
            adds.append({"type": "ADD", "text": point, "section": "OTHERS"})
        elif isinstance(point, dict):
            adds.append({"type": "ADD", "text": point.get("text"), "section": point.get("section")})
    return adds


def _add_new_key_points(playbook: dict[str, Any], new_key_points: Any) -> dict[str, Any]:
    """The backward-compatible path: every point is an ADD, without the 10 cap."""
    adds = _new_key_points_as_operations(new_key_points)
    if not adds:
        return playbook
    result = isolated_copy(playbook)
    index = operations._PlaybookIndex(result)
    for position, add in enumerate(adds):
        operations._apply_add(index, add, operations.OperationOutcome(position, "ADD", False))
    return result


def update_playbook_data(playbook: dict[str, Any], extraction_result: dict[str, Any]) -> dict:
    """Apply one extraction result: operations or new_key_points, evaluations, pruning.

    Precedence (REQ-CUR-008): the presence of the ``operations`` key selects the
    operations path, even when the list is empty; otherwise ``new_key_points``
    are added. Evaluations and pruning always follow. The input playbook is
    never mutated; a failure while applying operations rolls back to it.
    """
    if not isinstance(extraction_result, dict):
        extraction_result = {}
    if "operations" in extraction_result:
        current, _ = operations.apply_operations_with_outcomes(
            playbook, extraction_result["operations"]
        )
    else:
        current = _add_new_key_points(playbook, extraction_result.get("new_key_points"))
    current, _ = _apply_ratings(current, extraction_result.get("evaluations"), "rating")
    return prune_harmful(current)
