"""Spend per day, ISO week, month and project, from the ledger's ``cycle`` records."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from acecode.cost.ledger import TRIAGED, record_time, settled
from acecode.cost.pricing import ESTIMATED, REPORTED, UNKNOWN, format_usd


@dataclass
class Summary:
    """What a group of cycles spent; ``cost_usd`` sums the known costs (None: none known)."""

    cycles: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    reported_cycles: int = 0
    estimated_cycles: int = 0
    unknown_cycles: int = 0

    def add(self, record: dict[str, Any]) -> None:
        self.cycles += 1
        self.input_tokens += int(record.get("input_tokens") or 0)
        self.output_tokens += int(record.get("output_tokens") or 0)
        cost = record.get("cost_usd")
        if isinstance(cost, int | float):
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)
        basis = record.get("cost_basis")
        self.reported_cycles += basis == REPORTED
        self.estimated_cycles += basis == ESTIMATED
        self.unknown_cycles += basis == UNKNOWN

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def basis(self) -> str:
        """The weakest basis among the cycles: unknown, estimated or reported."""
        if self.unknown_cycles:
            return UNKNOWN
        return ESTIMATED if self.estimated_cycles else REPORTED

    def cost_text(self) -> str:
        """The cost with its markers: ``~`` partly estimated, ``+?`` partly unknown."""
        if not self.cycles:
            return "$0"
        if self.cost_usd is None:
            return "$?"
        shown = format_usd(self.cost_usd, ESTIMATED if self.estimated_cycles else REPORTED)
        return f"{shown}+?" if self.unknown_cycles else shown

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tokens": self.tokens, "cost_basis": self.basis}


def summarize(records: Iterable[dict[str, Any]]) -> Summary:
    """One summary of ``records``' ``cycle`` records."""
    summary = Summary()
    for record in settled(records):
        summary.add(record)
    return summary


def day_key(moment: datetime) -> str:
    return moment.date().isoformat()


def week_key(moment: datetime) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def month_key(moment: datetime) -> str:
    return f"{moment.year}-{moment.month:02d}"


def grouped(
    records: Iterable[dict[str, Any]], key: Callable[[datetime], str]
) -> dict[str, Summary]:
    """Summaries per period (``key`` of each cycle's admission time), newest first."""
    groups: dict[str, Summary] = {}
    for record in settled(records):
        moment = record_time(record)
        if moment is not None:
            groups.setdefault(key(moment), Summary()).add(record)
    return dict(sorted(groups.items(), reverse=True))


def by_project(records: Iterable[dict[str, Any]]) -> dict[str, Summary]:
    """Summaries per project, the most expensive first."""
    groups: dict[str, Summary] = {}
    for record in settled(records):
        groups.setdefault(str(record.get("project") or "?"), Summary()).add(record)
    return dict(sorted(groups.items(), key=lambda item: -(item[1].cost_usd or 0.0)))


# The window of "cost per session": the last this many cycles that called an LLM.
RECENT_CYCLES = 30


@dataclass
class PerSession:
    """What a session costs: the last :data:`RECENT_CYCLES` cycles of known cost, and the
    sessions the triage skipped at $0 since the first of them."""

    cycles: int = 0
    median_usd: float | None = None
    mean_usd: float | None = None
    triaged: int = 0

    @property
    def sessions(self) -> int:
        return self.cycles + self.triaged

    @property
    def mean_per_session_usd(self) -> float | None:
        """The mean over every session, triage-skipped ones at $0."""
        if self.mean_usd is None or not self.sessions:
            return None
        return self.mean_usd * self.cycles / self.sessions

    @property
    def saved_usd(self) -> float | None:
        """What the skipped sessions would have cost at the median cycle's cost."""
        return None if self.median_usd is None else self.triaged * self.median_usd

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "sessions": self.sessions,
            "mean_per_session_usd": self.mean_per_session_usd,
            "triage_saved_usd": self.saved_usd,
        }


def per_session(records: Iterable[dict[str, Any]], last: int = RECENT_CYCLES) -> PerSession:
    """Cost per cycle and per session over the last ``last`` cycles of known cost."""
    records = list(records)
    timed = [
        (moment, record)
        for record in settled(records)
        if isinstance(record.get("cost_usd"), int | float)
        and (moment := record_time(record)) is not None
    ]
    recent = sorted(timed, key=lambda item: item[0])[-last:]
    if not recent:
        return PerSession()
    costs = [float(record["cost_usd"]) for _, record in recent]
    start = recent[0][0]
    triaged = sum(
        1
        for record in records
        if record.get("kind") == TRIAGED
        and (moment := record_time(record)) is not None
        and moment >= start
    )
    return PerSession(
        cycles=len(costs),
        median_usd=statistics.median(costs),
        mean_usd=statistics.fmean(costs),
        triaged=triaged,
    )
