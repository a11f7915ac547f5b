"""``acecode merge-driver`` under real ``git merge``, ``rebase`` and ``cherry-pick`` runs.

Each test builds a repository in the test's project folder, registers the
driver with ``acecode install --git`` (a real subprocess, as a user runs it),
lets two branches change ``.claude/playbook.json`` and merges them with git.
After every merge the file must load, be byte-identical to what acecode
writes, and ``git status`` must show nothing of acecode's own state.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from team_support import (
    PLAYBOOK,
    acecode,
    assert_canonical,
    commit,
    diverge,
    entries,
    git,
    init_repo,
    playbook,
    status,
)

from acecode.playbook.schema import SECTION_NAMES
from acecode.quarantine.queue import list_pending

pytestmark = pytest.mark.slow  # about 4 s each: git runs the driver as a fresh process

PAT, MIS = SECTION_NAMES[0], SECTION_NAMES[1]
BASE_ROWS = [
    ("pat-001", "Run pytest -x before pushing", 2, 0),
    ("pat-002", "Use ruff format", 1, 0),
]
MIS_ROWS = [("mis-001", "Do not edit generated protobuf files", 0, 1)]
BASE = playbook(pat=BASE_ROWS, mis=MIS_ROWS)


def merged_cleanly(repo: Path) -> None:
    """The merge committed, the file is canonical, and git status is clean."""
    assert_canonical(repo)
    assert status(repo) == []
    assert git(repo, "rev-list", "--count", "--merges", "HEAD").stdout.strip() == "1"


def test_counters_from_both_branches_add_up(project_dir: Path) -> None:
    ours = playbook(
        pat=[("pat-001", "Run pytest -x before pushing", 5, 0), BASE_ROWS[1]], mis=MIS_ROWS
    )
    theirs = playbook(
        pat=[("pat-001", "Run pytest -x before pushing", 3, 1), BASE_ROWS[1]], mis=MIS_ROWS
    )
    done = diverge(project_dir, BASE, ours, theirs)
    assert "acecode: merged .claude/playbook.json by entry" in done.stderr
    assert entries(project_dir)["pat-001"][1] == {
        "name": "pat-001",
        "text": "Run pytest -x before pushing",
        "helpful": 6,  # 2 + 3 + 1
        "harmful": 1,
    }
    merged_cleanly(project_dir)


def test_a_text_edited_on_one_branch_takes_that_edit(project_dir: Path) -> None:
    ours = playbook(pat=[BASE_ROWS[0], ("pat-002", "Use ruff format", 4, 0)], mis=MIS_ROWS)
    theirs = playbook(
        pat=[BASE_ROWS[0], ("pat-002", "Use ruff format and ruff check", 1, 0)], mis=MIS_ROWS
    )
    diverge(project_dir, BASE, ours, theirs)
    assert entries(project_dir)["pat-002"][1]["text"] == "Use ruff format and ruff check"
    assert entries(project_dir)["pat-002"][1]["helpful"] == 4
    assert list_pending(project_dir / PLAYBOOK) == []
    merged_cleanly(project_dir)


def test_a_text_edited_on_both_branches_keeps_ours_and_queues_theirs(project_dir: Path) -> None:
    ours = playbook(
        pat=[("pat-001", "Run pytest -x -q before pushing", 2, 0), BASE_ROWS[1]], mis=MIS_ROWS
    )
    theirs = playbook(
        pat=[("pat-001", "Run the whole test suite before pushing", 3, 0), BASE_ROWS[1]],
        mis=MIS_ROWS,
    )
    done = diverge(project_dir, BASE, ours, theirs)
    assert entries(project_dir)["pat-001"][1]["text"] == "Run pytest -x -q before pushing"
    [held] = list_pending(project_dir / PLAYBOOK)
    assert held.text == "Run the whole test suite before pushing"
    assert (held.operation, held.target_ids, held.rule) == (
        "UPDATE",
        ("pat-001",),
        "merge-conflict",
    )
    assert "pat-001 was edited on both main and feature" in held.detail
    assert "main's text was kept, this is feature's" in held.detail
    assert held.id in done.stderr
    merged_cleanly(project_dir)

    listing = acecode(project_dir, "review", env={"COLUMNS": "300"}).stdout
    assert held.id in listing and "merge-conflict" in listing
    acecode(project_dir, "review", "approve", held.id)
    assert entries(project_dir)["pat-001"][1]["text"] == "Run the whole test suite before pushing"


def test_the_same_new_id_is_renumbered_or_kept_once(project_dir: Path) -> None:
    ours = playbook(
        pat=[*BASE_ROWS, ("pat-003", "Pin the Python version in CI", 1, 0)],
        mis=[*MIS_ROWS, ("mis-002", "Never commit .env files", 1, 0)],
    )
    theirs = playbook(
        pat=[*BASE_ROWS, ("pat-003", "Cache the virtualenv between CI runs", 2, 0)],
        mis=[*MIS_ROWS, ("mis-002", "Never commit .env files", 2, 0)],
    )
    done = diverge(project_dir, BASE, ours, theirs)
    merged = entries(project_dir)
    assert merged["pat-003"] == (
        PAT,
        {"name": "pat-003", "text": "Pin the Python version in CI", "helpful": 1, "harmful": 0},
    )
    assert merged["pat-004"][1]["text"] == "Cache the virtualenv between CI runs"
    assert merged["mis-002"][1]["helpful"] == 3
    assert [name for name in merged if name.startswith("mis")] == ["mis-001", "mis-002"]
    assert "their new pat-003 is now pat-004" in done.stderr
    merged_cleanly(project_dir)


def test_a_deletion_stands_unless_the_other_branch_changed_the_entry(project_dir: Path) -> None:
    ours = playbook(pat=[("pat-001", "Run pytest -x before pushing", 5, 0)])  # -pat-002, -mis-001
    theirs = playbook(
        pat=[BASE_ROWS[1]],  # deleted pat-001, which main rated; pat-002 untouched
        mis=[("mis-001", "Do not edit generated protobuf or gRPC files", 0, 1)],  # edited
    )
    diverge(project_dir, BASE, ours, theirs)
    assert entries(project_dir) == {}
    held = {item.text: item for item in list_pending(project_dir / PLAYBOOK)}
    assert set(held) == {
        "Do not edit generated protobuf or gRPC files",
        "Run pytest -x before pushing",
    }
    theirs_edit = held["Do not edit generated protobuf or gRPC files"]
    assert (theirs_edit.operation, theirs_edit.section) == ("ADD", MIS)
    assert "mis-001 was deleted on main but changed on feature" in theirs_edit.detail
    our_rating = held["Run pytest -x before pushing"]
    assert "pat-001 was deleted on feature but changed on main" in our_rating.detail
    merged_cleanly(project_dir)

    acecode(project_dir, "restore", "pat-001")  # the journal kept main's version
    assert entries(project_dir)["pat-001"][1]["helpful"] == 5


def test_an_entry_moved_between_sections_on_one_branch_takes_the_move(project_dir: Path) -> None:
    ours = playbook(pat=[BASE_ROWS[0]], mis=[*MIS_ROWS, ("pat-002", "Use ruff format", 1, 0)])
    theirs = playbook(pat=[BASE_ROWS[0], ("pat-002", "Use ruff format", 3, 0)], mis=MIS_ROWS)
    diverge(project_dir, BASE, ours, theirs)
    assert entries(project_dir)["pat-002"] == (
        MIS,
        {"name": "pat-002", "text": "Use ruff format", "helpful": 3, "harmful": 0},
    )
    merged_cleanly(project_dir)


@pytest.mark.parametrize(
    "broken", ["{not json", '{"sections": 3}', ""], ids=["json", "shape", "empty"]
)
def test_an_unparseable_side_leaves_the_conflict_and_writes_nothing(
    project_dir: Path, broken: str
) -> None:
    init_repo(project_dir, BASE)
    git(project_dir, "checkout", "-qb", "feature")
    (project_dir / PLAYBOOK).write_text(broken)
    git(project_dir, "commit", "-qam", "feature broke the playbook")
    git(project_dir, "checkout", "-q", "main")
    ours = playbook(pat=[("pat-001", "Run pytest -x before pushing", 9, 0)])
    commit(project_dir, ours, "main learned")
    ours_bytes = (project_dir / PLAYBOOK).read_bytes()

    done = git(project_dir, "merge", "--no-edit", "feature", ok=(1,))

    lines = [line for line in done.stderr.splitlines() if line.startswith("acecode:")]
    assert len(lines) == 1
    assert "their version" in lines[0] and "git leaves the conflict" in lines[0]
    assert (project_dir / PLAYBOOK).read_bytes() == ours_bytes
    assert "UU .claude/playbook.json" in status(project_dir)
    assert list_pending(project_dir / PLAYBOOK) == []


def test_the_merge_is_journaled_and_can_be_undone(project_dir: Path) -> None:
    ours = playbook(
        pat=[("pat-001", "Run pytest -x before pushing", 4, 0), BASE_ROWS[1]], mis=MIS_ROWS
    )
    theirs = playbook(
        pat=[*BASE_ROWS, ("pat-003", "Prefer pathlib over os.path", 1, 0)], mis=MIS_ROWS
    )
    diverge(project_dir, BASE, ours, theirs)
    [cycle] = json.loads(acecode(project_dir, "history", "--json").stdout)
    assert (cycle["kind"], cycle["source"]) == ("merge", "git merge feature")
    assert cycle["counts"]["added"] == 1
    assert "pat-003" in entries(project_dir)

    acecode(project_dir, "undo", cycle["cycle_id"])
    assert set(entries(project_dir)) == {"pat-001", "pat-002", "mis-001"}  # main's entries
    assert entries(project_dir)["pat-001"][1]["helpful"] == 4
    # The undo is a change to commit (the lock file beside the playbook is another matter:
    # acecode's playbook lock moves into the ignored state folder in a separate change).
    assert " M .claude/playbook.json" in status(project_dir)


def linters(helpful: int, tests: str) -> dict:
    """The criss-cross test's playbook: one rated entry, one edited text."""
    return playbook(
        pat=[("pat-001", "Run the linters", helpful, 0), ("pat-002", f"Tests: {tests}", 0, 0)]
    )


def test_a_criss_cross_merge_uses_the_driver_for_the_virtual_base(project_dir: Path) -> None:
    """Two merge bases: git merges them with ``merge.acecode.recursive`` first.

    Counts are right only when the virtual base holds both bases' increments
    (a single base would count one side's early increments twice), and the
    text both bases changed differently is kept by ours and held for review.
    """
    init_repo(project_dir, linters(0, "a"))
    git(project_dir, "branch", "other")
    commit(project_dir, linters(1, "b"), "B1")
    git(project_dir, "tag", "B1")
    git(project_dir, "checkout", "-q", "other")
    commit(project_dir, linters(2, "c"), "C1")
    git(project_dir, "tag", "C1")
    git(project_dir, "checkout", "-q", "main")
    git(project_dir, "merge", "--no-edit", "C1")  # B2 = B1 + C1 on main
    git(project_dir, "checkout", "-q", "other")
    git(project_dir, "merge", "--no-edit", "B1")  # C2 = C1 + B1 on other: criss-cross
    commit(project_dir, linters(5, "c"), "C3: +2")
    git(project_dir, "checkout", "-q", "main")
    commit(project_dir, linters(4, "b"), "B3: +1")
    bases = git(project_dir, "merge-base", "--all", "main", "other").stdout.split()
    assert len(bases) == 2

    done = git(project_dir, "merge", "--no-edit", "other", env={"GIT_TRACE": "1"})

    assert "merge-driver --virtual-base" in done.stderr
    merged = entries(project_dir)
    assert merged["pat-001"][1]["helpful"] == 6  # B1 +1, C1 +2, B3 +1, C3 +2
    assert merged["pat-002"][1]["text"] == "Tests: b"
    assert "Tests: c" in {item.text for item in list_pending(project_dir / PLAYBOOK)}
    assert_canonical(project_dir)
    assert status(project_dir) == []
    kinds = [c["kind"] for c in json.loads(acecode(project_dir, "history", "--json").stdout)]
    assert kinds == ["merge", "merge", "merge"]  # B2, C2, the outer merge; not the virtual base


def test_a_rebase_uses_the_driver(project_dir: Path) -> None:
    init_repo(project_dir, BASE)
    git(project_dir, "checkout", "-qb", "feature")
    commit(
        project_dir,
        playbook(pat=[*BASE_ROWS, ("pat-003", "Feature lesson", 0, 0)], mis=MIS_ROWS),
        "f1",
    )
    git(project_dir, "checkout", "-q", "main")
    commit(
        project_dir,
        playbook(pat=[*BASE_ROWS, ("pat-003", "Main lesson", 1, 0)], mis=MIS_ROWS),
        "m1",
    )
    git(project_dir, "checkout", "-q", "feature")

    git(project_dir, "rebase", "main")

    merged = entries(project_dir)
    assert merged["pat-003"][1]["text"] == "Main lesson"  # upstream is "ours" in a rebase
    assert merged["pat-004"][1]["text"] == "Feature lesson"
    assert_canonical(project_dir)
    assert status(project_dir) == []


def test_a_cherry_pick_uses_the_driver(project_dir: Path) -> None:
    init_repo(project_dir, BASE)
    git(project_dir, "checkout", "-qb", "feature")
    commit(
        project_dir,
        playbook(
            pat=[("pat-001", "Run pytest -x before pushing", 3, 0), BASE_ROWS[1]], mis=MIS_ROWS
        ),
        "f1",
    )
    git(project_dir, "checkout", "-q", "main")
    commit(
        project_dir,
        playbook(
            pat=[("pat-001", "Run pytest -x before pushing", 2, 2), BASE_ROWS[1]], mis=MIS_ROWS
        ),
        "m1",
    )

    git(project_dir, "cherry-pick", "feature")

    assert entries(project_dir)["pat-001"][1] == {
        "name": "pat-001",
        "text": "Run pytest -x before pushing",
        "helpful": 3,
        "harmful": 2,
    }
    assert_canonical(project_dir)
    assert status(project_dir) == []


def test_teammates_pulling_each_others_lessons(project_dir: Path) -> None:
    """Two clones of one origin, each with the driver, both learn; ``git pull`` merges."""
    origin, ada, bob = project_dir / "origin.git", project_dir / "ada", project_dir / "bob"
    git(project_dir, "init", "-q", "--bare", "-b", "main", str(origin))
    ada.mkdir()
    init_repo(ada, BASE)
    git(ada, "remote", "add", "origin", str(origin))
    git(ada, "push", "-q", "origin", "main")
    git(project_dir, "clone", "-q", str(origin), str(bob))
    acecode(bob, "install", "--git")
    assert status(bob) == []  # .gitattributes came with the clone; only the config was added

    commit(ada, playbook(pat=[*BASE_ROWS, ("pat-003", "Ada's lesson", 1, 0)], mis=MIS_ROWS), "ada")
    git(ada, "push", "-q", "origin", "main")
    commit(bob, playbook(pat=[*BASE_ROWS, ("pat-003", "Bob's lesson", 0, 0)], mis=MIS_ROWS), "bob")
    git(bob, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")

    merged = entries(bob)
    assert merged["pat-003"][1]["text"] == "Bob's lesson"
    assert merged["pat-004"][1]["text"] == "Ada's lesson"
    assert_canonical(bob)
    assert status(bob) == []


def test_approving_a_deleted_but_changed_entry_brings_it_back_under_a_new_id(
    project_dir: Path,
) -> None:
    """main deleted pat-002 (the section's highest ID), feature edited and rated it.

    Approving the held version adds it as pat-003, never as pat-002 (that ID
    names the deleted entry in the history), with the counters feature gave it.
    """
    ours = playbook(pat=[BASE_ROWS[0]], mis=MIS_ROWS)
    theirs = playbook(
        pat=[BASE_ROWS[0], ("pat-002", "Use ruff format and ruff check", 3, 1)], mis=MIS_ROWS
    )
    diverge(project_dir, BASE, ours, theirs)
    assert "pat-002" not in entries(project_dir)
    [held] = list_pending(project_dir / PLAYBOOK)
    assert (held.operation, held.was, held.counters) == ("ADD", "pat-002", (3, 1))
    assert "approve to bring it back under a new ID with these counters" in held.detail
    merged_cleanly(project_dir)

    done = acecode(project_dir, "review", "approve", held.id, env={"COLUMNS": "300"})

    assert "added [pat-003] in PATTERNS & APPROACHES" in done.stdout
    assert "It was pat-002 before the merge deleted it (helpful 3, harmful 1)" in done.stdout
    assert entries(project_dir)["pat-003"] == (
        PAT,
        {"name": "pat-003", "text": "Use ruff format and ruff check", "helpful": 3, "harmful": 1},
    )
    assert "pat-002" not in entries(project_dir)
    assert list_pending(project_dir / PLAYBOOK) == []
    last = json.loads(acecode(project_dir, "history", "--json").stdout)[-1]
    assert last["kind"] == "review"
    why = acecode(project_dir, "why", "pat-003", env={"COLUMNS": "300"}).stdout
    assert "it was pat-002, which a git merge deleted while it was changed" in why
    assert_canonical(project_dir)
