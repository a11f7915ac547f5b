"""tests/data/rule_pairs.json (issue 11): sizes, coverage, and the recorded holdout split."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

DATA = json.loads((Path(__file__).parents[1] / "data" / "rule_pairs.json").read_text())
PAIRS = DATA["pairs"]
KINDS = ("paraphrase", "different", "contradicting")
DOMAINS = {"python", "js", "go", "rust", "sql", "docker", "kubernetes", "git", "ci"}


def test_at_least_100_pairs_per_list_over_every_domain() -> None:
    counts = Counter(pair["kind"] for pair in PAIRS)
    assert all(counts[kind] >= 100 for kind in KINDS), counts
    for kind in KINDS:
        assert {p["domain"] for p in PAIRS if p["kind"] == kind} == DOMAINS
    assert sum(bool(p.get("one_word_swap")) for p in PAIRS if p["kind"] == "contradicting") >= 50
    assert len({(p["a"], p["b"]) for p in PAIRS}) == len(PAIRS)
    assert len({p["id"] for p in PAIRS}) == len(PAIRS)


def test_the_holdout_third_is_the_recorded_seeded_shuffle() -> None:
    rng = random.Random(DATA["split"]["seed"])
    expected = set()
    for kind in KINDS:
        ids = [p["id"] for p in PAIRS if p["kind"] == kind]
        rng.shuffle(ids)
        expected.update(ids[: len(ids) // 3])
    assert {p["id"] for p in PAIRS if p["split"] == "holdout"} == expected
    assert {p["split"] for p in PAIRS} == {"holdout", "train"}
