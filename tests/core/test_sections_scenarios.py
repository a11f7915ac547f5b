"""Sections spec (sections-spec.md): IDs, formatting, categorisation, evaluations.

Scenarios that need a file (migration, round trip) live in tests/store.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from pbhelpers import diagnostics

import acecode
from acecode.playbook.formatting import format_key_points, format_playbook
from acecode.playbook.operations import apply_structured_operations
from acecode.playbook.schema import (
    SECTION_NAMES,
    SECTION_SLUGS,
    _resolve_section,
    empty_playbook,
    generate_keypoint_name,
)
from acecode.playbook.scoring import update_playbook_data
from support.playbooks import CTX, MIS, OTH, PAT, PREF, find, make_playbook, names
from support.playbooks import entry as kp


def test_req_sect_010_section_slugs_canonical_order() -> None:
    assert list(SECTION_SLUGS.items()) == [
        ("PATTERNS & APPROACHES", "pat"),
        ("MISTAKES TO AVOID", "mis"),
        ("USER PREFERENCES", "pref"),
        ("PROJECT CONTEXT", "ctx"),
        ("OTHERS", "oth"),
    ]
    assert acecode.SECTION_SLUGS is SECTION_SLUGS
    assert tuple(SECTION_SLUGS) == SECTION_NAMES


# --- SCN-SECT-002: IDs ----------------------------------------------------------------------------


def test_scn_sect_002_01_first_id_for_empty_section() -> None:
    assert generate_keypoint_name([], "pat") == "pat-001"


def test_scn_sect_002_02_next_id_after_existing_entries() -> None:
    entries = [kp("pat-001", "a"), kp("pat-003", "b")]
    assert generate_keypoint_name(entries, "pat") == "pat-004"


def test_scn_sect_002_03_legacy_kpt_ids_ignored_in_counter() -> None:
    entries = [kp("kpt_001", "a"), kp("kpt_005", "b"), kp("oth-002", "c")]
    assert generate_keypoint_name(entries, "oth") == "oth-003"


def test_generate_keypoint_name_matches_only_the_exact_slug_pattern() -> None:
    entries = [kp("pref-009", "a"), kp("xpat-050", "b"), kp("pat-007x", "c"), kp("pat-002", "d")]
    assert generate_keypoint_name(entries, "pat") == "pat-003"
    assert generate_keypoint_name([kp("pat-999", "a")], "pat") == "pat-1000"


# --- SCN-SECT-003: formatting ---------------------------------------------------------------------

SCN_003_01_BLOCK = """\
## PATTERNS & APPROACHES
[pat-001] helpful=5 harmful=1 :: use type hints

## USER PREFERENCES
[pref-001] helpful=2 harmful=0 :: prefer pathlib

## OTHERS
[kpt_001] helpful=0 harmful=0 :: legacy point"""


def test_scn_sect_003_01_format_playbook_with_multiple_sections() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "use type hints", 5, 1)],
        pref=[kp("pref-001", "prefer pathlib", 2, 0)],
        oth=[kp("kpt_001", "legacy point")],
    )
    assert format_key_points(playbook) == SCN_003_01_BLOCK
    text = format_playbook(playbook)
    assert SCN_003_01_BLOCK in text
    assert "## MISTAKES TO AVOID" not in text
    assert "## PROJECT CONTEXT" not in text
    assert "{key_points}" not in text
    # The template frames the block and asks for citations like [pat-001].
    assert text != SCN_003_01_BLOCK
    assert re.search(r"cite.*\[pat-001\]", text, re.IGNORECASE | re.DOTALL)


def test_scn_sect_003_02_format_empty_playbook_returns_empty_string() -> None:
    assert format_playbook(empty_playbook()) == ""
    assert format_playbook(make_playbook()) == ""


def test_scn_sect_003_02_empty_playbook_never_loads_the_template(home_dir: Path) -> None:
    # A broken user override would show up if the template were loaded.
    prompts = home_dir / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "playbook.txt").write_text("OVERRIDE {key_points}", encoding="utf-8")
    assert format_playbook(make_playbook()) == ""
    assert format_playbook(make_playbook(oth=[kp("oth-001", "x")])).startswith("OVERRIDE ## OTHERS")


def test_scn_sect_003_03_format_output_overhead_within_20_percent() -> None:
    sections = {}
    for section, slug in SECTION_SLUGS.items():
        sections[slug] = [
            kp(f"{slug}-{i:03d}", f"key point {i} of {section.lower()}: keep functions small", i, 0)
            for i in range(1, 5)
        ]
    playbook = make_playbook(**sections)
    flat = "\n".join(
        f"[{e['name']}] helpful={e['helpful']} harmful={e['harmful']} :: {e['text']}"
        for section in SECTION_NAMES
        for e in playbook["sections"][section]
    )
    sectioned = format_key_points(playbook)
    assert sum(len(e) for e in playbook["sections"].values()) == 20
    assert len(sectioned) <= 1.2 * len(flat)


def test_format_playbook_keeps_braces_and_section_order() -> None:
    playbook = make_playbook(
        oth=[kp("oth-001", "use {x} and {key_points} literally")],
        pat=[kp("pat-001", "first")],
        ctx=[kp("ctx-001", "ctx")],
    )
    block = format_key_points(playbook)
    assert block.index("## PATTERNS") < block.index("## PROJECT CONTEXT") < block.index("## OTHERS")
    assert "use {x} and {key_points} literally" in format_playbook(playbook)


# --- SCN-SECT-004: categorisation of new_key_points -----------------------------------------------


def test_scn_sect_004_01_dict_with_valid_section() -> None:
    result = update_playbook_data(
        make_playbook(),
        {"new_key_points": [{"text": "avoid globals", "section": "MISTAKES TO AVOID"}]},
    )
    assert result["sections"][MIS] == [kp("mis-001", "avoid globals")]


def test_scn_sect_004_02_dict_with_unknown_section(diagnostic_mode: Path) -> None:
    result = update_playbook_data(
        make_playbook(oth=[kp("oth-004", "old")]),
        {"new_key_points": [{"text": "some tip", "section": "RANDOM STUFF"}]},
    )
    assert result["sections"][OTH][-1] == kp("oth-005", "some tip")
    assert all(not result["sections"][s] for s in (PAT, MIS, PREF, CTX))
    logged = diagnostics(diagnostic_mode, "sections_unknown_section")
    assert len(logged) == 1
    assert "OBS-SECT-002" in logged[0] and "RANDOM STUFF" in logged[0]


def test_scn_sect_004_03_plain_string_backward_compat() -> None:
    result = update_playbook_data(make_playbook(), {"new_key_points": ["use structured logging"]})
    assert result["sections"][OTH] == [kp("oth-001", "use structured logging")]


def test_scn_sect_004_04_case_mismatch_and_whitespace(diagnostic_mode: Path) -> None:
    result = update_playbook_data(
        make_playbook(),
        {
            "new_key_points": [
                {"text": "use patterns", "section": "patterns & approaches"},
                {"text": "another pattern", "section": "  patterns & approaches  "},
            ]
        },
    )
    assert result["sections"][PAT] == [
        kp("pat-001", "use patterns"),
        kp("pat-002", "another pattern"),
    ]
    assert diagnostics(diagnostic_mode, "sections_unknown_section") == []


def test_scn_sect_004_05_missing_null_or_empty_section(diagnostic_mode: Path) -> None:
    result = update_playbook_data(
        make_playbook(),
        {
            "new_key_points": [
                {"text": "Some insight"},
                {"text": "Another", "section": None},
                {"text": "Third", "section": ""},
                {"text": "Fourth", "section": "   "},
            ]
        },
    )
    assert result["sections"][OTH] == [
        kp("oth-001", "Some insight"),
        kp("oth-002", "Another"),
        kp("oth-003", "Third"),
        kp("oth-004", "Fourth"),
    ]
    assert diagnostics(diagnostic_mode, "sections_unknown_section") == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("MISTAKES TO AVOID", MIS),
        ("user preferences", PREF),
        ("\tProject Context\n", CTX),
        ("OTHERS", OTH),
        ("", OTH),
        ("  ", OTH),
        (None, OTH),
        (42, OTH),
        (["PATTERNS & APPROACHES"], OTH),
        ("PATTERNS", OTH),
        ("PATTERNS &  APPROACHES", OTH),
    ],
)
def test_resolve_section_is_stripped_case_insensitive_exact_match(
    raw: object, expected: str
) -> None:
    assert _resolve_section(raw) == expected


# --- SCN-SECT-008: evaluations and pruning across sections ----------------------------------------


def test_scn_sect_008_01_evaluation_finds_key_point_across_sections() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "use types", 3, 1)], oth=[kp("kpt_001", "legacy tip", 0, 0)]
    )
    result = update_playbook_data(
        playbook,
        {
            "evaluations": [
                {"name": "pat-001", "rating": "helpful"},
                {"name": "kpt_001", "rating": "harmful"},
            ]
        },
    )
    assert find(result, "pat-001") == (PAT, kp("pat-001", "use types", 4, 1))
    assert find(result, "kpt_001") == (OTH, kp("kpt_001", "legacy tip", 0, 1))


def test_scn_sect_008_02_pruning_removes_entry_from_correct_section() -> None:
    playbook = make_playbook(
        mis=[kp("mis-001", "bad advice", 1, 4)], oth=[kp("kpt_001", "good tip", 5, 0)]
    )
    result = update_playbook_data(playbook, {})
    assert result["sections"][MIS] == []
    assert result["sections"][OTH] == [kp("kpt_001", "good tip", 5, 0)]


def test_evaluation_ratings_neutral_unknown_and_case() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "a", 1, 1)], oth=[kp("oth-001", "b")])
    result = update_playbook_data(
        playbook,
        {
            "evaluations": [
                {"name": "pat-001", "rating": "neutral"},
                {"name": "pat-001", "rating": "very helpful"},
                {"name": "pat-001", "rating": " Helpful "},
                {"name": "oth-001", "rating": "HARMFUL"},
                {"name": "pat-404", "rating": "helpful"},
                {"name": "oth-001"},
                {"rating": "helpful"},
                "pat-001",
                None,
            ]
        },
    )
    assert find(result, "pat-001")[1] == kp("pat-001", "a", 2, 1)
    assert find(result, "oth-001")[1] == kp("oth-001", "b", 0, 1)
    assert names(result) == ["pat-001", "oth-001"]


# --- INV-SECT-002/003/005 on the core path --------------------------------------------------------


def test_inv_sect_002_section_names_from_canonical_set() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "a")])
    result = update_playbook_data(
        playbook,
        {
            "operations": [
                {"type": "ADD", "text": "x", "section": "NEW SECTION"},
                {"type": "ADD", "text": "y", "section": "project context"},
                {"type": "MERGE", "source_ids": ["pat-001", "oth-001"], "merged_text": "z"},
            ]
        },
    )
    assert list(result["sections"]) == list(SECTION_NAMES)
    result = update_playbook_data(playbook, {"new_key_points": [{"text": "t", "section": "Misc"}]})
    assert list(result["sections"]) == list(SECTION_NAMES)


def test_inv_sect_003_counter_non_negativity() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "a", 0, 0)], oth=[kp("oth-001", "b", 2, 1)])
    result = update_playbook_data(
        playbook,
        {
            "operations": [
                {"type": "ADD", "text": "c"},
                {"type": "MERGE", "source_ids": ["pat-001", "oth-001"], "merged_text": "ab"},
            ],
            "evaluations": [{"name": "pat-002", "rating": "neutral"}],
        },
    )
    for section in SECTION_NAMES:
        for entry in result["sections"][section]:
            assert entry["helpful"] >= 0 and entry["harmful"] >= 0
    assert find(result, "pat-002") == (PAT, kp("pat-002", "ab", 2, 1))


def test_inv_sect_005_section_slug_id_prefix_consistency() -> None:
    playbook = make_playbook(oth=[kp("kpt_001", "legacy"), kp("kpt_007", "legacy 2")])
    ops = [{"type": "ADD", "text": f"tip {s}", "section": s} for s in SECTION_NAMES]
    ops.append({"type": "ADD", "text": "another other"})
    result = apply_structured_operations(playbook, ops)
    for section, slug in SECTION_SLUGS.items():
        new = [n for n in names(result, section) if not n.startswith("kpt_")]
        assert new and all(re.fullmatch(rf"{slug}-\d{{3}}", n) for n in new)
    assert names(result, OTH) == ["kpt_001", "kpt_007", "oth-001", "oth-002"]


def test_ids_unique_across_sections_with_hand_edited_names() -> None:
    # Design reading: counters come from the whole playbook, so an oddly placed
    # pat-005 under OTHERS never gets a twin in PATTERNS & APPROACHES.
    playbook = make_playbook(oth=[kp("pat-005", "misplaced")], pat=[kp("pat-001", "a")])
    result = apply_structured_operations(playbook, [{"type": "ADD", "text": "b", "section": PAT}])
    assert names(result, PAT) == ["pat-001", "pat-006"]


def test_ids_never_reused_within_one_call() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "a"), kp("pat-002", "b")])
    result = apply_structured_operations(
        playbook,
        [
            {"type": "DELETE", "target_id": "pat-002"},
            {"type": "ADD", "text": "c", "section": PAT},
        ],
    )
    assert names(result, PAT) == ["pat-001", "pat-003"]


def test_new_key_points_are_not_capped_at_ten() -> None:
    points = [f"point {i}" for i in range(15)]
    result = update_playbook_data(make_playbook(), {"new_key_points": points})
    assert len(result["sections"][OTH]) == 15


def test_new_key_points_skip_invalid_and_duplicate_items() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "known")])
    before = copy.deepcopy(playbook)
    result = update_playbook_data(
        playbook,
        {
            "new_key_points": [
                "known",
                "  fresh  ",
                "fresh",
                "",
                {"section": "OTHERS"},
                {"text": 7},
                42,
                None,
            ]
        },
    )
    assert playbook == before
    assert result["sections"][OTH] == [kp("oth-001", "fresh")]
