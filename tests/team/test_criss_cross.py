"""Criss-cross and same-ID clash merges in real repositories: counters stay exact.

Each test registers the driver with ``acecode install --git`` and lets git
merge: two branches merge each other (each taking the other's head from
before its own merge, as teammates do with what they last fetched), so the
next merge between them has two merge bases and git first merges those into
a virtual base with the driver's ``--virtual-base`` mode. The last test
replays random team histories (tests/support/merge_history.py) in a real
repository and checks the counters after every ``git merge``.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from team_support import (
    PLAYBOOK,
    acecode,
    assert_canonical,
    commit,
    entries,
    git,
    init_repo,
    playbook,
    status,
)

from acecode.project.pins import pins_path, read_pins
from acecode.quarantine.queue import list_pending
from acecode.store import load_playbook
from support.merge_history import Commit, Replay, Step, criss_cross_histories

pytestmark = pytest.mark.slow  # git runs the driver as a fresh process for every merge

BASE_ROW = ("pat-001", "Run the linters before committing", 1, 0)


def by_text(repo: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry of the working tree by text: (ID, helpful, harmful)."""
    return {e["text"]: (name, e["helpful"], e["harmful"]) for name, (_, e) in entries(repo).items()}


def criss_cross(repo: Path, x1: dict[str, Any], y1: dict[str, Any]) -> None:
    """Branch ``x`` commits ``x1``, branch ``y`` commits ``y1``; each merges the other's
    commit: ``x`` is then X1 + Y1 and ``y`` is Y1 + X1, two merges of the same pair."""
    git(repo, "branch", "y")
    git(repo, "checkout", "-qb", "x")
    commit(repo, saved(x1), "x learned")
    git(repo, "tag", "X1")
    git(repo, "checkout", "-q", "y")
    commit(repo, saved(y1), "y learned")
    git(repo, "tag", "Y1")
    git(repo, "checkout", "-q", "x")
    git(repo, "merge", "--no-edit", "Y1")
    git(repo, "checkout", "-q", "y")
    git(repo, "merge", "--no-edit", "X1")


_SAVES = itertools.count(1)


def saved(book: dict[str, Any]) -> dict[str, Any]:
    """``book`` with a time stamp of its own, as every save by acecode has (two
    saves are never the same file, which git would take once without the driver)."""
    return {**book, "last_updated": f"2025-01-01T10:{next(_SAVES):02d}:00+00:00"}


def rate(repo: Path, branch: str, text: str, helpful: int = 1) -> None:
    """On ``branch``, add ``helpful`` to the entry whose text is ``text``; commit."""
    git(repo, "checkout", "-q", branch)
    book = load_playbook(repo / PLAYBOOK)
    for section in book["sections"].values():
        for position, entry in enumerate(section):
            if entry["text"] == text:
                section[position] = {**entry, "helpful": entry["helpful"] + helpful}
    commit(repo, saved(book), f"{branch} rated {text}")


def merge_again(repo: Path) -> str:
    """``x`` merges ``y``: two merge bases, so git runs the driver for a virtual base."""
    git(repo, "checkout", "-q", "x")
    assert len(git(repo, "merge-base", "--all", "x", "y").stdout.split()) == 2
    done = git(repo, "merge", "--no-edit", "y", env={"GIT_TRACE": "1"})
    assert "merge-driver --virtual-base" in done.stderr
    assert_canonical(repo)
    assert status(repo) == []
    return done.stderr


def test_two_rules_under_the_same_new_id_merged_both_ways_then_again(project_dir: Path) -> None:
    """The issue's history: each rule once, with its own counters, not doubled."""
    init_repo(project_dir, playbook(pat=[BASE_ROW]))
    criss_cross(
        project_dir,
        playbook(pat=[BASE_ROW, ("pat-002", "Pin the Python version in CI", 3, 0)]),
        playbook(pat=[BASE_ROW, ("pat-002", "Cache the virtualenv between runs", 2, 1)]),
    )
    assert by_text(project_dir)["Pin the Python version in CI"][0] == "pat-003"  # on y

    merge_again(project_dir)

    merged = {text: counters for text, (_, *counters) in by_text(project_dir).items()}
    assert merged == {
        "Pin the Python version in CI": [3, 0],
        "Cache the virtualenv between runs": [2, 1],
        "Run the linters before committing": [1, 0],
    }
    # Which branch's numbering wins is git's choice (the order of the merge bases).
    assert sorted(entries(project_dir)) == ["pat-001", "pat-002", "pat-003"]


def test_ratings_after_the_criss_cross_count_once_whatever_id_each_branch_gave(
    project_dir: Path,
) -> None:
    init_repo(project_dir, playbook(pat=[BASE_ROW]))
    criss_cross(
        project_dir,
        playbook(pat=[BASE_ROW, ("pat-002", "Pin the Python version in CI", 3, 0)]),
        playbook(pat=[BASE_ROW, ("pat-002", "Cache the virtualenv between runs", 2, 0)]),
    )
    rate(project_dir, "x", "Cache the virtualenv between runs", 2)  # pat-003 on x
    rate(project_dir, "y", "Cache the virtualenv between runs", 1)  # pat-002 on y
    rate(project_dir, "y", "Pin the Python version in CI", 4)  # pat-003 on y

    merge_again(project_dir)

    merged = by_text(project_dir)
    assert merged["Pin the Python version in CI"][1] == 3 + 4
    assert merged["Cache the virtualenv between runs"][1] == 2 + 2 + 1
    assert len(merged) == 3


def test_the_same_rule_edited_on_both_sides_keeps_exact_counters(project_dir: Path) -> None:
    init_repo(project_dir, playbook(pat=[BASE_ROW]))
    criss_cross(
        project_dir,
        playbook(pat=[("pat-001", "Run the linters before every commit", 2, 0)]),  # +1
        playbook(pat=[("pat-001", "Run the linters and the type checker", 3, 1)]),  # +2, +1
    )
    rate(project_dir, "x", "Run the linters before every commit")  # +1
    rate(project_dir, "y", "Run the linters and the type checker", 2)  # +2

    merge_again(project_dir)

    [(name, (_, entry))] = entries(project_dir).items()
    assert (name, entry["text"]) == ("pat-001", "Run the linters before every commit")
    assert (entry["helpful"], entry["harmful"]) == (1 + 1 + 2 + 1 + 2, 1)
    held = {item.text for item in list_pending(project_dir / PLAYBOOK)}
    assert "Run the linters and the type checker" in held


def test_the_same_rating_on_both_sides_counts_twice(project_dir: Path) -> None:
    """Two sessions each rated the rule once, before and after the criss-cross."""
    init_repo(project_dir, playbook(pat=[BASE_ROW]))
    criss_cross(
        project_dir,
        playbook(pat=[("pat-001", BASE_ROW[1], 2, 0)]),
        playbook(pat=[("pat-001", BASE_ROW[1], 2, 0)]),
    )
    assert by_text(project_dir)[BASE_ROW[1]] == ("pat-001", 3, 0)  # 1 + 1 + 1
    rate(project_dir, "x", BASE_ROW[1])
    rate(project_dir, "y", BASE_ROW[1])

    merge_again(project_dir)

    assert by_text(project_dir)[BASE_ROW[1]] == ("pat-001", 5, 0)


def test_a_deletion_on_one_side_stays_deleted_and_other_counters_stay_exact(
    project_dir: Path,
) -> None:
    gone = ("pat-002", "Squash commits before merging", 2, 0)
    init_repo(project_dir, playbook(pat=[BASE_ROW, gone]))
    criss_cross(
        project_dir,
        playbook(pat=[BASE_ROW]),  # x deleted pat-002
        playbook(pat=[("pat-001", BASE_ROW[1], 2, 0), ("pat-002", gone[1], 3, 0)]),  # y rated
    )
    assert "pat-002 was deleted on" in " ".join(
        i.detail for i in list_pending(project_dir / PLAYBOOK)
    )
    rate(project_dir, "x", BASE_ROW[1])
    rate(project_dir, "y", BASE_ROW[1], 2)

    merge_again(project_dir)

    assert by_text(project_dir) == {BASE_ROW[1]: ("pat-001", 1 + 1 + 1 + 2, 0)}


def test_the_branch_that_lost_a_clash_merges_back_and_its_rule_keeps_its_counts_and_pin(
    project_dir: Path,
) -> None:
    """y's pat-002 became pat-003 in x's merge; y rated and pinned it as pat-002 meanwhile.
    y merging x takes x's numbering, adds every rating once and moves the pin along."""
    init_repo(project_dir, playbook(pat=[BASE_ROW]))
    git(project_dir, "branch", "y")
    git(project_dir, "checkout", "-qb", "x")
    commit(project_dir, playbook(pat=[BASE_ROW, ("pat-002", "Pin the Python version", 1, 0)]), "x")
    git(project_dir, "checkout", "-q", "y")
    commit(project_dir, playbook(pat=[BASE_ROW, ("pat-002", "Cache the virtualenv", 2, 0)]), "y")
    git(project_dir, "checkout", "-q", "x")
    done = git(project_dir, "merge", "--no-edit", "y")
    assert "their new pat-002 is now pat-003" in done.stderr
    rate(project_dir, "x", "Cache the virtualenv", 1)  # x rates it as pat-003
    rate(project_dir, "y", "Cache the virtualenv", 2)  # y rates it as pat-002
    acecode(project_dir, "pin", "pat-002")  # on y: the virtualenv rule

    done = git(project_dir, "merge", "--no-edit", "x")  # y merges x back

    assert "our pat-002 is now pat-003" in done.stderr
    assert by_text(project_dir) == {
        BASE_ROW[1]: ("pat-001", 1, 0),
        "Pin the Python version": ("pat-002", 1, 0),
        "Cache the virtualenv": ("pat-003", 2 + 1 + 2, 0),
    }
    assert read_pins(pins_path(project_dir / PLAYBOOK)) == ["pat-003"]
    assert list_pending(project_dir / PLAYBOOK) == []
    assert_canonical(project_dir)
    git(project_dir, "checkout", "-q", "x")
    git(project_dir, "merge", "--no-edit", "y")  # the branches now agree on every ID
    assert by_text(project_dir)["Cache the virtualenv"] == ("pat-003", 5, 0)
    why = acecode(project_dir, "why", "pat-003", env={"COLUMNS": "300"}).stdout
    assert "renumbered from pat-002 in git merge x, as x numbers it" in why
    taken_over = acecode(project_dir, "why", "pat-002", env={"COLUMNS": "300"}).stdout
    assert "arrived from x in git merge x" in taken_over and "renumbered" not in taken_over


class GitBackend:
    """Runs a history in a real repository: one git branch per branch of the history."""

    def __init__(self, repo: Path, root: Commit, branches: int) -> None:
        self.repo = repo
        init_repo(repo, root.playbook)
        root.key = git(repo, "rev-parse", "HEAD").stdout.strip()
        for branch in range(branches):
            git(repo, "branch", f"b{branch}")

    def commit(self, branch: int, book: dict[str, Any]) -> str:
        git(self.repo, "checkout", "-q", f"b{branch}")
        commit(self.repo, book, f"b{branch} learned")
        return git(self.repo, "rev-parse", "HEAD").stdout.strip()

    def merge(self, branch: int, ours: Commit, theirs: Commit) -> tuple[dict[str, Any], str]:
        git(self.repo, "checkout", "-q", f"b{branch}")
        assert git(self.repo, "rev-parse", "HEAD").stdout.strip() == ours.key
        git(self.repo, "merge", "--no-edit", theirs.key)
        assert_canonical(self.repo)
        return load_playbook(self.repo / PLAYBOOK), git(
            self.repo, "rev-parse", "HEAD"
        ).stdout.strip()


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=criss_cross_histories(rounds=3))
def test_random_criss_cross_histories_in_git_keep_counters_exact(
    steps: list[Step], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """After every real ``git merge``: each living rule once, with exactly its ratings.

    Two branches learn (add, rate, edit, move, delete rules) and merge each
    other every round, so from the second round git merges two merge bases
    with the driver first; the model in tests/core runs many more of these.
    """
    repo = tmp_path_factory.mktemp("history")
    replay = Replay(branches=2)
    replay.run(steps, GitBackend(repo, replay.root, 2))
    assert replay.merges >= 2
    kinds = {c["kind"] for c in json.loads(acecode(repo, "history", "--json").stdout)}
    assert kinds <= {"merge"}
