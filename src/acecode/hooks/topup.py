"""The per-prompt top-up: left-out entries relevant to this prompt, each once per context.

Runs in every ``UserPromptSubmit`` of a served session, so it reads one
prepared file (``injection-index.json``, see ``acecode.hooks.rendered``),
scores the prompt against its postings (``acecode.playbook.relevance``) and
appends what it injects to the session's marker, whose names it skips: an
entry reaches a context at most once until ``SessionStart`` starts a new one,
and an entry the hold-back draw kept from the session (also in the marker)
never does. What it injects is recorded in the exposure log
(:mod:`acecode.experiments.serve`).
Nothing relevant (below the relevance floor) means no output at all.
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
    project: str, prompt: str, marker: str, agent: str = DEFAULT_AGENT, session: object = None
) -> str:
    """The top-up for ``prompt`` (``""`` when nothing relevant is left), recorded in ``marker``
    and in the exposure log for ``session``; measured as ``agent``'s cap counts."""
    index = topup_index(project, agent)
    names = index.get("names")
    if not index.get("active") or not names:
        return ""
    from itertools import islice

    from acecode.playbook.budget import TopupItem, format_topup
    from acecode.playbook.relevance import relevant

    seen = delivered(marker)
    sections, lines = index["sections"], index["lines"]
    hits = relevant(index["relevance"], prompt)
    fresh = (slot for slot, _score in hits if names[slot] not in seen)
    picked = list(islice(fresh, MAX_CANDIDATES))
    candidates = [TopupItem(sections[slot], names[slot], lines[slot]) for slot in picked]
    if agent == DEFAULT_AGENT:
        text, chosen = format_topup(candidates, index["topup_budget"], index["section_order"])
    else:
        from acecode.agents import get_agent

        measure = get_agent(agent).context_cap.measure
        text, chosen = format_topup(
            candidates, index["topup_budget"], index["section_order"], measure
        )
    if chosen:
        _record(marker, chosen)
        from acecode.experiments.serve import record_topup
        from acecode.project.layer import Layer

        versions = index.get("versions") or [""] * len(names)
        slot_of = {names[slot]: slot for slot in picked}
        entries = [f"{name}@{versions[slot_of[name]]}" for name in chosen]
        record_topup(Layer.of_project(project), session, agent, entries)
    return text
