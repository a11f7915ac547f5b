"""Fuzzing the operation validator: curator operations and extraction results of any shape.

``apply_operations_with_outcomes`` and ``update_playbook_data`` take what an
LLM produced. Whatever that is, they must not raise, must not take the
exception-rollback path (an input the validator did not foresee), must leave
the caller's playbook untouched and must return a valid playbook: the four
entry keys, unique names, non-empty texts, non-negative counters, and a file
the store can write and load back.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from typing import Any

from fuzz_counts import ran
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.playbook.operations import MAX_OPERATIONS, apply_operations_with_outcomes
from acecode.playbook.schema import ENTRY_KEYS, SECTION_NAMES, SECTION_SLUGS
from acecode.playbook.scoring import update_playbook_data
from acecode.store import serialize_playbook
from acecode.store.migrate import migrate_playbook

FUZZ = settings(
    max_examples=600,
    deadline=None,  # no wall-clock limits in tests: a loaded machine must not fail them
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ROLLBACK = "applying curator operations failed"

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
ANY_JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def playbooks(draw: st.DrawFn) -> dict[str, Any]:
    """A valid playbook with unique names following (mostly) the slug-NNN pattern."""
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    used: set[str] = set()
    for section in SECTION_NAMES:
        for _ in range(draw(st.integers(0, 4))):
            name = draw(
                st.one_of(
                    st.integers(1, 30).map(lambda n, s=section: f"{SECTION_SLUGS[s]}-{n:03d}"),
                    st.sampled_from(["kpt_001", "custom", "pat-1000", "mis-"]),
                )
            )
            if name in used:
                continue
            used.add(name)
            text = draw(st.text(min_size=1, max_size=40).filter(str.strip))
            sections[section].append(
                {
                    "name": name,
                    "text": text,
                    "helpful": draw(st.integers(0, 5)),
                    "harmful": draw(st.integers(0, 5)),
                }
            )
    return {"version": "1.0", "last_updated": None, "sections": sections}


NAMES = st.one_of(
    st.sampled_from(["pat-001", "mis-002", "pref-003", "ctx-004", "oth-005", "kpt_001", "custom"]),
    ANY_JSON,
)
SECTIONS = st.one_of(
    st.sampled_from([*SECTION_NAMES, "patterns & approaches", " OTHERS ", "Mistakes", ""]),
    ANY_JSON,
)
TEXTS = st.one_of(st.text(max_size=60), st.just("   "), ANY_JSON)
OPERATION = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.one_of(
                st.sampled_from(["ADD", "UPDATE", "MERGE", "DELETE", "add", ""]), ANY_JSON
            )
        },
        optional={
            "text": TEXTS,
            "section": SECTIONS,
            "target_id": NAMES,
            "source_ids": st.one_of(st.lists(NAMES, max_size=4), ANY_JSON),
            "merged_text": TEXTS,
            "reason": ANY_JSON,
        },
    ),
    ANY_JSON,
)
OPERATIONS = st.one_of(st.lists(OPERATION, max_size=14), ANY_JSON)
EXTRACTION = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "operations": OPERATIONS,
            "new_key_points": st.one_of(
                st.lists(
                    st.one_of(
                        TEXTS,
                        st.fixed_dictionaries({}, optional={"text": TEXTS, "section": SECTIONS}),
                    )
                ),
                ANY_JSON,
            ),
            "evaluations": st.one_of(
                st.lists(
                    st.one_of(
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "name": NAMES,
                                "rating": st.one_of(
                                    st.sampled_from(["helpful", "HARMFUL ", "neutral"]), ANY_JSON
                                ),
                            },
                        ),
                        ANY_JSON,
                    ),
                    max_size=6,
                ),
                ANY_JSON,
            ),
        },
    ),
    ANY_JSON,
)


def _assert_valid(playbook: dict[str, Any]) -> None:
    names = []
    for section in SECTION_NAMES:
        for entry in playbook["sections"][section]:
            assert tuple(entry) == ENTRY_KEYS, entry
            assert isinstance(entry["name"], str) and entry["name"]
            assert isinstance(entry["text"], str) and entry["text"].strip()
            for counter in ("helpful", "harmful"):
                assert isinstance(entry[counter], int) and entry[counter] >= 0
            names.append(entry["name"])
    assert len(names) == len(set(names)), names
    reloaded = migrate_playbook(json.loads(serialize_playbook(playbook)), "fuzz.json")
    assert reloaded["sections"] == playbook["sections"]


def _quietly(func: Any, *args: Any) -> tuple[Any, str]:
    """Call ``func`` capturing the ``acecode: ...`` lines it prints to stderr."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result = func(*args)
    return result, stderr.getvalue()


@FUZZ
@given(playbooks(), OPERATIONS)
def test_fuzz_apply_operations_with_outcomes_any_operations(
    playbook: dict[str, Any], operations: Any
) -> None:
    ran("apply_operations_with_outcomes: arbitrary operations")
    original = copy.deepcopy(playbook)

    (result, outcomes), stderr = _quietly(apply_operations_with_outcomes, playbook, operations)

    assert ROLLBACK not in stderr
    assert playbook == original
    _assert_valid(result)
    expected = min(len(operations), MAX_OPERATIONS) if isinstance(operations, list) else 0
    assert len(outcomes) == expected
    json.dumps([outcome.as_dict() for outcome in outcomes], default=str)


@FUZZ
@given(playbooks(), EXTRACTION)
def test_fuzz_update_playbook_data_any_extraction_result(
    playbook: dict[str, Any], extraction: Any
) -> None:
    ran("update_playbook_data: arbitrary extraction results")
    original = copy.deepcopy(playbook)

    result, stderr = _quietly(update_playbook_data, playbook, extraction)

    assert ROLLBACK not in stderr
    assert playbook == original
    _assert_valid(result)
