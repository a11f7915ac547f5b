"""Curator operations (curator-spec.md, curator-design.md, curator-contract.md).

Every SCN-CUR-*/INV-CUR-* that does not need an LLM, named after its ID, plus
the OBS-CUR-* diagnostics each one promises in diagnostic mode.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from pbhelpers import diagnostics

from acecode.playbook import operations
from acecode.playbook.operations import (
    MAX_OPERATIONS,
    _apply_curator_operations,
    apply_operations_with_outcomes,
    apply_structured_operations,
)
from acecode.playbook.schema import SECTION_NAMES, isolated_copy
from acecode.playbook.scoring import update_playbook_data
from support.playbooks import MIS, OTH, PAT, find, make_playbook, names, texts
from support.playbooks import entry as kp


def apply(playbook: dict[str, Any], ops: list[Any]) -> dict[str, Any]:
    """Apply through the public entry point, checking the input is never touched."""
    before = copy.deepcopy(playbook)
    result = apply_structured_operations(playbook, ops)
    assert playbook == before
    return result


def inject_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(operations, "_apply_curator_operations", boom)


# --- SCN-CUR-002: ADD -----------------------------------------------------------------------------


def test_scn_cur_002_01_add_creates_new_entry_in_target_section() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "use types", 5, 1)])
    result = apply(playbook, [{"type": "ADD", "text": "prefer composition", "section": PAT}])
    assert result["sections"][PAT] == [
        kp("pat-001", "use types", 5, 1),
        kp("pat-002", "prefer composition", 0, 0),
    ]


def test_scn_cur_002_02_add_defaults_to_others_when_section_missing() -> None:
    result = apply(make_playbook(), [{"type": "ADD", "text": "some insight"}])
    assert result["sections"][OTH] == [kp("oth-001", "some insight")]


def test_scn_cur_002_03_add_skips_duplicate_text(diagnostic_mode: Path) -> None:
    playbook = make_playbook(oth=[kp("oth-001", "prefer pathlib", 2, 0)])
    result = apply(playbook, [{"type": "ADD", "text": "prefer pathlib", "section": PAT}])
    assert result["sections"] == playbook["sections"]
    summary = diagnostics(diagnostic_mode, "curator_ops_summary")
    assert len(summary) == 1
    assert "ADD: 0 applied, 1 skipped" in summary[0] and "duplicate text" in summary[0]


def test_scn_cur_002_03_duplicate_check_sees_stripped_text() -> None:
    playbook = make_playbook(oth=[kp("oth-001", "prefer pathlib")])
    result = apply(playbook, [{"type": "ADD", "text": "  prefer pathlib\n"}])
    assert names(result) == ["oth-001"]


@pytest.mark.parametrize("text", ["", "   ", None, 5, ["a"], {"t": "x"}])
def test_scn_cur_002_04_add_skips_empty_text(text: Any, diagnostic_mode: Path) -> None:
    result = apply(make_playbook(), [{"type": "ADD", "text": text, "section": "OTHERS"}])
    assert names(result) == []
    assert "empty or missing text" in diagnostics(diagnostic_mode, "curator_ops_summary")[0]


def test_scn_cur_002_04_add_without_text_key_skipped() -> None:
    assert names(apply(make_playbook(), [{"type": "ADD", "section": "OTHERS"}])) == []


def test_scn_cur_002_05_add_resolves_section_case_insensitively() -> None:
    result = apply(
        make_playbook(), [{"type": "ADD", "text": "new tip", "section": "mistakes to avoid"}]
    )
    assert result["sections"][MIS] == [kp("mis-001", "new tip")]


def test_add_stores_stripped_redacted_text() -> None:
    secret = "sk-ant-api03-" + "A1b2C3d4E5f6" * 8
    result = apply(make_playbook(), [{"type": "ADD", "text": f"  export KEY={secret}  \n"}])
    stored = result["sections"][OTH][0]["text"]
    assert secret not in stored
    assert stored.startswith("export KEY=") and stored == stored.strip()


# --- SCN-CUR-003: MERGE ---------------------------------------------------------------------------


def test_scn_cur_003_01_merge_combines_two_entries() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "use type hints", 5, 1), kp("pat-003", "annotate return types", 3, 0)]
    )
    result = apply(
        playbook,
        [
            {
                "type": "MERGE",
                "source_ids": ["pat-001", "pat-003"],
                "merged_text": "use complete type annotations",
            }
        ],
    )
    assert result["sections"][PAT] == [kp("pat-004", "use complete type annotations", 8, 1)]


def test_scn_cur_003_02_merge_with_explicit_section_override() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "hint A", 2, 0)], oth=[kp("oth-001", "hint B", 1, 0)]
    )
    result = apply(
        playbook,
        [
            {
                "type": "MERGE",
                "source_ids": ["pat-001", "oth-001"],
                "merged_text": "combined hint",
                "section": "PATTERNS & APPROACHES",
            }
        ],
    )
    assert result["sections"][PAT] == [kp("pat-002", "combined hint", 3, 0)]
    assert result["sections"][OTH] == []


def test_scn_cur_003_03_merge_with_some_nonexistent_source_ids(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 2, 0), kp("pat-002", "B", 1, 0)])
    result = apply(
        playbook,
        [
            {
                "type": "MERGE",
                "source_ids": ["pat-001", "pat-002", "pat-999"],
                "merged_text": "combined",
            }
        ],
    )
    assert result["sections"][PAT] == [kp("pat-003", "combined", 3, 0)]
    logged = diagnostics(diagnostic_mode, "curator_nonexistent_id")
    assert len(logged) == 1 and "MERGE" in logged[0] and "pat-999" in logged[0]
    assert "pat-999" in capsys.readouterr().err


def test_scn_cur_003_04_merge_skipped_when_fewer_than_2_valid_source_ids(
    diagnostic_mode: Path,
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 2, 0)])
    result = apply(
        playbook,
        [{"type": "MERGE", "source_ids": ["pat-001", "pat-999"], "merged_text": "combined"}],
    )
    assert result["sections"] == playbook["sections"]
    assert "pat-999" in diagnostics(diagnostic_mode, "curator_nonexistent_id")[0]
    summary = diagnostics(diagnostic_mode, "curator_ops_summary")[0]
    assert "MERGE: 0 applied, 1 skipped" in summary
    assert "fewer than 2 valid source_ids" in summary


@pytest.mark.parametrize("source_ids", [["pat-001"], [], None, "pat-001,pat-002", {"a": 1}])
def test_scn_cur_003_05_merge_skipped_when_source_ids_has_fewer_than_2(source_ids: Any) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A"), kp("pat-002", "B")])
    result = apply(
        playbook, [{"type": "MERGE", "source_ids": source_ids, "merged_text": "rewritten"}]
    )
    assert result["sections"] == playbook["sections"]


@pytest.mark.parametrize("merged_text", ["", "  ", None, 3])
def test_merge_skipped_when_merged_text_empty(merged_text: Any) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A"), kp("pat-002", "B")])
    result = apply(
        playbook,
        [{"type": "MERGE", "source_ids": ["pat-001", "pat-002"], "merged_text": merged_text}],
    )
    assert result["sections"] == playbook["sections"]


def test_scn_cur_003_06_merge_inherits_section_from_first_valid_source_id() -> None:
    playbook = make_playbook(
        mis=[kp("mis-001", "avoid globals", 3, 0)], oth=[kp("oth-001", "no bare except", 1, 0)]
    )
    result = apply(
        playbook,
        [{"type": "MERGE", "source_ids": ["mis-001", "oth-001"], "merged_text": "combined advice"}],
    )
    assert result["sections"][MIS] == [kp("mis-002", "combined advice", 4, 0)]
    assert result["sections"][OTH] == []


@pytest.mark.parametrize("section", ["", "   ", None, "NOT A SECTION"])
def test_merge_with_empty_or_invalid_section_uses_first_valid_source_section(section: Any) -> None:
    # REQ-CUR-003 and the contract: "absent/empty/invalid" -> first valid source's section.
    playbook = make_playbook(
        mis=[kp("mis-001", "avoid globals", 3, 0)], oth=[kp("oth-001", "no bare except", 1, 0)]
    )
    result = apply(
        playbook,
        [
            {
                "type": "MERGE",
                "source_ids": ["oth-404", "mis-001", "oth-001"],
                "merged_text": "combined advice",
                "section": section,
            }
        ],
    )
    assert result["sections"][MIS] == [kp("mis-002", "combined advice", 4, 0)]


def test_scn_cur_003_07_merge_after_delete() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "A", 2, 0), kp("pat-002", "B", 1, 0), kp("pat-003", "C", 3, 0)]
    )
    result = apply(
        playbook,
        [
            {"type": "DELETE", "target_id": "pat-001", "reason": "obsolete"},
            {
                "type": "MERGE",
                "source_ids": ["pat-001", "pat-002", "pat-003"],
                "merged_text": "combined",
            },
        ],
    )
    assert result["sections"][PAT] == [kp("pat-004", "combined", 4, 0)]


def test_scn_cur_003_08_merge_skipped_when_all_source_ids_nonexistent(
    diagnostic_mode: Path,
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "use type hints", 5, 1)])
    result = apply(
        playbook,
        [{"type": "MERGE", "source_ids": ["pat-999", "pat-888"], "merged_text": "combined"}],
    )
    assert result["sections"][PAT] == [kp("pat-001", "use type hints", 5, 1)]
    logged = "\n".join(diagnostics(diagnostic_mode, "curator_nonexistent_id"))
    assert "pat-999" in logged and "pat-888" in logged
    assert len(diagnostics(diagnostic_mode, "curator_nonexistent_id")) == 2


def test_merge_ignores_duplicate_source_ids() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 2, 1), kp("pat-002", "B", 1, 0)])
    skipped = apply(
        playbook, [{"type": "MERGE", "source_ids": ["pat-001", "pat-001"], "merged_text": "AA"}]
    )
    assert skipped["sections"] == playbook["sections"]
    merged = apply(
        playbook,
        [{"type": "MERGE", "source_ids": ["pat-001", "pat-002", "pat-001"], "merged_text": "AB"}],
    )
    assert merged["sections"][PAT] == [kp("pat-003", "AB", 3, 1)]


# --- SCN-CUR-004: DELETE --------------------------------------------------------------------------


def test_scn_cur_004_01_delete_removes_entry(diagnostic_mode: Path) -> None:
    playbook = make_playbook(mis=[kp("mis-001", "bad advice", 0, 2)])
    result = apply(
        playbook,
        [{"type": "DELETE", "target_id": "mis-001", "reason": "contradicts project standards"}],
    )
    assert result["sections"][MIS] == []
    audit = diagnostics(diagnostic_mode, "curator_delete_audit")
    assert len(audit) == 1
    for needle in ("mis-001", "bad advice", "contradicts project standards"):
        assert needle in audit[0]
    assert "contradicts" not in repr(result)


def test_delete_audit_truncates_text_to_80_chars(diagnostic_mode: Path) -> None:
    long_text = "x" * 79 + "END-OF-80" + "y" * 50
    result = apply(
        make_playbook(oth=[kp("oth-001", long_text)]),
        [{"type": "DELETE", "target_id": "oth-001"}],
    )
    assert names(result) == []
    audit = diagnostics(diagnostic_mode, "curator_delete_audit")[0]
    assert long_text[:80] in audit and long_text[:81] not in audit


def test_scn_cur_004_02_delete_skips_nonexistent_id(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A")])
    result = apply(playbook, [{"type": "DELETE", "target_id": "pat-999", "reason": "cleanup"}])
    assert result["sections"] == playbook["sections"]
    logged = diagnostics(diagnostic_mode, "curator_nonexistent_id")
    assert len(logged) == 1 and "DELETE" in logged[0] and "pat-999" in logged[0]
    assert diagnostics(diagnostic_mode, "curator_delete_audit") == []
    assert "pat-999" in capsys.readouterr().err


@pytest.mark.parametrize("target_id", ["", "  ", None, 12, ["pat-001"]])
def test_scn_cur_004_03_delete_with_empty_target_id(target_id: Any, diagnostic_mode: Path) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A")])
    result = apply(playbook, [{"type": "DELETE", "target_id": target_id, "reason": "cleanup"}])
    assert result["sections"] == playbook["sections"]
    assert "empty or missing target_id" in diagnostics(diagnostic_mode, "curator_ops_summary")[0]


# --- SCN-CUR-005: order and atomicity -------------------------------------------------------------


def test_scn_cur_005_01_sequential_delete_before_merge() -> None:
    playbook = make_playbook(
        oth=[kp("oth-001", "A", 1, 0), kp("oth-002", "B", 2, 0), kp("oth-003", "C", 3, 0)]
    )
    result = apply(
        playbook,
        [
            {"type": "DELETE", "target_id": "oth-001", "reason": "outdated"},
            {"type": "MERGE", "source_ids": ["oth-002", "oth-003"], "merged_text": "combined BC"},
        ],
    )
    assert result["sections"][OTH] == [kp("oth-004", "combined BC", 5, 0)]


def test_scn_cur_005_02_add_then_merge_referencing_new_entry() -> None:
    playbook = make_playbook(oth=[kp("oth-001", "prefer pathlib", 2, 0)])
    merged = "prefer pathlib and use structured logging for all file operations"
    result = apply(
        playbook,
        [
            {"type": "ADD", "text": "use structured logging", "section": "OTHERS"},
            {"type": "MERGE", "source_ids": ["oth-002", "oth-001"], "merged_text": merged},
        ],
    )
    assert result["sections"][OTH] == [kp("oth-003", merged, 2, 0)]


def test_scn_cur_005_03_exception_rollback_returns_original_playbook(
    monkeypatch: pytest.MonkeyPatch, diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 5, 1)])
    before = copy.deepcopy(playbook)
    inject_failure(monkeypatch)
    result = update_playbook_data(playbook, {"operations": [{"type": "ADD", "text": "will fail"}]})
    assert result == before
    assert find(result, "pat-001") == (PAT, kp("pat-001", "A", 5, 1))
    assert playbook == before
    rollback = diagnostics(diagnostic_mode, "curator_ops_rollback")
    assert len(rollback) == 1 and "injected failure" in rollback[0]
    assert "unchanged" in capsys.readouterr().err


def test_scn_cur_005_03_real_exception_mid_list_rolls_back_earlier_ops(
    diagnostic_mode: Path,
) -> None:
    # A hand-broken entry (no counters) makes MERGE raise after an ADD already applied.
    broken = {"name": "oth-001", "text": "no counters"}
    playbook = make_playbook(oth=[broken, kp("oth-002", "B")])
    before = copy.deepcopy(playbook)
    result, outcomes = apply_operations_with_outcomes(
        playbook,
        [
            {"type": "ADD", "text": "added first"},
            {"type": "MERGE", "source_ids": ["oth-001", "oth-002"], "merged_text": "AB"},
        ],
    )
    assert result is playbook and outcomes == []
    assert playbook == before
    assert "KeyError" in diagnostics(diagnostic_mode, "curator_ops_rollback")[0]


def test_scn_cur_005_04_skipped_operations_do_not_trigger_rollback(diagnostic_mode: Path) -> None:
    playbook = make_playbook(oth=[kp("oth-001", "keep me", 1, 0)])
    result = apply(
        playbook,
        [
            {"type": "DELETE", "target_id": "nonexistent", "reason": "cleanup"},
            {"type": "ADD", "text": "new entry", "section": "OTHERS"},
        ],
    )
    assert result["sections"][OTH] == [kp("oth-001", "keep me", 1, 0), kp("oth-002", "new entry")]
    assert diagnostics(diagnostic_mode, "curator_ops_rollback") == []


# --- SCN-CUR-008: precedence ----------------------------------------------------------------------


def test_scn_cur_008_01_operations_key_present_new_key_points_ignored() -> None:
    result = update_playbook_data(
        make_playbook(),
        {
            "operations": [{"type": "ADD", "text": "from ops", "section": "OTHERS"}],
            "new_key_points": ["from nkp"],
            "evaluations": [],
        },
    )
    assert texts(result) == ["from ops"]


def test_scn_cur_008_02_operations_key_absent_new_key_points_used() -> None:
    result = update_playbook_data(
        make_playbook(), {"new_key_points": ["legacy point"], "evaluations": []}
    )
    assert result["sections"][OTH] == [kp("oth-001", "legacy point")]


def test_scn_cur_008_03_empty_operations_list_new_key_points_still_ignored() -> None:
    playbook = make_playbook()
    result = update_playbook_data(
        playbook,
        {"operations": [], "new_key_points": ["should not be added"], "evaluations": []},
    )
    assert texts(result) == []


@pytest.mark.parametrize("value", [None, "ADD x", 42, {"type": "ADD", "text": "x"}])
def test_non_list_operations_value_still_selects_operations_path(value: Any) -> None:
    # The key's presence decides (REQ-CUR-008); a non-list value applies nothing.
    result = update_playbook_data(make_playbook(), {"operations": value, "new_key_points": ["nkp"]})
    assert texts(result) == []


def test_evaluations_and_pruning_run_after_operations_path() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 0, 2)], oth=[kp("oth-001", "B", 1, 0)])
    result = update_playbook_data(
        playbook,
        {
            "operations": [{"type": "ADD", "text": "C"}],
            "evaluations": [
                {"name": "pat-001", "rating": "harmful"},
                {"name": "oth-002", "rating": "helpful"},
            ],
        },
    )
    assert find(result, "pat-001") is None
    assert find(result, "oth-002") == (OTH, kp("oth-002", "C", 1, 0))


# --- SCN-CUR-009: validation and truncation -------------------------------------------------------


def adds(count: int) -> list[dict[str, Any]]:
    return [{"type": "ADD", "text": f"insight {i}", "section": "OTHERS"} for i in range(count)]


def test_scn_cur_009_01_operations_truncated_to_10(diagnostic_mode: Path) -> None:
    result = apply(make_playbook(), adds(15))
    assert texts(result) == [f"insight {i}" for i in range(10)]
    logged = diagnostics(diagnostic_mode, "curator_ops_truncated")
    assert len(logged) == 1 and "15" in logged[0] and "10" in logged[0]


def test_scn_cur_009_02_unknown_or_missing_operation_type_skipped(diagnostic_mode: Path) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "orig")])
    result = apply(
        playbook,
        [
            {"type": "REPLACE", "target_id": "pat-001", "text": "rewritten"},
            {"target_id": "pat-001", "text": "rewritten"},
            {"type": "update", "target_id": "pat-001", "text": "rewritten"},
        ],
    )
    assert result["sections"] == playbook["sections"]
    summary = diagnostics(diagnostic_mode, "curator_ops_summary")[0]
    assert "unknown: 0 applied, 3 skipped" in summary
    assert "'REPLACE'" in summary and "''" in summary


def test_scn_cur_009_03_exactly_10_operations_no_truncation(diagnostic_mode: Path) -> None:
    result = apply(make_playbook(), adds(10))
    assert len(texts(result)) == 10
    assert diagnostics(diagnostic_mode, "curator_ops_truncated") == []


def test_scn_cur_009_04_exactly_11_operations_truncated_to_10(diagnostic_mode: Path) -> None:
    result = apply(make_playbook(), adds(11))
    assert texts(result) == [f"insight {i}" for i in range(10)]
    logged = diagnostics(diagnostic_mode, "curator_ops_truncated")
    assert logged == ["Operations list truncated from 11 to 10"]


def test_obs_cur_001_summary_counts_every_type(diagnostic_mode: Path) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A"), kp("pat-002", "B"), kp("pat-003", "C")])
    apply(
        playbook,
        [
            {"type": "ADD", "text": "D"},
            {"type": "ADD", "text": ""},
            {"type": "UPDATE", "target_id": "pat-003", "text": "C2"},
            {"type": "MERGE", "source_ids": ["pat-001", "pat-002"], "merged_text": "AB"},
            {"type": "DELETE", "target_id": "pat-404"},
            "not a dict",
        ],
    )
    summary = diagnostics(diagnostic_mode, "curator_ops_summary")
    assert len(summary) == 1
    for line in (
        "ADD: 1 applied, 1 skipped",
        "UPDATE: 1 applied, 0 skipped",
        "MERGE: 1 applied, 0 skipped",
        "DELETE: 0 applied, 1 skipped",
        "unknown: 0 applied, 1 skipped",
    ):
        assert line in summary[0]


def test_no_diagnostics_written_outside_diagnostic_mode(project_dir: Path) -> None:
    apply(make_playbook(), [*adds(12), {"type": "DELETE", "target_id": "x"}])
    assert not (project_dir / ".claude" / "diagnostic").exists()


# --- SCN-CUR-013: UPDATE --------------------------------------------------------------------------


def test_scn_cur_013_01_update_revises_entry_text(diagnostic_mode: Path) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "use type hints", 5, 1)])
    new_text = "use type hints for all function parameters and return values"
    result = apply(playbook, [{"type": "UPDATE", "target_id": "pat-001", "text": new_text}])
    assert result["sections"][PAT] == [kp("pat-001", new_text, 5, 1)]
    audit = diagnostics(diagnostic_mode, "curator_update_audit")
    assert len(audit) == 1
    assert "pat-001" in audit[0] and "use type hints" in audit[0] and new_text in audit[0]


def test_scn_cur_013_02_update_skips_nonexistent_target_id(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 1, 0)])
    result = apply(playbook, [{"type": "UPDATE", "target_id": "pat-999", "text": "new text"}])
    assert result["sections"] == playbook["sections"]
    err = capsys.readouterr().err
    assert err.startswith("acecode: ") and "pat-999" in err and len(err.splitlines()) == 1
    logged = diagnostics(diagnostic_mode, "curator_nonexistent_id")
    assert len(logged) == 1 and "UPDATE" in logged[0] and "pat-999" in logged[0]


def test_scn_cur_013_03_update_skips_empty_target_id() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A")])
    result = apply(playbook, [{"type": "UPDATE", "target_id": "", "text": "new text"}])
    assert result["sections"] == playbook["sections"]


def test_scn_cur_013_04_update_skips_empty_text() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "use type hints", 5, 1)])
    result = apply(playbook, [{"type": "UPDATE", "target_id": "pat-001", "text": ""}])
    assert result["sections"][PAT] == [kp("pat-001", "use type hints", 5, 1)]


# --- SCN-CUR-014: apply_structured_operations -----------------------------------------------------


def test_scn_cur_014_01_apply_structured_operations_with_isolation() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 5, 1)])
    before = copy.deepcopy(playbook)
    result = apply_structured_operations(
        playbook, [{"type": "ADD", "text": "new insight", "section": "OTHERS"}]
    )
    assert result["sections"][OTH] == [kp("oth-001", "new insight")]
    assert result["sections"][PAT] == [kp("pat-001", "A", 5, 1)]
    assert playbook == before
    assert result is not playbook and result["sections"] is not playbook["sections"]


def test_scn_cur_014_02_apply_structured_operations_rollback_on_exception(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 5, 1)])
    before = copy.deepcopy(playbook)
    inject_failure(monkeypatch)
    result = apply_structured_operations(playbook, [{"type": "ADD", "text": "x"}])
    assert result is playbook
    assert result == before


def test_scn_cur_014_03_apply_structured_operations_supports_update() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "old text", 3, 0)])
    result = apply(playbook, [{"type": "UPDATE", "target_id": "pat-001", "text": "revised text"}])
    assert result["sections"][PAT] == [kp("pat-001", "revised text", 3, 0)]


def test_scn_cur_014_04_empty_operations_list_returns_same_reference() -> None:
    playbook = make_playbook(pat=[kp("pat-001", "A", 5, 1)])
    result = apply_structured_operations(playbook, [])
    assert result is playbook
    assert playbook["sections"][PAT] == [kp("pat-001", "A", 5, 1)]


# --- INV-CUR-* ------------------------------------------------------------------------------------


def mutating_ops() -> list[dict[str, Any]]:
    return [
        {"type": "ADD", "text": "new"},
        {"type": "UPDATE", "target_id": "pat-001", "text": "changed"},
        {"type": "MERGE", "source_ids": ["pat-002", "oth-001"], "merged_text": "merged"},
        {"type": "DELETE", "target_id": "mis-001"},
    ]


def sample_playbook() -> dict[str, Any]:
    return make_playbook(
        pat=[kp("pat-001", "A", 1, 0), kp("pat-002", "B", 2, 1)],
        mis=[kp("mis-001", "C", 0, 0)],
        oth=[kp("oth-001", "D", 4, 2)],
    )


def test_inv_cur_001_deep_copy_isolation() -> None:
    playbook = sample_playbook()
    before = copy.deepcopy(playbook)
    entry_ids = [id(e) for s in SECTION_NAMES for e in playbook["sections"][s]]
    result = update_playbook_data(
        playbook,
        {"operations": mutating_ops(), "evaluations": [{"name": "pat-001", "rating": "harmful"}]},
    )
    assert playbook == before
    assert [id(e) for s in SECTION_NAMES for e in playbook["sections"][s]] == entry_ids
    assert find(result, "pat-001") == (PAT, kp("pat-001", "changed", 1, 1))
    # Editing the result afterwards must not reach the input either.
    for section in SECTION_NAMES:
        result["sections"][section].append(kp("zzz", "later"))
    assert playbook == before


def test_inv_cur_002_no_crash_on_invalid_operations() -> None:
    playbook = sample_playbook()
    junk: list[Any] = [
        None,
        "DELETE pat-001",
        42,
        [],
        {},
        {"type": None},
        {"type": ["ADD"]},
        {"type": "MERGE", "source_ids": [None, {}, ["pat-001"], 3], "merged_text": "x"},
        {"type": "UPDATE", "target_id": {"id": "pat-001"}, "text": "x"},
        {"type": "DELETE", "target_id": 3.5},
    ]
    result = update_playbook_data(playbook, {"operations": junk, "evaluations": "nope"})
    assert result["sections"] == playbook["sections"]


def test_inv_cur_003_counter_non_negativity_through_merge() -> None:
    result = apply(
        sample_playbook(),
        [{"type": "MERGE", "source_ids": ["pat-001", "pat-002", "oth-001"], "merged_text": "all"}],
    )
    assert find(result, "pat-003") == (PAT, kp("pat-003", "all", 7, 3))


def test_inv_cur_004_section_names_canonical_after_operations() -> None:
    ops = [
        {"type": "ADD", "text": "a", "section": "Brand New"},
        {"type": "ADD", "text": "b", "section": "  user PREFERENCES "},
        {"type": "MERGE", "source_ids": ["pat-001", "mis-001"], "merged_text": "m", "section": "X"},
        {"type": "DELETE", "target_id": "oth-001"},
    ]
    result = apply(sample_playbook(), ops)
    assert list(result["sections"]) == list(SECTION_NAMES)


def test_inv_cur_005_operations_bounded_when_called_directly() -> None:
    playbook = isolated_copy(make_playbook())
    result = _apply_curator_operations(playbook, adds(25))
    assert len(texts(result)) == MAX_OPERATIONS == 10


def test_inv_cur_006_precedence_prevents_double_processing() -> None:
    result = update_playbook_data(
        make_playbook(),
        {
            "operations": [{"type": "ADD", "text": "same text"}],
            "new_key_points": ["same text", "other text"],
        },
    )
    assert texts(result) == ["same text"]


def test_inv_cur_007_update_preserves_entry_identity() -> None:
    playbook = sample_playbook()
    result = apply(playbook, [{"type": "UPDATE", "target_id": "pat-002", "text": "B2"}])
    assert result["sections"][PAT] == [kp("pat-001", "A", 1, 0), kp("pat-002", "B2", 2, 1)]
    for section in SECTION_NAMES:
        if section != PAT:
            assert result["sections"][section] == playbook["sections"][section]


@pytest.mark.parametrize(
    ("target_id", "text"),
    [("", "x"), (None, "x"), ("pat-001", ""), ("pat-001", None), ("pat-001", "  "), (None, None)],
)
def test_inv_cur_009_update_validates_both_fields(target_id: Any, text: Any) -> None:
    op: dict[str, Any] = {"type": "UPDATE"}
    if target_id is not None:
        op["target_id"] = target_id
    if text is not None:
        op["text"] = text
    playbook = sample_playbook()
    assert apply(playbook, [op])["sections"] == playbook["sections"]


def test_inv_cur_010_apply_structured_operations_isolation() -> None:
    playbook = sample_playbook()
    before = copy.deepcopy(playbook)
    result = apply_structured_operations(playbook, mutating_ops())
    assert playbook == before
    assert result != before
    assert names(result) == ["pat-001", "pat-003", "oth-002"]


def test_outcomes_report_every_operation() -> None:
    _, outcomes = apply_operations_with_outcomes(sample_playbook(), [*mutating_ops(), 7])
    assert [(o.index, o.type, o.applied) for o in outcomes] == [
        (0, "ADD", True),
        (1, "UPDATE", True),
        (2, "MERGE", True),
        (3, "DELETE", True),
        (4, "unknown", False),
    ]
    merge = outcomes[2].as_dict()
    assert merge["created"] == kp("pat-003", "merged", 6, 3)
    assert [r["entry"]["name"] for r in merge["removed"]] == ["pat-002", "oth-001"]
