"""The semantic steps of a cycle: the de-duplication ladder for new texts and
the whole-playbook de-duplication pass.

Both share one embedding backend and the cache beside the playbook. When no
backend can run, both are skipped with one reason and the cycle goes on
(the spec's "de-duplicate if present, else skip").

Both are judged: they act only on pairs in ``verdicts`` (filled by
:mod:`acecode.pipeline.judge_step`) or near-verbatim ones. ``verdicts`` is
never None here, so without any verdict (no provider, failed judge call)
only near-verbatim duplicates are credited or merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.dedup.verdicts import Verdicts
from acecode.playbook.operations import clean_text
from acecode.playbook.schema import _resolve_section, iter_entries
from acecode.project.diagnostics import warn

if TYPE_CHECKING:
    from acecode.project.layer import Layer


@dataclass
class SemanticTools:
    """The loaded backend and cache (or why they are unavailable) and the judge's verdicts."""

    backend: Any = None
    cache: Any = None
    unavailable: str | None = None
    ladder_decisions: list[Any] = field(default_factory=list)
    verdicts: Verdicts = field(default_factory=Verdicts)
    judge_summary: Any = None  # a judge_step.JudgeSummary once the judge step ran

    @classmethod
    def load(cls, layer: Layer, *, persist: bool = True) -> SemanticTools:
        """The backend, with the on-disk cache beside the playbook when ``persist``
        (a dry run writes nothing, so it embeds without the file cache)."""
        from acecode.dedup import BackendUnavailable, EmbeddingCache, load_backend

        try:
            backend = load_backend()
        except BackendUnavailable as exc:
            warn(f"semantic de-duplication skipped: no embedding backend ({exc})")
            return cls(unavailable=f"no embedding backend: {exc}")
        cache = EmbeddingCache.for_playbook(layer) if persist else None
        return cls(backend=backend, cache=cache)

    def prewarm(self, playbook: dict[str, Any], operations: list[Any]) -> None:
        """Embed the snapshot's texts and the candidates now, outside the lock.

        Inside the lock only texts that changed since the snapshot are left
        to embed, so the critical section stays short.
        """
        if self.backend is None:
            return
        from acecode.dedup.cache import embed_texts

        texts = [entry["text"] for _, entry in iter_entries(playbook)]
        for op in operations:
            if isinstance(op, dict):
                for key in ("text", "merged_text"):
                    if (cleaned := clean_text(op.get(key))) is not None:
                        texts.append(cleaned)
        if texts:
            embed_texts(texts, self.backend, self.cache)

    def apply_ladder(
        self, playbook: dict[str, Any], operations: list[Any]
    ) -> tuple[dict[str, Any], list[Any]]:
        """Route each ADD (and each UPDATE whose text duplicates another entry)
        through the judged consolidation ladder.

        An ADD near-verbatim to an entry, or judged the same rule, credits that
        entry instead of adding; one judged more specific replaces the entry's
        text (and one judged less specific only credits it). An UPDATE whose new
        text is near-verbatim to, or judged the same as, *another* entry is
        replaced by a credit to that entry. Conflicting, different and unjudged
        pairs are left alone. Every decision is kept for the report. Returns the
        credited playbook and the operations still to apply.
        """
        if self.backend is None:
            return playbook, operations
        from acecode.dedup.ladder import MERGING_RUNGS, apply_decision, decide

        remaining = []
        for op in operations:
            op_type = op.get("type") if isinstance(op, dict) else None
            text = clean_text(op.get("text")) if op_type in ("ADD", "UPDATE") else None
            if text is None:
                remaining.append(op)
                continue
            target = op.get("target_id") if op_type == "UPDATE" else None
            if op_type == "ADD":
                section = _resolve_section(op.get("section"))
            else:
                section = next((s for s, e in iter_entries(playbook) if e["name"] == target), None)
                if section is None:
                    remaining.append(op)  # the operation reports the unknown target
                    continue
            decision = decide(
                text,
                section,
                playbook,
                backend=self.backend,
                cache=self.cache,
                exclude=target,
                verdicts=self.verdicts,
            )
            if op_type == "ADD":
                keep = decision.action == "add"
            else:
                keep = not (decision.action == "credit" and decision.rung in MERGING_RUNGS)
            self.ladder_decisions.append(decision)
            if keep:
                remaining.append(op)
            else:
                playbook = apply_decision(playbook, decision)
        return playbook, remaining

    def deduplicate(self, playbook: dict[str, Any], max_removals: int) -> Any:
        """The judged whole-playbook pass (a ``DedupResult``), or None when unavailable.

        An entry merges into a survivor only when the pair is near-verbatim or
        judged the same rule. Merging away is removing: at most
        ``max_removals`` entries go, the groups beyond that wait for a later
        cycle (the collapse guard).
        """
        if self.backend is None:
            return None
        from acecode.dedup import deduplicate

        return deduplicate(
            playbook,
            backend=self.backend,
            cache=self.cache,
            max_removals=max_removals,
            verdicts=self.verdicts,
        )
