"""The history journal through ``update_playbook``: cycles, undo, restore."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import empty_playbook, iter_entries
from acecode.store import load_playbook, save_playbook, update_playbook
from acecode.store.history import (
    HistoryError,
    get_cycle,
    journal_path,
    list_cycles,
    restore_entry,
    short_id,
    undo_cycle,
    undo_entry,
)


@pytest.fixture
def path(project_dir: Path) -> Path:
    return project_dir / ".claude" / "playbook.json"


def run_ops(path: Path, ops: list[dict[str, Any]], **meta: Any) -> str | None:
    """One journaled cycle applying curator operations; returns the recorded cycle id."""
    with update_playbook(path) as txn:
        txn.playbook, _ = apply_operations_with_outcomes(txn.playbook, ops)
        txn.meta.update(meta)
    return txn.meta.get("cycle_id")


def texts(path: Path) -> dict[str, str]:
    return {entry["name"]: entry["text"] for _, entry in iter_entries(load_playbook(path))}


def seed(path: Path, count: int = 4) -> str | None:
    ops = [
        {
            "type": "ADD",
            "text": f"seed tip {i}: prefer ripgrep over grep",
            "section": "PATTERNS & APPROACHES",
        }
        for i in range(count)
    ]
    return run_ops(path, ops, kind="learn", source="seed.jsonl")


def test_every_saved_change_is_a_cycle_with_before_and_after(path: Path) -> None:
    seed(path, 3)
    cid = run_ops(
        path,
        [
            {"type": "UPDATE", "target_id": "pat-001", "text": "prefer rg -n over grep -rn"},
            {"type": "DELETE", "target_id": "pat-002", "reason": "obsolete"},
        ],
        cycle_id="cycle-b",
        kind="learn",
        source="/tmp/session-b.jsonl",
        removals={"pat-002": {"cause": "delete", "reason": "obsolete"}},
        operations=[{"type": "DELETE", "target_id": "pat-002"}],
    )
    assert cid == "cycle-b"
    cycles = list_cycles(path)
    assert [c.source for c in cycles] == ["seed.jsonl", "/tmp/session-b.jsonl"]
    assert cycles[0].counts["added"] == 3
    assert cycles[1].counts["updated"] == 1 and cycles[1].counts["deleted"] == 1
    assert cycles[1].operations == [{"type": "DELETE", "target_id": "pat-002"}]
    changes = {c.name: c for c in get_cycle(path, "cycle-b").changes}
    assert changes["pat-001"].before["text"] == "seed tip 0: prefer ripgrep over grep"
    assert changes["pat-001"].after["text"] == "prefer rg -n over grep -rn"
    assert changes["pat-002"].after is None
    assert (changes["pat-002"].cause, changes["pat-002"].reason) == ("delete", "obsolete")
    assert journal_path(path) == path.parent / "acecode" / "history.sqlite"
    with sqlite3.connect(journal_path(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_no_change_records_no_cycle(path: Path) -> None:
    seed(path)
    with update_playbook(path) as txn:
        txn.meta["source"] = "nothing"
    assert len(list_cycles(path)) == 1


def test_duplicate_cycle_id_gets_a_suffix(path: Path) -> None:
    seed(path)
    first = run_ops(path, [{"type": "ADD", "text": "a new tip"}], cycle_id="same")
    second = run_ops(path, [{"type": "ADD", "text": "another tip"}], cycle_id="same")
    assert (first, second) == ("same", "same-2")


def test_undo_a_keeps_b_unrelated_changes(path: Path) -> None:
    seed(path, 4)
    cycle_a = run_ops(
        path,
        [
            {"type": "ADD", "text": "A: run pytest -x first", "section": "MISTAKES TO AVOID"},
            {"type": "UPDATE", "target_id": "pat-001", "text": "A: updated pat-001"},
            {"type": "DELETE", "target_id": "pat-002"},
        ],
        source="a.jsonl",
    )
    cycle_b = run_ops(
        path,
        [
            {"type": "ADD", "text": "B: keep commits small", "section": "USER PREFERENCES"},
            {"type": "UPDATE", "target_id": "pat-003", "text": "B: updated pat-003"},
            {"type": "DELETE", "target_id": "pat-004"},
        ],
        source="b.jsonl",
    )
    result = undo_cycle(path, cycle_a)
    assert sorted(result.reverted) == ["mis-001", "pat-001", "pat-002"]
    assert texts(path) == {
        "pat-001": "seed tip 0: prefer ripgrep over grep",
        "pat-002": "seed tip 1: prefer ripgrep over grep",
        "pat-003": "B: updated pat-003",
        "pref-001": "B: keep commits small",
    }
    names = [e["name"] for e in load_playbook(path)["sections"]["PATTERNS & APPROACHES"]]
    assert names == ["pat-001", "pat-002", "pat-003"]  # restored in place
    cycles = {c.cycle_id: c for c in list_cycles(path)}
    assert cycles[cycle_a].undone_by == result.journal_cycle
    assert cycles[result.journal_cycle].kind == "undo"
    assert cycles[result.journal_cycle].undoes == cycle_a
    assert cycles[cycle_b].undone_by is None


def test_undo_of_the_only_cycle_restores_the_exact_playbook(path: Path) -> None:
    seed(path, 5)
    before = load_playbook(path)["sections"]
    run_ops(
        path,
        [
            {"type": "MERGE", "source_ids": ["pat-002", "pat-004"], "merged_text": "merged " * 9},
            {"type": "DELETE", "target_id": "pat-001"},
            {"type": "ADD", "text": "fresh", "section": "OTHERS"},
        ],
    )
    undo_cycle(path)
    assert load_playbook(path)["sections"] == before


def test_undo_conflicting_with_a_later_cycle_is_refused(path: Path) -> None:
    seed(path, 3)
    cycle_a = run_ops(
        path,
        [
            {"type": "UPDATE", "target_id": "pat-001", "text": "A text"},
            {"type": "UPDATE", "target_id": "pat-002", "text": "A other text"},
        ],
    )
    cycle_b = run_ops(path, [{"type": "UPDATE", "target_id": "pat-001", "text": "B text"}])
    snapshot = path.read_bytes()
    with pytest.raises(HistoryError) as raised:
        undo_cycle(path, cycle_a)
    message = str(raised.value)
    assert cycle_b is not None and short_id(cycle_b) in message
    assert "pat-001" in message and "--force" in message
    assert "`acecode undo pat-001`" in message  # the per-rule way out
    assert path.read_bytes() == snapshot
    assert len(list_cycles(path)) == 3

    forced = undo_cycle(path, cycle_a, force=True)
    assert forced.reverted == ["pat-002"]
    assert forced.skipped == [("pat-001", f"changed by later cycle {short_id(cycle_b)}")]
    assert texts(path)["pat-001"] == "B text"
    assert texts(path)["pat-002"] == "seed tip 1: prefer ripgrep over grep"


def test_a_cycle_whose_rated_entry_was_taken_back_alone_undoes_the_rest(path: Path) -> None:
    seed_id = seed(path, 2)
    with update_playbook(path) as txn:  # a later cycle rates pat-001
        txn.playbook["sections"]["PATTERNS & APPROACHES"][0]["helpful"] += 1
        txn.meta.update(kind="learn")
    taken = undo_entry(path, "pat-001")
    assert (taken.undone, taken.removed) == (seed_id, True)
    assert set(texts(path)) == {"pat-002"}

    result = undo_cycle(path, seed_id)  # pat-001 is already as before the cycle: not a conflict
    assert (result.reverted, result.skipped) == (["pat-002"], [])
    assert texts(path) == {}
    # the short id shown by `acecode history` names the cycle too
    assert seed_id is not None and get_cycle(path, short_id(seed_id)).cycle_id == seed_id


def test_change_outside_the_journal_is_a_conflict(path: Path) -> None:
    seed(path, 2)
    cycle_a = run_ops(path, [{"type": "UPDATE", "target_id": "pat-001", "text": "A text"}])
    playbook = load_playbook(path)
    playbook["sections"]["PATTERNS & APPROACHES"][0]["text"] = "hand edit"
    save_playbook(playbook, path)  # not journaled
    with pytest.raises(HistoryError, match="pat-001 changed outside acecode"):
        undo_cycle(path, cycle_a)


def test_repeated_undo_walks_back_and_redo_is_an_undo_of_an_undo(path: Path) -> None:
    first = seed(path, 2)
    second = run_ops(path, [{"type": "ADD", "text": "second cycle tip"}])
    assert undo_cycle(path).undone == second
    assert undo_cycle(path).undone == first
    assert texts(path) == {}
    with pytest.raises(HistoryError, match="nothing to undo"):
        undo_cycle(path)
    with pytest.raises(HistoryError, match="already undone by cycle"):
        undo_cycle(path, first)
    undo_of_first = next(c for c in list_cycles(path) if c.undoes == first)
    undo_cycle(path, undo_of_first.cycle_id)  # redo
    assert len(texts(path)) == 2
    assert next(c for c in list_cycles(path) if c.cycle_id == first).undone_by is None


def test_unknown_and_ambiguous_cycles_are_clear_errors(path: Path) -> None:
    run_ops(path, [{"type": "ADD", "text": "one"}], cycle_id="run-1")
    run_ops(path, [{"type": "ADD", "text": "two"}], cycle_id="run-2")
    with pytest.raises(HistoryError, match="unknown cycle 'nope'"):
        undo_cycle(path, "nope")
    with pytest.raises(HistoryError, match="ambiguous"):
        undo_cycle(path, "run")
    assert undo_cycle(path, "run-1").undone == "run-1"


def test_restore_a_pruned_entry_with_reset_counters(path: Path) -> None:
    playbook = empty_playbook()
    playbook["sections"]["MISTAKES TO AVOID"] = [
        {"name": "mis-001", "text": "never skip the linter", "helpful": 1, "harmful": 4},
        {"name": "mis-002", "text": "check the lockfile", "helpful": 2, "harmful": 0},
    ]
    with update_playbook(path) as txn:
        txn.playbook = playbook
    with update_playbook(path) as txn:
        txn.playbook = {**txn.playbook, "sections": {**txn.playbook["sections"]}}
        txn.playbook["sections"]["MISTAKES TO AVOID"] = txn.playbook["sections"][
            "MISTAKES TO AVOID"
        ][1:]
        txn.meta["removals"] = {"mis-001": {"cause": "prune", "reason": "harmful 4 > helpful 1"}}
    assert list_cycles(path)[-1].counts["pruned"] == 1
    result = restore_entry(path, "mis-001")
    assert (result.restored_as, result.section, result.counters_reset) == (
        "mis-001",
        "MISTAKES TO AVOID",
        True,
    )
    restored = load_playbook(path)["sections"]["MISTAKES TO AVOID"][-1]
    assert restored == {
        "name": "mis-001",
        "text": "never skip the linter",
        "helpful": 0,
        "harmful": 0,
    }
    last = list_cycles(path)[-1]
    assert last.kind == "restore" and last.counts["added"] == 1
    with pytest.raises(HistoryError, match="already in the playbook as mis-001"):
        restore_entry(path, "mis-001")


def test_restore_a_deleted_entry_under_a_new_id_when_the_name_is_taken(path: Path) -> None:
    seed(path, 2)
    run_ops(path, [{"type": "DELETE", "target_id": "pat-002"}])
    run_ops(
        path, [{"type": "ADD", "text": "reuses the freed id", "section": "PATTERNS & APPROACHES"}]
    )
    assert texts(path)["pat-002"] == "reuses the freed id"
    result = restore_entry(path, "pat-002")
    assert result.restored_as == "pat-003" and result.counters_reset is False
    assert texts(path)["pat-003"] == "seed tip 1: prefer ripgrep over grep"


def test_restore_a_merged_away_entry(path: Path) -> None:
    seed(path, 3)
    run_ops(
        path, [{"type": "MERGE", "source_ids": ["pat-001", "pat-002"], "merged_text": "m" * 80}]
    )
    restore_entry(path, "pat-001")
    assert texts(path)["pat-001"] == "seed tip 0: prefer ripgrep over grep"


def test_restore_unknown_name_is_a_clear_error(path: Path) -> None:
    seed(path, 1)
    with pytest.raises(HistoryError, match="no removed entry named 'pat-404'"):
        restore_entry(path, "pat-404")


def test_journal_failure_refuses_the_save_and_changes_nothing(path: Path) -> None:
    """A save and its history commit together (``acecode.store.commit``): a journal that
    cannot be written refuses the save with one line naming it, and the playbook is as it
    was (here: still absent), so ``undo`` never meets a change it has no record of."""
    from acecode.store.errors import PlaybookWriteError

    journal_path(path).mkdir(parents=True)  # a folder where the database should be
    with pytest.raises(PlaybookWriteError, match="history journal cannot be written"):
        seed(path, 2)
    assert not path.exists()


def test_causes_derived_from_outcomes_and_pruned_records(path: Path) -> None:
    """The meta the learning cycle records (outcome dicts, pruned records) gives the causes."""
    from acecode.playbook.scoring import prune_harmful_detailed

    seed(path, 4)
    with update_playbook(path) as txn:
        playbook = txn.playbook
        harmful = {**playbook["sections"]["PATTERNS & APPROACHES"][3], "harmful": 3}
        playbook["sections"]["PATTERNS & APPROACHES"][3] = harmful
        playbook, outcomes = apply_operations_with_outcomes(
            playbook,
            [
                {"type": "DELETE", "target_id": "pat-001"},
                {"type": "MERGE", "source_ids": ["pat-002", "pat-003"], "merged_text": "m" * 60},
            ],
        )
        playbook, pruned = prune_harmful_detailed(playbook)
        txn.playbook = playbook
        txn.meta.update(
            operations=[outcome.as_dict() for outcome in outcomes],
            pruned=[{"section": s, "entry": e, "reason": "harmful"} for s, e in pruned],
        )
    cycle = get_cycle(path)
    causes = {c.name: c.cause for c in cycle.changes if c.after is None}
    assert causes == {
        "pat-001": "delete",
        "pat-002": "merge",
        "pat-003": "merge",
        "pat-004": "prune",
    }
    assert cycle.counts["deleted"] == 1
    assert cycle.counts["merged"] == 2
    assert cycle.counts["pruned"] == 1
    assert cycle.counts["added"] == 1
