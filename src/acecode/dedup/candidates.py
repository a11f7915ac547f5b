"""Which pairs of texts the judge is asked about: embeddings only propose.

A pair is proposed when its calibrated similarity is at or above the judge
floor (``judge_floor``, recall-oriented: low enough that every paraphrase of
the training pairs clears it; see docs/dedup.md for the measurement). Pairs
that need no verdict are left out: near-verbatim ones (they merge anyway) and
those judged in an earlier cycle. What is left is ordered so the pairs that
decide this cycle come first:

1. every text the curator proposes (ADD, UPDATE, MERGE) against the
   playbook's entries, the texts folded into them earlier (``folded``: a
   conflict with one of those is a conflict with its entry) and the other
   proposed texts, at most ``max_neighbours`` per proposed text, most
   similar first;
2. pairs of entries already in the playbook (the whole-playbook pass),
   most similar first.

and cut at ``max_pairs``: what does not fit is proposed again next cycle and,
until judged, only merges if near-verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from acecode.dedup.backends import EmbeddingBackend
from acecode.dedup.cache import EmbeddingCache, embed_texts
from acecode.dedup.similarity import similarity_matrix
from acecode.dedup.verbatim import verbatim_key
from acecode.dedup.verdicts import Verdicts

DEFAULT_MAX_NEIGHBOURS = 5


@dataclass(frozen=True)
class ProposedText:
    """A text the curator proposes, and the entry texts it replaces (never compared)."""

    text: str
    replaces: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class CandidatePair:
    """Two texts for the judge: ``first`` is the older (the entry), ``second`` the newer."""

    first: str
    second: str
    similarity: float
    proposed: bool  # involves a text the curator proposed in this cycle


def propose_pairs(
    existing: Sequence[str],
    proposed: Sequence[ProposedText],
    *,
    backend: EmbeddingBackend,
    cache: EmbeddingCache | None,
    floor: float,
    max_pairs: int,
    known: Verdicts | None = None,
    max_neighbours: int = DEFAULT_MAX_NEIGHBOURS,
    folded: Sequence[str] = (),
) -> list[CandidatePair]:
    """The pairs to send to the judge, in the order of the module doc."""
    import numpy as np

    entries = list(dict.fromkeys(existing))
    old = entries + [text for text in dict.fromkeys(folded) if text not in set(entries)]
    new: list[ProposedText] = []
    seen = set(old)
    for item in proposed:
        if item.text not in seen:
            seen.add(item.text)
            new.append(item)
    replaced = frozenset().union(*(p.replaces for p in new))
    texts = old + [p.text for p in new]
    if len(texts) < 2 or max_pairs <= 0:
        return []
    sims = similarity_matrix(embed_texts(texts, backend, cache), backend.paraphrase_cosine, texts)
    keys = [verbatim_key(text) for text in texts]
    known = known or Verdicts()

    def wanted(i: int, j: int) -> bool:
        return sims[i, j] >= floor and keys[i] != keys[j] and (texts[i], texts[j]) not in known

    fresh: list[CandidatePair] = []
    for offset, item in enumerate(new):
        j = len(old) + offset
        order = [int(i) for i in np.argsort(-sims[j], kind="stable")]
        # i < j: a pair of two proposed texts is proposed once, with the later one.
        neighbours = [i for i in order if i < j and texts[i] not in item.replaces and wanted(i, j)]
        fresh += [
            CandidatePair(texts[i], texts[j], float(sims[i, j]), True)
            for i in neighbours[:max_neighbours]
        ]
    fresh.sort(key=lambda pair: -pair.similarity)
    rows, cols = np.nonzero(np.triu(sims[: len(entries), : len(entries)] >= floor, k=1))
    settled = [
        CandidatePair(texts[i], texts[j], float(sims[i, j]), False)
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
        if wanted(i, j) and not {texts[i], texts[j]} & replaced
    ]
    settled.sort(key=lambda pair: -pair.similarity)
    return (fresh + settled)[:max_pairs]


def propose_against(
    references: Sequence[str],
    texts: Sequence[str],
    *,
    backend: EmbeddingBackend,
    cache: EmbeddingCache | None,
    floor: float,
    known: Verdicts | None = None,
    max_neighbours: int = DEFAULT_MAX_NEIGHBOURS,
) -> list[CandidatePair]:
    """Pairs of each of ``texts`` with its most similar ``references`` (at or above
    ``floor``, not near-verbatim, not judged yet; at most ``max_neighbours`` each), most
    similar first: ``first`` is the reference (an instruction), ``second`` the text.

    References are never paired with each other: they are another author's (a
    CLAUDE.md), not the playbook's to de-duplicate.
    """
    refs = list(dict.fromkeys(references))
    news = [text for text in dict.fromkeys(texts) if text not in set(refs)]
    if not refs or not news:
        return []
    import numpy as np

    all_texts = refs + news
    sims = similarity_matrix(
        embed_texts(all_texts, backend, cache), backend.paraphrase_cosine, all_texts
    )
    keys = [verbatim_key(text) for text in all_texts]
    known = known or Verdicts()
    pairs: list[CandidatePair] = []
    for offset, text in enumerate(news):
        j = len(refs) + offset
        order = [int(i) for i in np.argsort(-sims[j, : len(refs)], kind="stable")]
        near = [
            i
            for i in order
            if sims[i, j] >= floor and keys[i] != keys[j] and (refs[i], text) not in known
        ]
        pairs += [
            CandidatePair(refs[i], text, float(sims[i, j]), True) for i in near[:max_neighbours]
        ]
    pairs.sort(key=lambda pair: -pair.similarity)
    return pairs
