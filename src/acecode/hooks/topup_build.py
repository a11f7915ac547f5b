"""The top-up index a cache miss builds: the entries the session start left out, in rank,
preformatted, with the BM25 postings that score a prompt against them
(:mod:`acecode.playbook.relevance`); :mod:`acecode.hooks.topup` reads it per prompt."""

from __future__ import annotations

from typing import Any


def topup_index_of(playbook: dict[str, Any], left_out: list[Any]) -> dict[str, Any]:
    """The top-up candidates (the left-out entries, best first) and their postings."""
    from acecode.playbook.injection import topup_items
    from acecode.playbook.relevance import build_index
    from acecode.playbook.schema import SECTION_NAMES, iter_entries

    texts: list[str] = []
    position: dict[int, int] = {}
    for _section, entry in iter_entries(playbook):
        position[id(entry)] = len(texts)
        texts.append(entry["text"])
    from acecode.experiments.plan import entry_version

    items = topup_items(left_out)
    return {
        "section_order": list(SECTION_NAMES),
        "sections": [item.section for item in items],
        "names": [item.name for item in items],
        "versions": [entry_version(ranked.entry) for ranked in left_out],
        "lines": [item.line for item in items],
        "relevance": build_index(texts, [position[id(r.entry)] for r in left_out]),
    }
