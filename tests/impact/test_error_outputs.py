"""One reader of error lines: real outputs in 32 formats (tests/data/error_outputs.json).

The signature a rule is learned with (the cycle's evidence, through the provenance
file) must be the one ``acecode impact`` computes from the transcript and recall from
the hook's payload, for every case; and the line picked must be the informative one
(the training part, item by item; the held-out part is reported by
``bench/error_lines.py``, never tuned on).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acecode.impact.signature import error_line, evidence_signature, signature_of
from acecode.pipeline.evidence import EvidencePool
from acecode.store.provenance import Evidence
from acecode.transcript.text import clip, strip_ansi

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = json.loads((DATA / "error_outputs.json").read_text(encoding="utf-8"))
ITEMS = CORPUS["items"]
TRAIN = [item for item in ITEMS if item["split"] == "train"]
# What the transcript reader keeps of a tool's output (claude_code/messages.py, codex).
TRANSCRIPT_CHARS = 4_000


def _ids(item: dict[str, Any]) -> str:
    return item["id"]


def learned_signature(item: dict[str, Any]):
    """The signature as a learning cycle records it and a reader gets it back: the
    session's moment, its evidence written to and read from provenance JSON."""
    use = {"kind": "tool_use", "tool_use_id": "t1", "tool_name": item["tool"], "content": ""}
    use["tool_input"] = {"command": item["command"]} if item["command"] else {}
    result = {"kind": "tool_result", "tool_use_id": "t1", "is_error": True}
    pool = EvidencePool.collect([use, {**result, "content": item["output"]}])
    (moment,) = pool.failures
    stored = json.loads(json.dumps(moment.evidence))
    return evidence_signature(Evidence.from_dict(stored))


def test_the_corpus_has_15_formats_and_its_held_out_third_is_fixed_by_the_script() -> None:
    sys.path.insert(0, str(DATA))
    from split_corpus import apply_split

    assert len({item["class"] for item in ITEMS}) >= 15
    assert len({item["class"] for item in ITEMS if item["source"] == "generated"}) >= 15
    assert CORPUS["split"]["seed"] == 26 and CORPUS["split"]["by"] == "class"
    again = apply_split(json.loads(json.dumps(CORPUS)))
    assert [item["split"] for item in again["items"]] == [item["split"] for item in ITEMS]
    for item in ITEMS:
        lines = [line.strip() for line in item["output"].splitlines()]
        assert item["accept"] and all(any(a in line for line in lines) for a in item["accept"])
        if item["source"] == "generated":  # no path of the machine that ran the tools
            assert not re.search(r"/(?:tmp|work|root)/", item["output"]), item["id"]


@pytest.mark.parametrize("item", ITEMS, ids=_ids)
def test_the_signature_learned_is_the_one_impact_and_recall_compute_later(item) -> None:
    whole = signature_of(item["tool"], item["command"], item["output"])
    in_transcript = clip(strip_ansi(item["output"]), TRANSCRIPT_CHARS)
    assert learned_signature(item) == whole
    assert signature_of(item["tool"], item["command"], in_transcript) == whole


@pytest.mark.parametrize("item", TRAIN, ids=_ids)
def test_the_error_line_is_the_informative_one(item) -> None:
    line = error_line(item["output"])
    assert any(accepted in line for accepted in item["accept"]), line


@pytest.mark.parametrize("item", ITEMS, ids=_ids)
def test_exit_code_alone_only_when_the_output_has_nothing_else(item) -> None:
    line = error_line(item["output"])
    if re.fullmatch(r"Exit code \d+", line):
        assert all(accepted.startswith("Exit code") for accepted in item["accept"])


@given(
    st.sampled_from(ITEMS),
    st.lists(
        st.sampled_from(["ok", "building module", "   at frame (x.js:1:2)", ""]), max_size=400
    ),
)
def test_a_long_output_gives_the_same_line_whole_and_clipped(item, filler) -> None:
    # A hook sees an output whole; the transcript keeps its head and tail. Both readers
    # must pick the same line, whatever sits in the middle.
    lines = item["output"].splitlines()
    middle = len(lines) // 2
    output = "\n".join([*lines[:middle], *filler, *lines[middle:]])
    assert error_line(clip(output, TRANSCRIPT_CHARS)) == error_line(output)


@pytest.mark.parametrize("item", ITEMS, ids=_ids)
def test_the_line_read_again_alone_is_itself(item) -> None:
    line = error_line(item["output"])
    assert error_line(line) == line
