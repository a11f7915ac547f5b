"""What a rule text says to the project's instructions: repeats one, contradicts one, or neither.

The playbook must not repeat what Claude Code already loads, nor go against
it. The same judge that keeps the playbook's own rules apart
(:mod:`acecode.roles.judge`, :mod:`acecode.dedup.verdicts`) decides, on the
pairs the embeddings propose (:func:`acecode.dedup.candidates.propose_against`):

- a text *repeats* an instruction when the two are near-verbatim, or judged
  ``same``, or judged ``more_specific`` with the instruction the more specific
  side (the instruction already says all of it and more);
- a text *contradicts* an instruction when judged ``conflicting``;
- anything else (``different``, the text more specific than the instruction, no
  verdict) is neither: the text is a rule of its own, and no distinct rule is
  lost.

A text that contradicts one instruction and repeats another counts as a
contradiction: a person must look at it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from acecode.dedup.verbatim import near_verbatim
from acecode.dedup.verdicts import Verdicts
from acecode.instructions.units import Instruction

REPEATS: Literal["repeats"] = "repeats"
CONTRADICTS: Literal["contradicts"] = "contradicts"


@dataclass(frozen=True)
class Relation:
    """``text`` repeats or contradicts ``instruction``, and why."""

    text: str
    instruction: Instruction
    kind: Literal["repeats", "contradicts"]
    reason: str = ""

    def describe(self) -> str:
        """One line for the review queue, doctor and reports."""
        what = "repeats" if self.kind == REPEATS else "contradicts"
        why = f" ({self.reason})" if self.reason else ""
        return f"{what} {self.instruction.where}: “{self.instruction.text}”{why}"


def relate(text: str, units: Sequence[Instruction], verdicts: Verdicts) -> Relation | None:
    """How ``text`` stands to the instructions ``units`` (module doc), or None."""
    repeat: Relation | None = None
    for unit in units:
        if any(near_verbatim(text, side) for side in (unit.text, unit.bare)):
            repeat = repeat or Relation(text, unit, REPEATS, "the same words")
            continue
        verdict = verdicts.get(unit.text, text)
        if verdict is None:
            continue
        if verdict.verdict == "conflicting":
            return Relation(text, unit, CONTRADICTS, verdict.reason)
        if verdict.verdict == "same" or (
            verdict.verdict == "more_specific" and verdict.specific == unit.text
        ):
            repeat = repeat or Relation(text, unit, REPEATS, verdict.reason)
    return repeat


def relations(
    texts: Iterable[str], units: Sequence[Instruction], verdicts: Verdicts
) -> dict[str, Relation]:
    """Every text of ``texts`` that repeats or contradicts an instruction, by text."""
    found: dict[str, Relation] = {}
    for text in dict.fromkeys(texts):
        relation = relate(text, units, verdicts)
        if relation is not None:
            found[text] = relation
    return found
