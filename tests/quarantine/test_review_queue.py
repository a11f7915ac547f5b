"""The pending queue on real files: queue, list, approve, edit-then-approve, reject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.quarantine.queue import (
    QueueError,
    is_rejected,
    list_pending,
    queue_path,
    queue_text,
    settle_items,
)
from acecode.quarantine.queue_decisions import approve, reject
from acecode.store import load_playbook, update_playbook
from acecode.store.history import list_cycles
from support.lock_holder import lock_held_elsewhere

DANGEROUS = "Run npm install with sudo to avoid EACCES errors."


@pytest.fixture
def playbook_file(project_dir: Path) -> Path:
    return project_dir / ".claude" / "playbook.json"


def _seed(path: Path, *texts: tuple[str, str]) -> None:
    ops = [{"type": "ADD", "section": section, "text": text} for section, text in texts]
    with update_playbook(path) as txn:
        txn.playbook, _ = apply_operations_with_outcomes(txn.playbook, ops)


def test_queue_file_lives_in_the_state_folder(playbook_file: Path, project_dir: Path) -> None:
    assert queue_path() == project_dir / ".claude" / "acecode" / "pending.json"
    assert queue_path(playbook_file) == queue_path()


def test_queued_item_records_reason_source_and_time(playbook_file: Path) -> None:
    item = queue_text(
        DANGEROUS,
        rule="weaken-permissions",
        detail="'sudo'",
        section="mistakes to avoid",
        session="sess-1",
        transcript="/t/sess-1.jsonl",
    )
    assert item is not None
    stored = json.loads(queue_path().read_text(encoding="utf-8"))
    assert stored["version"] == 1
    [record] = stored["pending"]
    assert record["id"] == item.id and len(item.id) == 8
    assert record["text"] == DANGEROUS
    assert record["section"] == "MISTAKES TO AVOID"
    assert record["operation"] == "ADD"
    assert record["rule"] == "weaken-permissions"
    assert record["session"] == "sess-1"
    assert record["transcript"] == "/t/sess-1.jsonl"
    assert record["queued_at"]
    assert list_pending() == [item]
    assert not playbook_file.exists(), "queuing must not touch the playbook"


def test_same_text_is_queued_once(playbook_file: Path) -> None:
    first = queue_text(DANGEROUS, rule="weaken-permissions")
    second = queue_text("  run npm install with SUDO to avoid EACCES errors ", rule="x")
    assert first == second
    assert len(list_pending()) == 1


def test_a_text_waiting_for_a_review_takes_a_later_hold_for_a_person(playbook_file: Path) -> None:
    """Queued again under a finding or a flag, a text that only waited for the review shows
    that hold (and is no longer retried); the other way round it keeps its hold."""
    waiting = queue_text(DANGEROUS, rule="not-reviewed", detail="no review yet")
    held = queue_text(DANGEROUS, rule="safety-review", detail="high, privilege: sudo")
    assert waiting is not None and held is not None and held.id == waiting.id
    assert [(i.rule, i.detail) for i in list_pending()] == [
        ("safety-review", "high, privilege: sudo")
    ]
    again = queue_text(DANGEROUS, rule="not-reviewed:privilege", detail="no review")
    assert again is not None and again.rule == "safety-review"
    assert len(list_pending()) == 1


def test_settling_removes_only_what_still_waits(playbook_file: Path) -> None:
    first = queue_text("Keep the changelog sorted.", rule="not-reviewed")
    second = queue_text("Name fixtures after their module.", rule="not-reviewed")
    assert first is not None and second is not None
    queue_text("Name fixtures after their module.", rule="instructions", detail="contradicts")
    settle_items(
        remove=[first.id, second.id],
        removable=lambda item: item.rule.startswith("not-reviewed"),
    )
    assert [item.rule for item in list_pending()] == ["instructions"]


def test_secrets_are_redacted_before_the_queue_is_written(playbook_file: Path) -> None:
    key = "sk-ant-api03-" + "A" * 80
    queue_text(f"Use the key {key} for the staging API.", rule="credential-access")
    assert key not in queue_path().read_text(encoding="utf-8")


def test_approve_adds_with_generated_id_and_dequeues(playbook_file: Path) -> None:
    _seed(playbook_file, ("USER PREFERENCES", "The user likes short commit messages."))
    item = queue_text(
        "Keep commit subjects under 50 characters.",
        rule="review:all",
        section="USER PREFERENCES",
        session="sess-2",
    )
    assert item is not None
    result = approve(item.id)
    assert result.applied_as == "ADD"
    assert result.entry == {
        "name": "pref-002",
        "text": "Keep commit subjects under 50 characters.",
        "helpful": 0,
        "harmful": 0,
    }
    entries = load_playbook(playbook_file)["sections"]["USER PREFERENCES"]
    assert [e["name"] for e in entries] == ["pref-001", "pref-002"]
    assert list_pending() == []
    last = list_cycles(playbook_file)[-1]
    assert last.kind == "review"
    assert last.meta["review"]["item_id"] == item.id
    assert last.meta["review"]["session"] == "sess-2"
    assert last.meta["review"]["edited"] is False


def test_edit_then_approve_stores_the_edited_text(playbook_file: Path) -> None:
    item = queue_text(DANGEROUS, rule="weaken-permissions", section="MISTAKES TO AVOID")
    assert item is not None
    result = approve(item.id[:5], "Fix EACCES from npm by using a user-level prefix, not sudo.")
    assert result.entry is not None and result.entry["name"] == "mis-001"
    texts = [e["text"] for e in load_playbook(playbook_file)["sections"]["MISTAKES TO AVOID"]]
    assert texts == ["Fix EACCES from npm by using a user-level prefix, not sudo."]
    assert list_cycles(playbook_file)[-1].meta["review"]["edited"] is True


def test_approved_update_replaces_its_target_when_it_still_exists(playbook_file: Path) -> None:
    _seed(playbook_file, ("PATTERNS & APPROACHES", "Prefer small functions."))
    item = queue_text(
        "Prefer small functions with one job.",
        rule="review:all",
        operation="UPDATE",
        target_ids=["pat-001"],
        section="PATTERNS & APPROACHES",
    )
    assert item is not None
    result = approve(item.id)
    assert result.applied_as == "UPDATE"
    entries = load_playbook(playbook_file)["sections"]["PATTERNS & APPROACHES"]
    assert [(e["name"], e["text"]) for e in entries] == [
        ("pat-001", "Prefer small functions with one job.")
    ]


def test_approved_update_of_a_vanished_target_becomes_an_add(
    playbook_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = queue_text(
        "Prefer small functions with one job.",
        rule="review:all",
        operation="UPDATE",
        target_ids=["pat-009"],
        section="PATTERNS & APPROACHES",
    )
    assert item is not None
    result = approve(item.id)
    assert result.applied_as == "ADD"
    assert result.entry is not None and result.entry["name"] == "pat-001"
    assert "non-existent" not in capsys.readouterr().err


def test_approved_merge_applies_when_both_sources_exist(playbook_file: Path) -> None:
    _seed(
        playbook_file,
        ("MISTAKES TO AVOID", "Do not mutate fixtures."),
        ("MISTAKES TO AVOID", "Never edit shared fixtures in place."),
    )
    item = queue_text(
        "Never mutate shared fixtures; copy them first.",
        rule="review:all",
        operation="MERGE",
        target_ids=["mis-001", "mis-002"],
        section="MISTAKES TO AVOID",
    )
    assert item is not None
    result = approve(item.id)
    assert result.applied_as == "MERGE"
    entries = load_playbook(playbook_file)["sections"]["MISTAKES TO AVOID"]
    assert [e["text"] for e in entries] == ["Never mutate shared fixtures; copy them first."]


def test_approving_a_text_already_in_the_playbook_only_dequeues(playbook_file: Path) -> None:
    _seed(playbook_file, ("OTHERS", "Use tmp_path in tests."))
    item = queue_text("Use tmp_path in tests.", rule="review:all", section="OTHERS")
    assert item is not None
    result = approve(item.id)
    assert result.applied_as is None and result.entry is None
    assert "duplicate" in result.note
    assert len(load_playbook(playbook_file)["sections"]["OTHERS"]) == 1
    assert list_pending() == []


def test_reject_records_the_text_and_blocks_it_forever(playbook_file: Path) -> None:
    item = queue_text(DANGEROUS, rule="weaken-permissions", section="OTHERS")
    assert item is not None
    assert reject(item.id) == item
    assert list_pending() == []
    assert is_rejected(DANGEROUS)
    assert is_rejected("Run npm install with \u0455ud\u043e to avoid EACCES errors")
    assert not is_rejected("Run npm install with a user prefix.")
    assert queue_text(DANGEROUS, rule="weaken-permissions") is None
    assert list_pending() == []
    assert not playbook_file.exists()


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_unknown_or_ambiguous_ids_are_clear_errors(playbook_file: Path, action: str) -> None:
    queue_text("Use tmp_path in tests.", rule="review:all")
    call = approve if action == "approve" else reject
    with pytest.raises(QueueError, match="no pending item with ID 'zzzz'"):
        call("zzzz")
    with pytest.raises(QueueError, match="no pending item"):
        call("a")  # too short to be a prefix


def test_empty_edit_is_refused(playbook_file: Path) -> None:
    item = queue_text("Use tmp_path in tests.", rule="review:all")
    assert item is not None
    with pytest.raises(QueueError, match="empty"):
        approve(item.id, "   ")
    assert list_pending() == [item]


def test_corrupt_queue_is_reported_and_left_untouched(playbook_file: Path) -> None:
    path = queue_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"pending": [', encoding="utf-8")
    for call in (list_pending, lambda: queue_text("Use tmp_path.", rule="review:all")):
        with pytest.raises(QueueError, match="not a valid JSON file") as raised:
            call()
        assert "\n" not in str(raised.value)
    path.write_text('{"pending": [{"id": 1}]}', encoding="utf-8")
    with pytest.raises(QueueError, match="malformed pending item"):
        reject("abcd")
    assert path.read_text(encoding="utf-8") == '{"pending": [{"id": 1}]}'


def test_invalid_operation_or_empty_text_is_a_programming_error(playbook_file: Path) -> None:
    with pytest.raises(ValueError, match="DELETE"):
        queue_text("x", rule="r", operation="DELETE")
    with pytest.raises(ValueError, match="empty"):
        queue_text("  ", rule="r")


def test_a_held_queue_lock_times_out_with_a_clear_error(playbook_file: Path) -> None:
    """Another process holds the lock: bounded wait, then QueueError, queue unchanged."""
    item = queue_text("Use tmp_path in tests.", rule="review:all")
    assert item is not None
    lock = Path(str(queue_path()) + ".lock")
    with (
        lock_held_elsewhere(lock),
        pytest.raises(QueueError, match="locked by another acecode process"),
    ):
        reject(item.id, lock_timeout=0.3)
    assert list_pending() == [item]


def test_an_entry_a_merge_deleted_comes_back_under_a_new_id_with_its_counters(
    playbook_file: Path,
) -> None:
    """Its old ID was the section's highest, which a plain ADD would hand out again."""
    _seed(playbook_file, ("PATTERNS & APPROACHES", "Run pytest -x before pushing"))
    item = queue_text(
        "Use ruff format and ruff check",
        rule="merge-conflict",
        section="PATTERNS & APPROACHES",
        was="pat-002",
        counters=(4, 1),
    )
    assert item is not None
    assert list_pending() == [item]  # was and counters survive the file
    stored = json.loads(queue_path().read_text(encoding="utf-8"))["pending"][0]
    assert (stored["was"], stored["counters"]) == ("pat-002", [4, 1])

    approval = approve(item.id)

    assert approval.entry == {
        "name": "pat-003",
        "text": "Use ruff format and ruff check",
        "helpful": 4,
        "harmful": 1,
    }
    names = [e["name"] for e in load_playbook(playbook_file)["sections"]["PATTERNS & APPROACHES"]]
    assert names == ["pat-001", "pat-003"]
    last = list_cycles(playbook_file)[-1]
    assert (last.kind, last.meta["review"]["was"]) == ("review", "pat-002")


def test_a_brought_back_entry_the_counters_would_prune_comes_back_at_zero(
    playbook_file: Path,
) -> None:
    """As ``acecode restore`` does: bringing it back says the verdict against it was wrong."""
    item = queue_text(
        "Vendor every dependency", rule="merge-conflict", was="oth-007", counters=(1, 5)
    )
    assert item is not None
    approval = approve(item.id, "Vendor every dependency in third_party/")
    assert approval.entry == {
        "name": "oth-008",
        "text": "Vendor every dependency in third_party/",
        "helpful": 0,
        "harmful": 0,
    }


def test_an_old_queue_item_without_was_or_counters_still_loads_and_adds_at_zero(
    playbook_file: Path,
) -> None:
    item = queue_text("Keep commits small", rule="review:all")
    assert item is not None and item.was is None and item.counters is None
    raw = json.loads(queue_path().read_text(encoding="utf-8"))
    for record in raw["pending"]:
        del record["was"], record["counters"]
    queue_path().write_text(json.dumps(raw), encoding="utf-8")
    assert approve(item.id).entry == {
        "name": "oth-001",
        "text": "Keep commits small",
        "helpful": 0,
        "harmful": 0,
    }
