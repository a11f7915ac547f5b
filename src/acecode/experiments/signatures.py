"""What counts as a recurrence for each entry: its failure and correction signatures.

From the entry's provenance (:mod:`acecode.store.provenance`):

* every origin whose evidence is a failed tool call gives a *failure
  signature* (:func:`acecode.impact.signature.signature_of` of its tool,
  command and error line, as ``acecode impact`` computes it); the failure
  recurs in a session when any of them matches one of the session's failed
  calls (:func:`acecode.impact.analysis.matches`);
* every origin whose evidence is a request that reads like a correction
  (:func:`acecode.impact.correction.is_correction`) gives the entry a
  *correction signature*: the topic words of the entry's text and of those
  requests (:func:`~acecode.impact.correction.correction_terms`); the
  correction recurs when the user corrects the agent about the same thing
  again (:func:`~acecode.impact.correction.same_correction`).

An entry with neither is never held back: there is nothing to count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acecode.impact.correction import correction_terms, is_correction, same_correction
from acecode.impact.signature import FailureSignature
from acecode.store.provenance import Origin

if TYPE_CHECKING:
    from acecode.experiments.outcomes import Outcome


@dataclass(frozen=True)
class Signature:
    """The recurrences that count against one entry."""

    failures: tuple[FailureSignature, ...] = ()
    correction: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.failures or self.correction)

    @property
    def kind(self) -> str:
        """``failure``, ``correction`` or ``failure+correction``."""
        kinds = [k for k, v in (("failure", self.failures), ("correction", self.correction)) if v]
        return "+".join(kinds)

    def describe(self) -> str:
        """One line for people: the failure keys, or the correction's words."""
        parts = [failure.key for failure in self.failures]
        if self.correction:
            parts.append("correction about: " + " ".join(sorted(self.correction)[:8]))
        return "; ".join(parts)

    def recurred(self, outcome: Outcome) -> bool:
        """True when a session with this outcome saw the entry's failure or correction again."""
        from acecode.impact.analysis import matches

        if any(wanted.error in outcome.errors for wanted in self.failures) and any(
            matches(seen, wanted) for seen in outcome.failures for wanted in self.failures
        ):
            return True
        return bool(self.correction) and any(
            same_correction(self.correction, words) for words in outcome.corrections
        )


def _corrections(origins: Iterable[Origin]) -> list[str]:
    return [
        o.evidence.request
        for o in origins
        if o.evidence.kind == "request" and o.evidence.request and is_correction(o.evidence.request)
    ]


def has_signature(entry: Mapping[str, Any], origins: Iterable[Origin]) -> bool:
    """True when :func:`signature_of_entry` is not empty (cheaper: no error normalisation)."""
    origins = list(origins)
    if any(o.evidence.kind == "failure" and o.evidence.error for o in origins):
        return True
    requests = _corrections(origins)
    return bool(requests) and bool(correction_terms(str(entry.get("text") or ""), requests))


def signature_of_entry(entry: Mapping[str, Any], origins: Iterable[Origin]) -> Signature:
    """The signature of ``entry`` from its ``origins`` (empty when it has none)."""
    from acecode.impact.signature import signature_of

    origins = list(origins)
    failures = tuple(
        dict.fromkeys(
            signature_of(o.evidence.tool, o.evidence.command, o.evidence.error)
            for o in origins
            if o.evidence.kind == "failure" and o.evidence.error
        )
    )
    requests = _corrections(origins)
    correction = (
        correction_terms(str(entry.get("text") or ""), requests) if requests else frozenset()
    )
    return Signature(failures, correction)
