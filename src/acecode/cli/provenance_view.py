"""Provenance as people read it: used by ``acecode why`` and ``acecode show --provenance``."""

from __future__ import annotations

from typing import Any

from acecode.store.provenance import Evidence, Ledger, Origin

UNKNOWN = (
    "unknown origin: no provenance was recorded for it (it predates provenance, was written "
    "by hand, or came from another clone through git)"
)


def evidence_line(evidence: Evidence) -> str:
    """One line for the evidence, or "" when there is none."""
    if evidence.kind == "failure":
        call = f"{evidence.tool} `{evidence.command}`" if evidence.command else evidence.tool
        return f"{call} failed: {evidence.error}" if evidence.error else f"{call} failed"
    if evidence.kind == "request":
        return f'the user asked: "{evidence.request}"'
    return ""


def origin_summary(origin: Origin) -> str:
    """``learned 2026-11-23 15:50, cycle 2026...: <evidence>`` on one line (``show``)."""
    when = origin.at[:16].replace("T", " ")
    detail = evidence_line(origin.evidence) or origin.reason
    return f"{origin.how} {when}, cycle {origin.cycle_id or '?'}" + (
        f": {detail}" if detail else ""
    )


def describe_origins(origins: list[Origin] | tuple[Origin, ...]) -> list[str]:
    """Numbered lines, oldest first, each origin with its reason and evidence (``why``)."""
    lines = []
    for number, origin in enumerate(origins, start=1):
        when = origin.at[:16].replace("T", " ")
        who = origin.agent + (f", session {origin.session}" if origin.session else "")
        lines.append(f"{number}. {origin.how}  {when}  cycle {origin.cycle_id or '?'}  ({who})")
        if origin.reason:
            lines.append(f"   why: {origin.reason}")
        evidence = evidence_line(origin.evidence)
        if evidence:
            lines.append(f"   evidence: {evidence}")
        if origin.transcript:
            lines.append(f"   transcript: {origin.transcript}")
    return lines


def trigger_lines(entry: dict[str, Any], origins: list[Origin]) -> list[str]:
    """The entry's triggers (:mod:`acecode.recall.triggers`), one line each."""
    from acecode.recall.triggers import triggers_of

    return triggers_of(entry, origins).describe()


def why_record(
    name: str, entry: tuple[str, dict[str, Any]] | None, ledger: Ledger
) -> dict[str, Any]:
    """The JSON form of ``acecode why NAME``."""
    section, data = entry if entry is not None else (None, None)
    origins = ledger.entries.get(name, [])
    return {
        "name": name,
        "in_playbook": entry is not None,
        "section": section,
        "text": data["text"] if data else None,
        "triggers": trigger_lines(data, origins) if data else [],
        "origins": [origin.as_dict() for origin in ledger.entries.get(name, [])] if entry else [],
        "retired": [
            {"removed_in": record.removed_in, "origins": [o.as_dict() for o in record.origins]}
            for record in ledger.retired.get(name, [])
        ],
    }


def why_text(
    name: str,
    entry: tuple[str, dict[str, Any]] | None,
    ledger: Ledger,
    graduated: dict[str, str] | None = None,
) -> list[str]:
    """The human form of ``acecode why NAME``; ``graduated`` (cycle, file, text) when
    ``acecode graduate`` moved it into an instruction file."""
    lines: list[str] = []
    if graduated is not None:
        lines.append(
            f"{name} graduated to {graduated['file']} in cycle {graduated['cycle']} "
            f"(`acecode undo {graduated['cycle']}` takes it back): {graduated['text']}"
        )
    if entry is not None:
        section, data = entry
        lines.append(f"{name} ({section}): {data['text']}")
        origins = ledger.entries.get(name, [])
        lines += [f"trigger: {line}" for line in trigger_lines(data, origins)]
        lines += describe_origins(origins) if origins else [UNKNOWN]
    retired = ledger.retired.get(name, [])
    for record in reversed(retired):
        if graduated is not None and record.removed_in == graduated["cycle"]:
            lines.append("its history before it graduated:")
            lines += ["  " + line for line in describe_origins(record.origins)]
            continue
        head = "earlier entry" if entry is not None else f"{name} is not in the playbook;"
        lines.append(
            f"{head} removed in cycle {record.removed_in or '?'} "
            f"(`acecode restore {name}` brings back the last one removed):"
        )
        lines += ["  " + line for line in describe_origins(record.origins)]
    return lines
