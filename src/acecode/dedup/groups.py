"""Semantic de-duplication of a whole playbook (spec README, "Semantic de-duplication").

Every entry's text is embedded; entries whose similarity is at or above the
threshold are grouped transitively (union-find over all such pairs), across
sections, in canonical section order then list order. The first entry of a
group survives with its name, text and section and the group's summed
counters; the rest are removed. Because survivors keep their own text, two
survivors at or above the threshold would have been joined into one group,
so a single pass leaves no such pair (the postcondition).

That unjudged pass is the spec's library function (:func:`run_deduplication`)
and it merges by similarity alone, which cannot tell a paraphrase from its
opposite ("Use single quotes" / "Use double quotes" score 0.997). The
learning cycle never applies it: it calls :func:`deduplicate` with
``verdicts``, and then an entry is merged into a survivor only when that
pair is near-verbatim or judged ``same`` (no chaining: every merged entry is
judged against the survivor itself, never through a third entry).
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode import events
from acecode.dedup.backends import BackendUnavailable, EmbeddingBackend, load_backend
from acecode.dedup.cache import EmbeddingCache, embed_texts
from acecode.dedup.similarity import similarity_matrix
from acecode.dedup.verbatim import verbatim_key
from acecode.dedup.verdicts import Verdicts
from acecode.playbook.schema import iter_entries

if TYPE_CHECKING:
    import numpy as np

THRESHOLD_ENV = "AGENTIC_CONTEXT_DEDUP_THRESHOLD"
DEFAULT_THRESHOLD = 0.85


def resolve_threshold(threshold: float | None = None) -> float:
    """Explicit argument, else ``$AGENTIC_CONTEXT_DEDUP_THRESHOLD``, else 0.85; clamped to [0, 1].

    A value in the environment that is not a number falls back to the default
    with one warning: a typo must not switch de-duplication off or make it
    merge everything.
    """
    if threshold is None:
        raw = os.environ.get(THRESHOLD_ENV)
        if raw is None or not raw.strip():
            return DEFAULT_THRESHOLD
        try:
            threshold = float(raw)
        except ValueError:
            threshold = math.nan
        if math.isnan(threshold):
            events.warning(f"{THRESHOLD_ENV}={raw!r} is not a number; using {DEFAULT_THRESHOLD}")
            return DEFAULT_THRESHOLD
    value = float(threshold)
    if math.isnan(value):
        raise ValueError("threshold must be a number, not NaN")
    return min(1.0, max(0.0, value))


@dataclass(frozen=True)
class EntryRef:
    """Where an entry was in the playbook handed to the de-duplicator."""

    section: str
    name: str
    text: str


@dataclass(frozen=True)
class MergedEntry:
    """A removed entry and how close it was to the survivor."""

    entry: EntryRef
    similarity_to_survivor: float
    linked_by: float  # highest similarity to any other member: why it joined
    basis: str | None = None  # judged pass: "near-verbatim" or "judged same"


@dataclass(frozen=True)
class DuplicateGroup:
    """One transitive group: the survivor and what was merged into it."""

    survivor: EntryRef
    merged: tuple[MergedEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the curation report."""
        return {
            "kept": self.survivor.name,
            "section": self.survivor.section,
            "merged": [
                {
                    "name": m.entry.name,
                    "section": m.entry.section,
                    "similarity": round(m.similarity_to_survivor, 4),
                    "linked_by": round(m.linked_by, 4),
                    **({"basis": m.basis} if m.basis else {}),
                }
                for m in self.merged
            ],
        }


@dataclass
class DedupResult:
    """Outcome of one de-duplication pass."""

    playbook: dict[str, Any]
    threshold: float
    groups: list[DuplicateGroup] = field(default_factory=list)
    deferred: list[DuplicateGroup] = field(default_factory=list)  # over ``max_removals``
    skipped: str | None = None  # why nothing was computed, if so
    model_id: str | None = None
    judged: bool = False  # grouped by verdicts, not by the threshold

    @property
    def removed(self) -> int:
        """How many entries were merged away."""
        return sum(len(g.merged) for g in self.groups)


def _union_find_groups(sims: np.ndarray, threshold: float) -> list[list[int]]:
    """Transitive groups (sorted lists of indices) of size >= 2."""
    import numpy as np

    n = sims.shape[0]
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(root(i), []).append(i)
    return [m for m in members.values() if len(m) > 1]


def _judged_groups(texts: list[str], verdicts: Verdicts) -> list[list[int]]:
    """Star groups: each member near-verbatim or judged ``same`` as the group's first entry.

    An entry that only matches a member (not the survivor) stays out: no chaining.
    """
    by_key: dict[str, list[int]] = {}
    for index, text in enumerate(texts):
        by_key.setdefault(verbatim_key(text), []).append(index)
    positions: dict[str, list[int]] = {}
    for index, text in enumerate(texts):
        positions.setdefault(text, []).append(index)
    judged_same: dict[int, set[int]] = {}
    for verdict in verdicts:
        if verdict.verdict == "same":
            for i in positions.get(verdict.first, ()):
                for j in positions.get(verdict.second, ()):
                    judged_same.setdefault(i, set()).add(j)
                    judged_same.setdefault(j, set()).add(i)
    taken: set[int] = set()
    groups: list[list[int]] = []
    for index, text in enumerate(texts):
        if index in taken:
            continue
        matches = set(by_key[verbatim_key(text)]) | judged_same.get(index, set())
        members = [index, *sorted(j for j in matches if j > index and j not in taken)]
        if len(members) > 1:
            taken.update(members)
            groups.append(members)
    return groups


def deduplicate(
    playbook: dict[str, Any],
    threshold: float | None = None,
    *,
    backend: EmbeddingBackend | None = None,
    cache: EmbeddingCache | None = None,
    max_removals: int | None = None,
    verdicts: Verdicts | None = None,
) -> DedupResult:
    """De-duplicate a copy of ``playbook`` and say what was merged.

    ``backend`` defaults to the configured one (:func:`load_backend`), loaded
    only when there are two entries or more. ``cache=None`` embeds without a
    cache; the pipeline passes ``EmbeddingCache.for_playbook(path)``. When no
    backend can run, the copy is returned unchanged with ``skipped`` set and
    one warning on stderr.

    ``max_removals`` is the learning cycle's collapse guard: groups are merged
    in order while the entries they remove fit; a group that does not fit is
    left for a later cycle and listed in ``deferred`` (the postcondition then
    holds for every group that was merged).

    ``verdicts`` makes it the judged pass of the learning cycle (module doc):
    groups come from :func:`_judged_groups`, the threshold plays no part and
    similarities are only reported.
    """
    result_playbook = copy.deepcopy(playbook)
    limit = resolve_threshold(threshold)
    located = list(iter_entries(result_playbook))
    if len(located) < 2:
        return DedupResult(result_playbook, limit, skipped="fewer than two entries")
    if backend is None:
        try:
            backend = load_backend()
        except BackendUnavailable as exc:
            events.warning(f"semantic de-duplication skipped: no embedding backend ({exc})")
            return DedupResult(result_playbook, limit, skipped=f"no embedding backend: {exc}")

    import numpy as np

    texts = [str(entry.get("text", "")) for _, entry in located]
    vectors = embed_texts(texts, backend, cache)
    sims = similarity_matrix(vectors, backend.paraphrase_cosine, texts)
    groups: list[DuplicateGroup] = []
    doomed: set[int] = set()
    deferred: list[DuplicateGroup] = []
    grouped = (
        _judged_groups(texts, verdicts) if verdicts is not None else _union_find_groups(sims, limit)
    )
    for members in grouped:
        keep, rest = members[0], members[1:]
        fits = max_removals is None or len(doomed) + len(rest) <= max_removals
        if fits:
            survivor = located[keep][1]
            for i in rest:
                gone = located[i][1]
                survivor["helpful"] = int(survivor.get("helpful", 0)) + int(gone.get("helpful", 0))
                survivor["harmful"] = int(survivor.get("harmful", 0)) + int(gone.get("harmful", 0))
                doomed.add(id(gone))
        within = sims[np.ix_(members, members)].copy()
        np.fill_diagonal(within, -np.inf)
        linked_by = within.max(axis=1)
        (groups if fits else deferred).append(
            DuplicateGroup(
                survivor=_ref(located[keep]),
                merged=tuple(
                    MergedEntry(
                        entry=_ref(located[i]),
                        similarity_to_survivor=float(sims[keep, i]),
                        linked_by=float(linked_by[k]),
                        basis=_basis(texts[keep], texts[i]) if verdicts is not None else None,
                    )
                    for k, i in enumerate(rest, start=1)
                ),
            )
        )
    if doomed:
        sections = result_playbook["sections"]
        for name in {section for section, _ in located}:
            sections[name] = [e for e in sections[name] if id(e) not in doomed]
    return DedupResult(
        result_playbook,
        limit,
        groups=groups,
        deferred=deferred,
        model_id=backend.model_id,
        judged=verdicts is not None,
    )


def _basis(survivor: str, merged: str) -> str:
    """Why a judged pass merged ``merged`` into ``survivor``."""
    return "near-verbatim" if verbatim_key(survivor) == verbatim_key(merged) else "judged same"


def _ref(located: tuple[str, dict[str, Any]]) -> EntryRef:
    section, entry = located
    return EntryRef(
        section=section, name=str(entry.get("name", "")), text=str(entry.get("text", ""))
    )


def find_duplicate_groups(
    playbook: dict[str, Any],
    threshold: float | None = None,
    *,
    backend: EmbeddingBackend | None = None,
    cache: EmbeddingCache | None = None,
) -> list[DuplicateGroup]:
    """The groups a de-duplication pass would merge (for reports and previews)."""
    return deduplicate(playbook, threshold, backend=backend, cache=cache).groups


def run_deduplication(
    playbook: dict[str, Any],
    threshold: float | None = None,
    *,
    backend: EmbeddingBackend | None = None,
    cache: EmbeddingCache | None = None,
) -> dict[str, Any]:
    """The spec's ``run_deduplication``: a de-duplicated copy; the input is never changed.

    Unjudged: it merges every group at or above the threshold by similarity
    alone, so it can merge a rule with its opposite (MiniLM rates "Use single
    quotes ..." and "Use double quotes ..." at 0.997). It keeps the spec's
    contract as a library function; the learning cycle does not apply it
    blindly but runs :func:`deduplicate` with the judge's ``verdicts``
    (docs/dedup.md, "Judge").
    """
    return deduplicate(playbook, threshold, backend=backend, cache=cache).playbook
