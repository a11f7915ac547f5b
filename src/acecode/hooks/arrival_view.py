"""What the injection does with the entries that arrived with the repository.

The renderer (:mod:`acecode.hooks.rendered`) leaves out the arrived entries the
quarantine holds (:mod:`acecode.arrivals.split`), keeps their counts for the
session-start notice, and lists for the per-prompt top-up the arrived entries an
LLM review passed, so that a session that started before the background review
passed them gets them at its next prompt (:mod:`acecode.hooks.topup`).
"""

from __future__ import annotations

from typing import Any

# The arrived entries a review passed, kept apart from the cached session-start state.
RELEASED = "_released"


def without_held_arrivals(
    path: str,
    playbook: dict[str, Any],
    start: dict[str, Any],
    write: bool = True,
    deadline: float | None = None,
) -> dict:
    """``playbook`` without the entries that arrived from elsewhere and are held
    (:mod:`acecode.arrivals.split`); when any arrived, their counts and the held ones
    go into ``start["arrivals"]`` for the session-start notice, and the names of those
    a review passed into ``start[RELEASED]`` for the top-up (taken out before caching)."""
    from acecode.arrivals.split import split_arrivals

    split = split_arrivals(
        path,
        playbook,
        start["max_rule_chars"],
        start["languages"],
        write,
        need_review=start.get("need_review", True),
        deadline=deadline,
    )
    if split.arrived:
        start["arrivals"] = split.summary()
        start[RELEASED] = [
            a.name for a in split.arrived if a.review == "" and not a.held and not a.finding
        ]
        if split.unscreened:
            start["incomplete"] = True  # the next hook goes on screening, not reading this
    return split.playbook


def index_arrivals(
    index: dict[str, Any],
    start: dict[str, Any],
    playbook: dict[str, Any],
    injected: list[str],
    released: set[str],
) -> dict[str, Any]:
    """``index`` (the top-up's) with the arrived entries a review released, the counts for
    the line that says the review is done, and ``incomplete`` as ``start`` has it."""
    index["released"] = released_lines(playbook, injected, released)
    if start.get("arrivals"):
        index["arrivals"] = {k: v for k, v in start["arrivals"].items() if k != "held"}
        index["arrivals"]["held"] = [item[:1] for item in start["arrivals"]["held"]]
    if start.get("incomplete"):
        index["incomplete"] = True
    return index


def released_lines(
    playbook: dict[str, Any], injected: list[str], released: set[str]
) -> list[list[str]]:
    """``[section, name, line, version]`` of each arrived entry a review passed that the
    session start injects now, in its rank: a session that started before the review
    passed it did not get it, and its next prompt's top-up brings it
    (:mod:`acecode.hooks.topup`)."""
    if not released:
        return []
    from acecode.experiments.plan import entry_version
    from acecode.playbook.formatting import format_entry
    from acecode.playbook.schema import iter_entries

    where = {entry["name"]: (section, entry) for section, entry in iter_entries(playbook)}
    lines = []
    for name in injected:
        if name in released and name in where:
            section, entry = where[name]
            lines.append([section, name, format_entry(entry), entry_version(entry)])
    return lines
