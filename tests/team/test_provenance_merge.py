"""Provenance through a real `git merge` run by acecode's merge driver.

Provenance is local state (git-ignored), so the merge driver can only
follow what this clone's history journal saw: an entry renumbered by the
merge keeps the origins of the text it carries, and one that arrives with
no local record says "unknown origin".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from team_support import PLAYBOOK, acecode, commit, git, init_repo, playbook

from acecode.store.provenance import load_provenance

pytestmark = pytest.mark.slow  # git runs the driver as a fresh process

BASE = playbook(pat=[("pat-001", "Run pytest -x before pushing", 2, 0)])
FEATURE = "Regenerate the lock file with uv lock after changing dependencies."
MAIN = "Keep migrations reversible: every upgrade gets a downgrade."


def save_work(repo: Path, message: str) -> None:
    git(repo, "add", str(PLAYBOOK))
    git(repo, "commit", "-qm", message)


def test_a_renumbered_entry_keeps_its_origins_and_a_stranger_is_of_unknown_origin(
    project_dir: Path,
) -> None:
    repo = project_dir
    init_repo(repo, BASE)
    git(repo, "checkout", "-qb", "feature")
    acecode(repo, "add", FEATURE, "--section", "pat", "--reason", "the lock drifted")
    save_work(repo, "feature learned")
    git(repo, "checkout", "-q", "main")
    acecode(repo, "add", MAIN, "--section", "pat", "--reason", "a downgrade was missing")
    save_work(repo, "main learned")
    # Both branches created pat-002; the feature's arrives renumbered.
    git(repo, "merge", "--no-edit", "feature")

    origins = load_provenance(repo / PLAYBOOK)
    assert [(o.how, o.reason) for o in origins["pat-002"]] == [
        ("added-by-user", "a downgrade was missing")
    ]
    followed, merged = origins["pat-003"]
    assert (followed.how, followed.reason) == ("added-by-user", "the lock drifted")
    assert merged.how == "merge-driver" and "renumbered from pat-002" in merged.reason
    assert "unknown origin" not in merged.reason
    shown = acecode(repo, "why", "pat-003").stdout
    assert "the lock drifted" in shown and "renumbered from pat-002" in shown

    # A teammate's entry, committed on a branch this clone never learned on.
    git(repo, "checkout", "-qb", "teammate")
    commit(
        repo,
        playbook(
            pat=[
                ("pat-001", "Run pytest -x before pushing", 2, 0),
                ("pat-002", MAIN, 0, 0),
                ("pat-003", FEATURE, 0, 0),
                ("pat-004", "Tag releases from main only.", 0, 0),
            ]
        ),
        "teammate learned",
    )
    git(repo, "checkout", "-q", "main")
    acecode(repo, "add", "Squash fixup commits before review.", "--section", "pat")
    save_work(repo, "main learned again")
    git(repo, "merge", "--no-edit", "teammate")
    (stranger,) = load_provenance(repo / PLAYBOOK)["pat-005"]
    assert stranger.how == "merge-driver" and "unknown origin" in stranger.reason
    assert "renumbered from pat-004" in stranger.reason
