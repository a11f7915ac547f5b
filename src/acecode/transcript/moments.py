"""The moments a rule can be learned from, numbered the same way for everyone who reads them.

The condensed transcript shows the reflector each failed call as ``[F1]``,
``[F2]`` ... and each message of the user as ``[C1]``, ``[C2]`` ...; the
reflector and the curator name the moments a rule comes from, and the cycle
links the rule to exactly those (:mod:`acecode.pipeline.evidence`). Both sides
number the session's messages with :class:`MomentCounter`, in one pass, so a
reference means the same moment to the condenser and to the cycle.

* A *failure* (``F``) is a tool result flagged as an error that is not the
  user declining the call or a cancelled sibling
  (:func:`acecode.impact.signature.is_not_a_failure`), or a shell result
  whose output reports a failure without the flag (a test run piped through
  ``tail`` exits 0): the condenser's ``FAILURE_SIGNAL``.
* A *correction or request* (``C``) is a message the user typed in the main
  thread, or the user's answer to a question the agent asked (the result of an
  ``answers`` tool, also when the user rejects the plan; an ``answers`` tool
  that itself failed is an ``F``). A subagent's prompt is written by the
  agent, so it is no ``C``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from acecode.impact.signature import is_not_a_failure
from acecode.transcript.items import FAILURE_SIGNAL

if TYPE_CHECKING:
    from acecode.agents.base import ToolClasses

FAILURE = "F"
CORRECTION = "C"
# Calls remembered until their result arrives (results follow their call closely).
_TRACKED_CALLS = 4096


class MomentCounter:
    """Numbers a session's failures and user messages as its messages go by."""

    def __init__(self, tools: ToolClasses) -> None:
        self.tools = tools
        self.failures = 0
        self.corrections = 0
        self._calls: OrderedDict[str, str] = OrderedDict()

    def label(self, message: dict[str, Any]) -> str | None:
        """``F3``, ``C1`` or None for the next message of the session."""
        kind = message.get("kind")
        if kind == "tool_use":
            self._calls[str(message.get("tool_use_id") or "")] = str(message.get("tool_name") or "")
            if len(self._calls) > _TRACKED_CALLS:
                self._calls.popitem(last=False)
            return None
        if kind == "prompt":
            return None if message.get("sidechain") else self._next(CORRECTION)
        if kind != "tool_result":
            return None
        name = str(
            message.get("tool_name") or self._calls.get(str(message.get("tool_use_id") or ""), "")
        )
        content = str(message.get("content") or "")
        declined = is_not_a_failure(content)
        if name in self.tools.answers and (declined or not message.get("is_error")):
            return self._next(CORRECTION)
        if message.get("is_error"):
            return None if declined else self._next(FAILURE)
        if name in self.tools.shell and FAILURE_SIGNAL.search(content.strip()):
            return self._next(FAILURE)
        return None

    def _next(self, kind: str) -> str:
        if kind == FAILURE:
            self.failures += 1
            return f"{FAILURE}{self.failures}"
        self.corrections += 1
        return f"{CORRECTION}{self.corrections}"
