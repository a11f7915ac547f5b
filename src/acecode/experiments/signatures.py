"""What counts as a recurrence for each entry: its failure and correction signatures.

From the entry's provenance (:mod:`acecode.store.provenance`):

* every origin whose evidence is a failed tool call gives a *failure
  signature* (:func:`acecode.impact.signature.evidence_signature`: the one
  recorded from the whole output when the entry was learned, as ``acecode
  impact`` computes it for every failed call); the failure
  recurs in a session when any of them matches one of the session's failed
  calls (:func:`acecode.impact.signature.matches`);
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

if TYPE_CHECKING:
    from acecode.experiments.outcomes import Outcome
    from acecode.impact.signature import FailureSignature


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
        from acecode.impact.signature import matches

        if any(wanted.error in outcome.errors for wanted in self.failures) and any(
            matches(seen, wanted) for seen in outcome.failures for wanted in self.failures
        ):
            return True
        return bool(self.correction) and any(
            same_correction(self.correction, words) for words in outcome.corrections
        )


def _evidence(origin: Any) -> Mapping[str, Any]:
    """An origin's evidence as a mapping: from an :class:`~acecode.store.provenance.Origin`
    or from the raw JSON of the provenance file (the injection's cache miss reads it raw,
    without the store)."""
    evidence = origin.get("evidence") if isinstance(origin, Mapping) else origin.evidence
    if isinstance(evidence, Mapping):
        return evidence
    return vars(evidence) if evidence is not None else {}


def _failures(origins: Iterable[Any]) -> list[Mapping[str, Any]]:
    found = [_evidence(o) for o in origins]
    return [e for e in found if e.get("kind") == "failure" and e.get("error")]


def _corrections(origins: Iterable[Any]) -> list[str]:
    requests = [_evidence(o) for o in origins]
    return [
        str(e["request"])
        for e in requests
        if e.get("kind") == "request" and e.get("request") and is_correction(str(e["request"]))
    ]


def has_signature(entry: Mapping[str, Any], origins: Iterable[Any]) -> bool:
    """True when :func:`signature_of_entry` is not empty (cheaper: no error normalisation)."""
    origins = list(origins)
    if _failures(origins):
        return True
    requests = _corrections(origins)
    return bool(requests) and bool(correction_terms(str(entry.get("text") or ""), requests))


def signature_of_entry(entry: Mapping[str, Any], origins: Iterable[Any]) -> Signature:
    """The signature of ``entry`` from its ``origins`` (Origin objects or their JSON)."""
    from acecode.impact.signature import evidence_signature

    origins = list(origins)
    failures = tuple(dict.fromkeys(evidence_signature(e) for e in _failures(origins)))
    requests = _corrections(origins)
    if not requests:
        return Signature(failures)
    return Signature(failures, correction_terms(str(entry.get("text") or ""), requests))
