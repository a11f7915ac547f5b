"""The per-prompt top-up: left-out entries relevant to this prompt, each once per context.

Runs in every ``UserPromptSubmit`` of a served session, so it reads one
prepared file (``injection-index.json``, see ``acecode.hooks.rendered``),
scores the prompt against its postings (``acecode.playbook.relevance``) and
appends what it injects to the session's marker, whose names it skips: an
entry reaches a context at most once until ``SessionStart`` starts a new one,
and an entry the hold-back draw kept from the session (also in the marker)
never does. What it injects is recorded in the exposure log
(:mod:`acecode.experiments.serve`).
Entries that arrived with the repository and that the background review passed
after the session started come first, whatever the prompt (they would have been
in the session start). Nothing relevant (below the relevance floor) means no
output at all.
"""

from __future__ import annotations

import contextlib

from acecode.hooks.rendered import DEFAULT_AGENT, topup_index

# The most relevant candidates considered for one top-up: a 2,000-character
# budget holds a dozen entries, and measuring every match of a common word in
# a big playbook would cost more than the rest of the hook.
MAX_CANDIDATES = 50


def delivered(marker: str) -> set[str]:
    """The names already injected into this session's context (the marker's later lines)."""
    try:
        with open(marker, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return set()
    return set(lines[1:])


def _record(marker: str, names: list[str]) -> None:
    with contextlib.suppress(OSError), open(marker, "a", encoding="utf-8") as handle:
        handle.write("".join(f"{name}\n" for name in names))


def topup_text(
    project: str,
    prompt: str,
    marker: str,
    agent: str = DEFAULT_AGENT,
    session: object = None,
    deadline: float | None = None,
) -> tuple[str, dict | None]:
    """The top-up for ``prompt`` (``""`` when nothing relevant is left), recorded in ``marker``
    and in the exposure log for ``session``; measured as ``agent``'s cap counts; and the
    counts of the entries that arrived with the repository (the index's ``arrivals``,
    None where none did), for the line that says their review is done.

    First come the entries that arrived with the repository and that the background
    review passed since the session started (``released`` in the index): the session
    start left them out, and they are injected at once, whatever the prompt, within
    what the session-start budget left for them. ``deadline`` bounds the first screen
    of arrived entries when the index must be rendered."""
    index = topup_index(project, agent, deadline)
    names = index.get("names") or []
    arrivals = index.get("arrivals")
    if not index.get("active"):
        return "", None
    seen = delivered(marker)
    released = [item for item in index.get("released") or () if item[1] not in seen]
    released_versions = {item[1]: item[3] for item in released}
    if not names and not released:
        return "", arrivals
    from itertools import islice

    from acecode.playbook.budget import TopupItem, format_topup
    from acecode.playbook.relevance import relevant

    sections, lines = index.get("sections") or [], index.get("lines") or []
    picked: list[int] = []
    if names:
        hits = relevant(index["relevance"], prompt)
        fresh = (slot for slot, _score in hits if names[slot] not in seen)
        picked = list(islice(fresh, MAX_CANDIDATES))
    first = [TopupItem(section, name, line) for section, name, line, _version in released]
    candidates = first + [TopupItem(sections[slot], names[slot], lines[slot]) for slot in picked]
    budget = index["topup_budget"] + _released_room(index, first)
    if agent == DEFAULT_AGENT:
        text, chosen = format_topup(candidates, budget, index["section_order"])
    else:
        from acecode.agents import get_agent

        measure = get_agent(agent).context_cap.measure
        text, chosen = format_topup(candidates, budget, index["section_order"], measure)
    if chosen:
        _record(marker, chosen)
        from acecode.experiments.serve import record_topup
        from acecode.project.layer import Layer

        versions = index.get("versions") or [""] * len(names)
        slot_of = {names[slot]: slot for slot in picked}
        entries = [
            f"{name}@{versions[slot_of[name]] if name in slot_of else released_versions[name]}"
            for name in chosen
        ]
        record_topup(Layer.of_project(project), session, agent, entries)
    return text, arrivals


def _released_room(index: dict, released: list) -> int:
    """The characters the released arrivals may add to the top-up: what they take, up to
    what the session-start budget leaves beside the usual top-up (the hook's output stays
    within the cap the session start keeps to)."""
    if not released:
        return 0
    wanted = sum(len(item.line) + len(item.section) + 8 for item in released)
    return max(0, min(wanted, int(index.get("budget") or 0) - int(index["topup_budget"])))
