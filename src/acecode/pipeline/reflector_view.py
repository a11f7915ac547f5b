"""What the reflector is shown of the playbook: bounded like the curator's view.

The reflector tags the entries the session used (helpful, harmful) and says
what is missing. Sending it the whole playbook made every cycle cost in step
with the playbook (about 190k prompt tokens at 5,000 entries) although a
session bears on few entries. Its view is cut by the curator's rules
(:func:`acecode.playbook.curator_view.build_view`): every entry the session
cited, always; then the entries most relevant to what happened in the
session (its user requests, tool calls and failed results); then the best
of the rest, within ``reflector_budget_tokens``. A playbook that fits is
shown whole, so small playbooks see no change. An entry it was not shown can
still be credited later by the de-duplication ladder, which sees the whole
playbook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from typing import Any

# The session text the relevance of entries is measured against stops here: the
# requests and failures that matter come early and repeat; the index stays cheap.
QUERY_LIMIT_CHARS = 40_000
_QUERY_KINDS = {"prompt", "tool_use"}


def session_query(messages: Iterable[Mapping[str, Any]], limit: int = QUERY_LIMIT_CHARS) -> str:
    """The user's requests, the tool calls and the failed results of a session, in
    order, up to ``limit`` characters."""
    parts: list[str] = []
    size = 0
    for message in messages:
        kind = message.get("kind")
        if kind not in _QUERY_KINDS and not (kind == "tool_result" and message.get("is_error")):
            continue
        text = str(message.get("content") or "")
        parts.append(text[: limit - size])
        size += len(parts[-1])
        if size >= limit:
            break
    return "\n".join(parts)


def reflector_playbook(
    playbook: Mapping[str, Any],
    messages: Iterable[Mapping[str, Any]],
    *,
    budget_tokens: int,
    cited_ids: Iterable[str],
    pinned: Set[str] = frozenset(),
) -> dict[str, Any]:
    """The part of ``playbook`` the reflector is shown for this session."""
    from acecode.playbook.curator_view import build_view

    view = build_view(
        playbook,
        {"analysis": session_query(messages)},
        budget_tokens=budget_tokens,
        cited_ids=cited_ids,
        pinned=pinned,
    )
    return view.playbook
