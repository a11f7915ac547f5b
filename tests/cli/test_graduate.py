"""``acecode graduate`` and its undo on real files (issue 30); the real Claude Code side is
tests/realclient/test_real_graduate.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_cli_commands import run as run_acecode

from acecode.edits.graduate import (
    GraduateError,
    entry_paths,
    graduation_of,
    plan_graduation,
    run_graduation,
    undo_graduation,
)
from acecode.experiments.classes import HELPS, write_classes
from acecode.project.layer import Layer
from acecode.project.pins import change_pins, pins_path, read_pins
from acecode.store import load_playbook, save_playbook
from acecode.store.journal import HistoryError

PAT = "PATTERNS & APPROACHES"
HELPFUL = "Answer with the smallest diff that fixes the problem."
API = "In src/api/ every handler validates its body with pydantic."
PLAIN = "Run database migrations with make migrate first."


def run(*args: str, check_exit: int | None = 0) -> subprocess.CompletedProcess:
    return run_acecode(*args, env={**os.environ, "COLUMNS": "200"}, check_exit=check_exit)


@pytest.fixture
def layer(project_dir: Path) -> Layer:
    (project_dir / "src" / "api").mkdir(parents=True)
    path = project_dir / ".claude" / "playbook.json"
    entries = [
        {"name": f"pat-{n:03d}", "text": text, "helpful": 1, "harmful": 0}
        for n, text in enumerate([HELPFUL, API, PLAIN], start=1)
    ]
    save_playbook({"sections": {PAT: entries}}, path)
    layer = Layer(path)
    write_classes(layer, {"pat-001": {"class": HELPS, "figure": "", "sessions": 40}})
    return layer


def texts(layer: Layer) -> list[str]:
    return [entry["text"] for entry in load_playbook(layer)["sections"][PAT]]


def test_only_proven_entries_graduate_unless_forced(layer: Layer, project_dir: Path) -> None:
    with pytest.raises(GraduateError, match="pat-003 is not proven"):
        plan_graduation(["pat-001", "pat-003"], project=project_dir, layer=layer)
    change_pins(pins_path(layer.playbook), add="pat-003")
    plan = plan_graduation(["pat-001", "pat-003"], project=project_dir, layer=layer)
    assert [g.proven for g in plan.graduates] == ["helps", "pinned"]
    forced = plan_graduation(["pat-002"], project=project_dir, layer=layer, force=True)
    assert forced.graduates[0].proven == "forced"
    assert not (project_dir / ".claude/rules").exists()  # planning writes nothing


def test_paths_an_entry_is_about_but_not_a_commands_arguments(project_dir: Path) -> None:
    (project_dir / "src/api").mkdir(parents=True)
    (project_dir / "tests/unit").mkdir(parents=True)
    (project_dir / "pyproject.toml").write_text("")
    assert entry_paths("In `src/api/` validate bodies.", project_dir) == ("src/api/**",)
    assert entry_paths("Edit src/api and pyproject.toml together.", project_dir) == (
        "src/api/**",
        "pyproject.toml",
    )
    assert entry_paths("Run `pytest tests/unit` before committing.", project_dir) == ()
    assert entry_paths("Keep src/missing/ tidy.", project_dir) == ()


def test_the_command_shows_the_diff_and_writes_only_when_confirmed(
    layer: Layer, project_dir: Path
) -> None:
    refused = run("graduate", "pat-001", "pat-002", "--force", check_exit=1)
    assert "+++ b/.claude/rules/acecode.md" in refused.stdout
    assert '+  - "src/api/**"' in refused.stdout and "nothing written" in refused.stdout
    assert texts(layer) == [HELPFUL, API, PLAIN] and not (project_dir / ".claude/rules").exists()

    done = run("graduate", "pat-001", "pat-002", "--force", "--yes")
    assert "loaded once a file matching src/api/** is read" in done.stdout
    assert texts(layer) == [PLAIN]
    assert (project_dir / ".claude/rules/acecode.md").read_text() == (
        f"# Learned with acecode\n\n<!-- acecode pat-001 -->\n- {HELPFUL}\n"
    )
    assert (
        (project_dir / ".claude/rules/acecode-src-api.md")
        .read_text()
        .startswith('---\npaths:\n  - "src/api/**"\n---\n')
    )
    why = run("why", "pat-002").stdout
    assert "pat-002 graduated to" in why and "acecode-src-api.md" in why

    run("undo", "pat-002")
    assert texts(layer) == [HELPFUL, API, PLAIN]
    assert not (project_dir / ".claude/rules").exists()


def test_to_claude_md_under_its_own_section_and_back_byte_for_byte(
    layer: Layer, project_dir: Path
) -> None:
    original = "# Shop\n\n## Build\n- make build\n\n## Style\n- Tabs.\n"
    claude_md = project_dir / "CLAUDE.md"
    claude_md.write_text(original)
    change_pins(pins_path(layer.playbook), add="pat-001")
    plan = plan_graduation(["pat-001"], project=project_dir, layer=layer, to_claude_md=True)
    cycle = run_graduation(plan)
    assert claude_md.read_text() == original + (
        f"\n## Learned with acecode\n\n<!-- acecode pat-001 -->\n- {HELPFUL}\n"
    )
    assert "pat-001" not in read_pins(pins_path(layer.playbook))

    claude_md.write_text(claude_md.read_text() + "\n## Later\n- a teammate's line\n")
    assert undo_graduation(graduation_of(layer, cycle), layer) == ["pat-001"]
    assert claude_md.read_text() == original + "\n## Later\n- a teammate's line\n"
    assert "pat-001" in read_pins(pins_path(layer.playbook))


def test_an_edited_graduated_rule_is_left_to_the_user(layer: Layer, project_dir: Path) -> None:
    plan = plan_graduation(["pat-001"], project=project_dir, layer=layer)
    cycle = run_graduation(plan)
    rules = project_dir / ".claude/rules/acecode.md"
    rules.write_text(rules.read_text().replace("smallest", "tiniest"))
    with pytest.raises(HistoryError, match="pat-001 was changed or removed"):
        undo_graduation(graduation_of(layer, cycle), layer)
    assert texts(layer) == [API, PLAIN] and "tiniest" in rules.read_text()


def test_a_failed_save_puts_the_files_back(layer: Layer, project_dir: Path) -> None:
    plan = plan_graduation(["pat-001"], project=project_dir, layer=layer)
    save_playbook({"sections": {PAT: []}}, Path(layer.playbook))  # pat-001 left meanwhile
    with pytest.raises(GraduateError, match="left the playbook meanwhile"):
        run_graduation(plan)
    assert not (project_dir / ".claude/rules/acecode.md").exists()
