"""The impact report: recurring failures, before/after an entry, citations, retire candidates.

Everything is computed from the per-session scans (:mod:`acecode.impact.scan`),
the playbook, the provenance store and the history journal; nothing here
reads a transcript or calls an LLM, so the rules can be tested on small
hand-made inputs.

*Before/after.* An entry learned from a failure carries that failure's
signature in its provenance, computed from the whole output with the same
:func:`~acecode.impact.signature.signature_of` as the transcripts'
(:func:`~acecode.impact.signature.evidence_signature`), so "the failure this
entry addresses" is an exact key, not a guess. A session
counts *before* when it started before the entry was learned, *after*
otherwise; the report gives both the sessions that hit the failure and the
sessions in each period, since a period with fewer sessions naturally has
fewer hits.

*Retire candidates.* Entries that existed before the last N sessions began
and that none of those sessions cited (``[pat-001]`` in an assistant reply)
and no cycle learning from them tagged (a helpful/harmful counter change in
the history journal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from acecode.impact.scan import SessionScan, parse_time
from acecode.impact.signature import FailureSignature, evidence_signature, matches
from acecode.store.provenance import Origin

DEFAULT_WINDOW = 20


@dataclass
class SignatureStats:
    """How often one failure happened: calls, sessions, first and last session."""

    signature: FailureSignature
    calls: int = 0
    sessions: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature.key,
            "tool": self.signature.tool,
            "command_head": self.signature.head,
            "error": self.signature.error,
            "calls": self.calls,
            "sessions": self.sessions,
            "first_seen": _iso(self.first_seen),
            "last_seen": _iso(self.last_seen),
        }


@dataclass
class EntryImpact:
    """One entry learned from a failure, and that failure's sessions before and after."""

    entry: str
    in_playbook: bool
    learned_at: datetime
    signature: FailureSignature
    hit_before: int
    sessions_before: int
    hit_after: int
    sessions_after: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "in_playbook": self.in_playbook,
            "learned_at": _iso(self.learned_at),
            "signature": self.signature.key,
            "before": {"sessions_with_failure": self.hit_before, "sessions": self.sessions_before},
            "after": {"sessions_with_failure": self.hit_after, "sessions": self.sessions_after},
        }


@dataclass
class RetireCandidate:
    """An entry nobody used lately."""

    entry: str
    section: str
    text: str
    helpful: int
    harmful: int
    last_cited: datetime | None
    reason: str = ""  # why it is a candidate; "" for "not cited or tagged lately"

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["last_cited"] = _iso(self.last_cited)
        return data


@dataclass
class ImpactReport:
    """Everything ``acecode impact`` shows."""

    sessions: int = 0
    files: int = 0
    failed_calls: int = 0
    declined_calls: int = 0
    bad_lines: int = 0
    first_session: datetime | None = None
    last_session: datetime | None = None
    signatures: list[SignatureStats] = field(default_factory=list)
    entries: list[EntryImpact] = field(default_factory=list)
    citations: dict[str, dict[str, int]] = field(default_factory=dict)
    window: int = DEFAULT_WINDOW
    window_sessions: int = 0
    retire: list[RetireCandidate] = field(default_factory=list)
    # Per entry, what recall did at the tool calls (acecode.recall.outcomes.RecallStats).
    recall: list[Any] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (``acecode impact --json``)."""
        return {
            "sessions": self.sessions,
            "files": self.files,
            "failed_calls": self.failed_calls,
            "declined_calls": self.declined_calls,
            "bad_lines": self.bad_lines,
            "first_session": _iso(self.first_session),
            "last_session": _iso(self.last_session),
            "signatures": [item.as_dict() for item in self.signatures],
            "entries": [item.as_dict() for item in self.entries],
            "citations_per_week": self.citations,
            "retire": {
                "window": self.window,
                "sessions_in_window": self.window_sessions,
                "candidates": [item.as_dict() for item in self.retire],
            },
            "recall": [item.as_dict() for item in self.recall],
        }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value else None


def iso_week(value: datetime) -> str:
    """``2026-W07``: the ISO week a time falls in."""
    year, week, _ = value.isocalendar()
    return f"{year}-W{week:02d}"


def filter_since(sessions: list[SessionScan], since: datetime | None) -> list[SessionScan]:
    """The sessions that started at or after ``since`` (sessions of unknown start are kept
    only without ``since``)."""
    if since is None:
        return sessions
    return [s for s in sessions if s.started_at is not None and s.started_at >= since]


def build_report(
    sessions: list[SessionScan],
    playbook: Mapping[str, Any],
    provenance: Mapping[str, list[Origin]],
    tagged: Mapping[str, set[str]],
    *,
    window: int = DEFAULT_WINDOW,
) -> ImpactReport:
    """The report for ``sessions`` (ordered by start). ``tagged`` maps a session key to
    the entries a cycle learning from that session tagged."""
    entries = {entry["name"]: (section, entry) for section, entry in _entries(playbook)}
    report = ImpactReport(
        sessions=len(sessions),
        files=sum(len(s.files) for s in sessions),
        failed_calls=sum(sum(s.failures.values()) for s in sessions),
        declined_calls=sum(s.declined for s in sessions),
        bad_lines=sum(s.bad_lines for s in sessions),
        window=window,
    )
    started = [s.started_at for s in sessions if s.started_at is not None]
    report.first_session = min(started, default=None)
    report.last_session = max(started, default=None)
    report.signatures = _signature_stats(sessions)
    report.entries = _entry_impacts(sessions, provenance, entries)
    report.citations = _citations_per_week(sessions)
    recent = sessions[-window:] if window > 0 else []
    report.window_sessions = len(recent)
    report.retire = _retire_candidates(recent, sessions, entries, provenance, tagged)
    return report


def _entries(playbook: Mapping[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    for section, items in (playbook.get("sections") or {}).items():
        for entry in items:
            yield section, entry


def _signature_stats(sessions: list[SessionScan]) -> list[SignatureStats]:
    stats: dict[FailureSignature, SignatureStats] = {}
    for session in sessions:
        for signature, calls in session.failures.items():
            item = stats.setdefault(signature, SignatureStats(signature))
            item.calls += calls
            item.sessions += 1
            when = session.started_at
            if when is not None:
                item.first_seen = min(item.first_seen or when, when)
                item.last_seen = max(item.last_seen or when, when)
    return sorted(stats.values(), key=lambda s: (-s.sessions, -s.calls, s.signature.key))


def _entry_impacts(
    sessions: list[SessionScan],
    provenance: Mapping[str, list[Origin]],
    entries: Mapping[str, Any],
) -> list[EntryImpact]:
    impacts = []
    for name, origins in provenance.items():
        for origin in origins:
            learned_at = parse_time(origin.at)
            evidence = origin.evidence
            if evidence.kind != "failure" or learned_at is None or not evidence.error:
                continue
            wanted = evidence_signature(evidence)
            before = [s for s in sessions if s.started_at and s.started_at < learned_at]
            after = [s for s in sessions if s.started_at and s.started_at >= learned_at]
            impacts.append(
                EntryImpact(
                    entry=name,
                    in_playbook=name in entries,
                    learned_at=learned_at,
                    signature=wanted,
                    hit_before=sum(1 for s in before if _hit(s, wanted)),
                    sessions_before=len(before),
                    hit_after=sum(1 for s in after if _hit(s, wanted)),
                    sessions_after=len(after),
                )
            )
    return sorted(impacts, key=lambda i: (i.learned_at, i.entry))


def _hit(session: SessionScan, wanted: FailureSignature) -> bool:
    return any(matches(observed, wanted) for observed in session.failures)


def _citations_per_week(sessions: list[SessionScan]) -> dict[str, dict[str, int]]:
    weeks: dict[str, Counter[str]] = {}
    for session in sessions:
        for citation in session.citations:
            when = citation.at or session.started_at
            week = iso_week(when) if when else "unknown"
            weeks.setdefault(citation.entry, Counter())[week] += 1
    return {entry: dict(sorted(counts.items())) for entry, counts in sorted(weeks.items())}


def _retire_candidates(
    recent: list[SessionScan],
    sessions: list[SessionScan],
    entries: Mapping[str, tuple[str, dict[str, Any]]],
    provenance: Mapping[str, list[Origin]],
    tagged: Mapping[str, set[str]],
) -> list[RetireCandidate]:
    if not recent:
        return []
    window_start = next((s.started_at for s in recent if s.started_at), None)
    used: set[str] = set()
    for session in recent:
        used |= session.cited()
        used |= tagged.get(session.session, set())
    last_cited: dict[str, datetime] = {}
    for session in sessions:
        for citation in session.citations:
            when = citation.at or session.started_at
            if when and (citation.entry not in last_cited or when > last_cited[citation.entry]):
                last_cited[citation.entry] = when
    candidates = []
    for name, (section, entry) in entries.items():
        if name in used or _younger_than(provenance.get(name, []), window_start):
            continue
        candidates.append(
            RetireCandidate(
                entry=name,
                section=section,
                text=entry["text"],
                helpful=entry["helpful"],
                harmful=entry["harmful"],
                last_cited=last_cited.get(name),
            )
        )
    return candidates


def _younger_than(origins: list[Origin], window_start: datetime | None) -> bool:
    """True when the entry was first learned after the window began: it had no chance yet."""
    if window_start is None:
        return False
    times = [t for t in (parse_time(o.at) for o in origins) if t is not None]
    return bool(times) and min(times) >= window_start
