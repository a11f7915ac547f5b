"""What the HTML report shows, gathered from the project's files into plain data.

The renderer never touches the disk, so it can be tested on hand-made data,
and this module never formats anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.cost.summary import PerSession, Summary
from acecode.experiments.effects import RuleEffect
from acecode.impact.analysis import ImpactReport
from acecode.impact.run import run_impact
from acecode.playbook.schema import SECTION_NAMES
from acecode.project.diagnostics import warn
from acecode.store.provenance import Origin, load_provenance


@dataclass
class CyclePoint:
    """One journaled cycle: when, what kind, entries added and removed, entries after."""

    cycle_id: str
    at: str
    kind: str
    added: int
    removed: int
    total: int


@dataclass
class ReportData:
    """Everything on the page."""

    playbook_path: str
    generated_at: str
    sections: dict[str, list[dict[str, Any]]]
    provenance: dict[str, list[Origin]]
    cycles: list[CyclePoint]
    impact: ImpactReport
    pending: list[dict[str, Any]] = field(default_factory=list)
    # Entries pinned in this layer (``acecode pin``).
    pinned: frozenset[str] = frozenset()
    # This project's LLM spend per day, newest first (the user's cost ledger).
    cost_days: dict[str, Summary] = field(default_factory=dict)
    # This project's last cycles that called an LLM, oldest first: (time, USD), and the
    # cost per session over them (triage-skipped sessions at $0).
    cost_cycles: list[tuple[str, float]] = field(default_factory=list)
    per_session: PerSession = field(default_factory=PerSession)
    # The measured effect per entry (acecode.experiments) and whether experiments run.
    effects: list[RuleEffect] = field(default_factory=list)
    experiments: str = ""
    # Each entry's triggers, one line each (acecode.recall.triggers): what recalls it.
    triggers: dict[str, list[str]] = field(default_factory=dict)


def growth(cycles: list[Any], entries_now: int) -> list[CyclePoint]:
    """Per journaled cycle, entries added and removed and the count after it.

    The count is walked back from today's playbook, so a journal that began
    after the playbook did still gives true totals; entries changed outside the
    journal (a hand edit of the file) could walk it below zero, where it stops.
    """
    points: list[CyclePoint] = []
    total = entries_now
    for cycle in reversed(cycles):
        added, removed = cycle.counts.get("added", 0), cycle.counts.get("removed", 0)
        points.append(
            CyclePoint(cycle.cycle_id, cycle.created_at, cycle.kind, added, removed, total)
        )
        total = max(total - (added - removed), 0)
    return points[::-1]


def project_cost_records(project: Path) -> list[dict[str, Any]]:
    """The project's records of the user's cost ledger ([] when it cannot be read: the
    report still shows everything else)."""
    from acecode.cost.ledger import Ledger, LedgerError

    try:
        records = Ledger().records()
    except LedgerError as exc:
        warn(f"cost ledger left out of the report: {exc}")
        return []
    return [record for record in records if record.get("project") == str(project)]


def project_cost_days(records: list[dict[str, Any]]) -> dict[str, Summary]:
    """The project's spend per day."""
    from acecode.cost.summary import day_key, grouped

    return grouped(records, day_key)


def recent_cycle_costs(records: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(time, USD) of the project's last cycles of known cost, oldest first."""
    from acecode.cost.ledger import settled
    from acecode.cost.summary import RECENT_CYCLES

    known = [
        (str(record.get("time")), float(record["cost_usd"]))
        for record in settled(records)
        if isinstance(record.get("cost_usd"), int | float)
    ]
    return sorted(known)[-RECENT_CYCLES:]


def gather(
    playbook_path: Path,
    playbook: dict[str, Any],
    transcripts: list[Path],
    *,
    folder: Path | None,
    generated_at: str,
    window: int,
) -> ReportData:
    """Read everything the report shows for ``playbook_path``, from ``transcripts``
    (:func:`acecode.impact.run.transcript_files`); ``folder`` is the folder the user
    named, if any, where the hold-back experiments look for a session's transcript."""
    from acecode.cost.summary import per_session
    from acecode.project.pins import pins_or_none
    from acecode.quarantine.queue import list_pending
    from acecode.store.history import list_cycles

    sections = {name: list(playbook["sections"].get(name, [])) for name in SECTION_NAMES}
    entries_now = sum(len(items) for items in sections.values())
    cost_records = project_cost_records(playbook_path.resolve().parent.parent)
    effects, experiments = measured_effects(playbook_path, playbook, transcripts, folder)
    provenance = load_provenance(playbook_path)
    return ReportData(
        playbook_path=str(playbook_path),
        generated_at=generated_at,
        sections=sections,
        provenance=provenance,
        cycles=growth(list_cycles(playbook_path), entries_now),
        impact=run_impact(playbook_path, playbook, transcripts, window=window),
        pending=[item.as_dict() for item in list_pending(playbook_path)],
        pinned=frozenset(pins_or_none(playbook_path)),
        cost_days=project_cost_days(cost_records),
        cost_cycles=recent_cycle_costs(cost_records),
        per_session=per_session(cost_records),
        effects=effects,
        experiments=experiments,
        triggers=entry_triggers(playbook, provenance),
    )


def entry_triggers(
    playbook: dict[str, Any], provenance: dict[str, list[Origin]]
) -> dict[str, list[str]]:
    """Every entry's triggers, one line each, for the entries that have any."""
    from acecode.playbook.schema import iter_entries
    from acecode.recall.triggers import triggers_of

    found = {
        entry["name"]: triggers_of(entry, provenance.get(entry["name"], [])).describe()
        for _section, entry in iter_entries(playbook)
    }
    return {name: lines for name, lines in found.items() if lines}


def measured_effects(
    playbook_path: Path, playbook: dict[str, Any], transcripts: list[Path], folder: Path | None
) -> tuple[list[RuleEffect], str]:
    """The per-entry effects and the line saying whether experiments are on."""
    from acecode.cli.effect_view import experiments_line
    from acecode.experiments.status import measure_project
    from acecode.impact.scan import scan_transcripts
    from acecode.project.config import load_settings

    settings = load_settings(playbook_path.resolve().parent.parent)
    measurement = measure_project(playbook_path, playbook, folder)
    rules = measurement.rules(scan_transcripts(transcripts))
    line = experiments_line(
        settings.experiments, settings.holdback_rate, settings.holdback_max, len(measurement.draws)
    )
    return rules, line
