"""The words recall puts in front of the agent: at most two entries in 1,200 characters.

A reminder, not a new instruction: the entries are ones the agent was already
given (or could have been) at session start, learned from this project's
earlier sessions, each with its ID so the agent can cite it (citations are how
acecode credits a rule). The text is the entry's own, as injection shows it.
"""

from __future__ import annotations

MAX_ENTRIES = 2
MAX_CHARS = 1200

_HEADS = {
    "recall": (
        "acecode recall: this failure matches one an earlier session already met. "
        "A rule learned from it (cite its ID if you apply it):"
    ),
    "warn": (
        "acecode reminder: a rule learned in an earlier session is about calls like this "
        "{tool} call (cite its ID if you apply it):"
    ),
}


def reminder(kind: str, tool: str, entries: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """The reminder text for ``entries`` (name, text; best first) and the names it holds.

    ``kind`` is ``recall`` (after a failure) or ``warn`` (before a call). The first
    entry is always shown (clipped if it alone is too long); a second one only whole
    and within :data:`MAX_CHARS`.
    """
    head = _HEADS[kind].format(tool=tool)
    text, names = head, []
    for name, body in entries[:MAX_ENTRIES]:
        line = f"\n- [{name}] {' '.join(body.split())}"
        if len(text) + len(line) > MAX_CHARS:
            if names:
                break
            line = line[: MAX_CHARS - len(text) - 1].rstrip() + "…"
        text += line
        names.append(name)
    return text, names
