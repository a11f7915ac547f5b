"""One playbook layer's file and state folder (:class:`acecode.project.layer.Layer`).

The cycle, the hooks and the CLI all locate a layer's state through it, so what it
says must be what the path-based functions of the store and the CLI say.
"""

from __future__ import annotations

import os
from pathlib import Path

from acecode.project import outcomes, paths
from acecode.project.layer import Layer
from acecode.store import resolve_path
from acecode.store.journal import JOURNAL_NAME, journal_path


def test_the_project_layer_is_the_playbook_the_cli_finds_from_a_subfolder(project_dir: Path):
    (project_dir / ".claude").mkdir()
    deeper = project_dir / "src" / "pkg"
    deeper.mkdir(parents=True)
    os.chdir(deeper)

    layer = Layer.of()

    assert layer.playbook_file == paths.playbook_path() == project_dir / ".claude" / "playbook.json"
    assert layer.folder == paths.state_dir() == project_dir / ".claude" / "acecode"
    assert layer == Layer.of_project(str(project_dir)) == Layer.of(layer.playbook)
    assert layer.project_root == project_dir.resolve() and not layer.is_user


def test_a_layer_or_its_playbook_path_name_the_same_state_files(tmp_path: Path):
    playbook = tmp_path / "team" / "playbook.json"
    layer = Layer(playbook)

    assert resolve_path(layer) == resolve_path(playbook) == playbook
    assert (
        journal_path(layer) == journal_path(playbook) == playbook.parent / "acecode" / JOURNAL_NAME
    )
    assert layer.state_file("pins.json") == str(layer.file("pins.json"))
    assert layer.project_root is None  # not in a .claude folder: no project of its own


def test_the_user_layer_is_recognised_under_any_name_for_its_file(home_dir: Path):
    user = Layer.user()
    assert user.playbook_file == home_dir / ".claude" / "acecode-user" / "playbook.json"
    assert user.is_user and user.name_prefix == "u-"
    user.playbook_file.parent.mkdir(parents=True)
    link = home_dir / "mine.json"
    link.symlink_to(user.playbook_file)
    assert Layer(link).is_user  # a --playbook that names the user layer through a link
    assert Layer(home_dir / ".claude" / "playbook.json").name_prefix == ""


def test_state_files_written_through_a_layer_land_in_its_state_folder(tmp_path: Path):
    layer = Layer(tmp_path / ".claude" / "playbook.json")
    outcomes.record_outcome(layer, {"cycle_id": "c1", "status": "ok"})

    assert (tmp_path / ".claude" / "acecode" / "cycles.jsonl").is_file()
    assert (tmp_path / ".claude" / "acecode" / ".gitignore").read_text().splitlines()[-1] == "*"
    # The state folder given as a folder reads the same records.
    assert outcomes.read_outcomes(layer.folder) == outcomes.read_outcomes(layer)
    assert [record["cycle_id"] for record in outcomes.read_outcomes(layer)] == ["c1"]
