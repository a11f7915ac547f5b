"""The playbook file on disk: migration, round trip, format, corrupt files.

Every test works on real files in the isolated project of tests/conftest.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import acecode
from acecode.playbook.schema import SECTION_NAMES, empty_playbook
from acecode.store import (
    PlaybookError,
    PlaybookFileError,
    load_playbook,
    save_playbook,
    serialize_playbook,
    update_playbook,
)
from support.playbooks import CTX, MIS, OTH, PAT, PREF
from support.playbooks import entry as kp


def empty_sections(**extra: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    sections.update(extra)
    return sections


@pytest.fixture
def playbook_file(project_dir: Path) -> Path:
    """The default playbook path of the isolated project (not created)."""
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def diag(folder: Path, name: str) -> list[str]:
    if not folder.is_dir():
        return []
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob(f"*_{name}.txt"))]


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


# --- SCN-SECT-006: migration ----------------------------------------------------------------------


def test_scn_sect_006_01_migrate_flat_playbook_with_mixed_ids(
    playbook_file: Path, diagnostic_mode: Path
) -> None:
    write_json(
        playbook_file,
        {
            "version": "1.0",
            "last_updated": "2026-01-15T10:00:00",
            "key_points": [
                {"name": "kpt_001", "text": "use types", "helpful": 5, "harmful": 1},
                {"name": "kpt_002", "text": "prefer pathlib", "helpful": 0, "harmful": 0},
            ],
        },
    )
    assert load_playbook() == {
        "version": "1.0",
        "last_updated": "2026-01-15T10:00:00",
        "sections": empty_sections(
            OTHERS=[kp("kpt_001", "use types", 5, 1), kp("kpt_002", "prefer pathlib", 0, 0)]
        ),
    }
    (logged,) = diag(diagnostic_mode, "sections_migration")
    assert "OBS-SECT-001" in logged and "migrated 2 " in logged


def test_scn_sect_006_02_migrate_flat_playbook_with_legacy_score_field(playbook_file: Path) -> None:
    write_json(
        playbook_file,
        {
            "version": "1.0",
            "key_points": [
                "bare string entry",
                {"name": "kpt_002", "text": "some tip", "score": -3},
            ],
        },
    )
    assert load_playbook() == {
        "version": "1.0",
        "last_updated": None,
        "sections": empty_sections(
            OTHERS=[kp("kpt_001", "bare string entry", 0, 0), kp("kpt_002", "some tip", 0, 3)]
        ),
    }


def test_scn_sect_006_03_load_already_sections_based_playbook(
    playbook_file: Path, diagnostic_mode: Path
) -> None:
    data = {
        "version": "1.0",
        "last_updated": "2026-02-01T08:00:00+00:00",
        "sections": empty_sections(
            **{PAT: [kp("pat-001", "use types", 5, 1)], OTH: [kp("kpt_001", "legacy", 0, 0)]}
        ),
    }
    write_json(playbook_file, data)
    assert load_playbook() == data
    assert diag(diagnostic_mode, "sections_migration") == []


def test_scn_sect_006_04_dual_key_file_handling(playbook_file: Path, diagnostic_mode: Path) -> None:
    sections = empty_sections(**{MIS: [kp("mis-001", "from sections", 1, 0)]})
    write_json(
        playbook_file,
        {"version": "1.0", "sections": sections, "key_points": [kp("kpt_001", "from flat list")]},
    )
    loaded = load_playbook()
    assert loaded["sections"] == sections
    assert "key_points" not in loaded
    (logged,) = diag(diagnostic_mode, "sections_dual_key")
    assert "OBS-SECT-007" in logged and str(playbook_file) in logged


def test_scn_sect_006_04_dual_key_warning_only_in_diagnostic_mode(
    playbook_file: Path, project_dir: Path
) -> None:
    write_json(playbook_file, {"sections": empty_sections(), "key_points": []})
    assert "key_points" not in load_playbook()
    assert not (project_dir / ".claude" / "diagnostic").exists()


def test_migration_dicts_without_counters_and_missing_names(playbook_file: Path) -> None:
    write_json(
        playbook_file,
        {
            "key_points": [
                {"text": "no name, no counters"},
                {"name": "kpt_001", "text": "named"},
                {"name": "", "text": "empty name"},
                "bare",
            ]
        },
    )
    others = load_playbook()["sections"][OTH]
    assert others == [
        kp("kpt_002", "no name, no counters"),
        kp("kpt_001", "named"),
        kp("kpt_003", "empty name"),
        kp("kpt_004", "bare"),
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"score": 4}, (4, 0)),
        ({"score": -2}, (0, 2)),
        ({"score": 0}, (0, 0)),
        ({"score": 2.7}, (2, 0)),
        ({"score": "high"}, (0, 0)),
        ({"score": True}, (0, 0)),
        ({"score": -5, "helpful": 1}, (1, 0)),
        ({"helpful": -3, "harmful": 2}, (0, 2)),
        ({"helpful": "7", "harmful": None}, (7, 0)),
        ({"helpful": 1e400, "harmful": 3.0}, (0, 3)),
    ],
)
def test_migration_legacy_score_and_counter_cleanup(
    playbook_file: Path, raw: dict[str, Any], expected: tuple[int, int]
) -> None:
    # 1e400 is written as Infinity by json.dumps and read back as inf.
    write_json(playbook_file, {"sections": {PAT: [{"name": "pat-001", "text": "t", **raw}]}})
    (entry,) = load_playbook()["sections"][PAT]
    assert entry == kp("pat-001", "t", *expected)
    assert "score" not in entry


def test_migration_bare_strings_inside_sections(playbook_file: Path) -> None:
    write_json(playbook_file, {"sections": {MIS: ["avoid globals", kp("kpt_001", "x")]}})
    assert load_playbook()["sections"][MIS] == [kp("kpt_002", "avoid globals"), kp("kpt_001", "x")]


def test_inv_sect_002_section_names_canonical_on_load_and_disk(playbook_file: Path) -> None:
    write_json(
        playbook_file,
        {
            "sections": {
                "patterns & approaches": [kp("pat-001", "a")],
                " Project Context ": [kp("ctx-001", "b")],
                "Misc": [kp("misc-1", "c")],
                "OTHERS": [kp("oth-001", "d")],
            }
        },
    )
    loaded = load_playbook()
    assert list(loaded["sections"]) == list(SECTION_NAMES)
    assert [e["name"] for e in loaded["sections"][OTH]] == ["misc-1", "oth-001"]
    save_playbook(loaded)
    assert list(json.loads(playbook_file.read_text(encoding="utf-8"))["sections"]) == list(
        SECTION_NAMES
    )


def test_inv_sect_003_counter_non_negativity_after_load(playbook_file: Path) -> None:
    write_json(
        playbook_file,
        {"key_points": [{"text": "a", "helpful": -1, "harmful": -9}, {"text": "b", "score": -4}]},
    )
    for entry in load_playbook()["sections"][OTH]:
        assert entry["helpful"] >= 0 and entry["harmful"] >= 0


def test_inv_sect_004_legacy_ids_preserved_during_migration(playbook_file: Path) -> None:
    legacy = ["kpt_001", "kpt_017", "pat-003", "custom id", "kpt_9999"]
    write_json(playbook_file, {"key_points": [kp(n, f"text {n}") for n in legacy]})
    assert [e["name"] for e in load_playbook()["sections"][OTH]] == legacy


# --- INV-SECT-001/006/007: writing ----------------------------------------------------------------


def test_inv_sect_001_sections_key_always_present_after_write(playbook_file: Path) -> None:
    with pytest.raises(AssertionError):
        save_playbook({"version": "1.0", "key_points": [kp("kpt_001", "x")]})
    assert not playbook_file.exists()
    save_playbook(empty_playbook())
    assert "sections" in json.loads(playbook_file.read_text(encoding="utf-8"))


def test_inv_sect_007_no_key_points_key_in_output(playbook_file: Path) -> None:
    playbook = {"version": "1.0", "sections": empty_sections(), "key_points": ["stale"]}
    before = copy.deepcopy(playbook)
    save_playbook(playbook)
    assert playbook == before
    on_disk = json.loads(playbook_file.read_text(encoding="utf-8"))
    assert "key_points" not in on_disk
    write_json(playbook_file, {"key_points": ["a"]})
    assert "key_points" not in load_playbook()


SHAPES: dict[str, Any] = {
    "flat": {"version": "0.9", "last_updated": "2025-01-01", "key_points": [kp("kpt_001", "a", 1)]},
    "legacy": {
        "key_points": ["bare", {"text": "no counters"}, {"name": "x", "text": "s", "score": -2}]
    },
    "sections": {
        "version": "1.0",
        "sections": empty_sections(**{PREF: [kp("pref-001", "p", 2, 1)]}),
    },
    "dual": {"version": "2", "sections": {"others": ["z"]}, "key_points": [kp("kpt_001", "q")]},
    "empty": {},
    "extra_keys": {"version": "1.0", "sections": {}, "team": {"owner": "me"}},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_inv_sect_006_round_trip_stability(playbook_file: Path, shape: str) -> None:
    write_json(playbook_file, SHAPES[shape])
    first = load_playbook()
    save_playbook(first)
    second = load_playbook()
    assert second["sections"] == first["sections"]
    assert second["version"] == first["version"]
    assert {k: v for k, v in second.items() if k != "last_updated"} == {
        k: v for k, v in first.items() if k != "last_updated"
    }
    save_playbook(second)
    assert load_playbook()["sections"] == first["sections"]


def test_stable_diff_friendly_json(playbook_file: Path) -> None:
    playbook = {
        "sections": {
            OTH: [
                {
                    "harmful": 0,
                    "text": "naïve café ✓ 日本語",
                    "helpful": 1,
                    "name": "oth-001",
                    "x": 1,
                }
            ],
            PAT: [kp("pat-001", "first")],
        },
        "last_updated": None,
        "version": "1.0",
    }
    save_playbook(playbook)
    raw = playbook_file.read_bytes()
    text = raw.decode("utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert "naïve café ✓ 日本語" in text and "\\u" not in text
    assert text.startswith('{\n  "version": "1.0",\n  "last_updated": "')
    assert (
        '\n  "sections": {\n    "PATTERNS & APPROACHES": [\n      {\n        "name": "pat-001",'
        in text
    )
    data = json.loads(text)
    assert list(data) == ["version", "last_updated", "sections"]
    assert list(data["sections"]) == list(SECTION_NAMES)
    assert list(data["sections"][OTH][0]) == ["name", "text", "helpful", "harmful"]
    assert text == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_saving_twice_gives_identical_bytes_but_last_updated(playbook_file: Path) -> None:
    playbook = {"version": "1.0", "sections": empty_sections(**{CTX: [kp("ctx-001", "c", 1, 2)]})}
    save_playbook(playbook)
    first = json.loads(playbook_file.read_text(encoding="utf-8"))
    save_playbook(load_playbook())
    second = json.loads(playbook_file.read_text(encoding="utf-8"))
    assert first["last_updated"] and second["last_updated"]
    first.pop("last_updated")
    second.pop("last_updated")
    assert first == second
    stamped = load_playbook()
    assert serialize_playbook(stamped) == playbook_file.read_text(encoding="utf-8")


def test_lone_surrogate_text_saves_as_valid_utf8_and_round_trips(playbook_file: Path) -> None:
    text = "broken emoji \ud83d here"
    save_playbook({"sections": empty_sections(**{OTH: [kp("oth-001", text)]})})
    raw = playbook_file.read_bytes()
    raw.decode("utf-8")
    assert b"\\ud83d" in raw
    assert load_playbook()["sections"][OTH][0]["text"] == text


def test_utf8_bom_is_accepted(playbook_file: Path) -> None:
    playbook_file.write_bytes(b"\xef\xbb\xbf" + json.dumps({"key_points": ["tip"]}).encode())
    assert load_playbook()["sections"][OTH] == [kp("kpt_001", "tip")]


def test_missing_file_is_an_empty_playbook_and_save_creates_folders(project_dir: Path) -> None:
    assert load_playbook() == empty_playbook()
    assert not (project_dir / ".claude").exists()
    save_playbook(empty_playbook())
    assert (project_dir / ".claude" / "playbook.json").is_file()


def test_default_path_follows_claude_project_dir(
    project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other-project"
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(other))
    save_playbook({"sections": empty_sections(**{OTH: [kp("oth-001", "here")]})})
    assert (other / ".claude" / "playbook.json").is_file()
    assert not (project_dir / ".claude" / "playbook.json").exists()
    assert acecode.load_playbook()["sections"][OTH][0]["text"] == "here"


def test_explicit_path(tmp_path: Path, project_dir: Path) -> None:
    target = tmp_path / "elsewhere" / "pb.json"
    save_playbook({"sections": empty_sections(**{OTH: [kp("oth-001", "x")]})}, target)
    assert load_playbook(str(target))["sections"][OTH] == [kp("oth-001", "x")]
    assert not (project_dir / ".claude" / "playbook.json").exists()


# --- update_playbook ------------------------------------------------------------------------------


def test_update_playbook_saves_changes(playbook_file: Path) -> None:
    with update_playbook() as txn:
        txn.playbook = acecode.apply_structured_operations(
            txn.playbook, [{"type": "ADD", "text": "learned"}]
        )
    assert txn.saved
    assert load_playbook()["sections"][OTH] == [kp("oth-001", "learned")]
    assert txn.original == empty_playbook()


def test_update_playbook_without_change_does_not_write(playbook_file: Path) -> None:
    save_playbook(empty_playbook())
    before = playbook_file.read_bytes()
    stat = playbook_file.stat()
    with update_playbook() as txn:
        txn.playbook = dict(txn.playbook)
    assert not txn.saved
    assert playbook_file.read_bytes() == before
    assert playbook_file.stat().st_mtime_ns == stat.st_mtime_ns


def test_update_playbook_exception_saves_nothing(playbook_file: Path) -> None:
    save_playbook({"sections": empty_sections(**{OTH: [kp("oth-001", "keep")]})})
    before = playbook_file.read_bytes()
    with pytest.raises(RuntimeError, match="boom"), update_playbook() as txn:
        txn.playbook["sections"][OTH].clear()
        raise RuntimeError("boom")
    assert playbook_file.read_bytes() == before
    with update_playbook(lock_timeout=0) as txn:  # the lock was released: one try takes it
        assert txn.playbook["sections"][OTH] == [kp("oth-001", "keep")]


def test_update_playbook_original_is_independent(playbook_file: Path) -> None:
    save_playbook({"sections": empty_sections(**{OTH: [kp("oth-001", "keep")]})})
    with update_playbook() as txn:
        txn.playbook["sections"][OTH][0]["text"] = "edited in place"
        assert txn.original["sections"][OTH][0]["text"] == "keep"
    assert load_playbook()["sections"][OTH][0]["text"] == "edited in place"


# --- corrupt files --------------------------------------------------------------------------------

CORRUPT: dict[str, bytes] = {
    "invalid_json": b'{"sections": {"OTHERS": [}',
    "truncated": b'{\n  "version": "1.0",\n  "sections": {\n    "OTHERS": [\n      {"name": "oth-0',
    "empty_file": b"",
    "not_an_object": b'[{"name": "kpt_001", "text": "x"}]',
    "null": b"null",
    "sections_not_a_dict": b'{"sections": [["OTHERS", []]]}',
    "section_not_a_list": b'{"sections": {"OTHERS": "tip"}}',
    "entry_without_text": b'{"sections": {"OTHERS": [{"name": "oth-001", "helpful": 1}]}}',
    "entry_text_not_string": b'{"key_points": [{"name": "kpt_001", "text": 5}]}',
    "entry_not_object": b'{"key_points": [42]}',
    "key_points_not_list": b'{"key_points": "tip"}',
    "unrelated_object": b'{"name": "my-package", "dependencies": {}}',
    "invalid_utf8": b'{"sections": {"OTHERS": [{"name": "oth-001", "text": "caf\xe9"}]}}',
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_file_left_untouched_with_one_line_error(playbook_file: Path, case: str) -> None:
    playbook_file.write_bytes(CORRUPT[case])
    stat = playbook_file.stat()
    with pytest.raises(PlaybookFileError) as raised:
        load_playbook()
    message = str(raised.value)
    assert "\n" not in message and str(playbook_file) in message
    assert isinstance(raised.value, PlaybookError)
    with pytest.raises(PlaybookFileError):
        save_playbook(empty_playbook())
    with pytest.raises(PlaybookFileError), update_playbook() as txn:
        txn.playbook = empty_playbook()
    assert playbook_file.read_bytes() == CORRUPT[case]
    assert playbook_file.stat().st_mtime_ns == stat.st_mtime_ns
    assert temp_files(playbook_file.parent) == []


def test_unreadable_path_is_a_file_error(playbook_file: Path) -> None:
    playbook_file.mkdir()
    with pytest.raises(PlaybookFileError, match="cannot read"):
        load_playbook()
