"""Stale rules (acecode.staleness): entries naming paths or symbols the project lacks,
checked against a real git repository, a plain folder, and through the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.playbook.schema import empty_playbook, new_entry
from acecode.staleness import find_stale
from acecode.staleness.names import named_in
from acecode.staleness.project import list_files
from acecode.store import save_playbook
from support.hang_guard import HANG_GUARD

GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", *GIT_ID, *args], cwd=repo, check=True, capture_output=True, timeout=HANG_GUARD
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


PROJECT = {
    "src/shop/models.py": "class OrderLine:\n    def total_price(self):\n        return 0\n",
    "src/shop/api.py": "from shop.models import OrderLine\nMAX_PAGE_SIZE = 50\n",
    "tests/test_models.py": "def test_total_price():\n    pass\n",
    "pyproject.toml": "[project]\nname = 'shop'\n",
    "docs/setup.md": "Run make test.\n",
    ".gitignore": "build/\n",
}

# One entry per case: (text, what must be flagged as missing).
ENTRIES = {
    "pat-001": ("Keep prices in src/shop/models.py and test them in tests/.", ()),
    "pat-002": (
        "The checkout lives in src/shop/checkout.py; test it with pytest.",
        ("src/shop/checkout.py",),
    ),
    "pat-003": ("Call `OrderLine.total_price()` instead of summing by hand.", ()),
    "pat-004": ("Use `compute_discount()` for coupons.", ("compute_discount",)),
    "pat-005": ("Edit models.py and pyproject.toml, never setup.py.", ("setup.py",)),
    "pat-006": ("APIs return application/json and/or text; see https://example.com/a/b.py.", ()),
    "pat-007": (
        "Run `pytest` and `make`; keep ~/.ssh/config and /etc/hosts alone; Node.js 20.",
        (),
    ),
    "pat-008": ("Put fixtures under tests/fixtures/ before using them.", ("tests/fixtures",)),
    "pat-009": ("Raise `MAX_PAGE_SIZE` only with the product owner.", ()),
    "pat-010": ("Build output goes to build/wheel/ (git-ignored).", ()),
    # Says the class is gone: its absence is the rule being right (issue 29).
    "pat-011": ("The `LegacyCartSerializer` is gone; use api.py.", ()),
}


def playbook() -> dict:
    book = empty_playbook()
    book["sections"]["PATTERNS & APPROACHES"] = [
        new_entry(name, text) for name, (text, _) in ENTRIES.items()
    ]
    return book


def expected() -> dict[str, tuple[str, ...]]:
    return {name: missing for name, (_, missing) in ENTRIES.items() if missing}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    write(root, PROJECT)
    (root / "build" / "wheel").mkdir(parents=True)  # ignored by git, but on disk
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def test_names_are_found_conservatively() -> None:
    found = named_in("Use `run_cycle()` and `os.environ` in src/app/ or config.py; see `pytest`.")
    assert found.paths == ("src/app", "config.py")
    assert found.symbols == ("run_cycle", "environ")
    prose = named_in("and/or, 1/2, http://x.io/y.py, ~/.ssh/id, /usr/bin/env, Vue.js, e.g. `make`")
    assert prose.paths == ("and/or",)  # a slash between words: judged against the project
    assert prose.symbols == ()


def test_git_repository_entries_naming_missing_paths_and_symbols_are_flagged(repo: Path) -> None:
    report = find_stale(playbook(), repo)
    assert report.source == "git" and report.complete
    assert {entry.name: entry.missing for entry in report.entries} == expected()


def test_a_file_removed_and_committed_makes_its_rule_stale(repo: Path) -> None:
    git(repo, "rm", "-q", "src/shop/api.py")
    git(repo, "commit", "-qm", "drop api")
    book = empty_playbook()
    book["sections"]["PROJECT CONTEXT"] = [
        new_entry("ctx-001", "Endpoints are declared in src/shop/api.py."),
        new_entry("ctx-002", "Page size is capped by `MAX_PAGE_SIZE`."),
    ]
    report = find_stale(book, repo)
    assert [(e.name, e.missing) for e in report.entries] == [
        ("ctx-001", ("src/shop/api.py",)),
        ("ctx-002", ("MAX_PAGE_SIZE",)),
    ]
    assert report.entries[0].note() == "names `src/shop/api.py`, not found in the project"


def test_a_plain_folder_is_walked_skipping_dependency_folders(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, PROJECT)
    write(root, {"node_modules/pkg/index.js": "function compute_discount() {}\n"})
    files = list_files(root)
    assert files.source == "walk" and files.complete
    assert not any(name.startswith("node_modules/") for name in files.files)
    report = find_stale(playbook(), root, files)
    flagged = {entry.name: entry.missing for entry in report.entries}
    # build/wheel/ does not exist here, but "build" is no folder of the project either:
    # a slash-only path is judged only when its first part is the project's
    assert flagged == expected()


def test_a_listing_cut_short_flags_nothing(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, PROJECT)
    files = list_files(root, max_files=2)
    report = find_stale(playbook(), root, files)
    assert not files.complete and report.entries == [] and not report.complete


def test_rules_in_the_playbook_do_not_vouch_for_themselves(repo: Path) -> None:
    """The playbook file names every symbol its rules name; it is never searched."""
    target = repo / ".claude" / "playbook.json"
    save_playbook(playbook(), target)
    git(repo, "add", "-f", ".claude/playbook.json")
    report = find_stale(playbook(), repo)
    assert {entry.name: entry.missing for entry in report.entries} == expected()


def _acecode(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


def test_stats_and_doctor_flag_possibly_stale_entries(repo: Path) -> None:
    save_playbook(playbook(), repo / ".claude" / "playbook.json")

    stats = _acecode(repo, "stats")
    assert stats.returncode == 0, stats.stderr
    assert re.search(r"possibly stale entries\W+4\W", stats.stdout), stats.stdout
    assert "pat-002 names `src/shop/checkout.py`, not found in the project" in stats.stderr

    as_json = _acecode(repo, "stats", "--json")
    stale = json.loads(as_json.stdout)["possibly_stale"]
    assert {item["name"]: tuple(item["missing"]) for item in stale["entries"]} == expected()

    doctor = _acecode(repo, "doctor")
    section = doctor.stdout.split("stale rules", 1)[1]
    assert section.splitlines()[1].strip().startswith("4 possibly stale entries (")
    assert "pat-004 names `compute_discount`, not found in the project" in section
    assert "LegacyCartSerializer" not in section
