"""The labelled paraphrase set: every paraphrase merged, no different pair merged.

Default backend, default threshold, each pair alone in a playbook with its
two entries in different sections (de-duplication is cross-section).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.dedup import deduplicate
from support.playbooks import OTH, PAT, entry, names
from support.playbooks import make_playbook as playbook

PAIRS = json.loads((Path(__file__).parents[1] / "data" / "paraphrase_pairs.json").read_text())[
    "pairs"
]


def test_labelled_set_is_big_enough_and_balanced():
    labels = [p["label"] for p in PAIRS]
    assert len(PAIRS) >= 30
    assert labels.count("paraphrase") >= 15 and labels.count("different") >= 15
    assert set(labels) == {"paraphrase", "different"}


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p['label']}-{i}" for i, p in enumerate(PAIRS)])
def test_labelled_pair_with_default_backend_and_threshold(pair, real_backend):
    pb = playbook(pat=[entry("pat-001", pair["a"], 1)], oth=[entry("oth-001", pair["b"], 1)])
    result = deduplicate(pb, backend=real_backend)
    assert result.threshold == 0.85
    if pair["label"] == "paraphrase":
        assert names(result.playbook) == ["pat-001"], "paraphrase was not merged"
        assert result.playbook["sections"][PAT][0]["helpful"] == 2
    else:
        assert names(result.playbook) == ["pat-001", "oth-001"], "different advice was merged"
        assert result.playbook["sections"][OTH] == pb["sections"][OTH]
