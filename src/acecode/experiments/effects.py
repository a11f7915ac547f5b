"""Per entry: the experiment sessions, the estimate, and what ``impact --rules`` shows.

The randomised estimate uses only an entry's experiment sessions (the draws
it was in, :mod:`acecode.experiments.exposure`, whose transcripts could be
read, :mod:`acecode.experiments.outcomes`). An entry without any is shown
against a weaker baseline instead, marked as such: the sessions before it
was learned against those after (the session it was learned from left out,
since it holds the failure by construction). Those are not randomised (the
work changes, and a rule is learned right after its failure struck), so the
interval is shown but the class stays "no evidence yet".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acecode.experiments.classes import NO_EVIDENCE
from acecode.experiments.estimate import Effect, Session, estimate
from acecode.experiments.exposure import Draw
from acecode.experiments.outcomes import Outcome
from acecode.experiments.signatures import Signature
from acecode.impact.scan import SessionScan, parse_time
from acecode.store.provenance import Origin

RANDOMISED = "randomised"
BEFORE_AFTER = "before/after"
NO_DATA = "no data"


@dataclass
class RuleEffect:
    """One line of ``acecode impact --rules``."""

    entry: str
    section: str
    text: str
    helpful: int  # the reflector's counters, shown apart from the measured effect
    harmful: int
    signature: Signature
    basis: str  # RANDOMISED, BEFORE_AFTER or NO_DATA
    effect: Effect | None
    reached: int  # sessions the entry reached (session start or top-up)

    @property
    def label(self) -> str:
        """The class; only a randomised estimate can conclude."""
        if self.basis == RANDOMISED and self.effect is not None:
            return self.effect.label
        return NO_EVIDENCE

    def as_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "section": self.section,
            "text": self.text,
            "reflector": {"helpful": self.helpful, "harmful": self.harmful},
            "signature": self.signature.describe(),
            "signature_kind": self.signature.kind,
            "basis": self.basis,
            "class": self.label,
            "sessions_reached": self.reached,
            "effect": self.effect.as_dict() if self.effect is not None else None,
        }


def experiment_sessions(
    name: str,
    signature: Signature,
    draws: Iterable[Draw],
    outcomes: Mapping[str, Outcome],
    version: str | None = None,
) -> list[Session]:
    """The sessions ``name`` (at text ``version``, when given) was in the draw of, with the
    draw and whether it recurred."""
    sessions = []
    for draw in draws:
        outcome = outcomes.get(draw.session)
        if not draw.drew(name, version) or outcome is None:
            continue
        sessions.append(Session(draw.holdback, name in draw.held, signature.recurred(outcome)))
    return sessions


def measure(
    signatures: Mapping[str, Signature],
    draws: Sequence[Draw],
    outcomes: Mapping[str, Outcome],
    versions: Mapping[str, str] | None = None,
) -> dict[str, Effect]:
    """The randomised estimate of every entry that has experiment sessions (with the text
    it has now, when ``versions`` gives it)."""
    effects = {}
    for name, signature in signatures.items():
        version = (versions or {}).get(name)
        sessions = experiment_sessions(name, signature, draws, outcomes, version)
        if sessions:
            effects[name] = estimate(sessions)
    return effects


def before_after(
    signature: Signature, origins: Sequence[Origin], scans: Sequence[SessionScan]
) -> Effect | None:
    """Sessions before the entry was first learned against those after, as if the "before"
    ones were held back (the share of sessions before is the hold-back probability); None
    when one side is empty."""
    times = [t for t in (parse_time(o.at) for o in origins) if t is not None]
    if not times:
        return None
    learned = min(times)
    sources = {o.session for o in origins if o.session}
    timed = [s for s in scans if s.started_at is not None and s.session not in sources]
    before = [s for s in timed if s.started_at < learned]
    if not before or len(before) == len(timed):
        return None
    share = len(before) / len(timed)
    sessions = []
    for scan in timed:
        recurred = signature.recurred(Outcome.of(scan))
        sessions.append(Session(share, scan.started_at < learned, recurred))
    return estimate(sessions)
