"""The curator's input patterns: kept only when they match the call a rule was learned from.

An ADD or UPDATE may carry ``"when": "TOOL:PATTERN"`` (or ``TOOL.FIELD:PATTERN``,
or the object ``{"tool", "field", "pattern"}``; a list of them is read too): the
tool calls the rule is about, so recall can warn before such a call runs. A
pattern the model wrote is checked before anything keeps it:

* it must be a pattern :class:`acecode.recall.pattern.InputPattern` reads, and
  pass :func:`acecode.recall.quality.quality_problem` (it compiles, is not too
  long, does not match an empty input or a tenth of ordinary calls, and cannot
  backtrack for long), since it will run before every tool call;
* it must match the very call the rule was learned from: the failed call its
  evidence names (``F3``). A rule learned from a user's message has no call
  to check against, so its pattern is refused.

What is kept goes into the origin's ``when`` (:mod:`acecode.store.provenance`);
what is refused, and why, into :func:`refused_patterns`' list for the report.
"""

from __future__ import annotations

from typing import Any

from acecode.pipeline.evidence import EvidencePool

MAX_PATTERNS = 2


def proposed_patterns(value: Any) -> list[Any]:
    """The pattern specs of an operation's ``when``: a string, an object or a list."""
    if isinstance(value, (str, dict)):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, (str, dict))][: MAX_PATTERNS * 2]
    return []


def checked_patterns(
    value: Any, evidence: dict[str, str], pool: EvidencePool
) -> tuple[list[dict[str, str]], list[str]]:
    """(kept patterns as ``to_dict``, one line per refused one) for an operation's ``when``."""
    from acecode.recall.pattern import InputPattern, PatternError
    from acecode.recall.quality import quality_problem

    specs = proposed_patterns(value)
    if not specs:
        return [], []
    moment = (
        pool.moments.get(evidence.get("ref", "")) if evidence.get("kind") == "failure" else None
    )
    kept: list[dict[str, str]] = []
    refused: list[str] = []
    for spec in specs:
        shown = spec if isinstance(spec, str) else str(spec)
        try:
            pattern = (
                InputPattern.parse(spec) if isinstance(spec, str) else InputPattern.from_dict(spec)
            )
        except PatternError as error:
            refused.append(f"{shown[:120]}: {error}")
            continue
        problem = quality_problem(pattern)
        if problem:
            refused.append(f"{pattern}: {problem}")
        elif moment is None:
            refused.append(f"{pattern}: the rule was not learned from a failed call to check it on")
        elif not pattern.matches(moment.tool, moment.tool_input, moment.cwd):
            refused.append(f"{pattern}: does not match the call it was learned from ({moment.ref})")
        elif len(kept) < MAX_PATTERNS and pattern.to_dict() not in kept:
            kept.append(pattern.to_dict())
    return kept, refused
