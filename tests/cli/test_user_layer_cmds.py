"""The user layer from the command line: real ``python -m acecode`` subprocesses, temp home."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_cli_commands import run as run_acecode

from acecode.playbook.schema import iter_entries
from acecode.project.layers import user_playbook_file
from acecode.store import load_playbook, save_playbook
from acecode.store.history import list_cycles
from support.show_table import table_rows

RULE = {"name": "pref-001", "text": "Prefer pathlib over os.path.", "helpful": 3, "harmful": 1}
USER_RULE = {"name": "u-pref-001", "text": "Reply tersely.", "helpful": 2, "harmful": 0}


def run(*args: str, check_exit: int | None = 0) -> subprocess.CompletedProcess:
    """``python -m acecode ARGS`` in the test's isolated project and home."""
    return run_acecode(*args, env={**os.environ, "COLUMNS": "200"}, check_exit=check_exit)


def names(path: Path) -> dict[str, dict]:
    return {entry["name"]: entry for _, entry in iter_entries(load_playbook(path))}


@pytest.fixture
def layers(project_dir: Path) -> tuple[Path, Path]:
    project, user = project_dir / ".claude" / "playbook.json", Path(user_playbook_file())
    save_playbook({"sections": {"USER PREFERENCES": [RULE]}}, project)
    save_playbook({"sections": {"USER PREFERENCES": [USER_RULE]}}, user)
    return project, user


def test_show_lists_both_layers_and_says_which_each_entry_is_in(layers):
    table = run("show").stdout
    layer_by_id = {row["id"]: row["layer"] for row in table_rows(table)}

    assert layer_by_id == {"pref-001": "project", "u-pref-001": "user"}
    assert "┃ layer " in table
    assert "[u-pref-001]" in run("show", "--format", "md").stdout
    assert json.loads(run("show", "--format", "json", "--user").stdout)["sections"][
        "USER PREFERENCES"
    ] == [USER_RULE]
    assert "u-pref-001" not in run("show", "--format", "json").stdout


def test_move_to_the_user_layer_renames_journals_both_and_undo_puts_it_back(layers):
    project, user = layers

    said = run("move", "pref-001", "--to", "user").stdout

    assert "as u-pref-002" in said and "[u-pref-002]" in said
    assert names(project) == {}
    moved = names(user)["u-pref-002"]
    assert (moved["text"], moved["helpful"], moved["harmful"]) == (RULE["text"], 3, 1)
    cycle_id = said.split("acecode undo ")[1].split()[0]
    assert [c.kind for c in list_cycles(project)] == ["move"]
    assert [c.cycle_id for c in list_cycles(user)] == [cycle_id]
    assert "move" in run("history", "--user").stdout

    undone = run("undo", cycle_id).stdout

    assert "both layers" in undone
    assert names(project) == {"pref-001": RULE}
    assert set(names(user)) == {"u-pref-001"}


def test_move_back_to_the_project_and_refusals_in_one_line(layers):
    project, user = layers

    said = run("move", "u-pref-001", "--to", "project").stdout

    assert "as pref-002" in said
    assert set(names(project)) == {"pref-001", "pref-002"} and names(user) == {}
    again = run("move", "pref-001", "--to", "project", check_exit=1)
    assert again.stderr.strip() == "acecode: pref-001 is already in the project layer"
    missing = run("move", "pat-404", "--to", "user", check_exit=1)
    assert "no entry named 'pat-404'" in missing.stderr and len(missing.stderr.splitlines()) == 1


def test_move_refuses_a_text_the_destination_already_has(layers):
    project, user = layers
    save_playbook(
        {"sections": {"USER PREFERENCES": [USER_RULE, {**RULE, "name": "u-pref-002"}]}}, user
    )
    before = (project.read_bytes(), user.read_bytes())

    refused = run("move", "pref-001", "--to", "user", check_exit=1)

    assert "already has this text as u-pref-002" in refused.stderr
    assert (project.read_bytes(), user.read_bytes()) == before


def test_stats_and_history_address_the_user_layer(layers):
    stats = json.loads(run("stats", "--user", "--json").stdout)
    assert stats["layer"] == "user" and stats["total_entries"] == 1
    assert json.loads(run("stats", "--json").stdout)["layer"] == "project"
    assert "acecode-user" in run("history", "--user").stdout
    both = run("history", "--user", "--playbook", "x.json", check_exit=1)
    assert "--user and --playbook" in both.stderr


def test_pin_and_unpin_find_a_user_entry_by_its_name(layers):
    project, user = layers

    assert "pinned u-pref-001" in run("pin", "u-pref-001").stdout

    assert json.loads((user.parent / "acecode" / "pins.json").read_text())["pinned"] == [
        "u-pref-001"
    ]
    assert not (project.parent / "acecode" / "pins.json").exists()
    assert "unpinned u-pref-001 (0 pinned)" in run("unpin", "u-pref-001").stdout


def test_doctor_checks_the_user_layer_and_names_a_broken_one(layers):
    _project, user = layers
    report = run("doctor", check_exit=None).stdout
    assert f"user layer\n  {user}: 1 entry" in report

    user.write_text("{not json", encoding="utf-8")

    broken = run("doctor", check_exit=1).stdout
    assert f"user layer\n  [problem] {user}" in broken.replace("\n   ", " ")


def test_rules_added_edited_explained_and_forgotten_by_hand_find_their_layer(layers):
    project, user = layers

    added = run("add", "Use British spelling in prose.", "--section", "pref", "--user").stdout

    assert "added u-pref-002" in added
    assert names(user)["u-pref-002"]["text"] == "Use British spelling in prose."
    assert set(names(project)) == {"pref-001"}
    run("edit", "u-pref-001", "Reply tersely, in plain text.")
    assert names(user)["u-pref-001"]["text"] == "Reply tersely, in plain text."
    assert "u-pref-002" in run("why", "u-pref-002").stdout
    run("forget", "u-pref-002")
    assert set(names(user)) == {"u-pref-001"} and set(names(project)) == {"pref-001"}
