"""Does a session hold anything to learn? A cheap, deterministic read before any LLM call.

A playbook learns from what went wrong or what the user asked for: a failed
tool call, a test run that failed, the user correcting or interrupting the
agent, a preference they stated, the same command tried again and again. A
session with none of these (a question answered, a feature built without a
hitch) rarely teaches a rule, yet a full cycle on it costs as much as on any
other. The triage counts these signals in the same pass that measures the
session (:class:`acecode.pipeline.session_size.SessionSize`); a session
without any is recorded as "nothing to learn", with the counts as the
reason, at $0.

The patterns are English: a follow-up request written mostly in another
script cannot be screened and counts as a signal, so such sessions are
always learned. Requests inside subagent work come from the parent agent,
not the user, and are not screened for corrections or preferences.

Cycles started by a hook, ``acecode bootstrap`` or the catch-up triage (the
``triage`` setting, on by default); ``acecode learn`` by hand only with
``--triage``. Measured on the shared transcripts by ``bench/cost_bench.py``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from acecode.transcript.condense import FAILURE_SIGNAL

if TYPE_CHECKING:
    from acecode.agents.base import ToolClasses
    from acecode.pipeline.session_size import SessionSize

# A request that pushes back on what the agent did.
CORRECTION = re.compile(
    r"\b(?:no|nope|wrong|incorrect|not (?:what|right|correct|working|needed)"
    r"|(?:doesn'?t|didn'?t|isn'?t|won'?t|does not|did not|is not|will not)"
    r" (?:work|run|start|pass)\w*"
    r"|don'?t|do not|didn'?t|stop|instead|actually|revert|undo|roll ?back|wait"
    r"|why (?:did|didn'?t|won'?t|is|are|does|do)|you (?:should|forgot|missed|broke)"
    r"|should(?:n'?t)? have|I (?:said|told|asked|meant)|lost|broke|broken|still)\b",
    re.IGNORECASE,
)
# A request that states how the user wants things done.
PREFERENCE = re.compile(
    r"\b(?:always|never|prefer|make sure|from now on|going forward|in (?:the )?future"
    r"|remember (?:to|that)|by default|keep it|convention"
    r"|I(?:'d| would)?\s+(?:really\s+|actually\s+)?(?:rather|like|love|prefer|want|hate)"
    r"|please (?:use|keep|avoid)|use \S+ instead)\b",
    re.IGNORECASE,
)
# The same shell command this many times is a struggle worth a look.
REPEATED_ATTEMPTS = 3
# A request whose letters are mostly outside ASCII cannot be screened by the patterns.
UNSCREENED_SHARE = 0.5

SIGNALS = (
    "failed_calls",
    "failure_output",
    "interruptions",
    "corrections",
    "preferences",
    "repeated_attempts",
    "unscreened_requests",
)
_DESCRIBED = {
    "failed_calls": "failed tool call",
    "failure_output": "failing command output",
    "interruptions": "interruption",
    "corrections": "correction",
    "preferences": "preference",
    "repeated_attempts": "repeated command",
    "unscreened_requests": "request in another language",
}


def _mostly_unscreened(text: str) -> bool:
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return False
    return sum(not char.isascii() for char in letters) / len(letters) >= UNSCREENED_SHARE


class Signals:
    """The learning signals of the messages passed through :meth:`observe`."""

    def __init__(self, tools: ToolClasses) -> None:
        self.tools = tools
        self.counts: Counter[str] = Counter()
        self._commands: Counter[str] = Counter()
        self._calls: dict[str, str] = {}
        self._acted = False

    def observe(self, messages: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Yield ``messages`` unchanged, counting signals on the way (one streamed pass)."""
        for message in messages:
            self._count(message)
            yield message

    def _count(self, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        content = str(message.get("content") or "")
        if kind == "tool_use":
            self._acted = True
            name = str(message.get("tool_name") or "")
            self._calls[str(message.get("tool_use_id") or "")] = name
            if name in self.tools.shell:
                self._commands[content] += 1
                if self._commands[content] == REPEATED_ATTEMPTS:
                    self.counts["repeated_attempts"] += 1
        elif kind == "tool_result":
            name = str(message.get("tool_name") or "") or self._calls.get(
                str(message.get("tool_use_id") or ""), ""
            )
            if message.get("is_error"):
                self.counts["failed_calls"] += 1
            elif name in self.tools.shell and FAILURE_SIGNAL.search(content):
                self.counts["failure_output"] += 1
        elif kind == "interrupt":
            self.counts["interruptions"] += 1
        elif kind == "prompt" and not message.get("sidechain"):
            if self._acted and CORRECTION.search(content):
                self.counts["corrections"] += 1
            if PREFERENCE.search(content):
                self.counts["preferences"] += 1
            if self._acted and _mostly_unscreened(content):
                self.counts["unscreened_requests"] += 1
        elif kind == "text":
            self._acted = True

    @property
    def found(self) -> bool:
        """True when the session holds at least one signal."""
        return any(self.counts.values())

    def as_dict(self) -> dict[str, int]:
        return {name: self.counts[name] for name in SIGNALS}

    def nothing_to_learn(self, size: SessionSize) -> str:
        """The reason a session without signal is not reflected on, for the cycle's status."""
        return (
            f"nothing to learn (triage): {size.requests} user request(s), "
            f"{size.tool_calls} tool call(s) and no failed call, failing output, correction, "
            "preference, interruption or repeated command; no LLM call, $0 "
            "(`acecode learn --relearn FILE` learns it anyway; triage = false turns this off)"
        )

    def describe(self) -> str:
        """``2 failed tool calls, 1 correction``: what was found."""
        return ", ".join(
            f"{count} {_DESCRIBED[name]}{'' if count == 1 else 's'}"
            for name, count in self.as_dict().items()
            if count
        )
