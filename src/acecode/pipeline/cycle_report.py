"""What one learning cycle did: its status, counts, cost and curation report.

Kept apart from the cycle (:mod:`acecode.pipeline.cycle`) and its stages, so that
the cost gate, the judge and every stage can name the report without importing
the cycle that imports them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.project import outcomes
from acecode.text import wording
from acecode.text.redact import redact


@dataclass
class CycleReport:
    """What one cycle did; logged, shown by the CLI; ``curation`` is the report file's body."""

    cycle_id: str
    source: str
    transcript: str
    playbook: str
    started_at: str
    # The coding agent that wrote the transcript (``claude-code``, ``codex``).
    agent: str = ""
    status: str = outcomes.OK
    # Why a cycle was skipped or failed, or why it changed nothing; "" for a plain ok.
    reason: str = ""
    dry_run: bool = False
    messages: int = 0
    messages_already_learned: int = 0
    cited_ids: list[str] = field(default_factory=list)
    # The IDs the reflector tagged; None when no reflection was made.
    tagged_ids: list[str] | None = None
    analysis: str = ""
    curator_reasoning: str = ""
    proposed_operations: list[Any] = field(default_factory=list)
    # What the curator was shown (acecode.playbook.curator_view.CuratorView.summary).
    curator_view: dict[str, Any] = field(default_factory=dict)
    # Operations naming an ID the curator was not shown: skipped outcomes, never applied.
    refused_operations: list[dict[str, Any]] = field(default_factory=list)
    # The curator's input patterns left out of provenance, one line each: entry, pattern, why.
    refused_patterns: list[str] = field(default_factory=list)
    # Entries moved to the user layer because another project learned the same failure.
    promoted: list[dict[str, str]] = field(default_factory=list)
    tags_applied: list[dict[str, Any]] = field(default_factory=list)
    tags_skipped: list[dict[str, Any]] = field(default_factory=list)
    held_for_review: list[dict[str, Any]] = field(default_factory=list)
    dropped_by_review: list[dict[str, Any]] = field(default_factory=list)
    # Queued texts that waited for a safety review and that this cycle's review passed:
    # applied with the cycle's operations (acecode.quarantine.waiting).
    released_after_review: list[dict[str, Any]] = field(default_factory=list)
    # Proposed texts not applied because one of the project's instructions (CLAUDE.md,
    # rules, auto memory) says them already: the operation, its text, and the instruction
    # (file, line, text, the judge's reason) (acecode.pipeline.stages.instructions).
    instruction_repeats: list[dict[str, Any]] = field(default_factory=list)
    # Safety-review flags below ``review_severity``: noted, not held.
    review_notes: list[dict[str, str]] = field(default_factory=list)
    # The languages of the user's requests in this session, and the languages a rule may
    # be in without a review (acecode.quarantine.user_languages).
    request_languages: dict[str, int] = field(default_factory=dict)
    languages: list[str] = field(default_factory=list)
    operations: list[dict[str, Any]] = field(default_factory=list)
    # Removals the budget deferred this cycle (GuardResult.deferred items, with the reason).
    deferred: list[dict[str, Any]] = field(default_factory=list)
    # Every removal left for a later cycle (acecode.consolidation.deferred), as saved.
    pending_removals: list[dict[str, Any]] = field(default_factory=list)
    pruned: list[dict[str, Any]] = field(default_factory=list)
    entries_before: int = 0
    entries_after: int = 0
    saved: bool = False
    llm_ok: bool = True
    tokens: dict[str, Any] = field(default_factory=dict)
    # This cycle's cost (acecode.cost.gate): the estimate it was admitted with, then the
    # USD it spent and how that is known (reported, estimated, unknown), per role.
    cost: dict[str, Any] = field(default_factory=dict)
    # The provider the cycle chose, its model and why it was chosen (None before the choice).
    provider: str | None = None
    model: str | None = None
    provider_reason: str = ""
    # What its calls go to and the setting that chose it (ProviderChoice.endpoint).
    provider_endpoint: str = ""
    session_size: dict[str, int] = field(default_factory=dict)
    # What the triage counted in the session (acecode.pipeline.triage.Signals).
    signals: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    curation: dict[str, Any] | None = None
    report_file: str | None = None
    duration_s: float = 0.0
    # What the cycle did in the user layer (its own report, ``as_dict``); None when no
    # delta went there (see acecode.project.layers).
    user_layer: dict[str, Any] | None = None

    @property
    def learned(self) -> bool:
        """True when the transcript was fully processed (even if nothing changed).

        A skipped or failed cycle (too small, no provider, an LLM error, a
        reply without JSON) did not learn: the transcript stays due.
        """
        return self.status in outcomes.LEARNED

    @property
    def learned_before(self) -> bool:
        """True when earlier cycles had learned every message of the transcript, so this
        one found nothing new to read (no LLM call, nothing changed)."""
        return (
            self.status == outcomes.NOTHING_NEW
            and self.messages > 0
            and self.messages_already_learned >= self.messages
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def finish(self, status: str, reason: str = "") -> CycleReport:
        """Set the final status and its reason (redacted, on one line)."""
        self.status = status
        self.reason = outcomes.one_line(redact(reason)) if reason else ""
        return self

    def attach_user_layer(self, layer: CycleReport) -> None:
        """Fold the user layer's report into this (the project's) one: its tokens and
        warnings join the cycle's, the rest (its curation report included) is kept
        under ``user_layer``."""
        from acecode.llm import usage

        ledger = usage.UsageLedger.from_dict(self.tokens)
        ledger.calls.extend(usage.UsageLedger.from_dict(layer.tokens).calls)
        self.tokens = ledger.to_dict()
        self.warnings += [f"user layer: {warning}" for warning in layer.warnings]
        self.user_layer = layer.as_dict()

    def summary(self) -> str:
        """One line for logs and the CLI: the status, then the reason or the counts."""
        head = f"cycle {self.cycle_id} [{self.status}] {Path(self.transcript).name}"
        if self.status not in outcomes.LEARNED:
            return f"{head}: {self.reason}"
        why = f"{self.reason}; " if self.reason else ""
        user = self.user_layer
        in_user = f"; user layer: {_counts(user)}" if user else ""
        return (
            f"{head}: {why}{_counts(self.as_dict())}{in_user}, "
            f"{wording.counted(self.tokens.get('total_tokens', 0), 'token')}{self._cost_text()}, "
            f"{self.duration_s:.1f} s"
        )

    def _cost_text(self) -> str:
        """``, ~$0.0123`` (see :func:`acecode.cost.pricing.format_usd`); "" without calls."""
        from acecode.cost.pricing import format_usd

        if "basis" not in self.cost:
            return ""
        return f", {format_usd(self.cost.get('usd'), self.cost['basis'])}"

    def outcome(self) -> dict[str, Any]:
        """The record kept in ``cycles.jsonl`` (see :mod:`acecode.project.outcomes`)."""
        return {
            "cycle_id": self.cycle_id,
            "started_at": self.started_at,
            "finished_at": datetime.now().astimezone().isoformat(timespec="seconds"),
            "source": self.source,
            "transcript": self.transcript,
            "agent": self.agent,
            "status": self.status,
            "reason": self.reason,
            "provider": self.provider,
            "model": self.model,
            "provider_reason": self.provider_reason,
            "provider_endpoint": self.provider_endpoint,
            "session_size": self.session_size,
            "signals": self.signals,
            "cited_ids": self.cited_ids,
            "tagged_ids": self.tagged_ids,
            "tags_applied": len(self.tags_applied),
            "operations_applied": sum(1 for op in self.operations if op.get("applied")),
            "operations_deferred": len(self.deferred),
            "held_for_review": len(self.held_for_review),
            "not_reviewed": _not_reviewed(self.held_for_review),
            "released_after_review": len(self.released_after_review),
            "entries_before": self.entries_before,
            "entries_after": self.entries_after,
            "report_file": self.report_file,
            "duration_s": self.duration_s,
            "cost_usd": self.cost.get("usd"),
            "cost_basis": self.cost.get("basis"),
            "user_layer": _layer_outcome(self.user_layer),
        }


def _layer_outcome(layer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The user layer's part of the ``cycles.jsonl`` record."""
    if layer is None:
        return None
    return {
        "playbook": layer["playbook"],
        "tags_applied": len(layer["tags_applied"]),
        "operations_applied": sum(1 for op in layer["operations"] if op.get("applied")),
        "held_for_review": len(layer["held_for_review"]),
        "entries_before": layer["entries_before"],
        "entries_after": layer["entries_after"],
        "report_file": layer["report_file"],
    }


def _not_reviewed(held: list[dict[str, Any]]) -> int:
    """How many of the held texts wait only because no safety review passed them."""
    from acecode.quarantine.unreviewed import is_not_reviewed

    return sum(is_not_reviewed(item["rule"]) for item in held)


def _repeats(report: dict[str, Any]) -> str:
    """``2 already in the instructions, `` when texts were left out for it, else ""."""
    count = len(report.get("instruction_repeats") or ())
    return f"{count} already in the instructions, " if count else ""


def _counts(report: dict[str, Any]) -> str:
    """What a layer's report did, in numbers, for the summary line."""
    applied = sum(1 for op in report["operations"] if op.get("applied"))
    skipped = len(report["operations"]) - applied
    deferred = len(report.get("deferred") or ())
    later = f"{deferred} deferred by the removal budget, " if deferred else ""
    waiting = _not_reviewed(report["held_for_review"])
    not_reviewed = f" ({waiting} not reviewed)" if waiting else ""
    released = len(report.get("released_after_review") or ())
    landed = f"{released} waiting for a review landed, " if released else ""
    return (
        f"{wording.counted(len(report['tags_applied']), 'tag')}, "
        f"{wording.counted(applied, 'operation')} applied, {skipped} skipped, {later}"
        f"{len(report['held_for_review'])} held for review{not_reviewed}, {landed}"
        f"{_repeats(report)}"
        f"{len(report['pruned'])} pruned, "
        f"entries {report['entries_before']} -> {report['entries_after']}"
    )
