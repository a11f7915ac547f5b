"""What the curator is told about the failures the reflector's findings name.

For each failed call a finding names (``[F3]``), one line: the call and its
error line, then what acecode already knows about that failure:

* an entry of either layer whose provenance holds the same failure signature
  (:func:`acecode.impact.analysis.matches`) "already came from this failure":
  the curator reinforces it (its tags, an UPDATE) instead of adding a
  near-duplicate;
* the failure hit earlier sessions of this project, or other projects of the
  user, according to the user's failure record (:mod:`acecode.habits.record`),
  with no entry learned from it: it "recurs without an entry".

The command and error line come from the session the cycle read, redacted and
clipped (:func:`acecode.store.provenance.excerpt`); they are what the curator
needs to write an input pattern that matches the call (``when``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from acecode.habits.record import FailureRecord, family_key
from acecode.impact.signature import SHELL_TOOLS
from acecode.pipeline.evidence import EvidencePool, refs_in

if TYPE_CHECKING:
    from acecode.impact.signature import FailureSignature
    from acecode.store.provenance import Origin

NO_FAILURES = "(none)"
MAX_NOTES = 6
COMMAND_CHARS = 120
ERROR_CHARS = 160
# What the notes may add to the curator's request, at most (the cost estimate prices it).
NOTES_BOUND_BYTES = 2_400


def learned_from(
    signature: FailureSignature, provenance: Mapping[str, Sequence[Origin]]
) -> list[str]:
    """The entries whose provenance holds ``signature`` (same failure)."""
    from acecode.impact.signature import evidence_signature, matches

    found = []
    for name, origins in provenance.items():
        for origin in origins:
            evidence = origin.evidence
            if evidence.kind != "failure" or not (evidence.error or evidence.error_key):
                continue
            if matches(signature, evidence_signature(evidence)):
                found.append(name)
                break
    return found


def failure_notes(
    pool: EvidencePool,
    analysis: str,
    provenance: Mapping[str, Sequence[Origin]],
    record: FailureRecord,
    project: str,
    session: str,
) -> str:
    """One line per failed call the findings name (see the module); ``(none)`` without."""
    from acecode.impact.signature import evidence_signature
    from acecode.store.provenance import excerpt

    lines = []
    for ref in pool.known(refs_in(analysis)):
        if not ref.startswith("F") or len(lines) >= MAX_NOTES:
            continue
        evidence = pool.moments[ref].evidence
        signature = evidence_signature(evidence)
        command = excerpt(evidence.get("command"), COMMAND_CHARS)
        # A shell call shows its command; another tool's description names the tool.
        call = f"`{command}`" if command else evidence["tool"]
        if command and evidence["tool"] in SHELL_TOOLS:
            call = f"{evidence['tool']} {call}"
        line = f"- {ref}: {call} failed: {excerpt(evidence['error'], ERROR_CHARS)}"
        known = learned_from(signature, provenance)
        history = record.history(project, family_key(signature))
        earlier = [s for s in history.sessions_here if s != session]
        if known:
            line += f". Already learned from this failure: {', '.join(known)}; reinforce it"
        elif earlier or history.projects_seen:
            where = []
            if earlier:
                where.append(f"{len(earlier)} earlier session(s) of this project")
            if history.projects_seen:
                where.append(f"{history.projects_seen} other project(s) of the user")
            line += f". It recurs without an entry: also in {' and '.join(where)}"
        if len("\n".join([*lines, line]).encode("utf-8")) > NOTES_BOUND_BYTES:
            break
        lines.append(line)
    return "\n".join(lines) or NO_FAILURES


def both_layers_provenance(layers: Sequence[Any]) -> dict[str, list[Origin]]:
    """The live entries' origins of every layer in ``layers`` (names never collide)."""
    from acecode.store.provenance import load_provenance

    found: dict[str, list[Origin]] = {}
    for layer in layers:
        if layer is not None:
            found.update(load_provenance(layer))
    return found
