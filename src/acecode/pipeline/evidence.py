"""Which moment of a session a learned rule came from: a failed tool call or a request.

The reflector and curator say *why* they propose a rule, but not where in
the session that happened. Provenance wants a short excerpt a user can
recognise (the failing command and its error line, or what they asked for),
so the cycle matches each new rule against the session it read:

* every failed tool call (a ``tool_result`` with ``is_error``), described by
  its command (or its one-line call description) and its first error line;
* every request the user typed (``prompt`` messages).

A candidate's score is the sum, over the content words (BM25's tokeniser,
:func:`acecode.playbook.relevance.terms`) it shares with the rule's text and
reason, of each word's rarity among the candidates (``log(1 + N/df)``): a
word every failure shares (``error``) says little, the module name that
only one failure shows says a lot. The best failure wins over the best
request when it scores at least as high, since a failure is what most rules
are learned from; a tie between failures goes to the later one (the one
closest to the fix). No shared word at all gives ``kind: none``, never a
guess. Every excerpt is redacted (:func:`acecode.store.provenance.excerpt`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from acecode.playbook.relevance import terms
from acecode.store.provenance import excerpt

# A line that says what went wrong: an exception, an "error:"/"fatal:" line, npm's and
# pytest's markers. The first such line is the error line; else the first non-blank one.
_ERROR_LINE = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception)\b|error\b|fatal\b|npm ERR!|E\s{2,}\S|FAILED\b|"
    r".*\b(?:not found|no such file|permission denied|cannot|can't|unable to|command failed)\b)",
    re.IGNORECASE,
)
_TRACEBACK_HEAD = re.compile(r"^\s*Traceback \(most recent call last\)", re.IGNORECASE)


def error_line(output: str) -> str:
    """The line of a tool's output that says what failed (see ``_ERROR_LINE``)."""
    lines = [line for line in output.splitlines() if line.strip()]
    for line in lines:
        if _ERROR_LINE.match(line) and not _TRACEBACK_HEAD.match(line):
            return line.strip()
    return lines[0].strip() if lines else ""


@dataclass(frozen=True)
class _Candidate:
    evidence: dict[str, str]
    words: frozenset[str]


@dataclass
class EvidencePool:
    """The failed tool calls and requests of one session, ready to be matched."""

    failures: list[_Candidate] = field(default_factory=list)
    requests: list[_Candidate] = field(default_factory=list)

    @classmethod
    def collect(cls, messages: Iterable[dict[str, Any]]) -> EvidencePool:
        """One pass over acecode's flat messages (:mod:`acecode.transcript`)."""
        pool = cls()
        calls: dict[str, dict[str, Any]] = {}
        for message in messages:
            kind = message.get("kind")
            if kind == "tool_use":
                calls[str(message.get("tool_use_id") or "")] = message
            elif kind == "tool_result" and message.get("is_error"):
                call = calls.get(str(message.get("tool_use_id") or ""), {})
                pool.failures.append(_failure(call, message))
            elif kind == "prompt":
                request = str(message.get("content") or "")
                pool.requests.append(
                    _Candidate(
                        {"kind": "request", "request": excerpt(request)},
                        frozenset(terms(request)),
                    )
                )
        return pool

    def match(self, text: str, reason: str = "") -> dict[str, str]:
        """The evidence for a rule with ``text`` and ``reason`` (``{"kind": "none"}`` if none)."""
        wanted = set(terms(f"{text} {reason}"))
        everything = [*self.failures, *self.requests]
        df = Counter(word for candidate in everything for word in candidate.words & wanted)
        total = len(everything)

        def best(candidates: list[_Candidate]) -> tuple[float, _Candidate | None]:
            top: tuple[float, _Candidate | None] = (0.0, None)
            for candidate in candidates:  # later candidates win ties: >=
                score = sum(math.log(1 + total / df[w]) for w in candidate.words & wanted)
                if score > 0 and score >= top[0]:
                    top = (score, candidate)
            return top

        failure_score, failure = best(self.failures)
        request_score, request = best(self.requests)
        if failure is not None and failure_score >= request_score:
            return dict(failure.evidence)
        if request is not None:
            return dict(request.evidence)
        return {"kind": "none"}


def _failure(call: dict[str, Any], result: dict[str, Any]) -> _Candidate:
    tool = str(call.get("tool_name") or result.get("tool_name") or "")
    tool_input = call.get("tool_input") if isinstance(call.get("tool_input"), dict) else {}
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        command = str(call.get("content") or "")
    output = str(result.get("content") or "")
    evidence = {
        "kind": "failure",
        "tool": excerpt(tool, 80),
        "command": excerpt(command),
        "error": excerpt(error_line(output)),
    }
    return _Candidate(evidence, frozenset(terms(f"{command} {output}")))
