"""Gather the inputs of the impact report from disk and build it.

Transcripts come from the project's session folders of every agent (Claude
Code's, Codex's rollouts whose ``cwd`` is the project), those of the sessions
started in its subfolders included (or from any folder or single transcript
file given), the playbook and provenance from beside the playbook, and the tags
from the history journal: a learning cycle's journaled counter changes are the
entries the reflector tagged for that cycle's transcript. What recall did at the
tool calls comes from the exposure log (:mod:`acecode.recall.outcomes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.agents.claude_code.sessions import sessions_dir, transcripts_at
from acecode.impact.analysis import DEFAULT_WINDOW, ImpactReport, build_report, filter_since
from acecode.impact.scan import scan_transcripts, session_key_for_path
from acecode.store.provenance import load_provenance


def transcripts_folder(project: Path, override: Path | None) -> Path:
    """Where the transcripts are read, as shown to the user: ``override`` (a transcript
    file or a folder of them), else Claude Code's folder for ``project``."""
    return override if override is not None else sessions_dir(project)


def transcript_files(project: Path, override: Path | None) -> list[Path]:
    """What to read: the transcripts at ``override``, else every session of ``project`` of
    every agent (Claude Code and Codex), those started in one of its subfolders included
    (they used its playbook), oldest first."""
    if override is not None:
        return transcripts_at(override)
    from acecode.agents import agent_names, get_agent

    found = [path for name in agent_names() for path in get_agent(name).find_sessions(project)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def tagged_by_session(playbook_path: Path, wanted: set[str]) -> dict[str, set[str]]:
    """For each session in ``wanted``, the entries whose counters a cycle learning from it
    changed (empty without a journal)."""
    from acecode.store.history import get_cycle, list_cycles

    tagged: dict[str, set[str]] = {}
    for cycle in list_cycles(playbook_path):
        transcript = cycle.source or cycle.meta.get("transcript")
        if not isinstance(transcript, str) or not transcript:
            continue
        session = session_key_for_path(Path(transcript))
        if session not in wanted:
            continue
        changes = get_cycle(playbook_path, cycle.cycle_id).changes
        tagged.setdefault(session, set()).update(
            change.name for change in changes if _counters_changed(change.before, change.after)
        )
    return tagged


def _counters_changed(before: dict[str, Any] | None, after: dict[str, Any] | None) -> bool:
    if before is None or after is None:
        return False
    return (before["helpful"], before["harmful"]) != (after["helpful"], after["harmful"])


def run_impact(
    playbook_path: Path,
    playbook: dict[str, Any],
    transcripts: Sequence[Path],
    *,
    since: datetime | None = None,
    window: int = DEFAULT_WINDOW,
) -> ImpactReport:
    """Scan ``transcripts`` (:func:`transcript_files`) and build the report for
    ``playbook``."""
    sessions = filter_since(scan_transcripts(transcripts), since)
    recent = {s.session for s in sessions[-window:]} if window > 0 else set()
    report = build_report(
        sessions,
        playbook,
        load_provenance(playbook_path),
        tagged_by_session(playbook_path, recent),
        window=window,
    )
    _add_measured_retire(report, playbook_path, playbook)
    report.recall = _recall(playbook_path, transcripts)
    return report


def _recall(playbook_path: Path, transcripts: Sequence[Path]) -> list[Any]:
    """What recall did per entry, most recalled first (:mod:`acecode.recall.outcomes`)."""
    from acecode.experiments.exposure import read_exposures
    from acecode.project.layer import Layer
    from acecode.recall.outcomes import recall_stats

    by_session = {session_key_for_path(path): path for path in transcripts}
    stats = recall_stats(read_exposures(Layer(playbook_path)), by_session)
    return sorted(stats.values(), key=lambda s: (-(s.recalled + s.warned), s.entry))


def _add_measured_retire(report: ImpactReport, playbook_path: Path, playbook: dict) -> None:
    """The entries the hold-back experiments found to have no measurable effect are retire
    candidates too, with the figure as the reason (:mod:`acecode.experiments`)."""
    from acecode.experiments.classes import retire_reasons
    from acecode.impact.analysis import RetireCandidate
    from acecode.playbook.schema import iter_entries
    from acecode.project.layer import Layer

    entries = {entry["name"]: (section, entry) for section, entry in iter_entries(playbook)}
    reasons = retire_reasons(Layer(playbook_path), set(entries))
    listed = {item.entry: item for item in report.retire}
    for name, reason in reasons.items():
        if name in listed:
            listed[name].reason = reason
            continue
        section, entry = entries[name]
        report.retire.append(
            RetireCandidate(
                entry=name,
                section=section,
                text=entry["text"],
                helpful=entry["helpful"],
                harmful=entry["harmful"],
                last_cited=None,
                reason=reason,
            )
        )
