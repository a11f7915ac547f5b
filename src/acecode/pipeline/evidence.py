"""Which moment of a session a learned rule came from: a failed tool call or a user message.

The condensed transcript numbers the session's failures (``F1``, ``F2``...) and
the user's messages (``C1``...) (:mod:`acecode.transcript.moments`); the
reflector names the moments each finding comes from and the curator the ones
each operation comes from. :class:`EvidencePool` reads the same session with
the same numbering, so :meth:`EvidencePool.resolve` turns those references
into the evidence provenance keeps: for a failure the tool, the command, the
error line and the failure signature computed from the whole output (the one
``acecode impact`` and recall compute when the failure happens again,
:mod:`acecode.impact.signature`); for a message, its text. A reference to a
moment the session does not have is ignored.

When the curator named no moment (an older template, a model that left it
out), :meth:`EvidencePool.match` falls back to word overlap, scored against the
rule's own text only: each content word (BM25's tokeniser,
:func:`acecode.playbook.relevance.terms`) it shares with a candidate counts its
rarity among the candidates (``log(1 + N/df)``). A failure is described by its
command and its error line, never its whole output, so the failure with the
longest output does not win every rule. The best failure wins over the best
message when it scores at least as high; a tie between failures goes to the
later one (the one closest to the fix). No shared word at all gives
``kind: none``, never a guess. Every excerpt is redacted
(:func:`acecode.store.provenance.excerpt`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.impact.signature import SHELL_TOOLS, error_line, shell_command, signature_of
from acecode.playbook.relevance import terms
from acecode.store.provenance import excerpt
from acecode.transcript.moments import FAILURE, MomentCounter

if TYPE_CHECKING:
    from acecode.agents.base import Agent

# ``F3``, ``C12``: a moment of the session, as the roles write it.
REF = re.compile(r"\b([FC])(\d{1,5})\b")


@dataclass(frozen=True)
class Moment:
    """One numbered moment: its evidence, the words the fallback scores and, for a
    failed call, the call itself (tool, input, working directory), which a learned
    input pattern must match (:mod:`acecode.pipeline.triggers_step`)."""

    ref: str
    evidence: dict[str, str]
    words: frozenset[str]
    tool: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    cwd: str = ""


@dataclass
class EvidencePool:
    """The numbered failures and user messages of one session."""

    moments: dict[str, Moment] = field(default_factory=dict)

    @classmethod
    def collect(
        cls, messages: Iterable[dict[str, Any]], agent: Agent | None = None
    ) -> EvidencePool:
        """One pass over acecode's flat messages, numbered as the condenser numbers them."""
        from acecode.agents import get_agent

        counter = MomentCounter((agent or get_agent()).tools)
        pool = cls()
        calls: dict[str, dict[str, Any]] = {}
        for message in messages:
            ref = counter.label(message)
            if message.get("kind") == "tool_use":
                calls[str(message.get("tool_use_id") or "")] = message
            if ref is None:
                continue
            if ref.startswith(FAILURE):
                call = calls.get(str(message.get("tool_use_id") or ""), {})
                pool.moments[ref] = _failure(ref, call, message)
            else:
                text = str(message.get("content") or "")
                pool.moments[ref] = Moment(
                    ref,
                    {"kind": "request", "request": excerpt(text), "ref": ref},
                    frozenset(terms(text)),
                )
        return pool

    @property
    def failures(self) -> list[Moment]:
        """The failed calls, in session order."""
        return [m for m in self.moments.values() if m.ref.startswith(FAILURE)]

    def known(self, refs: Iterable[str]) -> list[str]:
        """The references among ``refs`` that name a moment of this session, in order."""
        return [ref for ref in dict.fromkeys(refs) if ref in self.moments]

    def resolve(self, refs: Iterable[str]) -> dict[str, str] | None:
        """The evidence for a rule that names ``refs``: its first failure, else its first
        message; None when none of them names a moment of this session."""
        found = self.known(refs)
        failures = [ref for ref in found if ref.startswith(FAILURE)]
        chosen = (failures or found)[:1]
        return {**self.moments[chosen[0]].evidence, "link": "named"} if chosen else None

    def match(self, text: str) -> dict[str, str]:
        """The evidence for a rule whose text is ``text``, by word overlap (the fallback)."""
        wanted = set(terms(text))
        everything = list(self.moments.values())
        df = Counter(word for moment in everything for word in moment.words & wanted)
        total = len(everything)

        def best(kind: str) -> tuple[float, Moment | None]:
            top: tuple[float, Moment | None] = (0.0, None)
            for moment in everything:  # later moments win ties: >=
                if not moment.ref.startswith(kind):
                    continue
                score = sum(math.log(1 + total / df[w]) for w in moment.words & wanted)
                if score > 0 and score >= top[0]:
                    top = (score, moment)
            return top

        failure_score, failure = best(FAILURE)
        request_score, request = best("C")
        chosen = failure if failure is not None and failure_score >= request_score else request
        if chosen is None:
            return {"kind": "none"}
        return {**chosen.evidence, "link": "overlap"}


def refs_in(value: Any) -> list[str]:
    """The moment references in an operation's ``refs`` (a list or a string) or a text."""
    if isinstance(value, str):
        items: Sequence[Any] = [value]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return []
    found = []
    for item in items:
        if isinstance(item, str):
            found += [f"{kind}{int(number)}" for kind, number in REF.findall(item.upper())]
    return list(dict.fromkeys(found))


def _failure(ref: str, call: dict[str, Any], result: dict[str, Any]) -> Moment:
    tool = str(call.get("tool_name") or result.get("tool_name") or "")
    tool_input = call.get("tool_input") if isinstance(call.get("tool_input"), dict) else {}
    command = shell_command(tool_input) if tool in SHELL_TOOLS else ""
    shown = command or str(call.get("content") or "")
    output = str(result.get("content") or "")
    line = error_line(output)
    signature = signature_of(tool, command, output)
    evidence = {
        "kind": "failure",
        "tool": excerpt(tool, 80),
        "command": excerpt(shown),
        "error": excerpt(line),
        "head": excerpt(signature.head, 80),
        "error_key": excerpt(signature.error),
        "ref": ref,
    }
    if command:  # Codex names it ``cmd`` or gives an argv list; patterns read ``command``
        tool_input = {**tool_input, "command": command}
    cwd = call.get("cwd") or tool_input.get("workdir") or ""
    words = frozenset(terms(f"{tool} {shown} {line}"))
    return Moment(ref, evidence, words, tool, dict(tool_input), cwd if isinstance(cwd, str) else "")
