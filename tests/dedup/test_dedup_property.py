"""Postcondition as a property: after a pass no two entries are at or above the threshold.

Two hypothesis tests over generated playbooks:
- with the real bundled model (a few dozen examples: each embeds new texts);
- with the deterministic bag-of-words ``HashBackend`` (hundreds of examples,
  thresholds over the whole [0, 1] range), because the real model is too slow
  for that many examples.
Both also check the other invariants: input untouched, counters conserved,
survivors keep name/text/section, order preserved.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.dedup import deduplicate
from acecode.dedup.cache import embed_texts
from acecode.dedup.similarity import similarity_matrix
from acecode.playbook.schema import SECTION_NAMES, iter_entries
from support.embedding_backends import HashBackend

_TIPS = (
    "Run the tests before committing.",
    "Run the test suite before you commit and push.",
    "Run the whole test suite before you push to the remote branch.",
    "Use pathlib.Path instead of os.path for file paths.",
    "Prefer pathlib over os.path.",
    "Never commit API keys to git.",
    "Do not push secrets such as API keys or tokens to the repository.",
    "Keep secrets out of the repository by loading API keys from environment variables.",
    "Quote shell variables to prevent word splitting.",
    "The user prefers tabs in Go files.",
)
_WORDS = ("run", "tests", "commit", "push", "pathlib", "secrets", "keys", "uv", "lint", "docs")


def _playbooks(texts: st.SearchStrategy[str]) -> st.SearchStrategy[dict[str, Any]]:
    entries = st.lists(
        st.tuples(st.sampled_from(SECTION_NAMES), texts, st.integers(0, 5), st.integers(0, 5)),
        max_size=9,
    )

    def build(rows: list[tuple[str, str, int, int]]) -> dict[str, Any]:
        sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
        for i, (section, text, helpful, harmful) in enumerate(rows):
            sections[section].append(
                {"name": f"e-{i:03d}", "text": text, "helpful": helpful, "harmful": harmful}
            )
        return {"version": "1.0", "last_updated": None, "sections": sections}

    return entries.map(build)


def _check_postcondition(pb: dict[str, Any], threshold: float, backend: Any) -> None:
    before = copy.deepcopy(pb)
    result = deduplicate(pb, threshold, backend=backend)
    out = result.playbook
    assert pb == before  # never mutates
    kept = list(iter_entries(out))
    original = {e["name"]: (s, e) for s, e in iter_entries(pb)}
    for section, e in kept:  # survivors keep name, text, section
        assert original[e["name"]][0] == section
        assert original[e["name"]][1]["text"] == e["text"]
    assert [e["name"] for _, e in kept] == [
        n for n in original if n in {e["name"] for _, e in kept}
    ]
    for key in ("helpful", "harmful"):  # counters are conserved
        assert sum(e[key] for _, e in kept) == sum(e[key] for _, e in original.values())
    assert len(kept) + result.removed == len(original)
    if len(kept) > 1:
        texts = [e["text"] for _, e in kept]
        sims = similarity_matrix(
            embed_texts(texts, backend, None), backend.paraphrase_cosine, texts
        )
        n = len(texts)
        assert all(sims[i, j] < threshold for i in range(n) for j in range(i + 1, n))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pb=_playbooks(st.sampled_from(_TIPS)), threshold=st.sampled_from([0.6, 0.75, 0.85, 0.9]))
def test_postcondition_no_pair_at_or_above_threshold_real_model(pb, threshold, real_backend):
    _check_postcondition(pb, threshold, real_backend)


@settings(max_examples=300, deadline=None)
@given(
    pb=_playbooks(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map(" ".join)),
    threshold=st.floats(0.0, 1.0),
)
def test_postcondition_no_pair_at_or_above_threshold_hash_backend(pb, threshold):
    _check_postcondition(pb, threshold, HashBackend())
