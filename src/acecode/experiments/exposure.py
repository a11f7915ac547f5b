"""Reading the exposure log (written by :mod:`acecode.experiments.serve`), and pruning it.

Every line is one injection; a damaged line (a crash mid-write) is skipped.
A session can have several ``start`` lines (resumed, compacted): its draw is
the first one that took part in the experiment. The draws are a keyed hash
of the session and the entry (:mod:`acecode.experiments.draw`), so later
starts of the session hold back the same entries unless the eligible set
changed meanwhile; only the first counts, which keeps every session in one
arm per entry.

The log is pruned by age (:data:`MAX_AGE_DAYS`) after each learning cycle,
by rewriting it without its old lines. A hook appending in the instant
between that read and the rename loses its line; the prune runs only when
a line is old enough to go, so that is rare and costs one session's record.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from acecode.experiments.estimate import holdback_probability
from acecode.experiments.files import EXPOSURES, experiments_path
from acecode.impact.scan import parse_time

MAX_AGE_DAYS = 365
DRAW_EVENTS = ("start", "fallback")


@dataclass(frozen=True)
class Draw:
    """One session's hold-back draw."""

    session: str
    at: str
    agent: str
    drawn: tuple[str, ...]
    held: frozenset[str]
    rate: float
    most: int
    versions: Mapping[str, str] = field(default_factory=dict)  # drawn entry -> text version

    def drew(self, name: str, version: str | None = None) -> bool:
        """True when ``name`` was in this draw, at ``version`` when both are known (a log
        written before versions were recorded matches any)."""
        if name not in self.drawn:
            return False
        recorded = self.versions.get(name)
        return not (version and recorded and recorded != version)

    @property
    def holdback(self) -> float:
        """The chance each drawn entry had of being held back in this session."""
        return holdback_probability(len(self.drawn), self.rate, self.most)


def exposures_file(state: Path) -> Path:
    return Path(experiments_path(state, EXPOSURES))


def _lines(path: Path) -> Iterable[dict[str, Any]]:
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return
    with handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("session"), str):
                yield record


def read_exposures(state: Path) -> list[dict[str, Any]]:
    """Every readable record of the project's exposure log, oldest first."""
    return list(_lines(exposures_file(state)))


def _names(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def draws(records: Iterable[Mapping[str, Any]]) -> dict[str, Draw]:
    """The first hold-back draw of every session that took part in an experiment."""
    found: dict[str, Draw] = {}
    for record in records:
        session = record["session"]
        if not session or session in found or record.get("event") not in DRAW_EVENTS:
            continue
        if not isinstance(record.get("drawn"), list):
            continue
        try:
            rate, most = float(record.get("rate", 0)), int(record.get("max", 0))
        except (TypeError, ValueError):
            continue
        found[session] = Draw(
            session=session,
            at=str(record.get("at") or ""),
            agent=str(record.get("agent") or ""),
            drawn=tuple(_names(record["drawn"])),
            held=frozenset(_names(record.get("held"))),
            rate=rate,
            most=most,
            versions=_versions(record.get("drawn_versions")),
        )
    return found


def _versions(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str) and v}


def transcripts(records: Iterable[Mapping[str, Any]]) -> dict[str, str | None]:
    """Every session of the log and the transcript its hooks named (None when none did)."""
    found: dict[str, str | None] = {}
    for record in records:
        path = record.get("transcript")
        if record["session"] and found.get(record["session"]) is None:
            found[record["session"]] = path if isinstance(path, str) and path else None
    return found


def injected_sessions(records: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """For every entry name, the sessions it reached (session start or top-up)."""
    reached: dict[str, set[str]] = {}
    for record in records:
        for item in _names(record.get("entries")):
            reached.setdefault(item.partition("@")[0], set()).add(record["session"])
    return reached


def _oldest(path: Path) -> datetime | None:
    """The time of the log's first record (the oldest: it is appended to), read alone."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return None
    try:
        record = json.loads(first)
    except ValueError:
        return None
    return parse_time(record.get("at")) if isinstance(record, dict) else None


def prune(state: Path, now: datetime | None = None, max_age_days: int = MAX_AGE_DAYS) -> int:
    """Drop the records older than ``max_age_days``; the number dropped. Only the first
    line is read unless it is old enough to go, so calling this after every session is
    cheap."""
    path = exposures_file(state)
    limit = (now or datetime.now(UTC)) - timedelta(days=max_age_days)
    oldest = _oldest(path)
    if oldest is not None and oldest >= limit:
        return 0
    records = read_exposures(state)
    kept = [r for r in records if (parse_time(r.get("at")) or limit) >= limit]
    if len(kept) == len(records):
        return 0
    from acecode.store.atomic import atomic_write_text

    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in kept)
    atomic_write_text(path, text)
    return len(records) - len(kept)
