"""A learning cycle's provenance plan: which entries it created, changed or credited, and why.

The cycle calls :func:`cycle_provenance` inside its playbook transaction,
once the curation report is built, and puts the result in
``txn.meta["provenance"]``; the store writes it to the provenance file right
after the save (:mod:`acecode.store.provenance_changes` describes the plan).
Everything here comes from the curation report, so provenance and the
report (and ``acecode history``) tell the same story:

* an ADD that landed: ``learned``, with the curator's reason;
* an UPDATE: ``learned``, appended to the entry's history;
* an ADD or UPDATE the de-duplication ladder turned into a credit (or a
  text replacement) of an existing entry: ``learned``, appended to that entry;
* a MERGE, and a group the semantic de-duplication folded: ``merged``, the
  survivor inheriting every source's origins.

An ADD or UPDATE's input pattern (``when``) is kept in the origin when it matches
the call the entry was learned from (:mod:`acecode.pipeline.triggers_step`); a
refused one is named in the report's ``refused_patterns``.

The reason is the curator's for the operation; when it gave none, the
reflector's analysis. The evidence is the moment of the session the operation
names (its ``refs``, ``F3`` or ``C1``, checked against the session the cycle
read, :mod:`acecode.pipeline.evidence`); when it names none that exists, the
moments of the reflector's finding that shares most words with the entry's
text; failing that, the word-overlap fallback on the entry's text alone. When the
curator's ``refs`` is ``[]`` or that finding opens with ``[-]``, the model said the
lesson comes from no numbered moment, and the entry has no evidence (no trigger).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.agents import DEFAULT_AGENT
from acecode.pipeline.evidence import EvidencePool, refs_in
from acecode.pipeline.triggers_step import checked_patterns
from acecode.playbook.operations import clean_text
from acecode.playbook.relevance import terms

# How a reflector's finding says that no numbered moment shows its lesson.
NO_MOMENT = "[-]"


def _proposing(proposed: list[Any], text: str) -> dict[str, Any]:
    """The curator's operation that proposed ``text`` ({} when none did)."""
    for op in proposed:
        if isinstance(op, dict) and text in (
            clean_text(op.get("text")),
            clean_text(op.get("merged_text")),
        ):
            return op
    return {}


def _curator_reason(op: dict[str, Any], fallback: str) -> str:
    reason = op.get("reason")
    return reason.strip() if isinstance(reason, str) and reason.strip() else fallback


def _finding_refs(analysis: str, text: str, pool: EvidencePool) -> list[str] | None:
    """The moments of the reflector's finding that shares most words with ``text``: [] when
    that finding says it has none (it opens with ``[-]``); None when no finding names
    moments or says so (an analysis in another form) or none shares a word."""
    wanted = set(terms(text))
    best: tuple[int, list[str] | None] = (0, None)
    for finding in analysis.splitlines():
        refs = pool.known(refs_in(finding))
        if not refs and NO_MOMENT not in finding[:8]:
            continue
        shared = len(wanted & set(terms(finding)))
        if shared > best[0]:
            best = (shared, refs)
    return best[1]


def entry_evidence(
    pool: EvidencePool, text: str, op: dict[str, Any], analysis: str
) -> dict[str, str]:
    """The evidence of an entry with ``text`` that ``op`` proposed (see the module)."""
    refs = op.get("refs")
    named = pool.resolve(refs_in(refs))
    if named is not None:
        return named
    finding = _finding_refs(analysis, text, pool)
    found = pool.resolve(finding or [])
    if found is not None:
        return {**found, "link": "finding"}
    if refs == [] or finding == []:
        # The model said the lesson comes from no numbered moment: a word overlap would
        # tie it to some failure anyway, and recall would show it at that failure.
        return {"kind": "none"}
    return pool.match(text)


def cycle_provenance(report: Any, pool: EvidencePool) -> dict[str, Any]:
    """The plan for ``txn.meta["provenance"]`` from a ``CycleReport`` whose curation is built."""
    curation = report.curation or {}
    actions = curation.get("integration_actions") or {}
    dedup = curation.get("de_duplication_results") or {}
    analysis = report.analysis or ""
    proposed = report.proposed_operations

    def item(name: str, how: str, text: str, reason: str, **extra: Any) -> dict[str, Any]:
        op = _proposing(proposed, text)
        why = _curator_reason(op, reason or analysis)
        evidence = entry_evidence(pool, text, op, analysis)
        planned = {"name": name, "how": how, "reason": why, "evidence": evidence, **extra}
        if how == "learned" and op.get("type") in ("ADD", "UPDATE"):
            kept, refused = checked_patterns(op.get("when"), evidence, pool)
            if kept:
                planned["when"] = kept
            report.refused_patterns += [f"{name}: {line}" for line in refused]
        return planned

    entries: list[dict[str, Any]] = []
    for decision in dedup.get("ladder_decisions") or ():
        if decision.get("action") in ("credit", "update") and decision.get("matched_name"):
            text = decision.get("candidate_text") or ""
            found = item(decision["matched_name"], "learned", text, "")
            found["reason"] = (
                f"{found['reason']} (credited as the same rule: {decision.get('reason')})"
            )
            entries.append(found)
    ordered: list[tuple[int, dict[str, Any]]] = []
    for action in actions.get("new_entries_added") or ():
        ordered.append(
            (action.get("operation_index", 0), item(action["name"], "learned", action["text"], ""))
        )
    for action in actions.get("existing_entries_updated") or ():
        ordered.append(
            (action.get("operation_index", 0), item(action["name"], "learned", action["after"], ""))
        )
    for action in actions.get("entries_merged") or ():
        merged = item(
            action["name"],
            "merged",
            action["text"],
            action.get("reason", ""),
            **{"from": action["sources"]},
        )
        ordered.append((action.get("operation_index", 0), merged))
    entries += [entry for _, entry in sorted(ordered, key=lambda pair: pair[0])]
    for group in dedup.get("consolidations") or ():
        names = [merged["name"] for merged in group.get("merged") or ()]
        entries.append(
            {
                "name": group["kept"],
                "how": "merged",
                "reason": f"de-duplication folded {', '.join(names)} into it (the same rule)",
                "evidence": {"kind": "none"},
                "from": names,
            }
        )
    transcript = Path(report.transcript)
    return {
        "agent": report.agent or DEFAULT_AGENT,
        "session": transcript.stem,
        "transcript": str(transcript.resolve()),
        "entries": entries,
    }
