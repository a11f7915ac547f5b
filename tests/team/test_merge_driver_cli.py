"""``acecode merge-driver`` run directly, as git runs it, on files that git would pass.

The failure paths that a real ``git merge`` makes hard to stage: the review
queue cannot be written, a version names two entries alike, the journal is
broken; and the virtual-base mode, which must neither queue nor journal.
"""

from __future__ import annotations

import json
from pathlib import Path

from team_support import PLAYBOOK, acecode, commit, entries, git, playbook

from acecode.quarantine.queue import list_pending
from acecode.store import serialize_playbook
from acecode.store.history import list_cycles

BASE = playbook(pat=[("pat-001", "Run the linters", 1, 0)])
OURS = playbook(pat=[("pat-001", "Run the linters with --fix", 1, 0)])
THEIRS = playbook(pat=[("pat-001", "Run the linters in CI only", 1, 0)])


def stage(project: Path, base: dict, ours: dict, theirs: dict) -> list[str]:
    """Write the three versions as git's temporary files in the repository root."""
    names = [".merge_file_base", ".merge_file_ours", ".merge_file_theirs"]
    for name, book in zip(names, (base, ours, theirs), strict=True):
        (project / name).write_text(serialize_playbook(book), encoding="utf-8")
    return names


def test_a_queue_that_cannot_be_written_leaves_the_conflict(project_dir: Path) -> None:
    files = stage(project_dir, BASE, OURS, THEIRS)
    queue = project_dir / ".claude" / "acecode" / "pending.json"
    queue.parent.mkdir(parents=True)
    queue.write_text("{ broken")
    ours_before = (project_dir / files[1]).read_bytes()

    done = acecode(project_dir, "merge-driver", *files, str(PLAYBOOK), ok=(1,))

    assert done.stderr.count("\n") == 1
    assert "could not hold pat-001's text for review" in done.stderr
    assert "pending.json" in done.stderr and "git leaves the conflict" in done.stderr
    assert (project_dir / files[1]).read_bytes() == ours_before
    assert queue.read_text() == "{ broken"


def test_a_name_used_twice_is_renamed_reported_and_merged(project_dir: Path) -> None:
    """A hand edit that repeats an ID is read like any load reads it: the repeat gets
    its section's next free ID and one line names it, so the merge loses nothing."""
    twice = playbook(
        pat=[("pat-001", "Run the linters", 1, 0)], mis=[("pat-001", "Another text", 0, 0)]
    )
    files = stage(project_dir, BASE, OURS, twice)
    done = acecode(project_dir, "merge-driver", *files, str(PLAYBOOK))
    assert "'pat-001' in MISTAKES TO AVOID repeats an ID" in done.stderr
    assert "renamed 'mis-001'" in done.stderr
    merged = (project_dir / files[1]).read_text()
    assert "Another text" in merged and "Run the linters" in merged


def test_the_virtual_base_mode_queues_and_journals_nothing(project_dir: Path) -> None:
    files = stage(project_dir, BASE, OURS, THEIRS)
    done = acecode(project_dir, "merge-driver", "--virtual-base", *files, str(PLAYBOOK))
    assert done.stderr == ""
    merged = json.loads((project_dir / files[1]).read_text())
    assert merged["sections"]["PATTERNS & APPROACHES"][0]["text"] == "Run the linters"
    assert list_pending(project_dir / PLAYBOOK) == []
    assert list_cycles(project_dir / PLAYBOOK) == []


def test_a_broken_journal_does_not_stop_the_merge(project_dir: Path) -> None:
    files = stage(project_dir, BASE, BASE, THEIRS)
    journal = project_dir / ".claude" / "acecode" / "history.sqlite"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b"not a database")

    done = acecode(project_dir, "merge-driver", *files, str(PLAYBOOK))

    assert "history journal not updated" in done.stderr
    merged = json.loads((project_dir / files[1]).read_text())
    assert merged["sections"]["PATTERNS & APPROACHES"][0]["text"] == "Run the linters in CI only"


def test_two_branches_that_each_created_the_playbook_merge(project_dir: Path) -> None:
    """No common version (git passes an empty base): both sides' entries are kept."""
    git(project_dir, "init", "-q", "-b", "main")
    acecode(project_dir, "install", "--git")
    git(project_dir, "add", ".gitattributes")
    git(project_dir, "commit", "-qm", "attributes")
    git(project_dir, "checkout", "-qb", "feature")
    commit(project_dir, playbook(pat=[("pat-001", "Feature: use uv", 1, 0)]), "feature starts")
    git(project_dir, "checkout", "-q", "main")
    commit(project_dir, playbook(pat=[("pat-001", "Main: use pip-tools", 2, 0)]), "main starts")

    git(project_dir, "merge", "--no-edit", "feature")

    assert {name: e["text"] for name, (_, e) in entries(project_dir).items()} == {
        "pat-001": "Main: use pip-tools",
        "pat-002": "Feature: use uv",
    }
